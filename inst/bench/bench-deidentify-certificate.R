# deidentify() with the column review (issue 36): the cost of certifying the
# release as delivered. Each call is timed twice in the same run: the
# default (every flagged column left in is a key of the search and of the
# recount, the release reviewed again) against the reference of the same call
# with every flagged column declared safe (the search and the certificate on
# the custodian's keys only, as before the review; the review still runs).
# Adult (../shared/data/adult.csv): a 1,500-record sample and all 30,162
# records, keys age, sex, race, marital status, education, non-public
# context (threshold 0.1), the model metric high_income ~ age +
# education.num + sex.
#
#   Rscript inst/bench/bench-deidentify-certificate.R [lib | "source"] [reps]
#
# "source" loads the package from the working directory (pkgload).
args <- commandArgs(TRUE)
lib <- if (length(args) >= 1L) args[[1L]] else "source"
reps <- if (length(args) >= 2L) as.integer(args[[2L]]) else 1L
if (identical(lib, "source")) pkgload::load_all(quiet = TRUE) else
  suppressPackageStartupMessages(library(epimask, lib.loc = lib))
adult_csv <- Sys.getenv("EPIMASK_ADULT", "/work/shared/data/adult.csv")
load <- function() paste(readLines("/proc/loadavg"), collapse = "")
cat(sprintf("machine: %s, %d cores; load before: %s\n", Sys.info()[["nodename"]],
            parallel::detectCores(), load()))
adult <- utils::read.csv(adult_csv, check.names = TRUE, stringsAsFactors = FALSE)
adult$high_income <- as.integer(adult$income == ">50K")
keys <- c("age", "sex", "race", "marital.status", "education")
h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat(),
          marital.status = hierarchy_flat(), education = hierarchy_flat())
ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
model <- analysis_loss(high_income ~ age + education.num + sex, binomial(), "sexMale")

elapsed <- function(expr) {
  t <- numeric(reps)
  for (r in seq_len(reps)) {
    gc()
    t[r] <- system.time(value <- suppressWarnings(expr))[["elapsed"]]
  }
  list(time = stats::median(t), value = value)
}

for (n in c(1500L, nrow(adult))) {
  set.seed(1)
  d <- if (n < nrow(adult)) adult[sample(nrow(adult), n), ] else adult
  rownames(d) <- NULL
  review <- elapsed(review_columns(d, keys, sensitive = "income"))
  flagged <- review$value$pending
  decl <- stats::setNames(rep("declared for the reference run", length(flagged)), flagged)
  for (with_model in c(FALSE, TRUE)) {
    m <- if (with_model) model
    ref <- elapsed(deidentify(d, keys, h, ctx, sensitive = "income", model = m, declare = decl))
    new <- elapsed(deidentify(d, keys, h, ctx, sensitive = "income", model = m))
    cat(sprintf(paste0("n = %6d, %-13s review %.2f s | declared (reference) %.2f s, %s | ",
                       "default %.2f s, %d flagged columns as keys, %s | ratio %.2f | load %s\n"),
                n, if (with_model) "model metric" else "entropy", review$time, ref$time,
                if (ref$value$pass) "PASS" else "FAIL", new$time,
                length(new$value$review_keys), if (new$value$pass) "PASS" else "FAIL",
                new$time / ref$time, load()))
  }
}
