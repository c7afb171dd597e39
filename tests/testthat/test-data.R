test_that("dose_cohort has the documented columns, types and ranges", {
  dc <- load_epimask_data("dose_cohort")
  expect_identical(class(dc), "data.frame")
  expect_named(dc, c("id", "city", "sex", "age_exp", "age_end", "dose", "case"))
  expect_equal(nrow(dc), 16000)
  expect_false(anyNA(dc))
  expect_identical(dc$id, seq_len(16000))
  expect_identical(levels(dc$city), c("Hiroshima", "Nagasaki"))
  expect_identical(levels(dc$sex), c("female", "male"))
  expect_type(dc$age_exp, "integer")
  expect_type(dc$case, "integer")
  expect_true(all(dc$case %in% 0:1))
  expect_equal(sum(dc$case), 64)
  expect_true(all(dc$age_exp >= 0 & dc$age_exp <= 75))
  expect_true(all(dc$age_end > dc$age_exp & dc$age_end <= 110))
  # dose: many zeros, skewed, maximum just under 3 Gy, 5 decimals
  expect_true(all(dc$dose >= 0 & dc$dose < 3))
  expect_gt(max(dc$dose), 2.8)
  expect_true(mean(dc$dose == 0) > 0.3 && mean(dc$dose == 0) < 0.4)
  expect_gt(mean(dc$dose), median(dc$dose))
  expect_equal(dc$dose, round(dc$dose, 5))
  # most positive case doses are unique in the cohort at full precision,
  # far fewer after rounding to 3 significant digits (Cologne Table 1)
  counts <- table(dc$dose)
  case_dose <- dc$dose[dc$case == 1 & dc$dose > 0]
  unique_full <- sum(counts[as.character(case_dose)] == 1)
  rounded <- signif(case_dose, 3)
  unique_rounded <- sum(counts[as.character(rounded)] == 1, na.rm = TRUE)
  expect_gt(unique_full, 25)
  expect_lt(unique_rounded, unique_full / 2)
})

test_that("dose_cohort cases follow the linear ERR model (loose likelihood check)", {
  dc <- load_epimask_data("dose_cohort")
  z <- cbind(1, dc$sex == "male", (dc$age_exp - 30) / 10, dc$city == "Nagasaki")
  y <- dc$case
  # deviance of odds = exp(z'g) (1 + b d), maximised over g for fixed b by
  # glm.fit with offset log(1 + b d)
  profile_dev <- function(b) {
    fit <- glm.fit(z, y, family = binomial(), offset = log1p(b * dc$dose))
    fit$deviance
  }
  b_hat <- optimize(profile_dev, c(-0.3, 5))$minimum
  expect_gt(b_hat, 0)
  expect_lt(b_hat, 3)
  # the true ERR of 0.5 per Gy lies in the likelihood-ratio 95% interval
  expect_lt(profile_dev(0.5) - profile_dev(b_hat), qchisq(0.95, 1))
  fit <- glm.fit(z, y, family = binomial(), offset = log1p(0.5 * dc$dose))
  expect_gt(fit$coefficients[2], 0)   # men at higher risk
  expect_gt(fit$coefficients[3], 0)   # risk grows with age at exposure
})

test_that("zip_mortality has the documented columns, types and ranges", {
  zm <- load_epimask_data("zip_mortality")
  age <- c("65_69", "70_74", "75_79", "80_84", "85plus")
  expect_identical(class(zm), "data.frame")
  expect_named(zm, c("zip", "lon", "lat", "person_years", "deaths", "p_black",
                     "p_female", paste0("p_age", age), paste0("p_female", age)))
  expect_equal(nrow(zm), 2000)
  expect_false(anyNA(zm))
  expect_type(zm$zip, "character")
  expect_true(all(grepl("^[0-9]{5}$", zm$zip)) && !anyDuplicated(zm$zip))
  expect_true(all(zm$lon > -80 & zm$lon < -70 & zm$lat > 39 & zm$lat < 45))
  expect_type(zm$person_years, "integer")
  expect_type(zm$deaths, "integer")
  expect_true(all(zm$person_years > 0 & zm$deaths >= 0 &
                  zm$deaths <= zm$person_years))
  rate <- sum(zm$deaths) / sum(zm$person_years)
  expect_true(rate > 0.02 && rate < 0.08)

  props <- as.matrix(zm[grep("^p_", names(zm))])
  expect_true(all(props >= 0 & props <= 1))
  age_share <- as.matrix(zm[paste0("p_age", age)])
  female_share <- as.matrix(zm[paste0("p_female", age)])
  expect_equal(unname(rowSums(age_share)), rep(1, 2000), tolerance = tol_exact)
  expect_equal(unname(rowSums(female_share)), zm$p_female, tolerance = tol_exact)
  expect_true(all(female_share <= age_share + 1e-12))
  # shares are realized counts over person-years
  expect_equal(zm$p_black * zm$person_years, round(zm$p_black * zm$person_years),
               tolerance = tol_exact)
})

test_that("zip_mortality deaths carry a positive race effect of the stated size", {
  zm <- load_epimask_data("zip_mortality")
  fit <- glm(cbind(deaths, person_years - deaths) ~ p_black + p_age70_74 +
               p_age75_79 + p_age80_84 + p_age85plus + p_female +
               p_female70_74 + p_female75_79 + p_female80_84 + p_female85plus,
             family = quasibinomial(), data = zm)
  est <- coef(fit)[["p_black"]]
  se <- sqrt(vcov(fit)["p_black", "p_black"])
  # the ecological coefficient approximates the individual log OR of 0.4
  # (the bundled data are fixed: measured 0.014, SE 0.017; 4 SE)
  expect_lt(abs(est - 0.4), 4 * se)
  expect_gt(coef(fit)[["p_age85plus"]], 0)
})

test_that("the data files stay small", {
  data_dir <- test_path("..", "..", "data")
  skip_if_not(dir.exists(data_dir), "package sources not available")
  sizes <- file.size(list.files(data_dir, pattern = "[.]rda$", full.names = TRUE))
  expect_gte(length(sizes), 3)
  expect_true(all(sizes < 1e6))
})

test_that("adult_extract is the documented extract of Adult", {
  expect_identical(dim(adult_extract), c(4000L, 10L))
  expect_false(anyNA(adult_extract))
  keys <- c("age", "sex", "race", "marital_status", "education", "native_country", "workclass")
  cl <- do.call(paste, c(lapply(adult_extract[keys], as.character), sep = "\r"))
  expect_identical(sum(table(cl) == 1), 1873L)
  expect_identical(levels(adult_extract$income), c("<=50K", ">50K"))
  # the script's draw from the full data, when it is at hand
  path <- Sys.getenv("EPIMASK_ADULT", file.path("..", "..", "..", "shared", "data", "adult.csv"))
  if (!file.exists(path)) path <- "/work/shared/data/adult.csv"
  skip_if_not(file.exists(path), "the full Adult data are not at hand")
  adult <- utils::read.csv(path, check.names = FALSE, stringsAsFactors = FALSE)
  set.seed(29)
  rows <- sort(sample(nrow(adult), 4000L))
  expect_identical(adult_extract$age, as.integer(adult$age[rows]))
  expect_identical(as.character(adult_extract$occupation), adult$occupation[rows])
})

test_that("trial_visits has the documented columns, several visits per person and consistent dates", {
  tv <- load_epimask_data("trial_visits")
  expect_identical(class(tv), "data.frame")
  expect_named(tv, c("pid", "site", "sex", "birth", "arm", "visit", "visit_date", "sbp",
                     "exit_date", "event"))
  expect_equal(nrow(tv), 3609)
  expect_equal(length(unique(tv$pid)), 600)
  expect_false(anyNA(tv))
  expect_s3_class(tv$birth, "Date")
  expect_s3_class(tv$visit_date, "Date")
  expect_s3_class(tv$exit_date, "Date")
  # person-level columns are constant within a person
  for (v in c("site", "sex", "birth", "arm", "exit_date", "event"))
    expect_equal(max(tapply(as.character(tv[[v]]), tv$pid, function(x) length(unique(x)))), 1)
  # visits numbered 1.. in date order, before the exit
  expect_true(all(tapply(tv$visit, tv$pid, function(v) identical(v, seq_along(v)))))
  expect_true(all(tapply(as.numeric(tv$visit_date), tv$pid, function(v) all(diff(v) > 0))))
  expect_true(all(tv$visit_date <= tv$exit_date))
  expect_true(all(tv$visit_date >= as.Date("2015-01-01")))
  expect_true(all(tv$exit_date <= as.Date("2019-12-31")))
  age <- as.numeric(tv$visit_date[tv$visit == 1] - tv$birth[tv$visit == 1]) / 365.25
  expect_true(all(age > 38 & age < 87))
  expect_true(all(tv$event %in% 0:1))
})
