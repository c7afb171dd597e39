# Classed conditions. Every error the package raises on bad input inherits from
# "epimask_error" (plus a subclass naming the kind of problem), so callers and
# tests can catch them precisely; statistical trouble is a classed warning.

#' Conditions signalled by epimask
#'
#' Errors raised on bad input have class `epimask_error` and a subclass naming
#' the kind of problem: `epimask_error_type` (wrong type), `epimask_error_value`
#' (NA, NaN, Inf or out of range), `epimask_error_length` (mismatched lengths or
#' dimensions), `epimask_error_empty` (no data), `epimask_error_name` (a column
#' or term that does not exist), `epimask_error_singular` (a design that cannot
#' be fitted), `epimask_error_memory` (the C core could not allocate the
#' scratch memory a task needs), `epimask_error_user` (a function the caller
#' supplied, such as `simulate` or a risk function, failed; it also has class
#' `epimask_error_value`). Warnings about statistical trouble have class `epimask_warning`
#' and a subclass: `epimask_warning_convergence` (a fit did not converge or
#' failed on some masked data sets), `epimask_warning_separation` (fitted
#' probabilities 0 or 1), `epimask_warning_monotone` (a monotone likelihood:
#' a coefficient may be infinite, as [fit_cox()] says where
#' [survival::coxph()] says "coefficient may be infinite", and as the C IRLS
#' says for quasi-complete separation, which [glm()] fits silently),
#' `epimask_warning_boundary` (an estimate at the edge
#' of its admissible range), `epimask_warning_nomask` (a kernel mask whose
#' lambda is so small that no record receives weight from another: the
#' release equals the original), `epimask_warning_suppressed` (Datafly or
#' OLA suppressed every record, or no lattice node meets the privacy model), `epimask_warning_identifier` (a column looks like
#' an identifier), `epimask_warning_proxy` (a released column undoes the
#' generalization of a key), `epimask_warning_reference` (group means fall back to
#' midpoints), `epimask_warning_range` (predictions outside the model's
#' range), `epimask_warning_budget` (no scheme meets the risk budget),
#' `epimask_warning_user` (a function the caller supplied signalled a warning;
#' its message is quoted), `epimask_warning_deprecated` (an argument or a result
#' field under its old name, which still works for one release),
#' `epimask_warning_dates` (dates before 1900 or after today in a masked
#' column), `epimask_warning_stratum` (records of strata smaller than k that
#' [suppress_local()] cannot make safe; they are left as they are),
#' `epimask_warning_persons` (an identifier given to [deidentify()] repeats:
#' its certificate counts records, not the persons the identifier may name).
#'
#' @name epimask-conditions
#' @family utilities
#' @examples
#' res <- tryCatch(irls_fit(matrix("a"), 1), epimask_error = function(e) conditionMessage(e))
#' res
NULL

epimask_abort <- function(message, class = NULL, arg = NULL, call = NULL) {
  # a message quoting the caller's invalid UTF-8 would itself fail to print
  if (!validUTF8(message))
    message <- paste(iconv(message, "UTF-8", "UTF-8", sub = "byte"), "(invalid UTF-8 shown as <xx> bytes)")
  cnd <- structure(
    class = c(class, "epimask_error", "error", "condition"),
    list(message = message, call = call, arg = arg)
  )
  stop(cnd)
}

epimask_warn <- function(message, class = NULL, call = NULL) {
  cnd <- structure(
    class = c(class, "epimask_warning", "warning", "condition"),
    list(message = message, call = call)
  )
  warning(cnd)
}

# Shorthands for the common kinds, so messages stay uniform.
abort_type <- function(arg, expected, call = NULL) {
  epimask_abort(sprintf("`%s` must be %s.", arg, expected),
                "epimask_error_type", arg = arg, call = call)
}

abort_value <- function(arg, expected, call = NULL) {
  epimask_abort(sprintf("`%s` must be %s.", arg, expected),
                "epimask_error_value", arg = arg, call = call)
}

abort_length <- function(arg, expected, call = NULL) {
  epimask_abort(sprintf("`%s` must %s.", arg, expected),
                "epimask_error_length", arg = arg, call = call)
}

abort_empty <- function(arg, call = NULL) {
  epimask_abort(sprintf("`%s` must not be empty.", arg),
                "epimask_error_empty", arg = arg, call = call)
}

abort_name <- function(arg, missing, where, call = NULL) {
  check_utf8(missing, arg)
  epimask_abort(
    sprintf("`%s` names %s not found in %s: %s%s.", arg,
            if (length(missing) == 1L) "a column" else "columns",
            where, paste0("'", shorten(utils::head(missing, 20L)), "'", collapse = ", "),
            if (length(missing) > 20L) sprintf(" and %d more", length(missing) - 20L) else ""),
    "epimask_error_name", arg = arg, call = call)
}

# Evaluate `expr`: a classed error passes through unchanged, any other error
# (from base R or a user's function) is turned into a classed one by
# `wrap(e)`. One handler, because with two (`epimask_error = stop`, `error =
# wrap`) the re-signalled classed error reaches the `error` handler too.
with_classed_errors <- function(expr, wrap) {
  tryCatch(expr, error = function(e) if (inherits(e, "epimask_error")) stop(e) else wrap(e))
}

# ---- functions the caller supplies ------------------------------------------------

# `f` must accept `nargs` positional arguments (or `...`): checked where the
# argument enters, so a function of the wrong signature fails with a classed
# error naming the argument instead of R's "unused argument" deep in a loop.
check_user_function <- function(f, arg, nargs, expected, allow_null = FALSE) {
  if (is.null(f) && allow_null) return(f)
  if (!is.function(f)) abort_type(arg, expected)
  fmls <- formals(if (is.primitive(f)) args(f) else f)
  nms <- names(fmls)
  dots <- "..." %in% nms
  nms <- setdiff(nms, "...")
  # the arguments beyond the ones we pass must have defaults
  required <- nms[vapply(fmls[nms], function(v) identical(v, quote(expr = )), logical(1))]
  if ((!dots && length(nms) < nargs) || length(required) > nargs)
    abort_type(arg, sprintf("%s (a function that takes %d argument%s)", expected,
                            nargs, if (nargs == 1L) "" else "s"))
  f
}

# Call a function the caller supplied: its errors become classed errors naming
# the argument (with its own message quoted), its warnings classed warnings
# (`epimask_warning_user`), so no condition leaves the package unclassed.
call_user <- function(f, args, arg, signature) {
  withCallingHandlers(
    with_classed_errors(do.call(f, args, quote = TRUE), function(e)
      epimask_abort(sprintf("`%s` failed when called as %s: %s", arg, signature,
                            shorten(conditionMessage(e), 500L)),
                    c("epimask_error_user", "epimask_error_value"), arg = arg)),
    warning = function(w) {
      if (inherits(w, "epimask_warning")) return()
      epimask_warn(sprintf("`%s` warned when called as %s: %s", arg, signature,
                           shorten(conditionMessage(w), 500L)), "epimask_warning_user")
      invokeRestart("muffleWarning")
    })
}

# ---- deprecated names ----------------------------------------------------------------

# A name that still works for one release: a classed warning
# (`epimask_warning_deprecated`) saying what to use instead.
warn_deprecated <- function(old, new, what = "argument") {
  epimask_warn(sprintf("The %s `%s` is deprecated; use `%s` (the old name goes in the next release).",
                       what, old, new), "epimask_warning_deprecated")
}

# Result fields renamed: `x$old` and `x[["old"]]` give the new field with a
# deprecation warning. Used by the `$` and `[[` methods of the result classes
# that had a renamed field.
renamed_fields <- list(epimask_kanon = c(discernability = "discernibility"),
                       epimask_datafly = c(discernability = "discernibility"),
                       epimask_ola = c(discernability = "discernibility"),
                       epimask_linkage = c(vars = "known"),
                       ru_profile = c(kernel = "mask_family"))

get_field <- function(x, name, exact = TRUE) {
  renamed <- unlist(unname(renamed_fields[intersect(class(x), names(renamed_fields))]))
  if (is.character(name) && length(name) == 1L && !is.na(name) &&
      name %in% names(renamed) && is.null(.subset2(x, name))) {
    warn_deprecated(name, renamed[[name]], "field")
    name <- renamed[[name]]
  }
  .subset2(x, name, exact = exact)
}

# An argument under its new and its old name: the old one still works, with a
# deprecation warning; both at once is an error.
renamed_argument <- function(new_value, old_value, new, old) {
  if (is.null(old_value)) return(new_value)
  if (!is.null(new_value))
    epimask_abort(sprintf("`%s` is the old name of `%s`: give one of them, not both.", old, new),
                  "epimask_error_value", arg = old)
  warn_deprecated(old, new)
  old_value
}

#' @export
`$.epimask_kanon` <- function(x, name) get_field(x, name, exact = FALSE)
#' @export
`[[.epimask_kanon` <- function(x, i, exact = TRUE) get_field(x, i, exact = exact)
#' @export
`$.epimask_datafly` <- function(x, name) get_field(x, name, exact = FALSE)
#' @export
`[[.epimask_datafly` <- function(x, i, exact = TRUE) get_field(x, i, exact = exact)
#' @export
`$.epimask_linkage` <- function(x, name) get_field(x, name, exact = FALSE)
#' @export
`[[.epimask_linkage` <- function(x, i, exact = TRUE) get_field(x, i, exact = exact)
