# `make demo`: the main job of epimask on the bundled synthetic cohort.
# The Cologne et al. (2012) workflow on dose_cohort, taken to a release
# decision: identifiability of the 64 cases' doses (Cologne Table 1); the
# linear ERR model under the masking schemes of Cologne Table 2 plus sweeps
# that reach strong masking (rounding to whole Gy, a few dose bands, noise up
# to 5 Gy); a disclosure risk that sees every scheme (the matching risk of
# methods vignette section 5, not exact-match identifiability, which is blind to noise); a
# release context that sets the risk budget (methods vignette section 17); the frontier, the
# security-utility plot and a recommendation with its uncertainty.
# Writes demo/ru-plot.png, demo/ru-profile.csv and demo/summary.txt.
#
# Cost: the exhaustive matching risk compares every target with all 16,000
# records, so it is estimated over a fixed random sample of 2,000 target
# records (an unbiased estimate of the share of correct matches, methods vignette section 5),
# and for the noise schemes on the first 5 replicates (the profile reports
# the Monte Carlo SE). Noise schemes are repeated 100 times by default
# (EPIMASK_DEMO_NREP; the paper used 500). About a minute on an idle machine.
library(epimask)

out_dir <- "demo"
dir.create(out_dir, showWarnings = FALSE)
started <- proc.time()[["elapsed"]]

data("dose_cohort", package = "epimask")
cases <- subset(dose_cohort, case == 1)
case_rows <- which(dose_cohort$case == 1)
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

# 2. The release context: a non-public release to a research team under a
# data use agreement (the custodian's statement; these numbers are this
# demo's, not defaults of the package).
context <- release_context(
  public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5, pr_breach = 0.27,
  threshold = 1/20,
  reasons = c("doses are sensitive: they reveal exposure and, with the cohort, cancer status",
              "recipient bound by a data use agreement, but no audit of its controls",
              "strictest bin, since matching risk is taken as the overall risk (Pr(attack) = 1)"))
cat("== Release context\n")
print(context)
cat("\n")

# 3. The ERR model under Cologne Table 2's schemes and sweeps to strong masking.
lss13 <- c(0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 1.5, 2, 3)
schemes <- c(
  mask_none(),
  mask_sweep(mask_round, digits = 3:1),                       # significant digits
  mask_sweep(mask_round, digits = 2:0, type = "decimal"),     # 0.01 Gy .. whole Gy
  mask_sweep(mask_group, breaks = list(lss13, c(0, 0.1, 0.5, 1, 3), c(0, 0.5, 3)),
             value = "mean", reference = dose_cohort$dose),   # 10, 4, 2 dose bands
  mask_sweep(mask_noise, amount = c(0.001, 0.01, 0.1, 0.5, 1, 2, 5), lower = 0)
)
nrep <- as.integer(Sys.getenv("EPIMASK_DEMO_NREP", "100"))
if (is.na(nrep) || nrep < 1L) stop("EPIMASK_DEMO_NREP must be a positive whole number")
set.seed(2012)
targets <- sort(sample.int(nrow(dose_cohort), 2000L))
risk <- match_risk(known = "dose", targets = targets)
profile_time <- system.time(
  ru <- ru_profile(dose_cohort, schemes, case ~ 1, family = "err", vars = "dose",
                   term = "dose", nrep = nrep, risk = risk, context = context, seed = 2012,
                   control = profile_control(risk_nrep = 5, progress = interactive()))
)[["elapsed"]]
cat(sprintf(paste0("== Risk-utility profile (%d replicates of each noise scheme, matching ",
                   "risk over 2,000 sampled targets, on 5 replicates of noise; %.0f s)\n"),
            nrep, profile_time))
print(summary(ru))
cat("\n")

# 4. Frontier, curve, recommendation.
curve <- suppressWarnings(fit_ru_curve(ru))
choice <- recommend(ru)
print(curve)
cat("\n")
print(choice)

png_file <- file.path(out_dir, "ru-plot.png")
grDevices::png(png_file, width = 1800, height = 1350, res = 200)
plot(ru, type = "ru", main = "Security-utility plot: masked doses of dose_cohort")
invisible(grDevices::dev.off())

csv_file <- file.path(out_dir, "ru-profile.csv")
utils::write.csv(as.data.frame(ru), csv_file, row.names = FALSE)

# 5. Risks of the same records: the 64 cases, by exact matching (Cologne
# Table 1) and by the matching risk, unmasked and under the recommendation.
case_match <- function(scheme) {
  set.seed(1)
  masked <- apply_mask(dose_cohort, scheme, vars = "dose")
  risk_match(dose_cohort, masked, known = "dose", targets = case_rows)$percent_correct / 100
}
chosen_scheme <- schemes[[match(choice$scheme, vapply(schemes, format, ""))]]
cases_match_none <- case_match(mask_none())
cases_match_chosen <- if (!is.null(choice$scheme)) case_match(chosen_scheme) else NA_real_

row_of <- function(label) as.data.frame(ru)[ru$scheme == label, ]
fmt_se <- function(x, se) if (is.na(se)) format(signif(x, 4)) else
  sprintf("%s (SE %s)", format(signif(x, 4)), format(signif(se, 2)))
ch <- if (!is.null(choice$scheme)) row_of(choice$scheme)
on_front <- ru$scheme[!is.na(ru$pareto) & ru$pareto]

txt_file <- file.path(out_dir, "summary.txt")
writeLines(c(
  "epimask demo: Cologne et al. (2012) workflow on the synthetic dose_cohort, to a release decision",
  "",
  "DECISION",
  if (is.null(ch)) "  No scheme meets the risk budget." else c(
    sprintf("  Release the doses masked by: %s.", choice$scheme),
    sprintf("  Analysis potential U = %s (the plotted U; raw MSE ratio %.4f); relative bias %.2f%%;",
            fmt_se(ch$analysis_potential, ch$analysis_potential_se),
            ch$analysis_potential_raw, ch$rel_bias),
    sprintf("  matching risk %s (anonymity %.3f).", fmt_se(ch$risk, ch$risk_se), ch$anonymity)),
  strwrap(format(choice), width = 96, prefix = "  "),
  "",
  "UNCERTAINTY",
  sprintf("  Monte Carlo SEs over %d replicates of each noise scheme (risk over 5 of them);", nrep),
  "  deterministic schemes are exact given the data (no Monte Carlo error). The matching risk",
  "  is estimated over 2,000 random target records of 16,000: binomial SE about",
  sprintf("  sqrt(r (1 - r) / 2000), e.g. %.3f at the unmasked risk %.2f.",
          sqrt(ru$risk[1] * (1 - ru$risk[1]) / 2000), ru$risk[1]),
  "  U is the analysis potential with the masked variance floored at the original's (bias in",
  "  full), the number printed, plotted and recommended. Schemes whose U differ by less than",
  "  1.96 SE of the difference (or 0.01) tie;",
  "  ties go to the lower risk, then the smaller bias.",
  "",
  "RELEASE CONTEXT",
  paste0("  ", format(context)),
  "  The matching risk is taken as the overall risk (Pr(attack) = 1): conservative.",
  "",
  "RISKS OF THE SAME RECORDS (the 64 cases)",
  sprintf("  Exact-match identifiability of the cases' doses: %.3f unmasked, %.4f rounded to 3 significant digits",
          ident[[1]]$score, ident[[2]]$score),
  sprintf("  Matching risk of the same 64 cases: %.3f unmasked, %s under the recommended scheme",
          cases_match_none, format(signif(cases_match_chosen, 3))),
  sprintf("  (the profile's risk is over 2,000 sampled records of all 16,000: %.3f unmasked, %s recommended)",
          ru$risk[1], if (is.null(ch)) "NA" else format(signif(ch$risk, 3))),
  "",
  "PROFILE",
  sprintf("  ERR per Gy on the original doses: %.4f (SE %.4f)", ru$estimate[1], ru$se[1]),
  sprintf("  %d schemes; analysis potential from %.3f to %.3f; anonymity from %.3f to %.3f",
          nrow(ru), min(ru$analysis_potential), max(ru$analysis_potential),
          min(ru$anonymity), max(ru$anonymity)),
  sprintf("  Records left unmasked by the noise schemes (column `unmasked`): %s; the %d zero doses",
          paste(unique(range(ru$unmasked[grepl("noise", ru$generator)], na.rm = TRUE)),
                collapse = "-"),
          sum(dose_cohort$dose == 0)),
  "  that the floor at 0 keeps at 0 are shared by thousands of people and not counted.",
  sprintf("  On the risk-utility frontier (%d): %s", length(on_front),
          paste(on_front, collapse = "; ")),
  sprintf("  Security-utility curve: theta = %.4g%s%s", curve$theta,
          if (is.na(curve$se)) "" else sprintf(" (SE %.3g)", curve$se),
          if (!isTRUE(curve$identified)) sprintf("; NOT IDENTIFIED (%s), not drawn", curve$reason)
          else if (isFALSE(curve$fits)) sprintf("; DOES NOT FIT (%s), not drawn", curve$fit_reason)
          else ""),
  "",
  sprintf("Profile: %s", csv_file),
  sprintf("Plot: %s", png_file)
), txt_file)

cat(sprintf("\nWrote (in %.0f s):\n  %s\n  %s\n  %s\n", proc.time()[["elapsed"]] - started,
            normalizePath(png_file), normalizePath(csv_file), normalizePath(txt_file)))
