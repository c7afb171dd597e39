# Data for the workbench: reading an uploaded file without ever stopping the
# app, describing the data by counts (never values), and the defaults the app
# proposes for the bundled data sets. Everything here is plain R, testable
# without shiny.

# The largest upload the workbench reads (MB); larger data are loaded at the
# console and passed to run_workbench(data).
workbench_max_mb <- function() {
  mb <- getOption("epimask.workbench_max_mb", 50)
  if (!is.numeric(mb) || length(mb) != 1L || is.na(mb) || mb <= 0) 50 else mb
}

# One outcome of reading: the data (or NULL) and a message for the custodian.
upload_result <- function(data = NULL, message = "", level = c("info", "warning", "error")) {
  list(data = data, message = message, level = match.arg(level))
}

upload_error <- function(...) upload_result(NULL, paste0(...), "error")

#' Read an uploaded CSV, RDS, SAS, Stata or SPSS file for the workbench
#'
#' Internal. Never throws: every problem (empty file, wrong extension, file
#' too large, not UTF-8, binary content, unreadable CSV, RDS, SAS, Stata or
#' SPSS file, haven missing, an object that is not a data frame, no records)
#' becomes a message with level "error".
#' @param path the file on disk (shiny's temporary copy).
#' @param name the file's original name (its extension decides the reader).
#' @param max_mb the largest size read, in MB.
#' @return list(data, message, level).
#' @noRd
read_workbench_upload <- function(path, name = basename(path), max_mb = workbench_max_mb()) {
  if (!length(path) || is.na(path) || !file.exists(path))
    return(upload_error("The upload did not arrive; try again."))
  size <- file.size(path)
  if (is.na(size) || size == 0)
    return(upload_error("The file '", name, "' is empty."))
  if (size > max_mb * 1e6)
    return(upload_error(sprintf(
      "The file '%s' is %.1f MB; the workbench reads at most %g MB. Load larger data at the console and pass them: run_workbench(data).",
      name, size / 1e6, max_mb)))
  ext <- tolower(file_extension(name))
  res <- switch(ext,
    csv = , txt = , tsv = read_upload_text(path, name, sep = if (ext == "tsv") "\t" else ","),
    rds = read_upload_rds(path, name),
    sas7bdat = , xpt = , dta = , sav = read_upload_haven(path, name, ext),
    upload_error("The file '", name, "' is neither a .csv nor an .rds file, nor a SAS ",
                 "(.sas7bdat, .xpt), Stata (.dta) or SPSS (.sav) file."))
  if (!is.null(res$data)) res <- check_upload_data(res$data, name)
  res
}

# The extensions the upload reads.
workbench_upload_types <- function() c("csv", "txt", "tsv", "rds", "sas7bdat", "xpt", "dta", "sav")

# SAS, Stata and SPSS files through haven (Suggests): labelled values become
# factors (their labels as levels; unlabelled values keep their value as a
# level), variable labels, formats and widths are dropped, the tibble becomes
# a data frame. A file haven cannot read is a message, as for CSV.
read_upload_haven <- function(path, name, ext) {
  kind <- switch(ext, sas7bdat = "SAS", xpt = "SAS transport (XPT)", dta = "Stata",
                 sav = "SPSS")
  if (!requireNamespace("haven", quietly = TRUE))
    return(upload_error(sprintf(paste0("Reading the %s file '%s' needs the haven package: ",
                                       "install.packages(\"haven\"), or save it as UTF-8 CSV."),
                                kind, name)))
  reader <- switch(ext, sas7bdat = haven::read_sas, xpt = haven::read_xpt,
                   dta = haven::read_dta, sav = haven::read_sav)
  data <- tryCatch(reader(path), error = function(e) e, warning = function(w) w)
  if (inherits(data, "condition"))
    return(upload_error(sprintf("The file '%s' could not be read as a %s file: %s", name, kind,
                                conditionMessage(data))))
  data <- haven::as_factor(data, levels = "default", only_labelled = TRUE)
  data <- haven::zap_widths(haven::zap_formats(haven::zap_label(data)))
  data <- as.data.frame(data, stringsAsFactors = FALSE)
  for (j in seq_along(data)) attr(data[[j]], "label") <- NULL
  upload_result(data)
}

# "data.CSV" -> "CSV"; "" without an extension.
file_extension <- function(name) {
  hit <- regexpr("\\.([[:alnum:]]+)$", name)
  if (hit < 0) "" else substring(name, hit + 1L)
}

read_upload_text <- function(path, name, sep = ",") {
  bytes <- readBin(path, "raw", n = file.size(path))
  if (any(bytes == as.raw(0L)))
    return(upload_error("The file '", name, "' is binary, not a text (CSV) file."))
  text <- rawToChar(bytes)
  if (!validUTF8(text))
    return(upload_error("The file '", name, "' is not UTF-8 encoded (perhaps Latin-1 or ",
                        "Windows-1252). Save it as UTF-8 CSV and upload it again."))
  Encoding(text) <- "UTF-8"
  # A byte-order mark is valid UTF-8 but would end up in the first column name.
  text <- sub("^\ufeff", "", text)
  if (!nzchar(trimws(text)))
    return(upload_error("The file '", name, "' holds only blank space."))
  data <- tryCatch(
    utils::read.csv(text = text, sep = sep, stringsAsFactors = FALSE,
                    encoding = "UTF-8", strip.white = TRUE, na.strings = c("", "NA")),
    error = function(e) e, warning = function(w) w)
  if (inherits(data, "condition"))
    return(upload_error("The file '", name, "' could not be read as CSV: ",
                        conditionMessage(data)))
  upload_result(data)
}

read_upload_rds <- function(path, name) {
  obj <- tryCatch(readRDS(path), error = function(e) e, warning = function(w) w)
  if (inherits(obj, "condition"))
    return(upload_error("The file '", name, "' is not a readable RDS file: ",
                        conditionMessage(obj)))
  if (is.matrix(obj)) obj <- as.data.frame(obj)
  if (!is.data.frame(obj))
    return(upload_error(sprintf("The RDS file '%s' holds an object of class '%s', not a data frame.",
                                name, class(obj)[[1L]])))
  upload_result(as.data.frame(obj, stringsAsFactors = FALSE))
}

# Checks every source of data goes through (uploads and data passed in):
# records, columns, types the masks and risk measures can use.
check_upload_data <- function(data, name) {
  if (!nrow(data) || !ncol(data))
    return(upload_error(sprintf("'%s' has no records (%d rows, %d columns).",
                                name, nrow(data), ncol(data))))
  bad <- names(data)[!vapply(data, is_workbench_column, logical(1))]
  if (length(bad))
    return(upload_error(sprintf(
      "'%s' has columns of a type the workbench cannot use (lists, nested tables or dates-times): %s.",
      name, paste(bad, collapse = ", "))))
  numeric <- vapply(data, is.numeric, logical(1))
  msg <- sprintf("Loaded '%s': %d records, %d columns (%d numeric).", name,
                 nrow(data), ncol(data), sum(numeric))
  if (!any(numeric))
    return(upload_result(data, paste(msg, "No column is numeric, so no numeric mask applies;",
                                     "check the decimal separator (the workbench reads '.')."),
                         "warning"))
  upload_result(data, msg, "info")
}

is_workbench_column <- function(x) {
  is.atomic(x) && is.null(dim(x)) && !inherits(x, c("POSIXt", "difftime")) &&
    (is.numeric(x) || is.character(x) || is.factor(x) || is.logical(x) || inherits(x, "Date"))
}

#' Describe a data set by counts, never by values
#'
#' Internal. One row per column: its role in the release, type, number
#' missing, number of distinct values.
#' @noRd
describe_columns <- function(data, roles = list()) {
  role_of <- function(v) {
    hit <- names(roles)[vapply(roles, function(r) v %in% r, logical(1))]
    if (length(hit)) paste(hit, collapse = ", ") else "other"
  }
  data.frame(
    column = names(data),
    role = vapply(names(data), role_of, character(1), USE.NAMES = FALSE),
    type = vapply(data, function(x) class(x)[[1L]], character(1), USE.NAMES = FALSE),
    missing = vapply(data, function(x) sum(is.na(x)), integer(1), USE.NAMES = FALSE),
    distinct = vapply(data, function(x) length(unique(x)), integer(1), USE.NAMES = FALSE),
    stringsAsFactors = FALSE
  )
}

# What the app proposes for the bundled data sets (the custodian can change it).
# The risk is record linkage on the variables the intruder knows: it sees
# noise (exact-match identifiability scores noise as safe by construction)
# and takes milliseconds on 16,000 records through its k-d tree, so every
# replicate of every noise scheme can be measured.
workbench_presets <- function() {
  list(
    # several visits per participant: the participant is the unit of risk
    # (person column pid), the visits are the records
    trial_visits = list(
      identifiers = character(), person = "pid", keys = c("site", "sex", "birth"),
      sensitive = "event", vars = "sbp", formula = "sbp ~ arm + sex", family = "gaussian",
      term = "arm", risk = "linkage", known = "sbp",
      schemes = list(round_sig = c(2, 1), round_dec = integer(), noise = "5, 20")),
    dose_cohort = list(
      identifiers = "id", keys = c("city", "sex", "age_exp", "dose"), sensitive = "case",
      vars = "dose", formula = "case ~ dose", family = "binomial", term = "dose",
      risk = "linkage", known = "dose",
      schemes = list(round_sig = c(3, 2, 1), round_dec = integer(), noise = "0.1")),
    zip_mortality = list(
      identifiers = "zip", keys = character(), sensitive = character(),
      vars = "p_black", formula = "deaths ~ p_black + offset(log(person_years))",
      family = "poisson", term = "p_black", risk = "linkage", known = "p_black",
      schemes = list(round_sig = c(2, 1), round_dec = integer(), noise = "0.05"))
  )
}

# The choices of the person column: none (one record per person) or a column.
workbench_person_choices <- function(cols) {
  c("(none: one record per person)" = "", stats::setNames(cols, cols))
}

# The bundled data sets the workbench offers.
workbench_bundled <- function() c("dose_cohort", "zip_mortality", "trial_visits")

workbench_preset <- function(name, data) {
  preset <- workbench_presets()[[name]]
  if (!is.null(preset)) return(preset)
  numeric <- names(data)[vapply(data, is.numeric, logical(1))]
  ids <- names(data)[tolower(names(data)) %in% c("id", "ident", "identifier", "name", "patient_id")]
  numeric <- setdiff(numeric, ids)
  response <- if (length(numeric)) numeric[[1L]] else names(data)[[1L]]
  covariate <- if (length(numeric) > 1L) numeric[[2L]] else "1"
  list(identifiers = ids, person = character(), keys = character(), sensitive = character(),
       vars = if (length(numeric) > 1L) numeric[[2L]] else character(),
       formula = paste(response, "~", covariate), family = "gaussian",
       term = if (covariate != "1") covariate else "", risk = "linkage",
       known = if (length(numeric) > 1L) numeric[[2L]] else character(),
       schemes = list(round_sig = c(3, 2, 1), round_dec = integer(), noise = ""))
}
