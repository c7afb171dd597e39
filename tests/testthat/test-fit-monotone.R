# Monotone likelihoods (issue 36 item 5): fit_cox() and the C IRLS say when
# a coefficient may be infinite, with survival::coxph() and glm() as the
# references: coxph's own warning ("Loglik converged before variable ...;
# coefficient may be infinite") names the same covariates, and glm's estimate
# of a diverging coefficient keeps moving when its convergence criterion is
# tightened while a finite one does not.

if (requireNamespace("survival", quietly = TRUE)) {
  Surv <- survival::Surv
  strata <- survival::strata
}

# The covariate numbers coxph() names in its warning (integer(0) if none),
# and whether it ran out of iterations (then it names none).
coxph_infinite <- function(formula, data, ...) {
  flagged <- integer()
  out_of_iterations <- FALSE
  fit <- withCallingHandlers(survival::coxph(formula, data, ...), warning = function(w) {
    msg <- conditionMessage(w)
    if (grepl("Loglik converged before variable", msg)) {
      nums <- sub(".*before variable *([0-9, ]+);.*", "\\1", msg)
      flagged <<- as.integer(strsplit(gsub(" ", "", nums), ",")[[1L]])
    }
    if (grepl("Ran out of iterations", msg)) out_of_iterations <<- TRUE
    invokeRestart("muffleWarning")
  })
  list(fit = fit, flagged = flagged, out_of_iterations = out_of_iterations)
}

lung_z <- function() {
  d <- survival::lung
  d$z <- as.numeric(d$time < stats::median(d$time))
  d
}

test_that("a Cox fit on a monotone likelihood warns, as coxph does, and is not converged", {
  skip_if_not_installed("survival")
  d <- lung_z()
  ref <- coxph_infinite(Surv(time, status) ~ z, d)
  expect_identical(ref$flagged, 1L)
  expect_warning(fit <- fit_cox(Surv(time, status) ~ z, d), class = "epimask_warning_monotone")
  expect_identical(fit$infinite, c(z = TRUE))
  expect_false(fit$converged)
  # the same (diverged) numbers coxph stops at: both stop by coxph's rule
  expect_equal(unname(coef(fit)), unname(coef(ref$fit)), tolerance = 1e-6)
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "Monotone likelihood: the estimate of 'z' may be infinite")
  expect_match(paste(format(summary(fit)), collapse = "\n"), "'z' may be infinite")
})

test_that("only the covariates coxph names are flagged (with others, strata, (start, stop])", {
  skip_if_not_installed("survival")
  d <- lung_z()
  d <- d[stats::complete.cases(d[c("age", "ph.ecog")]), ]
  d$start <- 0
  cases <- list(
    list(Surv(time, status) ~ age + z + ph.ecog, NULL),
    list(Surv(time, status) ~ z + age + strata(sex), NULL),
    list(Surv(start, time, status) ~ age + z, NULL),
    list(Surv(time, status) ~ age + z, "breslow"))
  for (case in cases) {
    ties <- case[[2L]] %||% "efron"
    ref <- coxph_infinite(case[[1L]], d, ties = ties)
    expect_warning(fit <- fit_cox(case[[1L]], d, ties = ties), class = "epimask_warning_monotone")
    expect_identical(unname(which(fit$infinite)), ref$flagged)
  }
})

test_that("finite Cox fits are not flagged, as coxph does not flag them", {
  skip_if_not_installed("survival")
  lung <- survival::lung
  for (f in list(Surv(time, status) ~ age + sex + ph.ecog, Surv(time, status) ~ sex,
                 Surv(time, status) ~ age + strata(inst))) {
    ref <- coxph_infinite(f, lung)
    expect_identical(ref$flagged, integer())
    expect_no_warning(fit <- fit_cox(f, lung))
    expect_false(any(fit$infinite))
    expect_true(fit$converged)
  }
})

test_that("on random small data sets fit_cox flags exactly when coxph does", {
  skip_if_not_installed("survival")
  set.seed(36)
  agree <- logical()
  flagged_any <- 0L
  for (i in 1:60) {
    n <- sample(8:25, 1)
    d <- data.frame(time = sample(1:40, n, replace = TRUE), status = rbinom(n, 1, 0.7),
                    a = rbinom(n, 1, 0.5), b = round(rnorm(n), 1))
    # now and then a covariate that orders the event times
    if (i %% 3 == 0) d$a <- as.numeric(d$time < stats::median(d$time))
    if (sum(d$status) == 0L || length(unique(d$a)) < 2L) next
    ref <- coxph_infinite(Surv(time, status) ~ a + b, d)
    seen <- character()
    fit <- withCallingHandlers(fit_cox(Surv(time, status) ~ a + b, d), warning = function(w) {
      seen <<- c(seen, class(w)[1L])
      invokeRestart("muffleWarning")
    })
    expect_identical("epimask_warning_monotone" %in% seen, any(fit$infinite))
    # where coxph ran out of iterations both stop at the same point, and
    # fit_cox says which coefficients still move (coxph names none)
    if (ref$out_of_iterations) {
      expect_false(fit$converged)
      expect_equal(unname(coef(fit)), unname(coef(ref$fit)), tolerance = 1e-8)
      next
    }
    agree <- c(agree, identical(unname(which(fit$infinite)), ref$flagged))
    flagged_any <- flagged_any + (length(ref$flagged) > 0L)
  }
  expect_true(all(agree))
  expect_gt(length(agree), 30L)
  expect_gt(flagged_any, 5L)
})

test_that("a profile leaves monotone Cox replicates out with the reason", {
  skip_if_not_installed("survival")
  d <- lung_z()[c("time", "status", "z", "age")]
  expect_error(suppressWarnings(ru_profile(d, c(mask_none(), mask_round(-1, "decimal")),
                                           Surv(time, status) ~ z, family = "cox", term = "z",
                                           vars = "age", risk = "none")),
               "monotone in 'z'", class = "epimask_error_singular")
})

# ---- GLMs ---------------------------------------------------------------------------

# glm's estimate at its default criterion and at a much tighter one: a
# finite maximum is reached by both, a diverging coefficient moves on.
glm_moves <- function(x, y, family) {
  a <- suppressWarnings(glm.fit(x, y, family = family))$coefficients
  b <- suppressWarnings(glm.fit(x, y, family = family,
                                control = glm.control(epsilon = 1e-15, maxit = 400)))$coefficients
  abs(b - a) > 1
}

test_that("complete separation: glm's warning, and the diverging coefficients named", {
  x <- cbind(1, x = 1:10)
  y <- as.numeric(1:10 > 5)
  msgs <- character()
  withCallingHandlers(glm.fit(x, y, family = binomial()), warning = function(w) {
    msgs <<- c(msgs, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_true(any(grepl("fitted probabilities numerically 0 or 1", msgs)))
  w <- NULL
  fit <- withCallingHandlers(irls_fit(x, y, binomial()), warning = function(cnd) {
    if (inherits(cnd, "epimask_warning_monotone")) w <<- cnd
    invokeRestart("muffleWarning")
  })
  expect_s3_class(w, "epimask_warning_separation")
  expect_match(conditionMessage(w), "Fitted probabilities numerically 0 or 1 occurred")
  expect_identical(unname(fit$flags$infinite), unname(glm_moves(x, y, binomial())))
})

test_that("quasi-complete separation, which glm fits silently, is flagged where glm's estimate diverges", {
  g <- factor(rep(c("a", "b", "c"), c(30, 30, 20)))
  set.seed(5)
  y <- c(rbinom(30, 1, 0.4), rbinom(30, 1, 0.6), rep(0, 20))
  x <- model.matrix(~ g)
  for (link in c("logit", "probit", "cloglog")) {
    fam <- binomial(link)
    expect_no_warning(glm.fit(x, y, family = fam))
    moves <- glm_moves(x, y, fam)
    expect_identical(unname(moves), c(FALSE, FALSE, TRUE))
    expect_warning(fit <- irls_fit(x, y, fam), "quasi-complete separation",
                   class = "epimask_warning_monotone")
    expect_identical(unname(fit$flags$infinite), unname(moves))
    expect_true(fit$converged)
  }
  # poisson: a group with no events
  cnt <- c(rpois(60, 3), rep(0, 20))
  expect_no_warning(glm.fit(x, cnt, family = poisson()))
  expect_warning(fit <- fit_glm(cnt ~ g, data.frame(cnt, g), family = poisson()),
                 class = "epimask_warning_monotone")
  expect_identical(unname(fit$flags$infinite), unname(glm_moves(x, cnt, poisson())))
})

test_that("finite GLM fits of every family are not flagged, and glm's estimates do not move", {
  set.seed(37)
  fams <- list(binomial(), binomial("probit"), binomial("cloglog"), poisson(),
               quasipoisson(), Gamma("log"), gaussian())
  for (i in 1:140) {
    fam <- fams[[(i - 1L) %% length(fams) + 1L]]
    n <- sample(c(30, 200), 1)
    p <- sample(1:4, 1)
    x <- cbind(1, matrix(rnorm(n * p, sd = 10^runif(1, -2, 2)), n))
    eta <- drop(x[, -1, drop = FALSE] %*% (rnorm(p, sd = 0.4) / apply(x[, -1, drop = FALSE], 2, sd)))
    y <- switch(sub("quasi", "", fam$family), binomial = rbinom(n, 1, plogis(eta)),
                poisson = rpois(n, exp(eta)), Gamma = rgamma(n, 2, 2 / exp(eta)),
                gaussian = rnorm(n, eta))
    fit <- suppressWarnings(irls_fit(x, y, fam))
    if (!fit$converged || fit$flags$separation) next
    expect_false(any(glm_moves(x, y, fam)))
    expect_false(any(fit$flags$infinite))
  }
  expect_no_warning(fit <- fit_glm(cbind(ncases, ncontrols) ~ agegp + alcgp + tobgp,
                                   datasets::esoph, family = binomial()))
  expect_false(any(fit$flags$infinite))
})
