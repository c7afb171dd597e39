# Record-matching criteria (methods vignette, sections 5, 6 and 18): the
# intruder holds the original values of some columns and matches each
# original record to the released records. They compare every released
# record with its own original, so they need the original data (the same
# records, in order) and apply to masked values: risk-utility profiles and
# certificates. A generalization search cannot use them (generalized keys
# are labels, not values): ola() and deidentify() refuse them as search
# criteria with a classed error; a release context may state them for the
# certificate.

#' Record-matching and linkage risks as risk criteria
#'
#' Three measures that match each original record to the released records
#' on the columns an intruder knows (`known`):
#' \describe{
#'   \item{`match_risk()`}{[risk_match()]'s matching probability (methods
#'     vignette, section 5): the expected share of records an intruder
#'     matches correctly (`percent_correct / 100`), with the `unknown`
#'     columns predicted from the known ones. Sees noise, interval means and
#'     kernels.}
#'   \item{`linkage_risk()`}{[risk_linkage()]'s distance-based record linkage
#'     (section 18): the expected share of records whose nearest released
#'     record is their own.}
#'   \item{`identifiability()`}{[risk_identifiability()]'s exact matching
#'     (section 6): the identifiability score. Blind to masks that change
#'     values without creating ties (noise, kernels, matrix masks): a profile
#'     resting on it with such schemes warns.}
#' }
#' Each compares every released record with its own original, so it needs
#' the original data with the same records in the same order (what
#' [ru_profile()] gives it, and the certificate of [deidentify()] for the
#' released records). A lattice search cannot use them (generalized keys are
#' labels, not values): as `criteria` of [ola()] or [deidentify()] they are a
#' classed error; a [release_context()] may state them for the certificate.
#'
#' @param known The columns the intruder knows.
#' @param unknown `NULL` or the columns the intruder wants to learn
#'   (`match_risk()`).
#' @param max The largest accepted value, in \[0, 1\], or `NA` (reported
#'   only: a profile's risk axis).
#' @param ... Further arguments of [risk_match()] or [risk_linkage()]
#'   (`targets`, `threads`, `prob_tol`, `distance`, `method`, ...).
#' @return A risk criterion of class `c("risk_match_risk", "risk_criterion")`,
#'   `c("risk_linkage_risk", "risk_criterion")` or
#'   `c("risk_identifiability", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort[1:300, ]
#' m <- apply_mask(d, mask_noise(0.05), "dose")
#' criterion_evaluate(match_risk("dose"), m, original = d)
#' criterion_evaluate(linkage_risk("dose"), m, original = d)
#' criterion_evaluate(identifiability("dose"), apply_mask(d, mask_round(1), "dose"), original = d)
#' @export
match_risk <- function(known, unknown = NULL, max = NA, ...) {
  check_known(known, "known")
  if (!is.null(unknown)) check_known(unknown, "unknown")
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  args <- list(...)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args)))))
    abort_type("...", "named arguments of risk_match()")
  new_risk_criterion("match_risk", known = known, unknown = unknown, args = args,
                     columns = c(known, unknown),
                     label = sprintf("match risk (known: %s%s)", paste(known, collapse = ", "),
                                     if (!is.null(unknown))
                                       sprintf("; unknown: %s", paste(unknown, collapse = ", "))
                                     else ""),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The expected share of records an intruder who knows",
                                         "the original values of the known columns matches to",
                                         "their own released record."))
}

#' @rdname match_risk
#' @export
linkage_risk <- function(known, max = NA, ...) {
  check_known(known, "known")
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  args <- list(...)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args)))))
    abort_type("...", "named arguments of risk_linkage()")
  new_risk_criterion("linkage_risk", known = known, args = args, columns = known,
                     label = sprintf("linkage risk (known: %s)", paste(known, collapse = ", ")),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The expected share of records whose nearest released",
                                         "record, by distance on the known columns, is their own."))
}

#' @rdname match_risk
#' @export
identifiability <- function(known, max = NA) {
  check_known(known, "known")
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  new_risk_criterion("identifiability", known = known, columns = known,
                     label = sprintf("identifiability (known: %s)", paste(known, collapse = ", ")),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The identifiability score: released records matched",
                                         "exactly to their own original record, one over the",
                                         "number of original records they match."))
}

check_known <- function(x, arg) {
  if (!is.character(x) || !length(x) || anyNA(x))
    abort_type(arg, "column names (a character vector)")
  invisible(x)
}

# A search (ola(), deidentify()) cannot use a record-matching criterion.
refuse_search <- function(criterion) {
  epimask_abort(sprintf(paste0(
    "The criterion '%s' matches released records with their originals by value; a ",
    "generalization search cannot use it (generalized keys are labels, not values). ",
    "Use it in ru_profile(risk = ), risk_release(criteria = ) or a release_context(criteria = ) ",
    "for the certificate."), format(criterion)),
    c("epimask_error_criterion", "epimask_error_value"), arg = "criteria")
}

#' @export
criterion_prepare.risk_match_risk <- function(criterion, data, keys = NULL, id = NULL,
                                              search = FALSE, ...) {
  if (isTRUE(search)) refuse_search(criterion)
  check_columns(criterion$known, data, arg = "known")
  if (!is.null(criterion$unknown)) check_columns(criterion$unknown, data, arg = "unknown")
  criterion_prepare.default(criterion, data, keys = keys, id = id)
}

#' @export
criterion_prepare.risk_linkage_risk <- criterion_prepare.risk_match_risk

#' @export
criterion_prepare.risk_identifiability <- criterion_prepare.risk_match_risk

#' @export
criterion_release.risk_match_risk <- function(criterion, node, kept, ...) refuse_search(criterion)

#' @export
criterion_release.risk_linkage_risk <- criterion_release.risk_match_risk

#' @export
criterion_release.risk_identifiability <- criterion_release.risk_match_risk

# The original records behind the released ones (`rows`: their rows in
# `original`, in order; NULL: the same rows), or a sentence saying why the
# measure does not apply.
matched_original <- function(criterion, release, original, rows) {
  if (is_synthetic(release))
    return(paste("it compares each masked record with its original; the records of a synthetic",
                 "release have none"))
  if (is.null(original))
    return("it compares the release with the original data, which were not given")
  if (!is.null(rows)) original <- original[rows, , drop = FALSE]
  if (NROW(original) != NROW(release))
    return(sprintf(paste("it compares every released record with its own original: the release",
                         "has %d records, the original data %d"), NROW(release), NROW(original)))
  changed <- Filter(function(v) v %in% names(release) && v %in% names(original) &&
                      is.numeric(original[[v]]) && !is.numeric(release[[v]]), criterion$known)
  if (length(changed))
    return(sprintf("the known column(s) %s were generalized to labels; it compares values",
                   paste0("'", changed, "'", collapse = ", ")))
  original
}

#' @export
criterion_evaluate.risk_match_risk <- function(criterion, release, original = NULL, keys = NULL,
                                               id = NULL, rows = NULL, ...) {
  orig <- matched_original(criterion, release, original, rows)
  if (is.character(orig)) return(criterion_not_applicable(criterion, orig))
  rest <- criterion$args
  # the risk is the percentage of correct matches, which does not depend on
  # prob_tol: the probabilities certified only coarsely unless asked
  if (is.null(rest$prob_tol)) rest$prob_tol <- 1
  if (is.null(rest$progress)) rest$progress <- FALSE
  res <- do.call(risk_match, c(list(orig, release, known = criterion$known,
                                    unknown = criterion$unknown), rest, list(id = id)))
  new_criterion_result(criterion, res$percent_correct / 100, detail = res,
                       unit = if (is.null(id)) "records" else "persons")
}

#' @export
criterion_evaluate.risk_linkage_risk <- function(criterion, release, original = NULL,
                                                 keys = NULL, id = NULL, rows = NULL, ...) {
  orig <- matched_original(criterion, release, original, rows)
  if (is.character(orig)) return(criterion_not_applicable(criterion, orig))
  res <- do.call(risk_linkage, c(list(orig, release, known = criterion$known),
                                 criterion$args[intersect(names(criterion$args),
                                                          c("distance", "method", "threads"))],
                                 list(id = id)))
  new_criterion_result(criterion, res$risk, detail = res,
                       unit = if (is.null(id)) "records" else "persons")
}

# Exact matching identifies the released records by position (the person
# column of a profile does not enter: the record is the unit).
#' @export
criterion_evaluate.risk_identifiability <- function(criterion, release, original = NULL,
                                                    keys = NULL, id = NULL, rows = NULL, ...) {
  orig <- matched_original(criterion, release, original, rows)
  if (is.character(orig)) return(criterion_not_applicable(criterion, orig))
  col <- ".epimask_record"
  orig[[col]] <- release[[col]] <- seq_len(nrow(orig))
  res <- risk_identifiability(release, orig, keys = criterion$known, id = col)
  new_criterion_result(criterion, res$score, detail = res)
}

#' @exportS3Method criterion_blind_to risk_identifiability
criterion_blind_to.risk_identifiability <- function(criterion, scheme) {
  isTRUE(scheme_traits(scheme)$exact_match_blind)
}

# risk_spec("match" / "linkage" / "identifiability", known, ...) of epimask 0.3.
risk_spec_as_match <- function(args) {
  as.call(c(list(as.name("match_risk"), args[["known"]]),
            compact(list(unknown = args[["unknown"]])),
            args[setdiff(names(args), c("known", "unknown", "id"))]))
}
risk_spec_as_linkage <- function(args) {
  as.call(c(list(as.name("linkage_risk"), args[["known"]]), args[setdiff(names(args), c("known", "id"))]))
}
risk_spec_as_identifiability <- function(args) call("identifiability", args[["known"]])
attr(risk_spec_as_match, "required") <- "known"
attr(risk_spec_as_linkage, "required") <- "known"
# the linkage risk's columns were `vars` up to version 0.2.0
attr(risk_spec_as_linkage, "rename") <- function(args) {
  args[["known"]] <- renamed_argument(args[["known"]], args[["vars"]], "known", "vars")
  args[["vars"]] <- NULL
  args
}
attr(risk_spec_as_identifiability, "required") <- "known"
