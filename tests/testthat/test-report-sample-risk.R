# The reports' rows for releases that are samples (population uniqueness,
# log-linear risk, cluster risk): every number equals the measure computed
# directly (risk_population(), risk_loglinear(), risk_individual(),
# risk_release(uniqueness = )), the cluster risk also by the product formula
# by hand; the notes name the model, its convergence or its reason.

sample_data <- function() {
  d <- adult_extract[1:2000, c("age", "sex", "race", "marital_status", "income")]
  d$age <- d$age %/% 10 * 10
  d$household <- (seq_len(nrow(d)) + 1L) %/% 2L
  d
}

row_value <- function(tab, pattern, col = "value") {
  hit <- grepl(pattern, tab$measure, fixed = TRUE)
  expect_identical(sum(hit), 1L, info = pattern)
  tab[[col]][hit]
}

test_that("population rows equal risk_population() and risk_release(uniqueness = )", {
  d <- sample_data()
  keys <- c("age", "sex", "race", "marital_status")
  ctx <- suppressWarnings(release_context(public = TRUE, threshold = 0.1))
  for (pi in c(0.05, 0.3)) {
    spec <- deprecated(risk_spec("population", keys = keys, pi = pi))
    rows <- epimask:::risk_rows(d, keys, character(), ctx, specs = list(spec))
    pop <- risk_population(d, keys, pi = pi)
    expect_equal(row_value(rows, "estimated number of people"), pop$uniques)
    expect_equal(row_value(rows, "estimated share of the population"), pop$share)
    rr <- risk_release(d, keys, ctx, uniqueness = population_model(pi))
    expect_equal(row_value(rows, "Pr(re-id, public attack judged by population uniques)"),
                 rr$attacks$risk[[1L]])
    notes <- attr(rows, "notes")
    expect_match(notes, sprintf("Dankar et al.'s rule chose the %s model", tools::toTitleCase(pop$used)),
                 fixed = TRUE, all = FALSE)
    expect_match(notes, "the estimate converged", fixed = TRUE, all = FALSE)
  }
  # a model asked for by name, ARX's variant
  spec <- deprecated(risk_spec("population", keys = keys, pi = population_model(0.2, model = "zayatz")))
  rows <- epimask:::risk_rows(d, keys, character(), NULL, specs = list(spec))
  pop <- risk_population(d, keys, population_model(0.2, model = "zayatz"))
  expect_equal(row_value(rows, "estimated share of the population"), pop$share)
  expect_match(attr(rows, "notes"), "the Zayatz model was asked for", fixed = TRUE)
})

test_that("a population model that does not converge gives NA and the reason", {
  set.seed(3)
  d <- data.frame(a = sample(1:300, 1000, TRUE), b = sample(1:300, 1000, TRUE))
  spec <- deprecated(risk_spec("population", keys = c("a", "b"), pi = 0.01, model = "pitman"))
  ctx <- suppressWarnings(release_context(public = TRUE, threshold = 0.1))
  rows <- epimask:::risk_rows(d, c("a", "b"), character(), ctx, specs = list(spec))
  pop <- suppressWarnings(risk_population(d, c("a", "b"), population_model(0.01, "pitman")))
  expect_true(is.na(pop$share))
  expect_true(is.na(row_value(rows, "estimated share of the population")))
  expect_false(any(grepl("judged by population uniques", rows$measure)))
  expect_match(attr(rows, "notes"), "did NOT converge (no finite maximum", fixed = TRUE)
})

test_that("log-linear rows equal risk_loglinear()", {
  d <- sample_data()
  keys <- c("sex", "race", "marital_status")
  for (args in list(list(pi = 0.1), list(pi = 0.02, formula = ~ sex * race + marital_status))) {
    spec <- deprecated(do.call(risk_spec, c(list("loglinear", keys = keys), args)))
    rows <- epimask:::risk_rows(d, character(), character(), NULL, specs = list(spec))
    ll <- do.call(risk_loglinear, c(list(d, keys), args))
    expect_equal(row_value(rows, "(tau1)"), ll$tau1)
    expect_equal(row_value(rows, "(tau2)"), ll$tau2)
    expect_equal(row_value(rows, "highest record risk of a correct match"),
                 max(ll$per_record$match_prob))
    expect_match(attr(rows, "notes"), sprintf("tau1 = %s", format(signif(ll$tau1, 4))),
                 fixed = TRUE)
  }
})

test_that("cluster rows equal risk_individual(cluster = ) and the product by hand", {
  d <- sample_data()
  keys <- c("age", "sex", "race")
  spec <- deprecated(risk_spec("individual", keys = keys, cluster = "household"))
  rows <- epimask:::risk_rows(d, keys, character(), NULL, specs = list(spec))
  ind <- risk_individual(d, keys, cluster = "household")
  expect_equal(row_value(rows, "expected re-identifications"), ind$cluster_expected)
  expect_equal(row_value(rows, "share of records re-identified"), ind$cluster_global)
  expect_equal(row_value(rows, "highest cluster risk"), max(ind$cluster_risk))
  # by hand: r_i = 1 / class size (no weights), a cluster's risk 1 - prod(1 - r_i)
  size <- ave(rep(1, nrow(d)), d$age, d$sex, d$race, FUN = length)
  r_h <- ave(1 / size, d$household, FUN = function(r) 1 - prod(1 - r))
  expect_equal(row_value(rows, "expected re-identifications"), sum(r_h))
  expect_equal(row_value(rows, "share of records re-identified"), mean(r_h))
  # a release that drops the cluster column takes it from the original
  rel <- d[setdiff(names(d), "household")]
  tab <- epimask:::scheme_risk_table(d, rel, keys, character(), NULL, specs = list(spec))
  expect_equal(row_value(tab, "expected re-identifications", "masked"), sum(r_h))
  no_source <- epimask:::risk_rows(rel, keys, character(), NULL, specs = list(spec))
  expect_false(any(grepl("Clusters", no_source$measure)))
  expect_match(attr(no_source, "notes"), "is not in it, so it was not computed", fixed = TRUE)
  # without a cluster the individual risk adds no sample rows
  plain <- epimask:::risk_rows(d, keys, character(), NULL,
                               specs = list(deprecated(risk_spec("individual", keys = keys))))
  expect_false(any(grepl("Clusters", plain$measure)))
})

test_that("release_report() takes the specs of the profile and of `risk`", {
  d <- sample_data()
  d$high <- as.integer(d$income == ">50K")
  keys <- c("age", "sex", "race", "marital_status")
  ctx <- suppressWarnings(release_context(public = TRUE, threshold = 0.1))
  pop_spec <- deprecated(risk_spec("population", keys = keys, pi = 0.1))
  data <- d[c(keys, "high", "household")]
  ru <- ru_profile(data, list(mask_round(1)), high ~ age + sex, family = binomial(),
                   vars = "age", term = "sexMale", risk = pop_spec, seed = 1,
                   progress = FALSE, context = ctx)
  expect_identical(attr(ru, "meta")$risk_spec, pop_spec)
  released <- apply_mask(data, mask_round(1), "age")
  released$household <- NULL
  specs <- list(deprecated(risk_spec("kanon", keys = keys)),
                deprecated(risk_spec("loglinear", keys = c("sex", "race"), pi = 0.1)),
                deprecated(risk_spec("individual", keys = keys, cluster = "household")))
  settings <- epimask:::report_settings(ru, data, list(scheme = ru$scheme[[2L]], data = released),
                                        specs)
  content <- do.call(epimask:::report_content, c(list(ru, data = data, context = ctx), settings))
  tab <- content$risk_table
  pop_o <- risk_population(data, keys, pi = 0.1)
  pop_m <- risk_population(released, keys, pi = 0.1)
  expect_equal(row_value(tab, "estimated share of the population", "original"), pop_o$share)
  expect_equal(row_value(tab, "estimated share of the population", "masked"), pop_m$share)
  ll <- risk_loglinear(released, c("sex", "race"), pi = 0.1)
  expect_equal(row_value(tab, "(tau1)", "masked"), ll$tau1)
  ind <- risk_individual(cbind(released, household = data$household), keys, cluster = "household")
  expect_equal(row_value(tab, "expected re-identifications", "masked"), ind$cluster_expected)
  # the kanon rows are still there, from the first spec's keys
  expect_true("Average risk" %in% tab$measure)
  expect_length(content$risk_explained, 4L)
  expect_true(length(content$risk_notes) >= 6L)
  # a single spec keeps working; a list with something else is refused
  expect_error(epimask:::report_settings(ru, data, NULL, list(pop_spec, "kanon")),
               class = "epimask_error_type")
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  f <- tempfile(fileext = ".html")
  release_report(ru, f, data = data, release = list(scheme = ru$scheme[[2L]], data = released),
                 risk = specs, context = ctx)
  html <- gsub("\\s+", " ", paste(readLines(f, warn = FALSE), collapse = "\n"))
  expect_match(html, "If the release is a sample of a population", fixed = TRUE)
  expect_match(html, "estimated share of the population", fixed = TRUE)
  expect_match(html, "expected correct matches of sample uniques (tau2)", fixed = TRUE)
  expect_match(html, "a cluster falls with any member", fixed = TRUE)
})

test_that("deidentify() reports: rows of the sample criteria the search used", {
  d <- adult_extract[1:1500, c("age", "sex", "race", "marital_status")]
  d$family <- (seq_len(nrow(d)) + 2L) %/% 3L
  keys <- c("age", "sex", "race")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
            race = hierarchy_flat())
  ctx <- suppressWarnings(release_context(public = TRUE, threshold = 0.2))
  # the household column is flagged by the column review (named like a
  # demographic variable): declared, it is the cluster of the criterion below
  fam <- c(family = "the household (test fixture)")
  rel <- deidentify(d, keys, h, ctx, declare = fam)
  # no sample criterion: no rows
  expect_null(epimask:::deidentify_report_content(rel)$sample_risk)
  # the criteria of the search (epimask 0.3 injected them into ola()'s
  # `criteria` field, which the report turned back into risk specs; they are
  # criteria of deidentify() now)
  rel <- deidentify(d, keys, h, ctx, declare = fam,
                    criteria = list(uniqueness(0.1, population_model(0.05)),
                                    loglinear_risk(0.01, pi = 0.05), cluster_risk(0.3, "family")))
  content <- epimask:::deidentify_report_content(rel, data = d)
  s <- content$sample_risk
  val <- function(pattern, col = "Release") s[[col]][grepl(pattern, s$Measure, fixed = TRUE)]
  # every key the certificate counts: the custodian's and the flagged marital_status
  expect_true("marital_status" %in% rel$keys)
  pop <- risk_population(rel$data, rel$keys, population_model(0.05))
  expect_equal(val("estimated share of the population"), pop$share)
  expect_equal(val("estimated number of people", "Original"),
               risk_population(d, rel$keys, population_model(0.05))$uniques)
  expect_equal(val("judged by population uniques"),
               risk_release(rel$data, rel$keys, ctx, uniqueness = pop)$attacks$risk)
  ll <- risk_loglinear(rel$data, rel$keys, pi = 0.05)
  expect_equal(val("(tau1)"), ll$tau1)
  expect_equal(val("(tau2)"), ll$tau2)
  ind <- risk_individual(rel$data, rel$keys, cluster = "family")
  expect_equal(val("expected re-identifications"), ind$cluster_expected)
  expect_equal(val("highest cluster risk"), max(ind$cluster_risk))
  expect_match(content$sample_notes, "at most 0.1 (sampling fraction 0.05", fixed = TRUE,
               all = FALSE)
  expect_length(content$sample_explained, 4L)
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  f <- tempfile(fileext = ".html")
  release_report(rel, f, data = d)
  html <- gsub("\\s+", " ", paste(readLines(f, warn = FALSE), collapse = "\n"))
  expect_match(html, "the criteria of the search, recounted", fixed = TRUE)
  expect_match(html, "estimated share of the population", fixed = TRUE)
})

test_that("deidentify() with a population-uniqueness criterion, end to end", {
  d <- adult_extract[1:1500, c("age", "sex", "race", "marital_status")]
  keys <- c("age", "sex", "race")
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
            race = hierarchy_flat())
  ctx <- suppressWarnings(release_context(public = TRUE, threshold = 0.2))
  rel <- tryCatch(deprecated(deidentify(d, keys, h, ctx, uniqueness = list(pi = 0.05, max = 0.05))),
                  epimask_error_name = function(e) NULL)
  skip_if(is.null(rel), "deidentify() does not pass `uniqueness` to ola() in this version")
  content <- epimask:::deidentify_report_content(rel, data = d)
  pop <- risk_population(rel$data, keys, population_model(0.05))
  s <- content$sample_risk
  expect_equal(s$Release[grepl("estimated share", s$Measure)], pop$share)
})

test_that("the sample rows count persons when the spec names a person column", {
  tv <- trial_visits
  tv$yob <- as.integer(format(tv$birth, "%Y"))
  specs <- list(deprecated(risk_spec("population", keys = c("site", "sex", "yob"), pi = 0.1, id = "pid")),
                deprecated(risk_spec("loglinear", keys = c("site", "sex", "yob"), pi = 0.1, id = "pid")))
  rows <- epimask:::risk_rows(tv, character(), character(), NULL, specs = specs)
  pop <- risk_population(tv, c("site", "sex", "yob"), 0.1, id = "pid")
  ll <- risk_loglinear(tv, c("site", "sex", "yob"), pi = 0.1, id = "pid")
  expect_equal(row_value(rows, "estimated share of the population"), pop$share)
  expect_equal(row_value(rows, "(tau2)"), ll$tau2)
  expect_match(attr(rows, "notes"), "of 600 persons", fixed = TRUE, all = FALSE)
})
