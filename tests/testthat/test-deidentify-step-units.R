# deidentify(id = ): the units of the steps (issue 25). The losses are over
# the records of the data (the information lost is in the records the
# collaborator receives); a step that withholds persons says how many persons
# and records; the risk counts persons. Checked against hand computations of
# the entropy and precision losses written from the formulas (methods
# vignette, section 16): for a record i and key v, entropy
# log2(N(g(x_iv))) - log2(N(x_iv)) with N() counted over every record of the
# data, a withheld record or a blank as fully generalized (N = n); precision
# level / top, a withheld record or a blank 1, averaged over records x keys.

hand_step_losses <- function(data, keys, label, top, level) {
  # label[[v]]: the released label of each record of the data (NA: withheld
  # or blank); top, level: per key
  n <- nrow(data)
  entropy <- 0
  precision <- 0
  for (v in keys) {
    x <- as.character(data[[v]])
    n_value <- table(x)[x]
    g <- label[[v]]
    # the label every value maps to, read from the records that show it
    shown <- !is.na(g)
    map <- tapply(g[shown], x[shown], function(l) unique(l))
    stopifnot(all(lengths(map) == 1L))
    all_labels <- unname(unlist(map)[x])
    stopifnot(!anyNA(all_labels[shown]))
    n_label <- table(all_labels)[g]
    n_label[is.na(g)] <- n
    entropy <- entropy + sum(log2(as.numeric(n_label)) - log2(as.numeric(n_value)))
    precision <- precision + sum(ifelse(is.na(g), 1, level[[v]] / top[[v]]))
  }
  c(entropy = entropy, precision = precision / (n * length(keys)))
}

test_that("trial_visits: step losses over records by hand; persons and records withheld", {
  tv <- trial_visits
  tv$birth_year <- as.integer(format(tv$birth, "%Y"))
  tv$birth <- NULL
  keys <- c("site", "sex", "birth_year")
  h <- list(site = hierarchy_flat(), sex = hierarchy_flat(),
            birth_year = hierarchy_numeric(c(5, 10, 20)))
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  # the review's flagged columns declared: these tests count the keys stated
  rel <- deidentify(tv, keys, h, ctx, id = "pid", identifiers = c(pid = "pseudonymise"),
                    secret = "custodian key",
                    declare = c(visit_date = "shifted upstream (test fixture)",
                                exit_date = "shifted upstream (test fixture)",
                                sbp = "a measurement no attacker knows (test fixture)"))
  st <- rel$steps
  lv <- rel$generalization$levels
  expect_identical(unname(lv), c(0L, 0L, 2L))
  top <- c(site = 1, sex = 1, birth_year = 4)
  # the release keeps every record in the data's order (sbp as given)
  expect_identical(nrow(rel$data), nrow(tv))
  expect_identical(rel$data$sbp, tv$sbp)
  # decades by hand: the released labels of the unblanked birth years
  decade <- floor(tv$birth_year / 10) * 10
  shown <- !is.na(rel$data$birth_year)
  expect_identical(as.character(rel$data$birth_year)[shown],
                   sprintf("%d-%d", decade, decade + 9)[shown])
  final <- lapply(stats::setNames(keys, keys), function(v) as.character(rel$data[[v]]))
  hand_final <- hand_step_losses(tv, keys, final, top, lv)
  expect_equal(st$entropy[[4L]], hand_final[["entropy"]], tolerance = 1e-12)
  expect_equal(st$precision[[4L]], hand_final[["precision"]], tolerance = 1e-12)
  expect_equal(st$entropy[[3L]], hand_final[["entropy"]], tolerance = 1e-12)
  # step 1: the persons ola() suppressed are withheld whole (all their records)
  supp <- rel$generalization$suppressed
  withheld <- unique(tv$pid[supp])
  expect_setequal(supp, which(tv$pid %in% withheld))
  expect_identical(st$persons_dropped[[2L]], length(withheld))
  expect_identical(st$records_dropped[[2L]], length(supp))
  expect_identical(st$persons[[2L]], 600L - length(withheld))
  expect_identical(st$records[[2L]], nrow(tv) - length(supp))
  gen_labels <- lapply(stats::setNames(keys, keys), function(v) {
    g <- as.character(tv[[v]])
    if (v == "birth_year") g <- sprintf("%d-%d", decade, decade + 9)
    g[supp] <- NA
    g
  })
  hand_gen <- hand_step_losses(tv, keys, gen_labels, top, lv)
  expect_equal(st$entropy[[2L]], hand_gen[["entropy"]], tolerance = 1e-12)
  expect_equal(st$precision[[2L]], hand_gen[["precision"]], tolerance = 1e-12)
  # nothing withheld after local suppression; the original loses nothing
  expect_identical(st$records_dropped, c(0L, length(supp), 0L, 0L))
  expect_identical(st$persons_dropped, c(0L, length(withheld), 0L, 0L))
  expect_identical(st$entropy[[1L]], 0)
  # a person with more records loses more: the losses weigh persons by their
  # records, unlike ola()'s search over persons
  expect_gt(st$entropy[[2L]], rel$generalization$info_loss[["entropy"]])
  # every output names its unit
  out <- format(rel)
  expect_true(any(grepl("information losses over the 3609 records of the data", out, fixed = TRUE)))
  expect_true(any(grepl(sprintf("%d persons (%d records) withheld", length(withheld), length(supp)),
                        out, fixed = TRUE)))
  expect_true(any(grepl("overall risk by persons", out, fixed = TRUE)))
  sm <- format(summary(rel))
  expect_true(any(grepl("What each column counts", sm)))
  expect_true(any(grepl("persons_dropped +persons of the data withheld", sm)))
  expect_true(any(grepl("overall_risk +largest attack's risk, classes counted in persons", sm)))
  expect_identical(unique(tidy(rel)$unit), "persons")
  gl <- glance(rel)
  expect_identical(gl$risk_unit, "persons")
  expect_identical(gl$loss_unit, "records")
  expect_identical(gl$persons, rel$n_persons_released)
  expect_identical(gl$n_persons, 600L)
  expect_equal(gl$entropy, hand_final[["entropy"]], tolerance = 1e-12)
  content <- epimask:::deidentify_report_content(rel, data = tv)
  tab <- content$steps
  expect_identical(tab$`Persons withheld`, st$persons_dropped)
  expect_identical(tab$`Records withheld`, st$records_dropped)
  expect_equal(tab$`Entropy loss (bits, over records)`, st$entropy)
  expect_equal(tab$`Overall risk (by persons)`, st$overall_risk)
  expect_match(content$steps_units, "all 3609 records of the data")
  expect_match(content$steps_units, "The overall risk counts persons")
})

test_that("a small cohort: losses by hand over records, withheld persons with their visits", {
  persons <- data.frame(
    person = sprintf("id%02d", 1:15),
    sex = c("F", "F", "F", "F", "F", "F", "F", "M", "M", "M", "M", "M", "M", "M", "M"),
    age = c(21, 24, 27, 33, 38, 52, 67, 22, 29, 31, 36, 44, 58, 61, 79),
    visits = c(6, 1, 2, 1, 3, 1, 2, 5, 1, 1, 2, 1, 4, 1, 1), stringsAsFactors = FALSE)
  rows <- rep(seq_len(nrow(persons)), persons$visits)
  d <- data.frame(person = persons$person[rows], sex = persons$sex[rows],
                  age = persons$age[rows], stringsAsFactors = FALSE)
  d$sbp <- 120 + seq_len(nrow(d))
  keys <- c("sex", "age")
  h <- list(sex = hierarchy_flat(), age = hierarchy_numeric(c(10, 20, 40)))
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.25)
  rel <- deidentify(d, keys, h, ctx, id = "person", max_suppress = 0.2, sensitive = "sbp")
  st <- rel$steps
  lv <- rel$generalization$levels
  top <- c(sex = 1, age = 4)
  back <- match(rel$data$sbp, d$sbp)  # released rows in the data (sbp is unique)
  final <- lapply(stats::setNames(keys, keys), function(v) {
    g <- rep(NA_character_, nrow(d))
    g[back] <- as.character(rel$data[[v]])
    g
  })
  hand <- hand_step_losses(d, keys, final, top, lv)
  expect_equal(st$entropy[[4L]], hand[["entropy"]], tolerance = 1e-12)
  expect_equal(st$precision[[4L]], hand[["precision"]], tolerance = 1e-12)
  # withheld after the last step: persons with every visit
  out_persons <- setdiff(persons$person, d$person[back])
  expect_identical(st$persons_dropped[[4L]], length(out_persons))
  expect_identical(st$records_dropped[[4L]], sum(d$person %in% out_persons))
  expect_identical(st$persons[[4L]] + st$persons_dropped[[4L]], 15L)
  # the same release without id counts records only
  rec <- suppressWarnings(deidentify(d, keys, h, ctx, max_suppress = 0.2, sensitive = "sbp"))
  expect_null(rec$steps$persons_dropped)
  expect_identical(rec$steps$records_dropped, nrow(d) - rec$steps$records)
  expect_identical(unique(tidy(rec)$unit), "records")
  expect_true(is.na(glance(rec)$persons))
  expect_true(any(grepl("overall risk by records", format(rec), fixed = TRUE)))
  expect_false("Persons withheld" %in% names(epimask:::deidentify_report_content(rec)$steps))
})
