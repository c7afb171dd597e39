# Plain R twins of the masking forms of methods vignette section 15 (test-mask-micro.R,
# test-mask-swap.R): the slow, obvious algorithms the C code must reproduce.

# Pairwise sum over 2^ceil(log2 n) leaves (zero padded), the centroid
# arithmetic that methods vignette section 15's MDAV fixes so that ties are reproducible.
ref_tree_sum <- function(v) {
  N <- 1
  while (N < length(v)) N <- N * 2
  v <- c(v, numeric(N - length(v)))
  while (length(v) > 1) v <- v[c(TRUE, FALSE)] + v[c(FALSE, TRUE)]
  v
}

ref_sqdist <- function(Z, centre) {
  d <- 0
  for (j in seq_len(ncol(Z))) {
    u <- Z[, j] - centre[j]
    d <- d + u * u
  }
  d
}

# MDAV by full scans over the remaining records; returns the group of each
# row, numbered in order of formation.
ref_mdav <- function(X, k) {
  n <- nrow(X)
  Z <- X
  for (j in seq_len(ncol(X))) {
    s <- if (n > 1) sd(X[, j]) else 0
    Z[, j] <- if (is.finite(s) && s > 0) (X[, j] - mean(X[, j])) / s else 0
  }
  alive <- rep(TRUE, n)
  group <- integer(n)
  n_groups <- 0L
  centroid <- function() {
    vapply(seq_len(ncol(Z)), function(j) ref_tree_sum(ifelse(alive, Z[, j], 0)), 1) / sum(alive)
  }
  farthest <- function(centre, skip = 0) {
    d <- ref_sqdist(Z, centre)
    ok <- alive
    ok[skip] <- FALSE
    cand <- which(ok)
    cand[which(d[cand] == max(d[cand]))[1]]
  }
  group_of <- function(r) {
    d <- ref_sqdist(Z, Z[r, ])
    ok <- alive
    ok[r] <- FALSE
    cand <- which(ok)
    near <- cand[order(d[cand], cand)][seq_len(k - 1)]
    c(r, near[!is.na(near)])
  }
  take <- function(members) {
    n_groups <<- n_groups + 1L
    group[members] <<- n_groups
    alive[members] <<- FALSE
  }
  while (sum(alive) >= 3 * k) {
    r <- farthest(centroid())
    s <- farthest(Z[r, ], r)
    take(group_of(r))
    if (!alive[s]) s <- farthest(Z[r, ])
    take(group_of(s))
  }
  if (sum(alive) >= 2 * k) take(group_of(farthest(centroid())))
  if (any(alive)) take(which(alive))
  group
}

# Rank swapping with sample.int(): the same draws as the C code.
ref_rank_swap <- function(x, p) {
  ok <- which(!is.na(x))
  n <- length(ok)
  if (n < 2) return(x)
  o <- ok[order(x[ok])]
  w <- floor(p * n / 100)
  v <- x[o]
  done <- logical(n)
  for (i in seq_len(n)) {
    if (done[i]) next
    done[i] <- TRUE
    cand <- seq_len(min(n, i + w))
    cand <- cand[cand > i & !done[cand]]
    if (length(cand)) {
      j <- cand[sample.int(length(cand), 1)]
      v[c(i, j)] <- v[c(j, i)]
      done[j] <- TRUE
    }
  }
  x[o] <- v
  x
}
