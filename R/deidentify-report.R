# The de-identification report of a deidentify() release: release_report()
# hands an epimask_release here. The content is assembled as plain R objects
# (tested without pandoc); inst/report/deidentify-report.Rmd lays it out. The
# certificate (each attack recounted on the release) is the verdict.

release_report_deidentified <- function(x, file, data = NULL, data_name = NULL, call = NULL,
                                        title = "De-identification report", quiet = TRUE) {
  file <- check_string(file)
  quiet <- check_flag(quiet)
  title <- check_string(title)
  if (!is.null(data)) data <- check_data(data, "data")
  check_string(data_name, "data_name", allow_null = TRUE)
  if (!is.null(call) && !is.call(call)) check_string(call, "call")
  for (nm in c("rmarkdown", "knitr"))
    if (!requireNamespace(nm, quietly = TRUE))
      epimask_abort(sprintf("release_report() needs the %s package.", nm), "epimask_error_dependency")
  if (!rmarkdown::pandoc_available())
    epimask_abort("release_report() needs pandoc (https://pandoc.org).", "epimask_error_dependency")
  content <- deidentify_report_content(x, data = data, data_name = data_name, call = call,
                                       title = title)
  render_report(content, file, quiet = quiet, template = "deidentify-report.Rmd")
}

deidentify_report_content <- function(x, data = NULL, data_name = NULL, call = NULL,
                                      title = "De-identification report") {
  ids <- x$identifiers
  gen <- x$generalization
  cert <- x$certificate
  steps <- x$steps
  list(
    title = title,
    date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    data_name = data_name %||% "the data",
    description = if (!is.null(data))
      describe_columns(as_plain_data(data),
                       list(identifier = names(ids), `quasi-identifier` = x$keys,
                            sensitive = x$sensitive)),
    n_records = x$n,
    n_released = nrow(x$data),
    n_released_columns = ncol(x$data),
    keys = x$keys, sensitive = x$sensitive,
    identifiers = if (length(ids)) sprintf("%s (%s)", names(ids),
                                           ifelse(ids == "drop", "dropped", "pseudonymised")),
    context = context_lines(x$context),
    threshold = x$context$threshold,
    targets = x$targets$rule,
    pass = x$pass,
    overall_risk = x$overall_risk,
    certificate = data.frame(
      Attack = cert$attack, `Pr(attack)` = cert$pr_attack,
      `Pr(re-id | attack)` = cert$pr_reid_given, Risk = cert$risk,
      Threshold = cert$threshold, Verdict = ifelse(cert$pass, "pass", "FAIL"),
      check.names = FALSE, stringsAsFactors = FALSE),
    before = data.frame(Attack = x$risk_before$attacks$attack,
                        Risk = x$risk_before$attacks$risk, stringsAsFactors = FALSE),
    steps = data.frame(
      Step = steps$step, Action = steps$action, Records = steps$records,
      `Cells blanked` = steps$cells_blanked, Entropy = steps$entropy,
      `Precision loss` = steps$precision,
      check.names = FALSE, stringsAsFactors = FALSE),
    model = if (!is.null(x$model)) list(
      label = format(x$model$metric), term = x$model$term,
      table = data.frame(Step = steps$step, Estimate = steps$estimate, SE = steps$se,
                         U = steps$analysis_potential, stringsAsFactors = FALSE)),
    levels = data.frame(Key = x$keys, Level = unname(gen$levels),
                        Label = unname(gen$level_labels), stringsAsFactors = FALSE),
    by_key = if (!is.null(x$suppression))
      data.frame(Key = names(x$suppression$by_key), `Cells blanked` = unname(x$suppression$by_key),
                 check.names = FALSE),
    fallback = isTRUE(x$fallback),
    release = x,
    notes = release_notes(x),
    call = if (is.null(call)) x$call else if (is.call(call)) paste(deparse(call), collapse = "\n")
           else call,
    versions = c(epimask = as.character(utils::packageVersion("epimask")),
                 R = paste(R.version$major, R.version$minor, sep = ".")))
}
