# fit_cox() against survival::coxph / clogit (coefficients, variances, log
# partial likelihood), against a plain-R partial likelihood written here,
# and the Cox utility of utility_glm() and ru_profile().

# the references' formulas need survival's Surv() and strata() (fit_cox
# finds them itself)
if (requireNamespace("survival", quietly = TRUE)) {
  Surv <- survival::Surv
  strata <- survival::strata
}

max_rel <- function(a, b) max(abs(unclass(a) - unclass(b)) / pmax(abs(unclass(b)), 1e-300))

expect_same_cox <- function(fit, ref) {
  skip_if_not_installed("survival")
  expect_equal(names(coef(fit)), names(coef(ref)))
  # tol_glm (1e-10) is stricter than the 1e-8 of the contract; measured 2e-13
  expect_lt(max_rel(coef(fit), coef(ref)), tol_glm)
  # the model-based variance (coxph reports a robust one for non-integer
  # weights and keeps the model-based one as naive.var)
  expect_lt(max_rel(vcov(fit), unname(ref$naive.var %||% vcov(ref))), tol_glm)
  expect_lt(max_rel(fit$loglik, ref$loglik), tol_glm)
  expect_equal(fit$nevent, ref$nevent)
}

# The log partial likelihood at beta, by risk sets in plain R: for every
# distinct event time t of a stratum, R = {start < t <= stop}, D the events
# at t; Efron: sum_D w eta - sum_{k=0}^{d-1} mean(w_D) log(S_R - k/d S_D),
# Breslow: sum_D w eta - sum(w_D) log(S_R), S = sum w exp(eta).
partial_loglik <- function(beta, x, stop, status, start = rep(-Inf, length(stop)),
                           strata = rep(1, length(stop)), w = rep(1, length(stop)),
                           ties = "efron") {
  eta <- drop(x %*% beta)
  r <- w * exp(eta)
  ll <- 0
  for (s in unique(strata)) {
    ins <- strata == s
    for (t in unique(stop[ins & status == 1])) {
      risk <- ins & start < t & stop >= t
      dead <- ins & stop == t & status == 1
      d <- sum(dead)
      ll <- ll + sum(w[dead] * eta[dead])
      if (ties == "efron") {
        for (k in 0:(d - 1)) ll <- ll - mean(w[dead]) * log(sum(r[risk]) - k / d * sum(r[dead]))
      } else {
        ll <- ll - sum(w[dead]) * log(sum(r[risk]))
      }
    }
  }
  ll
}

test_that("fit_cox equals coxph on lung (Efron and Breslow, weights)", {
  skip_if_not_installed("survival")
  lung <- shipped_data("lung", "survival")
  f <- Surv(time, status) ~ age + sex + ph.ecog + wt.loss
  for (ties in c("efron", "breslow")) {
    expect_same_cox(fit_cox(f, lung, ties = ties), survival::coxph(f, lung, ties = ties))
  }
  lung$w <- rep(c(1, 2, 0.5), length.out = nrow(lung))
  expect_same_cox(fit_cox(f, lung, weights = w),
                  survival::coxph(f, lung, weights = w))
})

test_that("fit_cox equals coxph on colon with strata and many ties", {
  skip_if_not_installed("survival")
  colon <- shipped_data("colon", "survival")
  f <- Surv(time, status) ~ rx + sex + age + obstruct + nodes + strata(etype)
  fit <- fit_cox(f, colon)
  expect_same_cox(fit, survival::coxph(f, colon))
  expect_equal(nlevels(fit$strata), 2L)
  # colon has tied event times in both strata
  expect_true(anyDuplicated(colon$time[colon$status == 1]) > 0)
})

test_that("fit_cox equals coxph on flchain and on counting-process heart data", {
  skip_if_not_installed("survival")
  fl <- shipped_data("flchain", "survival")
  f <- Surv(futime, death) ~ age + sex + kappa + lambda
  expect_same_cox(fit_cox(f, fl), survival::coxph(f, fl))
  heart <- shipped_data("heart", "survival")
  g <- Surv(start, stop, event) ~ age + year + surgery + transplant
  expect_same_cox(fit_cox(g, heart), survival::coxph(g, heart))
  expect_same_cox(fit_cox(g, heart, ties = "breslow"),
                  survival::coxph(g, heart, ties = "breslow"))
})

test_that("matched case-control sets: a stratified Cox model is clogit", {
  skip_if_not_installed("survival")
  infert <- datasets::infert
  infert$time <- 1
  fit <- fit_cox(Surv(time, case) ~ spontaneous + induced + strata(stratum), infert)
  # 1:2 matching, one case per set: exact, Efron and Breslow coincide, so
  # fit_cox equals clogit's default (exact) fit
  expect_true(all(tapply(infert$case, infert$stratum, sum) == 1))
  # (clogit(case ~ x + strata(set)) is coxph(Surv(1, case) ~ x + strata(set),
  # ties = "exact"); called here through coxph, which clogit calls unqualified)
  expect_same_cox(fit, survival::coxph(Surv(time, case) ~ spontaneous + induced + strata(stratum),
                                       infert, ties = "exact"))
  # two cases per set (sets paired): Efron and Breslow equal clogit's
  # approximations and differ from the exact likelihood
  infert$pair <- (infert$stratum + 1) %/% 2
  f <- Surv(time, case) ~ spontaneous + induced + strata(pair)
  ref_efron <- survival::coxph(f, infert, ties = "efron")
  ref_breslow <- survival::coxph(f, infert, ties = "breslow")
  expect_same_cox(fit_cox(f, infert), ref_efron)
  expect_same_cox(fit_cox(f, infert, ties = "breslow"), ref_breslow)
  exact <- survival::coxph(f, infert, ties = "exact")
  expect_gt(max_rel(coef(fit_cox(f, infert)), coef(exact)), 1e-4)
})

test_that("the log partial likelihood equals the plain-R risk-set sum", {
  skip_if_not_installed("survival")
  set.seed(5)
  n <- 60
  d <- data.frame(start = round(runif(n, 0, 3)), x1 = rnorm(n), x2 = rbinom(n, 1, 0.4),
                  s = sample(1:3, n, TRUE), w = runif(n, 0.5, 2))
  d$stop <- d$start + sample(1:4, n, TRUE)
  d$event <- rbinom(n, 1, 0.6)
  for (ties in c("efron", "breslow")) {
    fit <- fit_cox(Surv(start, stop, event) ~ x1 + x2 + strata(s), d, weights = w, ties = ties)
    x <- sweep(cbind(d$x1, d$x2), 2L, fit$means)
    expect_equal(fit$loglik[[2L]],
                 partial_loglik(coef(fit), x, d$stop, d$event, d$start, d$s, d$w, ties),
                 tolerance = tol_exact)
    expect_equal(fit$loglik[[1L]],
                 partial_loglik(c(0, 0), x, d$stop, d$event, d$start, d$s, d$w, ties),
                 tolerance = tol_exact)
    # the score vanishes at the estimate: numerical gradient of the R sum
    h <- 1e-5
    grad <- vapply(1:2, function(j) {
      e <- replace(c(0, 0), j, h)
      (partial_loglik(coef(fit) + e, x, d$stop, d$event, d$start, d$s, d$w, ties) -
         partial_loglik(coef(fit) - e, x, d$stop, d$event, d$start, d$s, d$w, ties)) / (2 * h)
    }, numeric(1))
    expect_lt(max(abs(grad)), 1e-6)
  }
})

test_that("many designs in one call equal one fit each", {
  skip_if_not_installed("survival")
  lung <- shipped_data("lung", "survival")
  lung <- lung[stats::complete.cases(lung[c("time", "status", "age", "sex")]), ]
  set.seed(3)
  masked <- lapply(1:4, function(r) transform(lung, age = age + rnorm(nrow(lung), 0, 3)))
  model <- list(formula = Surv(time, status) ~ age + sex, ties = "efron")
  many <- epimask:::cox_replicate_estimates(model, masked, "age")
  one <- vapply(masked, function(d) {
    ref <- survival::coxph(Surv(time, status) ~ age + sex, d)
    c(coef(ref)[["age"]], sqrt(vcov(ref)[1, 1]))
  }, numeric(2))
  expect_lt(max_rel(many$estimate, one[1, ]), tol_glm)
  expect_lt(max_rel(many$se, one[2, ]), tol_glm)
})

test_that("methods: summary, confint, predict, logLik, tidy, glance, format", {
  skip_if_not_installed("survival")
  lung <- shipped_data("lung", "survival")
  f <- Surv(time, status) ~ age + sex + ph.ecog
  fit <- fit_cox(f, lung)
  ref <- survival::coxph(f, lung)
  expect_equal(unname(summary(fit)$coefficients), unname(summary(ref)$coefficients),
               tolerance = tol_glm)
  expect_equal(confint(fit), confint(ref), tolerance = tol_glm)
  expect_equal(unname(predict(fit)), unname(predict(ref, type = "lp", reference = "sample")),
               tolerance = tol_glm)
  nd <- data.frame(age = c(50, 70), sex = c(1, 2), ph.ecog = c(0, 2))
  expect_equal(unname(predict(fit, nd, type = "risk")),
               unname(predict(ref, nd, type = "risk", reference = "sample")),
               tolerance = tol_glm)
  expect_equal(as.numeric(logLik(fit)), as.numeric(logLik(ref)), tolerance = tol_glm)
  expect_equal(attr(logLik(fit), "df"), 3L)
  expect_equal(nobs(fit), nobs(ref))
  td <- tidy(fit, conf.int = TRUE, exponentiate = TRUE)
  expect_equal(td$estimate, unname(exp(coef(ref))), tolerance = tol_glm)
  expect_equal(td$conf.high, unname(exp(confint(ref))[, 2]), tolerance = tol_glm)
  gl <- glance(fit)
  expect_equal(gl$statistic.log, unname(2 * diff(ref$loglik)), tolerance = tol_glm)
  expect_type(format(fit), "character")
  expect_output(print(fit), "number of events = 164")
  expect_output(print(summary(fit)), "Likelihood ratio test|likelihood ratio test")
  expect_equal(nrow(as.data.frame(fit)), 3L)
})

test_that("bad input: classed errors naming the argument", {
  skip_if_not_installed("survival")
  lung <- shipped_data("lung", "survival")
  expect_error(fit_cox(time ~ age, lung), class = "epimask_error_type")
  err <- tryCatch(fit_cox(time ~ age, lung), error = identity)
  expect_equal(err$arg, "formula")
  neg <- lung
  neg$time[1] <- -5
  err <- tryCatch(fit_cox(Surv(time, status) ~ age, neg), error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_match(conditionMessage(err), "non-negative")
  none <- lung
  none$status <- 0
  err <- tryCatch(fit_cox(Surv(time, status) ~ age, none), error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_equal(err$arg, "formula")
  expect_match(conditionMessage(err), "at least one event")
  expect_error(fit_cox(Surv(time, status) ~ nosuch, lung), class = "epimask_error_name")
  expect_error(fit_cox(Surv(time, status) ~ age, lung, ties = "exact"),
               class = "epimask_error_value")
  lung$age2 <- lung$age * 2
  expect_error(fit_cox(Surv(time, status) ~ age + age2, lung), class = "epimask_error_singular")
  err <- tryCatch(utility_glm(lung, lung, Surv(time, status) ~ age + sex, family = "cox",
                              term = "weight"), error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_equal(err$arg, "term")
  expect_error(ru_profile(lung, mask_round(0, type = "decimal"), Surv(time, status) ~ age,
                          family = "cox", term = "sex", risk = "none", progress = FALSE),
               class = "epimask_error_name")
  # the caller's data are not modified
  before <- lung
  fit_cox(Surv(time, status) ~ age, lung)
  expect_identical(lung, before)
})

test_that("utility_glm with family = \"cox\" compares coxph fits by hand", {
  skip_if_not_installed("survival")
  fl <- shipped_data("flchain", "survival")
  fl <- fl[stats::complete.cases(fl[c("futime", "death", "age", "sex", "kappa", "lambda")]),
           c("futime", "death", "age", "sex", "kappa", "lambda")]
  masked <- fl
  masked$age <- round(fl$age, -1)
  f <- Surv(futime, death) ~ age + sex + kappa + lambda
  u <- utility_glm(fl, masked, f, family = "cox", term = "age")
  ro <- survival::coxph(f, fl)
  rm <- survival::coxph(f, masked)
  se_o <- sqrt(vcov(ro)["age", "age"])
  se_m <- sqrt(vcov(rm)["age", "age"])
  bias <- coef(rm)[["age"]] - coef(ro)[["age"]]
  expect_equal(u$table$estimate_masked, coef(rm)[["age"]], tolerance = tol_glm)
  expect_equal(u$table$analysis_potential_raw, se_o^2 / (se_m^2 + bias^2), tolerance = tol_glm)
  # the reported U: the masked variance floored at the original's, at most 1
  expect_equal(u$table$analysis_potential, min(1, se_o^2 / (max(se_m^2, se_o^2) + bias^2)),
               tolerance = tol_glm)
  expect_equal(u$family, "Cox (Efron ties)")
})

test_that("ru_profile with family = \"cox\": deterministic rows equal coxph on the masked data", {
  skip_if_not_installed("survival")
  lung <- shipped_data("lung", "survival")
  lung <- lung[stats::complete.cases(lung[c("time", "status", "age", "sex", "ph.ecog")]),
               c("time", "status", "age", "sex", "ph.ecog")]
  f <- Surv(time, status) ~ age + sex + ph.ecog
  schemes <- c(list(mask_round(-1, type = "decimal")), list(mask_noise(0.2)))
  ru <- ru_profile(lung, schemes, f, family = "cox", term = "age", vars = "age",
                   risk = "none", nrep = 6, seed = 2, progress = FALSE)
  ref <- survival::coxph(f, transform(lung, age = round(age, -1)))
  row <- as.data.frame(ru)[2, ]
  expect_equal(row$estimate, coef(ref)[["age"]], tolerance = tol_glm)
  expect_equal(row$se, sqrt(vcov(ref)["age", "age"]), tolerance = tol_glm)
  reps <- replicates(ru)
  expect_equal(sum(reps$scheme == ru$scheme[3]), 6L)
  expect_true(all(is.finite(reps$estimate)))
  # the time, status and the strata variable are not masked by default
  expect_message(ru_profile(lung, mask_round(0, type = "decimal"), f, family = "cox", term = "age",
                            risk = "none", progress = FALSE), "'time', 'status' is not masked|response")
})
