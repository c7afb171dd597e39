# Benchmark: suppress_local() (greedy over key patterns in C) against
# sdcMicro's kAnon() (localSuppression) on the Adult extract, in the same run:
# 5 keys (sex, age, race, marital-status, education) with k = 5 and 9 keys
# (those and native-country, workclass, occupation, relationship) with k = 2,
# blanks read as values ("category"; sdcMicro's alpha = 0) and as wildcards
# ("wildcard"; alpha = 1). For every output: the cells blanked, the records
# touched, the elapsed and CPU time, and the class sizes recounted on the
# output under BOTH readings (smallest class, records below k), by the same
# counting routine for every tool. Then suppress_local() on 1e6 synthetic
# records with 5 keys, both readings.
# Run: Rscript inst/bench/bench-suppress.R [adult.csv] [--no-sdcmicro]
#      [--sdc-alpha0] (sdcMicro with alpha = 0 too: slow)

suppressPackageStartupMessages(library(epimask))

args <- commandArgs(trailingOnly = TRUE)
adult_file <- c(args[!startsWith(args, "--")], "/work/shared/data/adult.csv")[[1L]]
use_sdc <- !("--no-sdcmicro" %in% args) && requireNamespace("sdcMicro", quietly = TRUE)
sdc_alpha0 <- "--sdc-alpha0" %in% args

cat("machine:", paste(Sys.info()[c("sysname", "release", "machine")], collapse = " "),
    "|", parallel::detectCores(), "cores |", R.version.string, "\n")
cat("load at start:", system("uptime", intern = TRUE), "\n")
if (!use_sdc) cat("sdcMicro: not installed (or --no-sdcmicro): epimask only\n")

recount <- function(data, keys, k) {
  frame <- as.data.frame(data)
  out <- list()
  for (na in c("category", "wildcard")) {
    f <- epimask:::suppress_class_sizes(frame, keys, na)
    out[[na]] <- c(min = min(f), below = sum(f < k))
  }
  out
}

row_of <- function(tool, reading, keys, k, original, released, elapsed, cpu) {
  blanked <- is.na(as.matrix(as.data.frame(released)[keys])) &
             !is.na(as.matrix(original[keys]))
  rc <- recount(released, keys, k)
  data.frame(tool = tool, reading = reading, keys = length(keys), k = k,
             cells = sum(blanked), records = sum(rowSums(blanked) > 0),
             seconds = round(elapsed, 2), cpu = round(cpu, 2),
             min_class_category = rc$category[["min"]],
             below_k_category = rc$category[["below"]],
             min_class_wildcard = rc$wildcard[["min"]],
             below_k_wildcard = rc$wildcard[["below"]],
             stringsAsFactors = FALSE)
}

timed <- function(expr) {
  t <- system.time(value <- force(expr))
  list(value = value, elapsed = t[["elapsed"]],
       cpu = t[["user.self"]] + t[["sys.self"]])
}

results <- NULL
if (file.exists(adult_file)) {
  # syntactic names: sdcMicro evaluates column names inside data.table calls
  adult <- utils::read.csv(adult_file, stringsAsFactors = FALSE)
  keys5 <- c("sex", "age", "race", "marital.status", "education")
  keys9 <- c(keys5, "native.country", "workclass", "occupation", "relationship")
  for (key in keys9) adult[[key]] <- factor(adult[[key]])
  cat(sprintf("Adult: %d records; distinct patterns: 5 keys %d, 9 keys %d\n", nrow(adult),
              nrow(unique(adult[keys5])), nrow(unique(adult[keys9]))))
  settings <- list(list(keys = keys5, k = 5L), list(keys = keys9, k = 2L))
  for (st in settings) {
    for (na in c("category", "wildcard")) {
      r <- timed(suppress_local(adult, st$keys, k = st$k, na = na))
      results <- rbind(results, row_of("epimask", na, st$keys, st$k, adult, r$value$data,
                                       r$elapsed, r$cpu))
      print(utils::tail(results, 1L), row.names = FALSE)
    }
    if (use_sdc) {
      alphas <- if (sdc_alpha0) c(1, 0) else 1
      for (alpha in alphas) {
        sdc <- sdcMicro::createSdcObj(adult[st$keys], keyVars = st$keys, alpha = alpha)
        r <- timed(utils::capture.output(out <- sdcMicro::kAnon(sdc, k = st$k)))
        released <- sdcMicro::extractManipData(out)
        results <- rbind(results, row_of(sprintf("sdcMicro %s kAnon", utils::packageVersion("sdcMicro")),
                                         if (alpha == 1) "wildcard" else "category",
                                         st$keys, st$k, adult, released, r$elapsed, r$cpu))
        print(utils::tail(results, 1L), row.names = FALSE)
      }
    }
  }
  cat("\nAdult, side by side (recounts by epimask's counting routine on each output):\n")
  print(results, row.names = FALSE)
  epi <- results[results$tool == "epimask", ]
  sdc <- results[results$tool != "epimask", ]
  for (i in seq_len(nrow(sdc))) {
    mine <- epi[epi$keys == sdc$keys[i] & epi$k == sdc$k[i] & epi$reading == sdc$reading[i], ]
    cat(sprintf("%d keys, k = %d, %s: cells epimask / sdcMicro = %.3f, time sdcMicro / epimask = %.0f\n",
                sdc$keys[i], sdc$k[i], sdc$reading[i], mine$cells / sdc$cells[i],
                sdc$seconds[i] / max(mine$seconds, 0.01)))
  }
} else {
  cat("Adult file not found:", adult_file, "\n")
}

# 1e6 synthetic records, Adult-like margins
set.seed(1)
n <- 1e6
big <- data.frame(
  sex = factor(sample(c("Male", "Female"), n, TRUE, prob = c(0.67, 0.33))),
  age = pmin(90L, 17L + as.integer(stats::rgamma(n, shape = 3, scale = 7))),
  race = factor(sample(c("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"),
                       n, TRUE, prob = c(0.86, 0.09, 0.03, 0.01, 0.01))),
  marital = factor(sample(c("Married-civ-spouse", "Never-married", "Divorced", "Separated",
                            "Widowed", "Married-spouse-absent", "Married-AF-spouse"), n, TRUE,
                          prob = c(0.46, 0.32, 0.14, 0.03, 0.03, 0.015, 0.005))),
  education = factor(sample(sprintf("e%02d", 1:16), n, TRUE,
                            prob = c(0.33, 0.22, 0.17, 0.05, 0.04, 0.035, 0.033, 0.027, 0.018,
                                     0.018, 0.015, 0.013, 0.012, 0.01, 0.005, 0.002))))
keys <- names(big)
cat(sprintf("\n1e6 synthetic records, 5 keys: %d patterns\n", nrow(unique(big))))
for (na in c("category", "wildcard")) {
  r <- timed(suppress_local(big, keys, k = 5, na = na))
  s <- r$value
  cat(sprintf("  %s: %d cells in %d records, smallest class %d (recounted), %.1f s elapsed, %.1f s CPU\n",
              na, s$n_cells, s$n_records, s$min_class, r$elapsed, r$cpu))
}
cat("load at end:", system("uptime", intern = TRUE), "\n")
