# Proxies of a key (methods vignette, section 26): a column from which a
# key's value is predicted, exactly (education-num for education) or in part
# (relationship for sex: Husband and Wife). The measure is the share of units
# whose key value the column determines: the units in groups of equal column
# values where one key value holds (nearly) all, compared with the share the
# column's group sizes alone would give if it were unrelated to the key. On
# a release the groups are those of the released key and the column
# together, the key value the original one.

# The determination of key `k` by column `c` (unit codes), within the
# classes of `stratum` (the released key; NULL: one class). `purity` is the
# share of a group one key value must hold for the group to determine it
# (in (0.5, 1]). Returns the units determined, those the groups' sizes give
# by chance, those the stratum alone determines (NA without a stratum), and
# whether every group holds a single key value (`exact`). `groups` may give
# proxy_groups(c) and `key_counts` tabulate(k) when `stratum` is NULL (the
# parts of the work that depend on the column or the key only, done once).
proxy_determination <- function(k, c, stratum = NULL, purity = 0.99, groups = NULL,
                                key_counts = NULL) {
  n <- length(k$code)
  gr <- if (!is.null(groups)) groups
        else proxy_groups(if (is.null(stratum)) c else combine_codes(stratum, c))
  alone <- if (!is.null(stratum)) stratum_determined(stratum, k, purity) else NA_real_
  if (!length(gr$keep))
    return(list(determined = n, expected = n, alone = alone, exact = TRUE, n = n))
  ks <- list(code = k$code[gr$keep], d = k$d)
  dominant <- group_dominant(gr$groups, ks)
  need <- purity_count(gr$size, purity)
  determined <- gr$singles + sum(dominant[dominant >= need])
  exact <- all(dominant == gr$size)
  # the chance model deals the key values of every unit of a stratum, the
  # groups of one unit included
  st <- stratum
  if (is.null(st) && is.null(key_counts)) key_counts <- tabulate(k$code, k$d)
  if (is.null(st)) {
    group_stratum <- rep(1L, gr$groups$d)
  } else {
    group_stratum <- integer(gr$groups$d)
    group_stratum[gr$groups$code] <- st$code[gr$keep]
  }
  expected <- gr$singles + expected_determined(group_stratum, gr$size, st, k, purity,
                                               key_counts)
  list(determined = determined, expected = expected, alone = alone, exact = exact, n = n)
}

# The groups of equal column values with more than one unit (a group of one
# unit determines its key trivially, and does so by chance too: it adds 1 to
# both counts and is left out of the work): `keep` the units in them,
# `groups` their dense group codes, `size` the group sizes, `singles` the
# units alone.
proxy_groups <- function(g) {
  sizes <- tabulate(g$code, g$d)
  keep <- which(sizes[g$code] > 1L)
  groups <- if (length(keep)) densify(g$code[keep]) else list(code = integer(), d = 0L)
  list(keep = keep, groups = groups, size = tabulate(groups$code, groups$d),
       singles = length(g$code) - length(keep))
}

# The largest count of one value of `b` in each group of `a` (coded
# columns). With few cells the counts are a table (groups x values) whose
# row maxima max.col() finds; otherwise the cells are hashed and sorted.
group_dominant <- function(a, b) {
  n <- length(a$code)
  if (as.double(a$d) * b$d <= 4 * n + 1024) {
    table <- matrix(tabulate((b$code - 1L) * a$d + a$code, a$d * b$d), a$d, b$d)
    return(table[cbind(seq_len(a$d), max.col(table, ties.method = "first"))])
  }
  cells <- cross_cells(a, b)
  group_max(cells$a, cells$count, a$d)
}

# The largest count of a cell per group (cells given by group and count).
group_max <- function(group, count, n_groups) {
  ord <- order(count, decreasing = TRUE, method = "radix")
  top <- ord[!duplicated(group[ord])]
  out <- integer(n_groups)
  out[group[top]] <- count[top]
  out
}

# The smallest count of one key value that makes a group of size g
# determined: ceiling(purity * g), with room for the rounding of the product.
purity_count <- function(g, purity) ceiling(purity * g - 1e-7)

# Units whose key value the stratum alone determines.
stratum_determined <- function(stratum, k, purity) {
  size <- tabulate(stratum$code, stratum$d)
  dominant <- group_dominant(stratum, k)
  sum(dominant[dominant >= purity_count(size, purity)])
}

# The expected number of units determined if the column were unrelated to
# the key within each stratum: the column's groups keep their sizes and the
# key values of the stratum are dealt to them at random (a permutation). A
# group of size g with n_k of the stratum's N units of key value k counts X_k
# units of it, hypergeometric; it is determined when X_k >= c = ceiling(purity
# g) for one k (purity > 1/2 allows one k at most), and then counts X_k
# units. E[X 1(X >= c)] = (g n_k / N) P(Y >= c - 1), Y hypergeometric with
# n_k - 1 marked of N - 1 and g - 1 drawn: summed over the key values and
# the groups (groups of equal size share the term).
expected_determined <- function(group_stratum, gsize, unit_stratum, key, purity,
                                key_counts = NULL) {
  nk_by <- if (!is.null(key_counts)) list(`1` = as.double(key_counts[key_counts > 0L])) else {
    cells <- cross_cells(unit_stratum, key)
    split(as.double(cells$count), cells$a)
  }
  total <- 0
  g_by <- split(gsize, group_stratum)
  for (s in names(g_by)) {
    nk <- nk_by[[s]]
    N <- sum(nk)
    mult <- table(g_by[[s]])
    g <- as.double(names(mult))
    mult <- as.double(mult)
    if (length(nk) == 1L) {
      # one key value in the stratum: every group is determined
      total <- total + sum(g * mult)
      next
    }
    need <- purity_count(g, purity)
    for (j in seq_along(g)) {
      m <- nk[nk >= need[[j]]]
      if (!length(m)) next
      p <- stats::phyper(need[[j]] - 2, m - 1, N - m, g[[j]] - 1, lower.tail = FALSE)
      total <- total + mult[[j]] * sum(g[[j]] * m / N * p)
    }
  }
  total
}

# The proxy table of a review: every column outside the keys against every
# key. `key_codes_list` are the unit codes of the keys' (original) values,
# `strata` NULL or the unit codes of the released keys.
review_proxies <- function(col_codes, key_codes_list, strata, control) {
  rows <- list()
  key_counts <- lapply(key_codes_list, function(k) tabulate(k$code, k$d))
  for (col in names(col_codes)) {
    groups <- if (is.null(strata)) proxy_groups(col_codes[[col]])
    for (key in names(key_codes_list)) {
      k <- key_codes_list[[key]]
      if (k$d < 2L) next
      st <- strata[[key]]
      # a released key that keeps every value determines it alone: nothing
      # to restore
      if (!is.null(st) && length(cross_cells(st, k)$count) == st$d) next
      r <- proxy_determination(k, col_codes[[col]], st, control$purity, groups,
                               if (is.null(st)) key_counts[[key]])
      rows[[length(rows) + 1L]] <- data.frame(
        column = col, key = key, determined = r$determined / r$n,
        expected = r$expected / r$n, excess = (r$determined - r$expected) / r$n,
        units = r$determined, exact = r$exact,
        alone = if (is.null(st)) NA_real_ else r$alone / r$n, stringsAsFactors = FALSE)
    }
  }
  if (!length(rows))
    return(data.frame(column = character(), key = character(), determined = numeric(),
                      expected = numeric(), excess = numeric(), units = numeric(),
                      exact = logical(), alone = numeric(), proxy = character(),
                      stringsAsFactors = FALSE))
  out <- do.call(rbind, rows)
  out$proxy <- ifelse(out$excess >= control$proxy_share - 1e-12,
                      ifelse(out$exact, "exact", "partial"), "")
  out
}

# Released columns (neither keys nor identifiers) whose values map one-to-one
# onto a key's values (Adult's education-num and education): releasing them
# undoes the key's generalization. One row per column-key pair. (datafly()
# and ola() flag these; review_columns() measures every proxy, exact or
# partial.)
find_proxies <- function(data, keys, id) {
  others <- setdiff(names(data), c(keys, id))
  found <- data.frame(column = character(), key = character(),
                      stringsAsFactors = FALSE)
  if (!length(others) || nrow(data) < 2L) return(found)
  distinct <- function(cols) length(key_groups(data, cols)$size)
  n_key <- vapply(keys, distinct, integer(1))
  n_other <- vapply(others, distinct, integer(1))
  # a column with a distinct value on every record maps one-to-one onto any
  # key that has one too: an identifier (warn_possible_identifiers()), not
  # a proxy
  n <- nrow(data)
  for (key in keys[n_key > 1L & n_key < n]) {
    for (col in others[n_other == n_key[[key]]]) {
      if (distinct(c(col, key)) == n_key[[key]])
        found[nrow(found) + 1L, ] <- list(col, key)
    }
  }
  found
}
