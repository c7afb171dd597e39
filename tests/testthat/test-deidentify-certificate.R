# deidentify()'s certificate of the release as delivered (issue 36, items
# 2-4): every column the column review flags and that stays in the release
# is a key of the search and of the recount, or declared by the custodian;
# a release that fails its recount hands over no data; the collaborator's
# model is refitted on the release as delivered. The recounts are checked
# against a plain-R count of the key combinations written here (table() of
# the released columns, a blank as a value of its own) and the refit
# against glm().

adult_sample <- function(n = 1500, seed = 1) {
  path <- Sys.getenv("EPIMASK_ADULT", file.path("..", "..", "..", "shared", "data", "adult.csv"))
  if (!file.exists(path)) path <- "/work/shared/data/adult.csv"
  skip_if_not(file.exists(path), "adult.csv not available")
  a <- utils::read.csv(path, check.names = TRUE, stringsAsFactors = FALSE)
  set.seed(seed)
  d <- a[sample(nrow(a), n), ]
  rownames(d) <- NULL
  d$high_income <- as.integer(d$income == ">50K")
  d
}

adult_keys <- c("age", "sex", "race", "marital.status", "education")
adult_h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
                race = hierarchy_flat(), marital.status = hierarchy_flat(),
                education = hierarchy_flat())
ctx_np <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)

# The attacks of a non-public context by hand: classes of the key
# combinations (NA a value of its own; with `person`, one tuple set per
# person), the strict average risk (classes per unit when the smallest class
# has 3 units or more, else the maximum risk 1 / smallest), times each
# attack's probability.
plain_recount <- function(data, keys, ctx, person = NULL) {
  cell <- do.call(paste, c(lapply(data[keys], function(v)
    ifelse(is.na(v), "<NA>", as.character(v))), sep = "\r"))
  if (!is.null(person)) {
    sets <- tapply(cell, person, function(s) paste(sort(unique(s)), collapse = "\n"))
    cell <- unname(sets)
  }
  f <- table(cell)
  maximum <- 1 / min(f)
  strict <- if (min(f) >= 3) length(f) / length(cell) else maximum
  pr <- c(ctx$pr_attempt, ctx$pr_acquaintance, ctx$pr_breach)
  list(risk = pr * strict, overall = max(pr * strict), uniques = sum(f == 1))
}

test_that("Adult: education.num and relationship are keys of the search and the recount", {
  d <- adult_sample()
  copy <- d
  rel <- deidentify(d, adult_keys, adult_h, ctx_np, sensitive = "income",
                    model = analysis_loss(high_income ~ age + education.num + sex, binomial(),
                                          "sexMale"))
  expect_identical(d, copy)
  # the review's flags, by hand: education.num maps each value to one
  # education; relationship (Husband, Wife) fixes sex for its records
  expect_true(all(tapply(d$education, d$education.num, function(v) length(unique(v))) == 1L))
  expect_identical(rel$review_keys[["education.num"]], "proxy")
  expect_identical(rel$review_keys[["relationship"]], "proxy")
  expect_true(all(c("fnlwgt", "workclass", "occupation", "native.country") %in%
                    names(rel$review_keys)))
  expect_identical(rel$keys, c(adult_keys, names(rel$review_keys)))
  # the release as the issue found it: education.num kept while education is
  # generalized would leave 179 uniques; here every flagged column left in is
  # counted, and the certificate is the plain-R recount on all of them
  expect_true(rel$pass)
  hand <- plain_recount(rel$data, rel$keys, ctx_np)
  expect_equal(rel$certificate$risk, hand$risk, tolerance = 1e-12)
  expect_equal(rel$overall_risk, hand$overall, tolerance = 1e-12)
  # the proxy counted with its key: no combination of education with
  # education.num is rarer than the certificate says
  with_proxy <- plain_recount(rel$data, c(adult_keys, "education.num"), ctx_np)
  expect_lte(with_proxy$overall, ctx_np$threshold)
  out <- paste(format(rel), collapse = "\n")
  expect_match(out, "education.num (proxy, default hierarchy): determines education exactly",
               fixed = TRUE)
  expect_match(out, "relationship (proxy, default hierarchy): determines sex for", fixed = TRUE)
  expect_match(out, "PASS")
})

test_that("Adult: the same call without the review would fail (the issue's reproducer)", {
  d <- adult_sample()
  # every flagged column but education.num declared: education is generalized
  # to "*" by a search that keeps education.num... unless it counts it
  flagged <- c("workclass", "fnlwgt", "occupation", "relationship", "native.country")
  decl <- stats::setNames(rep("declared for the test", length(flagged)), flagged)
  rel <- deidentify(d, adult_keys, adult_h, ctx_np, sensitive = "income", declare = decl,
                    model = analysis_loss(high_income ~ age + education.num + sex, binomial(),
                                          "sexMale"))
  expect_identical(names(rel$review_keys), "education.num")
  expect_identical(rel$declared, decl)
  hand <- plain_recount(rel$data, c(adult_keys, "education.num"), ctx_np)
  expect_equal(rel$overall_risk, hand$overall, tolerance = 1e-12)
  expect_true(rel$pass)
  out <- paste(format(rel), collapse = "\n")
  expect_match(out, "Declared safe by the custodian", fixed = TRUE)
  for (col in flagged) expect_match(out, sprintf("  %s: declared for the test", col), fixed = TRUE)
  # education.num declared too (the certificate of before the review): the
  # search generalizes education and keeps education.num, the release the
  # issue found; recounted by hand with the proxy as a key it fails. It
  # passes only on the custodian's statement, which the certificate prints,
  # with the warning that the column undoes the generalization
  decl2 <- c(decl, education.num = "the custodian's statement")
  rel2 <- suppressWarnings(
    deidentify(d, adult_keys, adult_h, ctx_np, sensitive = "income", declare = decl2,
               model = analysis_loss(high_income ~ age + education.num + sex, binomial(),
                                     "sexMale")))
  expect_length(rel2$review_keys, 0L)
  expect_identical(rel2$keys, adult_keys)
  expect_true(all(rel2$data$education[!is.na(rel2$data$education)] == "*"))
  with_proxy <- plain_recount(rel2$data, c(adult_keys, "education.num"), ctx_np)
  expect_gt(with_proxy$uniques, 0L)
  expect_gt(with_proxy$overall, ctx_np$threshold)
  out2 <- paste(format(rel2), collapse = "\n")
  expect_match(out2, "education.num: the custodian's statement", fixed = TRUE)
  expect_match(out2, "'education.num' -> 'education' determine generalized key(s) one-to-one",
               fixed = TRUE)
})

test_that("Adult: the model refitted on the release as delivered equals glm() on $data", {
  d <- adult_sample()
  m <- analysis_loss(high_income ~ age + education.num + sex, binomial(), "sexMale")
  rel <- suppressWarnings(deidentify(d, adult_keys, adult_h, ctx_np, sensitive = "income",
                                     model = m))
  a <- rel$analysis
  expect_true(a$fitted)
  dd <- rel$data[c("high_income", "age", "education.num", "sex")]
  # ages released as "20-24" are read at their midpoints, as a collaborator would
  for (v in c("age", "education.num")) if (is.character(dd[[v]])) {
    blank <- dd[[v]] == "*"
    dd[[v]] <- ifelse(blank, NA, (as.numeric(sub("-.*$", "", dd[[v]])) +
                                    as.numeric(sub("^.*-", "", dd[[v]]))) / 2)
  }
  complete <- stats::complete.cases(dd)
  fit <- suppressWarnings(glm(high_income ~ age + education.num + sex, binomial(), dd[complete, ]))
  expect_equal(a$estimate, coef(fit)[["sexMale"]], tolerance = 1e-7)
  expect_equal(a$se, sqrt(diag(vcov(fit)))[["sexMale"]], tolerance = 1e-6)
  fit0 <- glm(high_income ~ age + education.num + sex, binomial(), d)
  se0 <- sqrt(diag(vcov(fit0)))[["sexMale"]]
  # U of the methods vignette (section 3): the original variance over the
  # release's, floored at the original's, plus the squared bias, at most 1
  u <- min(1, se0^2 / (max(se0^2, a$se^2) + (coef(fit0)[["sexMale"]] - a$estimate)^2))
  expect_equal(a$analysis_potential, u, tolerance = 1e-6)
  expect_identical(a$records_used, sum(complete))
  expect_identical(a$records_missing, sum(!complete))
  expect_identical(a$records_withheld, nrow(d) - nrow(rel$data))
  expect_equal(glance(rel)$analysis_potential, a$analysis_potential)
  expect_match(paste(format(rel), collapse = "\n"),
               sprintf("%s of 1,500 records used", format(sum(complete), big.mark = ",")),
               fixed = TRUE)
})

test_that("the model cannot be fitted on the release: the certificate says so", {
  d <- adult_sample(600, 2)
  m <- analysis_loss(high_income ~ sex, binomial(), "sexMale")
  fit0 <- glm(high_income ~ sex, binomial(), d)
  orig <- data.frame(term = "sexMale", estimate = coef(fit0)[["sexMale"]],
                     se = sqrt(diag(vcov(fit0)))[["sexMale"]], stringsAsFactors = FALSE)
  rel_data <- d
  rel_data$sex <- "*"
  a <- epimask:::delivered_analysis(m, orig, rel_data, nrow(d))
  expect_false(a$fitted)
  expect_match(a$reason, "'sex' one value in the release")
  rel_data$sex <- NULL
  a <- epimask:::delivered_analysis(m, orig, rel_data, nrow(d))
  expect_match(a$reason, "variable(s) 'sex' of the model not in the release", fixed = TRUE)
  a <- epimask:::delivered_analysis(m, orig, NULL, nrow(d))
  expect_identical(a$reason, "no data released")
  expect_identical(a$records_withheld, nrow(d))
})

test_that("trial_visits: no date left at daily precision unless declared", {
  tv <- trial_visits
  copy <- tv
  hv <- list(site = hierarchy_flat(), sex = hierarchy_flat(), birth = hierarchy_date())
  rel <- deidentify(tv, c("site", "sex", "birth"), hv, ctx_np, id = "pid")
  expect_identical(tv, copy)
  expect_true(all(c("visit_date", "exit_date") %in% names(rel$review_keys)))
  expect_identical(rel$review_keys[["visit_date"]], "date")
  expect_true(rel$pass)
  # no released visit or exit date is an original day
  for (col in c("visit_date", "exit_date"))
    expect_false(any(as.character(rel$data[[col]]) %in% as.character(tv[[col]])))
  # the certificate is the plain recount by persons on every counted key
  hand <- plain_recount(rel$data, rel$keys, ctx_np, person = tv$pid[rel$rows])
  expect_equal(rel$certificate$risk, hand$risk, tolerance = 1e-12)
  # declared: released verbatim, PASS with the declaration printed
  decl <- c(visit_date = "shifted upstream by up to 7 days per person",
            exit_date = "shifted upstream with the visits")
  rel2 <- deidentify(tv, c("site", "sex", "birth"), hv, ctx_np, id = "pid",
                     sensitive = "sbp", declare = decl)
  expect_true(rel2$pass)
  expect_length(rel2$review_keys, 0L)
  expect_identical(rel2$as_sensitive, "sbp")
  expect_identical(rel2$data$visit_date, tv$visit_date)
  out <- paste(format(rel2), collapse = "\n")
  expect_match(out, "visit_date: shifted upstream by up to 7 days per person", fixed = TRUE)
  # the plain recount by persons: visit dates released as they are, not keys
  hand <- plain_recount(rel2$data, c("site", "sex", "birth"), ctx_np, person = tv$pid[rel2$rows])
  expect_equal(rel2$certificate$risk, hand$risk, tolerance = 1e-12)
})

test_that("trial_visits: a column that restores a key on the release joins the search", {
  # visit_date and exit_date counted as keys; event fixes the exit date of
  # the persons censored at the study's end once exit_date is generalized:
  # the review of the release flags it and the search runs again with it
  hv <- list(site = hierarchy_flat(), sex = hierarchy_flat(), birth = hierarchy_date())
  rel <- deidentify(trial_visits, c("site", "sex", "birth"), hv, ctx_np, id = "pid",
                    sensitive = "sbp")
  expect_true(rel$pass)
  expect_true("event" %in% names(rel$review_keys))
  expect_identical(rel$review_keys[["event"]], "proxy on the release")
  # the plain recount by persons on every key counted, event included; the
  # released rows are those of `rows`, in the data's order
  hand <- plain_recount(rel$data, rel$keys, ctx_np, person = trial_visits$pid[rel$rows])
  expect_equal(rel$certificate$risk, hand$risk, tolerance = 1e-12)
  expect_true("event" %in% rel$keys)
})

test_that("cgd: the randomisation date and the centre are counted or the release fails", {
  cg <- survival::cgd
  keys <- c("sex", "age")
  h <- list(sex = hierarchy_flat(), age = hierarchy_numeric(c(5, 10, 20)))
  rel <- suppressWarnings(deidentify(cg, keys, h, ctx_np, id = "id"))
  expect_true(all(c("random", "center") %in% names(rel$review_keys)))
  expect_identical(rel$review_keys[["random"]], "date")
  if (rel$pass) {
    expect_false(any(as.character(rel$data$random) %in% as.character(cg$random)))
    hand <- plain_recount(rel$data, rel$keys, ctx_np, person = cg$id[rel$rows])
    expect_equal(rel$certificate$risk, hand$risk, tolerance = 1e-12)
  } else {
    expect_null(rel$data)
    expect_true(nzchar(rel$reason))
  }
})

test_that("records the search suppressed are never put back; no data when the threshold is not met", {
  d <- adult_extract[1:300, ]
  keys <- c("age", "sex", "race", "marital_status", "education")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat(),
            marital_status = hierarchy_flat(), education = hierarchy_flat())
  warned <- character()
  rel <- withCallingHandlers(
    deidentify(d, keys = keys, h, ctx_np, k = 1e6),
    warning = function(w) {
      warned <<- c(warned, class(w))
      invokeRestart("muffleWarning")
    })
  expect_true("epimask_warning_release_fails" %in% warned)
  expect_true("epimask_warning_deprecated" %in% warned)
  expect_null(rel$data)
  expect_false(rel$pass)
  expect_identical(rel$steps$records[[nrow(rel$steps)]], 0L)
  expect_identical(rel$steps$records_dropped[[nrow(rel$steps)]], 300L)
  expect_match(rel$reason, "fewer records (300) than k = 1000000", fixed = TRUE)
  out <- paste(format(rel), collapse = "\n")
  expect_match(out, "NO RELEASABLE DATA", fixed = TRUE)
  expect_match(out, "Try: ", fixed = TRUE)
  expect_error(as.data.frame(rel), class = "epimask_error_no_release")
  expect_identical(glance(rel)$records, 0L)
  # one record: nothing released either
  one <- suppressWarnings(deidentify(d[1, ], keys, h, ctx_np))
  expect_null(one$data)
  expect_false(one$pass)
  expect_match(one$reason, "fewer records (1) than k = 3", fixed = TRUE)
})

test_that("options by their full names only: `k` never lands in `keys`, an unknown name errors", {
  d <- adult_extract[1:200, ]
  keys <- c("age", "sex")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat())
  e <- expect_error(deidentify(d, keys, h, ctx_np, k = 5), class = "epimask_error_argument")
  expect_identical(e$arg, "k")
  expect_match(conditionMessage(e), "would match it to `keys`", fixed = TRUE)
  e <- expect_error(deidentify(d, keys, h, ctx_np, hier = h), class = "epimask_error_argument")
  expect_identical(e$arg, "hier")
  e <- expect_error(deidentify(d, keys, h, ctx_np, max_supress = 0.1), class = "epimask_error_name")
  expect_identical(e$arg, "...")
  expect_match(conditionMessage(e), "max_supress", fixed = TRUE)
})

test_that("bad declarations: classed errors naming `declare`, nothing modified", {
  d <- adult_extract[1:200, ]
  copy <- d
  keys <- c("age", "sex")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat())
  e <- expect_error(deidentify(d, keys, h, ctx_np, declare = c(nope = "safe")),
                    class = "epimask_error_name")
  expect_identical(e$arg, "declare")
  expect_match(conditionMessage(e), "'nope'", fixed = TRUE)
  e <- expect_error(deidentify(d, keys, h, ctx_np, declare = c(sex = "public")),
                    class = "epimask_error_value")
  expect_identical(e$arg, "declare")
  expect_match(conditionMessage(e), "'sex' is a key and declared safe", fixed = TRUE)
  e <- expect_error(deidentify(d, keys, h, ctx_np, declare = "unnamed"),
                    class = "epimask_error_type")
  expect_identical(e$arg, "declare")
  e <- expect_error(deidentify(d, keys, h, ctx_np, declare = c(race = "")),
                    class = "epimask_error_value")
  expect_identical(e$arg, "declare")
  e <- expect_error(deidentify(d, keys, c(h, list(capital_gain = hierarchy_flat())), ctx_np),
                    class = "epimask_error_name")
  expect_identical(e$arg, "hierarchies")
  expect_identical(d, copy)
})

test_that("release_report() content: the column review, declarations, no data when failing", {
  d <- adult_extract[1:600, ]
  keys <- c("age", "sex", "race")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat())
  rel <- suppressWarnings(deidentify(d, keys, h, ctx_np, declare = c(occupation = "coded upstream")))
  content <- epimask:::deidentify_report_content(rel, data = d)
  expect_identical(content$review$Column, names(d))
  expect_identical(content$review$`In the release`[content$review$Column == "occupation"],
                   "declared safe: coded upstream")
  flagged <- names(rel$review_keys)
  expect_true(all(content$review$`In the release`[match(flagged, content$review$Column)] ==
                    "flagged: counted as a key"))
  expect_identical(content$declared, c(occupation = "coded upstream"))
  bad <- suppressWarnings(deidentify(d, keys = keys, h, ctx_np, k = 1e6))
  content <- epimask:::deidentify_report_content(bad, data = d)
  expect_false(content$released)
  expect_identical(content$n_released, 0L)
  expect_match(content$reason, "fewer records")
})

test_that("release_report(declare =): deidentify()'s declarations only; a profile's released data reviewed", {
  d <- adult_extract[1:400, ]
  keys <- c("age", "sex", "race")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat())
  rel <- suppressWarnings(deidentify(d, keys, h, ctx_np, declare = c(occupation = "coded upstream")))
  e <- expect_error(release_report(rel, tempfile(fileext = ".html"),
                                   declare = c(workclass = "another statement")),
                    class = "epimask_error_value")
  expect_identical(e$arg, "declare")
  # a profile's release: the review of the released data, with the
  # declarations and the flagged columns left undeclared
  released <- d[c("age", "sex", "race", "occupation", "income")]
  cr <- epimask:::report_column_review(list(masked = released, keys = keys, sensitive = "income"),
                                       c(occupation = "coded upstream"))
  by_hand <- review_columns(released, keys, sensitive = "income",
                            declare = c(occupation = "coded upstream"))
  expect_identical(cr$pending, by_hand$pending)
  expect_identical(cr$table$Status[cr$table$Column == "occupation"], "declared safe: coded upstream")
  expect_error(epimask:::report_column_review(list(masked = NULL), c(x = "y")),
               class = "epimask_error_value")
})

test_that("Adult, drop_proxies = TRUE: a model variable dropped is said, never fitted with it", {
  d <- adult_sample()
  flagged <- c("workclass", "fnlwgt", "occupation", "relationship", "native.country")
  decl <- stats::setNames(rep("declared for the test", length(flagged)), flagged)
  rel <- suppressWarnings(
    deidentify(d, adult_keys, adult_h, ctx_np, sensitive = "income", declare = decl,
               drop_proxies = TRUE,
               model = analysis_loss(high_income ~ age + education.num + sex, binomial(),
                                     "sexMale")))
  # education.num is left to the search's drop_proxies, not made a key
  expect_false("education.num" %in% rel$keys)
  if ("education.num" %in% rel$dropped) {
    expect_false("education.num" %in% names(rel$data))
    expect_false(rel$analysis$fitted)
    expect_match(rel$analysis$reason, "'education.num' of the model not in the release",
                 fixed = TRUE)
    expect_true(is.na(glance(rel)$analysis_potential))
    expect_match(paste(format(rel), collapse = "\n"), "cannot be fitted", fixed = TRUE)
  } else {
    # kept: its key is released as it is, so it restores nothing
    expect_identical(rel$generalization$levels[["education"]], 0L)
  }
})

test_that("the plot of a release with no data says so instead of drawing a risk of 0", {
  d <- adult_extract[1:300, ]
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat())
  rel <- suppressWarnings(deidentify(d, keys = c("age", "sex"), h, release_context(public = TRUE),
                                     k = 1e6))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(rel))
  expect_null(rel$data)
  expect_true(is.na(rel$certificate$risk))
})

test_that("interval labels are refitted at their midpoints; other labels as a factor", {
  expect_equal(epimask:::label_midpoints(c("20-24", "[20,25)", "*", NA, "-5--1", "[0.5,1e3)")),
               c(22, 22.5, NA, NA, -3, 500.25))
  expect_null(epimask:::label_midpoints(c("20-24", "young")))
  set.seed(11)
  d <- data.frame(age = sample(20:69, 500, TRUE), sex = sample(c("f", "m"), 500, TRUE))
  d$y <- rbinom(500, 1, plogis(-3 + 0.05 * d$age))
  m <- analysis_loss(y ~ age + sex, binomial(), "age")
  fit0 <- glm(y ~ age + sex, binomial(), d)
  orig <- data.frame(term = "age", estimate = coef(fit0)[["age"]],
                     se = sqrt(diag(vcov(fit0)))[["age"]], stringsAsFactors = FALSE)
  rel <- d
  lo <- 10 * (d$age %/% 10)
  rel$age <- paste0(lo, "-", lo + 9)
  rel$age[1:7] <- "*"
  a <- epimask:::delivered_analysis(m, orig, rel, nrow(d), d)
  expect_true(a$fitted)
  ref <- glm(y ~ age + sex, binomial(), data.frame(y = d$y, sex = d$sex,
                                                    age = ifelse(seq_len(500) <= 7, NA, lo + 4.5)))
  expect_equal(a$estimate, coef(ref)[["age"]], tolerance = 1e-7)
  expect_equal(a$se, sqrt(diag(vcov(ref)))[["age"]], tolerance = 1e-6)
  expect_identical(a$records_missing, 7L)
  expect_match(a$notes[[1]], "fitted at their midpoints", fixed = TRUE)
  rel$age <- ifelse(d$age < 45, "young", "old")
  a <- epimask:::delivered_analysis(m, orig, rel, nrow(d), d)
  expect_match(a$notes[[1]], "'age' released as labels: fitted as a factor", fixed = TRUE)
  expect_false(a$fitted)
})
