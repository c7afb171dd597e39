# Benchmark: the masking forms of METHODS 15 against sdcMicro (when
# installed) and against the plain algorithms, in one run:
# - MDAV microaggregation (mask_microagg(5), n x 3 standard normals) against
#   sdcMicro::microaggregation(method = "mdav") and, at 1e4, the plain R MDAV
#   by full scans (the twin of the tests: the groups must be identical);
# - rank swapping (mask_swap(5)) against sdcMicro::rankSwap(P = 5);
# - grouping into n / 3 intervals (mask_group(), breaks at every third order
#   statistic) against sdcMicro's univariate microaggregation ("onedims") and
#   the former per-interval means;
# - the Adult census data: MDAV on age, hours-per-week, capital-gain, and
#   invariant PRAM on race and marital-status.
# Prints seconds (elapsed and CPU), ratios (reference / epimask) and the
# load average. sdcMicro's MDAV is quadratic: it runs at n <= 1e5 only
# unless EPIMASK_BENCH_SDC_MAX says otherwise.
# Run: Rscript inst/bench/bench-masks.R [sizes...]   (default 1e5 1e6)

suppressPackageStartupMessages(library(epimask))

args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args)) as.numeric(args) else c(1e5, 1e6)
sdc_max <- as.numeric(Sys.getenv("EPIMASK_BENCH_SDC_MAX", "1e5"))
has_sdc <- requireNamespace("sdcMicro", quietly = TRUE)
adult_file <- "/work/shared/data/adult.csv"

load_avg <- function() {
  la <- tryCatch(readLines("/proc/loadavg", 1L), error = function(e) NA_character_)
  strsplit(la, " ")[[1L]][1L]
}

timed <- function(expr) {
  t <- system.time(value <- force(expr), gcFirst = TRUE)
  list(value = value, elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
}

row <- function(task, n, ours, ref = NULL, ref_name = NA, check = NA) {
  data.frame(task = task, n = format(n, scientific = TRUE), epimask_s = round(ours$elapsed, 3),
             epimask_cpu = round(ours$cpu, 3), reference = ref_name,
             ref_s = if (is.null(ref)) NA else round(ref$elapsed, 3),
             ratio = if (is.null(ref)) NA else round(ref$elapsed / ours$elapsed, 1),
             cpu_ratio = if (is.null(ref)) NA else round(ref$cpu / ours$cpu, 1),
             check = check, load = load_avg(), stringsAsFactors = FALSE)
}

# MDAV by full scans over the remaining records (as tests/testthat/helper-masks.R)
plain_mdav <- function(X, k) {
  n <- nrow(X)
  Z <- scale(X)
  tree_sum <- function(v) {
    N <- 1
    while (N < length(v)) N <- N * 2
    v <- c(v, numeric(N - length(v)))
    while (length(v) > 1) v <- v[c(TRUE, FALSE)] + v[c(FALSE, TRUE)]
    v
  }
  sqdist <- function(centre) {
    d <- 0
    for (j in seq_len(ncol(Z))) { u <- Z[, j] - centre[j]; d <- d + u * u }
    d
  }
  alive <- rep(TRUE, n)
  group <- integer(n)
  ng <- 0L
  centroid <- function() vapply(seq_len(ncol(Z)), function(j) tree_sum(ifelse(alive, Z[, j], 0)), 1) / sum(alive)
  farthest <- function(centre, skip = 0) {
    d <- sqdist(centre); ok <- alive; ok[skip] <- FALSE
    cand <- which(ok); cand[which(d[cand] == max(d[cand]))[1]]
  }
  group_of <- function(r) {
    d <- sqdist(Z[r, ]); ok <- alive; ok[r] <- FALSE
    cand <- which(ok); near <- cand[order(d[cand], cand)][seq_len(k - 1)]
    c(r, near[!is.na(near)])
  }
  take <- function(m) { ng <<- ng + 1L; group[m] <<- ng; alive[m] <<- FALSE }
  while (sum(alive) >= 3 * k) {
    r <- farthest(centroid()); s <- farthest(Z[r, ], r)
    take(group_of(r)); if (!alive[s]) s <- farthest(Z[r, ]); take(group_of(s))
  }
  if (sum(alive) >= 2 * k) take(group_of(farthest(centroid())))
  if (any(alive)) take(which(alive))
  group
}

# the former mask_group(): one pass over the reference per interval
per_interval_means <- function(x, breaks) {
  nb <- length(breaks)
  bin <- findInterval(x, breaks, rightmost.closed = TRUE)
  sums <- vapply(seq_len(nb - 1L), function(b) sum(x[bin == b]), numeric(1))
  (sums / tabulate(bin, nb - 1L))[bin]
}

set.seed(2026)
out <- list()

# ---- MDAV -------------------------------------------------------------------------
n0 <- 1e4
X <- matrix(rnorm(n0 * 3), n0, 3, dimnames = list(NULL, c("a", "b", "c")))
ours <- timed(epimask:::mdav_groups(X, 5L))
ref <- timed(plain_mdav(X, 5L))
out[[length(out) + 1L]] <- row("MDAV k=5, p=3", n0, ours, ref, "plain R MDAV",
                               if (identical(ours$value, ref$value)) "identical groups" else "GROUPS DIFFER")
for (n in sizes) {
  d <- as.data.frame(matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("a", "b", "c"))))
  ours <- timed(apply_mask(d, mask_microagg(5)))
  ref <- NULL
  check <- NA
  if (has_sdc && n <= sdc_max) {
    ref <- timed(sdcMicro::microaggregation(d, variables = c("a", "b", "c"), aggr = 5, method = "mdav"))
    released <- as.data.frame(ref$value)[c("a", "b", "c")]
    check <- sprintf("max |diff| vs sdcMicro %.3g", max(abs(as.matrix(released) - as.matrix(ours$value))))
  }
  out[[length(out) + 1L]] <- row("MDAV k=5, p=3", n, ours, ref,
                                 if (has_sdc && n <= sdc_max) "sdcMicro mdav" else NA, check)
}

# ---- rank swapping ----------------------------------------------------------------
for (n in sizes) {
  d <- data.frame(a = rnorm(n), b = rexp(n), c = rnorm(n))
  ours <- timed(apply_mask(d, mask_swap(5)))
  kept <- all(vapply(names(d), function(v) identical(sort(ours$value[[v]]), sort(d[[v]])), TRUE))
  ref <- NULL
  if (has_sdc) {
    ref <- timed(sdcMicro::rankSwap(d, variables = c("a", "b", "c"), TopPercent = 0,
                                    BottomPercent = 0, P = 5))
  }
  out[[length(out) + 1L]] <- row("rank swap p=5, 3 vars", n, ours, ref,
                                 if (has_sdc) "sdcMicro rankSwap" else NA,
                                 if (kept) "multisets identical" else "MULTISET CHANGED")
}

# ---- grouping into n / 3 intervals (univariate microaggregation) -----------------------
n <- 1e5
x <- rnorm(n)
s <- sort(x)
breaks <- c(s[1 + 3 * (seq_len(n %/% 3) - 1)], Inf)
d <- data.frame(x = x)
ours <- timed(apply_mask(d, mask_group(breaks)))
uni <- apply_mask(d, mask_microagg(3, "univariate"))$x
check <- sprintf("max |diff| vs mask_microagg univariate %.3g", max(abs(uni - ours$value$x)))
ref <- NULL
if (has_sdc) {
  ref <- timed(sdcMicro::microaggregation(d, variables = "x", aggr = 3, method = "onedims"))
  check <- paste0(check, sprintf("; vs sdcMicro %.3g",
                                 max(abs(as.data.frame(ref$value)$x - ours$value$x))))
}
out[[length(out) + 1L]] <- row("mask_group n/3 intervals", n, ours, ref,
                               if (has_sdc) "sdcMicro onedims" else NA, check)
n_old <- 2e4
x2 <- x[seq_len(n_old)]
s2 <- sort(x2)
br2 <- c(s2[1 + 3 * (seq_len(n_old %/% 3) - 1)], Inf)
ours <- timed(apply_mask(data.frame(x = x2), mask_group(br2)))
ref <- timed(per_interval_means(x2, br2))
out[[length(out) + 1L]] <- row("mask_group n/3 intervals", n_old, ours, ref, "former per-interval means",
                               sprintf("max |diff| %.3g", max(abs(ref$value - ours$value$x))))

# ---- Adult census -----------------------------------------------------------------------
if (file.exists(adult_file)) {
  adult <- utils::read.csv(adult_file, stringsAsFactors = FALSE)
  vars <- c("age", "hours.per.week", "capital.gain")
  ours <- timed(apply_mask(adult, mask_microagg(5), vars))
  ref <- NULL
  check <- NA
  if (has_sdc) {
    ref <- timed(sdcMicro::microaggregation(adult[vars], variables = vars, aggr = 5, method = "mdav"))
    check <- sprintf("max |diff| vs sdcMicro %.3g",
                     max(abs(as.matrix(as.data.frame(ref$value)[vars]) - as.matrix(ours$value[vars]))))
  }
  out[[length(out) + 1L]] <- row("Adult MDAV k=5 (age, hours, gain)", nrow(adult), ours, ref,
                                 if (has_sdc) "sdcMicro mdav" else NA, check)
  released <- ours$value
  cat("\nAdult, MDAV k = 5: distinct (age, hours, gain) combinations",
      nrow(unique(adult[vars])), "->", nrow(unique(released[vars])),
      "; smallest class", min(table(do.call(paste, released[vars]))), "\n")
  print(summary(released[vars]))
  set.seed(1)
  ours <- timed(apply_mask(adult, mask_pram(0.8), c("race", "marital.status")))
  out[[length(out) + 1L]] <- row("Adult invariant PRAM pd=0.8 (race, marital)", nrow(adult), ours)
  print(summary(mask_pram(0.8), adult, c("race", "marital.status")))
}

res <- do.call(rbind, out)
cat("\nsdcMicro:", if (has_sdc) as.character(utils::packageVersion("sdcMicro")) else "not installed", "\n")
print(res, row.names = FALSE)
