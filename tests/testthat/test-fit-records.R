# The records a fit leaves out (issue 36): counted on the fits and on the
# profile, against counts made by hand and the records glm() and coxph()
# use, and printed wherever a U is shown.

if (requireNamespace("survival", quietly = TRUE)) Surv <- survival::Surv

# survival::cgd with calendar dates as (start, stop] times (days since
# 1970), the form in which a custodian would mask them.
cgd_dates <- function() {
  d <- survival::cgd
  data.frame(entry = as.numeric(d$random + d$tstart), exit = as.numeric(d$random + d$tstop),
             status = d$status, treat = d$treat, age = d$age)
}

test_that("fit_glm counts the records it drops for missing values, as glm does", {
  quine <- shipped_data("quine", "MASS")
  quine$Days[c(3, 40)] <- NA
  quine$Age[7] <- NA
  ref <- glm(Days ~ Eth + Age, quasipoisson, quine)
  fit <- fit_glm(Days ~ Eth + Age, quine, quasipoisson)
  expect_identical(fit$records, c(total = nrow(quine), used = as.integer(nobs(ref)),
                                  lost = 3L, stop_le_start = 0L, missing = 3L))
  expect_identical(fit$records[["used"]], sum(stats::complete.cases(quine[c("Days", "Eth", "Age")])))
})

test_that("fit_cox counts the intervals with stop <= start that Surv() drops, as coxph does", {
  skip_if_not_installed("survival")
  d <- cgd_dates()
  m <- d
  m$entry <- floor(m$entry / 365.25) * 365.25      # dates truncated to (about) the year
  m$exit <- floor(m$exit / 365.25) * 365.25
  bad <- sum(m$exit <= m$entry)
  expect_gt(bad, 50L)
  m$age[1:2] <- NA
  missing_only <- sum(is.na(m$age) & m$exit > m$entry)
  expect_warning(fit <- fit_cox(Surv(entry, exit, status) ~ treat + age, m),
                 "stop <= start", class = "epimask_warning_records")
  ref <- suppressWarnings(survival::coxph(Surv(entry, exit, status) ~ treat + age, m))
  expect_identical(fit$records[["used"]], as.integer(ref$n))
  expect_identical(fit$records[["stop_le_start"]], bad)
  expect_identical(fit$records[["missing"]], missing_only)
  expect_identical(fit$records[["total"]], nrow(m))
  expect_equal(unname(coef(fit)), unname(coef(ref)), tolerance = tol_glm)
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, sprintf("%d of %d records left out of the fit: %d with stop <= start, %d with missing values",
                            bad + missing_only, nrow(m), bad, missing_only), fixed = TRUE)
  # the original dates lose nothing
  expect_no_warning(f0 <- fit_cox(Surv(entry, exit, status) ~ treat + age, d))
  expect_identical(f0$records[["lost"]], 0L)
  # utility_glm says which data lost records
  u <- suppressWarnings(utility_glm(d, m, Surv(entry, exit, status) ~ treat + age,
                                    family = "cox", term = "treatrIFN-g"))
  expect_match(paste(format(u), collapse = "\n"),
               sprintf("masked data: %d of %d records left out", bad + missing_only, nrow(m)))
})

test_that("a profile counts each scheme's lost records and every U it shows says so", {
  skip_if_not_installed("survival")
  d <- cgd_dates()
  schemes <- c(mask_none(), mask_round(-2, "decimal"), mask_round(-3, "decimal"))
  ru <- ru_profile(d, schemes, Surv(entry, exit, status) ~ treat + age, family = "cox",
                   term = "treatrIFN-g", vars = c("entry", "exit"),
                   risk = function(original, masked) 0.05, seed = 1, progress = FALSE)
  # by hand: the masked intervals with stop <= start
  lost <- vapply(c(NA, -2, -3), function(k) {
    if (is.na(k)) return(0)
    sum(round(d$exit, k) <= round(d$entry, k))
  }, numeric(1))
  expect_equal(ru$records_lost, lost)
  expect_equal(ru$records_used, nrow(d) - lost)
  expect_equal(ru$records_lost_interval, lost)
  # the fit of each scheme is the fit on the records left
  for (k in c(-2, -3)) {
    m <- d
    m$entry <- round(m$entry, k)
    m$exit <- round(m$exit, k)
    keep <- m$exit > m$entry
    ref <- survival::coxph(Surv(entry, exit, status) ~ treat + age, m[keep, ])
    row <- ru$scheme == format(mask_round(k, "decimal"))
    expect_equal(ru$estimate[row], unname(coef(ref)[["treatrIFN-g"]]), tolerance = 1e-8)
  }
  # printed with the profile, the recommendation, the plot's caption and the report
  out <- gsub("\\s+", " ", paste(format(ru), collapse = " "))
  expect_match(out, sprintf("'rounding to the nearest 100' %d of %d", lost[2], nrow(d)), fixed = TRUE)
  expect_match(out, "stop <= start", fixed = TRUE)
  rec <- recommend(ru[ru$scheme != "no masking", ], max_risk = 0.1)
  expect_match(gsub("\\s+", " ", paste(format(rec), collapse = " ")),
               sprintf("U from %d of %d records, %d left out (stop <= start)",
                       nrow(d) - lost[2], nrow(d), lost[2]), fixed = TRUE)
  pd <- epimask:::ru_panel_data(ru, "ru")
  expect_match(epimask:::ru_panel_note(pd), "Fits left records out (stop <= start)", fixed = TRUE)
  content <- epimask:::report_content(ru)
  expect_equal(content$table$records_lost, lost)
  expect_true(any(grepl("The fits left records out", content$recommendation_notes)))
  # a profile that loses nothing says nothing
  ru0 <- ru_profile(d, c(mask_none(), mask_round(3)), Surv(entry, exit, status) ~ treat + age,
                    family = "cox", term = "treatrIFN-g", vars = "age", risk = "none",
                    seed = 1, progress = FALSE)
  expect_equal(ru0$records_lost, c(0, 0))
  expect_false(grepl("left records out", paste(format(ru0), collapse = " ")))
})

test_that("a GLM profile counts the records with missing values, for every scheme", {
  set.seed(8)
  d <- data.frame(x = rnorm(200), z = rnorm(200))
  d$y <- rpois(200, exp(0.3 * d$x))
  d$z[c(4, 9, 50)] <- NA
  ru <- ru_profile(d, list(mask_none(), mask_round(1, "decimal")), y ~ x + z, family = poisson(),
                   vars = "x", term = "x", risk = "none", seed = 1, progress = FALSE)
  expect_equal(ru$records_lost, c(3, 3))
  expect_equal(ru$records_lost_interval, c(0, 0))
  ref <- glm(y ~ round(x, 1) + z, poisson(), d)
  expect_equal(ru$estimate[2], unname(coef(ref)[[2L]]), tolerance = 1e-8)
  expect_match(gsub("\\s+", " ", paste(format(ru), collapse = " ")),
               "(missing values), so U is computed on the rest: 'no masking' 3 of 200", fixed = TRUE)
})
