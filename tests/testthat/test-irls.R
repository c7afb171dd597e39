# irls_fit() is checked against glm()/glm.fit on real data for every
# family and link, and on the hard cases (aliasing, separation, halving).

test_that("the C family functions equal R's family objects", {
  eta <- c(-800, -40, -31, -30, -29.9, -8.2, -3, -0.5, 0, 1e-8, 0.7, 2, 8.2, 29.9, 30, 31, 40, 701)
  fams <- list(binomial("logit"), binomial("probit"), binomial("cloglog"), binomial("log"),
               poisson("log"), poisson("identity"), poisson("sqrt"), gaussian("identity"),
               gaussian("log"), gaussian("inverse"), Gamma("inverse"), Gamma("log"), Gamma("identity"))
  for (f in fams) {
    codes <- epimask:::family_codes(f)
    ev <- function(what, v, y = v, wt = v)
      .Call(epimask:::C_irls_family_eval, c(codes, list(what = what, v = v, y = y, wt = wt)))
    e <- if (f$link %in% c("sqrt", "inverse")) eta[eta > 0 & eta < 50] else eta
    # the same formula in C and in R's family
    expect_equal(ev(2L, e), f$linkinv(e), tolerance = 1e-15, info = paste(f$family, f$link))
    expect_equal(ev(3L, e), f$mu.eta(e), tolerance = 1e-15, info = paste(f$family, f$link))
    mu <- if (f$family == "binomial") c(1e-12, 0.01, 0.3, 0.5, 0.99) else c(1e-3, 0.5, 2, 40)
    expect_equal(ev(1L, mu), f$linkfun(mu), tolerance = 1e-15, info = paste(f$family, f$link))
    expect_equal(ev(4L, mu), f$variance(mu), tolerance = 1e-15, info = f$family)
    y <- if (f$family == "binomial") c(0, 1, 0.3, 1, 0) else if (f$family == "Gamma") c(0.2, 1, 3, 40) else c(0, 1, 3, 40)
    wt <- seq_along(mu)
    # the same formula in C and in R's family
    expect_equal(ev(5L, mu, y, as.double(wt)), f$dev.resids(y, mu, wt), tolerance = 1e-15, info = f$family)
  }
})

test_that("binomial links match glm on MASS::birthwt, esoph and survival::lung", {
  birthwt <- shipped_data("birthwt", "MASS")
  birthwt$race <- factor(birthwt$race)
  for (link in c("logit", "probit", "cloglog")) {
    ref <- glm(low ~ age + lwt + race + smoke + ptl + ht + ui, binomial(link), birthwt)
    expect_same_fit(irls_like(ref), ref)
  }
  ref <- glm(cbind(ncases, ncontrols) ~ agegp, binomial("log"), datasets::esoph)
  expect_same_fit(irls_like(ref), ref)
  lung <- shipped_data("lung", "survival")
  lung <- na.omit(lung[c("status", "age", "sex", "ph.ecog", "wt.loss")])
  ref <- glm(I(status - 1) ~ age + sex + ph.ecog, binomial("cloglog"), lung, weights = as.numeric(wt.loss > 0))
  expect_same_fit(irls_like(ref), ref)
})

test_that("two-column and proportion binomial responses match glm (esoph)", {
  esoph <- datasets::esoph
  ref <- glm(cbind(ncases, ncontrols) ~ agegp + alcgp + tobgp, binomial, esoph)
  fit <- irls_fit(model.matrix(ref), cbind(esoph$ncases, esoph$ncontrols), binomial)
  expect_same_fit(fit, ref)
  tot <- esoph$ncases + esoph$ncontrols
  fit2 <- irls_fit(model.matrix(ref), esoph$ncases / tot, "binomial", weights = tot)
  expect_same_fit(fit2, ref)
  ref_q <- glm(cbind(ncases, ncontrols) ~ agegp + alcgp, quasibinomial("probit"), esoph)
  expect_same_fit(irls_like(ref_q), ref_q)
  expect_gt(irls_like(ref_q)$dispersion, 1)
})

test_that("poisson links, weights and offsets match glm", {
  ref <- glm(breaks ~ wool * tension, poisson, datasets::warpbreaks)
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(breaks ~ wool + tension, poisson("sqrt"), datasets::warpbreaks,
             weights = rep(1:3, length.out = 54))
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(count ~ spray, poisson("identity"), datasets::InsectSprays)
  expect_same_fit(irls_like(ref), ref)
  insurance <- shipped_data("Insurance", "MASS")
  ref <- glm(Claims ~ District + Group + Age, poisson, insurance, offset = log(Holders))
  fit <- irls_like(ref)
  expect_same_fit(fit, ref)
  # glm.fit's own null deviance ignores the offset; glm() refits it
  expect_false(isTRUE(all.equal(fit$null.deviance,
    glm.fit(model.matrix(ref), insurance$Claims, offset = log(insurance$Holders),
            family = poisson())$null.deviance)))
  quine <- shipped_data("quine", "MASS")
  ref <- glm(Days ~ Eth + Sex + Age + Lrn, quasipoisson, quine)
  expect_same_fit(irls_like(ref), ref)
  seatbelts <- as.data.frame(datasets::Seatbelts)
  ref <- glm(DriversKilled ~ law + PetrolPrice, quasipoisson("log"), seatbelts,
             offset = log(kms))
  expect_same_fit(irls_like(ref), ref)
})

test_that("gaussian and Gamma links match glm (mtcars, survival::lung)", {
  mtcars <- datasets::mtcars
  ref <- glm(mpg ~ wt + hp + factor(cyl), gaussian, mtcars, weights = carb)
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(mpg ~ wt, gaussian("log"), mtcars)
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(mpg ~ wt + hp, gaussian("inverse"), mtcars, offset = rep(0.01, 32))
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(mpg ~ wt + hp, Gamma, mtcars, weights = cyl)
  expect_same_fit(irls_like(ref), ref)
  ref <- glm(mpg ~ wt + hp, Gamma("identity"), mtcars)
  expect_same_fit(irls_like(ref), ref)
  lung <- shipped_data("lung", "survival")
  lung <- na.omit(lung[c("time", "age", "sex", "ph.ecog")])
  ref <- glm(time ~ age + sex + ph.ecog, Gamma("log"), lung)
  expect_same_fit(irls_like(ref), ref)
})

test_that("zero prior weights drop rows from the fit but keep their fitted values", {
  pima <- shipped_data("Pima.tr", "MASS")
  w <- rep(c(1, 0, 2, 1), length.out = nrow(pima))
  ref <- glm(type ~ npreg + glu + bmi + ped + age, binomial, pima, weights = w)
  fit <- irls_like(ref)
  expect_same_fit(fit, ref)
  expect_equal(fit$df.residual, sum(w > 0) - 6)
  expect_true(all(fit$fitted.values[w == 0] > 0 & fit$fitted.values[w == 0] < 1))
  expect_equal(unname(fit$weights[w == 0]), rep(0, sum(w == 0)))
})

test_that("aliased columns are the ones glm reports", {
  d <- shipped_data("birthwt", "MASS")
  d$age2 <- 2 * d$age
  d$zero <- 0
  d$combo <- d$age - 0.5 * d$lwt
  for (f in list(binomial(), gaussian(), poisson())) {
    resp <- switch(f$family, binomial = "low", gaussian = "bwt", poisson = "ftv")
    fml <- as.formula(paste(resp, "~ age + age2 + lwt + zero + combo + smoke"))
    ref <- glm(fml, f, d)
    fit <- irls_like(ref)
    expect_identical(is.na(fit$coefficients), is.na(coef(ref)))
    expect_equal(fit$rank, ref$rank)
    expect_equal(fit$coefficients, coef(ref), tolerance = tol_glm, ignore_attr = TRUE)
    expect_equal(fit$se[!is.na(coef(ref))], sqrt(diag(vcov(ref, complete = FALSE))),
                 tolerance = tol_glm, ignore_attr = TRUE)
    expect_true(fit$flags$used_qr)
  }
  # a column nearly (not exactly) collinear stays in, as in glm (dqrdc2 tol 1e-11)
  set.seed(11)
  x1 <- rnorm(60); x2 <- rnorm(60); y <- rnorm(60)
  x3 <- x1 + x2 + 1e-6 * rnorm(60)
  ref <- glm(y ~ x1 + x2 + x3)
  fit <- irls_like(ref)
  expect_identical(is.na(fit$coefficients), is.na(coef(ref)))
  expect_equal(fit$deviance, ref$deviance, tolerance = tol_glm)
})

test_that("separation gives a classed warning and glm's estimates", {
  x <- 1:10
  y <- as.numeric(x > 5)
  ref <- suppressWarnings(glm(y ~ x, binomial))
  expect_warning(
    expect_warning(fit <- irls_fit(cbind(1, x), y, binomial), class = "epimask_warning_separation"),
    class = "epimask_warning_convergence")
  expect_true(fit$flags$separation)
  expect_false(fit$converged)
  expect_equal(unname(fit$coefficients), unname(coef(ref)), tolerance = tol_glm)
})

test_that("non-convergence is flagged like glm.fit with a small maxit", {
  birthwt <- shipped_data("birthwt", "MASS")
  x <- model.matrix(~ age + lwt + smoke, birthwt)
  ref <- suppressWarnings(glm.fit(x, birthwt$low, family = binomial(), control = list(maxit = 2)))
  expect_warning(fit <- irls_fit(x, birthwt$low, binomial, control = list(maxit = 2)),
                        class = "epimask_warning_convergence")
  expect_false(fit$converged)
  expect_equal(fit$iter, 2L)
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm)
})

test_that("step halving follows glm.fit (poisson identity link at the boundary)", {
  x <- 0:9
  y <- c(0, 0, 0, 0, 1, 3, 6, 9, 14, 20)
  ref <- suppressWarnings(glm(y ~ x, poisson("identity"), start = c(1, 1)))
  expect_warning(
    expect_warning(fit <- irls_fit(cbind(1, x), y, poisson("identity"), start = c(1, 1)),
                          class = "epimask_warning_boundary"),
    class = "epimask_warning_separation")
  expect_true(fit$boundary)
  expect_true(fit$flags$step_halved)
  expect_equal(fit$iter, ref$iter)
  expect_equal(fit$deviance, ref$deviance, tolerance = tol_glm)
  expect_equal(unname(fit$coefficients[2]), unname(coef(ref)[2]), tolerance = tol_glm)
})

test_that("start, etastart and mustart are used as glm.fit uses them", {
  warpbreaks <- datasets::warpbreaks
  x <- model.matrix(~ wool + tension, warpbreaks)
  ref <- glm.fit(x, warpbreaks$breaks, family = poisson(), start = c(3, 0, 0, 0))
  fit <- irls_fit(x, warpbreaks$breaks, poisson, start = c(3, 0, 0, 0))
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm)
  expect_equal(fit$iter, ref$iter)
  ref <- glm.fit(x, warpbreaks$breaks, family = poisson(), mustart = rep(20, 54))
  fit <- irls_fit(x, warpbreaks$breaks, poisson, mustart = rep(20, 54))
  expect_equal(fit$iter, ref$iter)
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm)
  ref <- glm.fit(x, warpbreaks$breaks, family = poisson(), etastart = rep(3, 54))
  fit <- irls_fit(x, warpbreaks$breaks, poisson, etastart = rep(3, 54))
  expect_equal(fit$iter, ref$iter)
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm)
})

test_that("masked (non-integer) counts are fitted quietly with dispersion 1", {
  warpbreaks <- datasets::warpbreaks
  y <- warpbreaks$breaks + 0.37
  x <- model.matrix(~ wool + tension, warpbreaks)
  ref <- suppressWarnings(glm.fit(x, y, family = poisson()))
  expect_silent(fit <- irls_fit(x, y, poisson))
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm)
  expect_equal(fit$dispersion, 1)
  expect_true(is.na(fit$aic))
  yb <- c(0.2, 0.9, 0.4, 0.7, 0.1, 0.55)
  expect_silent(irls_fit(cbind(1, 1:6), yb, binomial, weights = rep(3, 6)))
})

test_that("wide designs (the dsyrk path) match glm.fit, with zero weights", {
  set.seed(21)
  n <- 400
  x <- cbind(1, matrix(rnorm(n * 59), n))
  y <- rpois(n, exp(0.3 + 0.1 * x[, 2]))
  w <- rep(c(1, 0, 2, 1), length.out = n)
  ref <- glm.fit(x, y, weights = w, family = poisson())
  fit <- irls_fit(x, y, poisson, weights = w)
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm, ignore_attr = TRUE)
  expect_equal(fit$se, sqrt(diag(summary.glm(ref)$cov.scaled)), tolerance = tol_glm,
               ignore_attr = TRUE)
  expect_equal(fit$deviance, ref$deviance, tolerance = tol_glm)
  expect_equal(fit$iter, ref$iter)
})

test_that("results do not depend on the number of threads", {
  # large enough for the passes to run on several threads (src/irls.c,
  # PARALLEL_MIN_WORK)
  set.seed(5)
  n <- 4e5
  x <- cbind(1, matrix(rnorm(n * 3), n))
  y <- rpois(n, exp(0.2 + x[, 2] * 0.3))
  w <- rep(c(1, 1, 0), length.out = n)
  yb <- rbinom(n, 1, plogis(0.3 - 0.5 * x[, 3]))
  # an aliased column sends every step through the QR
  xa <- cbind(x, x[, 2] - x[, 3])
  cases <- list(list(x = x, y = y, family = poisson(), w = w),
                list(x = xa, y = yb, family = binomial("cloglog"), w = w))
  for (case in cases) {
    fits <- lapply(1:3, function(k) irls_fit(case$x, case$y, case$family, weights = case$w,
                                             control = list(nthreads = k)))
    for (k in 2:3) {
      for (el in c("coefficients", "se", "deviance", "fitted.values", "weights", "residuals"))
        expect_identical(fits[[k]][[el]], fits[[1]][[el]], info = paste(case$family$link, el, k))
    }
    ref <- glm.fit(case$x, case$y, weights = case$w, family = case$family)
    expect_equal(fits[[1]]$coefficients, ref$coefficients, tolerance = tol_glm, ignore_attr = TRUE)
    kept <- !is.na(ref$coefficients)
    expect_equal(fits[[1]]$se[kept], sqrt(diag(summary.glm(ref)$cov.scaled)), tolerance = tol_glm,
                 ignore_attr = TRUE)
  }
})

test_that("the same bits for any threads and any assignment of chunks to threads", {
  # The C iteration with `schedule` set (tests only): every pass on the
  # threads asked for, whatever the size, chunks handed out in order (1),
  # reversed (2) or alternately from both ends (3), so that each thread
  # works on other chunks than with the default schedule (0, where a pass
  # may drop to one thread on a loaded machine). Chunks are fixed by n and p
  # and summed in chunk order, so every variant must give identical results.
  raw_fit <- function(x, y, family, w, threads, schedule) {
    family <- epimask:::check_family(family)
    codes <- epimask:::family_codes(family)
    ctl <- epimask:::irls_control(list(nthreads = threads))
    ctl$schedule <- schedule
    y <- epimask:::check_response(y, nrow(x), family)
    init <- epimask:::run_initialize(family, y, w, NULL, NULL, NULL, codes)
    epimask:::irls_call(x, init, codes, NULL, ctl)
  }
  set.seed(28)
  # 9 chunks of rows at n = 4e4 (rows per chunk 4096), a short last block
  n <- 40003
  x <- cbind(1, matrix(rnorm(n * 4), n))
  cases <- list(
    list(y = rbinom(n, 1, plogis(-0.3 + x[, 2] - 0.5 * x[, 4])), family = binomial(),
         w = rep(c(1, 2, 0), length.out = n)),
    list(y = rpois(n, exp(0.1 + 0.4 * x[, 3])), family = poisson(), w = rep(1, n)))
  fields <- c("coefficients", "cov.unscaled", "deviance", "iter", "fitted.values",
              "linear.predictors", "weights", "residuals")
  for (case in cases) {
    base <- raw_fit(x, case$y, case$family, case$w, 1L, 0L)
    for (threads in c(1L, 2L, 3L, 5L)) {
      for (schedule in 0:3) {
        fit <- raw_fit(x, case$y, case$family, case$w, threads, schedule)
        for (el in fields)
          expect_identical(fit[[el]], base[[el]],
                           info = paste(case$family$family, el, threads, schedule))
      }
    }
    # the public function gives the same bits, and glm.fit's estimates
    pub <- irls_fit(x, case$y, case$family, weights = case$w, control = list(nthreads = 2L))
    expect_identical(unname(pub$coefficients), base$coefficients)
    ref <- glm.fit(x, case$y, weights = case$w, family = case$family)
    expect_equal(base$coefficients, unname(ref$coefficients), tolerance = tol_glm)
    expect_equal(base$deviance, ref$deviance, tolerance = tol_glm)
  }
})

test_that("X'WX and X'Wz of the register tiles equal crossprod() for every tile shape", {
  # src/irls_linalg.c: tiles of 2 x 4 and 2 x 2 columns, an odd number of
  # columns (+ z), rows in pairs with a tail, blocks of 256 rows with a short
  # last block. The reference is R's crossprod on sqrt(W) X.
  set.seed(17)
  for (p in c(1, 2, 3, 4, 5, 6, 9, 12)) {
    n <- 257 * 3 + 1
    x <- cbind(1, matrix(rnorm(n * (p - 1)), n, p - 1))
    w <- runif(n, 0.2, 3) * rep(c(1, 1, 1, 0), length.out = n)
    y <- drop(x %*% seq(0.5, -0.5, length.out = p)) + rnorm(n)
    # gaussian identity: one weighted least-squares step, beta = (X'WX)^-1 X'Wy
    fit <- irls_fit(x, y, gaussian(), weights = w)
    xtwx <- crossprod(x * sqrt(w))
    expect_equal(unname(fit$cov.unscaled), unname(solve(xtwx)), tolerance = 1e-12,
                 info = paste("p =", p))
    expect_equal(unname(fit$coefficients), drop(solve(xtwx, crossprod(x, w * y))),
                 tolerance = 1e-12, info = paste("p =", p))
    # poisson log: the covariance is (X'WX)^-1 at the last working weights
    yp <- rpois(n, exp(0.3 + 0.2 * x[, p]))
    fp <- irls_fit(x, yp, poisson(), weights = w)
    expect_equal(unname(fp$cov.unscaled), unname(solve(crossprod(x, fp$weights * x))),
                 tolerance = 1e-12, info = paste("poisson p =", p))
  }
})

test_that("limited pivoting drops the columns glm.fit drops, in any column order", {
  set.seed(31)
  n <- 150
  a <- rnorm(n); b <- rnorm(n); cc <- rnorm(n)
  # exact combinations only: a nearly collinear column makes the coefficients
  # themselves ill-determined (see the next test)
  cols <- cbind(one = 1, a = a, b = b, a2 = 2 * a, ab = a - b, c = cc, zero = 0,
                abc = a + b + cc)
  y <- rbinom(n, 1, plogis(0.2 + 0.5 * a - 0.3 * cc))
  w <- rep(c(1, 2, 0, 1), length.out = n)
  for (k in 1:6) {
    ord <- if (k == 1) seq_len(ncol(cols)) else sample(ncol(cols))
    x <- cols[, ord]
    for (fam in list(binomial(), poisson())) {
      ref <- glm.fit(x, y, weights = w, family = fam)
      fit <- irls_fit(x, y, fam, weights = w)
      info <- paste(fam$family, paste(colnames(x), collapse = " "))
      expect_identical(is.na(fit$coefficients), is.na(ref$coefficients), info = info)
      expect_equal(fit$rank, ref$rank, info = info)
      expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm, ignore_attr = TRUE,
                   info = info)
      expect_equal(fit$deviance, ref$deviance, tolerance = tol_glm, info = info)
      expect_equal(unname(fit$fitted.values), unname(ref$fitted.values), tolerance = tol_glm)
    }
  }
  # a nearly collinear column (1 - R^2 about 5e-11 on the others: below
  # chol_tol, so the Cholesky is not trusted, and above dqrdc2's 1e-14, so
  # the QR keeps it as glm does): the coefficients are determined only to
  # about cond * eps ~ 1e-6 by either solver, the fit to about 1e-12
  xn <- cbind(1, a, b, near = a + b + 1e-5 * rnorm(n))
  for (fam in list(binomial(), poisson(), gaussian())) {
    ref <- glm.fit(xn, y, family = fam)
    fit <- irls_fit(xn, y, fam)
    expect_true(fit$flags$used_qr)
    expect_equal(fit$rank, ref$rank)
    expect_identical(is.na(fit$coefficients), is.na(ref$coefficients))
    expect_equal(fit$deviance, ref$deviance, tolerance = tol_glm)
    expect_equal(unname(fit$fitted.values), unname(ref$fitted.values), tolerance = tol_glm)
  }
  # fewer informative rows than columns: dqrdc2 stops at the number of rows
  x <- cbind(1, matrix(rnorm(8 * 6), 8))
  yg <- rnorm(8)
  w <- c(1, 1, 1, 0, 1, 1, 0, 0)
  ref <- glm.fit(x, yg, weights = w, family = gaussian())
  fit <- irls_fit(x, yg, gaussian(), weights = w)
  expect_identical(unname(is.na(fit$coefficients)), is.na(ref$coefficients))
  expect_equal(fit$coefficients, ref$coefficients, tolerance = tol_glm, ignore_attr = TRUE)
})

test_that("the R and C code tables agree, and a mismatch stops loading", {
  expect_true(epimask:::check_glm_codes())
  codes <- .Call(epimask:::C_glm_codes)
  expect_identical(codes, epimask:::glm_codes)
  bad <- codes
  bad$link[["probit"]] <- 9L
  expect_error(epimask:::check_glm_codes(bad), "out of step")
})

test_that("replicate fits from sufficient statistics equal glm, for any thread count", {
  set.seed(9)
  n <- 300
  x <- cbind(1, a = rnorm(n), b = runif(n))
  off <- rep(c(0, 0.2), length.out = n)
  w <- rep(c(1, 2, 1), length.out = n)
  Y <- replicate(5, rpois(n, exp(0.5 + 0.4 * x[, 2] + off)))
  Y[, 2] <- Y[, 2] * 0.7        # a masked, non-integer outcome
  stat <- crossprod(w * x, Y)
  start <- glm.fit(x, Y[, 1], weights = w, offset = off, family = poisson())$coefficients
  fits <- lapply(1:2, function(k) {
    old <- options(epimask.threads = k)
    on.exit(options(old))
    epimask:::newton_many(x, stat, poisson(), off, w, start)
  })
  expect_identical(fits[[1]], fits[[2]])
  for (r in seq_len(ncol(Y))) {
    ref <- suppressWarnings(glm.fit(x, Y[, r], weights = w, offset = off, family = poisson(),
                                    control = list(epsilon = 1e-14, maxit = 50)))
    # both at the MLE: Newton stops when no coefficient moves by 1e-11
    # (relative); glm.fit at a relative deviance change of 1e-14
    expect_equal(fits[[1]]$coefficients[, r], ref$coefficients, tolerance = tol_glm)
    # naive SEs: the Fisher information at the estimate (not glm's weights
    # of the previous iterate), computed here by brute force
    mu <- drop(exp(x %*% ref$coefficients + off))
    expect_equal(unname(fits[[1]]$se[, r]), unname(sqrt(diag(solve(crossprod(x, w * mu * x))))),
                 tolerance = tol_glm)
  }
  yb <- replicate(3, rbinom(n, 1, plogis(-0.2 + 0.6 * x[, 3])))
  fb <- epimask:::newton_many(x, crossprod(x, yb), binomial(), rep(0, n), rep(1, n), rep(0, 3))
  for (r in 1:3) {
    ref <- glm.fit(x, yb[, r], family = binomial(), control = list(epsilon = 1e-14, maxit = 50))
    expect_equal(fb$coefficients[, r], ref$coefficients, tolerance = tol_glm)
  }
  # a singular design gives NA, not an error
  xs <- cbind(x, 2 * x[, 2])
  bad <- epimask:::newton_many(xs, crossprod(xs, Y), poisson(), rep(0, n), rep(1, n), rep(0, 4))
  expect_true(all(is.na(bad$coefficients)))
})

# Standard errors from the Fisher information at the estimate, by brute force.
info_se <- function(x, fit, family, dispersion = 1) {
  eta <- drop(x %*% fit$coefficients)
  w <- family$mu.eta(eta)^2 / family$variance(family$linkinv(eta))
  sqrt(dispersion * diag(solve(t(x) %*% (w * x))))
}

# Standard errors from the Fisher information at the estimate, by brute force.
info_se <- function(x, fit, family, dispersion = 1) {
  eta <- drop(x %*% coef(fit))
  w <- family$mu.eta(eta)^2 / family$variance(family$linkinv(eta))
  sqrt(dispersion * diag(solve(t(x) %*% (w * x))))
}

test_that("irls_fit_many equals glm.fit column by column", {
  set.seed(8)
  n <- 200
  x <- cbind(1, a = rnorm(n), b = runif(n))
  eta <- drop(x %*% c(-0.3, 0.8, 0.5))
  Y <- replicate(4, rbinom(n, 1, plogis(eta)))
  cold <- epimask:::irls_fit_many(x, Y, binomial, warm_start = FALSE)
  warm <- epimask:::irls_fit_many(x, Y, binomial)
  for (k in 1:4) {
    ref <- glm.fit(x, Y[, k], family = binomial())
    expect_equal(cold$coefficients[, k], ref$coefficients, tolerance = tol_glm)
    expect_equal(cold$se[, k], sqrt(diag(summary.glm(ref)$cov.scaled)), tolerance = tol_glm)
    expect_equal(cold$deviance[k], ref$deviance, tolerance = tol_glm)
    # a warm start follows another path to the MLE; each fit stops once the
    # deviance changes by less than epsilon = 1e-8 (relative), which leaves
    # its coefficients about 1e-8 from the MLE (here 4e-9): not glm's bits
    # 1e-8: warm starts stop at irls_stat_many's Newton tolerance; measured 4e-9
    expect_equal(warm$coefficients[, k], ref$coefficients, tolerance = 1e-8)
    expect_equal(warm$deviance[k], ref$deviance, tolerance = tol_glm)
  }
  # Gamma-log is Fisher scoring with linear convergence: at epsilon = 1e-8 a
  # fit is only ~1e-6 from the MLE, and paths from different starts end at
  # different such points. The cold path must follow glm.fit exactly.
  Yg <- replicate(3, rgamma(n, 2, 2 / exp(0.1 + 0.2 * x[, 2])))
  cold <- epimask:::irls_fit_many(x, Yg, Gamma("log"), warm_start = FALSE)
  ref <- glm(Yg[, 3] ~ x - 1, family = Gamma("log"))
  expect_equal(cold$coefficients[, 3], coef(ref), tolerance = tol_glm, ignore_attr = TRUE)
  expect_equal(cold$se[, 3], sqrt(diag(vcov(ref))), tolerance = tol_glm, ignore_attr = TRUE)
  expect_equal(cold$dispersion[3], summary(ref)$dispersion, tolerance = tol_glm)
  # With the canonical (inverse) link IRLS is Newton's method, so warm and
  # cold starts reach the same MLE, to 1e-10 (measured 7e-11) once both stop
  # at epsilon 1e-12 (at 1e-8 the last Newton step leaves ~1e-8 of its
  # own); warm-start SEs
  # use the weights at the estimate, i.e. the information at the MLE.
  Yi <- replicate(3, rgamma(n, 2, 2 * (0.5 + 0.1 * x[, 2] + 0.2 * x[, 3])))
  tight <- list(epsilon = 1e-12)
  warm <- epimask:::irls_fit_many(x, Yi, Gamma("inverse"), control = tight)
  for (k in 1:3) {
    ref <- glm(Yi[, k] ~ x - 1, family = Gamma("inverse"), control = tight)
    pearson <- sum(residuals(ref, "pearson")^2) / ref$df.residual
    expect_equal(warm$coefficients[, k], coef(ref), tolerance = tol_glm, ignore_attr = TRUE)
    expect_equal(warm$dispersion[k], pearson, tolerance = tol_glm)
    expect_equal(warm$se[, k], info_se(x, ref, Gamma("inverse"), pearson), tolerance = tol_glm,
                 ignore_attr = TRUE)
  }
})

test_that("bad input gives classed errors naming the argument", {
  x <- cbind(1, 1:5)
  y <- c(0, 1, 0, 1, 1)
  expect_error(irls_fit(matrix("a"), 1), class = "epimask_error_type")
  expect_error(irls_fit(list(1), 1), class = "epimask_error_type")
  expect_error(irls_fit(cbind(1, c(1, NA, 3, 4, 5)), y), class = "epimask_error_value")
  expect_error(irls_fit(cbind(1, c(1, Inf, 3, 4, 5)), y), class = "epimask_error_value")
  expect_error(irls_fit(x, c(0, NA, 1, 1, 0)), class = "epimask_error_value")
  expect_error(irls_fit(x, c(0, Inf, 1, 1, 0)), class = "epimask_error_value")
  expect_error(irls_fit(x, "a"), class = "epimask_error_type")
  expect_error(irls_fit(x, y[-1]), class = "epimask_error_length")
  expect_error(irls_fit(x, y, weights = 1:4), class = "epimask_error_length")
  expect_error(irls_fit(x, y, weights = c(1, NA, 1, 1, 1)), class = "epimask_error_value")
  expect_error(irls_fit(x, y, weights = c(1, -1, 1, 1, 1)), class = "epimask_error_value")
  expect_error(irls_fit(x, y, weights = rep(0, 5)), class = "epimask_error_empty")
  expect_error(irls_fit(x, y, offset = 1:3), class = "epimask_error_length")
  expect_error(irls_fit(x, y, offset = c(1, NaN, 1, 1, 1)), class = "epimask_error_value")
  expect_error(irls_fit(x, y, start = 1), class = "epimask_error_length")
  expect_error(irls_fit(matrix(numeric(0), 0, 2), numeric(0)), class = "epimask_error_empty")
  expect_error(irls_fit(x, c(0, 2, 1, 1, 0), binomial), class = "epimask_error_value")
  expect_error(irls_fit(x, cbind(c(1, -1, 1, 1, 1), 1), binomial), class = "epimask_error_value")
  expect_error(irls_fit(x, c(0, -1, 1, 1, 0), poisson), class = "epimask_error_value")
  expect_error(irls_fit(x, c(1, 0, 1, 1, 2), Gamma), class = "epimask_error_value")
  expect_error(irls_fit(x, c(1, 0, 1, 1, 2), gaussian("log")), class = "epimask_error_value")
  expect_error(irls_fit(x, y, "no_such_family"), class = "epimask_error_value")
  expect_error(irls_fit(x, y, inverse.gaussian()), class = "epimask_error_value")
  expect_error(irls_fit(x, y, binomial("cauchit")), class = "epimask_error_value")
  expect_error(irls_fit(x, y, 42), class = "epimask_error_type")
  expect_error(irls_fit(x, y, control = list(maxit = 0)), class = "epimask_error_value")
  expect_error(irls_fit(x, y, control = list(epsilon = -1)), class = "epimask_error_value")
  expect_error(irls_fit(x, y, control = list(foo = 1)), class = "epimask_error_value")
  err <- tryCatch(irls_fit(x, y, weights = c(1, -1, 1, 1, 1)), error = identity)
  expect_match(conditionMessage(err), "`weights`")
  err <- tryCatch(irls_fit(x, y, binomial("cauchit")), error = identity)
  expect_match(conditionMessage(err), "`family`")
})

test_that("the benchmark's machine loops read every element and run their chains", {
  # C_machine_rates (BENCH ONLY, inst/bench/bench-irls.R): integers, so the
  # sum is exact in any order
  x <- as.double(1:1001)
  rates <- function(x, reps, steps) .Call(epimask:::C_machine_rates,
                                          list(x = x, reps = reps, steps = steps))
  chains0 <- rates(x, 0L, 0L)
  expect_identical(rates(x, 3L, 0L) - chains0, 3 * sum(x))
  # the 16 accumulators start at 0 and stay bounded
  expect_identical(chains0, 0)
  expect_true(is.finite(rates(0, 0L, 1000L)))
})
