# Hashed frequency counts of key combinations (C core in src/freq.c), shared by
# the identifiability and k-anonymity risk measures.

# One key column as a vector that match() compares by value: factors by their
# labels, so that two data sets with different level sets code alike.
key_values <- function(x) {
  if (is.factor(x)) return(as.character(x))
  if (inherits(x, "POSIXlt")) return(as.numeric(as.POSIXct(x)))
  if (is.list(x)) abort_type("keys", "atomic columns (not lists)")
  as.vector(unclass(x))
}

# Integer codes for the key columns of one or two data sets in a shared code
# space. NA is a category of its own (match() matches NA to NA).
# Returns a list of integer matrices, one per data set given.
key_codes <- function(data, keys, other = NULL) {
  code_one <- function(col) {
    a <- key_values(data[[col]])
    if (is.null(other)) {
      u <- unique(a)
      return(list(match(a, u)))
    }
    b <- key_values(other[[col]])
    if (typeof(a) != typeof(b)) {
      a <- as.character(a)
      b <- as.character(b)
    }
    u <- unique(c(a, b))
    list(match(a, u), match(b, u))
  }
  per_key <- lapply(keys, code_one)
  to_matrix <- function(which) {
    m <- vapply(per_key, `[[`, integer(length(per_key[[1L]][[which]])), which)
    matrix(m, ncol = length(keys))
  }
  if (is.null(other)) list(to_matrix(1L)) else list(to_matrix(1L), to_matrix(2L))
}

# Equivalence classes of `data` on `keys`: group id per record and class sizes.
key_groups <- function(data, keys) {
  codes <- key_codes(data, keys)[[1L]]
  .Call(C_freq_group, codes)
}

# For each record of `query`, the number of `reference` records with the same
# values on `keys`.
key_match_count <- function(query, reference, keys) {
  codes <- key_codes(query, keys, reference)
  .Call(C_freq_match, codes[[2L]], codes[[1L]])
}
