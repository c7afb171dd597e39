# Log-linear risk (methods vignette section 22). References written here: the full key table
# built with expand.grid() and merge(), glm(family = poisson) fits, tau1 and
# tau2 summed by hand; sdcMicro's own test values (tests/testthat/
# test_modRisks.R of sdcTools/sdcMicro) on its scale; the Poisson series for
# E(1 / F | f).

# A sample with three keys and unequal weights.
ll_data <- function(n = 400, seed = 11) {
  set.seed(seed)
  data.frame(age = sample(c("20-39", "40-59", "60+"), n, TRUE, prob = c(0.5, 0.35, 0.15)),
             sex = sample(c("F", "M"), n, TRUE),
             region = sample(letters[1:8], n, TRUE, prob = c(8:1) / 36),
             job = sample(c("a", "b", "c", "d", "e"), n, TRUE, prob = c(0.4, 0.3, 0.15, 0.1, 0.05)),
             w = round(runif(n, 5, 60), 1), stringsAsFactors = FALSE)
}

# The table by hand: every combination of observed values, counts and weight
# sums merged in, zero where no record.
by_hand_table <- function(d, keys) {
  grid <- expand.grid(lapply(d[keys], function(x) sort(unique(x))), stringsAsFactors = FALSE)
  agg <- aggregate(list(f = rep(1, nrow(d)), W = d$w), d[keys], sum)
  tab <- merge(grid, agg, all.x = TRUE)
  tab$f[is.na(tab$f)] <- 0
  tab$W[is.na(tab$W)] <- 0
  for (k in keys) tab[[k]] <- factor(tab[[k]])
  tab
}

taus_by_hand <- function(tab, mu) {
  u <- tab$f == 1
  pik <- tab$f[u] / tab$W[u]
  v <- (1 - pik) * mu[u] / pik
  c(tau1 = sum(exp(-v)), tau2 = sum((1 - exp(-v)) / v))
}

test_that("tau1 and tau2 equal the sums from a glm(poisson) fit of the full table", {
  d <- ll_data()
  keys <- c("age", "sex", "region", "job")
  tab <- by_hand_table(d, keys)
  fit <- glm(f ~ age + sex + region + job, family = poisson, data = tab)
  ref <- taus_by_hand(tab, fitted(fit))
  r <- risk_loglinear(d, keys, weights = "w")
  expect_equal(r$n_cells, 3 * 2 * 8 * 5)
  expect_equal(r$sample_uniques, sum(tab$f == 1))
  expect_equal(c(tau1 = r$tau1, tau2 = r$tau2), ref, tolerance = tol_glm)
  # with interactions
  fit2 <- glm(f ~ age * sex + region + job, family = poisson, data = tab)
  r2 <- risk_loglinear(d, keys, weights = "w", formula = ~ age * sex + region + job)
  expect_equal(c(tau1 = r2$tau1, tau2 = r2$tau2), taus_by_hand(tab, fitted(fit2)), tolerance = tol_glm)
  # the fitted table itself, cell by cell
  m <- merge(r$cells[c(keys, "mu")], cbind(tab[keys], mu_glm = fitted(fit)))
  expect_equal(m$mu, m$mu_glm, tolerance = tol_glm)
})

test_that("CE and PML are the glm fits with sdcMicro's offset and pseudo-counts", {
  d <- ll_data()
  keys <- c("age", "sex", "region")
  tab <- by_hand_table(d, keys)
  ce_off <- log(ifelse(tab$W > 0, tab$f / tab$W, 0) + 0.1)
  fit_ce <- glm(f ~ age + sex + region + offset(ce_off), family = poisson, data = tab)
  r_ce <- risk_loglinear(d, keys, weights = "w", method = "CE")
  expect_equal(c(tau1 = r_ce$tau1, tau2 = r_ce$tau2), taus_by_hand(tab, fitted(fit_ce)),
               tolerance = tol_glm)
  tab$pml <- round(tab$W * nrow(d) / sum(tab$W))
  fit_pml <- glm(pml ~ age + sex + region, family = poisson, data = tab)
  r_pml <- risk_loglinear(d, keys, weights = "w", method = "PML")
  expect_equal(c(tau1 = r_pml$tau1, tau2 = r_pml$tau2), taus_by_hand(tab, fitted(fit_pml)),
               tolerance = tol_glm)
})

test_that("IPF gives the maximum likelihood fit of the same hierarchical model", {
  d <- ll_data()
  keys <- c("age", "sex", "region", "job")
  a <- risk_loglinear(d, keys, weights = "w")
  b <- risk_loglinear(d, keys, weights = "w", method = "IPF")
  # IPF stops when every margin matches to 1e-10 of n; IRLS converges
  # quadratically: the fitted counts agree to ~1e-12 relative
  expect_equal(b$cells$mu, a$cells$mu, tolerance = tol_glm)
  f <- ~ age * sex + region * job
  # a region x job margin of the data is empty: the IRLS fit says that its
  # interaction's estimate is infinite (the fitted counts are still the MLE)
  expect_warning(a2 <- risk_loglinear(d, keys, weights = "w", formula = f),
                 class = "epimask_warning_separation")
  b2 <- risk_loglinear(d, keys, weights = "w", formula = f, method = "IPF")
  expect_equal(b2$cells$mu, a2$cells$mu, tolerance = 1e-8)  # IPF's margin tolerance 1e-10 * n
  expect_equal(b2$tau1, a2$tau1, tolerance = 1e-8)
})

test_that("a sampling fraction without weights; a census gives tau1 = sample uniques", {
  d <- ll_data()
  keys <- c("age", "sex", "region")
  tab <- by_hand_table(d, keys)
  fit <- glm(f ~ age + sex + region, family = poisson, data = tab)
  u <- tab$f == 1
  v <- (1 - 0.05) * fitted(fit)[u] / 0.05
  r <- risk_loglinear(d, keys, pi = 0.05)
  expect_equal(r$tau1, sum(exp(-v)), tolerance = tol_glm)
  expect_equal(r$tau2, sum(-expm1(-v) / v), tolerance = tol_glm)
  census <- risk_loglinear(d, keys)
  expect_equal(census$tau1, sum(u))
  expect_equal(census$tau2, sum(u))
})

test_that("per-record risks: P(F = 1 | f) and E(1 / F | f) against the Poisson series", {
  d <- ll_data()
  keys <- c("age", "sex", "region", "job")
  r <- risk_loglinear(d, keys, weights = "w")
  pr <- r$per_record
  expect_equal(nrow(pr), nrow(d))
  cells <- r$cells
  v <- cells$v[pr$cell]
  expect_equal(pr$unique_prob, ifelse(pr$f == 1, exp(-v), 0), tolerance = tol_exact)
  series <- function(f, v) {
    x <- 0:(ceiling(v + 40 * sqrt(v + 1) + 100))
    sum(dpois(x, v) / (f + x))
  }
  ref <- mapply(series, pr$f, v)
  expect_equal(pr$match_prob, ref, tolerance = 1e-13)
  expect_equal(sum(pr$match_prob[pr$f == 1]), r$tau2, tolerance = tol_exact)
  # the C series over a range of f and v, including v large (no underflow)
  f <- c(1, 2, 3, 7, 40, 2, 5, 100, 3, 1)
  v <- c(0, 0.3, 5, 2, 100, 800, 1e4, 50, 1e-9, 1e3)
  ref2 <- mapply(series, f, v)
  got2 <- match_prob_poisson(f, v)
  expect_equal(got2, ref2, tolerance = 1e-13)
})

test_that("E(1 / F | f) for very large Poisson means, against the integral form", {
  # E(1 / (f + X)) = int_0^1 t^(f - 1) exp(-v (1 - t)) dt, X ~ Poisson(v):
  # with u = v (1 - t), (1 / v) int_0^v (1 - u / v)^(f - 1) exp(-u) du,
  # by quadrature (exp(-u) is 0 in double beyond u = 746)
  integral <- function(f, v) {
    g <- function(u) (1 - u / v)^(f - 1) * exp(-u)
    stats::integrate(g, 0, min(v, 746), rel.tol = 1e-13, subdivisions = 1000L)$value / v
  }
  f <- c(2, 3, 7, 2, 5, 40, 2, 3, 2, 9, 2)
  # around the switch from the series to the expansion (1e5), then far
  # beyond: the former series lost digits at 1e12 (its mode probability) and
  # never ended past 2^53 (x + 1 == x)
  v <- c(9.9e4, 1e5, 1.01e5, 3e6, 1e9, 1e9, 1e12, 1e15, 1e17, 1e17, 1e300)
  ref <- mapply(integral, f, v)
  expect_equal(match_prob_poisson(f, v), ref, tolerance = 1e-13)
  expect_true(all(match_prob_poisson(f, v) <= 1 / v))
})

test_that("sdcMicro's test values are reproduced on its scale", {
  # sdcMicro tests/testthat/test_modRisks.R, data frame without missing values
  set.seed(123)
  sample_Data <- round(runif(10, 1, 3), digits = 0)
  sample_Data <- cbind(sample_Data, round(runif(10, 1, 2), digits = 0))
  sample_Data <- cbind(sample_Data, round(runif(10, 1, 5), digits = 0))
  sample_Data <- cbind(sample_Data, round(runif(10, 100, 100), digits = 0))
  sample_Data <- as.data.frame(sample_Data)
  colnames(sample_Data) <- c("Var1", "Var2", "Var3", "weights")
  for (i in 1:3) sample_Data[, i] <- as.factor(sample_Data[, i])
  k <- c("Var1", "Var2", "Var3")
  s <- function(method, bound = Inf)
    risk_loglinear(sample_Data, k, weights = "weights", method = method, scale = "sdcmicro",
                   bound = bound)
  # sdcMicro's expectations are rounded to 3 decimals (IPF: 6 and 7)
  expect_equal(round(c(s("default")$tau1, s("default")$tau2), 3), c(0.553, 0.705))
  expect_equal(round(c(s("CE")$tau1, s("CE")$tau2), 3), c(0.542, 0.699))
  expect_equal(round(c(s("PML")$tau1, s("PML")$tau2), 3), c(0.553, 0.705))
  expect_equal(round(s("IPF")$tau1, 6), 0.552916)
  expect_equal(round(s("IPF")$tau2, 7), 0.7053842)
  expect_equal(round(c(s("default", 1.5)$tau1, s("default", 1.5)$tau2), 3), c(0.622, 0.794))
  expect_equal(round(c(s("CE", 1.5)$tau1, s("CE", 1.5)$tau2), 3), c(0.609, 0.786))
  expect_equal(round(c(s("PML", 1.5)$tau1, s("PML", 1.5)$tau2), 3), c(0.622, 0.794))
  expect_equal(round(c(s("IPF", 1.5)$tau1, s("IPF", 1.5)$tau2), 3), c(0.622, 0.794))
  # sdcMicro's fitted values (its fr[7]), rounded to 2 decimals, in its cell order
  fit_sdc <- c(0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.2, 0.1, 0.5, 0.5, 1.0, 0.5, 0.5, 0.5, 1.0, 0.5,
               0.4, 0.4, 0.8, 0.4, 0.4, 0.4, 0.8, 0.4)
  expect_equal(sort(round(s("default")$cells$mu, 2)), sort(fit_sdc))
  # on the population scale the same data give the textbook value: 8 sample
  # uniques in cells with lambda = mu * 100 are almost surely not population unique
  pop <- risk_loglinear(sample_Data, k, weights = "weights")
  expect_lt(pop$tau1, 1e-8)
  tab <- by_hand_table(transform(sample_Data, w = weights), k)
  fit <- glm(f ~ Var1 + Var2 + Var3, family = poisson, data = tab)
  expect_equal(pop$tau1, taus_by_hand(tab, fitted(fit))[["tau1"]], tolerance = 1e-8)
})

test_that("sdcMicro's modRisk() agrees on its scale (where installed)", {
  # sdcMicro is not a declared dependency (it does not install from CRAN on
  # R 4.2: tools/install-sdcmicro.sh), so it is looked up by name
  sdc <- "sdcMicro"
  skip_if_not_installed(sdc)
  modRisk <- getExportedValue(sdc, "modRisk")
  d <- ll_data()
  keys <- c("age", "sex", "region")
  for (m in c("default", "CE", "PML", "IPF")) {
    ref <- suppressMessages(modRisk(d, method = m, weights = "w",
                                              formulaM = ~ age + sex + region))
    got <- risk_loglinear(d, keys, weights = "w", method = m, scale = "sdcmicro")
    # glm's default convergence (epsilon 1e-8 on the deviance) and loglm's
    # IPF tolerance limit sdcMicro's own digits to ~1e-7
    expect_equal(c(got$tau1, got$tau2), c(ref$gr1, ref$gr2), tolerance = 1e-6, label = m)
  }
})

test_that("bad input: classed errors", {
  d <- ll_data(60)
  keys <- c("age", "sex")
  expect_error(risk_loglinear(d, keys, weights = rep(0, 60)), class = "epimask_error_weights")
  expect_error(risk_loglinear(d, keys, weights = rep(-2, 60)), class = "epimask_error_weights")
  expect_error(risk_loglinear(d, keys, weights = rep(0.5, 60)), class = "epimask_error_value")
  expect_error(risk_loglinear(d, keys, pi = 0), class = "epimask_error_fraction")
  expect_error(risk_loglinear(d, keys, pi = 2), class = "epimask_error_fraction")
  expect_error(risk_loglinear(d, keys, weights = "w", pi = 0.1), class = "epimask_error_value")
  expect_error(risk_loglinear(d, keys, method = "CE"), class = "epimask_error_value")
  expect_error(risk_loglinear(d, keys, formula = ~ age + region), class = "epimask_error_value")
  expect_error(risk_loglinear(d, c("age", "sex", "region", "job"), max_cells = 10),
               class = "epimask_error_size")
  expect_error(risk_loglinear(d, keys, method = "XX"), class = "epimask_error_value")
})

test_that("methods and the risk_spec entry", {
  d <- ll_data()
  keys <- c("age", "sex", "region")
  r <- risk_loglinear(d, keys, weights = "w")
  expect_type(format(r), "character")
  expect_output(print(r), "tau1")
  expect_output(print(summary(r)), "Sample-unique cells")
  df <- as.data.frame(r)
  expect_equal(nrow(df), nrow(d))
  expect_named(df, c("ID", "cell", "f", "unique_prob", "match_prob"))
  expect_equal(nrow(tidy(r)), r$n_cells)
  expect_equal(glance(r)$tau1, r$tau1)
  png(f <- tempfile(fileext = ".png"))
  expect_invisible(plot(r))
  dev.off()
  v <- deprecated(risk_value(risk_spec("loglinear", keys = keys, weights = "w"), d, d))
  expect_equal(v, r$tau1 / nrow(d), tolerance = tol_exact)
  v2 <- deprecated(risk_value(risk_spec("loglinear", keys = keys, weights = "w", measure = "tau2"), d, d))
  expect_equal(v2, r$tau2 / nrow(d), tolerance = tol_exact)
})

test_that("keys are categories: numbers and NA are values of their own", {
  d <- ll_data()
  keys <- c("age", "sex", "region")
  d2 <- d
  d2$region <- match(d$region, letters)          # the same key coded as numbers
  a <- risk_loglinear(d, keys, weights = "w")
  b <- risk_loglinear(d2, keys, weights = "w")
  expect_equal(c(b$tau1, b$tau2), c(a$tau1, a$tau2), tolerance = tol_exact)
  d3 <- d
  d3$region[d3$region == "h"] <- NA                # NA as a category of its own
  c3 <- risk_loglinear(d3, keys, weights = "w")
  expect_equal(c(c3$tau1, c3$tau2), c(a$tau1, a$tau2), tolerance = tol_exact)
  expect_true(anyNA(c3$cells$region))
})

test_that("the \"population\" and \"loglinear\" risks in a profile are the functions' values", {
  d <- dose_cohort[1:2000, ]
  keys <- c("city", "sex", "age_exp")
  schemes <- list(mask_round(1))
  for (spec in list(deprecated(risk_spec("population", keys = keys, pi = 0.1)),
                    deprecated(risk_spec("loglinear", keys = keys, pi = 0.1)))) {
    ru <- ru_profile(d, schemes, case ~ dose + age_exp, family = binomial(), vars = "age_exp",
                     risk = spec, seed = 1, progress = FALSE)
    risk <- as.data.frame(ru)$risk
    m <- apply_mask(d, mask_round(1), "age_exp")
    # (risk_spec() returns the criterion now; `spec` is the old name it was asked by)
    ref <- if (spec$spec == "population") risk_population(m, keys, pi = 0.1)$share
           else risk_loglinear(m, keys, pi = 0.1)$tau1 / nrow(m)
    expect_equal(risk[2], ref, tolerance = tol_exact)
  }
})
