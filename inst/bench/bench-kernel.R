# Kernel masking: the C core (spatial index, no n x n matrix) against a dense
# plain-R implementation (A built from methods vignette section 1.1, then A %*% Z), and the C
# core alone on large n. Three masked columns; lambda chosen so that each
# record has about 50 neighbours within the cutoff (delta <= 36 lambda).
# Run: Rscript inst/bench/bench-kernel.R   (after installing epimask)
# The last section (registry scale on a shared machine, issue 15) times each
# call in a fresh R process, with and without a busy process on the machine;
# EPIMASK_BENCH_BEFORE=<library> adds the same runs with an older build
# installed in that library ("before"). EPIMASK_BENCH_SECTIONS=scale runs
# only that section.

library(epimask)
set.seed(2024)
n_dense <- c(2000, 4000, 5000)
n_large <- c(1e5, 1e6)
kernels <- c("exponential", "ring", "bvn")
neighbours <- 50
reps <- 3

make_data <- function(n) {
  xy <- matrix(runif(2 * n, -1, 1), ncol = 2)
  Z <- cbind(exp(-2 * sqrt(rowSums(xy^2))), rpois(n, 3), rnorm(n))
  list(xy = xy, Z = Z)
}

make_scheme <- function(kernel, lambda, xy) {
  switch(kernel,
    exponential = mask_kernel("exponential", lambda, xy),
    ring = mask_kernel("ring", lambda, xy, source = c(0, 0)),
    bvn = mask_kernel("bvn", lambda, xy, rho = 0.3))
}

# delta from every record to a few targets, straight from methods vignette section 1.1
delta_to <- function(kernel, xy, i) {
  switch(kernel,
    exponential = sqrt((xy[, 1] - xy[i, 1])^2 + (xy[, 2] - xy[i, 2])^2),
    ring = abs(sqrt(rowSums(xy^2)) - sqrt(sum(xy[i, ]^2))),
    bvn = {
      s <- apply(xy, 2, sd)
      z1 <- (xy[, 1] - xy[i, 1]) / s[1]
      z2 <- (xy[, 2] - xy[i, 2]) / s[2]
      (z1^2 - 2 * 0.3 * z1 * z2 + z2^2) / (1 - 0.3^2) / 2
    })
}

# lambda giving about `neighbours` records with delta <= 36 lambda
lambda_for <- function(kernel, xy) {
  targets <- sample(nrow(xy), 100)
  k <- neighbours + 1
  kth <- vapply(targets, function(i) sort(delta_to(kernel, xy, i), partial = k)[k], 0)
  median(kth) / 36
}

dense_r <- function(kernel, lambda, xy, Z) {
  D <- switch(kernel,
    exponential = as.matrix(dist(xy)),
    ring = { r <- sqrt(rowSums(xy^2)); abs(outer(r, r, "-")) },
    bvn = {
      s <- apply(xy, 2, sd)
      d1 <- outer(xy[, 1], xy[, 1], "-") / s[1]
      d2 <- outer(xy[, 2], xy[, 2], "-") / s[2]
      (d1^2 - 2 * 0.3 * d1 * d2 + d2^2) / (1 - 0.3^2) / 2
    })
  W <- exp(-D / lambda)
  (W / rowSums(W)) %*% Z
}

best_time <- function(expr_fun) {
  min(vapply(seq_len(reps), function(r) system.time(expr_fun())[["elapsed"]], 0))
}

sections <- strsplit(Sys.getenv("EPIMASK_BENCH_SECTIONS", "dense,large,scale"), ",")[[1]]
if ("dense" %in% sections) {
cat(sprintf("epimask kernel benchmark, %s, %d thread(s) (option epimask.threads)\n",
            format(Sys.time(), "%Y-%m-%d %H:%M"), getOption("epimask.threads", 2L)))
cat("\n-- C core vs dense plain R (A built in R, then A %*% Z), 3 columns --\n")
cat(sprintf("%-12s %6s %10s %10s %10s %8s %10s\n",
            "kernel", "n", "lambda", "dense_s", "epimask_s", "ratio", "max_diff"))
for (n in n_dense) {
  dat <- make_data(n)
  for (kernel in kernels) {
    lambda <- lambda_for(kernel, dat$xy)
    sch <- make_scheme(kernel, lambda, dat$xy)
    t_dense <- best_time(function() dense_r(kernel, lambda, dat$xy, dat$Z))
    t_c <- best_time(function() apply_mask(dat$Z, sch))
    diff <- max(abs(apply_mask(dat$Z, sch) - dense_r(kernel, lambda, dat$xy, dat$Z)))
    cat(sprintf("%-12s %6d %10.3g %10.3f %10.4f %8.0f %10.1e\n",
                kernel, n, lambda, t_dense, t_c, t_dense / t_c, diff))
  }
}

}

if ("large" %in% sections) {
cat("\n-- C core alone, large n, 3 columns (seconds, including the index build) --\n")
cat("(cpu_s = user + system time of all threads: a figure less sensitive to machine load)\n")
cat(sprintf("%-12s %8s %10s %10s %8s\n", "kernel", "n", "lambda", "epimask_s", "cpu_s"))
for (n in n_large) {
  dat <- make_data(n)
  for (kernel in kernels) {
    lambda <- lambda_for(kernel, dat$xy)
    sch <- make_scheme(kernel, lambda, dat$xy)
    tm <- system.time(out <- apply_mask(dat$Z, sch))
    cat(sprintf("%-12s %8.0f %10.3g %10.3f %8.2f\n", kernel, n, lambda, tm[["elapsed"]],
                tm[["user.self"]] + tm[["sys.self"]]))
  }
}
}

# ---- registry scale on a shared machine (issue 15) ---------------------------
# apply_mask(mask_kernel("exponential", 1e-5, coords), Z): n uniform points in
# the unit square, 3 columns, almost no neighbour within the cutoff, so the
# time is the loop's overhead. Before the fix, the rows ran in blocks of
# max(2e7 / n, 64 * threads) rows, one OpenMP parallel region per block: 7,800
# regions at n = 1e6, each ending in a barrier that waits for the thread the
# busy process has taken from its core (a scheduler time slice), so the time
# grew like n^2 on a loaded machine while one thread worked. Now one region
# runs per fixed amount of counted work (src/par_rows.c).
if ("scale" %in% sections) {
  one_run <- tempfile(fileext = ".R")
  writeLines(c(
    "args <- commandArgs(TRUE)",
    "if (nzchar(args[1])) .libPaths(c(args[1], .libPaths()))",
    "suppressMessages(library(epimask))",
    "n <- as.numeric(args[2]); set.seed(1)",
    "xy <- matrix(runif(2 * n), ncol = 2); Z <- matrix(rnorm(3 * n), ncol = 3)",
    "sch <- mask_kernel('exponential', as.numeric(args[3]), xy)",
    "options(epimask.threads = 2)",
    "t <- system.time(suppressWarnings(apply_mask(Z, sch)))", # most records isolated by design
    "cat(t[['elapsed']], t[['user.self']] + t[['sys.self']], '\n')"), one_run)
  time_in_fresh_r <- function(lib, n, lambda) {
    out <- system2(file.path(R.home("bin"), "Rscript"), c(one_run, shQuote(lib), n, lambda),
                   stdout = TRUE)
    as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
  }
  load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
  # a busy process of our own, ended by its pid
  start_busy <- function() {
    as.integer(system(paste(shQuote(file.path(R.home("bin"), "Rscript")),
                            "-e 'repeat{}' >/dev/null 2>&1 & echo $!"), intern = TRUE))
  }
  builds <- c(after = "")
  before <- Sys.getenv("EPIMASK_BENCH_BEFORE", "")
  if (nzchar(before)) builds <- c(before = before, builds)
  cat("\n-- registry scale: exponential kernel, lambda 1e-5, 3 columns, 2 threads --\n")
  cat(sprintf("%-7s %-5s %8s %10s %8s  %s\n", "build", "busy", "n", "elapsed_s", "cpu_s",
              "load average (1, 5, 15 min)"))
  for (busy in c(FALSE, TRUE)) {
    pid <- if (busy) start_busy() else NA_integer_
    if (busy) Sys.sleep(1)
    for (b in names(builds)) for (n in c(1e5, 4e5, 1e6)) {
      tm <- time_in_fresh_r(builds[[b]], n, 1e-5)
      cat(sprintf("%-7s %-5s %8.0f %10.2f %8.2f  %s\n", b, busy, n, tm[1], tm[2], load_now()))
    }
    if (busy) tools::pskill(pid)
  }
}
