# Brute-force reference for kernel masking, written from the methods vignette, section 1.1, in
# plain R (double loops over records, no package code, no truncation):
# w_ik = 1[g_i = g_k] exp(-delta(s_i, s_k) / lambda), a_ik = w_ik / sum_l w_il;
# shrink: a_ik = (1[i = k] + lambda K_ik) / (1 + lambda sum_{l != i} K_il).

ref_delta <- function(kernel, u, s, source = NULL, direction = NULL, sds = NULL, rho = 0) {
  dist <- function(a, b) sqrt(sum((a - b)^2))
  angle <- function(p) {  # angle in [0, pi] between p - source and direction
    w <- p - source
    dot <- sum(w * direction)
    cross <- w[1] * direction[2] - w[2] * direction[1]
    atan2(abs(cross), dot)
  }
  switch(kernel,
    exponential = dist(u, s),
    gaussian = sum((u - s)^2),
    ring = , ring_block = abs(dist(u, source) - dist(s, source)),
    ring_angle = abs(dist(u, source) - dist(s, source)) + abs(angle(u) - angle(s)),
    bvn = {
      z1 <- (u[1] - s[1]) / sds[1]
      z2 <- (u[2] - s[2]) / sds[2]
      (z1^2 - 2 * rho * z1 * z2 + z2^2) / (1 - rho^2) / 2
    })
}

# Dissimilarity matrix by a double loop (for shrink: the Euclidean distance);
# it does not depend on lambda, so tests compute it once per kernel.
ref_delta_matrix <- function(kernel, coords, source = NULL, direction = NULL, rho = 0) {
  coords <- as.matrix(coords)
  n <- nrow(coords)
  sds <- c(sd(coords[, 1]), if (ncol(coords) > 1) sd(coords[, 2]))
  D <- matrix(0, n, n)
  for (i in seq_len(n)) for (k in seq_len(n)) {
    D[i, k] <- if (kernel == "shrink") sqrt(sum((coords[i, ] - coords[k, ])^2))
               else ref_delta(kernel, coords[i, ], coords[k, ], source, direction, sds, rho)
  }
  D
}

ref_kernel_matrix <- function(kernel, lambda, coords, source = NULL, direction = NULL,
                              groups = NULL, rho = 0, bandwidth = NULL, D = NULL) {
  coords <- as.matrix(coords)
  n <- nrow(coords)
  if (lambda == 0) return(diag(n))
  if (is.null(groups)) groups <- rep(1, n)
  if (is.null(D)) D <- ref_delta_matrix(kernel, coords, source, direction, rho)
  A <- matrix(0, n, n)
  for (i in seq_len(n)) {
    same <- groups == groups[i]
    if (kernel == "shrink") {
      K <- ifelse(same & seq_len(n) != i, exp(-D[i, ] / bandwidth), 0)
      A[i, ] <- lambda * K / (1 + lambda * sum(K))
      A[i, i] <- 1 / (1 + lambda * sum(K))
    } else {
      w <- ifelse(same, exp(-D[i, ] / lambda), 0)
      A[i, ] <- w / sum(w)
    }
  }
  A
}

# dA/dlambda at 0 for shrink, from methods vignette section 4: K off the diagonal, -row sums on it.
ref_shrink_deriv0 <- function(coords, bandwidth, groups = NULL) {
  n <- nrow(coords)
  if (is.null(groups)) groups <- rep(1, n)
  K <- matrix(0, n, n)
  for (i in seq_len(n)) for (k in seq_len(n))
    if (k != i && groups[k] == groups[i])
      K[i, k] <- exp(-sqrt(sum((coords[i, ] - coords[k, ])^2)) / bandwidth)
  diag(K) <- -rowSums(K)
  K
}

kernel_fixture <- function(n = 150, seed = 42) {
  set.seed(seed)
  xy <- matrix(runif(2 * n, -1, 1), ncol = 2)
  list(xy = xy, groups = ifelse(xy[, 1] > 0.25 & abs(xy[, 2]) < 0.5, "blocked", "open"),
       Z = cbind(exp(-2 * sqrt(rowSums(xy^2))), rpois(n, 3), rnorm(n)))
}

# Largest absolute difference below tol (waldo's expect_equal is slow on
# hundreds of matrix comparisons; an absolute bound on O(1) data is stricter).
expect_close <- function(object, expected, tol = 1e-10, label = NULL) {
  expect_identical(dim(object), dim(expected))
  err <- max(abs(object - expected))
  expect(is.finite(err) && err <= tol,
         sprintf("%s: max abs difference %g > %g", if (is.null(label)) "result" else label, err, tol))
}
