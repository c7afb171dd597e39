# fit_glm() and its methods are checked against glm() and its methods.

test_that("fit_glm equals glm for binomial cbind, proportions and factor responses", {
  esoph <- datasets::esoph
  ref <- glm(cbind(ncases, ncontrols) ~ agegp + alcgp, binomial, esoph)
  fit <- fit_glm(cbind(ncases, ncontrols) ~ agegp + alcgp, esoph, binomial())
  expect_s3_class(fit, "epimask_glm")
  expect_same_fit(fit, ref)
  expect_equal(summary(fit)$coefficients, summary(ref)$coefficients, tolerance = tol_glm)
  esoph$tot <- esoph$ncases + esoph$ncontrols
  esoph$prop <- esoph$ncases / esoph$tot
  fit2 <- fit_glm(prop ~ agegp + alcgp, esoph, "binomial", weights = tot)
  expect_same_fit(fit2, ref)
  pima <- shipped_data("Pima.tr", "MASS")
  ref <- glm(type ~ glu + bmi + ped, binomial("probit"), pima)
  fit <- fit_glm(type ~ glu + bmi + ped, pima, binomial("probit"))
  expect_same_fit(fit, ref)
})

test_that("weights and offsets given as vectors, names, expressions or offset() terms", {
  insurance <- shipped_data("Insurance", "MASS")
  ref <- glm(Claims ~ District + Group + Age, poisson, insurance, offset = log(Holders))
  by_expr <- fit_glm(Claims ~ District + Group + Age, insurance, poisson, offset = log(Holders))
  by_term <- fit_glm(Claims ~ District + Group + Age + offset(log(Holders)), insurance, poisson)
  insurance$lh <- log(insurance$Holders)
  by_name <- fit_glm(Claims ~ District + Group + Age, insurance, poisson, offset = "lh")
  by_vec <- fit_glm(Claims ~ District + Group + Age, insurance, poisson, offset = insurance$lh)
  for (fit in list(by_expr, by_term, by_name, by_vec)) expect_same_fit(fit, ref)
  mtcars <- datasets::mtcars
  ref <- glm(mpg ~ wt + hp, Gamma("log"), mtcars, weights = cyl / 2)
  expect_same_fit(fit_glm(mpg ~ wt + hp, mtcars, Gamma("log"), weights = cyl / 2), ref)
  expect_same_fit(fit_glm(mpg ~ wt + hp, mtcars, Gamma("log"), weights = mtcars$cyl / 2), ref)
  mtcars$w <- mtcars$cyl / 2
  expect_same_fit(fit_glm(mpg ~ wt + hp, mtcars, Gamma("log"), weights = "w"), ref)
})

test_that("rows with missing values are dropped as glm drops them", {
  quine <- shipped_data("quine", "MASS")
  quine$Days[c(3, 40)] <- NA
  ref <- glm(Days ~ Eth + Sex + Age, quasipoisson, quine)
  fit <- fit_glm(Days ~ Eth + Sex + Age, quine, quasipoisson)
  expect_same_fit(fit, ref)
  expect_equal(nobs(fit), nobs(ref))
  expect_output(print(summary(fit)), "2 observations deleted due to missingness")
})

test_that("methods agree with glm's: coef, vcov, logLik, AIC, deviance, nobs, confint, residuals", {
  birthwt <- shipped_data("birthwt", "MASS")
  ref <- glm(low ~ age + lwt + factor(race) + smoke, binomial, birthwt)
  fit <- fit_glm(low ~ age + lwt + factor(race) + smoke, birthwt, binomial)
  expect_equal(coef(fit), coef(ref), tolerance = tol_glm)
  expect_equal(vcov(fit), vcov(ref), tolerance = tol_glm)
  expect_equal(logLik(fit), logLik(ref), tolerance = tol_glm)
  expect_equal(AIC(fit), AIC(ref), tolerance = tol_glm)
  expect_equal(BIC(fit), BIC(ref), tolerance = tol_glm)
  expect_equal(deviance(fit), deviance(ref), tolerance = tol_glm)
  expect_equal(nobs(fit), nobs(ref))
  expect_equal(confint(fit), confint.default(ref), tolerance = tol_glm)
  expect_equal(confint(fit, "age", level = 0.9), confint.default(ref, "age", level = 0.9),
               tolerance = tol_glm)
  for (type in c("deviance", "pearson", "working", "response"))
    expect_equal(residuals(fit, type), residuals(ref, type), tolerance = tol_glm)
  expect_equal(fitted(fit), fitted(ref), tolerance = tol_glm)
  gfit <- fit_glm(mpg ~ wt + hp, datasets::mtcars, gaussian)
  gref <- glm(mpg ~ wt + hp, gaussian, datasets::mtcars)
  expect_equal(logLik(gfit), logLik(gref), tolerance = tol_glm)
  expect_equal(summary(gfit)$coefficients, summary(gref)$coefficients, tolerance = tol_glm)
  expect_error(confint(fit, "nope"), class = "epimask_error_name")
})

test_that("predict equals predict.glm on link and response scales, with se.fit", {
  insurance <- shipped_data("Insurance", "MASS")
  ref <- glm(Claims ~ District + Age + offset(log(Holders)), poisson, insurance)
  fit <- fit_glm(Claims ~ District + Age + offset(log(Holders)), insurance, poisson)
  nd <- insurance[c(2, 17, 40), ]
  for (type in c("link", "response")) {
    expect_equal(predict(fit, nd, type = type), predict(ref, nd, type = type), tolerance = tol_glm)
    expect_equal(predict(fit, nd, type = type, se.fit = TRUE),
                 predict(ref, nd, type = type, se.fit = TRUE), tolerance = tol_glm)
    expect_equal(predict(fit, type = type), predict(ref, type = type), tolerance = tol_glm)
  }
  ref2 <- glm(Claims ~ District + Age, poisson, insurance, offset = log(Holders))
  fit2 <- fit_glm(Claims ~ District + Age, insurance, poisson, offset = log(Holders))
  expect_equal(predict(fit2, nd, se.fit = TRUE), predict(ref2, nd, se.fit = TRUE), tolerance = tol_glm)
  gref <- glm(mpg ~ wt + factor(cyl), Gamma, datasets::mtcars)
  gfit <- fit_glm(mpg ~ wt + factor(cyl), datasets::mtcars, Gamma)
  nd <- data.frame(wt = c(2.5, 3.5), cyl = c(4, 8))
  expect_equal(predict(gfit, nd, type = "response", se.fit = TRUE),
               predict(gref, nd, type = "response", se.fit = TRUE), tolerance = tol_glm)
  expect_error(predict(gfit, data.frame(cyl = 4)), class = "epimask_error_value")
})

test_that("a rank-deficient formula reports NA like glm", {
  d <- datasets::mtcars
  d$wt2 <- d$wt * 3
  ref <- glm(carb ~ wt + wt2 + hp, poisson, d)
  fit <- fit_glm(carb ~ wt + wt2 + hp, d, poisson)
  expect_equal(coef(fit), coef(ref), tolerance = tol_glm)
  expect_identical(is.na(coef(fit)), is.na(coef(ref)))
  expect_equal(vcov(fit, complete = FALSE), vcov(ref, complete = FALSE), tolerance = tol_glm)
  expect_output(print(summary(fit)), "1 not defined because of singularities")
  expect_equal(suppressWarnings(predict(fit, d[1:3, ])), suppressWarnings(predict(ref, d[1:3, ])),
               tolerance = tol_glm)
})

test_that("summary holds glm's values; print and format show the coefficient table", {
  fit <- fit_glm(cbind(ncases, ncontrols) ~ agegp + alcgp, datasets::esoph, binomial)
  ref <- glm(cbind(ncases, ncontrols) ~ agegp + alcgp, binomial, datasets::esoph)
  # values, not the layout of one R version's print.summary.glm
  s <- summary(fit)
  sref <- summary(ref)
  expect_equal(unname(s$coefficients), unname(sref$coefficients), tolerance = tol_glm)
  expect_identical(rownames(s$coefficients), rownames(sref$coefficients))
  expect_equal(unname(s$deviance.resid), unname(residuals(ref, "deviance")), tolerance = tol_glm)
  for (el in c("dispersion", "deviance", "null.deviance", "aic"))
    expect_equal(s[[el]], sref[[el]], tolerance = tol_glm, info = el)
  for (el in c("df.residual", "df.null", "iter")) expect_equal(s[[el]], sref[[el]], info = el)
  # the printed summary carries every coefficient name and estimate
  out <- capture.output(print(s))
  for (term in rownames(sref$coefficients)) expect_true(any(grepl(term, out, fixed = TRUE)))
  expect_output(print(fit), "Coefficients")
  expect_output(print(fit), names(coef(ref))[2], fixed = TRUE)
  qfit <- fit_glm(mpg ~ wt, datasets::mtcars, quasipoisson)
  expect_output(print(summary(qfit)), "t value")
  expect_equal(summary(qfit)$dispersion, summary(glm(mpg ~ wt, quasipoisson, datasets::mtcars))$dispersion,
               tolerance = tol_glm)
  tab <- as.data.frame(fit)
  expect_named(tab, c("term", "estimate", "std.error", "statistic", "p.value"))
  expect_equal(tab$p.value, unname(summary(ref)$coefficients[, 4]), tolerance = tol_glm)
  # format(): character, a header and one line per coefficient, in order
  txt <- format(fit)
  expect_type(txt, "character")
  expect_length(txt, 10L)
  expect_match(txt[1], "^term +estimate +std.error +statistic +p.value$")
  expect_identical(sub(" .*", "", txt[-1]), names(coef(ref)))
  est <- as.numeric(vapply(strsplit(trimws(txt[-1]), " +"), `[`, "", 2L))
  expect_equal(est, unname(signif(coef(ref), 4)), tolerance = tol_exact)
})

test_that("fit_glm rejects bad input with classed errors", {
  mtcars <- datasets::mtcars
  expect_error(fit_glm("mpg ~ wt", mtcars), class = "epimask_error_type")
  expect_error(fit_glm(mpg ~ wt, 1:3), class = "epimask_error_type")
  expect_error(fit_glm(mpg ~ wt, mtcars[0, ]), class = "epimask_error_empty")
  expect_error(fit_glm(mpg ~ nope, mtcars), class = "epimask_error_name")
  expect_error(fit_glm(mpg ~ wt, mtcars, weights = "nope"), class = "epimask_error_name")
  expect_error(fit_glm(mpg ~ wt, mtcars, weights = 1:3), class = "epimask_error_length")
  expect_error(fit_glm(mpg ~ wt, mtcars, weights = -cyl), class = "epimask_error_value")
  expect_error(fit_glm(mpg ~ wt, mtcars, offset = letters[1:32]), class = "epimask_error_type")
  expect_error(fit_glm(mpg ~ wt, mtcars, family = "nofamily"), class = "epimask_error_value")
  expect_error(fit_glm(mpg ~ wt, mtcars, family = poisson("inverse")), class = "epimask_error_value")
  expect_error(fit_glm(mpg ~ wt, mtcars, family = binomial), class = "epimask_error_value")
  expect_error(fit_glm(~ wt, mtcars), class = "epimask_error_value")
})
