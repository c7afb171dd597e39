# Benchmark: CART synthesis (mask_synth(), methods vignette section 29) against
# synthpop (when installed: bash tools/install-synthpop.sh), in one run:
# - the Adult census data (30,162 records) with the collaborator's logistic
#   model of income, and survival's flchain (7,874 records) with a Cox model
#   of death: the same columns, visit sequence, m = 5 and minbucket = 5 in
#   both tools; the collaborator's coefficients on the original and combined
#   over the copies of each tool, their SEs and the CI overlap with the
#   original's interval (Karr et al. 2006). Both tools' copies are combined
#   by the same simplified rules (Raab et al. 2016, as synthpop's
#   summary(population.inference = TRUE)): synthpop's "cart" draws donors
#   uniformly (proper = FALSE), epimask by default with Bayesian-bootstrap
#   weights (proper = TRUE); both are shown. synthpop has no Cox fitter for
#   its copies, so coxph() is run on each;
# - the records equal to an original unique record, and repU / DiSCO on the
#   collaborator's keys, for each tool's copies;
# - the time of both at growing sizes (Adult's 10 columns resampled to n
#   records), m = 5; synthpop only up to EPIMASK_BENCH_SP_MAX records
#   (default 1e5) unless asked.
# Prints seconds (elapsed and CPU), ratios (synthpop / epimask) and the load
# average. Run: Rscript inst/bench/bench-synth.R [sizes...] (default 3e4 1e5 1e6)

suppressPackageStartupMessages(library(epimask))

args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args)) as.numeric(args) else c(3e4, 1e5, 1e6)
sp_max <- as.numeric(Sys.getenv("EPIMASK_BENCH_SP_MAX", "1e5"))
has_sp <- requireNamespace("synthpop", quietly = TRUE)
adult_file <- "/work/shared/data/adult.csv"
m <- 5L

load_avg <- function() {
  la <- tryCatch(readLines("/proc/loadavg", 1L), error = function(e) NA_character_)
  strsplit(la, " ")[[1L]][1L]
}

timed <- function(expr) {
  t <- system.time(value <- force(expr), gcFirst = TRUE)
  list(value = value, elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
}

overlap <- function(lo1, hi1, lo2, hi2) {
  inter <- max(0, min(hi1, hi2) - max(lo1, lo2))
  (inter / (hi1 - lo1) + inter / (hi2 - lo2)) / 2
}

# The coefficients of `fit_one(data)` (a named list of estimate, se) over the
# copies, combined by the simple rules with `proper`, against the original.
compare_fits <- function(original, copies, fit_one, proper, tool) {
  o <- fit_one(original)
  per <- lapply(copies, fit_one)
  z <- qnorm(0.975)
  do.call(rbind, lapply(names(o$estimate), function(t) {
    cmb <- combine_synthetic(vapply(per, function(f) f$estimate[[t]], 1),
                             vapply(per, function(f) f$se[[t]], 1), "simple", proper = proper)
    data.frame(tool = tool, term = t, original = o$estimate[[t]], original_se = o$se[[t]],
               synthetic = cmb$estimate, synthetic_se = cmb$se,
               std_diff = (cmb$estimate - o$estimate[[t]]) / o$se[[t]],
               ci_overlap = overlap(o$estimate[[t]] - z * o$se[[t]], o$estimate[[t]] + z * o$se[[t]],
                                    cmb$lower, cmb$upper),
               stringsAsFactors = FALSE)
  }))
}

risk_rows <- function(original, copies, keys, target, tool) {
  # synthpop's copies as a release of copies synthesised from all records
  rel <- epimask:::new_synthetic(copies, list(m = length(copies), n = nrow(original),
                                              k = vapply(copies, nrow, 1L), holdout = integer()))
  ru <- criterion_evaluate(replicated_uniques(keys = keys, copies = "mean"), rel, original)
  dc <- criterion_evaluate(disco(target, keys = keys, copies = "mean"), rel, original)
  whole <- vapply(copies, function(cp) {
    codes <- epimask:::key_codes(original, names(original), other = cp[names(original)])
    sum(epimask:::call_c(epimask:::C_freq_match, list(ref = codes[[1L]], qry = codes[[2L]])) == 1L)
  }, numeric(1))
  data.frame(tool = tool, repU = ru$value, DiSCO = dc$value,
             original_records = mean(whole) / nrow(original), stringsAsFactors = FALSE)
}

synthpop_copies <- function(data, visit, seed) {
  s <- synthpop::syn(data[visit], visit.sequence = visit, method = "cart", m = m,
                     cart.minbucket = 5, print.flag = FALSE, seed = seed)
  lapply(if (m == 1L) list(s$syn) else s$syn, function(cp) cp[names(data)[names(data) %in% visit]])
}

epimask_copies <- function(data, visit, proper, seed) {
  set.seed(seed)
  unclass(suppressWarnings(apply_mask(data[visit], mask_synth(m = m, visit = visit,
                                                             proper = proper))))
}

cat(sprintf("bench-synth: m = %d, minbucket 5; synthpop %s; load %s\n", m,
            if (has_sp) format(utils::packageVersion("synthpop")) else "not installed", load_avg()))

# ---- Adult: logistic model of income --------------------------------------------------

if (file.exists(adult_file)) {
  adult <- utils::read.csv(adult_file, stringsAsFactors = TRUE, check.names = FALSE)
  names(adult) <- gsub("-", "_", names(adult))
  visit <- c("sex", "age", "race", "marital_status", "education_num", "hours_per_week", "income")
  a <- adult[visit]
  form <- income ~ age + sex + race + education_num + hours_per_week
  logit <- function(d) {
    f <- summary(glm(form, binomial(), d))$coefficients
    list(estimate = f[-1L, 1L], se = f[-1L, 2L])
  }
  runs <- list(epimask_bb = timed(epimask_copies(a, visit, TRUE, 1)),
               epimask_uniform = timed(epimask_copies(a, visit, FALSE, 1)))
  if (has_sp) runs$synthpop <- timed(synthpop_copies(a, visit, 1))
  cat("\n== Adult (30,162 records, 7 columns), income ~ age + sex + race + education_num + hours_per_week\n")
  fits <- do.call(rbind, Map(function(r, nm) compare_fits(a, r$value, logit,
                                                         proper = nm == "epimask_bb", nm),
                             runs, names(runs)))
  print(fits, digits = 4, row.names = FALSE)
  cat("\nmean CI overlap / mean |std. diff| by tool:\n")
  print(aggregate(cbind(ci_overlap, abs_std_diff = abs(std_diff)) ~ tool, fits, mean), digits = 3)
  cat("\nrisk (keys age, sex, race, marital_status; target income; mean over copies):\n")
  print(do.call(rbind, Map(function(r, nm) risk_rows(a, r$value, c("age", "sex", "race", "marital_status"),
                                                     "income", nm), runs, names(runs))), digits = 3)
  cat("\ntime (s):\n")
  print(data.frame(tool = names(runs), elapsed = vapply(runs, `[[`, 1, "elapsed"),
                   cpu = vapply(runs, `[[`, 1, "cpu"), load = load_avg()), row.names = FALSE)
}

# ---- flchain: Cox model of death --------------------------------------------------------

if (requireNamespace("survival", quietly = TRUE)) {
  fl <- survival::flchain
  visit <- c("sex", "age", "kappa", "lambda", "creatinine", "mgus", "futime", "death")
  f <- fl[visit]
  f$mgus <- factor(f$mgus)
  cox <- function(d) {
    fit <- survival::coxph(survival::Surv(futime, death) ~ age + sex + kappa + lambda + creatinine, d)
    list(estimate = coef(fit), se = sqrt(diag(vcov(fit))))
  }
  runs <- list(epimask_bb = timed(epimask_copies(f, visit, TRUE, 2)),
               epimask_uniform = timed(epimask_copies(f, visit, FALSE, 2)))
  if (has_sp) runs$synthpop <- timed(synthpop_copies(f, visit, 2))
  cat("\n== flchain (7,874 records, 8 columns, creatinine with NA), Surv(futime, death) ~ age + sex + kappa + lambda + creatinine\n")
  fits <- do.call(rbind, Map(function(r, nm) compare_fits(f, r$value, cox, proper = nm == "epimask_bb", nm),
                             runs, names(runs)))
  print(fits, digits = 4, row.names = FALSE)
  cat("\nmean CI overlap / mean |std. diff| by tool:\n")
  print(aggregate(cbind(ci_overlap, abs_std_diff = abs(std_diff)) ~ tool, fits, mean), digits = 3)
  cat("\nrisk (keys age, sex; target death; mean over copies):\n")
  print(do.call(rbind, Map(function(r, nm) risk_rows(f, r$value, c("age", "sex"), "death", nm),
                           runs, names(runs))), digits = 3)
  cat("\ntime (s):\n")
  print(data.frame(tool = names(runs), elapsed = vapply(runs, `[[`, 1, "elapsed"),
                   cpu = vapply(runs, `[[`, 1, "cpu"), load = load_avg()), row.names = FALSE)

  # one synthesis of m copies is one draw: the standardised differences of
  # several syntheses (seeds) say whether a tool is systematically closer
  reps <- as.integer(Sys.getenv("EPIMASK_BENCH_SYNTH_REPS", "6"))
  if (reps > 1L) {
    std_diffs <- function(copies, proper) {
      o <- cox(f)
      per <- lapply(copies, cox)
      vapply(names(o$estimate), function(t) {
        cmb <- combine_synthetic(vapply(per, function(p) p$estimate[[t]], 1),
                                 vapply(per, function(p) p$se[[t]], 1), "simple", proper = proper)
        (cmb$estimate - o$estimate[[t]]) / o$se[[t]]
      }, numeric(1))
    }
    arr <- simplify2array(lapply(seq_len(reps), function(s) rbind(
      epimask_bb = std_diffs(epimask_copies(f, visit, TRUE, 100 + s), TRUE),
      epimask_uniform = std_diffs(epimask_copies(f, visit, FALSE, 100 + s), FALSE),
      synthpop = if (has_sp) std_diffs(synthpop_copies(f, visit, 100 + s), FALSE))))
    cat(sprintf("\nflchain, %d syntheses: mean standardised difference per term, and mean |.| per tool\n", reps))
    print(round(apply(arr, 1:2, mean), 2))
    print(round(apply(abs(arr), 1L, mean), 2))
  }
}

# ---- time at growing sizes: Adult's 10 columns resampled ---------------------------------

if (file.exists(adult_file)) {
  cols <- c("sex", "age", "race", "marital_status", "education_num", "workclass", "occupation",
            "hours_per_week", "capital_gain", "income")
  cat("\n== time, Adult's 10 columns resampled to n records, m = 5 (synthpop up to",
      format(sp_max, scientific = TRUE), "records)\n")
  rows <- lapply(sizes, function(n) {
    set.seed(3)
    d <- adult[sample(nrow(adult), n, replace = n > nrow(adult)), cols]
    attr(d, "row.names") <- .set_row_names(nrow(d))
    ours <- timed(epimask_copies(d, cols, TRUE, 4))
    ref <- if (has_sp && n <= sp_max) timed(synthpop_copies(d, cols, 4))
    data.frame(n = format(n, scientific = TRUE), epimask_s = round(ours$elapsed, 1),
               epimask_cpu = round(ours$cpu, 1),
               synthpop_s = if (is.null(ref)) NA else round(ref$elapsed, 1),
               synthpop_cpu = if (is.null(ref)) NA else round(ref$cpu, 1),
               cpu_ratio = if (is.null(ref)) NA else round(ref$cpu / ours$cpu, 1),
               load = load_avg())
  })
  print(do.call(rbind, rows), row.names = FALSE)
}
