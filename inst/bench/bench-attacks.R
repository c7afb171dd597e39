# The three attacks (risk_singling_out(), risk_linkability(), risk_inference())
# at 1e4, 1e5 and 1e6 original records, the release the same size (a masked
# release: noise on the numbers, dates shifted, ages moved by a year), 10
# columns of mixed types (4 numbers, a date, 5 categories), 2,000 attacks;
# time (elapsed and CPU) and memory (the process's peak resident set: each
# size runs in a fresh R process), and the exact nearest-neighbour search
# (k-d tree) against its brute-force twin (the exhaustive scan of every
# released record, methods vignette 28.2) on a sample of targets in the same
# run: the neighbours must be identical.
#   Rscript inst/bench/bench-attacks.R            # every size
#   Rscript inst/bench/bench-attacks.R 1e5        # one size
# Needs the package installed (R_LIBS pointing at it).

suppressPackageStartupMessages(library(epimask))

bench_data <- function(n, seed) {
  set.seed(seed)
  data.frame(
    age = sample(18:90, n, replace = TRUE),
    income = round(exp(rnorm(n, 10, 0.6))),
    bmi = round(rnorm(n, 26, 4), 1),
    score = rnorm(n),
    visit = as.Date("2018-01-01") + sample(0:1825, n, replace = TRUE),
    sex = factor(sample(c("f", "m"), n, replace = TRUE)),
    region = factor(sample(sprintf("r%02d", 1:20), n, replace = TRUE)),
    education = factor(sample(sprintf("e%02d", 1:16), n, replace = TRUE)),
    smoker = sample(c(TRUE, FALSE), n, replace = TRUE, prob = c(0.2, 0.8)),
    diagnosis = factor(sample(sprintf("d%03d", 1:200), n, replace = TRUE,
                              prob = rexp(200))),
    stringsAsFactors = FALSE)
}

bench_release <- function(d, seed) {
  set.seed(seed)
  n <- nrow(d)
  r <- d
  r$age <- r$age + sample(-1:1, n, replace = TRUE)
  r$income <- round(r$income * exp(rnorm(n, 0, 0.05)))
  r$bmi <- round(r$bmi + runif(n, -1, 1), 1)
  r$score <- r$score + rnorm(n, 0, 0.1)
  r$visit <- r$visit + sample(-7:7, n, replace = TRUE)
  r
}

peak_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}

timed <- function(label, expr) {
  gc()
  t <- system.time(value <- force(expr))
  cat(sprintf("  %-34s %8.2f s elapsed %8.2f s CPU  peak %7.0f MB  risk %s [%s, %s]\n",
              label, t[["elapsed"]], t[["user.self"]] + t[["sys.self"]], peak_mb(),
              format(signif(value$risk$value, 3)), format(signif(value$risk$interval[[1]], 3)),
              format(signif(value$risk$interval[[2]], 3))))
  invisible(value)
}

# The tree against the exhaustive scan on `m` targets: the same neighbours.
twin <- function(d, rel, cols, m, k = 1L) {
  codes <- epimask:::attack_code(cols, list(original = d, release = rel))
  q <- codes$coded$original[seq_len(m), , drop = FALSE]
  t_tree <- system.time(tree <- epimask:::gower_nearest(
    codes$coded$release, q, codes, cols, k, attack_options(search = "tree", threads = 1)))
  t_ex <- system.time(ex <- epimask:::gower_nearest(
    codes$coded$release, q, codes, cols, k, attack_options(search = "exhaustive", threads = 1)))
  cat(sprintf(paste0("  nearest released record, %d targets, %d columns: tree (index built and searched) %.3f s, ",
                     "exhaustive twin %.3f s (ratio %.1f), neighbours identical: %s, ",
                     "distances identical: %s\n"),
              m, length(cols), t_tree[["elapsed"]], t_ex[["elapsed"]],
              t_ex[["elapsed"]] / max(t_tree[["elapsed"]], 1e-3),
              identical(tree$idx, ex$idx), identical(tree$dist, ex$dist)))
}

run_size <- function(n) {
  cat(sprintf("\nn = %s original records (release the same size), 10 columns, 2,000 attacks\n",
              format(n, big.mark = ",", scientific = FALSE)))
  d <- bench_data(n, 1)
  rel <- bench_release(d, 2)
  cat(sprintf("  data in memory: %.0f MB; peak so far %.0f MB\n",
              (object.size(d) + object.size(rel)) / 2^20, peak_mb()))
  opts <- attack_options(threads = 1)
  timed("singling out, univariate", risk_singling_out(d, rel, n_attacks = 2000, seed = 1,
                                                       options = opts))
  timed("singling out, multivariate (3)", risk_singling_out(d, rel, n_attacks = 2000,
                                                            mode = "multivariate", n_cols = 3,
                                                            seed = 1, options = opts))
  aux <- list(c("age", "sex", "region", "visit", "smoker"),
              c("income", "bmi", "score", "education", "diagnosis"))
  timed("linkability (5 | 5 columns)", risk_linkability(d, rel, aux = aux, n_attacks = 2000,
                                                        seed = 1, options = opts))
  known <- setdiff(names(d), "diagnosis")
  timed("inference of a category (9 aux)", risk_inference(d, rel, aux = known,
                                                          secret = "diagnosis",
                                                          n_attacks = 2000, seed = 1,
                                                          options = opts))
  timed("inference of a number (9 aux)", risk_inference(d, rel, aux = setdiff(names(d), "income"),
                                                        secret = "income", n_attacks = 2000,
                                                        seed = 1, options = opts))
  m <- if (n >= 1e6) 200L else 2000L
  twin(d, rel, aux[[1]], m)
  twin(d, rel, aux[[2]], m)
  twin(d, rel, known, m)
}

args <- commandArgs(trailingOnly = TRUE)
cat(sprintf("bench-attacks.R: %s, R %s, epimask %s; load %s\n", Sys.info()[["nodename"]],
            getRversion(), utils::packageVersion("epimask"),
            paste(readLines("/proc/loadavg"), collapse = " ")))
if (length(args)) {
  run_size(as.numeric(args[[1]]))
} else {
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  for (n in c(1e4, 1e5, 1e6))
    system2(file.path(R.home("bin"), "Rscript"), c(script, format(n, scientific = FALSE)))
}
