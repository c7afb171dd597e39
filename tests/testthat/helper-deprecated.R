# A call in the vocabulary of epimask 0.3 (flat criteria of ola() and
# deidentify(), risk_spec(), the known / unknown shorthand of ru_profile()):
# it still works for one release, with a warning of class
# epimask_warning_deprecated. `deprecated(expr)` checks that warning and
# returns the value, so that the old expectation is kept.
deprecated <- function(expr) {
  warned <- FALSE
  value <- withCallingHandlers(expr, epimask_warning_deprecated = function(w) {
    warned <<- TRUE
    invokeRestart("muffleWarning")
  })
  testthat::expect_true(warned, label = "a deprecation warning (epimask_warning_deprecated)")
  invisible(value)
}
