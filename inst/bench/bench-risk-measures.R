# Benchmark: the risk measures of methods vignette section 12-14 and 18.
#  - risk_ldiversity(), risk_tcloseness(), risk_individual() on 1e6 records x
#    5 keys, and against plain R (split() + table() per class) at 1e5 (l),
#    2e4 (t) and 2e4 (integrate() per class for the individual risk);
#  - risk_suda() on 1e5 records x 8 keys, and against brute-force subset
#    counts (paste() + table() on each of the 255 subsets) at 2e4;
#  - risk_linkage() on 1e6 records x 3 variables (k-d tree), the exhaustive
#    C loop at 2e4, and a plain R double loop over dist() at 2000;
#  - side by side with sdcMicro (ldiversity, measure_risk, suda2) when it is
#    installed, with the largest differences.
# Prints seconds, ratios and the load average. Run:
#   Rscript inst/bench/bench-risk-measures.R   (EPIMASK_BENCH_QUICK=1: smaller sizes)

suppressPackageStartupMessages(library(epimask))
quick <- nzchar(Sys.getenv("EPIMASK_BENCH_QUICK"))
big <- if (quick) 1e5 else 1e6
load_avg <- function() tryCatch(trimws(sub(".*load average: ", "", system("uptime", intern = TRUE))),
                                error = function(e) "?")
# elapsed seconds; the CPU seconds of the last timing (all threads) are kept
# too, since on a shared machine the elapsed time mostly measures the load
last_cpu <- NA
secs <- function(expr) {
  tm <- system.time(expr)
  last_cpu <<- sum(tm[c("user.self", "sys.self")], na.rm = TRUE)
  unname(tm[["elapsed"]])
}
row <- function(what, n, time, ratio = NA, note = "") {
  cat(sprintf("%-44s n = %-6s %7.2f s (cpu %6.2f s)  ratio %-7s load %s %s\n", what,
              format(n, scientific = TRUE), time, last_cpu,
              if (is.na(ratio)) "" else format(round(ratio, 1)), load_avg(), note))
}

# 5 categorical keys (about 1e5 patterns, many small classes), two sensitive
# variables and sampling weights
make_keys <- function(n, seed = 1) {
  set.seed(seed)
  data.frame(
    age = sample(18:90, n, TRUE),
    sex = sample(c("F", "M"), n, TRUE),
    region = sample(sprintf("R%02d", 1:40), n, TRUE),
    educ = sample(c(letters[1:8], NA), n, TRUE),
    marital = sample(c("single", "married", "divorced", "widowed"), n, TRUE),
    diagnosis = sample(sprintf("D%02d", 1:20), n, TRUE, prob = (20:1)^2),
    income = round(rlnorm(n, 10, 0.6), -2),
    w = runif(n, 1, 50),
    stringsAsFactors = FALSE)
}
keys5 <- c("age", "sex", "region", "educ", "marital")

# ---- plain R references -------------------------------------------------------
classes_of <- function(d, keys) {
  lab <- lapply(d[keys], function(x) { v <- as.character(x); v[is.na(x)] <- "\001NA"; v })
  key <- do.call(paste, c(lab, sep = "\r"))
  factor(key, levels = unique(key))
}
plain_ldiv <- function(d, keys, s) {
  vapply(split(d[[s]], classes_of(d, keys)), function(v) {
    r <- as.vector(table(v, useNA = "ifany"))
    p <- r / sum(r)
    c(length(r), exp(-sum(p * log(p))))
  }, numeric(2))
}
plain_tclose <- function(d, keys, s) {
  lev <- sort(unique(d[[s]]))
  q <- as.vector(table(factor(d[[s]], lev))) / nrow(d)
  vapply(split(d[[s]], classes_of(d, keys)), function(v) {
    p <- as.vector(table(factor(v, lev))) / length(v)
    sum(abs(cumsum(p - q))) / (length(lev) - 1)
  }, 0)
}
plain_individual <- function(d, keys, w) {
  cl <- classes_of(d, keys)
  f <- tabulate(cl)
  Fh <- as.vector(rowsum(w, cl, reorder = TRUE))
  r <- mapply(function(f, Fh) {
    p <- f / Fh
    if (p >= 1) return(1 / f)
    integrate(function(t) exp(f * log(p) + (f - 1) * log(t) - f * log1p(-(1 - p) * t)),
              0, 1, rel.tol = 1e-10)$value
  }, f, Fh)
  r[as.integer(cl)]
}

cat("== attribute disclosure and individual risk, 5 keys ==\n")
d_ref <- make_keys(1e5)
t_plain_l <- secs(plain_ldiv(d_ref, keys5, "diagnosis"))
t_ours_l <- secs(l_ref <- risk_ldiversity(d_ref, keys5, "diagnosis"))
row("l-diversity vs split/table", 1e5, t_ours_l, t_plain_l / t_ours_l)
d_small <- d_ref[1:2e4, ]
t_plain_t <- secs(tc_plain <- plain_tclose(d_small, keys5, "income"))
t_ours_t <- secs(tc <- risk_tcloseness(d_small, keys5, "income"))
row("t-closeness (numeric) vs split/table", 2e4, t_ours_t, t_plain_t / t_ours_t,
    sprintf("max diff %.1e", max(abs(tc$classes$emd - tc_plain))))
t_plain_i <- secs(ri_plain <- plain_individual(d_small, keys5, d_small$w))
t_ours_i <- secs(ri <- risk_individual(d_small, keys5, weights = "w"))
row("individual risk vs integrate() per class", 2e4, t_ours_i, t_plain_i / t_ours_i,
    sprintf("max rel diff %.1e", max(abs(ri$per_record / ri_plain - 1))))

d_big <- make_keys(big, 2)
row("l-diversity, 1 sensitive", big, secs(risk_ldiversity(d_big, keys5, "diagnosis")))
row("l-diversity, 2 sensitive", big, secs(risk_ldiversity(d_big, keys5, c("diagnosis", "income"))))
row("t-closeness, numeric + unordered", big, secs(risk_tcloseness(d_big, keys5, c("income", "diagnosis"))))
row("individual risk, weights", big, secs(risk_individual(d_big, keys5, weights = "w")))
rm(d_big)

cat("\n== SUDA, 8 keys ==\n")
make_suda <- function(n, seed = 3) {
  set.seed(seed)
  card <- c(70, 2, 5, 7, 16, 9, 14, 40)
  out <- as.data.frame(lapply(card, function(k) sample.int(k, n, TRUE, prob = rev(seq_len(k))^1.5)))
  names(out) <- paste0("k", seq_along(card))
  out
}
brute_msu_count <- function(d) {
  A <- ncol(d)
  lab <- lapply(d, as.character)
  subsets <- unlist(lapply(seq_len(A), function(k) utils::combn(A, k, simplify = FALSE)),
                    recursive = FALSE)
  cnt <- lapply(subsets, function(s) {
    key <- do.call(paste, c(lab[s], sep = "\r"))
    as.vector(table(key)[key])
  })
  names(cnt) <- vapply(subsets, paste, "", collapse = ",")
  total <- 0
  for (si in seq_along(subsets)) {
    s <- subsets[[si]]
    ok <- cnt[[si]] == 1
    if (length(s) > 1) for (j in seq_along(s)) ok <- ok & cnt[[paste(s[-j], collapse = ",")]] > 1
    total <- total + sum(ok)
  }
  total
}
ds <- make_suda(2e4)
t_bf <- secs(bf_total <- brute_msu_count(ds))
t_su <- secs(su <- risk_suda(ds, names(ds)))
row("SUDA vs brute-force subsets", 2e4, t_su, t_bf / t_su,
    sprintf("MSUs %d vs %d", sum(su$msu), bf_total))
ds <- make_suda(1e5)
row("SUDA2 search, 8 keys", 1e5, secs(su_big <- risk_suda(ds, names(ds))),
    note = sprintf("(%d MSUs)", sum(su_big$msu)))

cat("\n== record linkage, 3 variables ==\n")
make_link <- function(n, seed = 4) {
  set.seed(seed)
  o <- data.frame(dose = rexp(n, 2), age = round(runif(n, 20, 90), 1), bmi = rnorm(n, 26, 4))
  m <- o
  m$dose <- m$dose + rnorm(n, 0, 0.05)
  m$age <- round(m$age)
  m$bmi <- m$bmi + rnorm(n, 0, 0.5)
  list(o = o, m = m)
}
v3 <- c("dose", "age", "bmi")
lk <- make_link(2000)
plain_link <- function(o, m) {
  n <- nrow(o)
  s <- apply(o, 2, sd)
  xs <- scale(o, colMeans(o), s)
  ys <- scale(m, colMeans(o), s)
  w <- numeric(n)
  for (i in seq_len(n)) {
    dd <- sqrt(colSums((t(ys) - xs[i, ])^2))
    cut <- min(dd) * (1 + 1e-12)
    w[i] <- if (dd[i] <= cut) 1 / sum(dd <= cut) else 0
  }
  w
}
t_plain <- secs(w_plain <- plain_link(lk$o, lk$m))
t_tree <- secs(w_tree <- risk_linkage(lk$o, lk$m, v3, method = "tree"))
row("linkage tree vs plain R double loop", 2000, t_tree, t_plain / t_tree,
    sprintf("same weights: %s", isTRUE(all.equal(w_tree$per_record, w_plain))))
lk <- make_link(2e4)
t_ex <- secs(w_ex <- risk_linkage(lk$o, lk$m, v3, method = "exhaustive"))
t_tree <- secs(w_tree <- risk_linkage(lk$o, lk$m, v3, method = "tree"))
row("linkage tree vs exhaustive C loop", 2e4, t_tree, t_ex / t_tree,
    sprintf("identical: %s", identical(w_ex$per_record, w_tree$per_record)))
lk <- make_link(big)
row("linkage tree", big, secs(w_big <- risk_linkage(lk$o, lk$m, v3, method = "tree")),
    note = sprintf("(risk %.3f)", w_big$risk))
row("linkage tree, Mahalanobis", big,
    secs(risk_linkage(lk$o, lk$m, v3, distance = "mahalanobis", method = "tree")))
rm(lk)

cat("\n== sdcMicro's approximation of E(1/F | f) for f >= 3 ==\n")
# measure_risk() takes p / (f - (1 - p)) for f >= 3; the exact value is
# slightly smaller (by up to a few percent at small f and moderate p)
grid <- expand.grid(f = c(3, 4, 5, 10, 50), p = c(0.01, 0.05, 0.1, 0.3, 0.5, 0.9))
exact <- risk_individual(data.frame(k = rep(seq_len(nrow(grid)), grid$f)), "k",
                         weights = rep(1 / grid$p, grid$f))$classes$risk
approx <- grid$p / (grid$f - (1 - grid$p))
grid$rel_diff <- approx / exact - 1
print(grid[order(-abs(grid$rel_diff)), ][1:6, ], row.names = FALSE)

cat("\n== sdcMicro side by side ==\n")
# sdcMicro: bash tools/install-sdcmicro.sh (R 4.2: VIM etc. from Debian).
# Agreement, record by record: distinct / entropy / recursive (c = 2) l of
# each record's class; individual risk relative differences split by class
# size f (sdcMicro's default "approx" takes p / (f - (1 - p)) for f >= 3, its
# "exact" an alternating series), checked against integrate(); SUDA and
# DIS-SUDA scores and the records with at least one MSU (suda2 does not
# return MSU counts).
if (!requireNamespace("sdcMicro", quietly = TRUE)) {
  cat("sdcMicro is not installed: skipped\n")
} else {
  cat("sdcMicro", format(utils::packageVersion("sdcMicro")), "\n")
  # sdcMicro treats NA in a key as missing (matching anything), epimask as a value
  as_sdc <- function(d) {
    d$educ[is.na(d$educ)] <- "none"
    for (k in keys5) d[[k]] <- factor(d[[k]])
    d
  }
  ldiv_agreement <- function(ld, ld_sdc) {
    per_record <- function(x) x[ld$group]
    sprintf("records differing: distinct %d, recursive(c=2) %d; max |entropy diff| %.1e",
            sum(per_record(ld$classes$distinct) != ld_sdc[, "diagnosis_Distinct_Ldiversity"]),
            sum(per_record(ld$classes$recursive) != ld_sdc[, "diagnosis_Recursive_Ldiversity"]),
            max(abs(per_record(ld$classes$entropy) - ld_sdc[, "diagnosis_Entropy_Ldiversity"])))
  }
  risk_agreement <- function(ri, mr) {
    rel <- abs(mr$Res[, "risk"] / ri$per_record - 1)
    f <- ri$classes$f[ri$group]
    sprintf("f = sdcMicro fk: %s; max rel diff f<=2 %.1e, f>=3 %.1e (%d records); ER %.2f vs %.2f",
            identical(as.numeric(f), as.numeric(mr$Res[, "fk"])), max(c(0, rel[f <= 2])),
            max(c(0, rel[f >= 3])), sum(f >= 3), ri$expected, mr$global_risk_ER)
  }
  for (n in unique(c(1e5, big))) {
    d1 <- if (n == 1e5) d_ref else make_keys(n, 2)
    sdc_keys <- as_sdc(d1)
    d1$educ <- sdc_keys$educ <- as.character(sdc_keys$educ)
    sdc_keys$educ <- factor(sdc_keys$educ)
    t_sdc <- secs(ld_sdc <- sdcMicro::ldiversity(sdc_keys, keyVars = keys5, ldiv_index = "diagnosis"))
    cpu_sdc <- last_cpu
    t_ours <- secs(ld <- risk_ldiversity(d1, keys5, "diagnosis"))
    row("l-diversity vs sdcMicro::ldiversity", n, t_ours, t_sdc / t_ours,
        sprintf("sdcMicro %.2f s (cpu %.2f s); %s", t_sdc, cpu_sdc, ldiv_agreement(ld, ld_sdc)))
    t_sdc <- secs(mr <- sdcMicro::measure_risk(sdc_keys, keyVars = keys5, w = "w"))
    cpu_sdc <- last_cpu
    t_ours <- secs(ri <- risk_individual(d1, keys5, weights = "w"))
    row("individual risk vs sdcMicro::measure_risk", n, t_ours, t_sdc / t_ours,
        sprintf("sdcMicro %.2f s (cpu %.2f s); %s", t_sdc, cpu_sdc, risk_agreement(ri, mr)))
  }
  # the classes with f >= 3 of the 1e5 data: epimask, sdcMicro's approximation
  # and its "exact" series, each against integrate() (methods vignette section 13)
  cl <- risk_individual(d_ref, keys5, weights = "w")$classes
  cl <- cl[cl$f >= 3, ]
  by_integrate <- mapply(function(f, Fh) {
    p <- f / Fh
    if (p >= 1) return(1 / f)
    stats::integrate(function(t) exp(f * log(p) + (f - 1) * log(t) - f * log1p(-(1 - p) * t)),
                     0, 1, rel.tol = 1e-12)$value
  }, cl$f, cl$F_hat)
  fake <- list(freqCalc = data.frame(class = seq_along(cl$f)), keyVars = character(0), fk = cl$f, Fk = cl$F_hat)
  sdc_approx <- sdcMicro::indivRisk(fake, method = "approx")$rk
  sdc_exact <- sdcMicro::indivRisk(fake, method = "exact")$rk
  cat(sprintf(paste0("individual risk, %d classes with f >= 3 (f up to %d), max relative error against ",
                     "integrate(): epimask %.1e, sdcMicro approx %.1e, sdcMicro exact %.1e\n"),
              nrow(cl), max(cl$f), max(abs(cl$risk / by_integrate - 1)),
              max(abs(sdc_approx / by_integrate - 1)), max(abs(sdc_exact / by_integrate - 1))))
  # and on the grid of f and p above (f up to 50): sdcMicro's "exact" is an
  # alternating series that loses digits as f grows
  fake <- list(freqCalc = data.frame(class = seq_len(nrow(grid))), keyVars = character(0),
               fk = grid$f, Fk = grid$f / grid$p)
  grid$sdc_exact_rel <- sdcMicro::indivRisk(fake, method = "exact")$rk / exact - 1
  cat("sdcMicro's exact series against epimask's E(1/F | f), largest relative differences:\n")
  print(grid[order(-abs(grid$sdc_exact_rel)), c("f", "p", "sdc_exact_rel")][1:4, ], row.names = FALSE)
  for (n in c(2e4, 1e5)) {
    ds <- make_suda(n)
    t_sdc <- secs(sd2 <- sdcMicro::suda2(ds, variables = names(ds), DisFraction = 0.01))
    cpu_sdc <- last_cpu
    t_ours <- secs(su <- risk_suda(ds, names(ds)))
    row("SUDA vs sdcMicro::suda2, 8 keys", n, t_ours, t_sdc / t_ours,
        sprintf(paste0("sdcMicro %.2f s (cpu %.2f s); max |score diff| %.3g, max |DIS diff| %.3g; ",
                       "records with an MSU %d vs %d"), t_sdc, cpu_sdc, max(abs(sd2$score - su$score)),
                max(abs(sd2$disScore - su$dis)), sum(su$score > 0), sum(sd2$score > 0)))
  }
}
