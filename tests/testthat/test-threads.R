# The one thread policy of the C core.

test_that("epimask_threads follows the argument, the options and the limits", {
  withr_env <- function(vars, code) {
    old <- Sys.getenv(names(vars), unset = NA)
    do.call(Sys.setenv, as.list(vars))
    on.exit(for (nm in names(old)) if (is.na(old[[nm]])) Sys.unsetenv(nm) else
      do.call(Sys.setenv, stats::setNames(list(old[[nm]]), nm)))
    code
  }
  old <- options(epimask.threads = NULL, mc.cores = NULL)
  on.exit(options(old), add = TRUE)
  cores <- parallel::detectCores(logical = TRUE)
  withr_env(c(OMP_THREAD_LIMIT = "", `_R_CHECK_LIMIT_CORES_` = ""), {
    expect_identical(epimask_threads(), as.integer(cores))
    expect_identical(epimask_threads(3), 3L)
    options(epimask.threads = 1)
    expect_identical(epimask_threads(), 1L)
    options(epimask.threads = NULL, mc.cores = 1)
    expect_identical(epimask_threads(), 1L)          # a future worker's setting
    expect_identical(epimask_threads(4), 4L)         # an explicit argument wins
    options(mc.cores = NULL)
  })
  withr_env(c(OMP_THREAD_LIMIT = "1", `_R_CHECK_LIMIT_CORES_` = ""),
            expect_identical(epimask_threads(8), 1L))
  withr_env(c(OMP_THREAD_LIMIT = "", `_R_CHECK_LIMIT_CORES_` = "TRUE"),
            expect_identical(epimask_threads(8), 2L))
  expect_error(epimask_threads(0), class = "epimask_error_value")
  expect_error(epimask_threads("a"), class = "epimask_error")
})

test_that("a thread count beyond the documented bound is an error before any thread starts", {
  expect_identical(epimask_threads(1024), min(1024L, epimask_threads(1024)))
  e <- expect_error(epimask_threads(.Machine$integer.max), class = "epimask_error_value")
  expect_identical(e$arg, "threads")
  expect_error(risk_match(dose_cohort[1:20, ], dose_cohort[1:20, ], known = "dose", threads = 2e9),
               class = "epimask_error_value")
})

test_that("every threaded routine gives the same results on 1, 2 and 3 threads", {
  # Regions forced to use the threads asked for (on a loaded machine the
  # governor of src/par_rows.h would otherwise send them to one thread).
  old <- .Call(epimask:::C_par_force_threads, list(force = 1L))
  on.exit(.Call(epimask:::C_par_force_threads, list(force = as.integer(old))), add = TRUE)
  set.seed(41)
  on_threads <- function(f) lapply(1:3, function(k) {
    op <- options(epimask.threads = k)
    on.exit(options(op))
    f(k)
  })
  expect_all_identical <- function(res, what) {
    for (k in 2:3) expect_identical(res[[k]], res[[1]], info = paste(what, k, "threads"))
  }
  # replicate fits from sufficient statistics (src/irls_many.c)
  n <- 20000
  x <- cbind(1, matrix(rnorm(n * 2), n))
  Y <- matrix(rpois(n * 6, exp(0.2 + 0.3 * x[, 2])), n)
  start <- irls_fit(x, Y[, 1], poisson())$coefficients
  expect_all_identical(on_threads(function(k)
    epimask:::newton_many(x, crossprod(x, Y), poisson(), rep(0, n), rep(1, n), start)),
    "replicate fits")
  # Cox fits of replicate designs (src/cox.c)
  d <- data.frame(time = rexp(2000), status = rbinom(2000, 1, 0.7), a = rnorm(2000), b = rnorm(2000))
  frame <- epimask:::cox_frame(survival::Surv(time, status) ~ a + b, d)
  prep <- epimask:::cox_arrays(frame)
  X <- array(rep(frame$x, 6) + rnorm(length(frame$x) * 6, sd = 0.2), c(dim(frame$x), 6))
  expect_all_identical(on_threads(function(k)
    epimask:::cox_call(prep, X, "efron", epimask:::cox_control(list(nthreads = k)))), "cox")
  # record linkage (src/linkage.c), tree and exhaustive
  num <- data.frame(a = rnorm(20000), b = rnorm(20000))
  masked <- num + rnorm(40000, sd = 0.1)
  for (method in c("tree", "exhaustive")) {
    if (method == "exhaustive") { num <- num[1:3000, ]; masked <- masked[1:3000, ] }
    expect_all_identical(on_threads(function(k)
      risk_linkage(num, masked, c("a", "b"), method = method, threads = k)), method)
  }
  # kernel masking and the matching risk (par_rows)
  pts <- matrix(runif(6000), ncol = 2)
  dat <- data.frame(v = rnorm(3000))
  sch <- mask_kernel("exponential", 0.02, pts)
  expect_all_identical(on_threads(function(k) apply_mask(dat, sch, vars = "v", unmasked = "suppress")),
                       "kernel")
  orig <- data.frame(x = rnorm(3000), y = rnorm(3000))
  msk <- data.frame(x = orig$x + rnorm(3000, sd = 0.2), y = orig$y + rnorm(3000, sd = 0.2))
  expect_all_identical(on_threads(function(k)
    suppressWarnings(risk_match(orig, msk, "x", "y", threads = k, progress = FALSE))), "match")
  # the scan for non-finite values (src/irls.c), against is.nan / is.infinite
  v <- rnorm(3e5)
  for (pos in c(0, 1, 65536, 65537, 3e5)) {
    for (bad in c(NaN, NA, Inf, -Inf)) {
      w <- v
      if (pos > 0) w[pos] <- bad
      expected <- if (any(is.na(w))) 1L else if (any(is.infinite(w))) 2L else 0L
      for (k in 1:3)
        expect_identical(.Call(epimask:::C_irls_nonfinite, list(x = w, threads = k)), expected,
                         info = paste(pos, bad, k))
    }
  }
})
