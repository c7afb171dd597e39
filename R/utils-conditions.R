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
#' scratch memory a task needs). Warnings about statistical trouble have class `epimask_warning`
#' and a subclass: `epimask_warning_convergence` (a fit did not converge or
#' failed on some masked data sets), `epimask_warning_separation` (fitted
#' probabilities 0 or 1), `epimask_warning_boundary` (an estimate at the edge
#' of its admissible range), `epimask_warning_nomask` (a kernel mask whose
#' lambda is so small that no record receives weight from another: the
#' release equals the original), `epimask_warning_suppressed` (Datafly or
#' OLA suppressed every record, or no lattice node meets the privacy model), `epimask_warning_identifier` (a column looks like
#' an identifier), `epimask_warning_proxy` (a released column undoes the
#' generalization of a key), `epimask_warning_reference` (group means fall back to
#' midpoints), `epimask_warning_range` (predictions outside the model's
#' range), `epimask_warning_budget` (no scheme meets the risk budget),
#' `epimask_warning_stratum` (records of strata smaller than k that
#' [suppress_local()] cannot make safe; they are left as they are).
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
    sprintf("`%s` names %s not found in %s: %s.", arg,
            if (length(missing) == 1L) "a column" else "columns",
            where, paste0("'", missing, "'", collapse = ", ")),
    "epimask_error_name", arg = arg, call = call)
}

# Evaluate `expr`: a classed error passes through unchanged, any other error
# (from base R or a user's function) is turned into a classed one by
# `wrap(e)`. One handler, because with two (`epimask_error = stop`, `error =
# wrap`) the re-signalled classed error reaches the `error` handler too.
with_classed_errors <- function(expr, wrap) {
  tryCatch(expr, error = function(e) if (inherits(e, "epimask_error")) stop(e) else wrap(e))
}
