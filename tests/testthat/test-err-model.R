# fit_err(): the linear excess-relative-risk model (methods vignette section 2.1), checked
# against a direct maximisation of the explicit likelihood, a plain Newton in
# R, numerical derivatives, and glm() profiles (helper-err-model.R).

cohort <- err_sim_cohort()
cohort_fit <- fit_err(case ~ sex + age, cohort, dose = "dose")
cohort_z <- model.matrix(~ sex + age, cohort)

test_that("the simulated cohort looks like the intended one", {
  expect_gt(sum(cohort$case), 60)
  expect_lt(sum(cohort$case), 200)
  expect_gt(mean(cohort$dose == 0), 0.4)
  expect_equal(max(cohort$dose), 3)
})

test_that("estimates and deviance match a direct maximisation of the likelihood", {
  fit <- cohort_fit
  expect_true(fit$converged)
  expect_false(fit$boundary)
  expect_named(coef(fit), c("(Intercept)", "sex", "age", "dose"))
  start <- c(coef(glm(case ~ sex + age, binomial, cohort)), 0.2)
  newton <- err_ref_newton(start, cohort_z, cohort$dose, cohort$case)
  # 1e-9: fit_err stops at a relative deviance change of 1e-10 (control eps); ~1e-10 seen over seeds
  expect_equal(unname(coef(fit)), unname(newton), tolerance = 1e-9)
  opt <- optim(c(-3, 0, 0, 0), err_ref_negll, z = cohort_z, d = cohort$dose,
               y = cohort$case, method = "BFGS",
               control = list(reltol = 1e-15, maxit = 2000))
  opt <- optim(opt$par, err_ref_negll, z = cohort_z, d = cohort$dose,
               y = cohort$case, method = "Nelder-Mead",
               control = list(reltol = 1e-15, maxit = 5000))
  # 1e-5: optim() stops where the deviance is flat to rounding, ~sqrt(eps) relative at best; measured 6e-8
  expect_equal(unname(coef(fit)), opt$par, tolerance = 1e-5)
  # Bernoulli: the saturated log-likelihood is 0, so D = -2 loglik
  expect_equal(deviance(fit), 2 * err_ref_negll(newton, cohort_z, cohort$dose,
                                                cohort$case), tolerance = tol_glm)
  expect_lte(deviance(fit), 2 * opt$value + 1e-8)
  expect_equal(as.numeric(logLik(fit)), -deviance(fit) / 2, tolerance = tol_exact)
  expect_equal(attr(logLik(fit), "df"), 4L)
  expect_equal(nobs(fit), nrow(cohort))
  expect_equal(fit$df.residual, nrow(cohort) - 4L)
  expect_equal(fit$null.deviance, deviance(glm(case ~ 1, binomial, cohort)),
               tolerance = tol_glm)
})

test_that("standard errors are those of the numerical Hessian", {
  fit <- cohort_fit
  hess <- optimHess(coef(fit), err_ref_negll, z = cohort_z, d = cohort$dose,
                    y = cohort$case, control = list(ndeps = c(1e-4, 1e-4, 1e-6, 1e-4)))
  # optimHess() by central differences (ndeps 1e-4, 1e-6); measured 2e-7
  expect_equal(unname(vcov(fit)), unname(solve(hess)), tolerance = 1e-5)
  expect_equal(unname(fit$se), unname(sqrt(diag(solve(hess)))), tolerance = 1e-5)
  expect_equal(dimnames(vcov(fit)), list(names(coef(fit)), names(coef(fit))))
})

test_that("C score and observed information agree with finite differences away from the optimum", {
  theta <- c(-3.5, 0.3, 0.01, 0.9)
  d <- cohort$dose
  y <- as.double(cohort$case)
  one <- rep(1, nrow(cohort))
  der <- .Call(epimask:::C_err_derivs, list(z = cohort_z, d = d, y = y, m = one, w = one,
                                               offset = NULL, theta = theta, expected = 0L))
  expect_equal(der$deviance, 2 * err_ref_negll(theta, cohort_z, d, y), tolerance = tol_exact)
  h <- c(1e-5, 1e-5, 1e-7, 1e-5)
  num_grad <- vapply(1:4, function(j) {
    e <- replace(numeric(4), j, h[j])
    -(err_ref_negll(theta + e, cohort_z, d, y) -
        err_ref_negll(theta - e, cohort_z, d, y)) / (2 * h[j])
  }, numeric(1))
  # central differences, h = 1e-5 (1e-7 for the dose): measured 6e-10
  expect_equal(der$score, num_grad, tolerance = 1e-7)
  expect_equal(der$score, unname(err_ref_score(theta, cohort_z, d, y)), tolerance = tol_exact)
  # observed information: central differences of the test-side score
  num_info <- vapply(1:4, function(j) {
    e <- replace(numeric(4), j, h[j])
    -(err_ref_score(theta + e, cohort_z, d, y) -
        err_ref_score(theta - e, cohort_z, d, y)) / (2 * h[j])
  }, numeric(4))
  # difference quotients of the analytic score; measured 1e-12
  expect_equal(der$info, unname(num_info), tolerance = 1e-10)
  expect_equal(der$info, t(der$info))
})

test_that("the LR test uses the logistic fit at ERR = 0", {
  fit <- cohort_fit
  d0 <- deviance(glm(case ~ sex + age, binomial, cohort))
  expect_equal(fit$lr_test$deviance_zero, d0, tolerance = tol_glm)
  expect_equal(fit$lr_test$statistic, d0 - deviance(fit), tolerance = tol_glm)
  expect_equal(fit$lr_test$df, 1L)
  expect_equal(fit$lr_test$p.value,
               pchisq(d0 - deviance(fit), 1, lower.tail = FALSE), tolerance = tol_glm)
})

test_that("profile interval ends sit where the glm profile deviance rises by 3.841", {
  fit <- cohort_fit
  ci <- fit$profile_ci
  expect_false(any(ci$open))
  expect_equal(ci$threshold, qchisq(0.95, 1))
  for (end in c(ci$lower, ci$upper)) {
    rise <- err_ref_profile(end, case ~ sex + age, cohort, "dose") - deviance(fit)
    expect_lt(abs(rise - qchisq(0.95, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  }
  beta_hat <- coef(fit)[["dose"]]
  expect_lt(ci$lower, beta_hat)
  expect_gt(ci$upper, beta_hat)
  # the profile minimum is the joint estimate
  prof <- vapply(beta_hat + c(-1e-3, 0, 1e-3), err_ref_profile, numeric(1),
                 formula = case ~ sex + age, data = cohort, dose = "dose")
  expect_equal(prof[2], deviance(fit), tolerance = tol_exact)
  expect_true(all(prof[c(1, 3)] > prof[2]))
  ci_tab <- confint(fit)
  expect_equal(unname(ci_tab["dose", ]), c(ci$lower, ci$upper))
  wald <- coef(fit)[1:3] + outer(fit$se[1:3], qnorm(c(0.025, 0.975)))
  expect_equal(unname(ci_tab[1:3, ]), unname(wald))
  ci90 <- confint(fit, "dose", level = 0.9)
  for (end in ci90) {
    rise <- err_ref_profile(end, case ~ sex + age, cohort, "dose") - deviance(fit)
    expect_lt(abs(rise - qchisq(0.9, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  }
  expect_equal(unname(confint(fit, "dose", method = "wald")[1, ]),
               coef(fit)[["dose"]] + fit$se[["dose"]] * qnorm(c(0.025, 0.975)))
})

test_that("an ERR at the lower admissible limit is flagged with a classed warning", {
  set.seed(5)
  n <- 1500
  x <- data.frame(sex = rbinom(n, 1, 0.5),
                  dose = ifelse(runif(n) < 0.5, 0, runif(n, 0, 3)))
  x$dose[1] <- 3
  odds <- exp(-2.5 + 0.3 * x$sex) * pmax(1 - x$dose / 3, 0)
  x$case <- rbinom(n, 1, odds / (1 + odds))
  expect_warning(fit <- fit_err(case ~ sex, x, dose = "dose"),
                 class = "epimask_warning_boundary")
  expect_true(fit$boundary)
  expect_equal(coef(fit)[["dose"]], -1 / 3)
  # the likelihood still rises towards the limit: profile is decreasing there
  dev_near <- vapply(-1 / 3 + c(1e-3, 1e-2, 5e-2), err_ref_profile, numeric(1),
                     formula = case ~ sex, data = x, dose = "dose")
  expect_true(all(diff(dev_near) > 0))
  expect_true(all(dev_near > deviance(fit)))
  # gamma is the logistic fit with odds 0 at the highest dose (those records drop out)
  x$off <- log1p(-x$dose / 3)
  g <- glm(case ~ sex + offset(off), binomial, x[x$dose < 3, ])
  expect_equal(unname(coef(fit)[1:2]), unname(coef(g)), tolerance = tol_glm)
  expect_equal(deviance(fit), deviance(g), tolerance = tol_glm)
  ci <- fit$profile_ci
  expect_true(ci$open[["lower"]])
  expect_equal(ci$lower, -1 / 3)
  expect_false(ci$open[["upper"]])
  rise <- err_ref_profile(ci$upper, case ~ sex, x, "dose") - deviance(fit)
  expect_lt(abs(rise - qchisq(0.95, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  expect_output(print(summary(fit)), "lower end not reached")
  expect_output(print(summary(fit)), "admissible limit")
  # the mirror image: negative doses, the ERR at the upper limit +1/3
  x$neg_dose <- -x$dose
  expect_warning(mirror <- fit_err(case ~ sex, x, dose = "neg_dose"),
                 class = "epimask_warning_boundary")
  expect_equal(coef(mirror)[["neg_dose"]], 1 / 3)
  expect_equal(unname(coef(mirror)[1:2]), unname(coef(fit)[1:2]), tolerance = tol_glm)
  expect_true(mirror$profile_ci$open[["upper"]])
  expect_equal(mirror$profile_ci$lower, -ci$upper, tolerance = tol_glm)
})

test_that("a common outcome (probabilities near 1) is fitted as accurately", {
  x <- cohort[1:1500, ]
  set.seed(7)
  odds <- exp(3 + 0.5 * x$sex + 0.02 * x$age) * (1 + 0.4 * x$dose)
  x$case <- rbinom(nrow(x), 1, odds / (1 + odds))
  fit <- fit_err(case ~ sex + age, x, dose = "dose")
  z <- model.matrix(~ sex + age, x)
  ref <- err_ref_newton(c(coef(glm(case ~ sex + age, binomial, x)), 0.2), z, x$dose, x$case)
  # 1e-8: fit_err's deviance criterion on a weakly identified dose slope (the reference
  # Newton from glm's start); measured 4e-11 here, more on other seeds
  expect_equal(unname(coef(fit)), unname(ref), tolerance = 1e-8)
  expect_equal(deviance(fit), 2 * err_ref_negll(ref, z, x$dose, x$case), tolerance = tol_glm)
})

test_that("intervals may be open on either side", {
  # few cases, no case at the highest dose: the lower end is not reached
  set.seed(1)
  n <- 1000
  x <- data.frame(dose = ifelse(runif(n) < 0.6, 0, pmin(rexp(n, 2), 3)))
  x$case <- rbinom(n, 1, plogis(-3.5))
  fit <- fit_err(case ~ 1, x, dose = "dose")
  expect_false(fit$boundary)
  ci <- fit$profile_ci
  expect_true(ci$open[["lower"]])
  expect_equal(ci$lower, -1 / max(x$dose))
  near_limit <- err_ref_profile(-1 / max(x$dose) + 1e-9, case ~ 1, x, "dose")
  expect_lt(near_limit - deviance(fit), qchisq(0.95, 1))
  rise <- err_ref_profile(ci$upper, case ~ 1, x, "dose") - deviance(fit)
  expect_lt(abs(rise - qchisq(0.95, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  expect_output(print(fit), "lower end not reached")
  expect_true(attr(confint(fit), "open")["dose", "lower"])

  # only doses 1 and 2: as ERR -> Inf the odds ratio tends to 2, so the
  # profile levels off below 3.841 and the upper end is open
  set.seed(1)
  x2 <- data.frame(dose = sample(c(1, 2), 300, TRUE))
  odds <- exp(-3) * (1 + 3 * x2$dose)
  x2$case <- rbinom(300, 1, odds / (1 + odds))
  fit2 <- fit_err(case ~ 1, x2, dose = "dose")
  ci2 <- fit2$profile_ci
  expect_true(ci2$open[["upper"]])
  expect_equal(ci2$upper, Inf)
  far <- err_ref_profile(1e6, case ~ 1, x2, "dose")
  expect_lt(far - deviance(fit2), qchisq(0.95, 1))
  rise <- err_ref_profile(ci2$lower, case ~ 1, x2, "dose") - deviance(fit2)
  expect_lt(abs(rise - qchisq(0.95, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  expect_output(print(fit2), "upper end not reached")
})

test_that("binomial counts agree with the expanded Bernoulli records", {
  x <- cohort
  x$dose <- round(x$dose * 2) / 2
  x$age <- 10 * (x$age %/% 10)
  key <- interaction(x$sex, x$age, x$dose, drop = TRUE)
  agg <- data.frame(
    sex = tapply(x$sex, key, `[`, 1), age = tapply(x$age, key, `[`, 1),
    dose = tapply(x$dose, key, `[`, 1), cases = tapply(x$case, key, sum),
    n = tapply(x$case, key, length))
  agg$noncases <- agg$n - agg$cases
  f_bern <- fit_err(case ~ sex + age, x, dose = "dose")
  f_bin <- fit_err(cbind(cases, noncases) ~ sex + age, agg, dose = "dose")
  expect_equal(coef(f_bin), coef(f_bern), tolerance = tol_glm)
  expect_equal(f_bin$se, f_bern$se, tolerance = tol_glm)
  expect_equal(f_bin$lr_test$statistic, f_bern$lr_test$statistic, tolerance = tol_glm)
  expect_equal(unlist(f_bin$profile_ci[1:2]), unlist(f_bern$profile_ci[1:2]),
               tolerance = 1e-9)  # each end stops at |deviance excess| < 1e-9; measured 3e-12
  expect_equal(as.numeric(logLik(f_bin)) - as.numeric(logLik(f_bern)),
               sum(lchoose(agg$n, agg$cases)), tolerance = tol_glm)
  # the grouped deviance is glm's binomial deviance at the fitted probabilities
  g <- glm(cbind(cases, noncases) ~ sex + age + offset(log1p(coef(f_bin)[["dose"]] * dose)),
           binomial, agg, start = coef(f_bin)[1:3],
           control = glm.control(epsilon = 1e-14, maxit = 100))
  expect_equal(deviance(f_bin), deviance(g), tolerance = tol_glm)
  expect_equal(nobs(f_bin), nrow(agg))
})

test_that("prior weights act as replicated and dropped records", {
  x <- cohort[1:1500, ]
  w <- rep(c(0, 1, 2, 3), length.out = nrow(x))
  rep_x <- x[rep(seq_len(nrow(x)), w), ]
  f_w <- fit_err(case ~ sex + age, x, dose = "dose", weights = w)
  f_rep <- fit_err(case ~ sex + age, rep_x, dose = "dose")
  expect_equal(coef(f_w), coef(f_rep), tolerance = tol_glm)
  expect_equal(f_w$se, f_rep$se, tolerance = tol_glm)
  expect_equal(deviance(f_w), deviance(f_rep), tolerance = tol_glm)
  expect_equal(unlist(f_w$profile_ci[1:2]), unlist(f_rep$profile_ci[1:2]),
               tolerance = 1e-9)  # each end stops at |deviance excess| < 1e-9; measured 3e-12
  x$w <- w
  expect_equal(coef(fit_err(case ~ sex + age, x, dose = "dose", weights = "w")), coef(f_w))
  expect_equal(nobs(f_w), sum(w > 0))
  # non-integer weights: compare with the weighted explicit likelihood
  wt <- runif(nrow(x), 0.5, 1.5)
  f_wt <- fit_err(case ~ sex + age, x, dose = "dose", weights = wt)
  z <- model.matrix(~ sex + age, x)
  ref <- err_ref_newton(c(coef(glm(case ~ sex + age, quasibinomial, x, weights = wt)), 0.3),
                        z, x$dose, x$case, w = wt)
  # 1e-9: fit_err stops at a relative deviance change of 1e-10 (control eps); ~1e-10 seen over seeds
  expect_equal(unname(coef(f_wt)), unname(ref), tolerance = 1e-9)
})

test_that("logical and factor responses are the 0/1 response", {
  x <- cohort[1:1500, ]
  base <- fit_err(case ~ sex, x, dose = "dose")
  x$case_l <- x$case == 1
  x$case_f <- factor(ifelse(x$case == 1, "yes", "no"), levels = c("no", "yes"))
  expect_equal(coef(fit_err(case_l ~ sex, x, dose = "dose")), coef(base))
  expect_equal(coef(fit_err(case_f ~ sex, x, dose = "dose")), coef(base))
  expect_equal(coef(fit_err(case ~ sex, as.matrix(x[c("case", "sex", "dose")]),
                            dose = "dose")), coef(base))
})

test_that("predict gives log odds, probabilities and the ERR", {
  fit <- cohort_fit
  cf <- coef(fit)
  eta <- drop(cohort_z %*% cf[1:3]) + log1p(cf[["dose"]] * cohort$dose)
  expect_equal(unname(predict(fit)), unname(eta), tolerance = tol_exact)
  expect_equal(unname(predict(fit, type = "response")), unname(plogis(eta)), tolerance = tol_exact)
  expect_equal(unname(fitted(fit)), unname(plogis(eta)), tolerance = tol_exact)
  nd <- data.frame(sex = c(0, 1), age = c(20, 40), dose = c(0, 2))
  expect_equal(unname(predict(fit, nd, type = "err")), cf[["dose"]] * c(0, 2))
  expect_equal(unname(predict(fit, nd)),
               c(cf[[1]] + 20 * cf[[3]],
                 cf[[1]] + cf[[2]] + 40 * cf[[3]] + log1p(2 * cf[["dose"]])))
  se <- predict(fit, nd, se.fit = TRUE)$se.fit
  grad <- cbind(1, nd$sex, nd$age, nd$dose / (1 + cf[["dose"]] * nd$dose))
  expect_equal(unname(se), sqrt(rowSums((grad %*% vcov(fit)) * grad)))
  # a dose outside the admissible range has no odds
  bad <- data.frame(sex = 0, age = 20, dose = -10 / cf[["dose"]])
  expect_warning(out <- predict(fit, bad), class = "epimask_warning_range")
  expect_true(is.na(out))
})

test_that("the fast entry point reproduces fit_err", {
  fit <- cohort_fit
  fm <- epimask:::err_fit_matrix(cohort_z, cohort$dose, cohort$case)
  expect_equal(unname(fm$coefficients), unname(coef(fit)))
  expect_equal(unname(fm$se), unname(fit$se))
  expect_equal(fm$deviance, deviance(fit))
  warm <- epimask:::err_fit_matrix(cohort_z, cohort$dose, cohort$case,
                                   start = unname(coef(fit)))
  # 1e-9: fit_err stops at a relative deviance change of 1e-10 (control eps); ~1e-10 seen over seeds
  expect_equal(unname(warm$coefficients), unname(coef(fit)), tolerance = 1e-9)
  expect_lte(warm$iter, 2L)
  expect_error(epimask:::err_fit_matrix(cohort_z, cohort$dose, cohort$case,
                                        start = c(coef(fit)[1:3], -1)),
               "`start`", class = "epimask_error_value")
})

test_that("summary prints a coefficient table, the LR test and the interval", {
  s <- summary(cohort_fit)
  expect_equal(unname(s$coefficients[, "Std. Error"]), unname(cohort_fit$se))
  expect_output(print(s), "Likelihood-ratio test of ERR = 0")
  expect_output(print(s), "profile-likelihood interval")
  expect_output(print(s), "Residual deviance")
  expect_output(print(cohort_fit), "dose")
})

test_that("bad input gets classed errors naming the argument", {
  x <- cohort[1:500, ]
  expect_error(fit_err(case ~ sex, x, dose = "dosee"), "`dose`",
               class = "epimask_error_name")
  x$dose_chr <- as.character(x$dose)
  expect_error(fit_err(case ~ sex, x, dose = "dose_chr"), "`dose`",
               class = "epimask_error_type")
  x_na <- x
  x_na$dose[3] <- NA
  expect_error(fit_err(case ~ sex, x_na, dose = "dose"), "`dose`",
               class = "epimask_error_value")
  x_na <- x
  x_na$sex[3] <- NA
  expect_error(fit_err(case ~ sex, x_na, dose = "dose"), "'sex' has NA",
               class = "epimask_error_value")
  x$y3 <- x$case * 2
  expect_error(fit_err(y3 ~ sex, x, dose = "dose"), "`formula`",
               class = "epimask_error_value")
  x$neg <- -x$case
  expect_error(fit_err(cbind(neg, 1) ~ sex, x, dose = "dose"), "`formula`",
               class = "epimask_error_value")
  x$f3 <- factor(rep(c("a", "b", "c"), length.out = nrow(x)))
  expect_error(fit_err(f3 ~ sex, x, dose = "dose"), class = "epimask_error_value")
  expect_error(fit_err(case ~ sex, x, dose = "dose", weights = -rep(1, nrow(x))),
               "`weights`", class = "epimask_error_value")
  expect_error(fit_err(case ~ sex, x, dose = "dose", weights = rep(1, 3)),
               "`weights`", class = "epimask_error_length")
  expect_error(fit_err(case ~ sex, x[0, ], dose = "dose"), "`data`",
               class = "epimask_error_empty")
  x$sex2 <- 2 * x$sex
  expect_error(fit_err(case ~ sex + sex2, x, dose = "dose"), "`formula`",
               class = "epimask_error_singular")
  x$zero <- 0
  expect_error(fit_err(case ~ sex, x, dose = "zero"), "`dose`",
               class = "epimask_error_singular")
  x$nocase <- 0
  expect_error(fit_err(nocase ~ sex, x, dose = "dose"), "cases and non-cases",
               class = "epimask_error_value")
  expect_error(fit_err("case ~ sex", x, dose = "dose"), class = "epimask_error_type")
  expect_error(fit_err(case ~ sex, x, dose = 1), "`dose`", class = "epimask_error_type")
  expect_error(fit_err(case ~ sex, x, dose = "dose", control = list(maxit = 0)),
               class = "epimask_error_value")
  expect_error(confint(cohort_fit, "nope"), class = "epimask_error_name")
})

test_that("negative doses are allowed with the constraint on both sides", {
  x <- cohort[1:2000, ]
  x$dose_c <- x$dose - 0.5
  fit <- fit_err(case ~ sex + age, x, dose = "dose_c")
  z <- model.matrix(~ sex + age, x)
  ref <- err_ref_newton(c(coef(glm(case ~ sex + age, binomial, x)), 0.2), z, x$dose_c,
                        x$case)
  # 1e-9: fit_err stops at a relative deviance change of 1e-10 (control eps); ~1e-10 seen over seeds
  expect_equal(unname(coef(fit)), unname(ref), tolerance = 1e-9)
  expect_equal(unname(fit$profile_ci$limits), c(-1 / 2.5, 2))
  for (end in unlist(fit$profile_ci[c("lower", "upper")])[!fit$profile_ci$open]) {
    rise <- err_ref_profile(end, case ~ sex + age, x, "dose_c") - deviance(fit)
    expect_lt(abs(rise - qchisq(0.95, 1)), 1e-8)  # the root finder stops at |excess| < 1e-9
  }
})

test_that("separation in the log-linear part is a classed warning", {
  x <- cohort[1:1000, ]
  x$score <- (2 * x$case - 1) * runif(nrow(x), 0.1, 1)  # separates cases completely
  expect_warning(fit_err(case ~ score, x, dose = "dose"),
                 class = "epimask_warning_separation")
})

test_that("non-convergence is a classed warning", {
  expect_warning(fit_err(case ~ sex + age, cohort, dose = "dose",
                         control = list(maxit = 1)),
                 class = "epimask_warning_convergence")
})
