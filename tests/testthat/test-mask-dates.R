# Date and POSIXct columns (methods vignette section 23): shifting by whole days per person,
# truncation and rounding to a unit, top coding with date bounds. The
# references are computed here with format() and seq() on the calendar, not
# with the package's arithmetic.

dates_fixture <- function(n_persons = 50, seed = 1) {
  set.seed(seed)
  m <- sample(1:5, n_persons, replace = TRUE)
  pid <- rep(sprintf("p%02d", seq_len(n_persons)), m)
  birth <- rep(as.Date("1930-01-01") + sample(0:20000, n_persons, TRUE), m)
  entry <- rep(as.Date("2015-01-01") + sample(0:700, n_persons, TRUE), m)
  visit <- entry + unlist(lapply(m, function(k) sort(sample(0:900, k))))
  data.frame(pid = pid, birth = birth, visit = visit, sbp = round(rnorm(length(pid), 130, 10)),
             stringsAsFactors = FALSE)
}

test_that("shifting per person keeps every within-person interval and the column class", {
  d <- dates_fixture()
  d0 <- d
  set.seed(2)
  m <- apply_mask(d, mask_noise(14, by = "pid"), c("birth", "visit"))
  expect_identical(d, d0)                      # the input is not modified
  expect_s3_class(m$birth, "Date")
  expect_s3_class(m$visit, "Date")
  expect_identical(m$pid, d$pid)
  expect_identical(m$sbp, d$sbp)
  # intervals within a person, within and across columns: identical
  expect_identical(as.numeric(m$visit - m$birth), as.numeric(d$visit - d$birth))
  for (p in unique(d$pid)) {
    i <- d$pid == p
    expect_identical(as.numeric(diff(m$visit[i])), as.numeric(diff(d$visit[i])))
  }
  # one whole-day shift per person, non-zero, within [-14, 14]
  shift <- as.numeric(m$birth - d$birth)
  expect_true(all(shift == round(shift)))
  expect_true(all(shift != 0 & abs(shift) <= 14))
  expect_equal(as.vector(tapply(shift, d$pid, function(s) length(unique(s)))),
               rep(1, length(unique(d$pid))))
  # nothing of the scheme is attached to the release
  expect_identical(names(attributes(m$birth)), "class")
  expect_setequal(names(attributes(m)), names(attributes(d)))
  # without `by`: one shift per record, the same for the record's columns
  set.seed(3)
  r <- apply_mask(d, mask_noise(14), c("birth", "visit"))
  expect_identical(as.numeric(r$visit - r$birth), as.numeric(d$visit - d$birth))
  per_record <- as.numeric(r$visit - d$visit)
  expect_gt(length(unique(per_record[d$pid == d$pid[duplicated(d$pid)][1]])), 0)
  expect_true(any(tapply(per_record, d$pid, function(s) length(unique(s))) > 1))
})

test_that("shifts are uniform on the non-zero days of [-amount, amount] (chi-squared)", {
  # 20,000 persons, amount 10: 20 equally likely shifts. With a fixed seed
  # the statistic is a fixed number; the tolerance is the 0.999 quantile of
  # chi-squared with 19 df (43.8), so a correct sampler fails with
  # probability 0.001 over seeds, and a sampler that includes 0, or puts
  # 2 % more mass on one value, or draws from [-amount, amount - 1], fails.
  n <- 20000
  d <- data.frame(pid = seq_len(n), day = as.Date("2020-06-15"))
  set.seed(20251126)
  m <- apply_mask(d, mask_noise(10, by = "pid"), "day")
  shift <- as.numeric(m$day - d$day)
  support <- c(-10:-1, 1:10)
  expect_true(all(shift %in% support))
  counts <- tabulate(match(shift, support), length(support))
  expected <- n / length(support)
  stat <- sum((counts - expected)^2 / expected)
  expect_lt(stat, qchisq(0.999, length(support) - 1))
  # both ends are reached
  expect_true(all(counts > 0))
})

test_that("a keyed shift is the same in every release under one secret", {
  d <- dates_fixture(30)
  a <- apply_mask(d, mask_noise(30, by = "pid", secret = "custodian key"), "visit")
  set.seed(99)
  b <- apply_mask(d, mask_noise(30, by = "pid", secret = "custodian key"), "visit")
  expect_identical(a$visit, b$visit)
  c2 <- apply_mask(d, mask_noise(30, by = "pid", secret = "another key"), "visit")
  expect_false(identical(a$visit, c2$visit))
  shift <- as.numeric(a$visit - d$visit)
  expect_true(all(shift != 0 & abs(shift) <= 30))
  expect_equal(max(tapply(shift, d$pid, function(s) length(unique(s)))), 1)
  # the secret is not printed
  expect_false(grepl("custodian", format(mask_noise(30, by = "pid", secret = "custodian key"))))
  expect_error(mask_noise(3, secret = "k"), class = "epimask_error_value")
})

test_that("truncation to week, month, quarter, year equals a format()/seq() computation", {
  x <- seq(as.Date("1999-12-20"), as.Date("2001-03-10"), by = "day")
  d <- data.frame(x = x)
  trunc_to <- function(unit) apply_mask(d, mask_truncate(unit = unit), "x")$x
  # ISO week: back to the Monday (format %u: 1 = Monday ... 7 = Sunday)
  expect_identical(trunc_to("week"), x - (as.integer(format(x, "%u")) - 1L))
  expect_true(all(format(trunc_to("week"), "%u") == "1"))
  expect_identical(trunc_to("month"), as.Date(format(x, "%Y-%m-01")))
  q_month <- (as.integer(format(x, "%m")) - 1L) %/% 3L * 3L + 1L
  expect_identical(trunc_to("quarter"), as.Date(sprintf("%s-%02d-01", format(x, "%Y"), q_month)))
  expect_identical(trunc_to("year"), as.Date(format(x, "%Y-01-01")))
  expect_s3_class(trunc_to("year"), "Date")
})

test_that("rounding goes to the nearer first day of the unit (halfway: the later)", {
  x <- seq(as.Date("2019-12-01"), as.Date("2021-01-31"), by = "day")
  d <- data.frame(x = x)
  for (unit in c("week", "month", "quarter", "year")) {
    got <- apply_mask(d, mask_round(unit = unit), "x")$x
    # reference: the boundaries of the unit from seq(), then the nearer one
    starts <- seq(as.Date("2018-01-01"), as.Date("2022-12-31"),
                  by = switch(unit, week = "week", month = "month", quarter = "quarter",
                              year = "year"))
    if (unit == "week") starts <- seq(as.Date("2017-12-25"), as.Date("2022-12-31"), by = "week")
    lower <- starts[findInterval(as.numeric(x), as.numeric(starts))]
    upper <- starts[findInterval(as.numeric(x), as.numeric(starts)) + 1L]
    want <- ifelse(as.numeric(upper - x) <= as.numeric(x - lower), upper, lower)
    expect_identical(as.numeric(got), as.numeric(want), label = unit)
  }
  # 2020-02-16 is 15 days after 2020-02-01 and 14 before 2020-03-01
  expect_identical(apply_mask(data.frame(x = as.Date("2020-02-16")), mask_round(unit = "month"), "x")$x,
                   as.Date("2020-03-01"))
  # 2020-02-15: 14 days after, 15 before
  expect_identical(apply_mask(data.frame(x = as.Date("2020-02-15")), mask_round(unit = "month"), "x")$x,
                   as.Date("2020-02-01"))
  # 2021-04-16: 15 days after 2021-04-01 and 15 before 2021-05-01: halfway goes later
  expect_identical(apply_mask(data.frame(x = as.Date("2021-04-16")), mask_round(unit = "month"), "x")$x,
                   as.Date("2021-05-01"))
})

test_that("POSIXct columns keep their time zone; shifts keep intervals to the second", {
  t0 <- as.POSIXct(c("2021-03-13 10:00:00", "2021-03-15 09:30:00", "2021-11-06 23:59:59"),
                   tz = "America/New_York")
  d <- data.frame(pid = c(1, 1, 2), t = t0)
  set.seed(4)
  m <- apply_mask(d, mask_noise(5, by = "pid"), "t")
  expect_s3_class(m$t, "POSIXct")
  expect_identical(attr(m$t, "tzone"), "America/New_York")
  expect_identical(as.numeric(diff(m$t[1:2]), units = "secs"),
                   as.numeric(diff(t0[1:2]), units = "secs"))
  shift <- as.numeric(m$t) - as.numeric(t0)
  expect_true(all(shift %% 86400 == 0 & shift != 0 & abs(shift) <= 5 * 86400))
  # truncation: midnight of the first day, in the column's own zone
  w <- apply_mask(d, mask_truncate(unit = "month"), "t")$t
  expect_identical(format(w, "%Y-%m-%d %H:%M:%S"),
                   c("2021-03-01 00:00:00", "2021-03-01 00:00:00", "2021-11-01 00:00:00"))
  expect_identical(attr(w, "tzone"), "America/New_York")
  # the same instants read in Tokyo fall on other days
  tokyo <- data.frame(t = .POSIXct(as.numeric(t0), tz = "Asia/Tokyo"))
  wk <- apply_mask(tokyo, mask_truncate(unit = "week"), "t")$t
  expect_identical(format(wk, "%u %H:%M"), rep("1 00:00", 3))
  expect_identical(as.Date(format(wk, "%Y-%m-%d")),
                   as.Date(format(tokyo$t, "%Y-%m-%d")) -
                     (as.integer(format(tokyo$t, "%u")) - 1L))
  # POSIXlt is refused with a classed error
  lt <- data.frame(id = 1:3)
  lt$t <- as.POSIXlt(t0)
  expect_error(apply_mask(lt, mask_noise(2), "t"), class = "epimask_error_type")
})

test_that("top coding of dates and ages", {
  d <- data.frame(birth = as.Date(c("1931-05-02", "1948-11-30", "1934-12-31", NA)),
                  age = c(95, 61, 89, 40))
  m <- apply_mask(d, mask_topcode(lower = as.Date("1935-01-01")), "birth")
  expect_identical(m$birth, as.Date(c("1935-01-01", "1948-11-30", "1935-01-01", NA)))
  a <- apply_mask(d, mask_topcode(upper = 90), "age")
  expect_identical(a$age, c(90, 61, 89, 40))
  mm <- apply_mask(d, mask_topcode(lower = as.Date("1935-01-01"), value = "mean"), "birth")
  expect_identical(mm$birth[c(1, 3)],
                   rep(as.Date(round(mean(as.numeric(d$birth[c(1, 3)]))), origin = "1970-01-01"), 2))
  s <- summary(mask_topcode(lower = as.Date("1935-01-01")), d, "birth")
  expect_equal(s$table$below, 2)
  # a numeric bound on a date column and a date bound on a number are refused
  expect_error(apply_mask(d, mask_topcode(upper = 90), "birth"), class = "epimask_error_type")
  expect_error(apply_mask(d, mask_topcode(lower = as.Date("1935-01-01")), "age"),
               class = "epimask_error_type")
  expect_error(mask_topcode(upper = 90, lower = as.Date("1935-01-01")), class = "epimask_error_type")
  # a Date bound on a POSIXct column is midnight in the column's zone
  p <- data.frame(t = as.POSIXct(c("1934-06-01 12:00", "1950-01-01 08:00"), tz = "UTC"))
  pt <- apply_mask(p, mask_topcode(lower = as.Date("1935-01-01")), "t")$t
  expect_identical(format(pt, "%Y-%m-%d %H:%M"), c("1935-01-01 00:00", "1950-01-01 08:00"))
})

test_that("bad input: classed errors, nothing modified, no date released unshifted in silence", {
  d <- dates_fixture(20)
  d0 <- d
  bad <- d
  bad$pid[4] <- NA
  expect_error(apply_mask(bad, mask_noise(7, by = "pid"), "visit"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_noise(7, by = "nope"), "visit"), class = "epimask_error_name")
  expect_error(apply_mask(as.matrix(d["sbp"]), mask_noise(7, by = "pid"), "sbp"),
               class = "epimask_error_type")
  expect_error(mask_round(unit = "decade"), class = "epimask_error_value")
  expect_error(mask_truncate(unit = "fortnight"), class = "epimask_error_value")
  expect_error(mask_round(2, unit = "month"), class = "epimask_error_value")
  expect_error(mask_round(), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_round(2), "visit"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_truncate(0), "visit"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_round(unit = "month"), "sbp"), class = "epimask_error_type")
  expect_error(apply_mask(d, mask_noise(2.5), "visit"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_noise(2, "normal"), "visit"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_noise(2, lower = 0), "visit"), class = "epimask_error_value")
  expect_error(mask_noise(2, "correlated", by = "pid"), class = "epimask_error_value")
  # types that do not mask dates say so
  expect_error(apply_mask(d, mask_group(c(0, 1e6)), "visit"), class = "epimask_error_type")
  expect_error(apply_mask(d, mask_microagg(3), "visit"), class = "epimask_error_type")
  expect_identical(d, d0)
  # dates before 1900 or in the future: masked, with a classed warning
  odd <- d
  odd$birth[1] <- as.Date("1800-01-01")
  odd$visit[2] <- Sys.Date() + 400
  set.seed(5)
  expect_warning(m <- apply_mask(odd, mask_noise(7, by = "pid"), c("birth", "visit")),
                 class = "epimask_warning_dates")
  expect_true(m$birth[1] != odd$birth[1])
  expect_true(m$visit[2] != odd$visit[2])
  # every date moves: the unmasked-record check finds nothing to report
  set.seed(6)
  expect_silent(m <- apply_mask(d, mask_noise(1, by = "pid"), c("birth", "visit"),
                                unmasked = "error"))
  expect_true(all(m$visit != d$visit))
  # missing dates stay missing
  na <- d
  na$visit[3] <- NA
  m <- apply_mask(na, mask_noise(3, by = "pid"), "visit")
  expect_true(is.na(m$visit[3]))
  expect_true(all(!is.na(m$visit[-3])))
})

test_that("date schemes work in a profile and their labels read well", {
  expect_identical(format(mask_truncate(unit = "week")), "truncating dates to an ISO week")
  expect_identical(format(mask_round(unit = "month")), "rounding dates to a month")
  expect_match(format(mask_noise(7, by = "pid")), "per 'pid'")
  expect_identical(scheme_label(mask_truncate(unit = "year")), "trunc to year")
  expect_lt(mask_strength(mask_truncate(unit = "week")), mask_strength(mask_truncate(unit = "year")))
  d <- dates_fixture(60)
  d$age <- as.numeric(d$visit - d$birth) / 365.25
  derive <- function(x) {
    x$age <- as.numeric(x$visit - x$birth) / 365.25
    x
  }
  ru <- ru_profile(d, list(mask_noise(30, by = "pid"), mask_truncate(unit = "year")),
                   sbp ~ age, vars = c("birth", "visit"), term = "age", risk = "none",
                   derive = derive, nrep = 3, seed = 1)
  # the per-person shift leaves the derived ages exactly: no bias at all
  shifted <- ru[grepl("noise", ru$scheme), ]
  expect_equal(shifted$bias, 0, tolerance = 1e-12)
  trunc <- ru[grepl("trunc", ru$scheme), ]
  ref <- lm(sbp ~ age, derive(apply_mask(d, mask_truncate(unit = "year"), c("birth", "visit"))))
  expect_equal(trunc$estimate, unname(coef(ref)[["age"]]), tolerance = 1e-8)
})
