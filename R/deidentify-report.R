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
  # population uniqueness, log-linear and cluster risk where the search used them
  sample <- deidentify_sample_rows(x, data)
  list(
    title = title,
    date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    data_name = data_name %||% "the data",
    description = if (!is.null(data))
      describe_columns(as_plain_data(data),
                       list(identifier = names(ids), `quasi-identifier` = x$keys,
                            sensitive = x$sensitive)),
    n_records = x$n,
    n_released = if (is.null(x$data)) 0L else nrow(x$data),
    released = !is.null(x$data),
    reason = x$reason, advice = x$advice,
    review = deidentify_review_table(x),
    review_lines = review_lines(x),
    declared = x$declared,
    analysis = analysis_lines(x),
    # the unit counted: "600 persons (3609 records)" with a person column
    units = if (is.null(x$id)) sprintf("%d records; %d released", x$n, NROW(x$data)) else
      sprintf("%d persons (%d records; person column '%s', not released as is); %d persons (%d records) released",
              x$n_persons, x$n, x$id, x$n_persons_released, NROW(x$data)),
    unit_phrase = if (is.null(x$id)) "" else
      sprintf(" by persons (`id = \"%s\"`: a person counts once in a class, whatever their records)", x$id),
    n_released_columns = if (is.null(x$data)) 0L else ncol(x$data),
    keys = x$keys, sensitive = x$sensitive,
    identifiers = if (length(ids)) sprintf("%s (%s)", names(ids),
                                           ifelse(ids == "drop", "dropped", "pseudonymised")),
    context = context_lines(x$context),
    threshold = x$context$threshold,
    targets = x$targets$rule,
    ranking = deidentify_ranking(x),
    pass = x$pass,
    overall_risk = x$overall_risk,
    certificate = data.frame(
      Attack = cert$attack, `Pr(attack)` = cert$pr_attack,
      `Pr(re-id | attack)` = cert$pr_reid_given, Risk = cert$risk,
      Threshold = cert$threshold, Verdict = ifelse(cert$pass, "pass", "FAIL"),
      check.names = FALSE, stringsAsFactors = FALSE),
    before = data.frame(Attack = x$risk_before$attacks$attack,
                        Risk = x$risk_before$attacks$risk, stringsAsFactors = FALSE),
    steps = deidentify_steps_table(steps),
    steps_units = deidentify_steps_units(x),
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
    sample_risk = sample$table,
    sample_notes = sample$notes,
    sample_explained = if (!is.null(sample$table))
      sample_risk_explanations(sample$criteria, x$context),
    criteria = deidentify_criteria_table(x),
    candidates = candidate_report(x),
    release = x,
    notes = release_notes(x),
    call = if (is.null(call)) x$call else if (is.call(call)) paste(deparse(call), collapse = "\n")
           else call,
    versions = c(epimask = as.character(utils::packageVersion("epimask")),
                 R = paste(R.version$major, R.version$minor, sep = ".")))
}

# The report's table of steps, each column headed with its unit: records
# (and with a person column persons) released and withheld, record cells
# blanked, the losses over the records of the data, the overall risk (by
# persons with a person column).
deidentify_steps_table <- function(steps) {
  persons <- "persons" %in% names(steps)
  withheld <- steps$records_dropped %||% (steps$records[[1L]] - steps$records)
  out <- data.frame(Step = steps$step, Action = steps$action, stringsAsFactors = FALSE)
  if (persons) {
    out$`Persons released` <- steps$persons
    out$`Persons withheld` <- steps$persons_dropped
  }
  out$`Records released` <- steps$records
  out$`Records withheld` <- withheld
  out$`Record cells blanked` <- steps$cells_blanked
  out$`Entropy loss (bits, over records)` <- steps$entropy
  out$`Precision loss (over records)` <- steps$precision
  out[[sprintf("Overall risk (by %s)", if (persons) "persons" else "records")]] <- steps$overall_risk
  out
}

# One sentence under the steps table: the units of its columns.
deidentify_steps_units <- function(x) {
  sprintf(paste0("Records and %scells count what the collaborator receives. The information losses are ",
                 "summed (entropy, in bits) or averaged (precision) over the keys of all %d records of ",
                 "the data, a withheld record or a blanked cell counting as fully generalized: the ",
                 "information lost is in the records received%s. The overall risk counts %s."),
          if (is.null(x$id)) "" else "persons (with all their records) and ", x$n,
          if (is.null(x$id)) "" else
            ", so a person with several records weighs as many times (the search ranked generalizations by losses over persons)",
          if (is.null(x$id)) "records" else "persons")
}

# What ranked the generalizations of a deidentify() result, in words.
deidentify_ranking <- function(res) {
  if (!is.null(res$model))
    return(sprintf("the collaborator's model (the analysis potential of %s)",
                   model_phrase(res$model$metric)))
  sprintf("the %s metric", res$generalization$metric %||% "entropy")
}

# "'dose' in case ~ dose (binomial (logit link))": what an analysis_loss() keeps best.
model_phrase <- function(model) {
  sprintf("%s in %s (%s)", if (is.null(model$term)) "the first coefficient" else
            sprintf("'%s'", model$term),
          paste(deparse(model$formula, width.cutoff = 500L), collapse = " "), model$label)
}

# The rows of the criteria with rows of their own (population uniqueness,
# log-linear and cluster risk) among those of the search and of the context:
# each measure on the original (when `data` is given) and on the release,
# with the criterion's limit in the notes.
deidentify_sample_rows <- function(x, data = NULL) {
  criteria <- sample_risk_criteria(c(x$generalization$risk_criteria, x$context$criteria))
  criteria <- lapply(criteria, function(cr) {
    cr$keys <- cr$keys %||% x$keys
    cr
  })
  with_rows <- Filter(function(cr) !is.null(criterion_detail_explanations(cr)), criteria)
  if (!length(with_rows)) return(list(table = NULL, notes = character(), criteria = list()))
  searched <- x$generalization$risk_criteria
  limits <- vapply(Filter(function(cr) any(vapply(searched, function(s)
    identical(unclass(s)[setdiff(names(s), "keys")], unclass(cr)[setdiff(names(cr), "keys")]),
    logical(1))), with_rows), criterion_limit_note, "")
  after <- sample_risk_rows(as_plain_data(x$data), with_rows, x$context, what = "the release")
  before <- if (!is.null(data))
    sample_risk_rows(as_plain_data(data), with_rows, x$context, what = "the original data")
  notes <- c(limits, before$notes, after$notes)
  if (is.null(after$table)) return(list(table = NULL, notes = notes, criteria = with_rows))
  tab <- data.frame(Measure = after$table$measure, stringsAsFactors = FALSE)
  if (!is.null(before$table))
    tab$Original <- before$table$value[match(tab$Measure, before$table$measure)]
  tab$Release <- after$table$value
  list(table = tab, notes = notes, criteria = with_rows)
}

# The certificate's row of each criterion the custodian or the context
# stated, recounted on the release (criterion_report_row()).
deidentify_criteria_table <- function(x) {
  rows <- x$criteria
  if (is.null(rows) || !nrow(rows)) return(NULL)
  data.frame(Criterion = rows$criterion, Value = rows$value, Bound = rows$bound,
             Verdict = ifelse(is.na(rows$pass), "reported", ifelse(rows$pass, "pass", "FAIL")),
             Counted = rows$unit, Note = ifelse(is.na(rows$note), "", rows$note),
             stringsAsFactors = FALSE)
}

# The column review as the certificate used it: every column of the data
# with its role, what the release did with it (a key the custodian gave, a
# flagged column counted as a key, declared safe with the reason, an
# identifier dropped or pseudonymised, sensitive) and the first finding.
deidentify_review_table <- function(x) {
  r <- x$review
  if (is.null(r)) return(NULL)
  tab <- r$columns
  ids <- x$identifiers
  given <- x$keys_given %||% x$keys
  added <- x$review_keys
  treatment <- ifelse(tab$column %in% given, "key (given)",
    ifelse(tab$column %in% names(added), "flagged: counted as a key",
    ifelse(tab$column %in% names(x$declared), paste0("declared safe: ", x$declared[tab$column]),
    ifelse(tab$column %in% names(ids), ifelse(ids[tab$column] == "drop", "dropped",
                                                "pseudonymised"),
    ifelse(tab$column %in% x$as_sensitive, "sensitive (the custodian's role)",
    ifelse(tab$column %in% x$dropped, "dropped (proxy)", ""))))))
  data.frame(Column = tab$column, Type = tab$type, Role = tab$role, `In the release` = treatment,
             Evidence = shorten_evidence(tab$evidence, 160L), check.names = FALSE,
             stringsAsFactors = FALSE)
}
