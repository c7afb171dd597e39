# deidentify() on Adult (the UCI extract of ../shared/data/adult.csv, 30,162
# records) with 8 quasi-identifiers and the public context, before and after
# the risk criteria (issue 37: deidentify() takes ola()'s release and class
# structure instead of rebuilding them, and counts each release once): the
# time per call (median of `reps` calls, each side in its own R process) and
# the number of risk_release() evaluations per call.
#
#   Rscript inst/bench/bench-deidentify.R [before-lib] [after-lib] [reps]
#
# before-lib holds epimask at commit 2aff505, after-lib this branch (see
# bench-criteria-before-after.R for how to install them).
args <- commandArgs(TRUE)
before_lib <- if (length(args) >= 1L) args[[1L]] else "/work/lib/before"
after_lib <- if (length(args) >= 2L) args[[2L]] else "/work/lib/crit"
reps <- if (length(args) >= 3L) as.integer(args[[3L]]) else 3L
adult_csv <- Sys.getenv("EPIMASK_ADULT", "/work/shared/data/adult.csv")
load <- function() paste(readLines("/proc/loadavg"), collapse = "")
cat(sprintf("machine: %s, %d cores; load before: %s\n", Sys.info()[["nodename"]],
            parallel::detectCores(), load()))

side <- function(lib, reps, adult_csv) {
  callr::r(function(reps, adult_csv) {
    suppressPackageStartupMessages(library(epimask))
    adult <- utils::read.csv(adult_csv, stringsAsFactors = FALSE, check.names = FALSE)
    names(adult) <- gsub("-", "_", names(adult))
    keys <- c("age", "sex", "race", "marital_status", "education", "native_country",
              "workclass", "occupation")
    h <- c(list(age = hierarchy_numeric(c(5, 10, 20))),
           stats::setNames(lapply(keys[-1], function(k) hierarchy_flat()), keys[-1]))
    ctx <- release_context(public = TRUE)
    ns <- asNamespace("epimask")
    calls <- 0L
    suppressMessages(trace("risk_release", where = ns, print = FALSE,
                           tracer = quote(assign("calls", get("calls", envir = globalenv()) + 1L,
                                                 envir = globalenv()))))
    assign("calls", 0L, envir = globalenv())
    times <- numeric(reps)
    counts <- integer(reps)
    for (r in seq_len(reps)) {
      assign("calls", 0L, envir = globalenv())
      t0 <- proc.time()[["elapsed"]]
      rel <- suppressWarnings(deidentify(adult, keys, h, ctx))
      times[[r]] <- proc.time()[["elapsed"]] - t0
      counts[[r]] <- get("calls", envir = globalenv())
    }
    list(seconds = times, risk_release_calls = counts, pass = rel$pass,
         overall = rel$overall_risk, records = nrow(rel$data),
         levels = rel$generalization$levels)
  }, args = list(reps, adult_csv), libpath = c(lib, .libPaths()))
}
before <- side(before_lib, reps, adult_csv)
after <- side(after_lib, reps, adult_csv)
cat(sprintf("load after: %s\n", load()))
cat(sprintf("deidentify(adult, 8 keys, public context), %d calls each:\n", reps))
cat(sprintf("  before: median %.2f s (%s); risk_release() evaluations per call: %s\n",
            stats::median(before$seconds), paste(sprintf("%.2f", before$seconds), collapse = ", "),
            paste(unique(before$risk_release_calls), collapse = "/")))
cat(sprintf("  after:  median %.2f s (%s); risk_release() evaluations per call: %s\n",
            stats::median(after$seconds), paste(sprintf("%.2f", after$seconds), collapse = ", "),
            paste(unique(after$risk_release_calls), collapse = "/")))
cat(sprintf("  ratio after / before: %.2f\n", stats::median(after$seconds) / stats::median(before$seconds)))
cat(sprintf("  same release: %s (levels %s; %d records; overall risk %s, pass %s)\n",
            identical(before[c("pass", "overall", "records", "levels")],
                      after[c("pass", "overall", "records", "levels")]),
            paste(after$levels, collapse = ","), after$records, format(signif(after$overall, 3)),
            after$pass))
