# The de-identification report: what an ethics board or a data-sharing
# agreement needs to know about a release, rendered from an R Markdown
# template (inst/report/release-report.Rmd) into one self-contained HTML file.
# The content is assembled here as plain R objects (tested without pandoc);
# the template only lays it out.

#' De-identification report of a risk-utility profile and a release
#'
#' Writes a self-contained HTML report (R Markdown template in the package's
#' `report/` folder, plots embedded, no external resources) documenting a
#' release decision in the order of El Emam and Malin (2014): the data
#' (counts only, never values), the release context and each attack's risk
#' against the threshold (METHODS.md section 17), the schemes compared with
#' their risk, analysis potential and Monte Carlo uncertainty, the R-U plot,
#' the recommendation (the scheme of highest analysis potential within the
#' threshold, [recommend()]) and the scheme chosen, and what is needed to
#' reproduce the assessment (package and R versions, seed, call).
#'
#' **What the report never contains.** Original values of any variable
#' (only counts of records, missing and distinct values), and the masking
#' parameters a release must not carry: the kernel, lambda (bandwidth) and
#' matrices of kernel or matrix masks (Zhou, Dominici and Louis 2010 warn that
#' releasing them enables re-identification; such schemes are listed as
#' "smoothing scheme A, B, ..." and the call is withheld) and the seed of the
#' noise in the released file (whoever holds it can regenerate and subtract
#' the noise). The report says so in its last section. The `seed` given
#' reproduces the *assessment* (the profile), not the released file.
#'
#' @param x An `ru_profile` (from [ru_profile()]), or an `epimask_release`
#'   (from [deidentify()]): then the report documents the release, with its
#'   certificate (each attack of the context recounted on the release) as the
#'   verdict, the steps taken with their information loss and the
#'   collaborator's coefficient, and the risk before and after; `data`,
#'   `data_name`, `call`, `title` and `quiet` apply, the other arguments come
#'   from the release.
#' @param file Path of the HTML file to write.
#' @param data The original data (described by counts only), or `NULL`.
#' @param vars The masked variables.
#' @param keys Quasi-identifiers, for the k-anonymity and release risks.
#' @param sensitive Sensitive variables (l-diversity, when available).
#' @param identifiers Direct identifiers, dropped from the release.
#' @param context A [release_context()] (or `NULL`: then the threshold is
#'   `max_risk`). Taken from the profile's metadata when `NULL` and the
#'   profile carries one.
#' @param choice The label of the scheme chosen for release (default the
#'   recommended one).
#' @param masked The released (masked) data set, for its risk table.
#' @param seed The seed the profile was run with.
#' @param call The call (a call object or a character string) that reproduces
#'   the profile.
#' @param data_name The name of the data set, for the report's text.
#' @param max_risk The risk budget when there is no context.
#' @param title The report's title.
#' @param quiet Passed to [rmarkdown::render()].
#' @param ... Unused.
#' @return The path of the report, invisibly.
#' @references El Emam K, Malin B (2014). Appendix B: Concepts and methods for
#'   de-identifying clinical trial data. In \emph{Sharing Clinical Trial Data}.
#'   National Academies Press.
#'
#'   Zhou Y, Dominici F, Louis TA (2010). A smoothing approach for masking
#'   spatial data. \emph{Annals of Applied Statistics} 4(3), 1451-1475.
#' @family release decision
#' @export
#' @examples
#' if (rmarkdown::pandoc_available()) {
#'   ru <- ru_profile(dose_cohort, list(mask_round(2), mask_round(1)),
#'                    case ~ dose, family = binomial(), vars = "dose",
#'                    risk = "identifiability", known = "dose", seed = 1,
#'                    progress = FALSE)
#'   out <- release_report(ru, tempfile(fileext = ".html"), data = dose_cohort,
#'                         vars = "dose", keys = c("city", "sex"),
#'                         identifiers = "id", seed = 1)
#'   file.exists(out)
#' }
release_report <- function(x, file, data = NULL, vars = NULL, keys = NULL, sensitive = NULL,
                           identifiers = NULL, context = NULL, choice = NULL, masked = NULL,
                           seed = NULL, call = NULL, data_name = NULL, max_risk = 0.2,
                           title = "De-identification report", quiet = TRUE, ...) {
  if (inherits(x, "epimask_release"))
    return(release_report_deidentified(x, file, data = data, data_name = data_name, call = call,
                                       title = title, quiet = quiet))
  check_ru_profile(x)
  file <- check_string(file)
  quiet <- check_flag(quiet)
  if (!is.null(context) && !inherits(context, "release_context"))
    abort_type("context", "a release_context() or NULL")
  max_risk <- check_number(max_risk, lower = 0, upper = 1)
  title <- check_string(title)
  check_report_args(data, vars, keys, sensitive, identifiers, choice, masked, seed, call,
                    data_name)
  for (nm in c("rmarkdown", "knitr"))
    if (!requireNamespace(nm, quietly = TRUE))
      epimask_abort(sprintf("release_report() needs the %s package.", nm), "epimask_error_dependency")
  if (!rmarkdown::pandoc_available())
    epimask_abort("release_report() needs pandoc (https://pandoc.org).", "epimask_error_dependency")
  content <- report_content(x, data = data, vars = vars, keys = keys, sensitive = sensitive,
                            identifiers = identifiers, context = context, choice = choice,
                            masked = masked, seed = seed, call = call, data_name = data_name,
                            max_risk = max_risk, title = title)
  render_report(content, file, quiet = quiet)
}

# What the report reads besides the profile, checked before anything renders.
check_report_args <- function(data, vars, keys, sensitive, identifiers, choice, masked, seed,
                              call, data_name) {
  if (!is.null(data)) data <- check_data(data, "data")
  for (nm in c("vars", "keys", "sensitive", "identifiers")) {
    cols <- get(nm)
    if (is.null(cols)) next
    if (is.null(data)) abort_value(nm, "NULL when `data` is not given")
    check_columns(cols, data, arg = nm)
  }
  check_string(choice, "choice", allow_null = TRUE)
  if (!is.null(masked)) check_data(masked, "masked")
  check_number(seed, "seed", allow_null = TRUE)
  if (!is.null(call) && !is.call(call)) check_string(call, "call")
  check_string(data_name, "data_name", allow_null = TRUE)
  invisible(TRUE)
}

render_report <- function(content, file, quiet = TRUE, template = "release-report.Rmd") {
  name <- template
  template <- system.file("report", name, package = "epimask")
  if (!nzchar(template)) epimask_abort("The report template is missing from the installation.")
  work <- tempfile("epimask-report-")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE), add = TRUE)
  file.copy(template, work)
  out <- rmarkdown::render(file.path(work, name), output_dir = work,
                           output_file = "report.html", params = list(content = content),
                           envir = new.env(parent = globalenv()), quiet = quiet,
                           intermediates_dir = work)
  dir.create(dirname(file), showWarnings = FALSE, recursive = TRUE)
  if (!file.copy(out, file, overwrite = TRUE))
    epimask_abort(sprintf("Could not write the report to '%s'.", file), "epimask_error_value", arg = "file")
  invisible(normalizePath(file))
}

#' Everything the report shows, as R objects
#'
#' Internal; `release_report()` renders it. Labels of schemes with withheld
#' parameters are replaced here, so nothing downstream can leak them.
#' @noRd
report_content <- function(ru, data = NULL, vars = NULL, keys = NULL, sensitive = NULL,
                           identifiers = NULL, context = NULL, choice = NULL, masked = NULL,
                           seed = NULL, call = NULL, data_name = NULL, max_risk = 0.2,
                           title = "De-identification report") {
  if (is.null(context)) context <- ru_meta(ru)$context
  threshold <- context_threshold(context) %||% max_risk
  labels <- report_labels(ru)
  safe <- redact_profile(ru, labels)
  rn <- recommend_with_notes(safe, context, threshold)
  rec <- rn$rec
  if (!is.null(choice)) {
    if (!choice %in% ru$scheme)
      abort_value("choice", sprintf("one of the profile's schemes (%s)", paste(ru$scheme, collapse = ", ")))
    choice <- labels[match(choice, ru$scheme)]
  }
  original <- if (!is.null(data)) as_plain_data(data)
  released <- if (!is.null(original)) original[, setdiff(names(original), identifiers), drop = FALSE]
  table <- profile_display_table(safe)
  table$within_threshold <- ifelse(is.na(table$risk), NA, table$risk <= threshold)
  meta <- ru_meta(ru)
  list(
    title = title,
    date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    data_name = data_name %||% "the data",
    description = if (!is.null(original))
      describe_columns(original, list(identifier = identifiers, `quasi-identifier` = keys,
                                      sensitive = sensitive, masked = vars)),
    n_records = if (!is.null(original)) nrow(original),
    n_released_columns = if (!is.null(released)) ncol(released),
    identifiers = identifiers, keys = keys, sensitive = sensitive, vars = vars,
    model = list(term = meta$term, family = meta$family, risk = meta$risk),
    context = context_lines(context),
    context_stated = !is.null(context),
    threshold = threshold,
    risk_table = if (!is.null(released) && length(keys))
      if (!is.null(masked)) scheme_risk_table(released, as_plain_data(masked), keys, sensitive, context)
      else risk_rows(released, keys, sensitive, context),
    masked_given = !is.null(masked),
    class_sizes = if (!is.null(masked) && length(keys)) class_size_counts(as_plain_data(masked), keys),
    profile = safe,
    table = table,
    recommendation = rec,
    recommendation_text = if (!is.null(rec)) format(rec),
    recommendation_notes = rn$notes,
    choice = choice %||% (if (!is.null(rec)) rec$scheme),
    chosen_is_recommended = is.null(choice) || (!is.null(rec) && identical(choice, rec$scheme)),
    withheld = any(labels != ru$scheme),
    seed = seed,
    call = report_call(call, any(labels != ru$scheme)),
    versions = c(epimask = as.character(utils::packageVersion("epimask")),
                 R = paste(R.version$major, R.version$minor, sep = "."))
  )
}

# Schemes whose parameters must not travel with a release (kernel, lambda,
# bandwidth, matrices) get neutral labels; the others keep theirs.
report_labels <- function(ru) {
  tab <- as.data.frame(ru)
  safe_types <- c("none", "round", "truncate", "group", "noise", "microagg", "pram", "swap", "topcode")
  hidden <- grepl("kernel|lambda|bandwidth|matrix mask", tab$scheme)
  if ("kernel" %in% names(tab)) hidden <- hidden | !(tab$kernel %in% safe_types)
  labels <- tab$scheme
  labels[hidden] <- sprintf("smoothing scheme %s (parameters withheld)", LETTERS[seq_len(sum(hidden))])
  labels
}

redact_profile <- function(ru, labels) {
  old <- ru$scheme
  if (identical(old, labels)) return(ru)
  reps <- attr(ru, "replicates")
  if (is.data.frame(reps) && "scheme" %in% names(reps))
    reps$scheme <- labels[match(reps$scheme, old)]
  attr(ru, "replicates") <- reps
  tab <- as.data.frame(ru)
  if ("kernel" %in% names(tab)) ru$kernel <- ifelse(labels != old, "withheld", tab$kernel)
  ru$scheme <- labels
  ru
}

report_call <- function(call, withheld) {
  if (withheld) return("Withheld: the call names the kernel and lambda of smoothing schemes; the custodian keeps it with the profile.")
  if (is.null(call)) return(NULL)
  if (is.character(call)) paste(call, collapse = "\n") else paste(deparse(call), collapse = "\n")
}

# Counts of equivalence classes by size (never their key values).
class_size_counts <- function(data, keys) {
  kan <- tryCatch(risk_kanon(data, keys = keys), error = function(e) NULL)
  if (is.null(kan)) return(NULL)
  size <- as.vector(table(kan$group))
  bins <- cut(size, c(0, 1, 2, 4, 10, 20, Inf), labels = c("1", "2", "3-4", "5-10", "11-20", "over 20"))
  out <- as.data.frame(table(bins), stringsAsFactors = FALSE)
  names(out) <- c("class_size", "classes")
  out$records <- as.integer(tapply(size, bins, sum, default = 0))
  out
}
