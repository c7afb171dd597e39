# Growth of SUDA and MDAV from 1e5 to 1e7 records (issue 28). Run with
#   Rscript inst/bench/bench-suda-mdav.R
# Not a test. Each case runs in its own R process (its peak resident memory,
# VmHWM, is its own). Times: elapsed and CPU (user + system) of the call.
#  - SUDA, 8 keys (the data of bench-risk-measures.R, about 1e5 patterns per
#    key subset, skewed): risk_suda()'s search against the plain SUDA2 check
#    (the "seen twice" test by scans only, suda.c with cache_after = -1) in
#    the same run; the MSU counts must be identical.
#  - MDAV, k = 5, 3 standard normal variables: mask_microagg(5); at 1e4 the
#    plain R MDAV (full scans, as the tests' reference; defined in
#    bench-masks.R beside this script) in the same run; the groups must be
#    identical.
# EPIMASK_BENCH_SCALE_N (default "1e5,1e6,1e7") sets the sizes;
# EPIMASK_BENCH_SCALE_PLAIN_MAX (default 1e6) the largest n for the plain
# SUDA2 check (it grows faster than n).

child <- function(code) {
  file <- tempfile(fileext = ".R")
  writeLines(c("suppressPackageStartupMessages(library(epimask))", code,
               'hwm <- grep("VmHWM", readLines("/proc/self/status"), value = TRUE)',
               'cat(sprintf("PEAK %.0f\\n", as.numeric(gsub("[^0-9]", "", hwm)) / 1024))'), file)
  out <- suppressWarnings(system2("Rscript", file, stdout = TRUE, stderr = TRUE))
  res <- grep("^(RESULT|PEAK)", out, value = TRUE)
  if (length(res) < 2) return(list(ok = FALSE, msg = paste(tail(out, 3), collapse = " | ")))
  v <- as.numeric(strsplit(sub("^RESULT ", "", res[1]), " ")[[1]])
  list(ok = TRUE, v = v, peak = as.numeric(sub("^PEAK ", "", res[2])))
}

suda_code <- function(n, cache_after) sprintf('
n <- %.0f
set.seed(3)
card <- c(70, 2, 5, 7, 16, 9, 14, 40)
d <- as.data.frame(lapply(card, function(k) sample.int(k, n, TRUE, prob = rev(seq_len(k))^1.5)))
codes <- sapply(d, function(x) match(x, unique(x)))
t <- system.time(res <- epimask:::suda_msu(codes, 8L, cache_after = %g))
h <- sum(as.vector(res$msu %%*%% c(1, 3, 7, 13, 29, 53, 101, 211)) * (seq_len(n) %%%% 1009))
cat(sprintf("RESULT %%.2f %%.2f %%.0f %%.0f\\n", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]],
            sum(as.numeric(res$msu)), h))
', n, cache_after)

mdav_code <- function(n, plain) sprintf('
n <- %.0f
set.seed(5)
d <- data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n))
t <- system.time(out <- apply_mask(d, mask_microagg(5)))
g <- match(paste(out$a, out$b, out$c), unique(paste(out$a, out$b, out$c)))
same <- NA
tp <- c(elapsed = -1, user.self = -1, sys.self = 0)
if (%s) {
  # the plain R MDAV of bench-masks.R (full scans, as in the tests)
  ex <- parse("%s")
  for (e in ex) if (is.call(e) && identical(e[[2L]], quote(plain_mdav))) eval(e)
  tp <- system.time(ref <- plain_mdav(as.matrix(d), 5))
  same <- identical(g, match(ref, unique(ref)))
}
cat(sprintf("RESULT %%.2f %%.2f %%.2f %%.2f %%d\\n", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]],
            tp[["elapsed"]], tp[["user.self"]] + tp[["sys.self"]], if (is.na(same)) -1L else as.integer(same)))
', n, if (plain) "TRUE" else "FALSE", masks_script)

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
masks_script <- normalizePath(file.path(dirname(script), "bench-masks.R"))
load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                            value = TRUE)[[1]]), error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs; R %s; epimask %s\n", cpu_model,
            parallel::detectCores(), getRversion(), utils::packageVersion("epimask")))
cat(sprintf("Load at start (1, 5, 15 min): %s\n\n", load_now()))
sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SCALE_N", "1e5,1e6,1e7"), ",")[[1]])
plain_max <- as.numeric(Sys.getenv("EPIMASK_BENCH_SCALE_PLAIN_MAX", "1e6"))

cat("== SUDA, 8 keys: risk_suda()'s search against the plain SUDA2 check ==\n")
cat(sprintf("%6s %10s %9s %8s %11s %9s %7s %6s  %s\n", "n", "elapsed_s", "cpu_s", "peak_MB",
            "plain_cpu_s", "plain_MB", "ratio", "same", "load"))
prev <- NULL
for (n in sizes) {
  a <- child(suda_code(n, 1))
  if (!a$ok) { cat(sprintf("%6g failed: %s\n", n, a$msg)); next }
  b <- if (n <= plain_max) child(suda_code(n, -1)) else list(ok = FALSE)
  grow <- if (!is.null(prev)) sprintf("  x%.1f CPU over %g", a$v[2] / prev$cpu, prev$n) else ""
  cat(sprintf("%6g %10.2f %9.2f %8.0f %11s %9s %7s %6s  %s (%.0f MSUs)%s\n", n, a$v[1], a$v[2], a$peak,
              if (b$ok) sprintf("%.2f", b$v[2]) else "-", if (b$ok) sprintf("%.0f", b$peak) else "-",
              if (b$ok) sprintf("%.1f", b$v[2] / a$v[2]) else "-",
              if (b$ok) identical(a$v[3:4], b$v[3:4]) else "-", load_now(), a$v[3], grow))
  prev <- list(cpu = a$v[2], n = n)
}

cat("\n== MDAV, k = 5, 3 variables (plain R MDAV at 1e4) ==\n")
cat(sprintf("%6s %10s %9s %8s %11s %7s %6s  %s\n", "n", "elapsed_s", "cpu_s", "peak_MB",
            "plain_cpu_s", "ratio", "same", "load"))
prev <- NULL
for (n in c(1e4, sizes)) {
  a <- child(mdav_code(n, n <= 1e4))
  if (!a$ok) { cat(sprintf("%6g failed: %s\n", n, a$msg)); next }
  grow <- if (!is.null(prev)) sprintf("  x%.1f CPU over %g", a$v[2] / prev$cpu, prev$n) else ""
  cat(sprintf("%6g %10.2f %9.2f %8.0f %11s %7s %6s  %s%s\n", n, a$v[1], a$v[2], a$peak,
              if (a$v[5] >= 0) sprintf("%.2f", a$v[4]) else "-",
              if (a$v[5] >= 0) sprintf("%.0f", a$v[4] / a$v[2]) else "-",
              if (a$v[5] >= 0) as.logical(a$v[5]) else "-", load_now(), grow))
  prev <- list(cpu = a$v[2], n = n)
}
