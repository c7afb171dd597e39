# `make demo`: the main job of epimask on the bundled synthetic cohort.
# The Cologne et al. (2012) workflow on dose_cohort: identifiability of the
# 64 cases' doses, the linear ERR model under the masking schemes of
# Cologne Table 2 (rounding, stratification, uniform noise, 500 replicates),
# the security-utility plot with the fitted curve, and a recommendation.
# Writes demo/ru-plot.png, demo/ru-profile.csv and demo/summary.txt.
# The noise schemes are repeated 200 times by default, which keeps the run
# near half a minute; the paper's 500 replicates (three noise schemes x 500
# ERR fits on 16,000 records, about 50 s of CPU time, over a minute on a busy
# machine) with EPIMASK_DEMO_NREP=500 make demo.
library(epimask)

out_dir <- "demo"
dir.create(out_dir, showWarnings = FALSE)
started <- proc.time()[["elapsed"]]

data("dose_cohort", package = "epimask")
cases <- subset(dose_cohort, case == 1)
cat(sprintf("dose_cohort: %d people, %d cases (synthetic data)\n\n",
            nrow(dose_cohort), nrow(cases)))

# 1. Identifiability of the cases' doses against the cohort (Cologne Table 1).
ident <- list(
  original = risk_identifiability(cases, dose_cohort, keys = "dose", id = "id"),
  `rounded to 3 significant digits` =
    risk_identifiability(apply_mask(cases, mask_round(3), vars = "dose"), dose_cohort,
                         keys = "dose", id = "id")
)
for (name in names(ident)) {
  cat(sprintf("== Identifiability of the cases' doses, %s\n", name))
  print(ident[[name]])
  cat("\n")
}

# 2. The ERR model under the masking schemes of Cologne Table 2.
lss13 <- c(0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 1.5, 2, 3)
schemes <- c(
  mask_none(),
  mask_round(3), mask_round(2),
  mask_round(2, type = "decimal"), mask_round(1, type = "decimal"),
  mask_group(lss13, value = "mean", reference = dose_cohort$dose),
  mask_noise(0.001, lower = 0), mask_noise(0.01, lower = 0), mask_noise(0.1, lower = 0)
)
nrep <- as.integer(Sys.getenv("EPIMASK_DEMO_NREP", "200"))
if (is.na(nrep) || nrep < 1L) stop("EPIMASK_DEMO_NREP must be a positive whole number")
set.seed(2012)
profile_time <- system.time(
  ru <- ru_profile(dose_cohort, schemes, case ~ 1, family = "err", vars = "dose",
                   term = "dose", nrep = nrep, risk = "identifiability", known = "dose",
                   progress = interactive())
)[["elapsed"]]
cat(sprintf("== Risk-utility profile (%d replicates of each noise scheme%s, %.1f s)\n",
            nrep, if (nrep < 500) "; the paper used 500: EPIMASK_DEMO_NREP=500" else "",
            profile_time))
print(summary(ru))
cat("\n")

# 3. Security-utility curve, plot and recommendation.
curve <- fit_ru_curve(ru)
choice <- recommend(ru, max_risk = 0.05)
print(curve)
print(choice)

png_file <- file.path(out_dir, "ru-plot.png")
grDevices::png(png_file, width = 1600, height = 1200, res = 200)
plot(ru, type = "ru", main = "Security-utility plot: masked doses of dose_cohort")
invisible(grDevices::dev.off())

csv_file <- file.path(out_dir, "ru-profile.csv")
utils::write.csv(as.data.frame(ru), csv_file, row.names = FALSE)

txt_file <- file.path(out_dir, "summary.txt")
noise <- as.data.frame(ru)[ru$scheme == format(mask_noise(0.1, lower = 0)), ]
deci <- as.data.frame(ru)[ru$scheme == format(mask_round(1, type = "decimal")), ]
writeLines(c(
  "epimask demo: Cologne et al. (2012) workflow on the synthetic dose_cohort",
  "",
  sprintf("Identifiability of the 64 cases' doses: %.3f original, %.4f rounded to 3 significant digits",
          ident[[1]]$score, ident[[2]]$score),
  sprintf("ERR per Gy on the original doses: %.4f (SE %.4f)", ru$estimate[1], ru$se[1]),
  sprintf("Relative bias: rounding to 0.1 Gy %.2f%%, uniform noise +-0.1 Gy %.2f%% (mean of %d releases)",
          deci$rel_bias, noise$rel_bias, nrep),
  sprintf("Fitted security-utility curve: theta = %.4g (SE %.3g), %d points",
          curve$theta, curve$se, curve$n),
  "",
  format(choice),
  "",
  sprintf("Profile: %d schemes, %s", nrow(ru), csv_file),
  sprintf("Plot: %s", png_file)
), txt_file)

cat(sprintf("\nWrote (in %.0f s):\n  %s\n  %s\n  %s\n", proc.time()[["elapsed"]] - started,
            normalizePath(png_file), normalizePath(csv_file), normalizePath(txt_file)))
