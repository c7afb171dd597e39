# Kernel masking checked against the dense plain-R reference of helper-kernel.R.

kernel_args <- list(
  exponential = list(),
  gaussian = list(),
  ring = list(source = c(0, 0)),
  ring_angle = list(source = c(0.1, -0.2), direction = c(1, 0.5)),
  ring_block = list(source = c(0, 0)),
  bvn = list(rho = 0.4),
  shrink = list(bandwidth = 0.3)
)

test_that("every kernel, with and without groups, equals the dense reference", {
  fx <- kernel_fixture(100)
  for (kernel in names(kernel_args)) {
    D <- do.call(ref_delta_matrix, c(list(kernel, fx$xy), kernel_args[[kernel]][
      intersect(names(kernel_args[[kernel]]), c("source", "direction", "rho"))]))
    for (use_groups in c(FALSE, TRUE)) {
      if (kernel == "ring_block" && !use_groups) next
      groups <- if (use_groups) fx$groups else NULL
      for (lambda in c(1e-4, 1e-3, 0.01, 0.1, 1)) {
        args <- c(list(kernel, lambda, fx$xy, groups = groups), kernel_args[[kernel]])
        sch <- do.call(mask_kernel, args)
        ref_args <- c(list(kernel, lambda, fx$xy, groups = groups, D = D), kernel_args[[kernel]])
        A <- do.call(ref_kernel_matrix, ref_args)
        label <- sprintf("%s, groups = %s, lambda = %g", kernel, use_groups, lambda)
        expect_close(epimask:::kernel_smooth(sch, fx$Z), A %*% fx$Z, label = label)
        expect_close(kernel_matrix(sch), A, label = label)
      }
    }
  }
})

test_that("exponential and gaussian work in one and in many dimensions", {
  set.seed(3)
  for (d in c(1, 3, 6)) {
    x <- matrix(rnorm(80 * d), ncol = d)
    x[, 1] <- x[, 1] * 5
    Z <- matrix(rnorm(160), ncol = 2)
    for (kernel in c("exponential", "gaussian")) {
      D <- ref_delta_matrix(kernel, x)
      for (lambda in c(1e-3, 0.1, 1)) {
      sch <- mask_kernel(kernel, lambda, x)
      A <- ref_kernel_matrix(kernel, lambda, x, D = D)
      expect_close(epimask:::kernel_smooth(sch, Z), A %*% Z)
      }
    }
  }
  v <- runif(50)
  expect_equal(kernel_matrix(mask_kernel("exponential", 0.05, v)),
               ref_kernel_matrix("exponential", 0.05, matrix(v)), tolerance = tol_exact)
})

test_that("lambda = 0 is the identity and small lambda is stable", {
  fx <- kernel_fixture(80)
  for (kernel in c("exponential", "ring", "bvn", "shrink")) {
    args <- c(list(kernel, 0, fx$xy), kernel_args[[kernel]])
    sch <- do.call(mask_kernel, args)
    expect_identical(kernel_matrix(sch), diag(80))
    expect_identical(apply_mask(fx$Z, sch), fx$Z)
    tiny <- do.call(mask_kernel, c(list(kernel, 1e-12, fx$xy), kernel_args[[kernel]]))
    out <- epimask:::kernel_smooth(tiny, fx$Z)
    expect_false(anyNA(out))
    # 1e-10: lambda = 1e-12 moves values by O(lambda); measured 4e-12
    expect_equal(out, fx$Z, tolerance = 1e-10)
  }
})

test_that("ties share weight and rows sum to one", {
  xy <- rbind(c(0, 0), c(0, 0), c(1, 1), c(5, 5))
  A <- kernel_matrix(mask_kernel("exponential", 1e-6, xy))
  expect_equal(A[1:2, 1:2], matrix(0.5, 2, 2))
  expect_equal(A[3:4, 3:4], diag(2))
  fx <- kernel_fixture(60)
  A <- kernel_matrix(mask_kernel("ring", 0.3, fx$xy, source = c(0, 0)))
  expect_equal(rowSums(A), rep(1, 60))
  # a constant column (intercept) is unchanged
  expect_equal(epimask:::kernel_smooth(mask_kernel("gaussian", 0.5, fx$xy), matrix(7, 60)),
               matrix(7, 60))
})

test_that("groups never share weight", {
  fx <- kernel_fixture(100)
  A <- kernel_matrix(mask_kernel("ring_block", 1, fx$xy, source = c(0, 0), groups = fx$groups))
  expect_true(all(A[outer(fx$groups, fx$groups, "!=")] == 0))
})

test_that("the derivative at 0 matches finite differences of kernel_matrix", {
  fx <- kernel_fixture(60)
  Z <- fx$Z
  for (g in list(NULL, fx$groups)) {
    sch <- mask_kernel("shrink", 0.2, fx$xy, bandwidth = 0.4, groups = g)
    D <- epimask:::kernel_deriv0(sch, Z)
    expect_equal(D, ref_shrink_deriv0(fx$xy, 0.4, g) %*% Z, tolerance = tol_exact)
    h <- 1e-6
    fd <- (kernel_matrix(epimask:::scheme_at(sch, h)) - kernel_matrix(epimask:::scheme_at(sch, 0))) / h
    # 1e-4: forward difference, h = 1e-6: O(h) truncation, measured 8e-6
    expect_equal(D, fd %*% Z, tolerance = 1e-4)
  }
  for (kernel in c("exponential", "ring")) {
    sch <- do.call(mask_kernel, c(list(kernel, 0.2, fx$xy), kernel_args[[kernel]]))
    expect_identical(epimask:::kernel_deriv0(sch, Z), matrix(0, 60, 3))
    # all derivatives vanish at 0+: the difference quotient near 0 is negligible
    h <- 1e-7
    fd <- (kernel_matrix(epimask:::scheme_at(sch, 2 * h)) - kernel_matrix(epimask:::scheme_at(sch, h))) / h
    expect_lt(max(abs(fd %*% Z)), 1e-10)
  }
})

test_that("many columns are smoothed in one pass", {
  fx <- kernel_fixture(100)
  Z <- matrix(rpois(100 * 50, 4), 100)
  sch <- mask_kernel("exponential", 0.1, fx$xy)
  expect_equal(epimask:::kernel_smooth(sch, Z), ref_kernel_matrix("exponential", 0.1, fx$xy) %*% Z,
               tolerance = tol_exact)
})

test_that("sf POINT coordinates are accepted", {
  skip_if_not_installed("sf")
  fx <- kernel_fixture(40)
  pts <- sf::st_as_sf(data.frame(x = fx$xy[, 1], y = fx$xy[, 2]), coords = c("x", "y"))
  expect_equal(kernel_matrix(mask_kernel("exponential", 0.2, pts)),
               kernel_matrix(mask_kernel("exponential", 0.2, fx$xy)))
})

test_that("kernel_matrix refuses large n and non-linear schemes", {
  fx <- kernel_fixture(50)
  expect_error(kernel_matrix(mask_kernel("exponential", 0.1, fx$xy), n_max = 10),
               class = "epimask_error_value")
  expect_error(kernel_matrix(mask_round(2)), class = "epimask_error_type")
})

test_that("bad input gets classed errors naming the argument", {
  fx <- kernel_fixture(30)
  bad_xy <- fx$xy
  bad_xy[3, 1] <- NA
  e <- expect_error(mask_kernel("exponential", 0.1, bad_xy), class = "epimask_error_value")
  expect_identical(e$arg, "coords")
  expect_error(mask_kernel("nope", 0.1, fx$xy), class = "epimask_error_value")
  e <- expect_error(mask_kernel("ring", 0.1, fx$xy), class = "epimask_error")
  expect_identical(e$arg, "source")
  e <- expect_error(mask_kernel("ring", 0.1, fx$xy, source = 1:3), class = "epimask_error_length")
  expect_identical(e$arg, "source")
  e <- expect_error(mask_kernel("exponential", -1, fx$xy), class = "epimask_error_value")
  expect_identical(e$arg, "lambda")
  expect_error(mask_kernel("ring_angle", 0.1, cbind(fx$xy, 1), source = c(0, 0, 0),
                           direction = c(1, 0)), class = "epimask_error_length")
  expect_error(mask_kernel("bvn", 0.1, fx$xy, rho = 1), class = "epimask_error_value")
  expect_error(mask_kernel("ring_block", 0.1, fx$xy, source = c(0, 0)), class = "epimask_error")
  expect_error(mask_kernel("shrink", 0.1, fx$xy), class = "epimask_error")
  e <- expect_error(mask_kernel("exponential", 0.1, fx$xy, groups = 1:3),
                    class = "epimask_error_length")
  expect_identical(e$arg, "groups")
  expect_error(mask_kernel("exponential", 0.1, "a"), class = "epimask_error_type")
  sch <- mask_kernel("exponential", 0.1, fx$xy)
  e <- expect_error(apply_mask(data.frame(x = 1:10), sch), class = "epimask_error_length")
  expect_identical(e$arg, "data")
  e <- expect_error(apply_mask(data.frame(x = c(NA, 1:29)), sch), class = "epimask_error_value")
})

test_that("mask_grid builds a list of schemes over kernels and lambdas", {
  fx <- kernel_fixture(30)
  g <- mask_grid(c("ring", "exponential"), c(0.01, 0.1, 1), fx$xy, source = c(0, 0), none = TRUE)
  expect_s3_class(g, "mask_list")
  expect_length(g, 7)
  expect_identical(unname(vapply(g, `[[`, "", "method")),
                   c("none", rep(c("ring", "exponential"), each = 3)))
  expect_identical(unname(vapply(g, `[[`, 0, "degree")), c(0, rep(c(0.01, 0.1, 1), 2)))
  expect_identical(names(g)[2], "ring 0.01")
  expect_output(print(g), "ring kernel, lambda = 0.01")
  expect_length(c(g[1:2], mask_round(2)), 3)
})

test_that("a fine grid (large n, small lambda) gives the brute-force rows", {
  set.seed(7)
  n <- 4000
  x3 <- matrix(runif(3 * n), ncol = 3)
  Z <- matrix(rnorm(2 * n), ncol = 2)
  rows <- sample(n, 25)
  cases <- list(
    list(kernel = "exponential", lambda = 2e-3, x = x3, args = list()),
    list(kernel = "gaussian", lambda = 1e-4, x = x3[, 1:2], args = list()),
    list(kernel = "ring_angle", lambda = 1e-3, x = x3[, 1:2],
         args = list(source = c(0.5, 0.5), direction = c(0, 1))),
    list(kernel = "bvn", lambda = 1e-3, x = x3[, 2:3], args = list(rho = -0.5)))
  for (cs in cases) {
    sch <- do.call(mask_kernel, c(list(cs$kernel, cs$lambda, cs$x), cs$args))
    got <- epimask:::kernel_smooth(sch, Z)[rows, ]
    sds <- apply(cs$x, 2, sd)
    want <- t(vapply(rows, function(i) {
      delta <- vapply(seq_len(n), function(k)
        ref_delta(cs$kernel, cs$x[i, ], cs$x[k, ], cs$args$source, cs$args$direction,
                  sds, if (is.null(cs$args$rho)) 0 else cs$args$rho), 0)
      w <- exp(-delta / cs$lambda)
      colSums(w * Z) / sum(w)
    }, numeric(2)))
    expect_close(got, want, label = cs$kernel)
  }
})

test_that("one thread and two threads give identical results", {
  fx <- kernel_fixture(300)
  sch <- mask_kernel("exponential", 0.05, fx$xy, groups = fx$groups)
  old <- options(epimask.threads = 1L)
  on.exit(options(old))
  one <- epimask:::kernel_smooth(sch, fx$Z)
  options(epimask.threads = 2L)
  expect_identical(epimask:::kernel_smooth(sch, fx$Z), one)
})

test_that("extreme lambdas: identity near 0, group means for huge lambda", {
  fx <- kernel_fixture(50)
  for (kernel in c("exponential", "gaussian", "ring")) {
    args <- kernel_args[[kernel]]
    tiny <- do.call(mask_kernel, c(list(kernel, 1e-300, fx$xy), args))
    expect_identical(epimask:::kernel_smooth(tiny, fx$Z), fx$Z)
    huge <- do.call(mask_kernel, c(list(kernel, 1e300, fx$xy), args))
    expect_close(epimask:::kernel_smooth(huge, fx$Z),
                 matrix(colMeans(fx$Z), 50, 3, byrow = TRUE), tol = 1e-12)
  }
})

test_that("bvn schemes with different correlations have different labels", {
  xy <- cbind(c(0, 1, 2, 3), c(1, 0, 3, 2))
  a <- mask_kernel("bvn", 0.1, xy, rho = 0.5)
  b <- mask_kernel("bvn", 0.1, xy, rho = -0.5)
  expect_false(identical(a$label, b$label))
  expect_match(format(a), "rho = 0.5", fixed = TRUE)
})

test_that("kernel masking gives the same result on 1 and 2 threads (chunks in one region)", {
  set.seed(11)
  n <- 3000
  xy <- matrix(runif(2 * n), ncol = 2)
  Z <- matrix(rnorm(3 * n), ncol = 3)
  sch <- mask_kernel("exponential", 0.002, xy)
  old <- options(epimask.threads = 1)
  on.exit(options(old), add = TRUE)
  one <- apply_mask(Z, sch)
  options(epimask.threads = 2)
  two <- apply_mask(Z, sch)
  expect_identical(one, two)
  # and against the dense definition (methods vignette section 1.1) on a subset of rows
  rows <- c(1, 17, 2999)
  W <- exp(-as.matrix(dist(xy))[rows, ] / 0.002)
  W[W < exp(-36)] <- 0
  expect_equal(two[rows, ], unname((W / rowSums(W)) %*% Z), tolerance = tol_exact)
})
