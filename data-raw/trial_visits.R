# Builds data/trial_visits.rda: a SYNTHETIC randomised trial with several
# visits per participant, in the spirit of the clinical-trial data of
# El Emam & Malin (2014), whose "longitudinal record" of a participant is many
# records under one pseudonym. No real person is behind any record: every
# value is drawn below from stated distributions.
#
# Run from the package root:  Rscript data-raw/trial_visits.R

set.seed(20140625)   # fixed: the data set is reproducible

n <- 600                                  # participants
sites <- c("Boston", "Chicago", "Denver", "Houston", "Seattle")
start <- as.Date("2015-01-01")            # recruitment 2015-2016
close <- as.Date("2019-12-31")            # end of follow-up

pid <- sprintf("P%04d", seq_len(n))
site <- factor(sample(sites, n, replace = TRUE, prob = c(0.3, 0.2, 0.15, 0.2, 0.15)),
               levels = sites)
sex <- factor(ifelse(stats::runif(n) < 0.45, "F", "M"), levels = c("F", "M"))
arm <- stats::rbinom(n, 1, 0.5)           # 1 = treatment, 0 = control
entry <- start + sample(0:730, n, replace = TRUE)
# age at entry 40-85, mean about 63
age_entry <- pmin(pmax(stats::rnorm(n, 63, 9), 40), 85)
birth <- entry - round(age_entry * 365.25) - sample(0:364, n, replace = TRUE) +
  sample(0:364, n, replace = TRUE)
age_entry <- as.numeric(entry - birth) / 365.25

# Time to the event (death or hospitalisation, days): exponential with a
# hazard that rises 4% per year of age at entry and is lower by a third under
# treatment: log hazard = log(1/1800) + 0.04 (age - 63) - 0.4 arm.
rate <- (1 / 1800) * exp(0.04 * (age_entry - 63) - 0.4 * arm)
time_event <- stats::rexp(n, rate)
follow_end <- as.numeric(close - entry)
event <- as.integer(time_event <= follow_end)
exit <- entry + round(pmin(time_event, follow_end))

# Visits: entry, then every 6 months (+- 3 weeks) while under follow-up, at
# most 8; systolic blood pressure at each visit.
rows <- lapply(seq_len(n), function(i) {
  days <- c(0, seq(182, 8 * 182, by = 182))
  days <- days + c(0, sample(-21:21, length(days) - 1L, replace = TRUE))
  days <- days[days < as.numeric(exit[i] - entry[i])]
  if (!length(days)) days <- 0
  days <- days[seq_len(min(length(days), 8L))]
  sbp <- round(stats::rnorm(1, 135, 12) + stats::rnorm(length(days), 0, 8) -
                 arm[i] * 5 * (days > 0))
  data.frame(pid = pid[i], visit = seq_along(days), visit_date = entry[i] + days,
             sbp = sbp, stringsAsFactors = FALSE)
})
visits <- do.call(rbind, rows)
person <- match(visits$pid, pid)

trial_visits <- data.frame(
  pid = visits$pid,
  site = site[person],
  sex = sex[person],
  birth = birth[person],
  arm = arm[person],
  visit = visits$visit,
  visit_date = visits$visit_date,
  sbp = visits$sbp,
  exit_date = exit[person],
  event = event[person],
  stringsAsFactors = FALSE
)

message(sprintf("trial_visits: %d participants, %d visits (%.1f per participant), %d events",
                n, nrow(trial_visits), nrow(trial_visits) / n, sum(event)))
save(trial_visits, file = file.path("data", "trial_visits.rda"), compress = "xz")
