# Population uniqueness (methods vignette section 21). References: ARX's unit tests on Adult
# (arx-deidentifier/arx, src/test/.../TestRiskMetrics.java, testDecisionRule2),
# the likelihood and moment equations written out below, and a simulated
# population whose uniques are counted.

# The class-size histogram of Adult (the 30,162 complete records of
# /work/shared/data/adult.csv, as in ARX's data/adult.csv) on ARX's 9
# quasi-identifiers age, sex, race, marital-status, education,
# native-country, workclass, occupation, income; made by
#   d <- read.csv("adult.csv", check.names = FALSE)
#   f <- table(do.call(paste, c(d[keys], sep = "\r")))
#   table(as.integer(f))
# (19,502 classes, 15,512 sample uniques). The data are not shipped; a data
# set with one key column and these class sizes has the same histogram.
adult_hist <- list(
  size = c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
           23, 24, 25, 26, 27, 29, 30, 32, 34, 35, 36, 45),
  count = c(15512, 2098, 754, 375, 189, 155, 97, 73, 39, 37, 29, 18, 23, 14, 15, 9, 11, 10,
            10, 5, 3, 4, 3, 2, 1, 3, 5, 1, 2, 1, 1, 1, 1, 1))
data_from_hist <- function(h) {
  sizes <- rep(h$size, h$count)
  data.frame(class = rep(seq_along(sizes), sizes))
}
adult_classes <- data_from_hist(adult_hist)

test_that("the Adult fixture has ARX's sample: 30,162 records, 19,502 classes, 15,512 uniques", {
  expect_equal(nrow(adult_classes), 30162L)
  r <- risk_population(adult_classes, "class", pi = 0.1)
  expect_equal(r$classes, 19502)
  expect_equal(r$sample_uniques, 15512)
  expect_equal(r$N, 301620)
})

# ARX's figures are the doubles its tests print (its assertions compare 4
# decimals). Our Newton iterates to a relative step of 1e-12 and ARX's solver
# to an accuracy of 1e-9 on the likelihood equations (its default
# ARXSolverConfiguration), so the shares agree to ~1e-10; 1e-9 relative is
# the solver accuracy ARX states, not a loosened tolerance.
tol_arx <- 1e-9

test_that("ARX's unit-test figures on Adult are reproduced (Pitman, Zayatz, Dankar's rule)", {
  r01 <- risk_population(adult_classes, "class", pi = 0.01)
  expect_equal(r01$used, "pitman")
  expect_equal(r01$share, 0.1446083531167384, tolerance = tol_arx)
  r1 <- risk_population(adult_classes, "class", pi = 0.1)
  expect_equal(r1$used, "pitman")
  expect_equal(r1$share, 0.27684993883653597, tolerance = tol_arx)
  # ARX's alternative branch of the same test: Zayatz at 0.1
  expect_equal(risk_population(adult_classes, "class", pi = 0.1, model = "zayatz")$share,
               0.3207402393466189, tolerance = tol_arx)
  r100 <- risk_population(adult_classes, "class", pi = 1)
  expect_equal(r100$used, "zayatz")
  expect_equal(r100$share, 0.5142895033485844, tolerance = tol_arx)
  # at pi = 1 Zayatz is exact: every sample unique is a population unique
  expect_equal(r100$uniques, 15512, tolerance = tol_exact)
})

test_that("at pi = 0.2 ARX's SNB fails (its slips) and the corrected SNB changes 0.3577", {
  arx <- risk_population(adult_classes, "class", pi = 0.2, arx = TRUE)
  expect_equal(arx$used, "zayatz")
  expect_equal(arx$share, 0.3577099234829125, tolerance = tol_arx)
  expect_false(arx$estimates$converged[arx$estimates$model == "snb"])
  fixed <- risk_population(adult_classes, "class", pi = 0.2)
  expect_equal(fixed$used, "snb")
  # methods vignette section 21: "the corrected SNB gives about 0.3195"
  expect_equal(round(fixed$share, 4), 0.3195)
  expect_lt(fixed$share, arx$share)
})

test_that("Pitman is the maximum of the Ewens-Pitman likelihood written out (optim)", {
  j <- rep(adult_hist$size, adult_hist$count)   # one entry per class
  n <- sum(j); u <- length(j)
  negll <- function(p) {
    th <- p[1]; a <- p[2]
    ll <- 0
    for (i in 1:(u - 1)) ll <- ll + log(th + i * a)
    ll <- ll - sum(log(th + 1:(n - 1)))
    for (size in j[j > 1]) ll <- ll + sum(log(seq_len(size - 1) - a))
    -ll
  }
  o <- optim(c(3000, 0.7), negll, method = "L-BFGS-B", lower = c(1, 0.01), upper = c(1e5, 0.99),
             control = list(factr = 1, parscale = c(1000, 0.1)))
  r <- risk_population(adult_classes, "class", pi = 0.01, model = "pitman")
  # L-BFGS-B stops on a relative change of the objective (~1e-15 of 1e5):
  # the flat direction of the likelihood leaves ~1e-6 relative on theta
  expect_equal(unname(r$params$pitman[["theta"]]), o$par[1], tolerance = 1e-5)
  expect_equal(unname(r$params$pitman[["alpha"]]), o$par[2], tolerance = 1e-5)
  N <- round(n / 0.01)
  th <- r$params$pitman[["theta"]]; a <- r$params$pitman[["alpha"]]
  expect_equal(r$uniques, exp(lgamma(th + 1) - lgamma(th + a)) * N^a, tolerance = tol_exact)
})

test_that("Zayatz and SNB satisfy the published formulas written out", {
  h <- adult_hist
  n <- sum(h$size * h$count); N <- round(n / 0.3); q <- n / N
  # P(X = 1) = j C(N - j, n - 1) / C(N, n) = j n prod_{i < j - 1}(N - n - i) / prod_{i < j}(N - i)
  P <- vapply(h$size, function(jj)
    jj * n * prod(N - n - seq_len(jj - 1) + 1) / prod(N - seq_len(jj) + 1), 1)
  zay <- h$count[1]^2 / sum(h$count * P)
  r <- risk_population(adult_classes, "class", pi = 0.3, model = "snb")
  expect_equal(r$estimates$uniques[r$estimates$model == "zayatz"], zay, tolerance = tol_exact)
  # K: the number of population classes of Chen & Keller-McNulty
  cj <- h$count; jj <- h$size; u <- sum(cj); c1 <- cj[1]; c2 <- cj[2]
  K <- u + c1 * sum(jj * q^2 * (1 - q^2)^(jj - 1) * cj) / sum((1 - q)^jj * ((1 + q)^jj - 1) * cj) *
    (sum((1 - q)^jj * cj) / sum(jj * q * (1 - q)^(jj - 1) * cj))^2
  expect_equal(unname(r$params$snb[["K"]]), K, tolerance = tol_exact)
  a <- r$params$snb[["alpha"]]; b <- r$params$snb[["beta"]]
  D <- (1 - q) * (1 - b)
  Ec1 <- K * q * (b / (1 - D))^a * (1 + a * D / (1 - D))
  Ec2 <- K * q^2 * a * b^a * (1 - b) * (2 - (1 - a) * D) / (2 * (1 - D)^(a + 2))
  # the root is iterated to relative residuals below 1e-12 (1e-9 accepted)
  expect_equal(Ec1, c1, tolerance = 1e-9)
  expect_equal(Ec2, c2, tolerance = 1e-9)
  expect_gt(a, 0); expect_gt(b, 0); expect_lt(b, 1)
  expect_equal(r$uniques, K * b^a, tolerance = tol_exact)
})

test_that("no sample uniques: every model gives 0", {
  d <- data.frame(k = rep(1:50, each = 3))
  r <- risk_population(d, "k", pi = 0.1)
  expect_equal(r$uniques, 0)
  expect_equal(r$estimates$uniques, rep(0, 4))
})

# A population with known uniques. Five keys with skewed marginals (as in
# inst/bench/bench-population.R, smaller); 10 samples at each fraction.
sim_population <- function(N, seed) {
  set.seed(seed)
  zipf <- function(m, s) { p <- 1 / seq_len(m)^s; p / sum(p) }
  age <- sample.int(80, N, replace = TRUE, prob = zipf(80, 0.3))
  data.frame(age = age, sex = ifelse(runif(N) < plogis((age - 40) / 20), 1L, 2L),
             region = sample.int(40, N, replace = TRUE, prob = zipf(40, 1.1)),
             job = sample.int(60, N, replace = TRUE, prob = zipf(60, 1.2)))
}

test_that("simulation: estimates against the true number of population uniques", {
  keys <- c("age", "sex", "region", "job")
  pop <- sim_population(20000, 27)
  truth <- sum(table(do.call(paste, pop[keys])) == 1)
  set.seed(2027)
  bias <- sapply(c(0.05, 0.2, 0.5), function(f) {
    est <- replicate(10, {
      s <- pop[sample.int(nrow(pop), round(f * nrow(pop))), ]
      e <- suppressWarnings(risk_population(s, keys, pi = f))$estimates
      setNames(e$uniques, e$model)
    })
    rowMeans(est, na.rm = TRUE) / truth - 1
  })
  colnames(bias) <- c("0.05", "0.2", "0.5")
  # Measured (this seed, 10 samples a fraction): Dankar 0.020, 0.093, 0.016
  # (SD over samples 0.15, 0.020, 0.009, so SEs of the means 0.048, 0.006,
  # 0.003); Zayatz 0.557, 0.200, 0.042. The bound 0.2 is the largest measured
  # Dankar bias plus more than 3 SEs at every fraction; an estimator as far
  # off as Zayatz at 0.05 fails it.
  expect_true(all(abs(bias["dankar", ]) < 0.2))
  # Zayatz assumes the population classes have the sample's sizes: it
  # overestimates at small fractions and approaches the truth as pi grows
  expect_gt(bias["zayatz", "0.05"], 0.3)
  expect_true(all(diff(bias["zayatz", ]) < 0))
  expect_lt(abs(bias["zayatz", "0.5"]), 0.1)
})

test_that("bad input: classed errors and warnings", {
  d <- data_from_hist(list(size = c(1, 2, 3), count = c(30, 10, 5)))
  for (bad in list(0, -0.1, 1.5, NA_real_, Inf))
    expect_error(risk_population(d, "class", pi = bad), class = "epimask_error_fraction")
  expect_error(risk_population(d, "class", pi = "a"), class = "epimask_error_type")
  expect_error(population_model(0.1, model = "nope"), class = "epimask_error_value")
  expect_error(risk_population(d, "nope", pi = 0.1), class = "epimask_error")
  # SNB is undefined for a census: NA with the reason and a classed warning
  expect_warning(r <- risk_population(d, "class", pi = 1, model = "snb"),
                 class = "epimask_warning_convergence")
  expect_true(is.na(r$uniques))
  expect_match(r$reason, "census")
  # all records unique: Pitman has no maximum
  expect_warning(r <- risk_population(data.frame(k = 1:40), "k", pi = 0.1, model = "pitman"),
                 class = "epimask_warning_convergence")
  expect_true(is.na(r$share))
  expect_false(r$converged)
  # the Dankar rule falls back to Zayatz there, without a warning
  expect_no_warning(r2 <- risk_population(data.frame(k = 1:40), "k", pi = 0.1))
  expect_equal(r2$used, "zayatz")
})

test_that("population_model() carries pi, model and arx into risk_population()", {
  pm <- population_model(0.2, "zayatz")
  expect_s3_class(pm, "epimask_population_model")
  expect_match(format(pm), "0.2")
  r <- risk_population(adult_classes, "class", pm)
  expect_equal(r$model, "zayatz")
  expect_equal(r$share, 0.3577099234829125, tolerance = tol_arx)
  expect_output(print(pm), "population model")
})

test_that("methods: print, format, summary, as.data.frame, tidy, glance, plot", {
  r <- risk_population(adult_classes, "class", pi = 0.1)
  out <- format(r)
  expect_type(out, "character")
  expect_match(out[4], "rule picked pitman")
  expect_output(print(r), "population uniqueness")
  expect_output(print(summary(r)), "Fitted parameters")
  df <- as.data.frame(r)
  expect_equal(df$model, c("dankar", "pitman", "zayatz", "snb"))
  expect_equal(tidy(r), df)
  g <- glance(r)
  expect_equal(g$share, r$share)
  png(f <- tempfile(fileext = ".png"))
  expect_invisible(plot(r))
  dev.off()
  expect_true(file.exists(f))
})

test_that("risk_spec(\"population\") and risk_release(uniqueness = )", {
  v <- deprecated(risk_value(risk_spec("population", keys = "class", pi = 0.1), adult_classes, adult_classes))
  expect_equal(v, 0.27684993883653597, tolerance = tol_arx)
  expect_error(deprecated(risk_value(risk_spec("population", keys = "class"), adult_classes, adult_classes)),
               class = "epimask_error_value")
  ctx <- release_context(public = TRUE)
  rr <- risk_release(adult_classes, "class", ctx, uniqueness = population_model(0.01))
  expect_equal(rr$attacks$pr_reid_given, 0.1446083531167384, tolerance = tol_arx)
  expect_match(rr$attacks$attack, "population uniques, pitman")
  expect_equal(risk_release(adult_classes, "class", ctx)$attacks$pr_reid_given, 1)
  expect_error(risk_release(adult_classes, "class", release_context(pr_attempt = 0.3),
                            uniqueness = population_model(0.01)), class = "epimask_error_value")
  expect_error(risk_release(adult_classes, "class", ctx, uniqueness = 0.1),
               class = "epimask_error_type")
})

test_that("compare = FALSE fits only what the answer needs, with the same answer", {
  for (m in c("dankar", "pitman", "zayatz", "snb")) for (pi in c(0.05, 0.3)) {
    full <- risk_population(adult_classes, "class", pi = pi, model = m)
    lean <- risk_population(adult_classes, "class", pi = pi, model = m, compare = FALSE)
    expect_identical(lean$uniques, full$uniques)
    expect_identical(lean$used, full$used)
  }
  lean <- risk_population(adult_classes, "class", pi = 0.05, model = "zayatz", compare = FALSE)
  expect_equal(sum(lean$estimates$converged), 1L)
  expect_match(lean$estimates$reason[lean$estimates$model == "snb"], "not computed")
})

test_that("Pitman with alpha < 0: the interior root of the likelihood equations", {
  # uniform draws from 5,000 cells: a finite table, so the fitted alpha is negative
  set.seed(1)
  d <- data.frame(k = sample.int(5000, 2000, TRUE))
  r <- risk_population(d, "k", pi = 0.05, model = "pitman")
  th <- r$params$pitman[["theta"]]; a <- r$params$pitman[["alpha"]]
  expect_lt(a, 0)
  j <- rep(r$histogram$size, r$histogram$count)
  n <- sum(j); u <- length(j); i <- seq_len(u - 1)
  # interior: theta + i alpha > 0 for every i < u (ARX's solver can end where this fails)
  expect_gt(th + (u - 1) * a, 0)
  # the likelihood equations written out, at the estimate
  l_terms <- unlist(lapply(j[j > 1], function(s) seq_len(s - 1)))
  g_theta <- sum(1 / (th + i * a)) - sum(1 / (th + seq_len(n - 1)))
  g_alpha <- sum(i / (th + i * a)) - sum(1 / (l_terms - a))
  # relative to the size of the sums (each ~ u / theta, u): Newton leaves ~1e-14
  expect_lt(abs(g_theta) / sum(1 / (th + seq_len(n - 1))), 1e-8)
  expect_lt(abs(g_alpha) / sum(i / (th + i * a)), 1e-8)
  # a maximum: the Hessian written out is negative definite
  s2 <- (th + i * a)^2
  H <- matrix(c(-sum(1 / s2) + sum(1 / (th + seq_len(n - 1))^2), -sum(i / s2),
                -sum(i / s2), -sum(i^2 / s2) - sum(1 / (l_terms - a)^2)), 2)
  expect_true(all(eigen(H, symmetric = TRUE)$values < 0))
})
