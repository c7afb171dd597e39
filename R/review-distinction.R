# The column review's counting (methods vignette, section 26): every column
# as dense integer codes of its units (records, or persons with a person
# column), ARX's alpha-distinction and alpha-separation of a column or a
# combination from its class sizes alone (no record pairs are formed), and
# the search of small combinations that are near-unique. Everything is O(n)
# in memory: codes are integer vectors, classes are counted by tabulate() or
# by the package's hashing engine (src/freq.c).

# Dense codes 1..d of one column (NA a value of its own; factors by label,
# dates as numbers: the coding of the keys, key_codes()).
dense_codes <- function(x) {
  code <- key_codes(list(x = x), "x")[[1L]][, 1L]
  densify(code)
}

# Codes that may skip values (direct codes span a range) made dense, in the
# order of the values' codes.
densify <- function(code) {
  top <- max(code)
  if (top <= 4 * length(code) + 1024) {
    used <- tabulate(code, top) > 0L
    if (all(used)) return(list(code = code, d = top))
    remap <- cumsum(used)
    return(list(code = remap[code], d = remap[[top]]))
  }
  u <- unique(code)
  list(code = match(code, u), d = length(u))
}

# The first record of each code of a coded column, in the order of the
# codes (an assignment from the last record to the first leaves the first;
# no hashing).
first_rows <- function(x) {
  first <- integer(x$d)
  at <- rev(seq_along(x$code))
  first[x$code[at]] <- at
  first
}

# Dense codes of the combination of two coded columns (one code per distinct
# pair of values).
combine_codes <- function(a, b) {
  n <- length(a$code)
  if (as.double(a$d) * b$d <= 4 * n + 1024)
    return(densify((a$code - 1L) * b$d + b$code))
  m <- cbind(a$code, b$code)
  storage.mode(m) <- "integer"
  g <- call_c(C_freq_group, list(codes = m), arg = "data")
  list(code = g$group, d = length(g$size))
}

# The cells of the cross-classification of two coded columns: the code of
# each in `a` and `b`, and its count (cells that occur only).
cross_cells <- function(a, b) {
  n <- length(a$code)
  if (as.double(a$d) * b$d <= 4 * n + 1024) {
    count <- tabulate((a$code - 1L) * b$d + b$code, a$d * b$d)
    at <- which(count > 0L)
    return(list(a = (at - 1L) %/% b$d + 1L, b = (at - 1L) %% b$d + 1L, count = count[at]))
  }
  m <- cbind(a$code, b$code)
  storage.mode(m) <- "integer"
  g <- call_c(C_freq_group, list(codes = m), arg = "data")
  first <- first_of_groups(g$group)
  list(a = a$code[first], b = b$code[first], count = g$size)
}

# The units of the review: records, or persons (`person` the person of each
# record, 1..P). A column's unit code is its record code, or with persons the
# person's value when it is constant within every person, else the person's
# set of distinct values (coded canonically: persons with the same set, and
# only they, share a code).
unit_codes <- function(codes, units) {
  if (is.null(units$person)) return(codes)
  cells <- cross_cells(units$person_codes, codes)
  P <- units$n
  if (length(cells$count) == P) {
    # one value per person: the cells are in person order after sorting
    value <- integer(P)
    value[cells$a] <- cells$b
    out <- densify(value)
    out$constant <- TRUE
    return(out)
  }
  ord <- order(cells$a, cells$b, method = "radix")
  person <- cells$a[ord]
  value <- cells$b[ord]
  # each person's sorted values as a row of a table (0 past the end of the
  # set), whose equal rows the hashing engine groups; a very uneven table
  # (one person with many values) is coded as text instead
  rank <- seq_along(person) - match(person, person) + 1L
  width <- max(rank)
  if (as.double(width) * P <= 4 * length(codes$code) + 1024) {
    table <- matrix(0L, P, width)
    table[cbind(person, rank)] <- value
    g <- call_c(C_freq_group, list(codes = table), arg = "id")
    return(list(code = g$group, d = length(g$size), constant = FALSE))
  }
  sets <- vapply(split(value, factor(person, levels = seq_len(P))),
                 function(v) paste(v, collapse = ","), character(1), USE.NAMES = FALSE)
  u <- unique(sets)
  list(code = match(sets, u), d = length(u), constant = FALSE)
}

# The units of a review: n (records or persons), what they are called, and
# with persons the person of each record.
review_units <- function(data, id) {
  if (is.null(id))
    return(list(n = nrow(data), name = "records", person = NULL))
  person <- person_index(data[[id]])
  P <- max(person)
  list(n = P, name = "persons", person = person,
       person_codes = list(code = person, d = P))
}

# ARX's measures of a column or combination from its class sizes f_j over N
# units (RiskModelAttributes, after Motwani & Xu 2007): alpha-distinction =
# classes / N; alpha-separation = share of the N (N - 1) / 2 unit pairs that
# differ = 1 - sum f_j (f_j - 1) / (N (N - 1)); ARX reports 0 where N = 1.
# Also the share of units alone in their class.
distinction_measures <- function(code) {
  f <- as.double(tabulate(code$code, code$d))
  f <- f[f > 0]
  N <- sum(f)
  separation <- if (N > 1) 1 - sum(f * (f - 1)) / (N * (N - 1)) else 0
  c(distinct = length(f), distinction = length(f) / N, separation = separation,
    unique = sum(f == 1) / N)
}

# Combinations of 2 .. `max_size` candidate columns that are near-unique
# (alpha-distinction >= `threshold`) while none of their parts is: the
# columns outside the keys that are in one are flagged. `codes` are the unit
# codes of the candidates (a named list), `keys` the candidates that are keys
# (a combination of keys only is not looked at), `single` their own
# distinction. A combination whose columns' distinct counts multiply to
# fewer than threshold * N classes cannot reach the threshold and is not
# counted (with persons whose values vary, a set of tuples can outnumber the
# product, so there every combination is counted).
near_unique_combinations <- function(codes, record_codes, keys, single, threshold, max_size,
                                     units) {
  empty <- data.frame(columns = character(), size = integer(), distinction = numeric(),
                      separation = numeric(), unique = numeric(), stringsAsFactors = FALSE)
  cols <- names(codes)
  if (max_size < 2L || length(cols) < 2L) return(empty)
  found <- list()
  reached <- list()
  for (size in 2:min(max_size, length(cols))) {
    sets <- utils::combn(cols, size, simplify = FALSE)
    for (set in sets) {
      if (all(set %in% keys)) next
      # minimal: no part already near-unique
      if (any(single[set] >= threshold)) next
      if (length(reached) && any(vapply(reached, function(r) all(r %in% set), logical(1))))
        next
      bounded <- is.null(units$person) ||
        all(vapply(set, function(s) isTRUE(codes[[s]]$constant), logical(1)))
      if (bounded && prod(vapply(set, function(s) as.double(codes[[s]]$d), 1)) <
          threshold * units$n) next
      combo <- if (bounded) Reduce(combine_codes, codes[set])
               else unit_codes(Reduce(combine_codes, record_codes[set]), units)
      m <- distinction_measures(combo)
      if (m[["distinction"]] >= threshold) {
        reached[[length(reached) + 1L]] <- set
        found[[length(found) + 1L]] <- data.frame(
          columns = paste(set, collapse = " + "), size = size,
          distinction = m[["distinction"]], separation = m[["separation"]],
          unique = m[["unique"]], stringsAsFactors = FALSE)
      }
    }
  }
  if (!length(found)) return(empty)
  out <- do.call(rbind, found)
  attr(out, "sets") <- reached
  out
}
