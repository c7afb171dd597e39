# The generalization lattice (methods vignette section 16): one node per vector of levels, one
# level per key. A node is evaluated from a class table (integer codes of the
# keys at the node's levels, then of the sensitive variables, with a count per
# row) rolled up in C (src/lattice.c) from a finer node's table, never from the
# records. The bottom node's table is built once from the data; every level of
# a hierarchy is a function of the original values, so any node can be rolled
# up from the bottom, and from any finer node when the hierarchies are nested.

# Codes of one key: its distinct original values, the code of each record, and
# for each level the code of each distinct value, the number of records behind
# each generalized value, and the maps from the codes of a finer level to
# those of a coarser one (NULL when the coarser level is not a function of
# the finer, i.e. the hierarchy is not nested there).
lattice_key <- function(x, hierarchy) {
  values <- unique(x)
  code0 <- match(x, values)
  top <- length(hierarchy$levels) - 1L
  n_value <- tabulate(code0, length(values))
  level_codes <- lapply(0:top, function(lv) {
    g <- apply_level(hierarchy, values, lv)
    match(g, unique(g))
  })
  group_n <- lapply(level_codes, function(code)
    as.vector(rowsum(as.double(n_value), code, reorder = TRUE)))
  # what suppressing a record costs in entropy over keeping it at the level:
  # log2 n - log2 n_g (methods vignette section 16), by generalized value
  suppress_cost <- lapply(group_n, function(ng) log2(length(x)) - log2(ng))
  maps <- lapply(0:top, function(a) lapply(0:top, function(b) {
    if (b < a) return(NULL)
    from <- level_codes[[a + 1L]]
    to <- level_codes[[b + 1L]]
    map <- integer(max(from))
    map[from] <- to
    if (any(map[from] != to)) NULL else map
  }))
  nested <- outer(0:top, 0:top, Vectorize(function(a, b)
    b >= a && !is.null(maps[[a + 1L]][[b + 1L]])))
  list(code0 = code0, top = top, n_value = n_value, level_codes = level_codes,
       group_n = group_n, suppress_cost = suppress_cost, maps = maps, nested = nested)
}

# Codes of one sensitive variable, as risk_tcloseness() codes them (NA a
# value of its own, last when ordered; numbers by value, factors by their
# levels, other values sorted), and its overall distribution q.
lattice_sensitive <- function(x, ordered) {
  code <- sensitive_codes(x, ordered)
  m <- max(0L, code)
  list(code = code, q = tabulate(code, m) / length(x), ordered = ordered)
}

# Everything the search needs about the data, built once.
lattice_build <- function(data, keys, hierarchies, sensitive = NULL,
                          ordered = character()) {
  key_parts <- lapply(keys, function(key) lattice_key(data[[key]], hierarchies[[key]]))
  names(key_parts) <- keys
  sens_parts <- lapply(sensitive, function(s) lattice_sensitive(data[[s]], s %in% ordered))
  names(sens_parts) <- sensitive
  n <- nrow(data)
  codes <- vapply(c(lapply(key_parts, `[[`, "code0"), lapply(sens_parts, `[[`, "code")),
                  as.integer, integer(n))
  dim(codes) <- c(n, length(keys) + length(sensitive))
  g <- call_c(C_lattice_group, list(codes = codes, ncol = ncol(codes), count = rep(1, n)),
              arg = "keys")
  top <- vapply(key_parts, `[[`, integer(1), "top")
  list(n = n, keys = keys, sensitive = sensitive, key = key_parts,
       sens = sens_parts, top = top,
       nested = all(vapply(key_parts, function(p) all(p$nested[upper.tri(p$nested, TRUE)]),
                           logical(1))),
       bottom = list(codes = codes[g$first, , drop = FALSE], count = g$size),
       entropy_base = lapply(key_parts, entropy_by_level))
}

# Non-uniform entropy of one key at each level with nothing suppressed:
# sum over records of log2 n_g - log2 n_x (methods vignette section 16).
entropy_by_level <- function(part) {
  own <- sum(part$n_value * log2(part$n_value))
  vapply(part$group_n, function(ng) sum(ng * log2(ng)) - own, numeric(1))
}

# The class table of node `levels` rolled up from `source` (a table with its
# own `levels`), in C.
lattice_rollup <- function(lat, source, levels) {
  maps <- lapply(seq_along(levels), function(v) {
    a <- source$levels[[v]]
    b <- levels[[v]]
    if (a == b) NULL else lat$key[[v]]$maps[[a + 1L]][[b + 1L]]
  })
  # persons with key sets (generalize-ola-sets.R): the sets' tuples recoded
  if (isTRUE(lat$sets)) return(set_table_rollup(source, maps))
  maps <- c(maps, rep(list(NULL), length(lat$sensitive)))
  call_c(C_lattice_rollup, list(codes = source$codes, count = source$count, maps = maps),
         arg = "hierarchies")
}

# Evaluate one node from a rolled-up table: class sizes, suppression, the
# privacy models and the information loss under `metrics`.
lattice_evaluate <- function(lat, table, levels, model, metrics) {
  A <- length(lat$keys)
  if (isTRUE(lat$sets)) {
    # persons with key sets (generalize-ola-sets.R)
    nc <- set_node_classes(lat, table, levels, model)
    size <- nc$size
    class_codes <- nc$class_codes
    cls <- nc$cls
    table <- nc$table
  } else if (length(lat$sensitive)) {
    cls <- call_c(C_lattice_group, list(codes = table$codes, ncol = A, count = table$count),
                  arg = "keys")
    size <- cls$size
    class_codes <- table$codes[cls$first, seq_len(A), drop = FALSE]
  } else {
    cls <- NULL
    size <- table$count
    class_codes <- table$codes
  }
  small <- size < model$k
  suppressed <- sum(size[small])
  k_ok <- suppressed <= model$max_suppress * lat$n
  # the criteria of methods vignette section 20 (outliers = "failing", average risk, k-map,
  # the ARX charging of suppressed records) in generalize-criteria.R
  if (model_extended(model))
    return(lattice_evaluate_targets(lat, table, levels, model, metrics, cls, size,
                                    class_codes, small, k_ok))
  diverse <- k_ok && lattice_diverse(lat, table, cls, small, model)
  list(levels = levels, k_ok = k_ok, ok = k_ok && diverse,
       suppressed = suppressed, n_classes = length(size),
       sum_sq = sum(size^2), supp = small, class_codes = class_codes,
       loss = vapply(metrics, function(m)
         node_loss(lat, levels, size, small, class_codes, m, model$k), numeric(1)))
}

# Every class kept (size >= k) is l-diverse and t-close on every sensitive
# variable (methods vignette section 12); 1e-9 absorbs the rounding of exp(entropy) and EMD.
lattice_diverse <- function(lat, table, cls, small, model) {
  if (!length(lat$sensitive) || all(small)) return(TRUE)
  A <- length(lat$keys)
  for (j in seq_along(lat$sensitive)) {
    s <- lat$sens[[j]]
    d <- class_diversity(cls$group, table$codes[, A + j], length(cls$size), length(s$q),
                         count = table$count, q = if (!is.null(model$t)) s$q,
                         ordered = s$ordered)
    kept <- !small
    if (!is.null(model$l)) {
      l_value <- if (model$diversity == "distinct") d$distinct else d$entropy_l
      if (any(l_value[kept] < model$l - 1e-9)) return(FALSE)
    }
    if (!is.null(model$t) && any(d$emd[kept] > model$t + 1e-9)) return(FALSE)
  }
  TRUE
}

# Information loss of a node's release (methods vignette section 16); suppressed records count
# as fully generalized.
node_loss <- function(lat, levels, size, small, class_codes, metric, k) {
  sets <- attr(class_codes, "sets")
  if (!is.null(sets) && metric %in% c("precision", "entropy"))
    return(set_node_loss(lat, levels, small, sets, metric))
  n <- lat$n
  A <- length(levels)
  s <- sum(size[small])
  switch(metric,
    precision = ((n - s) * sum(level_share(levels, lat$top)) + s * A) / (n * A),
    discernibility = sum(size[!small]^2) + n * s,
    avg_class_size = if (n > s) ((n - s) / sum(!small)) / k else n / k,
    entropy = {
      base <- sum(vapply(seq_len(A), function(v)
        lat$entropy_base[[v]][[levels[[v]] + 1L]], numeric(1)))
      extra <- 0
      if (any(small)) {
        small_size <- size[small]
        for (v in seq_len(A)) {
          cost <- lat$key[[v]]$suppress_cost[[levels[[v]] + 1L]]
          extra <- extra + sum(small_size * cost[class_codes[small, v]])
        }
      }
      base + extra
    })
}

# h / H for precision; a key whose hierarchy has a single level (one value
# in the data) loses nothing when released.
level_share <- function(h, top) h / pmax(top, 1L) * (top > 0)

# A lower bound on a node's loss from its levels alone: the loss with nothing
# suppressed for precision and entropy (suppression only adds loss); for the
# other two, bounds come from evaluated finer nodes (lattice_search()).
static_bound <- function(lat, nodes, metric) {
  switch(metric,
    precision = Reduce(`+`, lapply(seq_along(lat$top), function(v)
      level_share(nodes[, v], lat$top[[v]]))) / length(lat$top),
    entropy = Reduce(`+`, lapply(seq_along(lat$keys), function(v)
      lat$entropy_base[[v]][nodes[, v] + 1L])),
    discernibility = rep(lat$n, nrow(nodes)),
    avg_class_size = rep(0, nrow(nodes)),
    analysis = rep(-Inf, nrow(nodes)))
}
