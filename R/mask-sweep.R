# Degree sweeps: the schemes of one masking generator from weak to strong, so
# a profile covers a whole trade-off in one line. Every scheme also has a
# generator (the family of schemes it belongs to: significant-digit and
# decimal rounding are different generators) and a strength (0 for no
# masking, increasing from weak to strong within a generator), which the
# profile keeps as columns `generator` and `strength` and the plots use for
# one line per generator along a weak-to-strong axis.

#' Sweep a masking generator from weak to strong
#'
#' `mask_sweep(fun, ...)` calls the scheme constructor `fun` once per value of
#' its one varying argument (the argument given more than one value in
#' `...`; the others are passed unchanged) and returns the schemes ordered
#' from the weakest to the strongest masking, each tagged with its generator
#' and strength. A risk-utility profile of a sweep ([ru_profile()]) covers
#' the whole trade-off of that generator.
#'
#' The swept argument is the one given as a list (of values that are vectors
#' themselves, e.g. `breaks`), else the one vector with several values; when
#' several vectors have several values (e.g. `breaks` and the `reference`
#' doses of [mask_group()]), the one named like a degree (`digits`,
#' `amount`, `lambda`, `breaks`, `k`, `p`, `pd`, `minbucket`) is swept.
#'
#' Strength, the position on the weak-to-strong axis (comparable within one
#' generator only): for rounding and truncation `-digits` (fewer digits is
#' stronger; significant and decimal rounding are different generators), for
#' noise the `amount`, for grouping minus the number of intervals, for
#' kernels and function matrix masks `lambda`, for microaggregation `k`, for
#' PRAM `1 - pd`, for rank swapping `p`, for top and bottom coding `-upper`,
#' `lower` or `lower - upper` (the bounds moving inward), for CART synthesis
#' ([mask_synth()]) `minbucket`; schemes of a type
#' without a strength method ([mask_strength()]) take their position in the
#' sweep.
#'
#' @param fun A scheme constructor such as [mask_round()], [mask_noise()],
#'   [mask_group()] or [mask_kernel()].
#' @param ... Its arguments; exactly one of them has several values (a vector,
#'   or a list for arguments that are themselves vectors, e.g. the `breaks` of
#'   [mask_group()]).
#' @return A `mask_list` of schemes from weak to strong, each with elements
#'   `generator` (character) and `strength` (numeric).
#' @family masking schemes
#' @seealso [scheme_generator()], [ru_profile()].
#' @examples
#' mask_sweep(mask_round, digits = 4:1)
#' mask_sweep(mask_round, digits = 2:0, type = "decimal")
#' mask_sweep(mask_noise, amount = c(0.01, 0.1, 1), lower = 0)
#' mask_sweep(mask_group, breaks = list(c(0, 1, 2, 5), c(0, 5)))
#' @export
mask_sweep <- function(fun, ...) {
  fun <- check_function(fun)
  args <- list(...)
  if (!length(args) || is.null(names(args)) || any(!nzchar(names(args))))
    abort_type("...", "named arguments of `fun`, one of them with several values")
  sweeping <- swept_argument(args)
  if (length(sweeping) != 1L)
    abort_value("...", sprintf(
      "arguments of which exactly one has several values (the degree swept); %s",
      if (length(sweeping)) paste0("several do: ", paste(sweeping, collapse = ", "))
      else "none does"))
  values <- args[[sweeping]]
  if (!(is.atomic(values) || is.list(values)) || !length(values))
    abort_type(sweeping, "a vector or list of the values swept")
  schemes <- lapply(seq_along(values), function(i) {
    call_args <- args
    call_args[sweeping] <- list(if (is.list(values)) values[[i]] else values[[i]])
    # a function that is not a scheme constructor fails with its own error:
    # say which argument was wrong
    s <- with_classed_errors(do.call(fun, call_args),
                  function(e) abort_value("fun", sprintf(
                    "a scheme constructor taking the arguments given in `...`; calling it failed: %s",
                    conditionMessage(e))))
    if (!inherits(s, "mask_scheme"))
      abort_type("fun", "a function returning a mask_scheme (e.g. mask_round)")
    s
  })
  strengths <- vapply(schemes, natural_strength, numeric(1))
  if (anyNA(strengths)) strengths <- seq_along(schemes)
  order <- order(strengths)
  schemes <- schemes[order]
  strengths <- strengths[order]
  for (i in seq_along(schemes)) {
    schemes[[i]]$generator <- scheme_generator(schemes[[i]])
    schemes[[i]]$strength <- strengths[[i]]
  }
  new_mask_list(schemes)
}

#' The generator and strength of a masking scheme
#'
#' `scheme_generator()` names the family of schemes a scheme belongs to
#' (e.g. `"rounding (significant digits)"`, `"rounding (decimal places)"`,
#' `"noise (uniform)"`, `"grouping (interval means)"`, `"ring kernel"`,
#' `"no masking"`); `scheme_strength()` gives its position on that
#' generator's weak-to-strong axis (0 for no masking; see [mask_sweep()]).
#'
#' @param scheme A `mask_scheme`.
#' @return A string; a number (NA when the form has no natural strength and
#'   the scheme did not come from [mask_sweep()]).
#' @family masking schemes
#' @examples
#' scheme_generator(mask_round(2, "decimal"))
#' scheme_strength(mask_round(2, "decimal"))
#' scheme_strength(mask_noise(0.5))
#' @export
scheme_generator <- function(scheme) {
  revalidate_scheme(scheme)
  if (!is.null(scheme$generator)) return(scheme$generator)
  generator <- mask_generator(scheme)
  if (!is.character(generator) || length(generator) != 1L || is.na(generator))
    abort_type("scheme", "a scheme whose mask_generator() method returns a string")
  generator
}

#' @rdname scheme_generator
#' @export
scheme_strength <- function(scheme) {
  revalidate_scheme(scheme)
  if (!is.null(scheme$strength)) return(as.double(scheme$strength))
  natural_strength(scheme)
}

# Strength from the scheme's own parameters (its type's mask_strength()
# method), NA when it has none.
natural_strength <- function(scheme) {
  value <- mask_strength(scheme)
  if (is.null(value) || length(value) != 1L || !is.numeric(value)) NA_real_ else as.double(value)
}

# Degree-like argument names, preferred when several vectors are long.
sweep_degree_args <- c("digits", "amount", "lambda", "breaks", "k", "p", "pd", "upper", "minbucket")

swept_argument <- function(args) {
  is_list <- vapply(args, function(a) is.list(a) && !is.data.frame(a), logical(1))
  if (sum(is_list) == 1L) return(names(args)[is_list])
  long <- vapply(args, function(a) is.atomic(a) && is.null(dim(a)) && length(a) > 1L, logical(1))
  cand <- names(args)[long & !is_list]
  if (length(cand) > 1L) {
    named <- intersect(cand, sweep_degree_args)
    if (length(named) == 1L) return(named)
  }
  # a sweep of one: the single degree-like argument
  if (!length(cand)) {
    named <- intersect(names(args), sweep_degree_args)
    if (length(named) == 1L) return(named)
  }
  cand
}
