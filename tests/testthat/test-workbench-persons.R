# The workbench with several records per person (issue 25) and the rows for
# releases that are samples in its own risk tables (issue 27): the person
# column of 2 Variables goes as `id =` to every risk measure, ru_profile(),
# deidentify() and the reports; the sampling fraction (or population size)
# of 3 Context makes the population-uniqueness, log-linear and cluster rows.
# References: hand counts over unique() person/key tuples, and the measures
# called directly at the console.

tv_data <- function() as.data.frame(load_epimask_data("trial_visits"))

tv_spec <- function(...) {
  utils::modifyList(list(
    identifiers = character(), person = "pid", keys = c("site", "sex", "birth"),
    sensitive = "event", vars = "sbp", formula = "sbp ~ arm + sex", family = "gaussian",
    term = "arm", risk = "linkage", known = "sbp", round_sig = c("2", "1"),
    round_dec = character(), noise = "5", noise_dist = "uniform", nrep = 1, seed = 1,
    sample_pi = NULL, sample_population = NULL, sample_measures = character(), cluster = NULL),
    list(...))
}

# class sizes in persons by hand: one key tuple per person (unique()), then
# the persons per tuple
hand_person_sizes <- function(data, keys, person) {
  rows <- unique(data.frame(person = data[[person]], data[keys], stringsAsFactors = FALSE))
  stopifnot(!anyDuplicated(rows$person))
  as.vector(table(do.call(paste, c(lapply(rows[keys], as.character), sep = "\r"))))
}

test_that("risk rows count persons with the person column, and say so", {
  tv <- tv_data()
  tv$birth_year <- as.integer(format(tv$birth, "%Y"))
  keys <- c("site", "sex", "birth_year")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  tab <- epimask:::risk_rows(tv, keys, "event", ctx, id = "pid")
  f <- hand_person_sizes(tv, keys, "pid")
  val <- function(label) tab$value[tab$measure == label]
  expect_equal(val("Prosecutor (maximum) risk, 1 / smallest class, by persons"), 1 / min(f))
  expect_equal(val("Average risk (classes per person)"), length(f) / 600)
  expect_equal(val("Equivalence classes, by persons"), length(f))
  expect_equal(val("Persons in classes smaller than 5 persons"), sum(f[f < 5]))
  rr <- risk_release(tv, keys, ctx, id = "pid")
  expect_equal(val("Overall release risk (largest attack), by persons"), rr$overall)
  # every measure of the table names persons
  expect_true(all(grepl("person", tab$measure)))
  # without the person column the same table counts records (and says nothing of persons)
  rec <- epimask:::risk_rows(tv, keys, "event", ctx)
  expect_false(any(grepl("person", rec$measure)))
  expect_gt(rec$value[rec$measure == "Equivalence classes"], 0)
  # class sizes in persons
  cs <- epimask:::class_size_counts(tv, keys, "pid")
  expect_identical(names(cs), c("class_size_persons", "classes", "persons"))
  expect_identical(sum(cs$persons), 600L)
  expect_identical(sum(cs$classes), length(f))
  # the masked release drops the person column: it is attached for counting
  masked <- tv[setdiff(names(tv), "pid")]
  both <- epimask:::scheme_risk_table(tv, masked, keys, NULL, ctx, id = "pid")
  expect_equal(both$masked, both$original)
  expect_true(all(grepl("person", both$measure)))
})

test_that("the sample settings make the population, log-linear and cluster rows", {
  tv <- tv_data()
  tv$birth_year <- as.integer(format(tv$birth, "%Y"))
  keys <- c("site", "sex", "birth_year")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  none <- epimask:::workbench_sample_specs(tv_spec(keys = keys), tv)
  expect_identical(none, list())
  # a population size gives the sampling fraction persons / N
  specs <- epimask:::workbench_sample_specs(
    tv_spec(keys = keys, sample_population = 6000, sample_measures = c("population", "loglinear")),
    tv)
  expect_length(specs, 2L)
  # criteria (not the deprecated risk_spec()): the sampling fraction is the
  # population model's; the person column goes to the verbs' `id` (below,
  # risk_rows(id = )), not into the criterion
  expect_equal(specs[[1L]]$model$pi, 600 / 6000)
  expect_null(specs[[1L]]$id)
  tab <- epimask:::risk_rows(tv, keys, NULL, ctx, specs, original = tv, id = "pid")
  pop <- risk_population(tv, keys, population_model(0.1), compare = FALSE, id = "pid")
  got <- tab$value[grepl("Population uniques.*estimated number", tab$measure)]
  expect_equal(got, pop$uniques)
  expect_equal(tab$value[grepl("Population uniques.*estimated share", tab$measure)], pop$share)
  ll <- risk_loglinear(tv, keys, pi = 0.1, id = "pid")
  expect_equal(tab$value[grepl("\\(tau1\\)", tab$measure)], ll$tau1)
  expect_equal(tab$value[grepl("\\(tau2\\)", tab$measure)], ll$tau2)
  expect_true(any(grepl("sampling fraction 0.1", attr(tab, "notes"))))
  # the sampling fraction given wins; cluster risk with a cluster column (of
  # records: without a person column, where the person is not the unit)
  d <- as.data.frame(load_epimask_data("dose_cohort"))[1:2000, ]
  d$household <- rep(seq_len(1000), each = 2)
  dkeys <- c("city", "sex", "age_exp")
  specs <- epimask:::workbench_sample_specs(
    tv_spec(keys = dkeys, person = NULL, sample_pi = 0.05, sample_measures = "population",
            cluster = "household"), d)
  expect_equal(specs[[1L]]$model$pi, 0.05)
  expect_s3_class(specs[[2L]], "risk_cluster_risk")
  expect_identical(specs[[2L]]$cluster, "household")
  tab <- epimask:::risk_rows(d, dkeys, NULL, ctx, specs, original = d)
  ind <- risk_individual(d, dkeys, cluster = "household")
  # the expected re-identifications counting clusters, by the product formula by hand
  r <- ind$per_record
  hand <- sum(ave(r, d$household, FUN = function(x) 1 - prod(1 - x)))
  got <- tab$value[grepl("^Clusters on .*expected re-identifications", tab$measure)]
  expect_equal(got[[1L]], hand, tolerance = 1e-10)
  # with a person column, the cluster column is refused with the reason
  e <- tryCatch(epimask:::workbench_sample_specs(
    tv_spec(keys = keys, sample_pi = 0.1, sample_measures = "population", cluster = "arm"), tv),
    error = function(e) e)
  expect_match(conditionMessage(e), "person is already the")
  # what is missing is said
  for (bad in list(tv_spec(keys = keys, sample_measures = "population"),
                   tv_spec(keys = keys, sample_measures = "population", sample_pi = 1.5),
                   tv_spec(keys = keys, sample_measures = "population", sample_population = 10),
                   tv_spec(keys = character(), sample_measures = "population", sample_pi = 0.1),
                   tv_spec(keys = keys, cluster = "site"))) {
    e <- tryCatch(epimask:::workbench_sample_specs(bad, tv), error = function(e) e)
    expect_s3_class(e, "epimask_workbench_input")
  }
})

test_that("the profile arguments and the console call carry id = the person column", {
  tv <- tv_data()
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  s <- tv_spec()
  args <- epimask:::workbench_profile_args(tv, s, ctx)
  expect_identical(args$id, "pid")
  expect_true("pid" %in% names(args$data))
  text <- epimask:::workbench_profile_call(s, "trial_visits")
  expect_match(text, "id = \"pid\"", fixed = TRUE)
  # the call evaluated at the console is the profile the app runs
  ru_call <- eval(parse(text = text)[[1L]], list(trial_visits = tv))
  args$progress <- FALSE
  ru_app <- do.call(ru_profile, args[setdiff(names(args), "context")])
  expect_equal(ru_call$risk, ru_app$risk)
  expect_equal(ru_call$estimate, ru_app$estimate)
  expect_identical(ru_meta(ru_call)$risk_id, "pid")
  # the person column plays no other role, and needs no missing values
  for (bad in list(tv_spec(vars = "sbp", keys = c("pid", "sex")), tv_spec(formula = "sbp ~ pid"))) {
    e <- tryCatch(epimask:::workbench_profile_args(tv, bad, ctx), error = function(e) e)
    expect_s3_class(e, "epimask_workbench_input")
  }
  tv$pid[3] <- NA
  e <- tryCatch(epimask:::workbench_profile_args(tv, s, ctx), error = function(e) e)
  expect_match(conditionMessage(e), "missing values")
})

test_that("the de-identification module passes id =; its call reproduces the release", {
  local_sync_workbench()
  tv <- tv_data()
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  keys <- c("site", "sex", "birth")
  h <- list(site = hierarchy_flat(), sex = hierarchy_flat(), birth = hierarchy_date())
  ref <- deidentify(tv, keys, h, ctx, sensitive = "event", id = "pid", max_suppress = 0.05)
  roles <- list(identifiers = character(), person = "pid", keys = keys, sensitive = "event",
                formula = "", family = "gaussian", term = "")
  shiny::testServer(epimask:::wb_deidentify_server, args = list(
    loaded = list(data = function() tv, name = function() "trial_visits", stamp = function() 1L),
    roles = function() roles, context = function() ctx), {
    session$setInputs(max_suppress = 0.05, run = 1)
    res <- rv$result
    expect_identical(res$id, "pid")
    expect_identical(res$data, ref$data)
    expect_equal(res$certificate, ref$certificate)
    expect_false("pid" %in% names(res$data))
    # the certificate by persons equals the hand recount over unique() tuples
    # (on every key the certificate counts: the review's dates too, issue 36;
    # a person's key is then the set of their tuples)
    cell <- do.call(paste, c(lapply(res$data[res$keys], function(v)
      ifelse(is.na(v), "<NA>", as.character(v))), sep = "\r"))
    f <- table(tapply(cell, tv$pid[res$rows], function(t) paste(sort(unique(t)), collapse = "\n")))
    strict <- if (min(f) >= 3) length(f) / 600 else 1 / min(f)
    expect_equal(res$certificate$pr_reid_given, rep(strict, 3))
    expect_match(output$status$html, "600 of 600 persons \\(3609 of 3609 records; person column 'pid'")
    expect_match(output$steps, "Persons released", fixed = TRUE)
    expect_match(output$steps, "Overall risk (by persons)", fixed = TRUE)
    expect_match(output$verdict$html, "classes counted in persons (person column 'pid')", fixed = TRUE)
    expect_match(output$steps_units$html, "The overall risk counts persons", fixed = TRUE)
    # the recorded console call has id = and gives the same release
    expect_match(paste(deparse(rv$call), collapse = " "), "id = \"pid\"", fixed = TRUE)
    expect_match(paste(deparse(rv$call), collapse = " "), "hierarchy_date()", fixed = TRUE)
    again <- eval(rv$call, list(data = tv))
    expect_identical(again$data, res$data)
    expect_equal(again$steps, res$steps)
    if (rmarkdown::pandoc_available()) {
      html <- paste(readLines(output$download_report, warn = FALSE), collapse = "\n")
      expect_match(html, "600 persons (3609 records", fixed = TRUE)
      expect_match(html, "Persons released", fixed = TRUE)
    }
  })
  # a person column that is also a key: a message, no result
  shiny::testServer(epimask:::wb_deidentify_server, args = list(
    loaded = list(data = function() tv, name = function() "trial_visits", stamp = function() 1L),
    roles = function() utils::modifyList(roles, list(keys = c("site", "pid"))),
    context = function() ctx), {
    session$setInputs(max_suppress = 0.05, run = 1)
    expect_null(rv$result)
    expect_match(rv$msg$text, "person column 'pid' cannot also be")
  })
})

test_that("the whole server on trial_visits: persons in every risk table, sample rows", {
  local_sync_workbench()
  tv <- tv_data()
  shiny::testServer(epimask:::workbench_server(NULL, "x"), {
    session$setInputs(`data-source` = "trial_visits")
    expect_identical(loaded$name(), "trial_visits")
    session$setInputs(`variables-identifiers` = character(), `variables-person` = "pid",
                      `variables-keys` = c("site", "sex", "birth"), `variables-sensitive` = "event",
                      `variables-vars` = "sbp", `variables-formula` = "sbp ~ arm + sex",
                      `variables-family` = "gaussian", `variables-term` = "arm",
                      `context-public` = FALSE, `context-pr_attempt` = 0.3,
                      `context-pr_acquaintance` = 0.5, `context-pr_breach` = 0.27,
                      `context-threshold` = "0.2", `context-reasons` = "",
                      `context-sample_pi` = 0.1, `context-sample_population` = NA,
                      `context-sample_measures` = "population", `context-cluster` = "",
                      `masking-risk` = "linkage", `masking-known` = "sbp",
                      `masking-round_sig` = c("2", "1"), `masking-round_dec` = character(),
                      `masking-noise` = "5", `masking-noise_dist` = "uniform", `masking-nrep` = 1,
                      `masking-seed` = 1)
    expect_identical(roles()$person, "pid")
    ctx_tab <- output[["context-risk"]]
    expect_match(output[["context-risk_notes"]]$html, "every class counts persons (person column 'pid')",
                 fixed = TRUE)
    expect_match(ctx_tab, "Overall release risk (largest attack), by persons", fixed = TRUE)
    expect_match(ctx_tab, "Population uniques on site, sex, birth", fixed = TRUE)
    expect_match(output[["context-risk_notes"]]$html, "sampling fraction 0.1")
    session$setInputs(`masking-run` = 1)
    ru <- masking$result()$ru
    expect_s3_class(ru, "ru_profile")
    expect_identical(ru_meta(ru)$risk_id, "pid")
    # the profile's risk is the console's ru_profile(id = ) risk
    ref <- deprecated(ru_profile(tv, list(mask_round(2), mask_round(1), mask_noise(5)), sbp ~ arm + sex,
                      vars = "sbp", term = "arm", risk = risk_spec("linkage", known = "sbp"),
                      nrep = 1, seed = 1, id = "pid", progress = FALSE))
    expect_equal(ru$risk, ref$risk)
    session$setInputs(`profile-selected` = "rounding to 1 significant digit")
    risk <- output[["profile-risk"]]
    expect_match(output[["profile-risk_notes"]]$html, "every class counts persons", fixed = TRUE)
    expect_match(risk, "Prosecutor (maximum) risk, 1 / smallest class, by persons", fixed = TRUE)
    expect_match(risk, "Population uniques on site, sex, birth", fixed = TRUE)
    expect_match(output[["profile-classes"]], "class_size_persons", fixed = TRUE)
    expect_match(output[["profile-verdict"]]$html, "by persons")
    session$setInputs(`profile-pick` = 1)
    got <- utils::read.csv(output[["release-download_data"]])
    expect_false("pid" %in% names(got))
    expect_identical(nrow(got), nrow(tv))
    if (rmarkdown::pandoc_available()) {
      html <- paste(readLines(output[["release-download_report"]], warn = FALSE), collapse = "\n")
      expect_match(html, "600 persons (3609 records; person column", fixed = TRUE)
      expect_match(html, "by persons", fixed = TRUE)
      expect_match(html, "Population uniques on site, sex, birth", fixed = TRUE)
      expect_match(html, "Class size (persons)", fixed = TRUE)
    }
  })
})

# ---- in Chromium ----------------------------------------------------------------


# a screenshot of the page, kept where EPIMASK_PERSONS_SCREENSHOTS points
keep_shot <- function(app, name) {
  shot <- tempfile(fileext = ".png")
  app$get_screenshot(shot)
  expect_true(file.size(shot) > 10000)
  dir <- Sys.getenv("EPIMASK_PERSONS_SCREENSHOTS")
  if (nzchar(dir)) file.copy(shot, file.path(dir, paste0(name, ".png")), overwrite = TRUE)
}

test_that("in Chromium: trial_visits by persons, sample rows, de-identify by persons", {
  local_browser()
  app <- shinytest2::AppDriver$new(system.file("workbench", package = "epimask"),
                                   name = "workbench-persons", width = 1300, height = 1100,
                                   load_timeout = 90 * 1000, timeout = 60 * 1000, seed = 1)
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns table') !== null", timeout = 60 * 1000)
  app$set_inputs(`data-source` = "trial_visits")
  app$wait_for_js("document.querySelector('#data-message').innerText.indexOf('trial_visits') >= 0",
                  timeout = 30 * 1000)
  # the preset names pid as the person column; the column table says so
  app$wait_for_js("document.querySelector('#data-columns').innerText.indexOf('person (unit of risk)') >= 0",
                  timeout = 30 * 1000)
  expect_identical(app$get_value(input = "variables-person"), "pid")
  expect_match(text_of(app, "#data-columns"), "pid\tperson (unit of risk)", fixed = TRUE)
  app$set_inputs(tabs = "variables")
  app$wait_for_idle()
  expect_match(text_of(app, "#variables-status"), "Every risk counts persons (person column 'pid')",
               fixed = TRUE)
  keep_shot(app, "wb-persons-variables")
  # 3 Context: the original's risk by persons, with the sample rows
  app$set_inputs(tabs = "context")
  app$set_inputs(`context-pr_attempt` = 0.3, `context-pr_acquaintance` = 0.5)
  app$set_inputs(`context-sample_population` = 6000)
  app$set_inputs(`context-sample_measures` = c("population", "loglinear"))
  app$wait_for_js("document.querySelector('#context-risk').innerText.indexOf('Population uniques') >= 0",
                  timeout = 60 * 1000)
  risk <- text_of(app, "#context-risk")
  expect_match(risk, "Overall release risk (largest attack), by persons", fixed = TRUE)
  expect_match(risk, "Persons in classes smaller than 5 persons", fixed = TRUE)
  expect_match(risk, "Log-linear model on site, sex, birth", fixed = TRUE)
  notes <- text_of(app, "#context-sample-notes")
  expect_match(notes, "every class counts persons (person column 'pid')", fixed = TRUE)
  expect_match(notes, "sampling fraction 0.1")
  keep_shot(app, "wb-persons-context")
  tv <- tv_data()
  pop <- risk_population(tv, c("site", "sex", "birth"), population_model(0.1), compare = FALSE,
                         id = "pid")
  expect_match(risk, format(round(pop$uniques)), fixed = TRUE)
  # 6 De-identify by persons
  app$set_inputs(tabs = "deidentify")
  app$wait_for_js("document.getElementById('deidentify-run') !== null", timeout = 30 * 1000)
  app$click("deidentify-run")
  app$wait_for_js("document.getElementById('deidentify-verdict-message') !== null",
                  timeout = 90 * 1000)
  app$wait_for_idle()
  expect_match(text_of(app, "#deidentify-status"), "600 of 600 persons", fixed = TRUE)
  expect_match(text_of(app, "#deidentify-verdict-message"), "classes counted in persons", fixed = TRUE)
  steps <- text_of(app, "#deidentify-steps")
  expect_match(steps, "Persons released", fixed = TRUE)
  expect_match(steps, "Overall risk (by persons)", fixed = TRUE)
  expect_match(text_of(app, "#deidentify-steps-units"), "The overall risk counts persons", fixed = TRUE)
  keep_shot(app, "wb-persons-deidentify")
  csv <- app$get_download("deidentify-download_data")
  got <- utils::read.csv(csv, stringsAsFactors = FALSE)
  expect_false("pid" %in% names(got))
  # 4-5 a profile by persons, its risk table with the sample rows
  app$set_inputs(tabs = "masking")
  app$set_inputs(`masking-nrep` = 1)
  app$click("masking-run")
  app$wait_for_value(export = "profile", ignore = list(NULL), timeout = 120 * 1000)
  app$set_inputs(tabs = "profile")
  app$wait_for_js("document.querySelector('#profile-risk').innerText.indexOf('by persons') >= 0",
                  timeout = 60 * 1000)
  app$wait_for_idle()
  prisk <- text_of(app, "#profile-risk")
  expect_match(prisk, "Prosecutor (maximum) risk, 1 / smallest class, by persons", fixed = TRUE)
  expect_match(prisk, "Population uniques on site, sex, birth", fixed = TRUE)
  expect_match(text_of(app, "#profile-sample-notes"), "every class counts persons", fixed = TRUE)
  expect_match(text_of(app, "#profile-classes"), "persons", fixed = TRUE)
  app$run_js("document.getElementById('profile-risk').scrollIntoView({block: 'start'});")
  keep_shot(app, "wb-persons-profile")
  # pick the scheme: the release tab opens (its download links are bound when shown)
  app$set_inputs(`profile-selected` = "rounding to 1 significant digit")
  app$wait_for_idle()
  app$click("profile-pick")
  app$wait_for_value(export = "picked", ignore = list(NULL), timeout = 20 * 1000)
  app$wait_for_idle()
  expect_match(text_of(app, "#release-message"), "of 600 persons (person column 'pid' dropped)",
               fixed = TRUE)
  keep_shot(app, "wb-persons-release")
  report <- app$get_download("release-download_report")
  html <- paste(readLines(report, warn = FALSE), collapse = "\n")
  expect_match(html, "600 persons (3609 records; person column", fixed = TRUE)
  expect_match(html, "Population uniques on site, sex, birth", fixed = TRUE)
})
