# The one thread policy of the C core.

test_that("epimask_threads follows the argument, the options and the limits", {
  withr_env <- function(vars, code) {
    old <- Sys.getenv(names(vars), unset = NA)
    do.call(Sys.setenv, as.list(vars))
    on.exit(for (nm in names(old)) if (is.na(old[[nm]])) Sys.unsetenv(nm) else
      do.call(Sys.setenv, stats::setNames(list(old[[nm]]), nm)))
    code
  }
  old <- options(epimask.threads = NULL, mc.cores = NULL)
  on.exit(options(old), add = TRUE)
  cores <- parallel::detectCores(logical = TRUE)
  withr_env(c(OMP_THREAD_LIMIT = "", `_R_CHECK_LIMIT_CORES_` = ""), {
    expect_identical(epimask_threads(), as.integer(cores))
    expect_identical(epimask_threads(3), 3L)
    options(epimask.threads = 1)
    expect_identical(epimask_threads(), 1L)
    options(epimask.threads = NULL, mc.cores = 1)
    expect_identical(epimask_threads(), 1L)          # a future worker's setting
    expect_identical(epimask_threads(4), 4L)         # an explicit argument wins
    options(mc.cores = NULL)
  })
  withr_env(c(OMP_THREAD_LIMIT = "1", `_R_CHECK_LIMIT_CORES_` = ""),
            expect_identical(epimask_threads(8), 1L))
  withr_env(c(OMP_THREAD_LIMIT = "", `_R_CHECK_LIMIT_CORES_` = "TRUE"),
            expect_identical(epimask_threads(8), 2L))
  expect_error(epimask_threads(0), class = "epimask_error_value")
  expect_error(epimask_threads("a"), class = "epimask_error")
})

test_that("a thread count beyond the documented bound is an error before any thread starts", {
  expect_identical(epimask_threads(1024), min(1024L, epimask_threads(1024)))
  e <- expect_error(epimask_threads(.Machine$integer.max), class = "epimask_error_value")
  expect_identical(e$arg, "threads")
  expect_error(risk_match(dose_cohort[1:20, ], dose_cohort[1:20, ], known = "dose", threads = 2e9),
               class = "epimask_error_value")
})
