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
#' against the threshold (the methods vignette, section 17), the schemes compared with
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
#' the noise). The report says so in its last section. The seed recorded
#' with the profile reproduces the *assessment* (the profile), not the
#' released file.
#'
#' **Releases that are samples.** Where the profile's risk criteria or `risk`
#' include population uniqueness ([uniqueness()]), the log-linear risk
#' ([loglinear_risk()]) or cluster risk ([cluster_risk()]), the risk table
#' gains their rows for the original data and
#' the release, computed by [risk_population()], [risk_loglinear()] and
#' [risk_individual()]: the estimated number and share of population uniques
#' (and, for a public context, the public attack judged by that share, as
#' `risk_release(uniqueness = )` computes it); tau1, tau2 and the highest
#' record risk of a correct match; the expected re-identifications and their
#' share when a cluster falls with any member, and the highest cluster risk.
#' Notes under the table name the model chosen, whether it converged (or
#' why not: then no number is given), the sampling fraction and the cluster
#' column; a paragraph explains each measure for an ethics board (in the
#' order of the criteria). A cluster column that the release drops is taken
#' from `data` (same records). The report of a [deidentify()] release shows
#' the same rows, original and release, for the criteria of its search and
#' of its context, with each limit the search used, and a table with one
#' row per criterion stated for the release (its `criteria`), recounted on
#' it ([criterion_report_row()]).
#'
#' **Several records per person.** When the report's `risk` criterion carries
#' a person column (`id`, as a [risk_spec()] of epimask 0.3 with `id` did) or
#' the profile was made with `ru_profile(id = )`, every class, risk and
#' verdict of the report counts persons (methods vignette, section 23): the
#' risk table's labels say "by persons", the class sizes count persons, and
#' the data section gives persons and records. A person column that the
#' release drops is taken from `data` (same records in the same order).
#'
#' **What carries the settings.** The profile `x` carries the masked
#' variables, the seed, the call and the name of the data (recorded by
#' [ru_profile()]) and its risk budget; `release` the scheme chosen and the
#' released data (the identifiers are the original's columns it drops);
#' `risk` the quasi-identifiers and sensitive variables of the risk tables
#' (a criterion with its `keys`, e.g. `avg_risk(NA, strict = TRUE, keys = )`
#' or `l_diversity(NA, sensitive, keys = )`); `context` the threshold and the
#' attacks.
#'
#' @param x An `ru_profile` (from [ru_profile()]), a protected count table
#'   (from [suppress_table()]: the report gives the table, the rules, the
#'   pattern and its audit, never a suppressed or true value; `file`,
#'   `title`, `quiet` and `data_name` apply), or an `epimask_release`
#'   (from [deidentify()]): then the report documents the release, with its
#'   certificate (each attack of the context recounted on the release) as the
#'   verdict, the steps taken with their information loss and the
#'   collaborator's coefficient, and the risk before and after; `data`,
#'   `data_name`, `call`, `title` and `quiet` apply, the other arguments come
#'   from the release.
#' @param file Path of the HTML file to write.
#' @param data The original data (described by counts only), or `NULL`.
#' @param release What is released: `NULL` (the recommended scheme, no
#'   released data), a scheme label of the profile, a list with `scheme`
#'   (the label) and `data` (the released data set, for its risk table;
#'   columns of `data` it leaves out are reported as dropped identifiers), or
#'   the `epimask_release` of `deidentify()` (its data are released; the
#'   report says so instead of naming a scheme of the profile).
#' @param risk A [risk criterion][new_risk_criterion()] carrying the
#'   quasi-identifiers (`keys`) and, for [l_diversity()], the `sensitive`
#'   variables of the risk tables; `NULL` for none; or a list of criteria
#'   (the first names the keys). [uniqueness()], [loglinear_risk()] and
#'   [cluster_risk()] add their rows to the risk table, as the profile's own
#'   criteria do (see Details).
#' @param context A [release_context()] (or `NULL`: then the threshold is the
#'   profile's budget, else 0.2). Taken from the profile's metadata when
#'   `NULL` and the profile carries one.
#' @param title The report's title.
#' @param quiet Passed to [rmarkdown::render()].
#' @param declare `NULL`, or the columns of the released data the custodian
#'   declares safe, with the reason (as for [review_columns()] and
#'   [deidentify()]): the report runs the column review on the released data
#'   (`release = list(scheme, data)`) and shows every column's role, the
#'   declarations and the flagged columns left undeclared. For a
#'   [deidentify()] release, the declarations are deidentify()'s (its
#'   certificate was counted with them): `declare` must be left out or be
#'   the same.
#' @param ... Deprecated arguments of epimask 0.2 (`vars`, `keys`,
#'   `sensitive`, `identifiers`, `choice`, `masked`, `seed`, `call`,
#'   `data_name`, `max_risk`), still honoured with a warning of class
#'   `epimask_warning_deprecated`.
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
#'   ru <- ru_profile(dose_cohort[, -1], list(mask_round(2), mask_round(1)),
#'                    case ~ dose, family = binomial(), vars = "dose",
#'                    risk = identifiability("dose"), seed = 1,
#'                    progress = FALSE)
#'   released <- apply_mask(dose_cohort[, -1], mask_round(1), "dose")
#'   out <- release_report(ru, tempfile(fileext = ".html"), data = dose_cohort,
#'                         release = list(scheme = "rounding to 1 significant digit",
#'                                        data = released),
#'                         risk = avg_risk(NA, strict = TRUE, keys = c("city", "sex")))
#'   file.exists(out)
#' }
release_report <- function(x, file, data = NULL, release = NULL, risk = NULL, context = NULL,
                           title = "De-identification report", quiet = TRUE, declare = NULL,
                           ...) {
  # a protected count table: its own report (report-table.R)
  if (inherits(x, "epimask_protected_table")) {
    named <- list(...)
    return(release_report_table(x, file, quiet = quiet, data_name = named$data_name,
                                title = if (missing(title)) "Disclosure report of a protected table" else title))
  }
  if (inherits(x, "epimask_release")) {
    # a deidentify() result carries its settings; `data_name` and `call` may
    # still be given by name
    named <- list(...)
    # the certificate was counted with deidentify()'s declarations: the
    # report cannot add any
    if (!is.null(declare) && !identical(declare[order(names(declare))],
                                        x$declared[order(names(x$declared))]))
      abort_value("declare", paste0(
        "left out for a deidentify() release, or the declarations given to deidentify() ",
        "(its certificate was counted with them; declare there and run it again)"))
    return(release_report_deidentified(x, file, data = data, data_name = named$data_name,
                                       call = named$call, title = title, quiet = quiet))
  }
  check_ru_profile(x)
  file <- check_writable(check_string(file), create_dir = TRUE)
  quiet <- check_flag(quiet)
  if (!is.null(context) && !inherits(context, "release_context"))
    abort_type("context", "a release_context() or NULL")
  title <- check_string(title)
  settings <- report_settings(x, data, release, risk, list(...))
  do.call(check_report_args, c(list(data = data),
                               settings[setdiff(names(settings),
                                                c("max_risk", "deidentified", "specs", "id"))]))
  for (nm in c("rmarkdown", "knitr"))
    if (!requireNamespace(nm, quietly = TRUE))
      epimask_abort(sprintf("release_report() needs the %s package.", nm), "epimask_error_dependency")
  if (!rmarkdown::pandoc_available())
    epimask_abort("release_report() needs pandoc (https://pandoc.org).", "epimask_error_dependency")
  content <- do.call(report_content, c(list(x, data = data, context = context, title = title),
                                       settings))
  content$column_review <- report_column_review(settings, declare)
  render_report(content, file, quiet = quiet)
}

# The report's settings from the objects that carry them (the profile, the
# release, the risk spec), or from the deprecated arguments of 0.2 in `old`.
report_settings <- function(x, data, release, risk, old = list()) {
  deprecated <- c("vars", "keys", "sensitive", "identifiers", "choice", "masked", "seed",
                  "call", "data_name", "max_risk")
  unknown <- setdiff(names(old), deprecated)
  if (length(unknown) || (length(old) && is.null(names(old))))
    abort_value("...", sprintf("empty (unknown argument%s: %s)",
                               if (length(unknown) == 1L) "" else "s",
                               paste(if (length(unknown)) unknown else "unnamed", collapse = ", ")))
  if (length(old))
    epimask_warn(sprintf(paste0("release_report(): %s %s deprecated; the profile carries vars, ",
                                "seed, call and data name, `release = list(scheme, data)` the ",
                                "choice and the released data, `risk = risk_spec(...)` the keys ",
                                "and sensitive variables, `context` the threshold."),
                         paste0("`", names(old), "`", collapse = ", "),
                         if (length(old) == 1L) "is" else "are"),
                 "epimask_warning_deprecated")
  if (!is.null(old$max_risk)) old$max_risk <- check_number(old$max_risk, "max_risk", lower = 0, upper = 1)
  # several criteria: the first names the keys of the tables, every one adds
  # its rows (population uniqueness, log-linear and cluster risk)
  risks <- if (is.list(risk) && !is_risk_criterion(risk)) risk else list(risk)
  if (!length(risks) || !all(vapply(risks, function(r) is.null(r) || is_risk_criterion(r),
                                    logical(1))))
    abort_type("risk", "a risk criterion with its `keys` (and `sensitive`), a list of them, or NULL")
  risks <- Filter(Negate(is.null), risks)
  risk <- if (length(risks)) risks[[1L]]
  choice <- masked <- NULL
  deidentified <- FALSE
  if (inherits(release, "epimask_release")) {
    # the result of deidentify(): its data are released, no scheme of the profile
    masked <- release$data
    check_data(masked, "release$data")
    deidentified <- TRUE
  } else if (is.character(release)) {
    choice <- check_string(release, "release")
  } else if (is.list(release) && !is.data.frame(release)) {
    choice <- check_string(release$scheme, "release$scheme", allow_null = TRUE)
    masked <- release$data
    if (!is.null(masked)) check_data(masked, "release$data")
  } else if (!is.null(release)) {
    abort_type("release", "a scheme label, a list(scheme = , data = ), or NULL")
  }
  meta <- ru_meta(x)
  identifiers <- if (!is.null(data) && !is.null(masked)) setdiff(names(data), names(masked))
  pick <- function(name, new) if (!is.null(old[[name]])) old[[name]] else new
  list(vars = pick("vars", if (!is.null(data)) meta$vars),
       keys = pick("keys", risk$keys),
       sensitive = pick("sensitive", if (!is.null(risk) && length(criterion_sensitive(risk)$sensitive))
                                       criterion_sensitive(risk)$sensitive),
       identifiers = pick("identifiers", if (length(identifiers)) identifiers),
       choice = pick("choice", choice), masked = pick("masked", masked),
       seed = pick("seed", meta$seed), call = pick("call", meta$call),
       data_name = pick("data_name", meta$data_name),
       max_risk = pick("max_risk", meta$budget %||% 0.2),
       deidentified = deidentified,
       specs = c(risks, meta$risk_criteria %||% list(meta$risk_spec)),
       # the person column: the report's criterion's, else the profile's
       id = risk$id %||% meta$risk_id)
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

# Text for a report's markdown, as the templates write it (free text and the
# cells of their HTML tables, which pandoc reads as markdown too): HTML's
# specials and markdown's brackets, emphasis, code and escape marks as
# character references. Left raw, a paragraph with many unmatched "[" (the
# levels "dose[0.6,0.7)" of a key refitted as a factor) costs pandoc's
# link parser minutes and gigabytes; a "*" label becomes a bullet.
md_escape <- function(x) {
  x <- as.character(x)
  marks <- c("&" = "&amp;", "<" = "&lt;", ">" = "&gt;", "\"" = "&quot;", "'" = "&#39;",
             "[" = "&#91;", "]" = "&#93;", "*" = "&#42;", "_" = "&#95;", "`" = "&#96;",
             "\\" = "&#92;")
  for (m in names(marks)) x <- gsub(m, marks[[m]], x, fixed = TRUE)
  x
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
                           title = "De-identification report", deidentified = FALSE,
                           specs = NULL, id = NULL) {
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
  # with a person column every class counts persons: the column is kept in
  # the data measured, and attached to the release (same records) when the
  # release drops it
  if (!is.null(id) && (is.null(original) || !id %in% names(original))) id <- NULL
  released <- if (!is.null(original))
    original[, setdiff(names(original), setdiff(identifiers, id)), drop = FALSE]
  if (!is.null(masked)) masked <- person_counted(as_plain_data(masked), original, id)
  if (!is.null(id) && !is.null(masked) && !id %in% names(masked)) id <- NULL
  table <- profile_display_table(safe)
  # the profile's further criteria (risk = list(...)): one column each
  for (col in profile_extra_risk_columns(safe)) table[[col]] <- safe[[col]]
  table$within_threshold <- ifelse(is.na(table$risk), NA, table$risk <= threshold)
  # the records each scheme's fits left out, where any did (U rests on the rest)
  if (any(safe$records_lost > 0, na.rm = TRUE)) {
    table$records_used <- safe$records_used
    table$records_lost <- safe$records_lost
    lost_note <- profile_records_note(safe)
    rn$notes <- c(rn$notes, lost_note)
  }
  chosen <- if (deidentified) NULL else choice %||% (if (!is.null(rec)) rec$scheme)
  # the certificate is the verdict: the released data against every risk
  # (de-identified data are no scheme of the profile: the context's attacks)
  verdict <- if (!is.null(masked) && (deidentified || (!is.null(chosen) && chosen %in% safe$scheme)))
    release_verdict(as_plain_data(masked), keys, context,
                    if (!deidentified) safe$risk[safe$scheme == chosen], ru_meta(ru)$risk,
                    threshold, id = id)
  meta <- ru_meta(ru)
  # population uniqueness, log-linear and cluster risk where the report's or
  # the profile's criteria name them, counting by the report's person column
  specs <- lapply(sample_risk_criteria(specs), function(cr) {
    cr$id <- cr$id %||% id
    cr
  })
  risk_table <- if (!is.null(released) && (length(keys) || length(specs)))
    if (!is.null(masked)) scheme_risk_table(released, as_plain_data(masked), keys, sensitive,
                                            context, specs, source = original, id = id)
    else risk_rows(released, keys, sensitive, context, specs, original = original,
                   what = "the original data", id = id)
  list(
    title = title,
    date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    data_name = data_name %||% "the data",
    description = if (!is.null(original))
      describe_columns(original, list(identifier = identifiers, `quasi-identifier` = keys,
                                      sensitive = sensitive, masked = vars)),
    n_records = if (!is.null(original)) nrow(original),
    n_released_columns = if (!is.null(released))
      ncol(released) - as.integer(!is.null(id) && id %in% identifiers),
    identifiers = identifiers, keys = keys, sensitive = sensitive, vars = vars,
    model = list(term = meta$term, family = meta$family, risk = profile_risks_text(meta)),
    context = context_lines(context),
    context_stated = !is.null(context),
    threshold = threshold,
    risk_table = risk_table,
    risk_notes = attr(risk_table, "notes"),
    risk_explained = if (!is.null(risk_table)) sample_risk_explanations(specs, context),
    masked_given = !is.null(masked),
    class_sizes = if (!is.null(masked) && length(keys)) class_size_counts(as_plain_data(masked), keys, id),
    id = id,
    n_persons = if (!is.null(id)) length(unique(original[[id]])),
    profile = safe,
    table = table,
    recommendation = rec,
    recommendation_text = if (!is.null(rec)) format(rec),
    recommendation_notes = rn$notes,
    choice = chosen,
    verdict = verdict,
    deidentified = deidentified,
    chosen_is_recommended = is.null(choice) || (!is.null(rec) && identical(choice, rec$scheme)),
    withheld = any(labels != ru$scheme),
    seed = seed,
    call = report_call(call, any(labels != ru$scheme)),
    versions = c(epimask = as.character(utils::packageVersion("epimask")),
                 R = paste(R.version$major, R.version$minor, sep = "."))
  )
}

# Schemes whose parameters must not travel with a release (the `withheld`
# trait of their type: kernels' kernel and lambda, matrix masks' matrices)
# get the neutral words of their type's mask_report_label() and a letter
# ("smoothing scheme A (parameters withheld)"); the others keep their labels.
# A profile that does not record it (saved before 0.5) has every scheme but
# the unmasked reference withheld: nothing is shown that may not be.
report_labels <- function(ru) {
  tab <- as.data.frame(ru)
  words <- tab$report_label
  if (is.null(words))
    words <- ifelse(ru_is_reference(ru), NA_character_, "masking scheme")
  hidden <- !is.na(words)
  labels <- tab$scheme
  labels[hidden] <- sprintf("%s %s (parameters withheld)", words[hidden],
                            withheld_letters(sum(hidden)))
  labels
}

# A, B, ..., Z, AA, AB, ...: one letter code per withheld scheme.
withheld_letters <- function(n) {
  out <- character(n)
  for (i in seq_len(n)) {
    k <- i
    code <- ""
    while (k > 0) {
      code <- paste0(LETTERS[(k - 1L) %% 26L + 1L], code)
      k <- (k - 1L) %/% 26L
    }
    out[[i]] <- code
  }
  out
}

redact_profile <- function(ru, labels) {
  old <- ru$scheme
  if (identical(old, labels)) return(ru)
  reps <- attr(ru, "replicates")
  if (is.data.frame(reps) && "scheme" %in% names(reps))
    reps$scheme <- labels[match(reps$scheme, old)]
  attr(ru, "replicates") <- reps
  tab <- as.data.frame(ru)
  if ("mask_family" %in% names(tab))
    ru$mask_family <- ifelse(labels != old, "withheld", tab$mask_family)
  if ("label" %in% names(tab)) ru$label <- ifelse(labels != old, labels, tab$label)
  ru$scheme <- labels
  ru
}

report_call <- function(call, withheld) {
  if (withheld) return("Withheld: the call names the parameters of the schemes withheld above; the custodian keeps it with the profile.")
  if (is.null(call)) return(NULL)
  if (is.character(call)) paste(call, collapse = "\n") else paste(deparse(call), collapse = "\n")
}

# Counts of equivalence classes by size (never their key values).
class_size_counts <- function(data, keys, id = NULL) {
  kan <- tryCatch(risk_kanon(data, keys = keys, id = id), error = function(e) NULL)
  if (is.null(kan)) return(NULL)
  # with a person column the sizes count persons
  size <- class_sizes_of(kan, id)
  bins <- cut(size, c(0, 1, 2, 4, 10, 20, Inf), labels = c("1", "2", "3-4", "5-10", "11-20", "over 20"))
  out <- as.data.frame(table(bins), stringsAsFactors = FALSE)
  names(out) <- c(if (is.null(id)) "class_size" else "class_size_persons", "classes")
  out[[if (is.null(id)) "records" else "persons"]] <- as.integer(tapply(size, bins, sum, default = 0))
  out
}

# The column review of the released data of a profile's report (with
# `release = list(scheme, data)`): every column's role, the custodian's
# declarations, and the flagged columns left undeclared, which the risk
# table (on the quasi-identifiers) does not count. NULL without released
# data.
report_column_review <- function(settings, declare) {
  masked <- settings$masked
  if (is.null(masked)) {
    if (!is.null(declare))
      abort_value("declare", "given with the released data (`release = list(scheme = , data = )`)")
    return(NULL)
  }
  frame <- as_plain_data(as.data.frame(masked))
  keys <- intersect(settings$keys %||% character(), names(frame))
  sensitive <- intersect(settings$sensitive %||% character(), names(frame))
  id <- if (!is.null(settings$id) && settings$id %in% names(frame)) settings$id
  review <- review_columns(frame, keys, sensitive = if (length(sensitive)) sensitive,
                           id = id, declare = declare)
  tab <- review$columns
  list(table = data.frame(Column = tab$column, Type = tab$type, Role = tab$role,
                          Status = ifelse(tab$status == "declared",
                                          paste0("declared safe: ", tab$declared),
                                          ifelse(tab$status == "pending", "FLAGGED, not declared",
                                                 tab$status)),
                          Evidence = shorten_evidence(tab$evidence, 160L),
                          check.names = FALSE, stringsAsFactors = FALSE),
       pending = review$pending, declared = review$declared)
}

# The profile's risk criteria in words for the report: the first (the risk
# column) and the others (columns risk_<name>), with the Article 29 sentence
# when the three attacks are among them.
profile_risks_text <- function(meta) {
  crits <- meta$risk_criteria
  if (length(crits) < 2L) return(meta$risk)
  attacks <- article29_statement(crits)
  paste0(meta$risk, sprintf(" (column risk); further criteria, one column each: %s",
                            paste(vapply(crits[-1L], format, ""), collapse = "; ")),
         if (!is.null(attacks)) sprintf("; together %s", attacks) else "")
}
