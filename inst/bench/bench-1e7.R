# Registry scale (issue 28): every risk measure and mask at 1e7 records, and
# the growth from 1e6. Run with
#   Rscript inst/bench/bench-1e7.R
# Not a test. Each case runs in its own R process (Rscript), so its peak
# memory is its own: peak_rss_mb is the process's peak resident set
# (VmHWM: data, copies and C scratch included), call_mb the R heap the call
# itself added at its peak (gc "max used" over the data already made).
# Data: 5 categorical keys (as bench-risk-measures.R: about 1e5 patterns,
# many small classes), a sensitive variable and weights; or 3 numeric
# variables (the Zhou et al. example I for the matching risk, 3 standard
# normals for linkage and the masks). Times: elapsed and CPU (user + system,
# both threads) of the call alone, not of making the data.
# EPIMASK_BENCH_1E7_N (default "1e6,1e7") sets the sizes,
# EPIMASK_BENCH_1E7_CASES (default all) a comma-separated list of cases.
# The matching risk runs its default call (c, I and the rates; past 1e9
# pairs prob_true is not computed) on a sample of 1e5 targets, scaled to all
# targets (marked "~"); the index over all records is built in full.
# EPIMASK_BENCH_1E7_TARGETS (default 1e5) sets that sample's size: a second
# run with fewer targets separates the index build from the cost per target.

cases <- list(
  kanon = "risk_kanon(d, keys5)",
  identifiability = "risk_identifiability(d, d, keys5)",
  ldiversity = "risk_ldiversity(d, keys5, 'diagnosis')",
  tcloseness = "risk_tcloseness(d, keys5, 'diagnosis')",
  individual = "risk_individual(d, keys5, weights = 'w')",
  suda = "risk_suda(d, keys5)",
  linkage = "risk_linkage(num, masked, c('a', 'b', 'c'))",
  match = "risk_match(zdl$original, zdl$masked, c('x', 's1'), 'y', targets = tg, progress = FALSE)",
  noise = "apply_mask(num, mask_noise(0.1, dist = 'correlated'))",
  round = "apply_mask(num, mask_round(2))",
  topcode = "apply_mask(num, mask_topcode(upper = 2))",
  group = "apply_mask(num, mask_group(seq(-6, 6, by = 0.5)))",
  swap = "apply_mask(num, mask_swap(5))",
  microagg = "apply_mask(num, mask_microagg(5))",
  pram = "apply_mask(d[c('region', 'marital')], mask_pram(0.8))",
  kernel = "apply_mask(num, mask_kernel('exponential', 0.02 / sqrt(n), as.matrix(num[c('a', 'b')])), vars = 'c')"
)
data_for <- c(kanon = "keys", identifiability = "keys", ldiversity = "keys",
              tcloseness = "keys", individual = "keys", suda = "keys", linkage = "num", match = "zdl",
              pram = "keys")

child <- function(case, n) {
  code <- sprintf('
suppressPackageStartupMessages(library(epimask))
n <- %.0f
make <- "%s"
set.seed(1)
if (make == "keys") {
  d <- data.frame(age = sample(18:90, n, TRUE), sex = sample(c("F", "M"), n, TRUE),
    region = sample(sprintf("R%%02d", 1:40), n, TRUE), educ = sample(c(letters[1:8], NA), n, TRUE),
    marital = sample(c("single", "married", "divorced", "widowed"), n, TRUE),
    diagnosis = sample(sprintf("D%%02d", 1:20), n, TRUE, prob = (20:1)^2),
    w = runif(n, 1, 50), stringsAsFactors = FALSE)
  keys5 <- c("age", "sex", "region", "educ", "marital")
} else if (make == "zdl") {
  sim <- as.data.frame(simulate_zdl(1, n = n, seed = 1))[, c("s1", "s2", "x", "y")]
  sch <- mask_kernel("ring", 100 * sqrt(2) / n / 72, as.matrix(sim[, c("s1", "s2")]), source = c(0, 0))
  zdl <- list(original = sim, masked = suppressWarnings(apply_mask(sim, sch, vars = c("s1", "x", "y"))))
  rm(sim, sch)
  tg <- round(seq(1, n, length.out = min(n, %.0f)))
} else {
  num <- data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n))
  masked <- num + rnorm(3 * n, sd = 0.1)
}
invisible(gc(reset = TRUE))
base <- sum(gc()[, 2L])
t <- system.time(res <- suppressWarnings(suppressMessages(%s)))
call_mb <- sum(gc()[, 6L]) - base
hwm <- grep("VmHWM", readLines("/proc/self/status"), value = TRUE)
peak <- as.numeric(gsub("[^0-9]", "", hwm)) / 1024
scale <- if (make == "zdl") n / length(tg) else 1
cat(sprintf("RESULT %%.2f %%.2f %%.0f %%.0f %%.6g\\n", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]],
            peak, call_mb, scale))
', n, if (case %in% names(data_for)) data_for[[case]] else "num", n_targets, cases[[case]])
  file <- tempfile(fileext = ".R")
  writeLines(code, file)
  out <- suppressWarnings(system2("Rscript", file, stdout = TRUE, stderr = TRUE))
  line <- grep("^RESULT", out, value = TRUE)
  if (!length(line)) return(list(ok = FALSE, msg = paste(tail(out, 3), collapse = " | ")))
  v <- as.numeric(strsplit(sub("^RESULT ", "", line), " ")[[1]])
  list(ok = TRUE, elapsed = v[1], cpu = v[2], peak = v[3], call = v[4], scale = v[5])
}

n_targets <- as.numeric(Sys.getenv("EPIMASK_BENCH_1E7_TARGETS", "1e5"))
load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                            value = TRUE)[[1]]), error = function(e) "unknown")
mem_gb <- tryCatch(as.numeric(gsub("[^0-9]", "", grep("MemTotal", readLines("/proc/meminfo"),
                                                      value = TRUE))) / 2^20, error = function(e) NA)
cat(sprintf("Machine: %s, %d logical CPUs, %.0f GiB; R %s; epimask %s\n", cpu_model,
            parallel::detectCores(), mem_gb, getRversion(), utils::packageVersion("epimask")))
cat(sprintf("Load at start (1, 5, 15 min): %s\n\n", load_now()))
sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_1E7_N", "1e6,1e7"), ",")[[1]])
which <- Sys.getenv("EPIMASK_BENCH_1E7_CASES", paste(names(cases), collapse = ","))
which <- intersect(strsplit(which, ",")[[1]], names(cases))
cat(sprintf("%-16s %6s %10s %9s %12s %9s %9s  %s\n", "case", "n", "elapsed_s", "cpu_s",
            "cpu_all_s", "peak_MB", "call_MB", "load (1, 5, 15 min)"))
prev <- list()
for (case in which) for (n in sizes) {
  r <- child(case, n)
  if (!r$ok) {
    cat(sprintf("%-16s %6g  failed: %s\n", case, n, r$msg))
    next
  }
  all_cpu <- r$cpu * r$scale
  growth <- if (!is.null(prev[[case]])) sprintf(" x%.1f CPU over %g", all_cpu / prev[[case]]$cpu,
                                               prev[[case]]$n) else ""
  cat(sprintf("%-16s %6g %10.2f %9.2f %11.1f%s %9.0f %9.0f  %s%s\n", case, n, r$elapsed, r$cpu,
              all_cpu, if (r$scale > 1) "~" else " ", r$peak, r$call, load_now(), growth))
  prev[[case]] <- list(cpu = all_cpu, n = n)
}
