# The custodian's workbench: a Shiny app over the package's flow, in the order
# of El Emam & Malin's de-identification process (data, variables and the
# analysis, release context, masking, the risk-utility profile, the release).
# The statistics live in workbench-profile.R and workbench-data.R; this file
# only lays out the screens and wires them.

#' The custodian's workbench (a Shiny app)
#'
#' A point-and-click front end for data custodians and privacy officers,
#' following the de-identification process of El Emam and Malin (2014):
#' 1. **Data**: a bundled data set, a data frame passed as `data`, or an
#'    uploaded CSV (UTF-8), RDS, SAS (`.sas7bdat`, `.xpt`), Stata (`.dta`) or
#'    SPSS (`.sav`) file, the last three read by \pkg{haven} (Suggests) with
#'    labelled values as factors. Bad uploads (empty, not UTF-8, binary,
#'    too large, unreadable, not a data frame) give a message, never an error;
#'    the size limit is `getOption("epimask.workbench_max_mb", 50)` MB.
#' 2. **Variables**: direct identifiers (dropped from the release), the
#'    person column when a person has several records (visits, stays; see
#'    below), quasi-identifiers (the keys of k-anonymity), sensitive
#'    variables, the variables to mask, and the collaborator's model (formula
#'    and family, or the linear ERR model of [fit_err()]).
#' 3. **Context**: public or not, Pr(attempt), Pr(acquaintance), Pr(breach),
#'    the threshold and the reasons for it (the methods vignette, section 17);
#'    and, if the release is a sample of a population, the sampling fraction
#'    (or the population size) for the estimated population uniques
#'    ([risk_population()], Dankar et al.'s rule) and the log-linear risk
#'    ([risk_loglinear()]), and a cluster column for cluster risk
#'    ([risk_individual()] with `cluster`): their rows join the risk tables
#'    of steps 3 and 5 and the report, with notes on the model chosen.
#' 4. **Masking**: sweeps of rounding (significant digits, decimal places),
#'    noise and synthesis ([mask_synth()] of the masked variables, method
#'    `"cart"` or `"parametric"`, `m` copies, a hold-out share kept out of the
#'    synthesis as the attacks' control set); the risk measure, a risk
#'    criterion (by default record linkage, [linkage_risk()], on the
#'    variables the intruder knows: it sees noise and is fast; the Article 29
#'    attacks, [article29_attacks()] or one of [singling_out()],
#'    [linkability()] and [inference()] of a chosen secret, which also judge
#'    synthetic copies; exact-match identifiability, blind to noise, is
#'    offered last and warns), replicates and seed; the profile
#'    ([ru_profile()]) runs in a background R process (\pkg{future} and
#'    \pkg{promises}) with a progress bar and a cancel button, so the app
#'    stays responsive. The console call recorded in the report names the
#'    criterion (no deprecated [risk_spec()]).
#' 5. **Profile**: the R-U plot (click a point for the scheme's estimate with
#'    its interval and its risk table: the profile's risks, the three attacks
#'    among them, against the unmasked data; k-anonymity risks, the release
#'    risk of each attack of the context, l-diversity), the table of all
#'    schemes; pick a scheme. A synthetic scheme's verdict rests on the risks
#'    that judge new records (the profile's attack and replicated uniques,
#'    [replicated_uniques()], on the quasi-identifiers); its k-anonymity rows
#'    say why they do not apply.
#' 6. **De-identify**: the column review ([review_columns()]: each column's
#'    role, flags and the evidence, in counts) with a declaration per flagged
#'    column (a reason; an empty reason declares nothing) passed as
#'    `declare =`; [deidentify()] on the quasi-identifiers, sensitive
#'    variables and identifiers of step 2 under the context of step 3 (numeric
#'    keys generalised by [hierarchy_numeric()] with interval widths the app
#'    proposes and the custodian may edit, dates by [hierarchy_date()], the
#'    others by [hierarchy_flat()]), optionally with a synthesis candidate
#'    (`deidentify_control(synthesis = mask_synth(...))`, judged by
#'    replicated uniques and the model; the step says which candidate was
#'    released); its certificate (each attack of the context recounted on the
#'    release, against the threshold) is the verdict, shown with the
#'    declarations, the steps taken and the risk before and after; download
#'    the release (CSV) and its report. A release that fails (`$data` is
#'    `NULL`) shows the reason and what to try, and offers the report only.
#' 7. **Release**: the column review again (roles, flags, declarations);
#'    download the masked data (CSV, identifiers dropped, noise drawn from an
#'    unrecorded seed; synthetic copies stacked with their copy number) and the
#'    de-identification report ([release_report()]); no download before a
#'    scheme is picked.
#' 8. **Table**: a count table of the loaded data ([table_counts()]) over one
#'    to three categorical dimensions, optionally with the sums of a
#'    response; the primary rule ([cell_threshold()], and for sums
#'    [dominance()] and [p_percent()]); the protection: cell suppression with
#'    secondary suppression and its audit ([suppress_table()], optimal or
#'    heuristic), controlled rounding or noise with a privacy budget
#'    ([mask_count_table()] with [mask_round()]`(base = )` or
#'    [mask_dp_counts()]); the protected table, the audit, the counts of
#'    primary and secondary suppressions; download the table (CSV) and, for a
#'    suppression pattern, its report ([release_report()]).
#'
#' Errors of every step are messages on the screen that name the column
#' (never a stopped app).
#'
#' **Several records per person.** With a person column chosen on step 2
#' (the bundled `trial_visits` proposes `pid`), the person is the unit of
#' every count (methods vignette, section 23): every risk measure is called
#' with `id =` (the risk tables of steps 3 and 5 say "by persons", and the
#' class sizes count persons), the profile is `ru_profile(..., id = )`,
#' step 6 runs `deidentify(..., id = )` (persons suppressed with all their
#' records; the steps give persons and records) and the reports count
#' persons. The console calls recorded in the reports carry `id =`. The
#' person column is measured but never released (it is dropped from every
#' release); it cannot also be a key, sensitive, masked or in the model.
#' Cluster risk is not offered with a person column (the person is then the
#' cluster of their records).
#'
#' The app never shows original values of the data (only counts), and the
#' release never carries masking parameters.
#'
#' @param data `NULL` or a data frame to offer in the app (next to the bundled
#'   data sets).
#' @param port The TCP port, `NULL` for a random one.
#' @param launch.browser Open a web browser (default in interactive sessions).
#' @return Called for its side effect (runs until the app is closed); returns
#'   what [shiny::runApp()] returns.
#' @references El Emam K, Malin B (2014). Appendix B: Concepts and methods for
#'   de-identifying clinical trial data. In \emph{Sharing Clinical Trial Data:
#'   Maximizing Benefits, Minimizing Risk}. National Academies Press.
#' @family release decision
#' @export
#' @examples
#' if (interactive() && requireNamespace("shiny", quietly = TRUE) &&
#'     requireNamespace("bslib", quietly = TRUE)) {
#'   run_workbench(dose_cohort)
#' }
run_workbench <- function(data = NULL, port = NULL, launch.browser = interactive()) {
  check_workbench_packages()
  if (!is.null(data)) data <- as_plain_data(check_data(data))
  launch.browser <- check_flag(launch.browser)
  if (!is.null(port)) port <- check_number(port, lower = 1, upper = 65535, integer = TRUE)
  shiny::runApp(workbench_app(data), port = port, launch.browser = launch.browser)
}

check_workbench_packages <- function() {
  need <- c("shiny", "bslib")
  missing <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(missing))
    epimask_abort(sprintf("The workbench needs the package(s) %s: install.packages(%s).",
                          paste(missing, collapse = ", "),
                          paste0("c(", paste0("\"", missing, "\"", collapse = ", "), ")")),
                  "epimask_error_dependency")
  invisible(TRUE)
}

#' The workbench as a shiny app object
#'
#' Internal; `inst/workbench/app.R` calls it so the app can also be deployed
#' or driven by shinytest2.
#' @noRd
workbench_app <- function(data = NULL, data_name = "data passed in") {
  check_workbench_packages()
  # The background R process starts after the first page is drawn (it takes
  # seconds on a loaded machine); the caller's future plan is restored when
  # the app stops.
  plan <- new.env()
  plan$started <- FALSE
  plan$old <- NULL
  start_plan <- function() {
    if (plan$started || !workbench_async_available()) return(invisible())
    plan$started <- TRUE
    plan$old <- workbench_use_background_plan()
  }
  on_start <- function() {
    # Let files up to the workbench's own limit through shiny (default 5 MB),
    # so the custodian reads the workbench's message about larger ones.
    old_opts <- options(shiny.maxRequestSize = (workbench_max_mb() + 1) * 1e6)
    shiny::onStop(function() {
      options(old_opts)
      if (!is.null(plan$old)) future::plan(plan$old)
    })
  }
  shiny::shinyApp(workbench_ui(data, data_name), workbench_server(data, data_name, start_plan),
                  onStart = on_start)
}

# ---- user interface ---------------------------------------------------------

workbench_sources <- function(data, data_name) {
  choices <- c("Bundled: dose_cohort (synthetic cohort)" = "dose_cohort",
               "Bundled: zip_mortality (synthetic zip-code data)" = "zip_mortality",
               "Bundled: trial_visits (synthetic trial, several visits per participant)" = "trial_visits",
               "Upload a CSV, RDS, SAS, Stata or SPSS file" = "upload")
  if (!is.null(data)) choices <- c(stats::setNames("passed", data_name), choices)
  choices
}

workbench_ui <- function(data, data_name) {
  bslib::page_navbar(
    title = "epimask workbench", id = "tabs",
    theme = bslib::bs_theme(version = 5, bootswatch = NULL, primary = "#2c5f8a"),
    header = shiny::tags$head(shiny::tags$style(workbench_css())),
    wb_nav("1 Data", value = "data", wb_data_ui("data", data, data_name)),
    wb_nav("2 Variables", value = "variables", wb_variables_ui("variables")),
    wb_nav("3 Context", value = "context", wb_context_ui("context")),
    wb_nav("4 Masking", value = "masking", wb_masking_ui("masking")),
    wb_nav("5 Profile", value = "profile", wb_profile_ui("profile")),
    wb_nav("6 De-identify", value = "deidentify", wb_deidentify_ui("deidentify")),
    wb_nav("7 Release", value = "release", wb_release_ui("release")),
    wb_nav("8 Table", value = "table", wb_table_ui("table"))
  )
}

# The risk measures the app offers, those that see noise first; the first
# is the default (workbench_presets()).
workbench_risk_choices <- function() {
  c("Record linkage by distance (sees noise; fast)" = "linkage",
    "Record matching probability (Reiter; Zhou et al.; sees noise; slower)" = "match",
    "k-anonymity strict average risk (quasi-identifiers)" = "kanon",
    "Article 29: the three attacks (singling out, linkability, inference)" = "article29",
    "Article 29: singling out" = "singling_out",
    "Article 29: linkability (two halves of the known variables)" = "linkability",
    "Article 29: inference of the secret" = "inference",
    "Identifiability by exact matching (Cologne; blind to noise)" = "identifiability",
    "None" = "none")
}

# A tab of the navbar: bslib::nav_panel() (bslib >= 0.5.0), else bslib::nav().
wb_nav <- function(title, ..., value = title) {
  make <- if ("nav_panel" %in% getNamespaceExports("bslib")) getExportedValue("bslib", "nav_panel")
          else getExportedValue("bslib", "nav")
  make(title, ..., value = value)
}

workbench_css <- function() {
  paste(".wb-msg{padding:.5rem .75rem;border-radius:.3rem;margin-top:.5rem}",
        ".wb-error{background:#f8d7da;color:#58151c}.wb-warning{background:#fff3cd;color:#664d03}",
        ".wb-info{background:#d1e7dd;color:#0a3622}",
        ".card{margin-bottom:1rem}",
        # a wide table (the steps of De-identify) scrolls inside its card
        # instead of running out of it
        ".card-body .shiny-html-output{overflow-x:auto}",
        ".shiny-input-container:not(.shiny-input-container-inline){width:100%}", sep = "\n")
}

message_box <- function(text, level = "info", id = NULL) {
  if (is.null(text) || !nzchar(text)) return(NULL)
  shiny::tags$div(class = paste0("wb-msg wb-", level), id = id, role = "status", text)
}

progress_bar <- function(step, total, label) {
  pct <- round(100 * step / max(total, 1))
  shiny::tags$div(
    shiny::tags$div(class = "progress mt-2", role = "progressbar",
                    `aria-valuenow` = pct, `aria-valuemin` = 0, `aria-valuemax` = 100,
                    shiny::tags$div(class = "progress-bar", style = sprintf("width:%d%%", pct),
                                    sprintf("%d%%", pct))),
    shiny::tags$div(class = "small text-muted", label))
}
