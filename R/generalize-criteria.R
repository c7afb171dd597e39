# The criteria in the lattice search (methods vignette, sections 16, 20 and
# 27): a search model made of risk criteria, and a node evaluated by their
# generics (criterion_classes(), criterion_release(), criterion_suppress(),
# criterion_monotone()), never by their classes. The steps at a node:
# 1. the classes failing a monotone class-local criterion (k-anonymity) are
#    suppressed: the tagged part, `k_ok` when their units fit the limit;
# 2. the other class-local criteria: met by every released class (outliers
#    "small") or their failing classes suppressed too ("failing", ARX);
# 3. the release-wide criteria: the smallest released classes suppressed
#    first (ties by their generalized values) until the criteria that scan
#    hold (a criterion with a closed form gives its least count), then the
#    criteria that only check are checked on that release;
# 4. the losses, suppressed units charged as ARX's metrics ask.

# The search model: the criteria (bound to the lattice), which of them are
# monotone (the tagged part), the smallest class size they enforce (the
# average-class-size loss divides by it), the suppression limit, the outlier
# semantics, how suppressed units are charged and the tagging asked for.
search_model <- function(criteria, max_suppress, outliers = "small", charge = "top",
                         tagging = "auto") {
  structure(list(criteria = criteria,
                 tagged = vapply(criteria, criterion_monotone, logical(1)),
                 k = as.integer(max(1L, vapply(criteria, function(cr)
                   as.integer(criterion_min_size(cr)), integer(1)))),
                 max_suppress = max_suppress, outliers = outliers, charge = charge,
                 tagging = tagging, lat = NULL),
            class = "epimask_search_model")
}

# A search model for lattice `lat`: the criteria bound to its codes (k-map's
# population table), once per lattice. The search's internal callers (and
# the tests of its parts) may give the model of epimask 0.3, a list with `k`,
# `max_suppress`, `l`, `t`, `diversity`, `outliers`, `avg_risk`,
# `uniqueness`, `charge`: it is translated to criteria here.
as_search_model <- function(model, lat) {
  if (!inherits(model, "epimask_search_model")) model <- legacy_search_model(model, lat)
  if (!identical(model$lat, lat$uid)) {
    model$criteria <- lapply(model$criteria, criterion_bind, lat = lat)
    model$lat <- lat$uid
  }
  model
}

legacy_search_model <- function(model, lat) {
  sens <- lat$sensitive
  criteria <- c(list(k_anonymity(model$k %||% 1L)),
                if (!is.null(model$l)) list(l_diversity(model$l, sens,
                                                        measure = model$diversity %||% "distinct")),
                if (!is.null(model$t)) list(t_closeness(model$t, sens)),
                if (!is.null(model$avg_risk)) list(avg_risk(model$avg_risk)),
                if (!is.null(model$uniqueness))
                  list(uniqueness(model$uniqueness$max,
                                  population_model(model$uniqueness$pi,
                                                   model = model$uniqueness$model %||% "dankar"))))
  search_model(criteria, model$max_suppress %||% 1, outliers = model$outliers %||% "small",
               charge = model$charge %||% "top")
}

# ---- a node ------------------------------------------------------------------------

# The node handed to the criteria's generics (see ?criterion_classes): its
# classes (sizes, the codes of their generalized key values), the class
# table with the sensitive codes, and lazily the unit of each class, the
# classes' labels, the release of kept classes and the suppression order.
lattice_node <- function(lat, table, levels) {
  A <- length(lat$keys)
  node <- new.env(parent = emptyenv())
  if (isTRUE(lat$sets)) {
    # persons with key sets (generalize-ola-sets.R)
    nc <- set_node_classes(lat, table, levels)
    node$size <- nc$size
    node$class_codes <- nc$class_codes
    node$cls <- nc$cls
    node$table <- nc$table
  } else if (length(lat$sensitive)) {
    cls <- call_c(C_lattice_group, list(codes = table$codes, ncol = A, count = table$count),
                  arg = "keys")
    node$size <- cls$size
    node$class_codes <- table$codes[cls$first, seq_len(A), drop = FALSE]
    node$cls <- cls
    node$table <- table
  } else {
    node$size <- table$count
    node$class_codes <- table$codes
    node$table <- table
  }
  node$lat <- lat
  node$levels <- stats::setNames(as.integer(levels), lat$keys)
  node$keys <- lat$keys
  node$n <- lat$n
  ctx <- lat$context
  node$unit <- if (!is.null(ctx$person) || isTRUE(lat$sets)) "persons" else "records"
  node$id <- ctx$id
  node$original <- ctx$data
  node$cache <- new.env(parent = emptyenv())
  node$unit_class <- function() node_cache(node, ".unit_class", function()
    record_class(lat, levels, node$class_codes))
  node$order <- function() node_cache(node, ".order", function() node_order(node))
  node$classes <- function() node_cache(node, ".classes", function() node_classes(node))
  node$generalize <- function(df) generalize_frame(df, lat$keys, lat$hierarchies, levels)
  node$release <- function(kept) node_release(node, kept)
  node$release_rows <- function(kept) node_release_rows(node, kept)
  node
}

# A value computed once per node (the units' classes, the cluster risks).
node_cache <- function(node, key, compute) {
  if (is.null(node$cache[[key]])) node$cache[[key]] <- compute()
  node$cache[[key]]
}

# The classes smallest first, ties by their generalized values (the codes
# of first appearance, key by key; with key sets, the sets compared
# lexicographically): the order in which the search suppresses them.
node_order <- function(node) {
  codes <- node$class_codes
  sets <- attr(codes, "sets")
  if (!is.null(sets)) return(order(node$size, set_tie_rank(sets$table, sets$class, sets$n_cls)))
  do.call(order, c(list(node$size), lapply(seq_len(ncol(codes)), function(v) codes[, v])))
}

# The classes' generalized key values, one row per class (with key sets a
# key's values over the class's tuples joined by "|").
node_classes <- function(node) {
  lat <- node$lat
  codes <- node$class_codes
  sets <- attr(codes, "sets")
  out <- lapply(seq_along(lat$keys), function(v) {
    labels <- key_level_labels(lat, v, node$levels[[v]])
    if (is.null(sets)) return(labels[codes[, v]])
    tab <- sets$table
    rep_group <- match(seq_len(sets$n_cls), sets$class)
    rows <- which(tab$group %in% rep_group)
    cl <- sets$class[tab$group[rows]]
    vapply(split(as.character(labels[tab$codes[rows, v]]), factor(cl, seq_len(sets$n_cls))),
           paste, "", collapse = "|")
  })
  frame <- as.data.frame(stats::setNames(out, lat$keys), stringsAsFactors = FALSE,
                         optional = TRUE)
  rownames(frame) <- NULL
  frame
}

# The released records of the kept classes: the data searched with the keys
# at the node's levels.
node_release <- function(node, kept) {
  ctx <- node$lat$context
  if (is.null(ctx$data))
    epimask_abort("This lattice node has no data to release (an internal search without a context).",
                  "epimask_error_criterion", arg = "criteria")
  rec <- node_release_rows(node, kept)
  out <- generalize_frame(as.data.frame(ctx$data)[rec, , drop = FALSE], node$keys,
                          node$lat$hierarchies, node$levels)
  rownames(out) <- NULL
  out
}

# The rows of the data the release of the kept classes holds, in order.
node_release_rows <- function(node, kept) {
  ctx <- node$lat$context
  unit_kept <- kept[node$unit_class()]
  which(if (is.null(ctx$person)) unit_kept else unit_kept[ctx$person])
}

# A data frame with the keys generalized to `levels` (other columns as they are).
generalize_frame <- function(df, keys, hierarchies, levels) {
  for (v in seq_along(keys)) {
    key <- keys[[v]]
    if (key %in% names(df)) df[[key]] <- apply_level(hierarchies[[key]], df[[key]], levels[[v]])
  }
  df
}

# ---- a node evaluated ----------------------------------------------------------------

# Which classes a node suppresses and whether it is acceptable (steps 1-3
# of the head of this file); losses are computed by the caller.
node_verdict <- function(node, model) {
  size <- node$size
  limit <- model$max_suppress * node$n
  crit <- model$criteria
  small <- rep(FALSE, length(size))
  wide <- list()
  # 1. the tagged part: monotone class-local criteria
  for (i in which(model$tagged)) {
    fails <- criterion_classes(crit[[i]], node)
    if (is.null(fails)) wide <- c(wide, crit[i]) else small <- small | check_class_flags(fails, size, crit[[i]])
  }
  k_ok <- sum(size[small]) <= limit
  out <- list(k_ok = k_ok, ok = k_ok, supp = small)
  if (!k_ok) return(out)
  # 2. the other class-local criteria
  fails <- rep(FALSE, length(size))
  for (i in which(!model$tagged)) {
    f <- criterion_classes(crit[[i]], node)
    if (is.null(f)) wide <- c(wide, crit[i]) else fails <- fails | check_class_flags(f, size, crit[[i]])
  }
  if (identical(model$outliers, "failing")) {
    out$supp <- small | fails
    out$ok <- sum(size[out$supp]) <= limit
  } else {
    out$ok <- !any(fails & !small)
  }
  # 3. the release-wide criteria
  if (out$ok && length(wide)) {
    extra <- release_suppress(wide, node, out$supp, limit)
    if (is.null(extra)) out$ok <- FALSE else out$supp[extra] <- TRUE
  }
  out
}

check_class_flags <- function(fails, size, criterion) {
  if (!is.logical(fails) || length(fails) != length(size) || anyNA(fails))
    epimask_abort(sprintf(paste0("criterion_classes() of the criterion '%s' must return one TRUE ",
                                 "or FALSE per class (%d), not %s."), format(criterion),
                          length(size), paste(class(fails), collapse = "/")),
                  c("epimask_error_criterion", "epimask_error_type"), arg = "criteria")
  fails
}

# Step 3: the classes to suppress for the release-wide criteria (possibly
# none), or NULL when they cannot be met within the limit. ARX suppresses
# the smallest released classes first; a criterion with a closed form
# (criterion_suppress() a count, valid for every larger count too) sets the
# least count, the criteria that scan are tried count by count from there
# (population uniqueness, cluster risk: not monotone in the count), and the
# others are checked once on the release the scan leaves.
release_suppress <- function(wide, node, supp, limit) {
  size <- node$size
  kept <- !supp
  all_order <- node$order()
  order <- all_order[kept[all_order]]
  scan <- list()
  check <- list()
  m <- 0L
  for (cr in wide) {
    r <- criterion_suppress(cr, node, kept, order)
    if (is.null(r)) {
      check <- c(check, list(cr))
    } else if (identical(r, "scan")) {
      scan <- c(scan, list(cr))
    } else {
      if (!is.numeric(r) || length(r) != 1L)
        epimask_abort(sprintf("criterion_suppress() of the criterion '%s' must return NULL, \"scan\" or a count.",
                              format(cr)), c("epimask_error_criterion", "epimask_error_type"),
                      arg = "criteria")
      if (is.na(r)) return(NULL)
      m <- max(m, as.integer(r))
    }
  }
  used <- sum(size[supp])
  cum <- cumsum(size[order])
  if (m > 0L && used + cum[[m]] > limit) return(NULL)
  kept[order[seq_len(m)]] <- FALSE
  meets <- function(k) all(vapply(scan, function(cr) isTRUE(criterion_release(cr, node, k)),
                                  logical(1)))
  while (length(scan) && !meets(kept)) {
    m <- m + 1L
    if (m > length(order) || used + cum[[m]] > limit) return(NULL)
    kept[[order[[m]]]] <- FALSE
  }
  for (cr in check) if (!isTRUE(criterion_release(cr, node, kept))) return(NULL)
  order[seq_len(m)]
}

# ARX's non-monotone metrics (suppressed_loss = "block"): the suppressed
# records form one block of their own. Entropy (ARX MetricMDNUNMEntropy):
# the node's entropy of every record plus, for each key, the entropy of the
# suppressed records' generalized values within the block,
# sum_g c_g log2(S / c_g) (c_g of the S suppressed records have value g at the
# node). Average class size (ARX MetricSDAECS): n / (released classes + 1
# when records are suppressed), divided by k as in methods vignette section 16. Precision and
# discernibility are charged as "top" (ARX's MetricSDNMDiscernability).
block_loss <- function(lat, levels, size, supp, class_codes, metric, k) {
  n <- lat$n
  if (metric == "avg_class_size")
    return(n / (sum(!supp) + any(supp)) / k)
  if (!is.null(attr(class_codes, "sets")))
    return(set_node_loss(lat, levels, supp, attr(class_codes, "sets"), metric, block = TRUE))
  A <- length(levels)
  base <- sum(vapply(seq_len(A), function(v)
    lat$entropy_base[[v]][[levels[[v]] + 1L]], numeric(1)))
  S <- sum(size[supp])
  if (!S) return(base)
  extra <- 0
  for (v in seq_len(A)) {
    cg <- as.vector(rowsum(size[supp], class_codes[supp, v]))
    extra <- extra + sum(cg * log2(S / cg))
  }
  base + extra
}

# The records suppressed at node `levels` (logical, one per record).
node_suppressed_records <- function(lat, levels, model) {
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(levels)))),
                        unname(levels))
  ev <- lattice_evaluate(lat, tab, unname(levels), model, "precision")
  ev$supp[record_class(lat, unname(levels), ev$class_codes)]
}

# Each criterion on the release (the released records of the search, or
# of ola(): `release`), for the print, `$criteria` and the certificate; an
# empty release has nothing to count.
release_criteria <- function(criteria, release, original, keys, id, generalize = NULL,
                             rows = NULL) {
  lapply(criteria, function(cr) {
    if (!NROW(release))
      return(new_criterion_result(cr, NA_real_, note = "the release is empty",
                                  unit = if (is.null(id)) "records" else "persons"))
    run_criterion(cr, release, original = original, keys = keys, id = id,
                  generalize = generalize, rows = rows)
  })
}
