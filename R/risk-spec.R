# Risk as a value, the vocabulary of epimask 0.3: risk_spec() named a
# disclosure-risk measure and its arguments. Each measure is now a risk
# criterion (risk-criterion-*.R); risk_spec() maps a name and its arguments
# to the criterion (each criterion's file holds the translation of its old
# name, risk_spec_as_<name>()) with a deprecation warning that shows the new
# call, for one release. risk_value() evaluates a criterion (or a
# function(original, masked)) on an (original, masked) pair.

#' A disclosure-risk measure as a value (deprecated: use a risk criterion)
#'
#' `risk_spec()` named a risk measure and its arguments for [ru_profile()].
#' Each measure is now a [risk criterion][new_risk_criterion()]:
#' `risk_spec(name, ...)` returns the criterion whose value is the number the
#' measure gave, with a warning of class `epimask_warning_deprecated` that
#' shows the call to use instead. It goes in the next release.
#'
#' \describe{
#'   \item{`"match"`}{[match_risk()]`(known, unknown)`.}
#'   \item{`"identifiability"`}{[identifiability()]`(known)`.}
#'   \item{`"linkage"`}{[linkage_risk()]`(known)` (`vars` is the old name of
#'     `known`).}
#'   \item{`"kanon"`}{by `measure`: `"max"` [k_anonymity()]`(k)`, `"avg"`
#'     [avg_risk()]`(NA)`, `"strict_avg"` (the default) `avg_risk(NA, strict =
#'     TRUE)`, `"journalist"` and `"marketer"` [k_map()]`(k, population)`.}
#'   \item{`"ldiversity"`}{[l_diversity()]`(NA, sensitive, measure)` (its
#'     measure was `"entropy"` by default).}
#'   \item{`"tcloseness"`}{[t_closeness()]`(NA, sensitive, ordered)`.}
#'   \item{`"individual"`}{[individual_risk()]`(NA)`, or with `cluster`
#'     [cluster_risk()]`(NA, cluster)`.}
#'   \item{`"population"`}{[uniqueness()]`(NA, population_model(pi))`.}
#'   \item{`"loglinear"`}{[loglinear_risk()]`(NA)`.}
#'   \item{`"suda"`}{[suda_risk()]`(NA)`.}
#'   \item{`"none"`}{no risk: `NULL`.}
#' }
#' `keys` go into the criterion (`keys = `); `id` (the person column) is
#' kept in it, the new way being the verb's `id`.
#'
#' @param name The measure's name (see Details).
#' @param ... Its arguments, e.g. `known`, `unknown` (`"match"`), `keys`,
#'   `k`, `measure` (`"kanon"`).
#' @return The risk criterion (`NULL` for `"none"`).
#' @family risk measures
#' @seealso [risk_value()] to evaluate one, [ru_profile()].
#' @examples
#' spec <- suppressWarnings(risk_spec("match", known = "dose"))
#' spec
#' # the new way
#' match_risk("dose")
#' @export
risk_spec <- function(name, ...) {
  known_names <- c(risk_spec_names(), "none")
  name <- check_choice(name, known_names, arg = "name")
  args <- list(...)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args)))))
    abort_type("...", "named arguments of the risk measure")
  # an argument given as NULL takes the measure's default, as in the call of
  # the measure itself (risk_match(unknown = NULL))
  args <- args[!vapply(args, is.null, logical(1))]
  if (name == "none") {
    warn_deprecated_call(sprintf("risk_spec(\"none\")"), "NULL (no risk)")
    return(NULL)
  }
  translate <- risk_spec_translator(name)
  # a criterion's file may rename the old arguments first
  if (!is.null(attr(translate, "rename"))) args <- attr(translate, "rename")(args)
  for (req in attr(translate, "required")) {
    if (is.null(args[[req]]))
      epimask_abort(sprintf("`%s` must be given for the \"%s\" risk (risk_spec(\"%s\", %s = ...)).",
                            req, name, name, req), "epimask_error_value", arg = req)
    if (!is.character(args[[req]]) || !length(args[[req]]) || anyNA(args[[req]]))
      abort_type(req, "column names (a character vector)")
  }
  new_call <- translate(args)
  warn_deprecated_call(sprintf("risk_spec(\"%s\", ...)", name), call_text(new_call),
                       if (!is.null(args[["id"]])) "the person column goes to the verb's `id`")
  crit <- eval(new_call, asNamespace("epimask"))
  crit$id <- args[["id"]]
  crit$spec <- name
  crit
}

# The names of epimask 0.3's risk measures: those whose criterion file
# translates them.
risk_spec_names <- function() {
  sub("^risk_spec_as_", "", ls(asNamespace("epimask"), pattern = "^risk_spec_as_"))
}

risk_spec_translator <- function(name) {
  get(paste0("risk_spec_as_", name), envir = asNamespace("epimask"), mode = "function")
}

# A deprecated call: the warning names the call to use instead.
warn_deprecated_call <- function(old, new, note = NULL) {
  epimask_warn(sprintf("`%s` is deprecated; use `%s`%s (the old form goes in the next release).",
                       old, new, if (!is.null(note)) paste0("; ", note) else ""),
               "epimask_warning_deprecated")
}

#' Evaluate a disclosure-risk measure on a masked data set
#'
#' @param spec A [risk criterion][new_risk_criterion()] carrying its columns
#'   (e.g. `match_risk("dose")`, `k_anonymity(5, keys = c("city", "sex"))`),
#'   `NULL` (no risk: `NA`), a function `function(original, masked)`, or (deprecated) a
#'   [risk_spec()] name with its arguments in `...`.
#' @param original,masked The original and the masked data frames (same rows,
#'   same order).
#' @param ... Arguments of the measure when `spec` is a name.
#' @return One number in \[0, 1\] (NA for no risk).
#' @family risk measures
#' @examples
#' d <- dose_cohort[1:300, ]
#' m <- apply_mask(d, mask_noise(0.05), "dose")
#' risk_value(match_risk("dose"), d, m)
#' risk_value(function(original, masked) mean(original$dose == masked$dose), d, m)
#' @export
risk_value <- function(spec, original, masked, ...) {
  if (is.character(spec)) spec <- do.call(risk_spec, c(list(spec[[1L]]), list(...)))
  original <- check_data(original, "original")
  if (!is_synthetic(masked)) {
    masked <- check_data(masked, "masked")
    if (nrow(original) != nrow(masked))
      abort_length("masked", sprintf("have as many rows as `original` (%d), not %d",
                                     nrow(original), nrow(masked)))
  }
  spec <- as_profile_criterion(spec)
  if (is.null(spec)) return(NA_real_)
  res <- run_criterion(spec, masked, original = original)
  warn_not_applicable(res, masked)
  res$value
}

# A criterion that does not apply to a masked data set (record matching of
# synthetic records, k-anonymity of a synthetic release) gives NA: said
# once, with the criterion's reason (for a synthetic release with the class
# epimask_warning_synth_risk).
warn_not_applicable <- function(result, masked, where = NULL) {
  if (result$applies) return(invisible(FALSE))
  epimask_warn(sprintf(paste0("The risk '%s' does not apply%s, so it is NA: %s. Give a ",
                              "criterion that judges such releases (for a synthetic release ",
                              "replicated_uniques(), disco(), the attacks)."),
                       result$label, if (!is.null(where)) paste0(" to ", where) else "",
                       result$note %||% "no reason given"),
               if (is_synthetic(masked)) c("epimask_warning_synth_risk", "epimask_warning_risk")
               else "epimask_warning_risk")
  invisible(TRUE)
}

# The risk of a profile as a criterion: a criterion, NULL (none), or a user
# function(original, masked) wrapped as one (risk-criterion-function.R).
as_profile_criterion <- function(risk, arg = "risk") {
  if (is.null(risk) || is_risk_criterion(risk)) return(risk)
  if (is.function(risk))
    return(function_criterion(check_user_function(
      risk, arg, 2L, "a function(original, masked) returning a number in [0, 1]")))
  abort_type(arg, "a risk criterion (match_risk(), k_anonymity(), ...), NULL or a function(original, masked)")
}

check_risk_number <- function(x, what) {
  if (length(x) == 1L && is.na(x) && !is.nan(x)) return(NA_real_)
  if (!is.numeric(x) || length(x) != 1L || !is.finite(x) || x < 0 || x > 1)
    epimask_abort(sprintf("%s must return one number in [0, 1].", what),
                  "epimask_error_value", arg = "risk")
  as.double(x)
}

# The profile's risk as a name with its columns beside it (`risk = "match",
# known = , unknown = `), the shorthand of epimask 0.3: the criterion of
# risk_spec() (deprecated, with its warning); "none" is no risk.
shorthand_risk <- function(name, dots) {
  if (identical(name, "none")) return(NULL)
  name <- check_choice(name, c(risk_spec_names(), "none"), arg = "risk")
  needs_known <- identical(attr(risk_spec_translator(name), "required"), "known")
  if (needs_known && is.null(dots[["known"]]))
    epimask_abort(sprintf("`known` must name the columns the intruder knows when risk = \"%s\" (or use risk = \"none\").", name),
                  "epimask_error_value", arg = "known")
  do.call(risk_spec, c(list(name), dots))
}

# ru_profile()'s risk of epimask 0.3 when not given (with `known` beside it).
shorthand_default <- "match"
