# Several records per person (methods vignette section 23): every risk measure with `id = `
# counts persons, a person's key being the set of their distinct key tuples.
# References here are hand counts over unique() key sets in plain R.

# Persons with 1-6 records each; keys vary within some persons.
person_fixture <- function(n_persons = 60, seed = 1) {
  set.seed(seed)
  m <- sample(1:6, n_persons, replace = TRUE)
  pid <- rep(sprintf("p%03d", seq_len(n_persons)), m)
  sex <- rep(sample(c("F", "M"), n_persons, TRUE), m)
  yob <- rep(sample(1950:1953, n_persons, TRUE), m)
  # a third of the persons have a second region on some records
  region <- rep(sample(c("N", "S"), n_persons, TRUE), m)
  move <- rep(runif(n_persons) < 1 / 3, m) & runif(length(pid)) < 0.5
  region[move] <- ifelse(region[move] == "N", "S", "N")
  data.frame(pid = pid, sex = sex, yob = yob, region = region,
             dx = sample(c("a", "b", "c"), length(pid), TRUE),
             x = rnorm(length(pid)), stringsAsFactors = FALSE)
}

# Hand reference: each person's key set as one string of their sorted
# distinct tuples; class size = number of persons with that string.
hand_key_sets <- function(d, keys, id = "pid") {
  tuples <- do.call(paste, c(d[keys], sep = "\r"))
  sets <- tapply(tuples, d[[id]], function(t) paste(sort(unique(t)), collapse = "\n"))
  sets
}

test_that("by-person class sizes equal a hand count over unique() key sets", {
  d <- person_fixture()
  keys <- c("sex", "yob", "region")
  r <- risk_kanon(d, keys, id = "pid", k = 3)
  sets <- hand_key_sets(d, keys)
  size <- as.vector(table(sets)[sets])          # per person
  names(size) <- names(sets)
  # record_risk repeats the person's 1 / (persons in the class)
  expect_equal(r$record_risk, unname(1 / size[d$pid]))
  expect_equal(r$n, length(sets))
  expect_equal(r$n_records, nrow(d))
  expect_equal(r$n_classes, length(unique(sets)))
  expect_equal(sort(r$classes$size), sort(as.vector(table(sets))))
  expect_equal(sum(r$classes$size), length(sets))
  expect_equal(r$avg_risk, length(unique(sets)) / length(sets))
  expect_equal(r$max_risk, 1 / min(table(sets)))
  expect_equal(r$n_uniques, sum(table(sets) == 1))
  expect_identical(r$unit, "persons")
  expect_output(print(r), "persons \\(\\d+ records, person column 'pid'\\)")
  tab <- as.data.frame(r)
  expect_identical(tab$pid, d$pid)
  expect_equal(tab$risk, r$record_risk)
})

test_that("a person with many records in one class counts once", {
  d <- data.frame(pid = c(rep("a", 5), "b", "c", "d"),
                  sex = c(rep("M", 5), "M", "F", "F"),
                  yob = c(rep(1959, 5), 1959, 1960, 1960))
  by_record <- risk_kanon(d, c("sex", "yob"), k = 5)
  expect_true(by_record$k_anonymous == FALSE)
  expect_equal(max(by_record$classes$size), 6)
  by_person <- risk_kanon(d, c("sex", "yob"), id = "pid", k = 2)
  expect_equal(sort(by_person$classes$size), c(2, 2))
  expect_equal(by_person$record_risk, rep(0.5, 8))
  # a person alone with 5 stays is a unique, not a class of 5
  alone <- data.frame(pid = c(rep("a", 5), "b"), sex = c(rep("M", 5), "F"), yob = 1959)
  r <- risk_kanon(alone, c("sex", "yob"), id = "pid")
  expect_equal(r$classes$size, c(1, 1))
  expect_equal(r$max_risk, 1)
  expect_equal(risk_kanon(alone, c("sex", "yob"))$classes$size, c(5, 1))
})

test_that("key sets are sets: order and repetition of records do not matter", {
  d <- data.frame(pid = c("a", "a", "a", "b", "b", "c"),
                  sex = c("M", "M", "M", "M", "M", "M"),
                  yob = c(1959, 1960, 1959, 1960, 1959, 1959))
  r <- risk_kanon(d, c("sex", "yob"), id = "pid")
  # a and b share the set {(M, 1959), (M, 1960)}; c has {(M, 1959)}
  expect_equal(r$record_risk, c(0.5, 0.5, 0.5, 0.5, 0.5, 1))
  expect_equal(nrow(r$classes), 2)
  # a value holding the separator cannot be confused with a set
  e <- data.frame(pid = c("a", "a", "b"), k1 = c("x", "y", "x|y"), k2 = c("1", "1", "1|1"))
  expect_equal(risk_kanon(e, c("k1", "k2"), id = "pid")$n_classes, 2)
  # shuffling the rows changes nothing
  set.seed(3)
  f <- person_fixture(30)
  o <- sample(nrow(f))
  a <- risk_kanon(f, c("sex", "region"), id = "pid")
  b <- risk_kanon(f[o, ], c("sex", "region"), id = "pid")
  expect_equal(b$record_risk, a$record_risk[o])
})

test_that("the person column is checked: NA, absent, a key", {
  d <- person_fixture(10)
  d0 <- d
  d$pid[3] <- NA
  expect_error(risk_kanon(d, c("sex", "yob"), id = "pid"), class = "epimask_error_value")
  expect_error(risk_kanon(d, c("sex", "yob"), id = "pid"), "1 NA value")
  expect_error(risk_suda(d, c("sex", "yob"), id = "pid"), class = "epimask_error_value")
  expect_error(risk_linkage(d, d, "x", id = "pid"), class = "epimask_error_value")
  expect_error(risk_kanon(d0, c("sex", "yob"), id = "nope"), class = "epimask_error_name")
  expect_error(risk_kanon(d0, c("sex", "yob"), id = "sex"), class = "epimask_error_value")
  expect_error(risk_kanon(d0, c("sex", "yob"), id = c("pid", "sex")), class = "epimask_error_type")
  # weights must be one per person
  w <- seq_len(nrow(d0)) + 1
  expect_error(risk_kanon(d0, c("sex", "yob"), id = "pid", weights = w), class = "epimask_error_value")
  expect_identical(d0, person_fixture(10))
})

test_that("weights and a population are taken per person", {
  d <- person_fixture(40)
  keys <- c("sex", "yob")
  wp <- stats::setNames(runif(40, 1, 5), unique(d$pid))
  r <- risk_kanon(d, keys, id = "pid", weights = unname(wp[d$pid]))
  sets <- hand_key_sets(d, keys)
  pop <- tapply(wp[names(sets)], sets, sum)
  expect_equal(sort(r$classes$pop_size), sort(as.vector(pop)))
  # a population of persons with their records, collapsed alike
  more <- person_fixture(80, seed = 9)
  popd <- rbind(d, transform(more, pid = paste0("q", pid)))
  rp <- risk_kanon(d, keys, id = "pid", population = popd)
  psets <- hand_key_sets(popd, keys)
  expect_equal(unname(rp$classes$pop_size[rp$group[!duplicated(d$pid)]]),
               unname(as.vector(table(psets)[sets[unique(d$pid)]])))
  ri <- risk_individual(d, keys, id = "pid")
  expect_equal(ri$per_record, r$record_risk)
  expect_equal(ri$expected, length(unique(sets)))
})

test_that("l-diversity and t-closeness count persons; a person's values are a set", {
  d <- person_fixture(50)
  keys <- c("sex", "yob")
  l <- risk_ldiversity(d, keys, "dx", id = "pid")
  sets <- hand_key_sets(d, keys)
  dx_sets <- tapply(d$dx, d$pid, function(v) paste(sort(unique(v)), collapse = "|"))
  distinct <- tapply(dx_sets[names(sets)], sets, function(v) length(unique(v)))
  expect_equal(min(l$classes$distinct), min(distinct))
  expect_equal(sort(l$classes$distinct), sort(as.vector(distinct)))
  expect_equal(sum(l$classes$size), 50)
  expect_output(print(l), "50 persons")
  tc <- risk_tcloseness(d, keys, "dx", id = "pid")
  expect_false(tc$ordered[["dx"]])
  q <- table(dx_sets) / 50
  emd <- vapply(split(dx_sets[names(sets)], sets), function(v) {
    p <- table(factor(v, levels = names(q))) / length(v)
    sum(abs(p - q)) / 2
  }, numeric(1))
  expect_equal(tc$t[["dx"]], max(emd))
  # a numeric sensitive value constant within persons stays ordered
  d$age <- ave(d$yob, d$pid, FUN = function(v) 2000 - v[1])
  expect_true(risk_tcloseness(d, "sex", "age", id = "pid")$ordered[["age"]])
})

test_that("SUDA by person equals SUDA of the persons' rows when keys are constant within persons", {
  d <- person_fixture(60)
  keys <- c("sex", "yob")
  s <- risk_suda(d, keys, id = "pid")
  one <- d[!duplicated(d$pid), ]
  ref <- risk_suda(one, keys)
  expect_equal(s$score, ref$score[match(d$pid, one$pid)])
  expect_equal(s$dis, ref$dis[match(d$pid, one$pid)])
  expect_equal(s$n_unique, ref$n_unique)
  expect_output(print(s), "60 persons")
})

test_that("linkage and matching: a person is re-identified when any of their records is", {
  d <- person_fixture(40)
  set.seed(5)
  m <- d
  m$x <- d$x + rnorm(nrow(d), sd = 0.4)
  rec <- risk_linkage(d, m, "x")
  per <- risk_linkage(d, m, "x", id = "pid")
  # brute force: every original record against every released record; a
  # record re-identifies its person with the share of the nearest released
  # records (ties within 1e-12 relative) that belong to the person
  w <- vapply(seq_len(nrow(d)), function(i) {
    dist <- abs(m$x - d$x[i])
    near <- dist <= min(dist) * (1 + 1e-12)
    sum(near & d$pid == d$pid[i]) / sum(near)
  }, numeric(1))
  hand <- c(tapply(w, d$pid, function(v) 1 - prod(1 - v)))
  expect_equal(per$per_person, unname(hand[unique(d$pid)]))
  expect_equal(per$risk, mean(hand))
  expect_equal(per$per_record, unname(hand[d$pid]))
  expect_equal(per$record_weight, rec$per_record)
  expect_gte(per$risk, rec$risk - 1e-12)
  # a record nearest to another record of its own person counts for the person
  two <- data.frame(pid = c("a", "a", "b"), x = c(0, 10, 20))
  swapped <- data.frame(x = c(10, 0, 20))
  expect_equal(risk_linkage(two, swapped, "x")$per_record, c(0, 0, 1))
  expect_equal(risk_linkage(two, swapped, "x", id = "pid")$per_person, c(1, 1))
  expect_output(print(per), "40 persons")
  expect_equal(sum(summary(per)$outcomes$persons), 40)

  mt <- risk_match(d, m, "x", threads = 1, progress = FALSE)
  mp <- risk_match(d, m, "x", threads = 1, progress = FALSE, id = "pid")
  w <- mt$per_target$I / mt$per_target$c
  hand <- c(tapply(w, d$pid, function(v) 1 - prod(1 - v)))
  expect_equal(mp$per_person, unname(hand[unique(d$pid)]))
  expect_equal(mp$percent_correct, 100 * mean(hand))
  uniq_right <- tapply(mt$per_target$c == 1 & mt$per_target$I == 1, d$pid, any)
  expect_equal(mp$true_match_rate, mean(uniq_right))
  expect_output(print(mp), "Persons \\(person column 'pid'\\): 40")
  expect_match(format(mp), "of 40 persons")
  expect_equal(mp$per_target$pid, d$pid)
})

test_that("risk_release, risk_spec and ru_profile pass the person column", {
  d <- person_fixture(50)
  keys <- c("sex", "yob")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.5)
  rr <- risk_release(d, keys, ctx, id = "pid")
  expect_equal(rr$kanon$record_risk, risk_kanon(d, keys, id = "pid")$record_risk)
  expect_output(print(rr), "50 persons")
  spec <- deprecated(risk_spec("kanon", keys = keys, measure = "max"))
  expect_equal(deprecated(risk_value(risk_spec("kanon", keys = keys, measure = "max", id = "pid"), d, d)),
               risk_kanon(d, keys, id = "pid")$max_risk)
  ru <- ru_profile(d, list(mask_round(1, "decimal")), x ~ yob, vars = "x",
                   risk = spec, id = "pid", seed = 1)
  expect_equal(ru$risk, rep(risk_kanon(d, keys, id = "pid")$max_risk, 2))
  expect_output(print(ru), "risk: kanon of\\s+persons \\('pid'\\)")
  ru_rec <- ru_profile(d, list(mask_round(1, "decimal")), x ~ yob, vars = "x",
                       risk = spec, seed = 1)
  expect_equal(ru_rec$risk, rep(risk_kanon(d, keys)$max_risk, 2))
  expect_error(ru_profile(transform(d, pid = NA), list(mask_none()), x ~ yob, vars = "x",
                          risk = spec, id = "pid"), class = "epimask_error_value")
})

test_that("ru_profile(derive = ) fits the model to the derived original and masked data", {
  tv <- load_epimask_data("trial_visits")
  derive <- function(d) {
    first <- d[d$visit == 1, ]
    data.frame(event = first$event, arm = first$arm,
               sbp10 = ave(d$sbp, d$pid)[d$visit == 1] / 10)
  }
  scheme <- mask_round(1, "significant")
  ru <- ru_profile(tv, list(scheme), event ~ arm + sbp10, family = binomial(),
                   vars = "sbp", term = "sbp10", risk = "none", derive = derive, seed = 1)
  orig <- glm(event ~ arm + sbp10, binomial, derive(tv))
  masked <- apply_mask(tv, scheme, "sbp")
  mfit <- glm(event ~ arm + sbp10, binomial, derive(masked))
  expect_equal(ru$estimate[ru$scheme == "no masking"], unname(coef(orig)["sbp10"]), tolerance = 1e-8)
  expect_equal(ru$estimate[ru$scheme != "no masking"], unname(coef(mfit)["sbp10"]), tolerance = 1e-8)
  expect_equal(ru$bias[ru$scheme != "no masking"],
               unname(coef(mfit)["sbp10"] - coef(orig)["sbp10"]), tolerance = 1e-8)
  # a derive step that does not return a data frame is a classed error
  expect_error(ru_profile(tv, list(scheme), event ~ arm, family = binomial(), vars = "sbp",
                          risk = "none", derive = function(d) 1),
               class = "epimask_error_type")
})

test_that("datafly() and ola() with a repeated id count persons and suppress them whole", {
  tv <- load_epimask_data("trial_visits")
  keys <- c("birth", "sex", "site")
  h <- list(birth = hierarchy_date(), sex = hierarchy_flat(), site = hierarchy_flat())
  one <- tv[!duplicated(tv$pid), ]
  o <- deprecated(ola(tv, keys, h, k = 5, id = "pid", secret = "s"))
  o1 <- deprecated(ola(one, keys, h, k = 5, id = "pid", secret = "s"))
  # the persons' search is the search on one row per person
  expect_equal(o$levels, o1$levels)
  expect_equal(sort(o$class_sizes), sort(o1$class_sizes))
  expect_equal(o$n_persons_suppressed, o1$n_suppressed)
  # suppressed persons leave with all their records; the rest stay whole
  gone <- unique(tv$pid[o$suppressed])
  expect_equal(length(gone), o$n_persons_suppressed)
  expect_setequal(o$suppressed, which(tv$pid %in% gone))
  expect_equal(nrow(o$data), nrow(tv) - sum(tv$pid %in% gone))
  # every class of the release has at least k persons (hand count)
  sizes <- table(hand_key_sets(o$data, keys))
  expect_gte(min(sizes), 5)
  expect_equal(sort(as.vector(sizes)), sort(o$class_sizes))
  expect_match(format(o)[[2L]], "persons \\(person column 'pid'\\)")

  # keys varying within persons: datafly and ola take key sets
  d <- person_fixture(80)
  hd <- list(yob = hierarchy_numeric(c(1950, 1952, 1954)), region = hierarchy_flat())
  df <- datafly(d, c("yob", "region"), hd, k = 3, id = "pid", secret = "s")
  sizes <- table(hand_key_sets(df$data, c("yob", "region")))
  expect_gte(min(sizes), 3)
  expect_equal(sort(as.vector(sizes)), sort(df$class_sizes))
  gone <- unique(d$pid[df$suppressed])
  expect_setequal(df$suppressed, which(d$pid %in% gone))
  expect_lte(length(gone), 0.05 * 80)
  o <- deprecated(ola(d, c("yob", "region"), hd, k = 3, id = "pid", secret = "s"))
  sizes <- table(hand_key_sets(o$data, c("yob", "region")))
  expect_gte(min(sizes), 3)
  expect_equal(sort(as.vector(sizes)), sort(o$class_sizes))
  gone <- unique(d$pid[o$suppressed])
  expect_setequal(o$suppressed, which(d$pid %in% gone))
  # datafly's node meets ola()'s k and limit: the optimum loses no more
  # (both count the losses over the persons' key tuples)
  for (m in c("entropy", "precision"))
    expect_lte(info_loss(o, m), info_loss(df, m) + 1e-9)
  # a one-to-one id leaves the record-level search unchanged
  d$rec <- sprintf("r%03d", seq_len(nrow(d)))
  a <- datafly(d, c("yob", "region"), hd, k = 3, id = "rec", secret = "s")
  b <- suppressWarnings(datafly(d, c("yob", "region"), hd, k = 3))
  expect_equal(a$levels, b$levels)
  expect_equal(a$suppressed, b$suppressed)
  expect_null(a$unit)
})

test_that("ru_profile(derive = ) with a Cox model on intervals derived from masked dates", {
  skip_if_not_installed("survival")
  tv <- load_epimask_data("trial_visits")
  derive <- function(d) {
    first <- d[d$visit == 1, ]
    last <- d[!duplicated(d$pid, fromLast = TRUE), ]
    last <- last[match(first$pid, last$pid), ]
    data.frame(arm = first$arm, age10 = as.numeric(first$visit_date - last$birth) / 3652.5,
               time = as.numeric(last$exit_date - first$visit_date), status = last$event)
  }
  dates <- c("birth", "visit_date", "exit_date")
  ru <- ru_profile(tv, list(mask_noise(30), mask_noise(30, by = "pid")),
                   survival::Surv(time, status) ~ arm + age10, family = "cox", vars = dates,
                   term = "age10", risk = "none", derive = derive, nrep = 2, seed = 3)
  ref <- survival::coxph(survival::Surv(time, status) ~ arm + age10, derive(tv), ties = "efron")
  expect_equal(ru$estimate[ru$scheme == "no masking"], unname(coef(ref)[["age10"]]),
               tolerance = 1e-8)
  # per person: every derived interval is the original one
  expect_equal(ru$bias[grepl("per 'pid'", ru$scheme)], 0, tolerance = 1e-10)
  # per record: the first visit and the last record move apart, the estimate moves
  expect_gt(abs(ru$bias[ru$scheme == "uniform noise, amount = 30"]), 0)
  # the masked fits are those of coxph on the derived masked data (one draw, same seed path)
  set.seed(11)
  m <- apply_mask(tv, mask_noise(30), dates)
  one <- ru_profile(m, list(mask_none()), survival::Surv(time, status) ~ arm + age10,
                    family = "cox", vars = dates, term = "age10", risk = "none",
                    derive = derive)
  expect_equal(one$estimate, unname(coef(survival::coxph(survival::Surv(time, status) ~ arm + age10,
                                                         derive(m)))[["age10"]]), tolerance = 1e-8)
})
