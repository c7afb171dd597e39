# ola() with persons whose key values differ between their records (methods
# vignette sections 16, 20 and 23). A person's key is the SET of the distinct
# key tuples of their records; at a node every record's tuple is generalized,
# each person's set of distinct generalized tuples taken, and persons are
# classed by equal sets (the classes of datafly(id =), risk_kanon(id =),
# person_groups()). Generalization maps equal sets to equal sets, so classes
# only merge going up: a node's classes are rolled up from a finer node's,
# and the k-part stays monotone (the tagging of lattice_search() holds).
#
# A "set table" holds a node's classes without the records:
#   codes   R x A tuple codes at the table's levels (rows of all groups),
#   group   the group (1..G) of each row, weight the person-tuples behind it
#           (the distinct (person, tuple) pairs of the data whose generalized
#           tuple the row is, summed over the group's persons),
#   count   persons per group, extra G x E sensitive codes per group (a group
#           is the persons with one key set and one sensitive vector),
#   set     per group, an id equal for groups with equal key sets,
#   of_bottom  the group of each bottom group (persons -> bottom group is
#           lat$unit_group).
# The information losses (precision, entropy) count the distinct (person,
# tuple) pairs of the data ("person-tuples": each person's key set, a
# suppressed person charged with all of theirs); discernibility and the
# average class size count persons. With one tuple per person these are the
# persons' losses of the one-row-per-person lattice, with one record per
# person the records' losses.

# Group the rows of an integer matrix: 1-based group ids by first appearance.
group_code_rows <- function(m) {
  storage.mode(m) <- "integer"
  if (!nrow(m)) return(integer())
  call_c(C_lattice_group, list(codes = m, ncol = ncol(m), count = rep(1, nrow(m))),
         arg = "keys")$group
}

# Dense ranks of the pairs (a, b) in lexicographic order.
dense_rank2 <- function(a, b) {
  o <- order(a, b, method = "radix")
  n <- length(o)
  step <- c(TRUE, a[o][-1L] != a[o][-n] | b[o][-1L] != b[o][-n])
  out <- integer(n)
  out[o] <- cumsum(step)
  out
}

# Each owner's sequence of values (owner sorted, values in sequence order)
# folded position by position: state <- step(state, value at position j),
# starting from 0. Without `pad` only the owners whose sequence reaches j
# step (an id of the sequence); with `pad` every owner steps and a sequence
# that has ended takes `pad` (a rank in which a proper prefix comes first).
fold_sequences <- function(owner, value, n_owner, step, pad = NULL) {
  len <- tabulate(owner, n_owner)
  pos <- sequence(len)
  state <- integer(n_owner)
  for (j in seq_len(max(len, 0L))) {
    at <- pos == j
    if (is.null(pad)) {
      who <- owner[at]
      state[who] <- step(state[who], value[at])
    } else {
      padded <- rep(pad, n_owner)
      padded[owner[at]] <- value[at]
      state <- step(state, padded)
    }
  }
  state
}

# The groups of a set table merged by equal (key set, sensitive codes). Within
# a group the rows of equal tuples merge (weights summed); a group's set is
# the sorted sequence of its tuple ids, identified position by position: the
# id after position j is the group of the pair (id after j - 1, tuple j), so
# equal ids at the end (with equal lengths) mean equal sets.
set_table_group <- function(codes, group, weight, count, extra, of_bottom) {
  G <- length(count)
  tid <- group_code_rows(codes)
  o <- order(group, tid, method = "radix")
  g <- group[o]
  t <- tid[o]
  R <- length(o)
  new <- c(TRUE, g[-1L] != g[-R] | t[-1L] != t[-R])
  w <- as.vector(rowsum(weight[o], cumsum(new), reorder = FALSE))
  g <- g[new]
  t <- t[new]
  rows <- o[new]
  len <- tabulate(g, G)
  sid <- fold_sequences(g, t, G, function(id, tuple) group_code_rows(cbind(id, tuple)))
  setid <- group_code_rows(cbind(len, sid))
  parent <- group_code_rows(cbind(len, sid, extra))
  G2 <- max(parent, 0L)
  first_group <- match(seq_len(G2), parent)
  pg <- parent[g]
  pk <- group_code_rows(cbind(pg, t))
  first_row <- match(seq_len(max(pk, 0L)), pk)
  list(codes = codes[rows[first_row], , drop = FALSE], group = pg[first_row],
       weight = as.vector(rowsum(w, pk, reorder = TRUE)),
       count = as.vector(rowsum(count, parent, reorder = TRUE)),
       extra = extra[first_group, , drop = FALSE], set = setid[first_group],
       of_bottom = parent[of_bottom])
}

# A set table rolled up to coarser codes: maps[[v]] recodes key v (NULL keeps it).
set_table_rollup <- function(tab, maps) {
  codes <- tab$codes
  for (v in seq_along(maps)) if (!is.null(maps[[v]])) codes[, v] <- maps[[v]][codes[, v]]
  set_table_group(codes, tab$group, tab$weight, tab$count, tab$extra, tab$of_bottom)
}

# Everything the search needs about records with persons (person: 1..P per
# record), built once: the person-tuples coded key by key (lattice_key(), so
# the losses count them), each person's sensitive values (constant within
# the person, else the person's set of values, as risk_ldiversity(id =)
# takes them), and the bottom set table.
set_lattice_build <- function(data, keys, hierarchies, person, sensitive = NULL,
                              ordered = character()) {
  data <- as.data.frame(data)
  P <- max(person)
  pt <- group_code_rows(cbind(person, key_codes(data, keys)[[1L]]))
  first <- match(seq_len(max(pt)), pt)
  units <- data[first, keys, drop = FALSE]
  unit_person <- person[first]
  key_parts <- lapply(keys, function(key) lattice_key(units[[key]], hierarchies[[key]]))
  names(key_parts) <- keys
  sens_parts <- lapply(sensitive, function(s)
    lattice_sensitive(person_columns(data, s, person, P)$columns[[1L]], s %in% ordered))
  names(sens_parts) <- sensitive
  U <- length(first)
  codes <- vapply(key_parts, `[[`, integer(U), "code0")
  dim(codes) <- c(U, length(keys))
  extra <- vapply(sens_parts, `[[`, integer(P), "code")
  dim(extra) <- c(P, length(sensitive))
  bottom <- set_table_group(codes, unit_person, rep(1, U), rep(1, P), extra, seq_len(P))
  unit_group <- bottom$of_bottom
  bottom$of_bottom <- seq_along(bottom$count)
  top <- vapply(key_parts, `[[`, integer(1), "top")
  lat <- list(n = P, n_loss = U, keys = keys, sensitive = sensitive, key = key_parts,
              sens = sens_parts, top = top,
              nested = all(vapply(key_parts, function(p)
                all(p$nested[upper.tri(p$nested, TRUE)]), logical(1))),
              bottom = bottom, entropy_base = lapply(key_parts, entropy_by_level),
              sets = TRUE, unit_group = unit_group, loss_unit = unit_person, units = units,
              hierarchies = hierarchies[keys], uid = new.env(parent = emptyenv()))
  lat
}

# The classes of a node's set table: the class of each group (groups differ
# only by sensitive codes within a class), class sizes in persons and the
# class "codes" the criteria take: one column of tie ranks (with `tie`; else
# the class numbers), carrying the node's table as attribute "sets" for the
# losses, k-map, the units' classes and the sample risks.
set_classes <- function(lat, table, levels, tie = FALSE) {
  G <- length(table$count)
  class_of <- if (length(lat$sensitive)) group_code_rows(matrix(table$set)) else seq_len(G)
  n_cls <- max(class_of, 0L)
  size <- as.vector(rowsum(table$count, class_of, reorder = TRUE))
  info <- list(table = table, class = class_of, n_cls = n_cls, levels = levels, lat = lat)
  rank <- if (tie) set_tie_rank(table, class_of, n_cls) else seq_len(n_cls)
  list(class = class_of, size = size,
       codes = structure(matrix(rank, ncol = 1L), sets = info))
}

# The tie order of classes with equal sizes (avg_risk's and the scans'
# suppression order): each class's set of tuples sorted lexicographically by
# their codes (the order of first appearance of each key's generalized value
# in the data), sets compared lexicographically, a proper prefix first. With
# one tuple per class this is the order of the class codes, as without persons.
set_tie_rank <- function(table, class_of, n_cls) {
  rep_group <- match(seq_len(n_cls), class_of)
  rows <- which(table$group %in% rep_group)
  cl <- class_of[table$group[rows]]
  codes <- table$codes[rows, , drop = FALSE]
  o <- do.call(order, c(lapply(seq_len(ncol(codes)), function(v) codes[, v]),
                        list(method = "radix")))
  n <- length(o)
  differs <- if (n > 1L) rowSums(codes[o[-1L], , drop = FALSE] != codes[o[-n], , drop = FALSE]) > 0
             else logical()
  trank <- integer(n)
  trank[o] <- cumsum(c(TRUE, differs))
  o2 <- order(cl, trank, method = "radix")
  cl2 <- cl[o2]
  t2 <- trank[o2]
  fold_sequences(cl2, t2, n_cls, dense_rank2, pad = 0L)
}

# One node of the set lattice in lattice_evaluate()'s terms: class sizes in
# persons, the class "codes" of set_classes() (tie ranks when a criterion
# orders classes), the class of each group, and the sensitive codes per group
# in the layout of a class table (key columns, then sensitive ones).
set_node_classes <- function(lat, table, levels) {
  sc <- set_classes(lat, table, levels)
  list(size = sc$size, class_codes = sc$codes, cls = list(group = sc$class, size = sc$size),
       table = list(codes = cbind(matrix(0L, length(table$count), length(lat$keys)),
                                  table$extra), count = table$count))
}

# Precision and entropy over the person-tuples (see the head of this file):
# the rows of the charged classes count their weights at the top (precision)
# or at their suppression cost (entropy, methods vignette section 16); with
# `block`, ARX's block entropy of the suppressed person-tuples.
set_node_loss <- function(lat, levels, charged, sets, metric, block = FALSE) {
  tab <- sets$table
  A <- length(levels)
  row_s <- charged[sets$class[tab$group]]
  w <- tab$weight[row_s]
  s <- sum(w)
  NL <- lat$n_loss
  if (metric == "precision")
    return(((NL - s) * sum(level_share(levels, lat$top)) + s * A) / (NL * A))
  base <- sum(vapply(seq_len(A), function(v)
    lat$entropy_base[[v]][[levels[[v]] + 1L]], numeric(1)))
  if (!s) return(base)
  extra <- 0
  for (v in seq_len(A)) {
    code <- tab$codes[row_s, v]
    if (block) {
      cg <- as.vector(rowsum(w, code))
      extra <- extra + sum(cg * log2(s / cg))
    } else {
      extra <- extra + sum(w * lat$key[[v]]$suppress_cost[[levels[[v]] + 1L]][code])
    }
  }
  base + extra
}

# The class of every person at a node of the set lattice.
set_unit_class <- function(lat, sets) sets$class[sets$table$of_bottom[lat$unit_group]]

# The log-linear criterion with key sets: risk_loglinear(id =) on the released
# persons' generalized tuples (one row per person and tuple of their set), so
# the persons' key table is the one risk_loglinear() builds from a release.
set_loglinear_share <- function(unit_class, kept, sets, spec) {
  lat <- sets$lat
  tab <- sets$table
  released <- which(kept[unit_class])
  if (!length(released)) return(0)
  by_group <- split(seq_along(tab$group), factor(tab$group, seq_along(tab$count)))
  g <- tab$of_bottom[lat$unit_group[released]]
  rows <- unlist(by_group[g], use.names = FALSE)
  who <- rep(released, lengths(by_group[g]))
  frame <- lapply(seq_along(lat$keys), function(v)
    key_level_labels(lat, v, sets$levels[[v]])[tab$codes[rows, v]])
  frame <- as.data.frame(stats::setNames(frame, lat$keys), stringsAsFactors = FALSE,
                         optional = TRUE)
  frame[[".epimask_unit"]] <- who
  loglinear_fit_share(frame, lat$keys, if (!is.null(spec$weights)) spec$weights[who], spec,
                      id = ".epimask_unit")
}
