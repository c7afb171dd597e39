# Independent references for the count tables (test-table-*.R): the cells
# of a table recomputed from its interior by the hierarchies themselves, the
# intruder's intervals by brute-force enumeration of the integer tables that
# agree with the published cells, by lpSolve's LP on that formulation (a
# second solver, not the package's relations), and the optimal suppression
# by exhaustive search over patterns.

skip_without_solver <- function() {
  if (!requireNamespace("Rglpk", quietly = TRUE) && !requireNamespace("highs", quietly = TRUE))
    skip("no LP solver (Rglpk or highs) installed")
}

# Membership of the interior cells in every cell (cells x interior, 0/1),
# from the codes and levels as.data.frame() reports and the hierarchies.
bf_membership <- function(tab, hier = list()) {
  d <- as.data.frame(tab)
  dims <- tab$dims
  int <- d[d$interior, , drop = FALSE]
  M <- matrix(1, nrow(d), nrow(int))
  for (dm in dims) {
    h <- hier[[dm]]
    lev <- d[[paste0(dm, "_level")]]
    top <- max(lev)
    for (l in unique(lev)) {
      rows <- which(lev == l)
      up <- if (l == top) rep("*", nrow(int))
            else if (l == 0) int[[dm]]
            else as.character(generalize(if (identical(h$type, "numeric")) as.numeric(int[[dm]])
                                         else int[[dm]], h, l))
      M[rows, ] <- M[rows, ] * outer(d[[dm]][rows], up, `==`)
    }
  }
  list(M = M, interior = which(d$interior), cells = d)
}

# All integer interior tables with free interior cells in 0..cap that agree
# with the published cells (NA = suppressed): the min and max of every cell.
bf_enumerate <- function(mem, values, published, cap) {
  int <- mem$interior
  x0 <- values[int]
  free <- which(!published[int])
  grid <- as.matrix(expand.grid(rep(list(0:cap), length(free))))
  X <- matrix(x0, nrow(grid), length(int), byrow = TRUE)
  X[, free] <- grid
  cells <- X %*% t(mem$M)
  pub <- which(published)
  ok <- rowSums(abs(sweep(cells[, pub, drop = FALSE], 2L, values[pub]))) == 0
  cells <- cells[ok, , drop = FALSE]
  list(low = apply(cells, 2L, min), high = apply(cells, 2L, max), n = nrow(cells))
}

# The intruder's LP on the interior formulation, by lpSolve.
bf_lp <- function(mem, values, published, cells) {
  pub <- which(published)
  A <- mem$M[pub, , drop = FALSE]
  b <- values[pub]
  t(vapply(cells, function(k) {
    obj <- mem$M[k, ]
    hi <- lpSolve::lp("max", obj, A, rep("=", nrow(A)), b)
    lo <- lpSolve::lp("min", obj, A, rep("=", nrow(A)), b)
    c(low = if (lo$status == 0) lo$objval else NA, high = if (hi$status == 0) hi$objval
      else if (hi$status == 3) Inf else NA)
  }, numeric(2)))
}

# Whether a pattern protects every sensitive cell, by enumeration.
bf_protects <- function(mem, values, pattern, req, cap) {
  e <- bf_enumerate(mem, values, !pattern, cap)
  s <- which(req$sensitive)
  all(e$high[s] >= values[s] + req$upper[s] & e$low[s] <= values[s] - req$lower[s])
}

# The cheapest protecting pattern by exhaustive search (cost per cell).
bf_optimal <- function(mem, values, req, cost, cap) {
  n <- length(values)
  free <- which(!req$sensitive)
  best <- Inf
  best_pattern <- NULL
  for (m in 0:length(free)) {
    sets <- if (m == 0) list(integer()) else utils::combn(free, m, simplify = FALSE)
    for (s in sets) {
      cst <- sum(cost[s])
      if (cst >= best) next
      pattern <- req$sensitive
      pattern[s] <- TRUE
      if (bf_protects(mem, values, pattern, req, cap)) {
        best <- cst
        best_pattern <- pattern
      }
    }
  }
  list(cost = best, pattern = best_pattern)
}
