# MDAV microaggregation from 1e6 to 1e7 records (issue 28): the current
# mask_microagg() against an earlier build of the package in the same run.
# Run with
#   EPIMASK_BENCH_MDAV_OLD_LIB=/path/to/old/library Rscript inst/bench/bench-mdav-1e7.R
# Not a test. Each case runs in its own R process (its peak resident memory,
# VmHWM, is its own). Data: k = 5, 3 standard normal variables (as
# bench-1e7.R), and 3 rounded exponential variables (skewed, with ties: the
# centroid moves as the cloud is peeled). Times: elapsed and CPU (user +
# system) of apply_mask() alone. The groups of the two builds must be
# identical (compared through a hash of the group of each record, in the
# order groups are formed).
# EPIMASK_BENCH_MDAV_N (default "1e6,2e6,1e7") sets the sizes,
# EPIMASK_BENCH_MDAV_SKEWED_MAX (default 1e7) the largest for the skewed
# data; without EPIMASK_BENCH_MDAV_OLD_LIB only the current build runs.

child <- function(n, kind, lib) {
  code <- sprintf('
suppressPackageStartupMessages(library(epimask%s))
n <- %.0f
set.seed(5)
d <- if ("%s" == "normal") data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n)) else
  data.frame(a = round(rexp(n) * 4) / 4, b = round(rexp(n) * 4) / 4, c = round(rexp(n) * 4) / 4)
invisible(gc())
t <- system.time(g <- epimask:::mdav_groups(as.matrix(d), 5L))
h <- sum(as.numeric(g) * ((seq_len(n) %%%% 1009) + 1))
hwm <- grep("VmHWM", readLines("/proc/self/status"), value = TRUE)
cat(sprintf("RESULT %%.2f %%.2f %%.0f %%.0f %%d\\n", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]],
            as.numeric(gsub("[^0-9]", "", hwm)) / 1024, h, max(g)))
', if (nzchar(lib)) sprintf(', lib.loc = "%s"', lib) else "", n, kind)
  file <- tempfile(fileext = ".R")
  writeLines(code, file)
  out <- suppressWarnings(system2("Rscript", file, stdout = TRUE, stderr = TRUE))
  line <- grep("^RESULT", out, value = TRUE)
  if (!length(line)) return(list(ok = FALSE, msg = paste(tail(out, 3), collapse = " | ")))
  list(ok = TRUE, v = as.numeric(strsplit(sub("^RESULT ", "", line), " ")[[1]]))
}

load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                            value = TRUE)[[1]]), error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs; R %s; epimask %s\n", cpu_model,
            parallel::detectCores(), getRversion(), utils::packageVersion("epimask")))
cat(sprintf("Load at start (1, 5, 15 min): %s\n", load_now()))
old_lib <- Sys.getenv("EPIMASK_BENCH_MDAV_OLD_LIB", "")
cat(sprintf("Earlier build: %s\n\n", if (nzchar(old_lib)) old_lib else "(none)"))
sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_MDAV_N", "1e6,2e6,1e7"), ",")[[1]])
skewed_max <- as.numeric(Sys.getenv("EPIMASK_BENCH_MDAV_SKEWED_MAX", "1e7"))

cat(sprintf("%-7s %6s %9s %9s %8s %9s %9s %8s %6s %5s  %s\n", "data", "n", "elapsed_s", "cpu_s",
            "peak_MB", "old_el_s", "old_cpu_s", "old_MB", "ratio", "same", "load after"))
for (kind in c("normal", "skewed")) {
  prev <- NULL
  for (n in sizes[kind == "normal" | sizes <= skewed_max]) {
    a <- child(n, kind, "")
    if (!a$ok) { cat(sprintf("%-7s %6g failed: %s\n", kind, n, a$msg)); next }
    b <- if (nzchar(old_lib)) child(n, kind, old_lib) else list(ok = FALSE)
    grow <- if (!is.null(prev)) sprintf("  x%.1f CPU over %g", a$v[2] / prev$cpu, prev$n) else ""
    cat(sprintf("%-7s %6g %9.2f %9.2f %8.0f %9s %9s %8s %6s %5s  %s%s\n", kind, n, a$v[1], a$v[2],
                a$v[3], if (b$ok) sprintf("%.2f", b$v[1]) else "-",
                if (b$ok) sprintf("%.2f", b$v[2]) else "-", if (b$ok) sprintf("%.0f", b$v[3]) else "-",
                if (b$ok) sprintf("%.1f", b$v[2] / a$v[2]) else "-",
                if (b$ok) identical(a$v[4:5], b$v[4:5]) else "-", load_now(), grow))
    prev <- list(cpu = a$v[2], n = n)
  }
}
