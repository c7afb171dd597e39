# Mask types as classes, in the manner of mgcv's smooth constructors: a
# scheme of type "<type>" has class c("mask_<type>", "mask_scheme"), made by
# new_mask_scheme(); every type-specific behaviour is a method of one of the
# generics below, written in the type's own file (R/mask-<type>.R). The only
# method a new type must define is mask_values(); the others have defaults.

#' Write a new mask type
#'
#' A masking scheme of type `"<type>"` is a list of fields of class
#' `c("mask_<type>", "mask_scheme")`, made by `new_mask_scheme()`. A new type
#' needs a constructor (a function that checks its arguments and calls
#' `new_mask_scheme()`) and one method, `mask_values()`; with these the
#' scheme works in [apply_mask()], [mask_sweep()], [ru_profile()],
#' [summary.mask_scheme()] and the plots. Every other behaviour has a
#' default that a type overrides with a method where it has something
#' special (see the vignette "Writing a new mask type",
#' `vignette("extending", package = "epimask")`):
#' \describe{
#'   \item{`mask_values(scheme, x, data, ...)`}{(required) the masked
#'     values: `x` is the n x p double matrix of the masked columns (for a
#'     categorical type, a named list of the factor or character columns),
#'     `data` the whole data set (for types that read other columns); returns
#'     a matrix of the same dimensions (a list of columns for categorical
#'     types). Randomized types draw from R's random number generator.}
#'   \item{`mask_validate(scheme, ...)`}{checks the fields and returns the
#'     scheme (possibly normalised). `new_mask_scheme()` calls it once, and
#'     every function that reads a scheme calls it again, so a scheme edited
#'     after construction fails with a classed error naming the field. The
#'     usual method calls the type's constructor with the fields. Default:
#'     the scheme unchanged.}
#'   \item{`format()`}{the readable English label (`"rounding to 2 decimal
#'     places"`). Default: the `label` field.}
#'   \item{`scheme_label(scheme, short = TRUE)`}{the short label that tables
#'     and plots print (`"round 2 dec"`), built from the fields; `short =
#'     FALSE` gives `format()`. Default: the `label` field.}
#'   \item{`mask_generator(scheme)`, `mask_strength(scheme)`}{the family of
#'     schemes it belongs to and its position on that family's weak-to-strong
#'     axis, for [mask_sweep()] and the plots (see [scheme_generator()]).
#'     Defaults: the type, and `NA` (a sweep then orders by position).}
#'   \item{`mask_family(scheme)`}{the short name of the family a scheme
#'     belongs to, which a profile keeps in its column `mask_family` (a
#'     kernel's name, such as `"ring"`, for kernels). Default: the type.}
#'   \item{`mask_report_label(scheme)`}{for a type whose parameters a report
#'     must not show (trait `withheld`), the words [release_report()] prints
#'     in place of the scheme's label, followed by a letter and "(parameters
#'     withheld)": `"smoothing scheme"` for kernels, `"matrix mask"` for
#'     matrix masks. Default: `"masking scheme"` for a withheld type, `NA`
#'     (the scheme's own label is printed) for any other.}
#'   \item{`mask_traits(scheme)`}{a named list of the properties other
#'     functions rely on, each `TRUE` or `FALSE`; a method lists only those
#'     that differ from the defaults: `categorical` (acts on factor or
#'     character columns), `random` (a release is a random draw; default the
#'     `random` field), `promises_change` (every record should change, so
#'     [apply_mask()] checks for records left unmasked), `exact_match_blind`
#'     (changes values without creating ties, so exact-match identifiability
#'     cannot see it), `reference` (no masking: the reference row of a
#'     profile), `identity` (the release equals the data), `withheld` (its
#'     parameters enable re-identification and never appear in a report:
#'     kernels and matrix masks, whose kernel and lambda Zhou et al. warn
#'     must not be released), `bandwidth` (its degree is a bandwidth
#'     \eqn{\lambda} on a scale shared by every scheme of the trait, so the
#'     plots put their sweeps on one lambda axis: kernels, matrix masks),
#'     `linear` (the release is \eqn{A Z} for one matrix \eqn{A}, see below) and `dates`
#'     (accepts `Date` and `POSIXct` columns: its `mask_values()` then
#'     receives them as days or seconds since 1970 in `x` and finds their
#'     class in `data[[colnames(x)[j]]]`; the release keeps the class).}
#'   \item{`mask_linear(scheme, x)`, `mask_derivative(scheme, x)`}{for
#'     linear types, \eqn{A Z} and \eqn{A'(0) Z}, the derivative with
#'     respect to the degree at 0 (the first-order bias of
#'     [bias_first_order()]). Default: an error (not a linear mask).}
#'   \item{`mask_resample(scheme, rows)`}{the scheme for the records `rows`
#'     of the data (bootstrap in [ru_profile()]); a type whose parameters
#'     are tied to the records (kernel coordinates) subsets them. Default:
#'     the scheme unchanged.}
#' }
#'
#' @param type The type, a name such as `"round"` (letters, digits and `_`);
#'   the class is `c("mask_<type>", "mask_scheme")`.
#' @param ... For `new_mask_scheme()`: the scheme's fields, named. Besides
#'   the type's own, every scheme has `method` (a short name; default
#'   `type`) and `degree` (a number; default 0), and may have `generator`
#'   and `strength` (set by [mask_sweep()]) and `random` (`TRUE` for a
#'   randomized type). For the generics: passed on to methods.
#' @param label A short text naming the scheme in lists and profiles, e.g.
#'   `"round 2"`.
#' @param scheme A `mask_scheme`.
#' @param x The masked values (see `mask_values()`).
#' @param data The data set being masked (a data frame or matrix).
#' @param short `TRUE` for the short label, `FALSE` for `format()`.
#' @param rows Row numbers of the data, with repeats (a bootstrap sample).
#' @return `new_mask_scheme()`: a `mask_scheme` of class
#'   `c("mask_<type>", "mask_scheme")`. `mask_values()`, `mask_linear()`,
#'   `mask_derivative()`: the masked values. `mask_validate()`,
#'   `mask_resample()`: a scheme. `scheme_label()`, `mask_generator()`: a
#'   string. `mask_strength()`: a number. `mask_traits()`: a named list of
#'   logicals. `mask_family()`: a string. `mask_report_label()`: a string or
#'   `NA`.
#' @family masking schemes
#' @examples
#' # multiplicative noise: x * (1 + U(-amount, amount))
#' mask_mult <- function(amount) {
#'   new_mask_scheme("mult", amount = amount, degree = amount,
#'                   label = sprintf("mult %s", amount))
#' }
#' mask_values.mask_mult <- function(scheme, x, data, ...) {
#'   x * (1 + stats::runif(length(x), -scheme$amount, scheme$amount))
#' }
#' # registered so that the package's own calls find it (a method defined
#' # at the top level of a script or in a package's NAMESPACE is found anyway)
#' registerS3method("mask_values", "mask_mult", mask_values.mask_mult,
#'                  envir = asNamespace("epimask"))
#' set.seed(1)
#' apply_mask(data.frame(x = c(10, 20, 30)), mask_mult(0.1))
#' scheme_label(mask_round(2, "decimal"))
#' format(mask_round(2, "decimal"))
#' mask_traits(mask_noise(1))
#' @export
new_mask_scheme <- function(type, ..., label) {
  if (!is.character(type) || length(type) != 1L || is.na(type) ||
      !grepl("^[A-Za-z][A-Za-z0-9_]*$", type))
    abort_type("type", "a single name of letters, digits and `_` (e.g. \"round\")")
  if (missing(label)) abort_type("label", "a single character string")
  fields <- list(...)
  if (length(fields) && (is.null(names(fields)) || any(!nzchar(names(fields)))))
    abort_type("...", "named fields of the scheme")
  if (any(c("type", "label") %in% names(fields)))
    abort_value("...", "fields other than `type` and `label` (given as arguments)")
  if (is.null(fields$method)) fields$method <- type
  if (is.null(fields$degree)) fields$degree <- 0
  if (is.numeric(fields$degree)) fields$degree <- as.double(fields$degree)
  front <- list(type = type, method = fields$method, degree = fields$degree, label = label)
  fields$method <- fields$degree <- NULL
  scheme <- structure(c(front, fields), class = c(paste0("mask_", type), "mask_scheme"))
  check_scheme_extras(scheme, "scheme")
  scheme
}

# ---- the generics and their defaults ---------------------------------------------

#' @rdname new_mask_scheme
#' @export
mask_values <- function(scheme, x, data, ...) UseMethod("mask_values")

#' @export
mask_values.default <- function(scheme, x, data, ...) {
  abort_type("scheme", sprintf("a mask_scheme whose type has a mask_values() method (none for class %s)",
                               paste0("\"", class(scheme)[1L], "\"")))
}

#' @rdname new_mask_scheme
#' @export
mask_validate <- function(scheme, ...) UseMethod("mask_validate")

#' @export
mask_validate.default <- function(scheme, ...) scheme

#' @rdname new_mask_scheme
#' @export
scheme_label <- function(scheme, short = TRUE, ...) UseMethod("scheme_label")

#' @export
scheme_label.default <- function(scheme, short = TRUE, ...) {
  if (!inherits(scheme, "mask_scheme")) abort_type("scheme", "a mask_scheme")
  if (isTRUE(short)) scheme$label else format(scheme)
}

#' @rdname new_mask_scheme
#' @export
mask_generator <- function(scheme, ...) UseMethod("mask_generator")

#' @export
mask_generator.default <- function(scheme, ...) scheme$type

#' @rdname new_mask_scheme
#' @export
mask_strength <- function(scheme, ...) UseMethod("mask_strength")

#' @export
mask_strength.default <- function(scheme, ...) NA_real_

#' @rdname new_mask_scheme
#' @export
mask_family <- function(scheme, ...) UseMethod("mask_family")

#' @export
mask_family.default <- function(scheme, ...) scheme$type

#' @rdname new_mask_scheme
#' @export
mask_report_label <- function(scheme, ...) UseMethod("mask_report_label")

#' @export
mask_report_label.default <- function(scheme, ...) {
  if (scheme_traits(scheme)$withheld) "masking scheme" else NA_character_
}

#' @rdname new_mask_scheme
#' @export
mask_traits <- function(scheme, ...) UseMethod("mask_traits")

#' @export
mask_traits.default <- function(scheme, ...) list()

#' @rdname new_mask_scheme
#' @export
mask_linear <- function(scheme, x, ...) UseMethod("mask_linear")

#' @export
mask_linear.default <- function(scheme, x, ...) abort_not_linear()

#' @rdname new_mask_scheme
#' @export
mask_derivative <- function(scheme, x, ...) UseMethod("mask_derivative")

#' @export
mask_derivative.default <- function(scheme, x, ...) abort_not_linear()

#' @rdname new_mask_scheme
#' @export
mask_resample <- function(scheme, rows, ...) UseMethod("mask_resample")

#' @export
mask_resample.default <- function(scheme, rows, ...) scheme

# The traits of a scheme with the defaults filled in.
trait_defaults <- list(categorical = FALSE, random = FALSE, promises_change = FALSE,
                       exact_match_blind = FALSE, reference = FALSE, identity = FALSE,
                       withheld = FALSE, bandwidth = FALSE, linear = FALSE, dates = FALSE)

scheme_traits <- function(scheme) {
  out <- trait_defaults
  out$random <- isTRUE(scheme$random)
  given <- mask_traits(scheme)
  if (!is.list(given) || (length(given) && (is.null(names(given)) ||
                                            !all(names(given) %in% names(trait_defaults)))))
    abort_type("scheme", sprintf("a scheme whose mask_traits() method returns a named list of %s",
                                 paste(names(trait_defaults), collapse = ", ")))
  for (nm in names(given)) out[[nm]] <- isTRUE(given[[nm]])
  out
}

# ---- internal generics (methods in the type files) -------------------------------

# The same scheme at another degree (kernel and function-matrix schemes);
# used to differentiate with respect to lambda.
scheme_at <- function(scheme, lambda) {
  lambda <- check_number(lambda, "lambda", lower = 0)
  scheme_at_degree(scheme, lambda)
}

scheme_at_degree <- function(scheme, lambda) UseMethod("scheme_at_degree")

#' @export
scheme_at_degree.default <- function(scheme, lambda) {
  abort_type("scheme", "a kernel scheme or a matrix scheme with a function A")
}

# The dense n x n A of kernel_matrix(), for the schemes that have one.
dense_mask_matrix <- function(scheme, n_max) UseMethod("dense_mask_matrix")

#' @export
dense_mask_matrix.default <- function(scheme, n_max) {
  abort_type("scheme", "a kernel or matrix mask_scheme")
}

# The dense A of a linear scheme when it is cheap to hold (profiles of
# simulated replicates); NULL: apply the scheme instead.
scheme_dense_matrix <- function(scheme, n) UseMethod("scheme_dense_matrix")

#' @export
scheme_dense_matrix.default <- function(scheme, n) NULL

# What a profile records of each scheme for the plots, recommend() and the
# report, from the type's methods (so that none of them branches on a type):
# its family, whether its degree is a shared bandwidth, and the words a
# report prints in place of its label (NA: its own label).
scheme_profile_columns <- function(scheme) {
  traits <- scheme_traits(scheme)
  label <- mask_report_label(scheme)
  label <- if (is.null(label) || length(label) != 1L) NA_character_ else as.character(label)
  if (traits$withheld && is.na(label)) label <- "masking scheme"
  if (!traits$withheld) label <- NA_character_
  family <- mask_family(scheme)
  data.frame(mask_family = if (is.character(family) && length(family) == 1L) family else scheme$type,
             bandwidth = traits$bandwidth,
             report_label = label, stringsAsFactors = FALSE)
}

# Records a scheme that promises change left exactly as they were, and why.
unmasked_records <- function(scheme, Z, Zm) UseMethod("unmasked_records")

#' @export
unmasked_records.default <- function(scheme, Z, Zm) {
  if (!scheme_traits(scheme)$promises_change) return(integer())
  unchanged_rows(Z, Zm, varying_columns(Z))
}

unmasked_cause <- function(scheme, Z, rows) UseMethod("unmasked_cause")

#' @export
unmasked_cause.default <- function(scheme, Z, rows) "the scheme left them unchanged"

scheme_promises_change <- function(scheme) scheme_traits(scheme)$promises_change
