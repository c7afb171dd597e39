# ru_profile()'s risk: a risk_spec() (the primary form) and the shorthand of a
# name with `known` / `unknown` beside it give the identical profile; both
# together are an error naming the argument given beside the spec.

profile_fixture <- function() {
  set.seed(2)
  n <- 150
  d <- data.frame(x = round(rnorm(n, 50, 10), 1), z = round(runif(n, 0, 5), 1))
  d$y <- rpois(n, exp(0.5 + 0.02 * d$x))
  d
}

same_profile <- function(a, b) {
  expect_identical(as.data.frame(a), as.data.frame(b))
  expect_identical(replicates(a), replicates(b))
  expect_identical(attr(a, "meta")$risk, attr(b, "meta")$risk)
}

test_that("risk = risk_spec(...) and the known / unknown shorthand give identical profiles", {
  d <- profile_fixture()
  schemes <- list(mask_round(0, type = "decimal"), mask_noise(2))
  run <- function(..., schemes_ = schemes)
    ru_profile(d, schemes_, y ~ x + z, family = poisson(), vars = c("x", "z"), nrep = 3, seed = 4,
               progress = FALSE, ...)
  same_profile(deprecated(run(risk = risk_spec("match", known = c("x", "z"), unknown = "y"))),
               deprecated(run(known = c("x", "z"), unknown = "y")))
  same_profile(deprecated(run(risk = risk_spec("match", known = "x"))), deprecated(run(risk = "match", known = "x")))
  # an argument given as NULL is the measure's default, as in risk_match(unknown = NULL)
  expect_identical(deprecated(risk_spec("match", known = "x", unknown = NULL)), deprecated(risk_spec("match", known = "x")))
  same_profile(deprecated(run(risk = risk_spec("match", known = "x", unknown = NULL))),
               deprecated(run(risk = "match", known = "x")))
  # (rounding only: exact-match identifiability cannot see noise)
  rounding <- list(mask_round(0, type = "decimal"), mask_round(-1, type = "decimal"))
  same_profile(deprecated(run(risk = risk_spec("identifiability", known = c("x", "z")), schemes_ = rounding)),
               deprecated(run(risk = "identifiability", known = c("x", "z"), schemes_ = rounding)))
  # the risk itself is risk_match()'s expected share of correct matches
  ru <- deprecated(run(risk = risk_spec("match", known = "x")))
  rounded <- transform(d, x = round(x))
  expect_equal(ru$risk[2], risk_match(d, rounded, known = "x")$percent_correct / 100,
               tolerance = tol_exact)
})

test_that("a risk_spec() with the shorthand beside it is a classed error naming the argument", {
  d <- profile_fixture()
  spec <- deprecated(risk_spec("match", known = "x"))
  for (extra in list(list(known = "x"), list(known = "z"), list(unknown = "y"),
                     list(targets = 1:10))) {
    err <- tryCatch(do.call(ru_profile, c(list(d, list(mask_noise(1)), y ~ x, family = poisson(),
                                               vars = "x", risk = spec, progress = FALSE), extra)),
                    error = identity)
    expect_s3_class(err, "epimask_error_value")
    expect_identical(err$arg, names(extra))
    expect_match(conditionMessage(err), "inside the risk measure")
  }
  # a function as the risk takes no shorthand either
  err <- tryCatch(deprecated(ru_profile(d, list(mask_noise(1)), y ~ x, family = poisson(), vars = "x",
                             risk = function(original, masked) 0.1, known = "x",
                             progress = FALSE)), error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_identical(err$arg, "known")
})
