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
    if (is.null(other)) {
      direct <- direct_codes(data[[col]])
      if (!is.null(direct)) return(list(direct))
    }
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
    n_rows <- length(per_key[[1L]][[which]])
    m <- vapply(per_key, `[[`, integer(n_rows), which)
    dim(m) <- c(n_rows, length(keys))  # in place: no copy of n x k codes
    m
  }
  if (is.null(other)) list(to_matrix(1L)) else list(to_matrix(1L), to_matrix(2L))
}

# Codes for one column without hashing, when its values allow: factor level
# codes, logicals, whole numbers (years, Dates, counts) over a range below 2^20.
# NA gets a code of its own. NULL when the column needs match()/unique().
direct_codes <- function(x) {
  if (is.factor(x)) {
    if (anyDuplicated(levels(x))) return(NULL)
    codes <- as.integer(x)
    codes[is.na(codes)] <- length(levels(x)) + 1L
    return(codes)
  }
  if (is.logical(x) && !is.object(x)) {
    codes <- as.integer(x) + 1L
    codes[is.na(codes)] <- 3L
    return(codes)
  }
  if (is.object(x) && !inherits(x, "Date")) return(NULL)
  v <- unclass(x)
  if (!(is.integer(v) || is.double(v))) return(NULL)
  # a cheap look at the first values rejects most measured (fractional) keys
  head_v <- v[seq_len(min(length(v), 1000L))]
  if (is.double(v) && any(head_v != trunc(head_v), na.rm = TRUE)) return(NULL)
  if (all(is.na(head_v)) && all(is.na(v))) return(NULL)
  span <- suppressWarnings(c(min(v, na.rm = TRUE), max(v, na.rm = TRUE)))
  if (!all(is.finite(span)) || span[[2L]] - span[[1L]] >= 2^20) return(NULL)
  if (is.double(v) && (any(is.nan(v)) || any(v != trunc(v), na.rm = TRUE)))
    return(NULL)
  codes <- as.integer(v - span[[1L]]) + 1L
  codes[is.na(v)] <- as.integer(span[[2L]] - span[[1L]]) + 2L
  codes
}

# Equivalence classes of `data` on `keys`: group id per record and class sizes.
key_groups <- function(data, keys) {
  codes <- key_codes(data, keys)[[1L]]
  call_c(C_freq_group, list(codes = codes), arg = "keys")
}

# Per-group sums of w for groups 1..n_groups.
group_sums <- function(w, group, n_groups) {
  sums <- rowsum(w, group, reorder = TRUE)
  out <- numeric(n_groups)
  out[as.integer(rownames(sums))] <- sums[, 1L]
  out
}
