# Builds data/dose_cohort.rda: a SYNTHETIC cohort in the spirit of the
# illustration of Cologne et al. (2012), whose microdata were 64 stomach-cancer
# cases in the Adult Health Study (AHS) of atomic-bomb survivors, with stomach
# doses from a source database of 16,153 AHS stomach doses. No real person is
# behind any record: every value is drawn below from stated distributions.
#
# Run from the package root:  Rscript data-raw/dose_cohort.R

set.seed(20120193)   # fixed: the data set is reproducible

n_people <- 16000
n_cases <- 64        # as in Cologne et al.
err_per_gy <- 0.5    # true excess relative risk per Gy (paper's estimate 0.52)
# Log-linear part of the odds: intercept (calibrated below), male sex,
# age at exposure per 10 years above 30, Nagasaki.
gamma_effects <- c(male = 0.7, age_exp10 = 0.4, nagasaki = -0.1)
max_dose <- 3        # Gy; doses are truncated below this, as the AHS doses

city <- factor(ifelse(stats::runif(n_people) < 0.67, "Hiroshima", "Nagasaki"),
               levels = c("Hiroshima", "Nagasaki"))
sex <- factor(ifelse(stats::runif(n_people) < 0.41, "male", "female"),
              levels = c("female", "male"))

# Age at the time of the bombings (1945): young cohort, long right tail.
age_exp <- pmin(floor(stats::rgamma(n_people, shape = 2.5, scale = 10)), 75L)
age_exp <- as.integer(age_exp)

# Stomach dose (Gy): about a third not in the city (dose 0), the rest
# log-normal (median 0.4 Gy), redrawn above max_dose, stored to 0.01 mGy
# (5 decimals) as in a dose database. At this precision most positive doses
# are unique, as in the paper's Table 1(a) (35 of 64 cases matched a single
# AHS dose), while doses rounded to 3 significant digits rarely equal a stored
# dose (Table 1(b)); with 4 decimals the many low doses would tie far more
# often than in the paper. Zero doses are a little more common in
# Nagasaki, whose AHS comparison group was larger.
p_zero <- ifelse(city == "Hiroshima", 0.33, 0.38)
draw_positive_dose <- function(m) {
  d <- stats::rlnorm(m, meanlog = log(0.4), sdlog = 1.3)
  over <- d >= max_dose
  if (any(over)) d[over] <- draw_positive_dose(sum(over))
  d
}
exposed <- stats::runif(n_people) >= p_zero
dose <- numeric(n_people)
dose[exposed] <- draw_positive_dose(sum(exposed))
dose <- round(dose, 5)
dose[exposed & dose == 0] <- 1e-5      # an exposed person keeps a positive dose

# Stomach-cancer cases from the linear ERR model of METHODS 2.1,
#   odds_i = exp(z_i' gamma) (1 + beta d_i),
# with the intercept calibrated so that the expected number of cases is
# n_cases, and the draw taken conditional on exactly n_cases cases
# (rejection sampling of independent Bernoulli draws; conditioning on the
# total leaves the likelihood of gamma[-1] and beta unchanged).
z_linear <- gamma_effects[["male"]] * (sex == "male") +
  gamma_effects[["age_exp10"]] * (age_exp - 30) / 10 +
  gamma_effects[["nagasaki"]] * (city == "Nagasaki")
case_prob <- function(gamma0) {
  odds <- exp(gamma0 + z_linear) * (1 + err_per_gy * dose)
  odds / (1 + odds)
}
gamma0 <- stats::uniroot(function(g) sum(case_prob(g)) - n_cases,
                         c(-20, 0), tol = 1e-10)$root
prob <- case_prob(gamma0)
repeat {
  case <- as.integer(stats::runif(n_people) < prob)
  if (sum(case) == n_cases) break
}

# Age at the end of follow-up (1945 + 53 = 1998, or death; the AHS began in
# 1958, so everyone was alive then); for a case, age at diagnosis, drawn
# uniformly between age 30 (or entry in 1958) and the end of follow-up.
age_entry <- age_exp + 13
death_age <- age_entry + stats::rweibull(n_people, shape = 5, scale = pmax(85 - age_entry, 10))
age_end <- pmin(age_exp + 53, death_age)
is_case <- case == 1L
start <- pmax(age_entry[is_case], 30)
age_end[is_case] <- start + stats::runif(sum(is_case)) * pmax(age_end[is_case] - start, 1)
age_end <- round(age_end, 1)

dose_cohort <- data.frame(
  id = seq_len(n_people),
  city = city,
  sex = sex,
  age_exp = age_exp,
  age_end = age_end,
  dose = dose,
  case = case
)

message(sprintf("dose_cohort: %d people, %d cases, %.1f%% zero doses, max dose %.4f Gy, gamma0 = %.3f",
                nrow(dose_cohort), sum(dose_cohort$case),
                100 * mean(dose_cohort$dose == 0), max(dose_cohort$dose), gamma0))
save(dose_cohort, file = file.path("data", "dose_cohort.rda"), compress = "xz")
