# The workbench of round 4 (issues 36 item 6, 38 item 5, 39 item 4, 40 item
# 6): risk criteria instead of the deprecated risk_spec(); synthesis schemes
# and the Article 29 attacks on the profile; the column review and the
# custodian's declarations on 6 De-identify and 7 Release; a failing release
# hands no data over; the Table step. The server runs in this R process
# (shiny::testServer(), local_sync_workbench()); the references are the
# package's verbs called directly and plain-R recounts (tabulations by
# table(), replicated uniques by counting key strings). Two tests drive the
# app in headless Chromium (EPIMASK_BROWSER_TESTS=true).

Sys.setenv(TMPDIR = local({
  d <- file.path(tempdir(), "browser-tmp")
  dir.create(d, showWarnings = FALSE)
  d
}))

# Every warning `expr` signals, kept (and muffled) for the test to inspect.
collect_all_warnings <- function(expr) {
  got <- list()
  withCallingHandlers(expr, warning = function(w) {
    got[[length(got) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  got
}
is_deprecation <- function(w) {
  inherits(w, "epimask_warning_deprecated") || grepl("deprecated", conditionMessage(w), ignore.case = TRUE)
}

# The steps' inputs for dose_cohort (3,000 records: the attacks and the
# syntheses stay fast), as the modules name them.
round4_inputs <- function(...) {
  utils::modifyList(list(
    `variables-identifiers` = "id", `variables-keys` = c("city", "sex", "age_exp", "dose"),
    `variables-sensitive` = "case", `variables-vars` = "dose", `variables-formula` = "case ~ dose",
    `variables-family` = "binomial", `variables-term` = "dose", `variables-person` = "",
    `context-public` = FALSE, `context-pr_attempt` = 0.3, `context-pr_acquaintance` = 0.5,
    `context-pr_breach` = 0.27, `context-threshold` = "0.2", `context-reasons` = "contract",
    `masking-risk` = "linkage", `masking-known` = "dose", `masking-secret` = "case",
    `masking-round_sig` = "1", `masking-round_dec` = character(), `masking-noise` = "0.1",
    `masking-noise_dist` = "uniform", `masking-synth_methods` = character(), `masking-synth_m` = 2,
    `masking-synth_holdout` = 0.5, `masking-nrep` = 1, `masking-seed` = 1), list(...))
}
dose3k <- function() as.data.frame(load_epimask_data("dose_cohort"))[1:3000, ]

test_that("every risk measure of the app is a criterion: no risk_spec() deprecation", {
  d <- dose3k()[, -1]
  base <- list(identifiers = character(), keys = c("city", "sex"), sensitive = "case",
               known = c("sex", "city", "age_exp"), secret = "case", seed = 4, vars = "dose")
  expected <- list(
    linkage = linkage_risk(c("sex", "city", "age_exp")),
    identifiability = identifiability(c("sex", "city", "age_exp")),
    match = match_risk(c("sex", "city", "age_exp")),
    kanon = avg_risk(NA, strict = TRUE, keys = c("city", "sex")),
    article29 = article29_attacks(NA, aux = c("sex", "city", "age_exp"), secret = "case",
                                  n_attacks = 500, seed = 4),
    singling_out = singling_out(NA, n_attacks = 500, columns = c("sex", "city", "age_exp", "case"),
                                seed = 4),
    linkability = linkability(NA, aux = list(c("sex", "city"), "age_exp"), n_attacks = 500, seed = 4),
    inference = inference(NA, aux = c("sex", "city", "age_exp"), secret = "case", n_attacks = 500,
                          seed = 4))
  for (risk in setdiff(unname(epimask:::workbench_risk_choices()), "none")) {
    spec <- modifyList(base, list(risk = risk))
    got <- collect_all_warnings(crit <- epimask:::workbench_risk_args(spec, d)$risk)
    expect_length(got, 0)
    expect_equal(crit, expected[[risk]], label = risk)
    # the console call recorded in the report makes the same criterion, also
    # without a deprecation
    call <- epimask:::workbench_profile_call(modifyList(spec, list(formula = "case ~ dose",
                                                                   family = "binomial")))
    expect_no_match(call, "risk_spec", fixed = TRUE)
    risk_text <- sub(",\n  nrep.*$", "", sub("^.*\n  vars = \"dose\", ", "", call))
    expect_equal(eval(parse(text = sub("^risk = ", "", risk_text))[[1]], asNamespace("epimask")),
                 expected[[risk]], label = paste("call of", risk))
  }
  expect_null(epimask:::workbench_risk_args(list(risk = "none"), d)$risk)
  # the report's criterion and the sample rows' criteria
  expect_equal(epimask:::workbench_report_risk(base),
               l_diversity(NA, "case", measure = "entropy", keys = c("city", "sex")))
  specs <- epimask:::workbench_sample_specs(modifyList(base, list(
    sample_measures = c("population", "loglinear"), sample_pi = 0.1, cluster = "age_end")), d)
  expect_equal(specs, list(uniqueness(NA, population_model(0.1), keys = c("city", "sex")),
                           loglinear_risk(NA, pi = 0.1, keys = c("city", "sex")),
                           cluster_risk(NA, "age_end", keys = c("city", "sex"))))
  # an attack needs what it attacks with, said by name
  expect_error(epimask:::workbench_risk_args(modifyList(base, list(risk = "linkability", known = "dose")), d),
               "at least two variables the intruder knows")
  expect_error(epimask:::workbench_risk_args(modifyList(base, list(risk = "inference", secret = "sex")), d),
               "The secret 'sex' is also a variable the intruder knows")
})

test_that("the whole app runs every step without a deprecation warning", {
  local_sync_workbench()
  got <- collect_all_warnings(shiny::testServer(epimask:::workbench_server(dose3k(), "dose3k"), {
    session$setInputs(`data-source` = "passed")
    do.call(session$setInputs, round4_inputs())
    session$setInputs(`masking-run` = 1)
    expect_s3_class(masking$result()$ru, "ru_profile")
    for (s in masking$result()$ru$scheme) {
      session$setInputs(`profile-selected` = s)
      expect_type(output[["profile-risk"]], "character")
      expect_type(output[["profile-verdict"]]$html, "character")
    }
    session$setInputs(`profile-pick` = 1)
    expect_type(output[["release-download_data"]], "character")
    session$setInputs(`deidentify-widths_age_exp` = "4, 8, 20", `deidentify-widths_dose` = "0.1, 0.3, 0.6",
                      `deidentify-max_suppress` = 0.05, `deidentify-metric` = "entropy",
                      `deidentify-run` = 1)
    expect_s3_class(deid$result(), "epimask_release")
    if (rmarkdown::pandoc_available()) {
      expect_true(file.size(output[["release-download_report"]]) > 1000)
      expect_true(file.size(output[["deidentify-download_report"]]) > 1000)
    }
  }))
  deprecations <- Filter(is_deprecation, got)
  expect_length(deprecations, 0)
})

# Replicated uniques by hand: the original records the copies were made
# from (the hold-out left out) that are unique on the keys and whose key
# combination some copy holds exactly once, as a share of those records.
hand_replicated_uniques <- function(original, syn, keys) {
  held <- holdout_rows(syn)
  orig <- if (length(held)) original[-held, , drop = FALSE] else original
  key_of <- function(d) do.call(paste, c(lapply(d[keys], as.character), sep = "\r"))
  ko <- key_of(orig)
  unique_orig <- ko %in% names(which(table(ko) == 1))
  replicated <- rep(FALSE, length(ko))
  for (copy in epimask:::synthetic_copies(syn)) {
    kc <- table(key_of(as.data.frame(copy)))
    replicated <- replicated | (unique_orig & ko %in% names(kc)[kc == 1])
  }
  sum(replicated) / length(ko)
}

test_that("synthesis schemes join the profile with real verdicts and the Article 29 rows", {
  local_sync_workbench()
  d <- dose3k()
  keys <- c("city", "sex", "age_exp", "dose")
  aux <- c("sex", "city", "age_exp")
  shiny::testServer(epimask:::workbench_server(d, "dose3k"), {
    session$setInputs(`data-source` = "passed")
    do.call(session$setInputs, round4_inputs(`masking-risk` = "article29", `masking-known` = aux,
                                             `masking-synth_methods` = c("cart", "parametric")))
    session$setInputs(`masking-run` = 1)
    ru <- masking$result()$ru
    synth <- grep("^synthesis", ru$scheme, value = TRUE)
    expect_length(synth, 2)
    expect_match(synth[1], "CART.*m = 2, holdout 0.5")
    expect_match(synth[2], "parametric.*m = 2, holdout 0.5")
    # the three attacks are the profile's risks
    expect_true(all(c("risk_linkability", "risk_inference") %in% names(as.data.frame(ru))))
    crit <- article29_attacks(NA, aux = aux, secret = "case", n_attacks = 500, seed = 1)
    console <- as.data.frame(ru_profile(d[, -1], list(mask_round(1), mask_noise(0.1),
                                                      mask_synth("cart", m = 2, holdout = 0.5),
                                                      mask_synth("parametric", m = 2, holdout = 0.5)),
                                        case ~ dose, binomial(), vars = "dose", term = "dose",
                                        risk = crit, nrep = 1, seed = 1, progress = FALSE))
    expect_identical(console$scheme, ru$scheme)
    for (s in synth) {
      session$setInputs(`profile-selected` = s)
      syn <- profile$masked()
      expect_true(epimask:::is_synthetic(syn))
      verdict <- output[["profile-verdict"]]$html
      expect_no_match(verdict, "NA (", fixed = TRUE)
      expect_match(verdict, "(synthetic copies)", fixed = TRUE)
      # the verdict's replicated uniques, recounted by hand on the copies
      rep_u <- hand_replicated_uniques(d[, -1], syn, keys)
      expect_match(verdict, sprintf("Replicated uniques on city, sex, age_exp, dose (share of original records) %s (%s)",
                                    epimask:::format_num(rep_u, 2), if (rep_u <= 0.2) "within" else "OVER"),
                   fixed = TRUE)
      v <- epimask:::release_verdict(syn, keys, context$context(), ru$risk[ru$scheme == s],
                                     "singling out", 0.2, original = d[, -1])
      expect_equal(v$release_risk, rep_u)
      expect_identical(v$pass, all(c(ru$risk[ru$scheme == s], rep_u) <= 0.2))
      risk <- output[["profile-risk"]]
      # k-anonymity of synthetic copies: the reason, not a number
      expect_match(risk, "does not apply: k-anonymity counts classes of released records", fixed = TRUE)
      for (a in c("singling out", "linkability", "inference"))
        expect_match(risk, paste("Profile risk:", a), label = a)
      # the attacks' rows: the profile's copies judged, as ru_profile() at the console gives them
      rows <- epimask:::profile_risk_rows(ru, s)
      i <- match(s, console$scheme)
      expect_equal(rows$masked, c(console$risk[i], console$risk_linkability[i], console$risk_inference[i]),
                   tolerance = 1e-12)
    }
    # a masked scheme's table carries the attacks' rows too, against the data as they are
    session$setInputs(`profile-selected` = "rounding to 1 significant digit")
    rows <- epimask:::profile_risk_rows(ru, "rounding to 1 significant digit")
    rounded <- d[, -1]
    rounded$dose <- signif(rounded$dose, 1)
    direct <- vapply(crit, function(cr) criterion_evaluate(cr, rounded, original = d[, -1])$value, 0)
    expect_equal(rows$masked, unname(direct), tolerance = 1e-12)
    unmasked <- vapply(crit, function(cr) criterion_evaluate(cr, d[, -1], original = d[, -1])$value, 0)
    expect_equal(rows$original, unname(unmasked), tolerance = 1e-12)
    expect_match(output[["profile-risk"]], "Profile risk: linkability")
    # the synthetic release downloads as its copies, numbered, without the identifier
    session$setInputs(`profile-selected` = synth[2], `profile-pick` = 1)
    got <- utils::read.csv(output[["release-download_data"]])
    copies <- epimask:::synthetic_copies(profile$picked_data())
    expect_identical(names(got), c("copy", setdiff(names(d), "id")))
    expect_equal(as.vector(table(got$copy)), vapply(copies, nrow, 1L))
    expect_match(output[["release-status"]]$html, "2 synthetic copies of 1500 records")
    if (rmarkdown::pandoc_available()) {
      report <- gsub("\\s+", " ", paste(readLines(output[["release-download_report"]], warn = FALSE),
                                       collapse = " "))
      expect_match(report, paste("Chosen for release:", synth[2]), fixed = TRUE)
    }
  })
  # record linkage cannot judge new records: said, not shown as NA
  v <- epimask:::synthetic_verdict(structure(list(), class = "epimask_synthetic"), character(),
                                   NA_real_, "linkage risk", 0.2, NULL)
  expect_false(v$pass)
  expect_match(epimask:::verdict_text(v, "s"), "cannot be judged")
  expect_match(epimask:::verdict_text(v, "s"), "does not apply to synthetic records")
  # the attacks need a hold-out of half the records; synthesis not by persons
  expect_error(epimask:::workbench_synth_schemes(list(synth_methods = "cart", synth_holdout = 0.2,
                                                      risk = "article29")), "at least 0.5")
  expect_error(epimask:::workbench_synth_schemes(list(synth_methods = "cart", person = "pid",
                                                      risk = "linkage")), "person column")
})

deid_args <- function(data, roles, ctx) {
  list(loaded = list(data = function() data, name = function() "dose", stamp = function() 1L),
       roles = function() roles, context = function() ctx)
}

test_that("De-identify shows the column review and passes the declarations typed in", {
  local_sync_workbench()
  d <- dose3k()
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  roles <- list(identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case")
  shiny::testServer(epimask:::wb_deidentify_server, args = deid_args(d, roles, ctx), {
    session$setInputs(widths_age_exp = "4, 8, 20", widths_dose = "0.1, 0.3, 0.6", max_suppress = 0.05)
    # every column of the release has its role; age_end is flagged, pending
    ref_review <- review_columns(d[, -1], c("city", "sex", "age_exp", "dose"), sensitive = "case")
    expect_identical(ref_review$pending, "age_end")
    html <- output$review
    for (col in names(d)[-1]) expect_match(html, sprintf("<td> %s </td>", col), fixed = TRUE, label = col)
    expect_match(output$review_status$html, "Flagged and not handled: age_end")
    # one declaration input per flagged column (named by its place in the data)
    expect_match(output$declare_ui$html, "declare_5")
    role <- ref_review$columns$role[ref_review$columns$column == "age_end"]
    expect_match(output$declare_ui$html, sprintf("age_end (%s)", role), fixed = TRUE)
    # no reason typed: not declared; the certificate counts age_end as a key
    session$setInputs(declare_5 = "   ", run = 1)
    res <- rv$result
    expect_length(res$declared, 0)
    expect_true("age_end" %in% res$keys)
    expect_match(output$declared$html, "none")
    # a reason typed in reaches deidentify(): declared, not counted
    reason <- "follow-up end, coarsened to half years upstream"
    session$setInputs(declare_5 = reason, run = 2)
    res <- rv$result
    expect_identical(res$declared, c(age_end = reason))
    expect_false("age_end" %in% res$keys)
    expect_match(output$declared$html, reason, fixed = TRUE)
    expect_match(output$review_status$html, "Declared safe: age_end")
    expect_match(output$review, reason, fixed = TRUE)
    # the certificate recounted on the release on the keys it names
    rr <- risk_release(res$data, res$keys, ctx)
    expect_equal(max(res$certificate$risk), rr$overall)
    # the console call recorded carries the declaration and reproduces the release
    expect_match(gsub("\\s+", " ", paste(deparse(rv$call), collapse = " ")), "declare = c(age_end = ", fixed = TRUE)
    again <- eval(rv$call, list(data = d))
    expect_identical(again$data, res$data)
    expect_identical(again$declared, res$declared)
    if (rmarkdown::pandoc_available()) {
      report <- paste(readLines(output$download_report, warn = FALSE), collapse = "\n")
      expect_match(report, "Declared safe by the custodian", fixed = TRUE)
      expect_match(report, reason, fixed = TRUE)
    }
    # synthesis as a candidate: the candidates are shown and which was released
    session$setInputs(synthesis = TRUE, synth_method = "parametric", synth_m = 2, run = 3)
    res <- rv$result
    expect_identical(res$candidates$kind, c("generalization", "synthesis"))
    expect_match(output$candidates, "synthesis (parametric", fixed = TRUE)
    expect_match(output$released$html, if (identical(res$released, "synthesis"))
      "Released: the synthetic copies" else "Released: the generalization")
    expect_match(gsub("\\s+", " ", paste(deparse(rv$call), collapse = " ")),
                 "synthesis = mask_synth(\"parametric\", m = 2L, holdout = 0.5, smooth = TRUE)", fixed = TRUE)
  })
  # a bad width is a message naming the column
  shiny::testServer(epimask:::wb_deidentify_server, args = deid_args(d, roles, ctx), {
    session$setInputs(widths_age_exp = "4, x", widths_dose = "0.1", max_suppress = 0.05, run = 1)
    expect_null(rv$result)
    expect_match(rv$msg$text, "interval widths of age_exp")
  })
})

test_that("a failing release offers no release download, only the report with the reason", {
  local_sync_workbench()
  small <- dose3k()[1:60, ]
  roles <- list(identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case")
  ctx <- release_context(public = TRUE, threshold = 0.01)
  shiny::testServer(epimask:::wb_deidentify_server, args = deid_args(small, roles, ctx), {
    session$setInputs(widths_age_exp = "10", widths_dose = "1", max_suppress = 0.05, run = 1)
    res <- rv$result
    expect_null(res$data)
    # 60 records cannot reach the threshold 0.01: a class of every record has risk 1/60
    expect_gt(1 / nrow(small), 0.01)
    expect_identical(rv$msg$level, "error")
    expect_match(output$failure$html, paste("No data are released:", res$reason), fixed = TRUE)
    expect_match(output$failure$html, paste("What to try:", res$advice), fixed = TRUE)
    expect_match(output$verdict$html, "FAILS the context")
    downloads <- output$downloads$html
    expect_no_match(downloads, "download_data")
    expect_match(downloads, "download_report")
    # the data link, opened anyway, gives a sentence, no data and no error
    expect_identical(readLines(output$download_data),
                     "No release exists: de-identify first (a failing release hands no data over).")
  })
})

test_that("Release shows the review and gives no file (and no error) before a scheme is picked", {
  local_sync_workbench()
  shiny::testServer(epimask:::workbench_server(dose3k(), "dose3k"), {
    session$setInputs(`data-source` = "passed")
    do.call(session$setInputs, round4_inputs())
    expect_null(output[["release-downloads"]])
    expect_match(readLines(output[["release-download_data"]]), "No release exists yet")
    expect_match(readLines(output[["release-download_report"]]), "No release exists yet")
    # the column review, with the declarations typed on 6 De-identify
    expect_match(output[["release-review"]], "<td> age_end </td>", fixed = TRUE)
    expect_match(output[["release-review_status"]]$html, "Flagged and not handled: age_end")
    session$setInputs(`deidentify-declare_5` = "coarsened upstream")
    expect_match(output[["release-review"]], "coarsened upstream", fixed = TRUE)
    expect_match(output[["release-review_status"]]$html, "Declared safe: age_end")
  })
})

# ---- the Table step -------------------------------------------------------------------

# The lines of a 2-D table with its margins: for each dimension, the cells
# that vary along it (its codes and its total "*") at each value of the other.
table_lines <- function(cells, dims) {
  lines <- list()
  for (i in seq_along(dims)) {
    other <- dims[-i]
    for (v in unique(cells[[other]]))
      lines[[length(lines) + 1L]] <- which(cells[[other]] == v)
  }
  lines
}

test_that("the Table step's suppression is suppress_table()'s, recounted by hand", {
  skip_if_not(requireNamespace("highs", quietly = TRUE) || requireNamespace("Rglpk", quietly = TRUE))
  local_sync_workbench()
  d <- dose3k()
  dims <- c("sex", "age_exp")
  shiny::testServer(epimask:::wb_table_server, args = list(loaded = list(
    data = function() d, name = function() "dose", stamp = function() 1L)), {
    session$setInputs(dims = dims, value = "", threshold = 5, zeros = FALSE, dominance = FALSE,
                      p_percent = FALSE, protection = "suppression", method = "optimal",
                      cost = "cells", base = 5, epsilon = 1, run = 1)
    prot <- rv$result$protected
    direct <- suppress_table(table_counts(d, dims), cell_threshold(5L, zeros = FALSE),
                             method = "optimal", cost = "cells")
    expect_identical(prot$suppressed, direct$suppressed)
    expect_identical(prot$primary, direct$primary)
    # the published table, read back from the download
    got <- utils::read.csv(output$download_table, stringsAsFactors = FALSE, colClasses = "character")
    got$value <- as.numeric(got$value)
    # every count by table(): the interior cells and the margins ("*")
    counts <- table(d$sex, d$age_exp)
    full <- rbind(cbind(counts, `*` = rowSums(counts)), `*` = c(colSums(counts), sum(counts)))
    truth <- full[cbind(match(got$sex, rownames(full)), match(got$age_exp, colnames(full)))]
    expect_false(anyNA(truth))
    published <- got$status == "published"
    expect_equal(got$value[published], as.numeric(truth[published]))
    expect_true(all(is.na(got$value[!published])))
    # cells under the threshold (1 to 4) are the primary suppressions, and there are some
    small <- truth > 0 & truth < 5
    expect_gt(sum(small), 0)
    expect_identical(got$status == "primary", small)
    # no line of the table (a row or a column, margins included) has exactly one
    # suppressed cell: it would be its total minus the published cells
    for (line in table_lines(got, dims)) expect_false(sum(!published[line]) == 1L)
    # the counts shown are the pattern's
    n <- counts_summary <- epimask:::table_counts_summary(rv$result)
    expect_identical(n$primary, sum(small))
    expect_identical(n$secondary, sum(got$status == "secondary"))
    expect_match(output$summary$html, sprintf("%d sensitive under the rules (primary suppressions), %d secondary",
                                              sum(small), sum(got$status == "secondary")), fixed = TRUE)
    expect_match(output$summary$html, "every sensitive cell protected")
    # the audit: one row per sensitive cell, each protected
    expect_match(output$audit, "intruder&#39;s lowest|intruder's lowest")
    expect_equal(nrow(epimask:::audit_display(prot)), sum(small))
    expect_match(output$downloads$html, "download_report")
    if (rmarkdown::pandoc_available())
      expect_true(file.size(output$download_report) > 1000)
    # controlled rounding: every cell a multiple of the base, margins adding up
    session$setInputs(protection = "rounding", base = 5, run = 2)
    got <- as.data.frame(rv$result$protected)
    expect_true(all(got$value %% 5 == 0))
    interior <- got$sex != "*" & got$age_exp != "*"
    expect_equal(sum(got$value[interior]), got$value[got$sex == "*" & got$age_exp == "*"])
    expect_no_match(output$downloads$html, "download_report")
  })
})

test_that("the Table step's errors name the column, never stop the app", {
  local_sync_workbench()
  d <- dose3k()[, c("city", "sex", "age_end", "dose")]
  d$sex[3] <- NA
  d$dose[2] <- -1
  shiny::testServer(epimask:::wb_table_server, args = list(loaded = list(
    data = function() d, name = function() "d", stamp = function() 1L)), {
    base <- list(value = "", threshold = 5, zeros = FALSE, dominance = FALSE, p_percent = FALSE,
                 protection = "suppression", method = "heuristic", cost = "cells", base = 5, epsilon = 1)
    do.call(session$setInputs, c(list(dims = c("city", "sex")), base, list(run = 1)))
    expect_null(rv$result)
    expect_match(rv$msg$text, "The dimension 'sex' has 1 missing values")
    do.call(session$setInputs, c(list(dims = "age_end"), base, list(run = 2)))
    expect_match(rv$msg$text, "The dimension 'age_end' has [0-9]+ codes")
    do.call(session$setInputs, c(list(dims = "city"), modifyList(base, list(value = "dose")), list(run = 3)))
    expect_match(rv$msg$text, "The response 'dose' has 1 negative values")
    do.call(session$setInputs, c(list(dims = character()), base, list(run = 4)))
    expect_match(rv$msg$text, "one to three dimensions")
  })
})

# ---- in Chromium ------------------------------------------------------------------------

# A screenshot kept for a reader when EPIMASK_SCREENSHOT_DIR names a folder.
keep_screenshot <- function(shot, name) {
  dir <- Sys.getenv("EPIMASK_SCREENSHOT_DIR")
  if (nzchar(dir)) file.copy(shot, file.path(dir, sprintf("workbench-round4-%s.png", name)), overwrite = TRUE)
}

round4_driver <- function() {
  shinytest2::AppDriver$new(system.file("workbench", package = "epimask"),
                            name = "workbench-round4", width = 1300, height = 1100,
                            load_timeout = 90 * 1000, timeout = 60 * 1000, seed = 1)
}

test_that("in Chromium: De-identify with a declaration typed in", {
  local_browser()
  app <- round4_driver()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns').innerText.indexOf('quasi-identifier') >= 0",
                  timeout = 60 * 1000)
  app$set_inputs(`context-pr_attempt` = 0.3, `context-pr_acquaintance` = 0.5)
  app$set_inputs(tabs = "deidentify")
  app$wait_for_js("document.getElementById('deidentify-declare_5') !== null", timeout = 60 * 1000)
  expect_match(text_of(app, "#deidentify-review"), "age_end")
  expect_match(text_of(app, "#deidentify-review-message"), "Flagged and not handled: age_end")
  reason <- "end of follow-up, coarsened upstream"
  app$set_inputs(`deidentify-declare_5` = reason, `deidentify-metric` = "entropy")
  app$click("deidentify-run")
  app$wait_for_js("document.getElementById('deidentify-declared-list') !== null", timeout = 90 * 1000)
  app$wait_for_idle()
  expect_match(text_of(app, "#deidentify-declared-list"), paste("age_end", ":", reason), fixed = TRUE)
  expect_match(text_of(app, "#deidentify-review-message"), "Declared safe: age_end")
  expect_match(text_of(app, "#deidentify-verdict-message"), "passes every attack of the context")
  vals <- app$get_values(export = TRUE)$export
  # the certificate the app shows is deidentify()'s with the declaration typed in
  dose <- load_epimask_data("dose_cohort")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, pr_breach = 0.27, threshold = 0.2)
  h <- list(city = hierarchy_flat(), sex = hierarchy_flat(), age_exp = hierarchy_numeric(c(4, 8, 20)),
            dose = hierarchy_numeric(c(0.1, 0.3, 0.6)))
  ref <- deidentify(dose, c("city", "sex", "age_exp", "dose"), h, ctx, sensitive = "case",
                    identifiers = "id", declare = c(age_end = reason))
  expect_equal(vals$deidentified$risk, ref$certificate$risk)
  csv <- app$get_download("deidentify-download_data")
  got <- utils::read.csv(csv, stringsAsFactors = FALSE)
  expect_identical(nrow(got), nrow(ref$data))
  shot <- tempfile(fileext = ".png")
  app$get_screenshot(shot)
  expect_true(file.size(shot) > 10000)
  keep_screenshot(shot, "deidentify")
})

test_that("in Chromium: the Table tab produces a protected table", {
  local_browser()
  skip_if_not(requireNamespace("highs", quietly = TRUE) || requireNamespace("Rglpk", quietly = TRUE))
  app <- round4_driver()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_js("document.querySelector('#data-columns table') !== null", timeout = 60 * 1000)
  app$set_inputs(tabs = "table")
  app$set_inputs(`table-dims` = c("city", "age_exp"), `table-threshold` = 5)
  app$click("table-run")
  app$wait_for_js("document.getElementById('table-summary-message') !== null", timeout = 90 * 1000)
  app$wait_for_idle()
  dose <- load_epimask_data("dose_cohort")
  direct <- suppress_table(table_counts(dose, c("city", "age_exp")), cell_threshold(5L))
  expect_gt(sum(direct$primary), 0)
  expect_match(text_of(app, "#table-summary-message"),
               sprintf("%d sensitive under the rules (primary suppressions), %d secondary suppressions",
                       sum(direct$primary), direct$n_secondary), fixed = TRUE)
  expect_match(text_of(app, "#table-table"), "Hiroshima")
  csv <- app$get_download("table-download_table")
  got <- utils::read.csv(csv, stringsAsFactors = FALSE)
  # every cell by table(), the margins ("*") by its sums
  counts <- table(dose$city, dose$age_exp)
  full <- rbind(cbind(counts, `*` = rowSums(counts)), `*` = c(colSums(counts), sum(counts)))
  n_cell <- full[cbind(match(got$city, rownames(full)), match(as.character(got$age_exp), colnames(full)))]
  shown <- got$status == "published"
  expect_equal(got$value[shown], as.numeric(n_cell[shown]))
  # the primary suppressions are the cells of 1 to 4 records
  expect_identical(got$status == "primary", n_cell > 0 & n_cell < 5)
  expect_equal(got$value[got$city == "*" & got$age_exp == "*"], nrow(dose))
  shot <- tempfile(fileext = ".png")
  app$get_screenshot(shot)
  expect_true(file.size(shot) > 10000)
  keep_screenshot(shot, "table")
})
