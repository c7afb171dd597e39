# The workbench: reading uploads (every bad file is a message, never an
# error), the statistics behind its screens (against direct calls and
# brute-force tabulations), the server logic through shiny::testServer(), and
# the app in a real browser (headless Chromium driven by shinytest2).
# Browser tests run when EPIMASK_BROWSER_TESTS=true (then a missing browser or
# shinytest2 is a failure) or when everything they need is installed.

# Chromium leaves its own temporary directories (org.chromium.Chromium.*)
# behind in TMPDIR; point the browsers started here (and the R processes that
# serve the app) at a directory inside this session's tempdir(), which R
# removes at exit, so R CMD check finds no detritus.
Sys.setenv(TMPDIR = local({
  d <- file.path(tempdir(), "browser-tmp")
  dir.create(d, showWarnings = FALSE)
  d
}))

write_bytes <- function(bytes, ext) {
  f <- tempfile(fileext = ext)
  writeBin(bytes, f)
  f
}

test_that("bad uploads become messages, never errors", {
  empty <- write_bytes(raw(), ".csv")
  latin1 <- write_bytes(c(charToRaw("name,age\nJos"), as.raw(0xe9), charToRaw(",34\n")), ".csv")
  binary <- write_bytes(as.raw(c(0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x10)), ".csv")
  not_rds <- write_bytes(charToRaw("a,b\n1,2\n"), ".rds")
  wrong_ext <- write_bytes(charToRaw("a,b\n1,2\n"), ".xlsx")
  list_rds <- tempfile(fileext = ".rds")
  saveRDS(list(a = 1), list_rds)
  header_only <- write_bytes(charToRaw("a,b\n"), ".csv")
  big <- write_bytes(charToRaw(strrep("1,2\n", 2e4)), ".csv")
  ragged <- write_bytes(charToRaw("a,b\n1,2,3,4\n\"unclosed\n"), ".csv")
  cases <- list(empty = list(empty, "empty"), latin1 = list(latin1, "not UTF-8"),
                binary = list(binary, "binary"), not_rds = list(not_rds, "not a readable RDS"),
                wrong_ext = list(wrong_ext, "neither a .csv nor an .rds file, nor a SAS"),
                list_rds = list(list_rds, "not a data frame"),
                header_only = list(header_only, "no records"), ragged = list(ragged, "."))
  for (nm in names(cases)) {
    res <- epimask:::read_workbench_upload(cases[[nm]][[1]], basename(cases[[nm]][[1]]))
    expect_null(res$data, label = nm)
    expect_identical(res$level, "error", label = nm)
    expect_match(res$message, cases[[nm]][[2]], fixed = TRUE, label = nm)
  }
  res <- epimask:::read_workbench_upload(big, "big.csv", max_mb = 0.05)
  expect_null(res$data)
  expect_match(res$message, "at most 0.05 MB", fixed = TRUE)
  res <- epimask:::read_workbench_upload(tempfile(), "gone.csv")
  expect_identical(res$level, "error")
})

test_that("good uploads are read with their types, a BOM and UTF-8 names intact", {
  csv <- write_bytes(c(as.raw(c(0xef, 0xbb, 0xbf)),
                       charToRaw(enc2utf8("city,dose,n\nK\u00f6ln,0.5,3\nBonn,1.25,4\n"))), ".csv")
  res <- epimask:::read_workbench_upload(csv, "cities.csv")
  expect_identical(res$level, "info")
  expect_identical(names(res$data), c("city", "dose", "n"))
  expect_identical(res$data$city, c("K\u00f6ln", "Bonn"))
  expect_equal(res$data$dose, c(0.5, 1.25))
  rds <- tempfile(fileext = ".rds")
  saveRDS(data.frame(a = 1:3, b = c("x", "y", "z")), rds)
  res <- epimask:::read_workbench_upload(rds, "d.rds")
  expect_equal(res$data, data.frame(a = 1:3, b = c("x", "y", "z")))
  words <- write_bytes(charToRaw("a,b\nx,y\n"), ".csv")
  res <- epimask:::read_workbench_upload(words, "w.csv")
  expect_identical(res$level, "warning")
  expect_match(res$message, "No column is numeric")
})

test_that("SAS, Stata and SPSS files are read through haven, labelled values as factors", {
  skip_if_not_installed("haven")
  d <- data.frame(id = 1:4, dose = c(0.5, 1.25, 0, 2),
                  sex = haven::labelled(c(1, 2, 2, 1), c(female = 1, male = 2)),
                  city = c("K\u00f6ln", "Bonn", "Bonn", "Essen"), stringsAsFactors = FALSE)
  attr(d$dose, "label") <- "dose in Gy"
  expected_sex <- factor(c("female", "male", "male", "female"), levels = c("female", "male"))
  writers <- list(dta = haven::write_dta, sav = haven::write_sav, xpt = haven::write_xpt)
  for (ext in names(writers)) {
    f <- tempfile(fileext = paste0(".", ext))
    writers[[ext]](d, f)
    res <- epimask:::read_workbench_upload(f, paste0("cohort.", ext))
    expect_identical(res$level, "info", label = ext)
    expect_identical(class(res$data), "data.frame", label = ext)
    expect_equal(res$data$dose, c(0.5, 1.25, 0, 2), label = ext)
    expect_null(attr(res$data$dose, "label"), label = ext)
    expect_equal(res$data$id, as.double(d$id), label = ext)
    if (ext == "xpt") {
      # SAS transport files carry no value labels: the codes stay numbers
      expect_equal(res$data$sex, c(1, 2, 2, 1))
    } else {
      expect_identical(res$data$sex, expected_sex, label = ext)
      expect_identical(res$data$city, d$city, label = ext)
    }
    expect_match(res$message, "4 records, 4 columns", label = ext)
  }
  # broken files: the same kind of message as a broken CSV, never an error
  text_as_sav <- write_bytes(charToRaw("a,b\n1,2\n"), ".sav")
  good <- tempfile(fileext = ".dta")
  haven::write_dta(d, good)
  truncated <- write_bytes(readBin(good, "raw", 40), ".dta")
  garbage <- write_bytes(as.raw(c(0x00, 0x01, 0xff, 0x10, 0x20)), ".sas7bdat")
  cases <- list(sav = list(text_as_sav, "could not be read as a SPSS file"),
                dta = list(truncated, "could not be read as a Stata file"),
                sas = list(garbage, "could not be read as a SAS file"))
  for (nm in names(cases)) {
    res <- epimask:::read_workbench_upload(cases[[nm]][[1]], basename(cases[[nm]][[1]]))
    expect_null(res$data, label = nm)
    expect_identical(res$level, "error", label = nm)
    expect_match(res$message, cases[[nm]][[2]], fixed = TRUE, label = nm)
  }
  empty <- write_bytes(raw(), ".dta")
  expect_match(epimask:::read_workbench_upload(empty, "e.dta")$message, "is empty")
})

test_that("the columns are described by counts only", {
  d <- data.frame(id = 1:5, age = c(31.5, 31.5, NA, 44.25, 50.75), sex = c("f", "m", "f", "f", NA))
  desc <- epimask:::describe_columns(d, list(identifier = "id", masked = "age"))
  expect_equal(desc$missing, c(0L, 1L, 1L))
  expect_equal(desc$distinct, c(5L, 4L, 3L))
  expect_identical(desc$role, c("identifier", "masked", "other"))
  expect_false(any(grepl("31.5|44.25|50.75", unlist(desc))))
})

test_that("the schemes, context and profile arguments follow the custodian's choices", {
  spec <- list(round_sig = c("1", "3"), round_dec = "2", noise = "0.5, 0.1", noise_dist = "normal")
  labels <- vapply(epimask:::workbench_schemes(spec), format, "")
  expect_identical(labels, c(format(mask_round(3)), format(mask_round(1)),
                             format(mask_round(2, "decimal")), format(mask_noise(0.1, dist = "normal")),
                             format(mask_noise(0.5, dist = "normal"))))
  expect_error(epimask:::workbench_schemes(list(noise = "a lot")), class = "epimask_workbench_input")
  expect_error(epimask:::workbench_schemes(list()), "at least one masking scheme")
  expect_error(epimask:::parse_amounts("-1", "Noise"), "positive numbers")

  dose <- load_epimask_data("dose_cohort")
  base <- list(identifiers = "id", vars = "dose", formula = "case ~ dose", family = "binomial",
               term = "dose", risk = "linkage", known = "dose", round_sig = "2",
               noise = "0.1", nrep = 2, seed = 3)
  args <- epimask:::workbench_profile_args(dose, base)
  expect_false("id" %in% names(args$data))
  # the default risk sees noise: no blind-risk warning
  expect_no_warning(ru_app <- do.call(ru_profile, args))
  schemes <- list(mask_round(2), mask_noise(0.1))
  ru_direct <- deprecated(ru_profile(dose[, -1], schemes, case ~ dose, family = binomial(),
                          vars = "dose", term = "dose",
                          risk = risk_spec("linkage", known = "dose"), nrep = 2, seed = 3,
                          progress = FALSE))
  expect_equal(as.data.frame(ru_app), as.data.frame(ru_direct))
  # the call written into the report reproduces the profile, for every risk offered
  # (on 2,000 records: the exhaustive matching risk is quadratic)
  small <- dose[1:2000, ]
  for (risk in unname(epimask:::workbench_risk_choices())) {
    # the attacks need two known variables (linkability joins two halves)
    spec <- modifyList(base, list(risk = risk, keys = c("city", "sex"),
                                  known = if (risk %in% epimask:::workbench_attack_risks())
                                    c("dose", "age_exp") else "dose", secret = "case"))
    ru_app <- suppressWarnings(do.call(ru_profile, epimask:::workbench_profile_args(small, spec)))
    call <- epimask:::workbench_profile_call(spec, "dose_cohort")
    ru_call <- suppressWarnings(eval(parse(text = call)[[1]], list(dose_cohort = small),
                                     asNamespace("epimask")))
    expect_equal(as.data.frame(ru_call), as.data.frame(ru_app), label = risk)
  }

  expect_error(epimask:::workbench_profile_args(dose, modifyList(base, list(vars = "sex"))),
               "Only numeric variables")
  expect_error(epimask:::workbench_profile_args(dose, modifyList(base, list(formula = "case ~ (dose"))),
               "cannot be read")
  expect_error(epimask:::workbench_profile_args(dose, modifyList(base, list(formula = "case ~ id"))),
               "not in the data")
  expect_error(epimask:::workbench_profile_args(dose, modifyList(base, list(known = NULL))),
               "needs the variables the intruder knows")
  expect_error(epimask:::workbench_context(list(threshold = 2)), class = "epimask_error")
})

test_that("the default risk measure sees noise: presets, the app's first choice", {
  choices <- epimask:::workbench_risk_choices()
  expect_identical(unname(choices[[1]]), "linkage")
  expect_identical(unname(tail(choices, 2)), c("identifiability", "none"))
  for (preset in epimask:::workbench_presets()) expect_identical(preset$risk, "linkage")
  upload <- data.frame(y = c(1.5, 2, 3), x = c(10, 20, 30))
  expect_identical(epimask:::workbench_preset("upload.csv", upload)$risk, "linkage")
  html <- as.character(epimask:::workbench_ui(NULL, "x"))
  expect_match(html, "<option value=\"linkage\" selected>", fixed = TRUE)
  # on the bundled cohort: 0.001 Gy of noise leaves about 8% of the 16,000
  # records re-linked (seeds 1 to 3: 0.078 to 0.081; binomial SE 0.002, so
  # 0.05 is over 10 SE below), less as the noise grows; exact matching scores
  # every amount as 0, safe by construction
  dose <- load_epimask_data("dose_cohort")[, -1]
  preset <- epimask:::workbench_presets()$dose_cohort
  spec <- epimask:::workbench_risk_args(preset, dose)$risk
  expect_identical(spec, linkage_risk("dose"))
  set.seed(3)
  noisy <- lapply(c(0.001, 0.01, 0.1), function(a) apply_mask(dose, mask_noise(a), "dose"))
  linkage <- vapply(noisy, function(m) risk_value(spec, dose, m), numeric(1))
  expect_gt(linkage[1], 0.05)
  expect_identical(order(linkage), 3:1)
  for (m in noisy) expect_identical(deprecated(risk_value("identifiability", dose, m, known = "dose")), 0)
})

test_that("the released data drop identifiers, mask, and leave the caller's RNG alone", {
  dose <- load_epimask_data("dose_cohort")
  set.seed(11)
  before <- .Random.seed
  a <- epimask:::release_data(dose, mask_noise(0.1), "dose", "id")
  b <- epimask:::release_data(dose, mask_noise(0.1), "dose", "id")
  expect_identical(.Random.seed, before)
  expect_identical(names(a), setdiff(names(dose), "id"))
  expect_true(all(abs(a$dose - dose$dose) <= 0.1 + 1e-12))
  expect_false(isTRUE(all.equal(a$dose, b$dose)))      # fresh, unrecorded seeds
  expect_identical(a[names(a) != "dose"], dose[names(a)[names(a) != "dose"]])
  r <- epimask:::release_data(dose, mask_round(1), "dose", "id")
  expect_equal(r$dose, signif(dose$dose, 1))
  expect_null(attr(r, "scheme"))
})

test_that("the R-U plot draws and reports where its points are", {
  dose <- load_epimask_data("dose_cohort")
  ru <- deprecated(ru_profile(dose[, -1], list(mask_round(2), mask_round(1)), case ~ dose,
                   family = binomial(), vars = "dose", risk = "identifiability",
                   known = "dose", seed = 1, progress = FALSE))
  f <- tempfile(fileext = ".png")
  grDevices::png(f, 600, 400)
  pts <- epimask:::workbench_ru_plot(ru, threshold = 0.2, selected = ru$scheme[2])
  grDevices::dev.off()
  expect_true(file.size(f) > 1000)
  # the panel of plot.ru_profile(): U across, risk up (safer upwards)
  pd <- epimask:::ru_panel_data(ru, "ru", budget = 0.2)
  expect_equal(pts$x, pmin(ru$analysis_potential, 1))
  expect_equal(pts$y, pd$data$y)
  expect_equal(pd$budget$value, 0.2)
  expect_true(all(pts$ndc_x > 0 & pts$ndc_x < 1 & pts$ndc_y > 0 & pts$ndc_y < 1))
  # a larger risk lies further down, a larger U further right
  expect_identical(order(pts$ndc_y), order(-ru$risk))
  expect_identical(order(pts$ndc_x), order(pts$x))
})

# ---- server logic without a browser ---------------------------------------------

workbench_inputs <- list(
  identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case", vars = "dose",
  formula = "case ~ dose", family = "binomial", term = "dose", risk = "linkage",
  known = "dose", round_sig = c("3", "1"), round_dec = character(), noise = "0.1",
  noise_dist = "uniform", nrep = 2, seed = 1, public = FALSE, pr_attempt = 0.3,
  pr_acquaintance = 0.5, pr_breach = 0.27, threshold = "0.2", reasons = "contract")

# The inputs of the steps, as the modules name them ("step-input").
ns_inputs <- function(x) {
  step <- c(identifiers = "variables", keys = "variables", sensitive = "variables",
            vars = "variables", formula = "variables", family = "variables", term = "variables",
            public = "context", pr_attempt = "context", pr_acquaintance = "context",
            pr_breach = "context", threshold = "context", reasons = "context",
            risk = "masking", known = "masking", round_sig = "masking", round_dec = "masking",
            noise = "masking", noise_dist = "masking", nrep = "masking", seed = "masking",
            run = "masking", cancel = "masking", source = "data", upload = "data",
            selected = "profile", pick = "profile")
  stats::setNames(x, paste(step[names(x)], names(x), sep = "-"))
}
set_wb <- function(session, ...) do.call(session$setInputs, ns_inputs(list(...)))

test_that("the server loads data, runs a profile and serves the release (no browser)", {
  local_sync_workbench()
  shiny::testServer(epimask:::workbench_server(NULL, "x"), {
    set_wb(session, source = "dose_cohort")
    expect_identical(loaded$name(), "dose_cohort")
    do.call(session$setInputs, ns_inputs(workbench_inputs))
    set_wb(session, run = 1)
    ru <- masking$result()$ru
    expect_s3_class(ru, "ru_profile")
    expect_identical(ru$scheme, c("no masking", "rounding to 3 significant digits",
                                  "rounding to 1 significant digit",
                                  "uniform noise, amount = 0.1"))
    set_wb(session, selected = "rounding to 1 significant digit")
    expect_match(output[["profile-risk"]], "Prosecutor")
    expect_match(output[["profile-risk"]], "deliberate attack")
    # the default risk sees the noise: no blind-risk note; a risk that does
    # not gets its warning to the custodian, not only to the console
    notes <- masking$result()$notes
    expect_false(any(grepl("cannot see", notes)))
    expect_gt(ru$risk[ru$scheme == "uniform noise, amount = 0.1"], 0)
    set_wb(session, risk = "identifiability", run = 2)
    expect_match(paste(masking$result()$notes, collapse = " "), "cannot see 'uniform noise")
    set_wb(session, risk = "linkage", run = 3)
    set_wb(session, selected = "rounding to 1 significant digit")
    # a selected scheme is no release: no download is offered until one is picked
    expect_null(profile$picked())
    expect_false(grepl("download_data", output[["release-downloads"]]$html %||% ""))
    expect_match(output[["release-status"]]$html, "No scheme picked yet")
    set_wb(session, pick = 1)
    expect_identical(profile$picked(), "rounding to 1 significant digit")
    expect_match(output[["release-downloads"]]$html, "release-download_data", fixed = TRUE)
    expect_match(output[["release-downloads"]]$html, "release-download_report", fixed = TRUE)
    path <- output[["release-download_data"]]
    got <- utils::read.csv(path)
    dose <- load_epimask_data("dose_cohort")
    expect_identical(names(got), setdiff(names(dose), "id"))
    expect_equal(got$dose, signif(dose$dose, 1))
    # a broken upload leaves the data in place and says so
    bad <- write_bytes(raw(), ".csv")
    set_wb(session, upload = list(datapath = bad, name = "broken.csv"))
    expect_identical(loaded$message()$level, "error")
    expect_match(loaded$message()$text, "empty.*still 'dose_cohort'")
    expect_identical(loaded$name(), "dose_cohort")
  })
})

test_that("an incomplete or public context gives messages and the profile still runs", {
  local_sync_workbench()
  shiny::testServer(epimask:::workbench_server(NULL, "x"), {
    set_wb(session, source = "dose_cohort")
    do.call(session$setInputs, ns_inputs(modifyList(workbench_inputs,
                                                    list(pr_attempt = NA, noise = ""))))
    expect_match(output[["context-text"]]$html, "pr_attempt")
    set_wb(session, run = 1)
    expect_s3_class(masking$result()$ru, "ru_profile")
    expect_identical(masking$message()$level, "warning")
    expect_match(masking$message()$text, "Release context incomplete")
    expect_equal(masking$result()$run$threshold, 0.2)
    # a public release: attack probabilities do not enter; a loose threshold is flagged
    set_wb(session, public = TRUE, pr_attempt = 0.3)
    ctx <- context$context()
    expect_s3_class(ctx, "release_context")
    expect_true(ctx$public)
    expect_match(output[["context-text"]]$html, "1/20")
  })
})

test_that("each step is a module that runs on its own", {
  local_sync_workbench()
  # the context step alone: its fields and the release_context() they make
  shiny::testServer(epimask:::wb_context_server, args = list(
    loaded = list(data = function() NULL), roles = function() list()), {
    session$setInputs(public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5, pr_breach = 0.27,
                      threshold = "0.05", reasons = "a\nb")
    expect_identical(fields()$reasons, c("a", "b"))
    expect_equal(context()$threshold, 0.05)
    expect_equal(context()$pr_attempt, 0.3)
  })
})

# The de-identification step at the console: dose_cohort's keys with the
# hierarchies the app proposes (numeric keys by interval widths of about 1/20,
# 1/10 and 1/5 of their range, one significant digit; the others flat).
# With `model`, the collaborator's model ranks the generalizations (the
# step's default when 2 Variables states one: dose_cohort's preset
# case ~ dose, logistic, term dose).
console_deidentify <- function(dose, ctx, model = NULL) {
  h <- list(city = hierarchy_flat(), sex = hierarchy_flat(),
            age_exp = hierarchy_numeric(c(4, 8, 20)),      # range 0-80 (rounded)
            dose = hierarchy_numeric(c(0.1, 0.3, 0.6)))
  stopifnot(diff(range(dose$age_exp)) > 70, diff(range(dose$age_exp)) < 90,
            diff(range(dose$dose)) > 2.5, diff(range(dose$dose)) < 3.5)
  deidentify(dose, c("city", "sex", "age_exp", "dose"), h, ctx, sensitive = "case",
             identifiers = "id", model = model)
}

dose_model <- function() analysis_loss(case ~ dose, binomial(), term = "dose")

# The de-identification module alone on the dose cohort: `roles()` as step 2
# gives them, the widths the app proposes, then `run` pressed.
deid_module_args <- function(dose, roles, ctx) {
  list(loaded = list(data = function() dose, name = function() "dose_cohort",
                     stamp = function() 1L),
       roles = function() roles, context = function() ctx)
}
deid_press_run <- function(session, run = 1) {
  session$setInputs(widths_age_exp = "4, 8, 20", widths_dose = "0.1, 0.3, 0.6",
                    max_suppress = 0.05, run = run)
}

test_that("the de-identification step proposes widths and builds the hierarchies", {
  expect_identical(epimask:::default_widths(c(0, 100)), "5, 10, 20")
  expect_identical(epimask:::default_widths(c(1.2, 7.2)), "0.3, 0.6, 1")
  expect_identical(epimask:::default_widths(c(3, 3)), "1")
  d <- data.frame(a = c(1, 50), b = c("x", "y"))
  h <- epimask:::workbench_hierarchies(d, c("a", "b"), list(a = "20, 5"))
  expect_equal(h$a, hierarchy_numeric(c(5, 20)))
  expect_equal(h$b, hierarchy_flat())
  expect_equal(epimask:::workbench_hierarchies(d, "a", list(a = ""))$a, hierarchy_numeric(c(2, 5, 10)))
  expect_error(epimask:::workbench_hierarchies(d, "a", list(a = "5, x")), "interval widths of a")
})

test_that("the de-identification module runs deidentify() and shows its certificate", {
  local_sync_workbench()
  dose <- load_epimask_data("dose_cohort")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  ref <- console_deidentify(dose, ctx)
  # the certificate is risk_release() recounted on the release, on every key
  # it counts (the keys and the columns the column review flags, issue 36)
  rr <- risk_release(ref$data, ref$keys, ctx)
  expect_equal(max(ref$certificate$risk), rr$overall)
  roles <- list(identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case")
  shiny::testServer(epimask:::wb_deidentify_server, args = list(
    loaded = list(data = function() dose, name = function() "dose_cohort", stamp = function() 1L),
    roles = function() roles, context = function() ctx), {
    session$setInputs(widths_age_exp = "4, 8, 20", widths_dose = "0.1, 0.3, 0.6",
                      max_suppress = 0.05, run = 1)
    res <- rv$result
    expect_s3_class(res, "epimask_release")
    expect_identical(res$data, ref$data)
    expect_equal(res$certificate, ref$certificate)
    expect_true(res$pass)
    expect_false("id" %in% names(res$data))
    expect_match(output$verdict$html, "passes every attack of the context")
    expect_match(output$verdict$html, "against the threshold 0.2")
    for (a in c("deliberate", "inadvertent", "breach", "Pr(re-identification | attack)",
                "Risk = Pr(attack) x Pr(re-id | attack)", "suppress locally"))
      expect_match(paste(output$certificate, output$steps), a, fixed = TRUE, label = a)
    expect_match(output$status$html, "16000 of 16000 records released")
    got <- utils::read.csv(output$download_data, stringsAsFactors = FALSE)
    expect_identical(names(got), names(ref$data))
    expect_identical(nrow(got), nrow(ref$data))
    expect_identical(got$sex, as.character(ref$data$sex))
    expect_type(output$risk_plot$src, "character")
    if (rmarkdown::pandoc_available()) {
      html <- paste(readLines(output$download_report, warn = FALSE), collapse = "\n")
      expect_match(html, "deliberate")
      expect_match(html, "inadvertent")
    }
  })
  # without a context or without keys: a message, no result
  shiny::testServer(epimask:::wb_deidentify_server, args = list(
    loaded = list(data = function() dose, name = function() "d", stamp = function() 1L),
    roles = function() roles, context = function() simpleError("pr_attempt is missing")), {
    session$setInputs(run = 1)
    expect_null(rv$result)
    expect_identical(rv$msg$level, "error")
    expect_match(rv$msg$text, "3 Context.*pr_attempt is missing")
  })
  shiny::testServer(epimask:::wb_deidentify_server, args = list(
    loaded = list(data = function() dose, name = function() "d", stamp = function() 1L),
    roles = function() list(identifiers = "id"), context = function() ctx), {
    session$setInputs(run = 1)
    expect_null(rv$result)
    expect_match(rv$msg$text, "quasi-identifiers on 2 Variables")
  })
  # a release that fails an attack is never shown as passing
  bad <- ref
  bad$certificate$pass[2] <- FALSE
  bad$pass <- FALSE
  v <- epimask:::certificate_verdict(bad)
  expect_match(v, "FAILS the context")
  expect_match(v, "Failing: inadvertent.", fixed = TRUE)
  expect_identical(epimask:::certificate_display(bad$certificate)$Verdict,
                   c("pass", "FAIL", "pass"))
})

test_that("the de-identification step ranks by the collaborator's model when there is one", {
  dose <- load_epimask_data("dose_cohort")
  roles <- list(identifiers = "id", formula = "case ~ dose", family = "binomial", term = "dose")
  m <- epimask:::workbench_analysis_loss(roles, dose)
  expect_equal(m, analysis_loss(case ~ dose, "binomial", "dose"), ignore_formula_env = TRUE)
  expect_identical(unname(epimask:::deidentify_metric_choices(m)), c("analysis", "entropy"))
  expect_match(names(epimask:::deidentify_metric_choices(m))[1], "'dose' in case ~ dose")
  # no model, the ERR model (not a GLM), a column the release drops: entropy only, with the reason
  for (bad in list(list(formula = ""), list(formula = "case ~ dose", family = "err"),
                   list(formula = "case ~ id", family = "binomial", identifiers = "id"),
                   list(formula = "case ~ nosuch", family = "binomial"),
                   list(formula = "case ~ (", family = "binomial"))) {
    m <- epimask:::workbench_analysis_loss(bad, dose)
    expect_true(epimask:::failed(m))
    expect_identical(unname(epimask:::deidentify_metric_choices(m)), "entropy")
  }
  expect_match(conditionMessage(epimask:::workbench_analysis_loss(
    list(formula = "case ~ dose", family = "err"), dose)), "not a GLM")
  expect_match(conditionMessage(epimask:::workbench_analysis_loss(
    list(formula = "case ~ id", family = "binomial", identifiers = "id"), dose)), "id")
})

test_that("the de-identification module passes the model to deidentify(), entropy on request", {
  local_sync_workbench()
  dose <- load_epimask_data("dose_cohort")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  by_model <- console_deidentify(dose, ctx, model = dose_model())
  by_entropy <- console_deidentify(dose, ctx)
  # the two rankings choose different releases here: the model (case ~ dose)
  # keeps dose fine and coarsens age at exposure, which it does not use
  expect_false(identical(by_model$generalization$levels, by_entropy$generalization$levels))
  roles <- list(identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case",
                formula = "case ~ dose", family = "binomial", term = "dose")
  shiny::testServer(epimask:::wb_deidentify_server, args = deid_module_args(dose, roles, ctx), {
    deid_press_run(session)
    res <- rv$result
    expect_identical(res$data, by_model$data)
    expect_equal(res$steps, by_model$steps)
    expect_equal(res$certificate, by_model$certificate)
    expect_match(output$status$html, "ranked by the collaborator&#39;s model|ranked by the collaborator's model")
    expect_match(output$model_steps, "U (analysis potential)", fixed = TRUE)
    expect_match(output$model_steps, "Estimate of dose", fixed = TRUE)
    # the table shows the steps' U (4 significant digits)
    for (u in epimask:::format_num(by_model$steps$analysis_potential, 4, integers = TRUE))
      expect_match(output$model_steps, u, fixed = TRUE)
    expect_match(output$metric_ui$html, "checked=\"checked\"[^>]*value=\"analysis\"|value=\"analysis\"[^>]*checked")
    # the call the report records reproduces the release at the console
    again <- eval(rv$call, list(data = dose))
    expect_identical(again$data, res$data)
    expect_equal(again$steps, res$steps)
    expect_match(paste(deparse(rv$call), collapse = " "), "analysis_loss(case ~ dose", fixed = TRUE)
    if (rmarkdown::pandoc_available()) {
      html <- paste(readLines(output$download_report, warn = FALSE), collapse = "\n")
      expect_match(html, "The generalizations were ranked by the collaborator", fixed = TRUE)
      expect_match(html, "hierarchy_numeric(c(4, 8, 20))", fixed = TRUE)
    }
    session$setInputs(metric = "entropy", run = 2)
    res <- rv$result
    expect_identical(res$data, by_entropy$data)
    expect_equal(res$certificate, by_entropy$certificate)
    expect_null(res$model)
    expect_match(output$status$html, "ranked by the entropy metric")
    expect_error(output$model_steps)
  })
  # ERR: the model cannot rank; entropy, and the step says why
  shiny::testServer(epimask:::wb_deidentify_server,
                    args = deid_module_args(dose, modifyList(roles, list(family = "err")), ctx), {
    deid_press_run(session)
    expect_identical(rv$result$data, by_entropy$data)
    expect_match(output$metric_ui$html, "not a GLM")
    expect_false(grepl("value=\"analysis\"", output$metric_ui$html))
  })
})

test_that("the whole server offers the de-identification step after steps 1-3", {
  local_sync_workbench()
  shiny::testServer(epimask:::workbench_server(NULL, "x"), {
    set_wb(session, source = "dose_cohort")
    do.call(session$setInputs, ns_inputs(workbench_inputs))
    session$setInputs(`deidentify-max_suppress` = 0.05, `deidentify-run` = 1)
    res <- deid$result()
    expect_s3_class(res, "epimask_release")
    dose <- load_epimask_data("dose_cohort")
    # step 2's model (case ~ dose, logistic, term dose) ranks the generalizations
    ref <- console_deidentify(dose, context$context(), model = dose_model())
    expect_identical(res$data, ref$data)
    expect_equal(res$certificate, ref$certificate)
    expect_equal(res$steps, ref$steps)
  })
})

# ---- in a real browser ------------------------------------------------------------

new_workbench_driver <- function() {
  shinytest2::AppDriver$new(system.file("workbench", package = "epimask"),
                            name = "workbench", width = 1300, height = 950,
                            load_timeout = 90 * 1000, timeout = 60 * 1000,
                            seed = 1)
}


workbench_input_ids <- c("data-source", "data-upload", "variables-identifiers", "variables-keys",
                         "variables-sensitive", "variables-vars", "variables-formula",
                         "variables-family", "variables-term", "context-public",
                         "context-pr_attempt", "context-pr_acquaintance", "context-pr_breach",
                         "context-threshold", "context-reasons", "masking-round_sig",
                         "masking-round_dec", "masking-noise", "masking-risk", "masking-known",
                         "masking-nrep", "masking-seed", "masking-run", "masking-cancel",
                         "profile-selected", "profile-pick", "deidentify-max_suppress",
                         "deidentify-run", "variables-person", "context-sample_pi", "context-sample_population",
                         "context-sample_measures", "context-cluster")

# The downloads of the Release and De-identify steps, on the page only once
# a release exists.
download_ids <- c("release-download_data", "release-download_report",
                  "deidentify-download_data", "deidentify-download_report")

test_that("the page carries every step's controls (no browser)", {
  skip_if_not_installed("shiny")
  skip_if_not_installed("bslib")
  html <- as.character(epimask:::workbench_ui(NULL, "x"))
  for (id in workbench_input_ids) expect_match(html, sprintf("id=\"%s\"", id), label = id)
  # no download is offered before there is a release: only the places for them
  for (id in download_ids) expect_no_match(html, sprintf("id=\"%s\"", id), label = id)
  for (id in c("release-downloads", "deidentify-downloads"))
    expect_match(html, sprintf("id=\"%s\"", id), label = id)
  expect_error(run_workbench(data.frame()), class = "epimask_error")
})

# Chromium alone (no shinytest2): the app, started in another R process, is
# drawn by headless Chromium with its controls bound by Shiny's JavaScript.
test_that("in Chromium: the app renders with its input controls", {
  chrome <- find_chromium()
  if (!nzchar(chrome) || !requireNamespace("processx", quietly = TRUE) ||
      !requireNamespace("shiny", quietly = TRUE) || !requireNamespace("bslib", quietly = TRUE)) {
    if (browser_tests_required()) stop("Chromium, processx, shiny and bslib are needed (EPIMASK_BROWSER_TESTS=true).")
    skip("Chromium, processx, shiny or bslib missing")
  }
  if (!browser_tests_required()) skip_on_cran()
  port <- sample(20000:40000, 1L)
  app <- processx::process$new(
    file.path(R.home("bin"), "Rscript"),
    c("-e", sprintf("shiny::runApp('%s', port = %d, launch.browser = FALSE)",
                    system.file("workbench", package = "epimask"), port)),
    env = c("current", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep)),
    stdout = "|", stderr = "|", cleanup = TRUE)
  on.exit(app$kill(), add = TRUE)
  url <- sprintf("http://127.0.0.1:%d", port)
  up <- FALSE
  for (i in 1:240) {
    page <- tempfile()
    got <- tryCatch(suppressWarnings(utils::download.file(url, page, quiet = TRUE)),
                    error = function(e) 1L)
    up <- identical(got, 0L) && file.exists(page) && file.size(page) > 0
    if (up || !app$is_alive()) break
    Sys.sleep(0.5)
  }
  if (!up) {
    if (app$is_alive()) app$kill()
    fail(paste("The app did not start:", paste(app$read_all_error_lines(), collapse = " ")))
    return()
  }
  flags <- c("--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--window-size=1300,950",
             if (identical(unname(Sys.info()[["effective_user"]]), "root")) "--no-sandbox")
  dom <- processx::run(chrome, c(flags, "--virtual-time-budget=15000", "--dump-dom", url),
                       timeout = 120, error_on_status = FALSE)$stdout
  for (id in workbench_input_ids) expect_match(dom, sprintf("id=\"%s\"", id), label = id)
  expect_match(dom, "shiny-bound-input")            # Shiny's JavaScript ran and bound them
  shot <- tempfile(fileext = ".png")
  processx::run(chrome, c(flags, "--virtual-time-budget=15000", paste0("--screenshot=", shot), url),
                timeout = 120, error_on_status = FALSE)
  expect_true(file.exists(shot) && file.size(shot) > 5000)
})

test_that("in Chromium: load data, run a profile in the background, click the plot, download", {
  local_browser()
  app <- new_workbench_driver()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns table') !== null", timeout = 60 * 1000)
  expect_match(text_of(app, "#data-message"), "dose_cohort': 16000 records")
  # the roles proposed for dose_cohort reach the column table
  app$wait_for_js("document.querySelector('#data-columns').innerText.indexOf('quasi-identifier') >= 0",
                  timeout = 30 * 1000)
  expect_match(text_of(app, "#data-columns"), "id\tidentifier")
  # every step's controls are on the page, and no download before a release
  for (id in workbench_input_ids)
    expect_true(app$get_js(sprintf("document.getElementById('%s') !== null", id)), label = id)
  for (id in download_ids)
    expect_true(app$get_js(sprintf("document.getElementById('%s') === null", id)), label = id)
  app$set_inputs(tabs = "release")
  app$wait_for_js("document.querySelector('#release-status').innerText.indexOf('No scheme picked yet') >= 0",
                  timeout = 30 * 1000)
  expect_equal(app$get_js("document.querySelectorAll('#release-downloads a').length"), 0)
  app$set_inputs(tabs = "masking")
  app$set_inputs(`masking-round_sig` = c("3", "1"), `masking-noise` = "0.1", `masking-nrep` = 2,
                 `context-pr_attempt` = 0.3, `context-pr_acquaintance` = 0.5,
                 `context-reasons` = "contract with audit")
  app$click("masking-run")
  app$wait_for_value(export = "profile", ignore = list(NULL), timeout = 90 * 1000)
  vals <- app$get_values(export = TRUE)$export
  expect_true(vals$async)                       # it ran off the app's thread
  prof <- vals$profile
  expect_identical(prof$scheme, c("no masking", "rounding to 3 significant digits",
                                  "rounding to 1 significant digit", "uniform noise, amount = 0.1"))
  dose <- load_epimask_data("dose_cohort")
  # the same profile at the console, with the app's default risk (it sees noise)
  expect_no_warning(
    ru <- deprecated(ru_profile(dose[, -1], list(mask_round(3), mask_round(1), mask_noise(0.1)), case ~ dose,
                     family = binomial(), vars = "dose", term = "dose",
                     risk = risk_spec("linkage", known = "dose"), nrep = 2, seed = 1,
                     progress = FALSE)))
  expect_equal(prof$estimate, ru$estimate)
  expect_equal(prof$risk, ru$risk)
  expect_gt(prof$risk[4], 0)
  expect_match(text_of(app, "#run-message"), "Profile done: 4 schemes")
  expect_no_match(text_of(app, "#masking-status"), "cannot see")

  app$set_inputs(tabs = "profile")
  app$wait_for_js("document.querySelector('#profile-ru_plot img') !== null", timeout = 30 * 1000)
  app$wait_for_value(export = "plot_points", ignore = list(NULL), timeout = 30 * 1000)
  expect_match(text_of(app, "#profile-schemes"), "rounding to 1 significant digit")
  # click the point of "rounding to 3 significant digits" with the mouse
  pts <- app$get_values(export = TRUE)$export$plot_points
  target <- "rounding to 3 significant digits"
  i <- match(target, pts$scheme)
  app$run_js("document.getElementById('profile-ru_plot').scrollIntoView({block: 'center'});")
  rect <- app$get_js("(function(){var r=document.querySelector('#profile-ru_plot img').getBoundingClientRect();return [r.left, r.top, r.width, r.height];})()")
  rect <- unlist(rect)
  x <- rect[1] + pts$ndc_x[i] * rect[3]
  y <- rect[2] + (1 - pts$ndc_y[i]) * rect[4]
  cdp <- app$get_chromote_session()
  cdp$Input$dispatchMouseEvent(type = "mousePressed", x = x, y = y, button = "left", clickCount = 1)
  cdp$Input$dispatchMouseEvent(type = "mouseReleased", x = x, y = y, button = "left", clickCount = 1)
  app$wait_for_value(input = "profile-selected", ignore = list(NULL, "", "uniform noise, amount = 0.1",
                                                       "rounding to 1 significant digit",
                                                       "no masking"), timeout = 20 * 1000)
  expect_identical(app$get_value(input = "profile-selected"), target)
  app$wait_for_idle()
  expect_match(text_of(app, "#profile-estimate"), "95% CI lower")
  expect_match(text_of(app, "#profile-risk"), "Prosecutor")
  shot <- tempfile(fileext = ".png")
  app$get_screenshot(shot)
  expect_true(file.size(shot) > 10000)
  figure <- Sys.getenv("EPIMASK_WORKBENCH_SCREENSHOT")
  if (nzchar(figure)) file.copy(shot, figure, overwrite = TRUE)

  # pick the scheme; download the masked data and the report
  # selected, not picked: still no download
  expect_true(app$get_js("document.getElementById('release-download_data') === null"))
  app$set_inputs(`profile-selected` = "rounding to 1 significant digit")
  app$click("profile-pick")
  app$wait_for_value(export = "picked", ignore = list(NULL), timeout = 20 * 1000)
  app$set_inputs(tabs = "release")
  app$wait_for_js("document.getElementById('release-download_data') !== null", timeout = 30 * 1000)
  app$wait_for_idle()
  expect_equal(app$get_js("document.querySelectorAll('#release-downloads a').length"), 2)
  csv <- tryCatch(app$get_download("release-download_data"), error = function(e) {
    logs <- as.data.frame(app$get_logs())
    stop(conditionMessage(e), "\napp log:\n", paste(utils::tail(logs$message, 30), collapse = "\n"))
  })
  got <- utils::read.csv(csv)
  expect_identical(names(got), setdiff(names(dose), "id"))
  expect_equal(got$dose, signif(dose$dose, 1))
  expect_equal(got$age_exp, dose$age_exp)
  report <- app$get_download("release-download_report")
  html <- paste(readLines(report, warn = FALSE), collapse = "\n")
  expect_match(html, "Chosen for release: rounding to 1 significant digit", fixed = TRUE)
  expect_match(html, "contract with audit", fixed = TRUE)
})

test_that("in Chromium: a broken upload shows a message and the app keeps working", {
  local_browser()
  app <- new_workbench_driver()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns table') !== null", timeout = 60 * 1000)
  bad <- write_bytes(c(charToRaw("name,age\nJos"), as.raw(0xe9), charToRaw(",34\n")), ".csv")
  app$upload_file(`data-upload` = bad)
  app$wait_for_js("document.querySelector('#data-message.wb-error') !== null", timeout = 30 * 1000)
  expect_match(text_of(app, "#data-message"), "not UTF-8 encoded")
  expect_match(text_of(app, "#data-message"), "still 'dose_cohort'")
  # not a grey screen: the session is still connected
  expect_null(app$get_js("document.getElementById('shiny-disconnected-overlay')"))
  good <- tempfile(fileext = ".csv")
  utils::write.csv(data.frame(y = c(1.5, 2.25, 3.75, 4.5), x = c(10, 20, 30, 40)), good, row.names = FALSE)
  app$upload_file(`data-upload` = good)
  app$wait_for_js("document.querySelector('#data-message.wb-info') !== null", timeout = 30 * 1000)
  expect_match(text_of(app, "#data-message"), "4 records, 2 columns")
  expect_null(app$get_js("document.getElementById('shiny-disconnected-overlay')"))
})

test_that("in Chromium: de-identify to the context, read the certificate, download", {
  local_browser()
  app <- new_workbench_driver()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns table') !== null", timeout = 60 * 1000)
  app$wait_for_js("document.querySelector('#data-columns').innerText.indexOf('quasi-identifier') >= 0",
                  timeout = 30 * 1000)
  app$set_inputs(`context-pr_attempt` = 0.3, `context-pr_acquaintance` = 0.5)
  app$set_inputs(tabs = "deidentify")
  # the numeric keys get interval widths proposed from their range
  app$wait_for_js("document.getElementById('deidentify-widths_dose') !== null", timeout = 30 * 1000)
  expect_identical(app$get_value(input = "deidentify-widths_age_exp"), "4, 8, 20")
  expect_identical(app$get_value(input = "deidentify-widths_dose"), "0.1, 0.3, 0.6")
  # no download before the release exists
  expect_true(app$get_js("document.getElementById('deidentify-download_data') === null"))
  app$click("deidentify-run")
  app$wait_for_js("document.getElementById('deidentify-verdict-message') !== null",
                  timeout = 60 * 1000)
  app$wait_for_js("document.getElementById('deidentify-download_data') !== null", timeout = 30 * 1000)
  app$wait_for_js("document.querySelector('#deidentify-risk_plot img') !== null", timeout = 30 * 1000)
  dose <- load_epimask_data("dose_cohort")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, pr_breach = 0.27,
                         threshold = 0.2)
  ref <- console_deidentify(dose, ctx, model = dose_model())
  expect_identical(app$get_value(input = "deidentify-metric"), "analysis")
  expect_match(text_of(app, "#deidentify-metric_ui"), "The collaborator's model", fixed = TRUE)
  expect_match(text_of(app, "#deidentify-status"), "ranked by the collaborator's model",
               fixed = TRUE)
  verdict <- text_of(app, "#deidentify-verdict-message")
  expect_match(verdict, "passes every attack of the context")
  expect_match(verdict, sprintf("Overall risk %s", epimask:::format_num(ref$overall_risk, 3)),
               fixed = TRUE)
  cert <- text_of(app, "#deidentify-certificate")
  for (a in c("deliberate", "inadvertent", "breach", "Pr(re-identification | attack)", "Threshold"))
    expect_match(cert, a, fixed = TRUE, label = a)
  expect_match(text_of(app, "#deidentify-steps"), "suppress locally")
  expect_match(text_of(app, "#deidentify-model_steps"), "U (analysis potential)", fixed = TRUE)
  shot <- tempfile(fileext = ".png")
  app$get_screenshot(shot)
  expect_true(file.size(shot) > 10000)
  figure <- Sys.getenv("EPIMASK_DEIDENTIFY_SCREENSHOT")
  if (nzchar(figure)) file.copy(shot, figure, overwrite = TRUE)
  csv <- app$get_download("deidentify-download_data")
  got <- utils::read.csv(csv, stringsAsFactors = FALSE)
  expect_identical(names(got), names(ref$data))
  expect_identical(nrow(got), nrow(ref$data))
  expect_identical(got$city, as.character(ref$data$city))
  report <- app$get_download("deidentify-download_report")
  html <- paste(readLines(report, warn = FALSE), collapse = "\n")
  expect_match(html, "inadvertent", fixed = TRUE)
  expect_match(html, "The generalizations were ranked by the collaborator", fixed = TRUE)
})
