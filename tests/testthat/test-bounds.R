# Sizes, counts and hand-built objects are checked before any work
# (issue "Reliability").

# The reference for k_prime(): the direct scan over 0..k of the definition
# (D4: x >= 1, where P(X >= 1 | X >= 1) = 1 never passes).
scan_cut <- function(k, pi, alpha, truncated) {
  lambda <- pi * k
  x <- if (truncated) seq_len(k) else 0:k
  tail <- ppois(x - 1, lambda, lower.tail = FALSE)
  if (truncated) tail <- tail / -expm1(-lambda)
  ok <- tail <= alpha & !(truncated & x == 1)
  as.integer(min(x[ok], k))
}

test_that("k_prime's O(log k) search equals the direct scan over 0..k and takes any k", {
  for (k in c(1, 2, 3, 5, 10, 17, 50, 333, 2000)) for (pi in c(0.01, 0.1, 0.3, 0.9, 1))
    for (alpha in c(0.01, 0.05, 0.1, 0.5)) {
      got <- k_prime(k, pi = pi, alpha = alpha)
      expect_identical(unname(got), c(scan_cut(k, pi, alpha, FALSE), scan_cut(k, pi, alpha, TRUE)),
                       info = sprintf("k = %d, pi = %g, alpha = %g", k, pi, alpha))
    }
  big <- k_prime(.Machine$integer.max, pi = 0.1)
  expect_true(all(big > 0.1 * .Machine$integer.max & big <= .Machine$integer.max))
})

test_that("sizes and family objects are checked before any work", {
  expect_error(simulate_zdl(1, n = .Machine$integer.max), class = "epimask_error_value")
  fam <- binomial()
  fam$linkinv <- NULL
  e <- expect_error(irls_fit(cbind(1, 1:6), c(0, 1, 0, 1, 1, 0), fam), class = "epimask_error_type")
  expect_match(conditionMessage(e), "linkinv")
  expect_error(fit_glm(case ~ dose, dose_cohort[1:50, ],
                       family = structure(list(family = "binomial"), class = "family")),
               class = "epimask_error_type")
})

test_that("S3 method arguments get classed errors naming them", {
  d <- dose_cohort[1:300, ]
  ru <- ru_profile(d, list(mask_round(1, "decimal")), case ~ sex, family = "err", vars = "dose",
                   term = "dose", risk = "none", seed = 1)
  expect_error(print(ru, digits = NULL), class = "epimask_error")
  expect_error(print(ru, n = 0.5), class = "epimask_error_value")
  expect_error(format(ru, width = "a"), class = "epimask_error")
  fit <- fit_glm(case ~ dose + sex, dose_cohort[1:200, ], family = binomial())
  e <- expect_error(predict(fit, newdata = data.frame(dose = "a", sex = "male")),
                    class = "epimask_error_type")
  expect_identical(e$arg, "newdata")
  expect_error(confint(fit, parm = data.frame()), class = "epimask_error_type")
  expect_error(confint(fit, parm = NA), class = "epimask_error_type")
  expect_identical(rownames(confint(fit, parm = 2)), "dose")
})

test_that("the closures of population_or() and zdl_simulator() check what they are given", {
  set.seed(2)
  d <- data.frame(black = rbinom(200, 1, 0.3), age = runif(200), py = rpois(200, 50) + 1)
  d$deaths <- rbinom(200, d$py, plogis(-3 + 0.4 * d$black + d$age))
  fit <- fit_glm(cbind(deaths, py - deaths) ~ black + age, d, family = binomial())
  or <- population_or("black", weight = "py")
  # a valid call against the formula of its help page, written out here
  p <- function(race) {
    x <- cbind(1, race, d$age)
    sum(d$py * plogis(drop(x %*% coef(fit)))) / sum(d$py)
  }
  expect_equal(or(fit, d)[["estimate"]], (p(1) / (1 - p(1))) / (p(0) / (1 - p(0))))
  e <- expect_error(or(NULL, d), class = "epimask_error_type")
  expect_identical(e$arg, "fit")
  expect_error(or(unclass(fit)[c("coefficients", "vcov")], d), class = "epimask_error_type")
  broken <- fit
  broken$family <- "binomial"
  expect_error(or(broken, d), class = "epimask_error")
  expect_error(or(fit, "a"), class = "epimask_error_type")
  expect_error(or(fit, d[c("black", "age")]), class = "epimask_error_name")
  e <- expect_error(or(fit, transform(d, py = "a")), class = "epimask_error_type")
  expect_identical(e$arg, "data$py")
  expect_error(or(fit, transform(d, py = -1)), class = "epimask_error_value")
  expect_error(or(fit, transform(d, age = "a")), class = "epimask_error_value")

  sim <- simulate_zdl(1, n = 50, seed = 1)
  redraw <- zdl_simulator(sim)
  expect_error(redraw("a"), class = "epimask_error_type")
  expect_error(redraw(sim[0, ]), class = "epimask_error_empty")
  e <- expect_error(redraw(transform(sim, x = "a")), class = "epimask_error_type")
  expect_identical(e$arg, "data$x")
  expect_error(redraw(transform(sim, x = Inf)), class = "epimask_error_value")
  expect_error(redraw(transform(sim, x = 1e3)), class = "epimask_error_value")
})

test_that("fit_ru_curve() and recommend() name the column of a bad cell", {
  ru <- epimask:::example_ru_profile()
  pts <- data.frame(analysis_potential = c(0.2, 0.5, 0.8), anonymity = c(0.95, 0.8, 0.5))
  for (bad in list("a", factor("a"), Inf)) {
    p <- pts
    p$anonymity <- if (is.factor(bad)) factor(rep("a", 3)) else replace(p$anonymity, 1, bad)
    e <- expect_error(fit_ru_curve(p), class = "epimask_error")
    expect_identical(e$arg, "ru$anonymity")
    r <- ru
    r$risk <- if (is.factor(bad)) factor(rep("a", nrow(r))) else replace(r$risk, 1, bad)
    e <- expect_error(recommend(r, max_risk = 0.3), class = "epimask_error")
    expect_identical(e$arg, "ru$risk")
    expect_error(fit_ru_curve(r), class = "epimask_error")
  }
  # NA is a scheme without that measure, not an error
  r <- ru
  r$risk[2] <- NA
  expect_true(r$scheme[2] %in% recommend(r, max_risk = 0.3)$no_risk)
  r <- ru
  r$scheme <- NULL
  expect_error(recommend(r), class = "epimask_error_name")
})

test_that("invalid UTF-8 strings get a classed error that says so", {
  bad <- rawToChar(as.raw(c(0x61, 0xff, 0xfe)))
  marked <- bad
  Encoding(marked) <- "UTF-8"
  substring_h <- as_hierarchy(list(identity, function(x) substr(x, 1, 1)))
  for (b in list(bad, marked)) {
    e <- expect_error(generalize(c("ab", b), substring_h, 1), class = "epimask_error_value")
    expect_match(conditionMessage(e), "invalid UTF-8")
    expect_true(validUTF8(conditionMessage(e)))
    e <- expect_error(generalize(c("2001-01-01", b), hierarchy_date(format = "%Y-%m-%d"), 1),
                      class = "epimask_error_value")
    expect_match(conditionMessage(e), "invalid UTF-8")
    expect_error(hierarchy_date(format = b), class = "epimask_error_value")
    e <- expect_error(simulate_zdl(b), class = "epimask_error_value")
    expect_match(conditionMessage(e), "invalid UTF-8")
    d <- data.frame(g = c("a", b, "a"), x = 1:3)
    e <- expect_error(risk_kanon(d, "g", k = 2), class = "epimask_error_value")
    expect_identical(e$arg, "data$g")
    expect_error(apply_mask(d, mask_pram(0.8), "g"), class = "epimask_error_value")
    e <- expect_error(fit_glm(y ~ x, data.frame(x = 1:4, y = 1:4), family = b),
                      class = "epimask_error_value")
    expect_match(conditionMessage(e), "invalid UTF-8")
  }
  # text declared latin1 is valid text
  latin <- "caf\xe9"
  Encoding(latin) <- "latin1"
  expect_identical(generalize(latin, substring_h, 1), "c")
})

test_that("size arguments have bounds checked before any allocation", {
  expect_error(hierarchy_zip(digits = 2e9), class = "epimask_error_value")
  expect_error(hierarchy_zip(digits = 21), class = "epimask_error_value")
  expect_length(hierarchy_zip(digits = 20)$levels, 21L)
  sim <- simulate_zdl(1, n = 40, seed = 1)
  expect_error(zdl_aggregate(sim, cells = .Machine$integer.max), class = "epimask_error_value")
  for (arg in c("nrep", "bootstrap", "risk_nrep")) {
    args <- list(sim, mask_round(1), y ~ x, family = poisson(), vars = "x", risk = "none",
                 progress = FALSE)
    args[[arg]] <- .Machine$integer.max
    e <- expect_error(do.call(ru_profile, args), class = "epimask_error_value")
    expect_identical(e$arg, arg)
  }
})

test_that("irls_fit() says what is wrong with a logical or factor response", {
  x <- cbind(1, 1:6)
  e <- expect_error(irls_fit(x, TRUE, binomial()), class = "epimask_error_length")
  expect_identical(e$arg, "y")
  expect_match(conditionMessage(e), "logical scalar")
  expect_error(irls_fit(x, factor(c("a", "b")), binomial()), class = "epimask_error_length")
  y <- c(TRUE, FALSE, TRUE, TRUE, FALSE, TRUE)
  expect_equal(unname(irls_fit(x, y, binomial())$coefficients),
               unname(coef(glm.fit(x, as.double(y), family = binomial()))), tolerance = 1e-8)
})

test_that("an edited scheme fails in every function that reads it, naming the field", {
  s <- mask_round(2)
  s$digits <- "a"
  for (f in list(format, print, scheme_generator, scheme_strength,
                 function(s) c(s, mask_none()),
                 function(s) summary(s, data.frame(x = 1:3)))) {
    e <- expect_error(f(s), class = "epimask_error")
    expect_match(e$arg, "digits$")
  }
  s <- mask_noise(0.1)
  s$label <- NULL
  expect_error(apply_mask(data.frame(x = 1:3), s), class = "epimask_error_type")
  k <- mask_kernel("exponential", 0.1, cbind(1:5, 0))
  k$lambda <- NULL
  e <- expect_error(kernel_matrix(k), class = "epimask_error")
  expect_identical(e$arg, "scheme$lambda")
  l <- c(mask_round(1), mask_none())
  expect_error(l[NA], class = "epimask_error_value")
  expect_error(l[list(1)], class = "epimask_error_type")
  expect_length(l[2], 1L)
})

test_that("print and format methods bound their digits", {
  k <- risk_kanon(data.frame(g = c("a", "a", "b")), "g", k = 2)
  expect_error(print(k, digits = NULL), class = "epimask_error_type")
  expect_error(print(k, digits = 23), class = "epimask_error_value")
  expect_output(print(k, digits = 22))
  ru <- epimask:::example_ru_profile()
  expect_error(print(ru, digits = .Machine$integer.max), class = "epimask_error_value")
  expect_error(as.data.frame(ru, row.names = NA), class = "epimask_error_value")
  expect_identical(rownames(as.data.frame(ru, row.names = letters[seq_len(nrow(ru))]))[1], "a")
  expect_error(ru[NA], class = "epimask_error_value")
  expect_error(plot(ru, col = Inf), class = "epimask_error")
})

# ---- hostile input of issue 24 (item 7): each fixed where the argument enters --

test_that("k_prime() and risk_kanon() return for any positive pi, however small", {
  for (pi in c(5e-324, 1e-320, 1e-300, 1e-100, 1e-12))
    for (k in c(1, 2, 3, 5, 40)) for (alpha in c(1e-300, 0.1, 0.999999)) {
      got <- k_prime(k, pi = pi, alpha = alpha)
      expect_identical(unname(got), c(scan_cut(k, pi, alpha, FALSE), scan_cut(k, pi, alpha, TRUE)),
                       info = sprintf("k = %d, pi = %g, alpha = %g", k, pi, alpha))
    }
  # at the largest k too (bisection: O(log k) evaluations of the tail)
  expect_identical(k_prime(.Machine$integer.max, 5e-324), c(D3 = 1L, D4 = 2L))
  r <- risk_kanon(data.frame(g = c("a", "a", "b")), "g", pi = 5e-324, k = 2)
  expect_identical(r$k_prime, c(D3 = 1L, D4 = 2L))
})

test_that("a family named by a string is looked up among the families, not as a symbol", {
  d <- data.frame(x = 1:10, y = c(0, 1, 0, 2, 1, 3, 2, 4, 3, 5))
  long <- strrep("a", 20000)
  X <- cbind(1, d$x)
  calls <- list(
    fit_glm = function(f) fit_glm(y ~ x, d, family = f),
    irls_fit = function(f) irls_fit(X, d$y, family = f),
    utility_glm = function(f) utility_glm(d, d, y ~ x, family = f, term = "x"),
    ru_profile = function(f) ru_profile(d, list(mask_round(1)), y ~ x, family = f, vars = "x",
                                        term = "x", risk = "none", progress = FALSE),
    bias_first_order = function(f) bias_first_order(X, c(0, 0.1), f, mask_matrix(diag(10))),
    bias_asymptotic = function(f) bias_asymptotic(X, c(0, 0.1), f, mask_matrix(diag(10))))
  for (nm in names(calls)) {
    e <- expect_error(calls[[nm]](long), class = "epimask_error_value", info = nm)
    expect_identical(e$arg, "family", info = nm)
    # the string is echoed shortened, not whole
    expect_lt(nchar(conditionMessage(e)), 400)
    # names of base functions are not families (family = "q" used to quit R)
    expect_error(calls[[nm]]("q"), class = "epimask_error_value", info = nm)
    expect_error(calls[[nm]]("print"), class = "epimask_error_value", info = nm)
  }
  expect_equal(coef(fit_glm(y ~ x, d, family = "poisson")),
               coef(glm(y ~ x, family = poisson(), data = d)), tolerance = 1e-8)
})

test_that("predict() of a GLM refuses newdata columns of another type than the fit's", {
  d <- data.frame(x = c(0.5, 1.2, 2.2, 3.1, 3.9, 5.2, 6.1, 7.4), y = c(0, 1, 1, 2, 3, 3, 5, 6),
                  g = rep(c("a", "b"), 4), stringsAsFactors = FALSE)
  fit <- fit_glm(y ~ x + g, d, family = poisson())
  ref <- glm(y ~ x + g, family = poisson(), data = d)
  # a character column where a number was fitted: two distinct strings used
  # to give a model matrix of the right width and silently wrong predictions
  e <- expect_error(predict(fit, data.frame(x = c("1", "2"), g = "a")), class = "epimask_error_type")
  expect_identical(e$arg, "newdata")
  expect_error(predict(fit, data.frame(x = "a", g = "a")), class = "epimask_error")
  # a number where a character column was fitted: classed, no base warning
  expect_no_warning(e <- expect_error(predict(fit, data.frame(x = 1, g = 3)), class = "epimask_error"))
  expect_error(predict(fit, data.frame(x = 1, g = "c")), class = "epimask_error_value")
  nd <- data.frame(x = c(1, 2.5), g = c("b", "a"), stringsAsFactors = FALSE)
  expect_equal(predict(fit, nd), predict(ref, nd), tolerance = 1e-8)
  # the ERR model's predict() shares the check
  n <- 400
  set.seed(2)
  cd <- data.frame(dose = rexp(n), sex = rep(0:1, n / 2))
  cd$case <- rbinom(n, 1, 0.2)
  efit <- fit_err(case ~ sex, cd, dose = "dose")
  expect_error(predict(efit, data.frame(dose = 1, sex = c("0", "1"))), class = "epimask_error_type")
})

test_that("zdl_aggregate() takes logical columns as numbers and refuses sums past the largest double", {
  sim <- simulate_zdl(1, n = 200, seed = 5)
  s <- sim
  s$x <- s$x > median(s$x)
  agg <- zdl_aggregate(s, 3)
  # the reference: glm on cell totals computed by hand with the 0/1 exposure
  cell <- pmin(floor((s$s1 + 1) / 2 * 3), 2) + 3 * pmin(floor((s$s2 + 1) / 2 * 3), 2)
  tab <- data.frame(n = as.vector(table(cell)), x = as.vector(tapply(as.numeric(s$x), cell, mean)),
                    y = as.vector(tapply(s$y, cell, sum)))
  ref <- glm(y ~ x + offset(log(n)), family = poisson(), data = tab)
  expect_equal(agg$estimate, unname(coef(ref)[["x"]]), tolerance = 1e-8)
  s$x <- TRUE
  expect_error(zdl_aggregate(s, 3), class = "epimask_error_singular")
  huge <- transform(sim, x = x * 1e308)
  e <- expect_error(zdl_aggregate(huge, 3), class = "epimask_error_value")
  expect_identical(e$arg, "sim")
  expect_error(zdl_aggregate(transform(sim, y = y * 1e308), 3), class = "epimask_error_value")
  expect_error(zdl_aggregate(transform(sim, y = y + 0.5), 3), class = "epimask_error_value")
  expect_error(zdl_aggregate(transform(sim, y = -y), 3), class = "epimask_error_value")
})

test_that("user functions (simulate, risk, term) are checked on entry and their failures classed", {
  d <- data.frame(x = c(0.5, 1.2, 2.2, 3.1, 3.9, 5.2, 6.1, 7.4), y = c(0, 1, 1, 2, 3, 3, 5, 6))
  prof <- function(...) ru_profile(d, list(mask_round(1)), y ~ x, family = poisson(), vars = "x",
                                   term = "x", progress = FALSE, seed = 1, ...)
  e <- expect_error(prof(risk = "none", simulate = function(data) stop("boom")),
                    class = "epimask_error_user")
  expect_identical(e$arg, "simulate")
  expect_match(conditionMessage(e), "boom")
  e <- expect_error(prof(risk = "none", simulate = function() d), class = "epimask_error_type")
  expect_identical(e$arg, "simulate")
  expect_error(prof(risk = "none", simulate = function(a, b) d), class = "epimask_error_type")
  # extra arguments with defaults and `...` are fine
  expect_s3_class(prof(risk = "none", simulate = function(data, extra = 1) data), "ru_profile")
  expect_s3_class(prof(risk = "none", simulate = function(...) d), "ru_profile")
  expect_warning(prof(risk = "none", simulate = function(data) { warning("w"); data }),
                 class = "epimask_warning_user")
  e <- expect_error(prof(risk = function(original, masked) stop("r")), class = "epimask_error_user")
  expect_identical(e$arg, "risk")
  expect_error(prof(risk = function(original) 0), class = "epimask_error_type")
  expect_error(risk_value(function(o, m) stop("r"), d, d), class = "epimask_error_user")
  e <- expect_error(utility_glm(d, d, y ~ x, poisson(), term = function(fit, data) stop("t")),
                    class = "epimask_error_user")
  expect_identical(e$arg, "term")
  expect_error(utility_glm(d, d, y ~ x, poisson(), term = function(fit) 1), class = "epimask_error_type")
})

test_that("date hierarchies refuse infinite and out-of-calendar dates with a classed error", {
  h <- hierarchy_date()
  for (x in list(structure(c(Inf, 1), class = "Date"), structure(c(-Inf, 1), class = "Date"),
                 structure(c(1e300, 1), class = "Date"),
                 structure(c(Inf, 0), class = c("POSIXct", "POSIXt"))))
    for (level in 1:3)
      expect_no_warning(expect_error(generalize(x, h, level), class = "epimask_error_value"))
  # NaN is a missing date, as NA
  expect_identical(generalize(structure(c(NaN, 0), class = "Date"), h, 2), c(NA, "1970"))
  expect_identical(generalize(as.Date(c("0000-01-01", "9999-12-31")), h, 2), c("0", "9999"))
})

test_that("predict() of a fitted curve takes a tibble without a base or tibble warning", {
  skip_if_not_installed("tibble")
  cur <- suppressWarnings(fit_ru_curve(epimask:::example_ru_profile()))
  u <- c(0.2, 0.7)
  expect_identical(predict(cur, tibble::tibble(analysis_potential = u)),
                   predict(cur, data.frame(analysis_potential = u)))
  expect_no_warning(expect_error(predict(cur, tibble::tibble(anonymity = 0.5)),
                                 class = "epimask_error_type"))
  expect_error(predict(cur, data.frame(analysis_potential_x = 0.5)), class = "epimask_error_type")
})

test_that("a seeded profile leaves the caller's generator kind as it was, even without a .Random.seed", {
  d <- data.frame(x = c(0.5, 1.2, 2.2, 3.1, 3.9, 5.2, 6.1, 7.4), y = c(0, 1, 1, 2, 3, 3, 5, 6))
  genv <- globalenv()
  saved <- get0(".Random.seed", envir = genv, inherits = FALSE)
  kinds <- RNGkind()
  on.exit({
    do.call(RNGkind, as.list(kinds))
    if (!is.null(saved)) assign(".Random.seed", saved, envir = genv)
  })
  set.seed(1)
  expected <- runif(3)
  for (fails in c(FALSE, TRUE)) {
    # a fresh session: no .Random.seed yet
    if (exists(".Random.seed", envir = genv, inherits = FALSE)) rm(".Random.seed", envir = genv)
    sim <- if (fails) function(data) stop("boom") else NULL
    try(ru_profile(d, list(mask_noise(0.1)), y ~ x, family = poisson(), vars = "x", term = "x",
                   risk = "none", seed = 1, simulate = sim, progress = FALSE), silent = TRUE)
    expect_identical(RNGkind()[[1L]], kinds[[1L]])
    set.seed(1)
    expect_identical(runif(3), expected)
  }
})

test_that("utility_general() checks the masked columns it picks by default", {
  d <- data.frame(x = c(1.5, 2.5, 0.3, 4.1, 2.2, 3.3), g = factor(c("a", "b", "a", "b", "a", "b")))
  m <- transform(d, x = complex(real = x, imaginary = 1))
  e <- expect_error(utility_general(d, m), class = "epimask_error_type")
  expect_identical(e$arg, "masked")
  m$x <- as.character(d$x)
  expect_error(utility_general(d, m), class = "epimask_error_type")
})
