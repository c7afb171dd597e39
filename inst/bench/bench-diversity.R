# Benchmark: l-diversity and t-closeness per class (methods vignette section
# 12) in C (src/diversity.c, the one implementation since issue 24) against
# the vectorised R code the package used before (kept here, and only here, as
# the reference: (class, value) pairs from the grouping engine, rowsum() per
# class, the ordered EMD by prefix sums of the cumulative overall share).
# Same classes for both; prints seconds, the C-over-R ratio, the largest
# difference and the load. Run after installing the package:
#   Rscript inst/bench/bench-diversity.R   (EPIMASK_BENCH_QUICK=1: 1e5 not 1e6)

suppressPackageStartupMessages(library(epimask))
ns <- asNamespace("epimask")
quick <- nzchar(Sys.getenv("EPIMASK_BENCH_QUICK"))
big <- if (quick) 1e5 else 1e6
cat(sprintf("machine: %s, %d cores; R %s\n", Sys.info()[["machine"]], parallel::detectCores(),
            getRversion()))
load_avg <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")

# ---- the former R implementation (R/risk-ldiversity.R before issue 24) --------
old_pairs <- function(group, codes) {
  m <- cbind(group, codes)
  storage.mode(m) <- "integer"
  pg <- ns$call_c(ns$C_freq_group, list(codes = m), arg = "keys")
  first <- which(pg$group > c(0L, cummax(pg$group)[-length(pg$group)]))
  pairs <- data.frame(class = group[first], value = codes[first], count = pg$size)
  pairs[order(pairs$class, pairs$value, method = "radix"), , drop = FALSE]
}

old_ldiversity_one <- function(ec, x, c) {
  n_classes <- length(ec$size)
  pairs <- old_pairs(ec$group, ns$sensitive_codes(x))
  cls <- pairs$class
  distinct <- tabulate(cls, n_classes)
  p <- pairs$count / ec$size[cls]
  entropy <- exp(-ns$group_sums(p * log(p), cls, n_classes))
  o <- order(cls, -pairs$count, method = "radix")
  cls_o <- cls[o]
  cnt <- pairs$count[o]
  start <- c(TRUE, cls_o[-1L] != cls_o[-length(cls_o)])
  start_at <- cummax(ifelse(start, seq_along(cls_o), 0L))
  top <- cnt[start_at]
  before <- cumsum(as.double(cnt)) - cnt
  before <- before - before[start_at]
  tail <- ec$size[cls_o] - before
  holds <- top < c * tail
  recursive <- pmax(tabulate(cls_o[holds], n_classes), 1L)
  data.frame(distinct = distinct, entropy = entropy, recursive = recursive)
}

old_emd_one <- function(ec, x, ordered) {
  n_classes <- length(ec$size)
  codes <- ns$sensitive_codes(x, ordered)
  m <- max(codes)
  q <- tabulate(codes, m) / length(codes)
  pairs <- old_pairs(ec$group, codes)
  cls <- pairs$class
  p <- pairs$count / ec$size[cls]
  if (!ordered) {
    part <- abs(p - q[pairs$value]) - q[pairs$value]
    return(pmin(pmax((1 + ns$group_sums(part, cls, n_classes)) / 2, 0), 1))
  }
  if (m == 1L) return(numeric(n_classes))
  qc <- cumsum(q)
  S <- c(0, cumsum(qc))
  run_sum <- function(level, a, b) {
    split <- pmin(pmax(findInterval(level, qc), a - 1L), b)
    level * (split - a + 1) - (S[split + 1L] - S[a]) +
      (S[b + 1L] - S[split + 1L]) - level * (b - split)
  }
  last <- c(cls[-1L] != cls[-length(cls)], TRUE)
  first <- c(TRUE, last[-length(last)])
  cum_count <- cumsum(as.double(pairs$count))
  start_at <- cummax(ifelse(first, seq_along(cls), 0L))
  within <- cum_count - (cum_count[start_at] - pairs$count[start_at])
  cum_p <- within / ec$size[cls]
  next_value <- c(pairs$value[-1L], 0L)
  b <- ifelse(last, m, next_value - 1L)
  runs <- run_sum(cum_p, pairs$value, b)
  lead <- ifelse(first, S[pairs$value], 0)
  total <- ns$group_sums(runs + lead, cls, n_classes)
  pmin(pmax(total / (m - 1), 0), 1)
}

# ---- timing -------------------------------------------------------------------
# median elapsed and CPU seconds of `reps` runs
time_it <- function(f, reps = 3) {
  t <- vapply(seq_len(reps), function(i) {
    tm <- system.time(f())
    c(tm[["elapsed"]], tm[["user.self"]] + tm[["sys.self"]])
  }, numeric(2))
  apply(t, 1, stats::median)
}

compare <- function(label, data, keys, s, what, ordered = FALSE, c = 2) {
  ec <- ns$key_groups(data, keys)
  x <- data[[s]]
  if (what == "l") {
    new <- function() ns$ldiversity_one(ec, x, c)
    old <- function() old_ldiversity_one(ec, x, c)
  } else {
    new <- function() ns$emd_one(ec, x, ordered)
    old <- function() old_emd_one(ec, x, ordered)
  }
  a <- new()
  b <- old()
  diff <- if (is.data.frame(a)) max(abs(as.matrix(a) - as.matrix(b))) else max(abs(a - b))
  tn <- time_it(new)
  to <- time_it(old)
  cat(sprintf("%-40s n = %-7d classes = %-7d m = %-6d C %6.3f s (cpu %6.3f)  R %6.3f s (cpu %6.3f)  R/C %5.1f (cpu %5.1f)  max|diff| %.2g  identical %s  load %s\n",
              label, nrow(data), length(ec$size), length(unique(x)), tn[1], tn[2], to[1], to[2],
              to[1] / tn[1], to[2] / max(tn[2], 1e-3), diff, identical(a, b), load_avg()))
}

# ---- Adult census --------------------------------------------------------------
adult_file <- Sys.getenv("EPIMASK_ADULT", "../shared/data/adult.csv")
if (!file.exists(adult_file)) adult_file <- "/work/shared/data/adult.csv"
if (file.exists(adult_file)) {
  ad <- utils::read.csv(adult_file, check.names = FALSE, stringsAsFactors = FALSE)
  keys <- c("age", "sex", "race", "marital-status")
  compare("adult: l-diversity of occupation", ad, keys, "occupation", "l")
  compare("adult: EMD of occupation (equal)", ad, keys, "occupation", "t")
  compare("adult: EMD of hours-per-week (ordered)", ad, keys, "hours-per-week", "t", TRUE)
  compare("adult: EMD of capital-gain (ordered)", ad, keys, "capital-gain", "t", TRUE)
  compare("adult: EMD of fnlwgt (ordered)", ad, keys, "fnlwgt", "t", TRUE)
}

# ---- synthetic: 5 keys, a sensitive variable with many values -------------------
set.seed(1)
d <- data.frame(age = sample(18:90, big, TRUE), sex = sample(c("F", "M"), big, TRUE),
                region = sample(sprintf("R%02d", 1:40), big, TRUE),
                edu = sample(1:6, big, TRUE), job = sample(1:12, big, TRUE),
                dx = sample(sprintf("D%03d", 1:300), big, TRUE, prob = rexp(300)),
                income = round(rlnorm(big, 10, 0.7), -2))
keys <- c("age", "sex", "region", "edu", "job")
compare("synthetic: l-diversity of dx", d, keys, "dx", "l")
compare("synthetic: EMD of dx (equal)", d, keys, "dx", "t")
compare("synthetic: EMD of income (ordered)", d, keys, "income", "t", TRUE)
compare("synthetic, 3 keys: EMD of income (ordered)", d, keys[1:3], "income", "t", TRUE)
