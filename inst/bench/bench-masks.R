# Benchmark: the masking forms of methods vignette section 15 against sdcMicro (when
# installed) and against the plain algorithms, in one run:
# - MDAV microaggregation (mask_microagg(5), n x 3 standard normals) against
#   sdcMicro::microaggregation(method = "mdav") and, at 1e4, the plain R MDAV
#   by full scans (the twin of the tests: the groups must be identical);
# - rank swapping (mask_swap(5)) against sdcMicro::rankSwap(P = 0.05): sdcMicro
#   5.8.2 documents P as a percentage (|i - j| <= P n / 100) but its C++ uses
#   the window n * P, so P = 5 would swap across the whole file;
# - grouping into n / 3 intervals (mask_group(), breaks at every third order
#   statistic) against sdcMicro's univariate microaggregation ("onedims") and
#   the former per-interval means;
# - the Adult census data: MDAV on age, hours-per-week, capital-gain, and
#   invariant PRAM on race and marital-status.
# Prints seconds (elapsed and CPU), ratios (reference / epimask) and the
# load average. sdcMicro's MDAV is quadratic: it runs at n <= 1e5 only
# unless EPIMASK_BENCH_SDC_MAX says otherwise. Agreement with sdcMicro: the
# MDAV partitions (groups read off sdcMicro's released values) and the within-
# group sum of squares of both; for swapping, each variable's multiset and the
# largest rank displacement of both against the window p n / 100.
# sdcMicro: bash tools/install-sdcmicro.sh (R 4.2: VIM etc. from Debian).
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
             ref_cpu = if (is.null(ref)) NA else round(ref$cpu, 3),
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

# sdcMicro 5.8.2's MDAV (src/Mdav.cpp, from mu-Argus) as it computes, to
# explain where its groups differ from methods vignette section 15: weights 1 / variance, the
# squared distances accumulated in single precision (typedef float TDist),
# the k nearest taken from a list in which a later row goes before an earlier
# one at the same distance (so ties go to the HIGHER row number, and a
# duplicate of r can take r's place in r's group), s = the farthest from r
# found in the same pass, before r's group is removed.
to_float <- function(x) readBin(writeBin(as.double(x), raw(), size = 4L), "double", length(x), size = 4L)
mdav_as_sdcmicro <- function(X, k) {
  n <- nrow(X)
  w <- apply(X, 2, function(v) 1 / (mean(v^2) - mean(v)^2))
  dist_to <- function(centre) {
    d <- 0
    for (j in seq_len(ncol(X))) d <- to_float(d + to_float((X[, j] - centre[j])^2 * w[j]))
    d
  }
  alive <- rep(TRUE, n)
  group <- integer(n)
  ng <- 0L
  first_max <- function(d) { cand <- which(alive); cand[which.max(d[cand])] }
  k_nearest <- function(d) { cand <- which(alive); cand[order(d[cand], -cand)][seq_len(k)] }
  left <- n
  while (left >= 2 * k) {
    cur <- first_max(dist_to(colMeans(X[alive, , drop = FALSE])))
    for (l in seq_len(if (left < 3 * k) 1 else 2)) {
      d <- dist_to(X[cur, ])
      far <- first_max(d)
      m <- k_nearest(d)
      ng <- ng + 1L; group[m] <- ng; alive[m] <- FALSE
      cur <- far
    }
    left <- sum(alive)
  }
  group[alive] <- ng + 1L
  group
}
group_means <- function(X, g) apply(X, 2, function(v) stats::ave(v, g))

# groups of a released microaggregation, read off its values (records with
# identical released rows form one group)
groups_of_values <- function(M) {
  key <- do.call(paste, c(as.data.frame(M), sep = "\r"))
  match(key, unique(key))
}
# records whose group is the same set of records under both labellings
records_in_same_group <- function(a, b) {
  pair <- paste(a, b)
  n_pair <- table(pair)[pair]
  sum(n_pair == table(a)[as.character(a)] & n_pair == table(b)[as.character(b)])
}
# within-group sum of squares of a release on the standardised scale (the
# information loss MDAV reduces heuristically)
within_ss <- function(X, released) {
  X <- as.matrix(X)
  sum(sweep(X - as.matrix(released), 2, apply(X, 2, stats::sd), "/")^2)
}
mdav_agreement <- function(X, ours, sdc) {
  ours <- as.matrix(ours)
  sdc <- as.matrix(sdc)
  same <- records_in_same_group(groups_of_values(ours), groups_of_values(sdc))
  moved <- sum(rowSums(abs(sdc - ours) > 1e-9 * pmax(1, abs(ours))) > 0)
  sprintf("%s; %d records released differently; max |diff| %.2g; SSE sdcMicro / epimask %.4f",
          if (same == nrow(X)) "identical groups" else sprintf("groups differ for %d records", nrow(X) - same),
          moved, max(abs(sdc - ours)), within_ss(X, sdc) / within_ss(X, ours))
}
# largest distance between a record's rank and the rank of its released value
max_rank_shift <- function(x, released) {
  max(abs(match(released, sort(x)) - rank(x, ties.method = "first")))
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
    check <- mdav_agreement(d, ours$value, ref$value$mx[c("a", "b", "c")])
  }
  out[[length(out) + 1L]] <- row("MDAV k=5, p=3", n, ours, ref,
                                 if (has_sdc && n <= sdc_max) "sdcMicro mdav" else NA, check)
}
# ties (integer ages, 5 levels, one decimal): where the tie rules matter
if (has_sdc) {
  n_tie <- 5017
  d <- data.frame(a = sample(20:80, n_tie, TRUE), b = sample(1:5, n_tie, TRUE), c = round(rexp(n_tie), 1))
  ours <- timed(apply_mask(d, mask_microagg(5)))
  ref <- timed(sdcMicro::microaggregation(d, variables = names(d), aggr = 5, method = "mdav"))
  sdc <- as.matrix(ref$value$mx[names(d)])
  plain_same <- identical(epimask:::mdav_groups(as.matrix(d), 5L), plain_mdav(as.matrix(d), 5L))
  emulated <- max(abs(group_means(as.matrix(d), mdav_as_sdcmicro(as.matrix(d), 5L)) - sdc))
  out[[length(out) + 1L]] <- row("MDAV k=5, p=3, tied values", n_tie, ours, ref, "sdcMicro mdav",
                                 sprintf("%s; epimask = plain R MDAV (methods vignette section 15): %s; sdcMicro = its rules emulated: max |diff| %.2g",
                                         mdav_agreement(d, ours$value, sdc), plain_same, emulated))
}

# ---- rank swapping ----------------------------------------------------------------
# sdcMicro::rankSwap's P is the window as a fraction of n in its C++ (r = j +
# n * P), although documented as a percentage: P = p / 100 gives mask_swap(p)'s
# window; P = p (as documented) swaps across the whole file, shown at the first size.
window_check <- function(d, released, p) {
  kept <- all(vapply(names(d), function(v) identical(sort(released[[v]]), sort(d[[v]])), TRUE))
  shift <- max(vapply(names(d), function(v) max_rank_shift(d[[v]], released[[v]]), 1))
  sprintf("%s, largest rank shift %d (window %g)", if (kept) "multisets kept" else "MULTISET CHANGED",
          shift, floor(p * nrow(d) / 100))
}
for (n in sizes) {
  d <- data.frame(a = rnorm(n), b = rexp(n), c = rnorm(n))
  ours <- timed(apply_mask(d, mask_swap(5)))
  check <- paste("epimask:", window_check(d, ours$value, 5))
  ref <- NULL
  if (has_sdc) {
    ref <- timed(sdcMicro::rankSwap(d, variables = c("a", "b", "c"), TopPercent = 0,
                                    BottomPercent = 0, P = 5 / 100, seed = 1))
    check <- paste0(check, "; sdcMicro P = 0.05: ", window_check(d, ref$value, 5))
    if (n == sizes[1]) {
      as_documented <- sdcMicro::rankSwap(d, variables = c("a", "b", "c"), TopPercent = 0,
                                          BottomPercent = 0, P = 5, seed = 1)
      check <- paste0(check, "; sdcMicro P = 5: ", window_check(d, as_documented, 5))
    }
  }
  out[[length(out) + 1L]] <- row("rank swap p=5, 3 vars", n, ours, ref,
                                 if (has_sdc) "sdcMicro rankSwap P=0.05" else NA, check)
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
                                 max(abs(ref$value$mx$x - ours$value$x))))
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
    check <- mdav_agreement(adult[vars], ours$value[vars], ref$value$mx[vars])
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
options(width = 400)
print(res, row.names = FALSE)
