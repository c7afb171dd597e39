# The workbench's cost over the console: a profile run in the background R
# process (future + promises, as the app does it, worker already started)
# against the same ru_profile() call in the session, and the time to render
# the de-identification report. Prints the ratio and checks the two profiles
# are identical.
#   Rscript inst/bench/bench-workbench.R
suppressPackageStartupMessages(library(epimask))
stopifnot(requireNamespace("future"), requireNamespace("promises"), requireNamespace("later"))

cohort <- dose_cohort[, setdiff(names(dose_cohort), "id")]
args <- list(data = cohort,
             schemes = list(mask_round(3), mask_round(2), mask_round(1), mask_noise(0.1)),
             formula = case ~ dose, family = "binomial", vars = "dose", term = "dose",
             risk = "identifiability", known = "dose", nrep = 20, seed = 1, progress = FALSE)

t_direct <- system.time(direct <- suppressWarnings(do.call(ru_profile, args)))[["elapsed"]]

future::plan(future::cluster, workers = 1L)
invisible(future::value(future::future(NULL)))          # the worker is up, as in the app
t_background <- system.time({
  job <- epimask:::workbench_start_profile(args)
  result <- NULL
  promises::then(job$promise, function(v) result <<- v)
  while (is.null(result)) later::run_now(0.05)
})[["elapsed"]]
future::plan(future::sequential)
same <- isTRUE(all.equal(as.data.frame(direct), as.data.frame(result$ru)))

t_report <- if (rmarkdown::pandoc_available()) system.time(
  release_report(direct, tempfile(fileext = ".html"), data = dose_cohort, vars = "dose",
                 keys = c("city", "sex", "age_exp", "dose"), identifiers = "id", seed = 1)
)[["elapsed"]] else NA_real_

print(data.frame(what = c("ru_profile in the session", "same in the background process",
                          "release_report"),
                 n = nrow(cohort), seconds = round(c(t_direct, t_background, t_report), 2),
                 ratio = round(c(1, t_background / t_direct, NA), 2)))
cat("identical profiles:", same, "\n")
cat("load:", system("uptime", intern = TRUE), "\n")
