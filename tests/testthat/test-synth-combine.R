# Inference from synthetic copies: the combining rules against hand formulas
# and by simulation (coverage), the CI overlap against its formula, the
# utilities (GLM, Cox) and the profile on synthetic releases, S_pMSE against
# a permutation reference fitted by glm().

test_that("the combining rules follow their formulas on a worked example", {
  q <- c(0.51, 0.47, 0.55, 0.49, 0.52)
  se <- c(0.040, 0.042, 0.039, 0.041, 0.040)
  m <- 5
  qbar <- mean(q)
  u <- mean(se^2)
  b <- sum((q - qbar)^2) / (m - 1)
  s <- combine_synthetic(q, se, "simple")
  expect_equal(s$estimate, qbar)
  expect_equal(s$se, sqrt(u * (1 + 1 / m)))
  expect_equal(c(s$lower, s$upper), qbar + c(-1, 1) * qnorm(0.975) * sqrt(u * (1 + 1 / m)))
  sp <- combine_synthetic(q, se, "simple", proper = TRUE)
  expect_equal(sp$se, sqrt(u * (1 + 2 / m)))
  # synthetic data of another size than the original (k != n): synthpop's
  # vars = u k / n, T = vars (1 + n / (k m))
  sk <- combine_synthetic(q, se, "simple", n = 1000, k = 500)
  expect_equal(sk$se, sqrt(u * 0.5 * (1 + 2 / m)))
  p <- combine_synthetic(q, se, "partial")
  expect_equal(p$se, sqrt(b / m + u))
  expect_equal(p$df, (m - 1) * (1 + u / (b / m))^2)
  expect_equal(p$upper - p$estimate, qt(0.975, p$df) * sqrt(b / m + u))
  # full: (1 + 1/m) b - u is negative here, replaced by (k/n) u (Reiter 2002)
  f <- combine_synthetic(q, se, "full")
  expect_true(f$adjusted)
  expect_equal(f$se, sqrt(u))
  q2 <- c(0.2, 0.6, 0.45, 0.9, 0.3)
  f2 <- combine_synthetic(q2, se, "full")
  b2 <- stats::var(q2)
  expect_false(f2$adjusted)
  expect_equal(f2$se, sqrt((1 + 1 / m) * b2 - u))
  expect_equal(f2$df, (m - 1) * (1 - m * u / ((m + 1) * b2))^2)
  # bad input
  expect_error(combine_synthetic(0.5, 0.1, "partial"), class = "epimask_error_value")
  expect_error(combine_synthetic(q, se[-1], "simple"), class = "epimask_error_length")
  expect_error(combine_synthetic(q, -se, "simple"), class = "epimask_error_value")
  expect_equal(combine_synthetic(0.5, 0.1)$se, sqrt(0.01 * 2))
})

# Coverage of the combined 95% interval of the slope over repeated data and
# synthesis from a correctly specified model (parametric: x by sampling,
# y | x normal linear): near 95%, within 3 binomial SEs.
synth_coverage <- function(reps, proper, vars = NULL, seed = 1) {
  set.seed(seed)
  n <- 150
  hits <- vapply(seq_len(reps), function(r) {
    d <- data.frame(x = rnorm(n))
    d$y <- 1 + 0.5 * d$x + rnorm(n)
    syn <- suppressWarnings(apply_mask(d, mask_synth(method = "parametric", m = 5, proper = proper),
                                       vars = vars))
    tab <- fit_synthetic(syn, y ~ x)$table
    tab$lower <= 0.5 && 0.5 <= tab$upper
  }, logical(1))
  mean(hits)
}

test_that("the combined 95% intervals cover the truth about 95% of the time (simple and partial rules)", {
  reps <- 300
  tol <- 3 * sqrt(0.95 * 0.05 / reps)
  expect_lt(abs(synth_coverage(reps, proper = FALSE) - 0.95), tol)
  expect_lt(abs(synth_coverage(reps, proper = TRUE, seed = 2) - 0.95), tol)
  expect_lt(abs(synth_coverage(reps, proper = TRUE, vars = "y", seed = 3) - 0.95), tol)
  # the simple rule's variance ignores the extra variance of proper draws:
  # the non-proper formula on proper copies undercovers
  set.seed(4)
  n <- 150
  miss <- vapply(seq_len(200), function(r) {
    d <- data.frame(x = rnorm(n))
    d$y <- 1 + 0.5 * d$x + rnorm(n)
    syn <- suppressWarnings(apply_mask(d, mask_synth(method = "parametric", m = 2, proper = TRUE)))
    per <- fit_synthetic(syn, y ~ x)$copies
    per <- per[per$term == "x", ]
    wrong <- combine_synthetic(per$estimate, per$se, "simple", proper = FALSE)
    wrong$lower <= 0.5 && 0.5 <= wrong$upper
  }, logical(1))
  expect_lt(mean(miss), 0.95 - 3 * sqrt(0.95 * 0.05 / 200) + 0.03)
})

test_that("utility_glm() on a synthetic release: combined fits, CI overlap by its formula", {
  set.seed(5)
  n <- 300
  d <- data.frame(x = rnorm(n), g = factor(sample(c("a", "b"), n, TRUE)))
  d$y <- rbinom(n, 1, plogis(-0.3 + 0.8 * d$x + 0.5 * (d$g == "b")))
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 4)))
  u <- utility_glm(d, syn, y ~ x + g, family = binomial())
  expect_s3_class(u, "epimask_utility_synthetic")
  tab <- u$table
  # per-copy fits by glm(), combined by hand with the simple rule (proper)
  per <- t(vapply(unclass(syn), function(cp) {
    f <- summary(glm(y ~ x + g, binomial(), cp))$coefficients
    c(f["x", 1:2], f["gb", 1:2])
  }, numeric(4)))
  ref <- glm(y ~ x + g, binomial(), d)
  for (j in 1:2) {
    est <- per[, 2 * j - 1]
    se <- per[, 2 * j]
    expect_equal(tab$estimate_masked[[j]], mean(est), tolerance = 1e-8)
    T <- mean(se^2) * (1 + 2 / 4)
    expect_equal(tab$se_masked[[j]], sqrt(T), tolerance = 1e-8)
    lo <- mean(est) - qnorm(0.975) * sqrt(T)
    hi <- mean(est) + qnorm(0.975) * sqrt(T)
    bo <- coef(ref)[[j + 1L]]
    so <- sqrt(diag(vcov(ref)))[[j + 1L]]
    lo_o <- bo - qnorm(0.975) * so
    hi_o <- bo + qnorm(0.975) * so
    inter <- max(0, min(hi, hi_o) - max(lo, lo_o))
    expect_equal(tab$ci_overlap[[j]], (inter / (hi_o - lo_o) + inter / (hi - lo)) / 2, tolerance = 1e-8)
    expect_equal(tab$bias[[j]], mean(est) - bo, tolerance = 1e-8)
  }
  expect_identical(tab$rule, c("simple", "simple"))
  expect_match(format(u)[[1L]], "synthetic release \\(4 copies\\)")
  # partially synthetic: Reiter's rule, t interval in the overlap
  p <- suppressWarnings(apply_mask(d, mask_synth(m = 4, method = "parametric"), vars = "y"))
  up <- utility_glm(d, p, y ~ x + g, family = binomial(), term = "x")
  per_p <- vapply(unclass(p), function(cp) summary(glm(y ~ x + g, binomial(), cp))$coefficients["x", 1:2],
                  numeric(2))
  b <- stats::var(per_p[1, ])
  uu <- mean(per_p[2, ]^2)
  expect_equal(up$table$se_masked, sqrt(b / 4 + uu), tolerance = 1e-8)
  expect_equal(up$table$df, 3 * (1 + uu / (b / 4))^2, tolerance = 1e-8)
  half <- qt(0.975, up$table$df) * sqrt(b / 4 + uu)
  bo <- coef(ref)[["x"]]
  so <- sqrt(diag(vcov(ref)))[["x"]]
  inter <- max(0, min(mean(per_p[1, ]) + half, bo + 1.959964 * so) -
                  max(mean(per_p[1, ]) - half, bo - 1.959964 * so))
  expect_equal(up$table$ci_overlap, (inter / (2 * qnorm(0.975) * so) + inter / (2 * half)) / 2,
               tolerance = 1e-6)
})

test_that("the Cox utility takes synthetic copies (survival::coxph per copy as reference)", {
  lung <- survival::lung[c("time", "status", "age", "sex")]
  lung <- lung[stats::complete.cases(lung), ]
  set.seed(6)
  syn <- suppressWarnings(apply_mask(lung, mask_synth(m = 3)))
  u <- utility_glm(lung, syn, Surv(time, status) ~ age + sex, family = "cox", term = "age")
  est <- vapply(unclass(syn), function(cp) {
    f <- survival::coxph(survival::Surv(time, status) ~ age + sex, cp)
    c(coef(f)[["age"]], sqrt(vcov(f)["age", "age"]))
  }, numeric(2))
  expect_equal(u$table$estimate_masked, mean(est[1, ]), tolerance = 1e-7)
  expect_equal(u$table$se_masked, sqrt(mean(est[2, ]^2) * (1 + 2 / 3)), tolerance = 1e-7)
})

test_that("a profile combines each synthetic replicate; risk functions see the release", {
  set.seed(7)
  n <- 250
  d <- data.frame(age = sample(20:80, n, TRUE), sex = factor(sample(c("f", "m"), n, TRUE)))
  d$sbp <- round(100 + 0.5 * d$age + 5 * (d$sex == "m") + rnorm(n, 0, 8))
  set.seed(8)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 3)))
  job <- list(model = epimask:::resolve_model(gaussian(), "age", sbp ~ age + sex), term = "age",
              derive = NULL)
  got <- epimask:::replicate_estimate(job, syn)
  want <- fit_synthetic(syn, sbp ~ age + sex)$table
  expect_equal(as.double(got), c(want$estimate[want$term == "age"], want$se[want$term == "age"]))
  expect_identical(attr(got, "records")[["used"]], 3L * nrow(d))
  seen <- NULL
  risk <- function(original, release) {
    seen <<- class(release)
    criterion_evaluate(replicated_uniques(keys = c("age", "sex")), release, original)$value
  }
  ru <- ru_profile(d, c(mask_round(-1, "decimal"), mask_synth(m = 2, vars = names(d))),
                   sbp ~ age + sex, vars = "age", term = "age", risk = risk, seed = 3,
                   progress = FALSE)
  expect_identical(seen, "epimask_synthetic")
  row <- ru[grepl("synthesis", ru$scheme), ]
  expect_true(is.finite(row$estimate) && is.finite(row$se) && is.finite(row$risk))
  expect_true(is.finite(row$unmasked))
  expect_true(row$ci_overlap > 0 && row$ci_overlap <= 1)
  expect_warning(ru_profile(d, mask_synth(m = 2, vars = names(d)), sbp ~ age + sex, vars = "age",
                            term = "age", risk = avg_risk(NA, strict = TRUE, keys = "sex"), seed = 3,
                            progress = FALSE), class = "epimask_warning_synth_risk")
})

test_that("utility_general() averages the copies; S_pMSE against a glm() permutation reference", {
  set.seed(9)
  n <- 200
  d <- data.frame(x = rnorm(n), z = rnorm(n))
  m <- apply_mask(d, mask_noise(0.5), vars = c("x", "z"))
  set.seed(10)
  u <- utility_general(d, m, measures = c("pmse", "spmse"), nperm = 20)
  stacked <- rbind(d, m)
  stacked$t <- rep(0:1, each = n)
  stacked[c("x", "z")] <- scale(stacked[c("x", "z")], center = colMeans(d), scale = sapply(d, sd))
  form <- t ~ x + z + I(x^2) + I(z^2) + x:z
  pm <- mean((fitted(glm(form, binomial(), stacked)) - 0.5)^2)
  set.seed(10)
  perm <- vapply(1:20, function(i) {
    s <- stacked
    s$t <- sample(s$t)
    mean((fitted(suppressWarnings(glm(form, binomial(), s))) - 0.5)^2)
  }, numeric(1))
  expect_equal(u$pmse[["pmse"]], pm, tolerance = 1e-7)
  expect_equal(u$pmse[["spmse"]], pm / (mean(perm) / 2), tolerance = 1e-6)
  # a synthetic release: the mean of the copies' measures
  set.seed(11)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 3, method = "parametric")))
  us <- utility_general(d, syn, measures = c("pmse", "ks"))
  each <- lapply(unclass(syn), function(cp) utility_general(d, cp, measures = c("pmse", "ks")))
  expect_equal(us$pmse[["pmse"]], mean(vapply(each, function(e) e$pmse[["pmse"]], 1)))
  expect_equal(us$ks_max, mean(vapply(each, `[[`, 1, "ks_max")))
  expect_identical(us$copies, 3L)
  expect_match(format(us)[[1L]], "synthetic release, mean over 3 copies")
  expect_true(is.na(utility_general(d, syn, measures = c("ks", "il1s"))$il1s))
})
