# The column review (issue 36 item 1, methods vignette section 26): every
# figure against an independent computation in the test: ARX's measures by
# brute force over all record pairs, the proxy measure by table(), its
# chance expectation by enumerating every permutation, the flags on Adult,
# trial_visits and cgd by plain R.

adult_path <- function() {
  path <- Sys.getenv("EPIMASK_ADULT", file.path("..", "..", "..", "shared", "data", "adult.csv"))
  if (!file.exists(path)) path <- "/work/shared/data/adult.csv"
  path
}
read_adult <- function() {
  skip_if_not(file.exists(adult_path()), "adult.csv not available")
  utils::read.csv(adult_path(), check.names = FALSE, stringsAsFactors = FALSE)
}
adult_keys <- c("age", "sex", "race", "marital-status", "education")

# ---- brute-force references ---------------------------------------------------------

# values as text, NA a value of its own
plain_text <- function(x) {
  v <- if (inherits(x, "Date")) format(x) else as.character(x)
  v[is.na(x)] <- "\001NA"
  v
}
# ARX's definitions over every pair of records: distinction = distinct
# combinations / records; separation = share of the n (n - 1) / 2 pairs that
# differ on at least one of the columns
brute_arx <- function(d, cols) {
  lab <- do.call(paste, c(lapply(d[cols], plain_text), sep = "\r"))
  n <- length(lab)
  separated <- 0
  for (i in seq_len(n - 1L)) for (j in (i + 1L):n) separated <- separated + (lab[[i]] != lab[[j]])
  c(distinction = length(unique(lab)) / n, separation = separated / (n * (n - 1) / 2))
}
# the share of records in groups of `col` where one value of `key` holds at
# least `purity` of the group (the records holding that value)
plain_determined <- function(col, key, purity = 0.99) {
  t <- table(plain_text(col), plain_text(key))
  dom <- apply(t, 1L, max)
  sum(dom[dom >= ceiling(purity * rowSums(t) - 1e-7)])
}
all_permutations <- function(v) {
  if (length(v) <= 1L) return(list(v))
  out <- list()
  for (i in seq_along(v)) for (p in all_permutations(v[-i])) out[[length(out) + 1L]] <- c(v[[i]], p)
  out
}

# ---- ARX's alpha-distinction and alpha-separation -------------------------------------

test_that("alpha-distinction and alpha-separation equal ARX's hand-computed fixture", {
  # ARX's TestRiskQuasiIdentifiers (values computed by hand there)
  d <- data.frame(age = c("20", "30", "40", "20", "40"),
                  sex = c("Female", "Female", "Female", "Male", "Male"),
                  state = c("CA", "CA", "TX", "NY", "CA"), stringsAsFactors = FALSE)
  arx <- list(sex = c(0.4, 0.6), state = c(0.6, 0.7), age = c(0.6, 0.8),
              `sex,state` = c(0.8, 0.9), `age,sex` = c(1, 1), `age,state` = c(1, 1),
              `age,sex,state` = c(1, 1))
  for (nm in names(arx)) {
    cols <- strsplit(nm, ",")[[1L]]
    codes <- lapply(d[cols], epimask:::dense_codes)
    m <- epimask:::distinction_measures(Reduce(epimask:::combine_codes, codes))
    expect_equal(unname(m[c("distinction", "separation")]), arx[[nm]], tolerance = 1e-15,
                 info = nm)
    expect_equal(unname(m[c("distinction", "separation")]), unname(brute_arx(d, cols)),
                 tolerance = 1e-15, info = nm)
  }
  rev <- review_columns(d, keys = character(), control = review_control(distinction = 0.99))
  expect_equal(rev$columns$distinction, c(0.6, 0.4, 0.6))
  expect_equal(rev$columns$separation, c(0.8, 0.6, 0.7))
})

test_that("ARX's measures of every combination equal brute force over all pairs of records", {
  set.seed(11)
  for (rep in 1:4) {
    n <- sample(8:40, 1L)
    d <- data.frame(a = sample(c("x", "y", NA), n, TRUE), b = sample(1:4, n, TRUE),
                    c = as.Date("2020-01-01") + sample(0:5, n, TRUE),
                    e = factor(sample(c("u", "v"), n, TRUE), levels = c("u", "v", "w")),
                    f = round(runif(n), 1), stringsAsFactors = FALSE)
    for (size in 1:3) for (cols in utils::combn(names(d), size, simplify = FALSE)) {
      codes <- lapply(d[cols], epimask:::dense_codes)
      m <- epimask:::distinction_measures(Reduce(epimask:::combine_codes, codes))
      expect_equal(unname(m[c("distinction", "separation")]), unname(brute_arx(d, cols)),
                   tolerance = 1e-14, info = paste(cols, collapse = "+"))
      lab <- do.call(paste, c(lapply(d[cols], plain_text), sep = "\r"))
      expect_equal(m[["unique"]], mean(!lab %in% lab[duplicated(lab)]))
    }
    # the review's table and its near-unique combinations (the minimal ones)
    rev <- review_columns(d, keys = "b", control = review_control(distinction = 0.6))
    single <- vapply(names(d), function(c) brute_arx(d, c)[["distinction"]], 1)
    expect_equal(rev$columns$distinction, unname(single), tolerance = 1e-15)
    # the candidates: the key b and the columns with nothing else to flag
    # (c is a Date, flagged as a date)
    expect_identical(rev$columns$role[rev$columns$column == "c"], "date")
    free <- c("a", "b", "e", "f")
    expected <- character()
    for (cols in utils::combn(free, 2L, simplify = FALSE)) {
      if (any(single[cols] >= 0.6)) next
      if (brute_arx(d, cols)[["distinction"]] >= 0.6) expected <- c(expected, paste(cols, collapse = " + "))
    }
    expect_setequal(rev$combinations$columns, expected)
  }
})

# ---- the proxy measure --------------------------------------------------------------

test_that("the chance expectation equals the mean over every permutation of the key", {
  set.seed(5)
  for (rep in 1:6) {
    key <- sample(c("a", "b", "c"), 7L, TRUE, prob = c(0.6, 0.3, 0.1))
    col <- sample(c("p", "q", "r", "s"), 7L, TRUE)
    for (purity in c(1, 0.99, 0.6)) {
      r <- epimask:::proxy_determination(epimask:::dense_codes(key), epimask:::dense_codes(col),
                                         NULL, purity)
      perms <- all_permutations(seq_along(key))
      mean_det <- mean(vapply(perms, function(p) plain_determined(col, key[p], purity), 1))
      expect_equal(r$expected, mean_det, tolerance = 1e-12)
      expect_equal(r$determined, plain_determined(col, key, purity))
    }
  }
})

test_that("on a release the expectation deals the key within each released class", {
  set.seed(8)
  for (rep in 1:4) {
    stratum <- sample(c("s1", "s2"), 7L, TRUE)
    key <- sample(c("a", "b", "c"), 7L, TRUE)
    col <- sample(c("p", "q"), 7L, TRUE)
    r <- epimask:::proxy_determination(epimask:::dense_codes(key), epimask:::dense_codes(col),
                                       epimask:::dense_codes(stratum), 0.99)
    # every permutation of the key within the classes of the stratum
    idx <- split(seq_along(key), stratum)
    perms <- list(seq_along(key))
    for (s in idx) {
      perms <- unlist(lapply(perms, function(p) lapply(all_permutations(s), function(q) {
        p[s] <- q
        p
      })), recursive = FALSE)
    }
    joint <- paste(stratum, col)
    mean_det <- mean(vapply(perms, function(p) plain_determined(joint, key[p]), 1))
    expect_equal(r$expected, mean_det, tolerance = 1e-12)
    expect_equal(r$determined, plain_determined(joint, key))
    expect_equal(r$alone, plain_determined(stratum, key))
  }
})

test_that("the chance expectation agrees with a simulation of random column values", {
  d <- adult_extract[1:1000, ]
  k <- epimask:::dense_codes(d$race)
  g <- epimask:::dense_codes(d$hours_per_week)
  r <- epimask:::proxy_determination(k, g, NULL, 0.99)
  set.seed(2)
  sims <- replicate(400, plain_determined(sample(d$hours_per_week), d$race))
  expect_lt(abs(mean(sims) - r$expected), 4 * stats::sd(sims) / sqrt(400))
})

test_that("on Adult, education-num is an exact proxy, relationship a partial proxy of sex, fnlwgt near-unique", {
  a <- read_adult()
  before <- a
  rev <- review_columns(a, adult_keys, sensitive = "income")
  expect_identical(a, before)
  n <- nrow(a)
  p <- rev$proxies
  # education-num: one education per value (plain R)
  expect_true(all(tapply(a$education, a[["education-num"]], function(v) length(unique(v))) == 1L))
  en <- p[p$column == "education-num" & p$key == "education", ]
  expect_identical(en$proxy, "exact")
  expect_true(en$exact)
  expect_equal(en$determined, 1)
  # the chance expectation is nil: 16 large groups
  expect_lt(en$expected, 1e-20)
  # relationship and sex: Husband and Wife determine sex (one coding error in each)
  t <- table(a$relationship, a$sex)
  expect_identical(unname(t["Husband", "Female"]), 1L)
  expect_identical(unname(t["Wife", "Male"]), 1L)
  hand <- (t["Husband", "Male"] + t["Wife", "Female"]) / n
  rs <- p[p$column == "relationship" & p$key == "sex", ]
  expect_equal(rs$determined, unname(hand))
  expect_equal(rs$determined, plain_determined(a$relationship, a$sex) / n)
  expect_gt(rs$determined, 0.45)
  expect_lt(rs$determined, 0.47)
  expect_identical(rs$proxy, "partial")
  expect_identical(rev$columns$role[rev$columns$column == "relationship"], "proxy")
  expect_match(rev$columns$evidence[rev$columns$column == "relationship"],
               "determines sex for 46.0% of records (13,867)", fixed = TRUE)
  # with purity 1 the one female Husband hides the proxy: the purity is why
  strict <- review_columns(a[c("relationship", "sex")], "sex",
                           control = review_control(purity = 1))
  expect_equal(strict$proxies$determined, 0)
  # every determination equals table()'s
  for (i in seq_len(nrow(p)))
    expect_equal(p$determined[[i]], plain_determined(a[[p$column[[i]]]], a[[p$key[[i]]]]) / n,
                 info = paste(p$column[[i]], p$key[[i]]))
  # fnlwgt: near-unique
  fw <- rev$columns[rev$columns$column == "fnlwgt", ]
  expect_equal(fw$distinction, length(unique(a$fnlwgt)) / n)
  expect_gt(fw$distinction, 0.5)
  expect_match(fw$flags, "near_unique", fixed = TRUE)
  expect_identical(fw$status, "pending")
  # every column gets a role; keys are keys, income sensitive
  expect_identical(rev$columns$role[rev$columns$column %in% adult_keys], rep("key", 5L))
  expect_identical(rev$columns$role[rev$columns$column == "income"], "sensitive")
  expect_setequal(rev$pending, c("workclass", "fnlwgt", "education-num", "occupation",
                                 "relationship", "capital-gain", "native-country"))
  # capital-gain: 15024, 7688, ... only on married persons (plain R)
  cg <- p[p$column == "capital-gain" & p$key == "marital-status", ]
  expect_identical(cg$proxy, "partial")
  expect_true(all(a[["marital-status"]][a[["capital-gain"]] == 15024] == "Married-civ-spouse"))
  # ages over 89 counted (a note on the key)
  expect_match(rev$columns$evidence[rev$columns$column == "age"],
               sprintf("%d records with an age over 89 (Safe Harbor", sum(a$age > 89)), fixed = TRUE)
})

test_that("on a release the proxy is measured against the original key", {
  a <- read_adult()
  rel <- a
  rel$sex <- NA_character_
  rel$education <- "*"
  rel$age <- 10L * (a$age %/% 10L)
  rev <- review_columns(rel, adult_keys, original = a)
  expect_true(rev$on_release)
  p <- rev$proxies
  rs <- p[p$column == "relationship" & p$key == "sex", ]
  expect_equal(rs$determined, plain_determined(a$relationship, a$sex) / nrow(a))
  expect_equal(rs$alone, 0)
  en <- p[p$column == "education-num" & p$key == "education", ]
  expect_identical(en$proxy, "exact")
  # age in tens: what the column adds within each band
  ag <- p[p$column == "hours-per-week" & p$key == "age", ]
  expect_equal(ag$determined, plain_determined(paste(rel$age, a[["hours-per-week"]]), a$age) /
                 nrow(a))
  expect_equal(ag$alone, plain_determined(rel$age, a$age) / nrow(a))
  # keys released as they are (race, marital-status) restore nothing: not measured
  expect_false(any(p$key %in% c("race", "marital-status")))
  # a key withheld from the release altogether
  rel$sex <- NULL
  rev2 <- review_columns(rel, adult_keys, original = a)
  expect_identical(rev2$withheld, "sex")
  expect_equal(rev2$proxies$determined[rev2$proxies$column == "relationship" &
                                         rev2$proxies$key == "sex"], rs$determined)
  expect_match(paste(format(rev2, width = 200), collapse = "\n"),
               "keys not in the release (withheld): sex", fixed = TRUE)
})

test_that("on the bundled adult_extract the review's flags equal plain R", {
  d <- adult_extract
  d$education_num <- as.integer(d$education)
  keys <- c("age", "sex", "race", "marital_status", "education")
  rev <- review_columns(d, keys, sensitive = "income")
  expect_identical(rev$proxies$proxy[rev$proxies$column == "education_num" &
                                       rev$proxies$key == "education"], "exact")
  # no column near-unique on its own (plain R)
  dist <- vapply(d, function(x) length(unique(x)) / nrow(d), 1)
  expect_true(all(dist < 0.5))
  expect_false(any(grepl("(^|,)near_unique(,|$)", rev$columns$flags)))
  # named like quasi-identifiers
  for (col in c("native_country", "workclass", "occupation"))
    expect_match(rev$columns$flags[rev$columns$column == col], "qi_name", info = col)
  expect_identical(rev$columns$role[rev$columns$column == "income"], "sensitive")
  expect_equal(rev$columns$distinction, unname(dist))
})

# ---- dates ------------------------------------------------------------------------------

test_that("every Date column of trial_visits is flagged, and cgd's randomisation date", {
  tv <- trial_visits
  rev <- review_columns(tv, c("site", "sex"))
  dates <- names(tv)[vapply(tv, inherits, logical(1), "Date")]
  expect_identical(dates, c("birth", "visit_date", "exit_date"))
  for (col in dates) {
    # daily precision: some value is not on the 1st of a month (plain R)
    expect_true(any(format(tv[[col]], "%d") != "01"))
    row <- rev$columns[rev$columns$column == col, ]
    expect_identical(row$role, "date", info = col)
    expect_identical(row$status, "pending", info = col)
    expect_match(row$evidence, "Date, daily precision", fixed = TRUE)
  }
  expect_setequal(rev$dates$column, dates)
  # birth as a key: still shown as a date, counted as a key
  rev_k <- review_columns(tv, c("site", "sex", "birth"), id = "pid")
  b <- rev_k$columns[rev_k$columns$column == "birth", ]
  expect_identical(b$role, "key")
  expect_match(b$flags, "date", fixed = TRUE)
  expect_identical(rev_k$columns$role[rev_k$columns$column == "pid"], "direct identifier")
  expect_match(rev_k$columns$flags[rev_k$columns$column == "pid"], "person_column")
  skip_if_not_installed("survival")
  cgd <- survival::cgd
  rc <- review_columns(cgd, c("sex", "age", "center"), id = "id")
  expect_identical(rc$columns$role[rc$columns$column == "random"], "date")
  expect_match(rc$columns$evidence[rc$columns$column == "random"], "daily precision")
})

test_that("dates in text and numbers are read in their layouts, with their precision", {
  n <- 40
  days <- as.Date("2016-01-01") + seq(0, by = 41, length.out = n)
  d <- data.frame(
    iso = format(days), dmy = format(days, "%d.%m.%Y"), mdy = format(days, "%m/%d/%Y"),
    named = format(days, "%d %b %Y"), number = as.integer(format(days, "%Y%m%d")),
    month = format(days, "%Y-%m"), first = format(as.Date(format(days, "%Y-%m-01"))),
    year = format(as.Date(format(days, "%Y-01-01"))),
    stamp = format(as.POSIXct("2016-01-01 08:30", tz = "UTC") + 3600 * seq_len(n),
                   "%Y-%m-%dT%H:%M:%SZ"),
    midnight = as.POSIXct(format(days), tz = "UTC"),
    timed = as.POSIXct("2016-01-01 08:30", tz = "UTC") + 60 * seq_len(n),
    count = seq_len(n), code = sprintf("A%02d", seq_len(n) %% 7), stringsAsFactors = FALSE)
  rev <- review_columns(d, character(), control = review_control(combinations = 1))
  dt <- rev$dates
  prec <- stats::setNames(dt$precision, dt$column)
  expect_identical(prec[["iso"]], "day")
  expect_identical(prec[["dmy"]], "day")
  expect_identical(prec[["mdy"]], "day")
  expect_identical(prec[["named"]], "day")
  expect_identical(prec[["number"]], "day")
  expect_identical(prec[["month"]], "month")
  expect_identical(prec[["first"]], "month")
  expect_identical(prec[["year"]], "year")
  expect_identical(prec[["stamp"]], "time of day")
  expect_identical(prec[["midnight"]], "day")
  expect_identical(prec[["timed"]], "time of day")
  expect_false(any(c("count", "code") %in% dt$column))
  role <- stats::setNames(rev$columns$role, rev$columns$column)
  expect_true(all(role[c("iso", "dmy", "mdy", "named", "number", "month", "first", "stamp",
                         "midnight", "timed")] == "date"))
  # the year alone is allowed (Safe Harbor): a note, no flag
  expect_false(grepl("date", rev$columns$flags[rev$columns$column == "year"]))
  expect_match(rev$columns$evidence[rev$columns$column == "year"], "yearly precision")
  # days that do not exist are not dates
  bad <- data.frame(x = c(rep("2016-02-30", 30), rep("2016-13-01", 30)), stringsAsFactors = FALSE)
  expect_identical(nrow(review_columns(bad, character())$dates), 0L)
  # an 0/1 indicator named death holds no date
  ind <- data.frame(death = rep(0:1, 20), age = 20:59)
  expect_identical(review_columns(ind, "age")$columns$role[[1L]], "other")
})

# ---- direct identifiers, free text ---------------------------------------------------------

identifier_fixture <- function(n = 60) {
  set.seed(4)
  first <- c("Jane", "John", "Mary", "Peter", "Anna", "Mark", "Lucy", "Paul", "Emma", "Tom")
  last <- c("Smith", "Jones", "Brown", "Taylor", "Wilson", "Evans", "Walker", "Wright")
  data.frame(
    patient_name = paste(sample(first, n, TRUE), sample(last, n, TRUE)),
    contact = sprintf("person%03d@mail.example.com", seq_len(n)),
    phone = sprintf("+44 20 7946 %04d", sample(1000:9999, n)),
    ssn = sprintf("%03d-%02d-%04d", sample(100:999, n, TRUE), sample(10:99, n, TRUE),
                  sample(1000:9999, n, TRUE)),
    chart = sprintf("MRN%06d", sample(1e5:9e5, n)),
    chart2 = sprintf("MRN%06d", sample(100000:100040, n, TRUE)),
    home = sprintf("%d %s Street", sample(1:200, n, TRUE), sample(last, n, TRUE)),
    homepage = sprintf("https://example.org/~u%d", seq_len(n)),
    subject_id = seq_len(n),
    site_id = sample(sprintf("S%d", 1:3), n, TRUE),
    label = sprintf("lbl-%s", vapply(seq_len(n), function(i) paste(sample(letters, 6), collapse = ""), "")),
    email = rep("withheld", n),
    age = sample(20:70, n, TRUE), sex = sample(c("F", "M"), n, TRUE),
    stringsAsFactors = FALSE)
}

test_that("direct identifiers are found by name, by value and by uniqueness", {
  d <- identifier_fixture()
  before <- d
  rev <- review_columns(d, c("age", "sex"))
  expect_identical(d, before)
  tab <- stats::setNames(split(rev$columns, seq_len(nrow(rev$columns))), rev$columns$column)
  ident <- c("patient_name", "contact", "phone", "ssn", "chart", "chart2", "home", "homepage",
             "subject_id", "label")
  for (col in ident) expect_identical(tab[[col]]$role, "direct identifier", info = col)
  expect_match(tab$patient_name$evidence, "named like a personal name")
  expect_match(tab$contact$evidence, "look like e-mail addresses")
  expect_match(tab$phone$evidence, "look like telephone numbers")
  expect_match(tab$ssn$evidence, "social security")
  expect_match(tab$chart$evidence, "a text column distinct on every record")
  expect_match(tab$chart2$evidence, "look like record numbers, and near-unique")
  expect_gte(length(unique(d$chart2)) / nrow(d), 0.5)
  expect_match(tab$home$evidence, "street addresses")
  expect_match(tab$homepage$evidence, "named like a URL")
  expect_match(tab$subject_id$evidence, "named like an identifier")
  expect_match(tab$label$evidence, "distinct on every record")
  # named like an e-mail address, whatever its values
  expect_identical(tab$email$role, "other")   # one value: nothing to identify
  d$email <- sprintf("x%d", seq_len(nrow(d)) %% 9)
  expect_match(review_columns(d, c("age", "sex"))$columns$flags[names(d) == "email"],
               "identifier_name")
  # a site code named like an identifier: a category code, not an identifier
  expect_false(tab$site_id$role == "direct identifier")
  expect_match(tab$site_id$evidence, "read as a category code")
  # the e-mail share, by plain R
  share <- mean(grepl("@", unique(d$contact)))
  expect_match(tab$contact$evidence, sprintf("%.1f%% of distinct values", 100 * share), fixed = TRUE)
})

test_that("free text is flagged, a column of 1e5-character strings too", {
  set.seed(3)
  words <- c("the", "patient", "reported", "mild", "pain", "after", "surgery", "and", "rest")
  d <- data.frame(note = vapply(1:50, function(i) paste(sample(words, 8, TRUE), collapse = " "), ""),
                  blob = vapply(1:50, function(i) strrep(letters[i %% 26 + 1], 1e5), ""),
                  x = 1:50, stringsAsFactors = FALSE)
  rev <- review_columns(d, "x")
  expect_identical(rev$columns$role[1:2], c("free text", "free text"))
  expect_match(rev$columns$evidence[[1L]], "100.0% of values with 5 or more words", fixed = TRUE)
  expect_match(rev$columns$evidence[[2L]], "median 100,000 characters", fixed = TRUE)
  # the print stays short
  expect_true(all(nchar(format(rev, width = 100)) <= 100))
})

# ---- persons -----------------------------------------------------------------------------

test_that("with a person column the measures count persons (a person's set of values)", {
  tv <- trial_visits
  rev <- review_columns(tv, c("site", "sex", "birth"), id = "pid")
  expect_identical(rev$n_units, length(unique(tv$pid)))
  # a person's value: their set of distinct values (plain R)
  person_set <- function(x) {
    vapply(split(plain_text(x), tv$pid), function(v) paste(sort(unique(v)), collapse = "|"), "")
  }
  for (col in c("site", "visit", "visit_date", "sbp", "exit_date")) {
    s <- person_set(tv[[col]])
    expect_equal(rev$columns$distinction[rev$columns$column == col],
                 length(unique(s)) / length(s), info = col)
  }
  # with persons a visit number is not near-unique (every person has visits 1..k)
  expect_identical(rev$columns$role[rev$columns$column == "visit"], "other")
  # a combination: each person's set of distinct (visit, arm) tuples
  units <- epimask:::review_units(tv, "pid")
  combo <- epimask:::unit_codes(epimask:::combine_codes(epimask:::dense_codes(tv$visit),
                                                        epimask:::dense_codes(tv$arm)), units)
  tuples <- vapply(split(paste(tv$visit, tv$arm), tv$pid),
                   function(v) paste(sort(unique(v)), collapse = "|"), "")
  expect_equal(epimask:::distinction_measures(combo)[["distinction"]],
               length(unique(tuples)) / length(tuples))
  expect_equal(epimask:::distinction_measures(combo)[["separation"]],
               unname(brute_arx(data.frame(t = tuples), "t")[["separation"]]))
  # one person with many values: the sets are coded as text, the same classes
  set.seed(9)
  d <- data.frame(p = c(rep("big", 300), sprintf("q%02d", 1:60), sprintf("q%02d", 1:60)),
                  v = c(sample(1:400, 300), sample(1:3, 120, TRUE)), stringsAsFactors = FALSE)
  units <- epimask:::review_units(d, "p")
  coded <- epimask:::unit_codes(epimask:::dense_codes(d$v), units)
  sets <- vapply(split(d$v, factor(d$p, levels = unique(d$p))),
                 function(v) paste(sort(unique(v)), collapse = "|"), "")
  expect_identical(coded$code, match(sets, unique(sets)))
})

# ---- declarations, pending, methods ------------------------------------------------------------

test_that("declarations are recorded, and review_pending() says what is left", {
  tv <- trial_visits
  rev <- review_columns(tv, c("site", "sex", "birth"), id = "pid",
                        declare = c(visit_date = "shifted upstream by up to 7 days"))
  row <- rev$columns[rev$columns$column == "visit_date", ]
  expect_identical(row$status, "declared")
  expect_identical(row$declared, "shifted upstream by up to 7 days")
  expect_identical(row$role, "date")
  expect_false("visit_date" %in% rev$pending)
  expect_setequal(review_pending(rev)$column, rev$pending)
  left <- review_pending(rev, release = setdiff(names(tv), "exit_date"),
                         handled = c(pid = "pseudonymised"))
  expect_false(any(c("exit_date", "pid", "visit_date") %in% left$column))
  expect_identical(left$column, setdiff(rev$pending, c("exit_date", "pid")))
  expect_identical(nrow(review_pending(rev, release = c("site", "sex", "birth"))), 0L)
  expect_match(format(rev), "Declared safe: visit_date (\"shifted upstream by up to 7 days\")",
               fixed = TRUE, all = FALSE)
  # a declared column that is not flagged is recorded too
  rev2 <- review_columns(tv, c("site", "sex"), declare = c(arm = "randomised arm"))
  expect_identical(rev2$columns$status[rev2$columns$column == "arm"], "declared")
})

test_that("print, format, summary, as.data.frame, tidy, glance and plot", {
  d <- identifier_fixture()
  rev <- review_columns(d, c("age", "sex"), declare = c(site_id = "three hospitals"))
  lines <- format(rev, width = 120)
  expect_identical(utils::capture.output(print(rev, width = 120)), lines)
  expect_match(lines[[1L]], "Column review: 60 records, 14 columns; keys: age, sex", fixed = TRUE)
  expect_true(any(grepl("PENDING", lines)))
  s <- format(summary(rev))
  expect_identical(utils::capture.output(print(summary(rev))), s)
  expect_true(any(grepl("declared: three hospitals", s, fixed = TRUE)))
  expect_true(any(grepl("Column review thresholds:", s, fixed = TRUE)))
  df <- as.data.frame(rev)
  expect_identical(df, rev$columns)
  expect_identical(rownames(as.data.frame(rev, row.names = df$column)), df$column)
  expect_identical(nrow(tidy(rev)), ncol(d))
  g <- glance(rev)
  expect_identical(g$pending, length(rev$pending))
  expect_identical(g$declared, 1L)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(rev), rev)
  expect_identical(format(review_control())[[1L]], "Column review thresholds:")
})

# ---- bad input ------------------------------------------------------------------------------------

test_that("bad input gives classed errors naming the argument; nothing is modified", {
  d <- identifier_fixture(30)
  before <- d
  err <- function(expr, class) tryCatch(expr, error = function(e) e)
  e <- err(review_columns(d, "age", declare = c(nope = "x")))
  expect_s3_class(e, "epimask_error_name")
  expect_identical(e$arg, "declare")
  e <- err(review_columns(d, c("age", "sex"), declare = c(age = "public")))
  expect_s3_class(e, "epimask_error_value")
  expect_identical(e$arg, "declare")
  expect_match(conditionMessage(e), "'age' is a key and declared safe")
  expect_error(review_columns(d, "age", declare = "x"), class = "epimask_error_type")
  expect_error(review_columns(d, "age", declare = c(sex = "")), class = "epimask_error_value")
  expect_error(review_columns(d, "age", declare = c(sex = "a", sex = "b")),
               class = "epimask_error_value")
  e <- err(review_columns(d, c("age", "zzz")))
  expect_s3_class(e, "epimask_error_name")
  expect_identical(e$arg, "keys")
  e <- err(review_columns(d, "age", sensitive = "age"))
  expect_identical(e$arg, "sensitive")
  e <- err(review_columns(d, "age", id = "age"))
  expect_identical(e$arg, "id")
  e <- err(review_columns(d, "age", original = d[1:5, ]))
  expect_s3_class(e, "epimask_error_length")
  expect_identical(e$arg, "original")
  e <- err(review_columns(d, "age", control = list()))
  expect_identical(e$arg, "control")
  expect_error(review_control(purity = 0.5), class = "epimask_error_value")
  expect_error(review_control(combinations = 4), class = "epimask_error_value")
  expect_error(review_columns("x", "age"), class = "epimask_error_type")
  expect_error(review_columns(d[0, ], "age"), class = "epimask_error_empty")
  l <- d
  l$lst <- I(as.list(seq_len(nrow(d))))
  e <- err(review_columns(l, "age"))
  expect_s3_class(e, "epimask_error_type")
  expect_identical(e$arg, "data$lst")
  rev <- review_columns(d, "age")
  e <- err(review_pending(rev, handled = c(zz = "dropped")))
  expect_identical(e$arg, "handled")
  expect_error(review_pending(list()), class = "epimask_error_type")
  # an all-NA column and a constant column get a role, not an error
  d$empty <- NA
  d$same <- "x"
  rev <- review_columns(d, "age")
  expect_identical(rev$columns$role[rev$columns$column %in% c("empty", "same")], c("other", "other"))
  expect_match(rev$columns$evidence[rev$columns$column == "empty"], "every value missing")
  expect_match(rev$columns$evidence[rev$columns$column == "same"], "one value on every record")
  expect_identical(d[names(before)], before)
})

test_that("tibbles and matrices are reviewed as data frames", {
  m <- cbind(age = c(20, 30, 40, 20), code = 1:4)
  rev <- review_columns(m, "age")
  expect_identical(rev$columns$column, c("age", "code"))
  skip_if_not_installed("tibble")
  tb <- tibble::as_tibble(identifier_fixture(20))
  expect_identical(review_columns(tb, c("age", "sex"))$columns,
                   review_columns(as.data.frame(tb), c("age", "sex"))$columns)
})

test_that("names and values that only resemble identifiers are not read as identifiers", {
  set.seed(6)
  n <- 80
  d <- data.frame(
    road_accident = sample(0:1, n, TRUE), residence_type = sample(c("urban", "rural"), n, TRUE),
    serial_interval = sample(3:9, n, TRUE), ip_visits = sample(0:4, n, TRUE),
    drug_name = sample(c("aspirin", "statin", "none"), n, TRUE),
    cell_count = sample(100:120, n, TRUE),
    clock = sprintf("%02d:%02d:00", sample(0:23, n, TRUE), sample(0:59, n, TRUE)),
    zip4 = sprintf("0213%d-%04d", sample(0:9, n, TRUE), sample(0:9999, n, TRUE)),
    age = sample(20:70, n, TRUE), stringsAsFactors = FALSE)
  rev <- review_columns(d, "age", control = review_control(combinations = 1))
  role <- stats::setNames(rev$columns$role, rev$columns$column)
  for (col in c("road_accident", "residence_type", "serial_interval", "ip_visits", "drug_name",
                "cell_count", "clock"))
    expect_false(role[[col]] == "direct identifier", info = col)
  # a ZIP+4 code is not a telephone number (it is near-unique here: a quasi-identifier)
  expect_false(grepl("telephone", rev$columns$evidence[rev$columns$column == "zip4"]))
  # the values the patterns do read
  ip <- epimask:::identifier_value_patterns[[3L]]$test
  expect_identical(ip(c("192.168.0.1", "08:30:00", "2001:db8::1", "fe80:0:0:0:200:f8ff:fe21:67cf",
                        "256.1.1.1")), c(TRUE, FALSE, TRUE, TRUE, FALSE))
  expect_identical(epimask:::is_phone_number(c("+44 20 7946 0958", "(555) 123-4567", "555-123-4567",
                                               "02138-1234", "2016-01-17", "1234567", "12.5")),
                   c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE))
  # a generalized key's labels (years, bands) are ranges, not telephone numbers
  expect_identical(epimask:::is_phone_number(c("1950-1954", "1960 - 1969", "10000-19999",
                                               "555-1234", "1954-1950")),
                   c(FALSE, FALSE, FALSE, TRUE, TRUE))
  years <- data.frame(birth = rep(sprintf("%d-%d", seq(1930, 1995, 5), seq(1934, 1999, 5)), 20),
                      age = sample(20:70, 280, TRUE))
  rev_years <- review_columns(years, "age")
  expect_false(rev_years$columns$role[rev_years$columns$column == "birth"] == "direct identifier")
  expect_identical(epimask:::match_name("ip_address", epimask:::identifier_name_patterns),
                   "a URL or IP address")
  expect_identical(epimask:::match_name("patientName", epimask:::identifier_name_patterns),
                   "a personal name")
  expect_identical(epimask:::normalize_column_name("Patient Name.first"), "patient_name_first")
})
