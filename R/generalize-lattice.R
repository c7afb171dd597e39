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
       entropy_base = lapply(key_parts, entropy_by_level),
       # the units' key values (their distinct values code the lattice) and the
       # hierarchies: for the labels of generalized codes and k-map's population
       units = as.data.frame(data, stringsAsFactors = FALSE, optional = TRUE)[keys],
       hierarchies = hierarchies[keys], uid = new.env(parent = emptyenv()))
}

# The generalized labels of key v's codes at level lv (the codes of
# lattice_key(): distinct values in order of first appearance).
key_level_labels <- function(lat, v, lv) {
  part <- lat$key[[v]]
  values <- unique(lat$units[[lat$keys[[v]]]])
  g <- apply_level(lat$hierarchies[[v]], values, lv)
  g[match(seq_len(max(part$level_codes[[lv + 1L]])), part$level_codes[[lv + 1L]])]
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

# Evaluate one node from a rolled-up table: its classes, what the criteria
# suppress and whether the node is acceptable (generalize-criteria.R), and the
# information loss under `metrics`.
lattice_evaluate <- function(lat, table, levels, model, metrics) {
  model <- as_search_model(model, lat)
  node <- lattice_node(lat, table, levels)
  verdict <- node_verdict(node, model)
  size <- node$size
  supp <- verdict$supp
  class_codes <- node$class_codes
  # ARX's monotone metrics: a suppressed unit costs what it would at the node
  charged <- if (identical(model$charge, "node")) rep(FALSE, length(size)) else supp
  list(levels = levels, k_ok = verdict$k_ok, ok = verdict$ok, suppressed = sum(size[supp]),
       n_classes = length(size), sum_sq = sum(size^2), supp = supp, class_codes = class_codes,
       loss = vapply(metrics, function(m) {
         if (identical(model$charge, "block") && m %in% c("entropy", "avg_class_size"))
           block_loss(lat, levels, size, supp, class_codes, m, model$k)
         else node_loss(lat, levels, size, charged, class_codes, m, model$k)
       }, numeric(1)))
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

# The released units (records, or persons) of a node as a data frame of
# their classes' key codes (risk_loglinear() and risk_individual() take
# numbers as categories, so the codes stand for the generalized values).
class_frame <- function(class_codes, unit_class, rows, keys) {
  frame <- as.data.frame(class_codes[unit_class[rows], , drop = FALSE])
  names(frame) <- keys
  frame
}

# The class (row of class_codes) of every record at node `levels`.
record_class <- function(lat, levels, class_codes) {
  if (!is.null(attr(class_codes, "sets"))) return(set_unit_class(lat, attr(class_codes, "sets")))
  A <- length(levels)
  rec <- vapply(seq_len(A), function(v) {
    part <- lat$key[[v]]
    part$level_codes[[levels[[v]] + 1L]][part$code0]
  }, integer(lat$n))
  dim(rec) <- c(lat$n, A)
  nc <- nrow(class_codes)
  g <- call_c(C_lattice_group, arg = "spec", list(codes = rbind(class_codes, rec), ncol = A,
                                  count = rep(1, nc + lat$n)))
  match(g$group[nc + seq_len(lat$n)], g$group[seq_len(nc)])
}
