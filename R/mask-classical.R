# The classical masks of methods vignette section 1.2: rounding, truncation, grouping, noise.
# Their shared help page; each type, with its constructor and methods, is in
# its own file: mask-none.R, mask-round.R (rounding and truncation),
# mask-group.R, mask-noise.R.

#' Masking schemes
#'
#' A masking scheme is a value of class `mask_scheme`: what to do and with
#' which degree, not yet applied; [apply_mask()] applies it. The classical
#' masks of Cologne et al. (2012) act on each value separately:
#' \describe{
#'   \item{`mask_round()`}{`signif(x, digits)` (`type = "significant"`,
#'     relative precision) or `round(x, digits)` (`type = "decimal"`,
#'     absolute precision; `digits = -1` rounds to tens).}
#'   \item{`mask_truncate()`}{`trunc(x * 10^digits) / 10^digits`, biased
#'     toward zero.}
#'   \item{`mask_group()`}{intervals \eqn{[b_j, b_{j+1})}, the last one
#'     closed; each value is replaced by the mean of the `reference` values in
#'     its interval (`value = "mean"`; the reference defaults to the masked
#'     column itself) or by the interval midpoint (`value = "midpoint"`).
#'     A value outside `[min(breaks), max(breaks)]` is an error (class
#'     `epimask_error_value`): widen the breaks (e.g. with `-Inf`/`Inf` ends
#'     and `value = "mean"`). An interval that holds data but no reference
#'     value gets its midpoint, with a warning. The interval means take one
#'     pass over the reference values whatever the number of intervals, so
#'     fine groupings (n / 3 intervals: univariate microaggregation, see
#'     [mask_microagg()]) cost \eqn{O(n \log m)} for m intervals.}
#'   \item{`mask_noise()`}{`x + U(-amount, amount)` (`dist = "uniform"`) or
#'     `x + N(0, amount^2)` (`dist = "normal"`), then values below `lower`
#'     are set to `lower`. Uses R's random number generator: `set.seed()`
#'     reproduces it. Noise is drawn column by column, one value per row.
#'     `dist = "correlated"` (Kim 1986) adds to the masked columns together
#'     \eqn{E \sim N(0, \code{amount} \cdot \Sigma)}{E ~ N(0, amount * Sigma)},
#'     \eqn{\Sigma} the covariance matrix of the masked columns (rows with
#'     every value finite), so the noise keeps the correlations: here `amount` is a ratio of
#'     variances, not a scale in data units, and the release has covariance
#'     \eqn{(1 + \code{amount}) \Sigma}{(1 + amount) Sigma} and the original
#'     correlations. The draws are the rows of an \eqn{n \times p} matrix of
#'     `rnorm()` values (filled column by column) times a square root of
#'     \eqn{\code{amount} \cdot \Sigma} (Cholesky, or the eigen root when
#'     \eqn{\Sigma} is singular).}
#'   \item{`mask_none()`}{the identity, the reference row of a profile.}
#' }
#' Missing values stay missing under the classical masks.
#'
#' **Dates** (methods vignette section 23). `Date` and `POSIXct` columns can be masked by
#' `mask_noise()`, `mask_round(unit = )`, `mask_truncate(unit = )` and
#' [mask_topcode()] (and passed through by `mask_none()`); the released
#' column keeps its class and time zone, and nothing in the release tells
#' the shift or the seed.
#' \itemize{
#'   \item `mask_noise(amount, by = )` shifts dates by whole days: one shift
#'     per person when `by` names the person column, the same for all the
#'     person's records and all the masked date columns, so every interval
#'     within a person (age at diagnosis, time to death, length of stay) is
#'     kept exactly; without `by`, one shift per record. The shift is uniform
#'     on the `2 * amount` non-zero whole numbers of days in `[-amount,
#'     amount]` (0 is left out so that every date moves: a record released
#'     with its true date would be unshifted in silence). `amount` must be a
#'     whole number of days, `dist` uniform and `lower` NULL for dates. A
#'     `POSIXct` moves by the same number of days times 86,400 seconds: the
#'     intervals are kept to the second, and in a zone with daylight saving
#'     the clock time can move by an hour. With `secret` (a string or raw
#'     vector kept apart from the release) the shift of a person is derived
#'     from the keyed hash (HMAC-SHA-256) of their identifier, as the
#'     pseudonyms of [datafly()]: the same shift in every release made under
#'     that secret (so successive releases do not average out), and not
#'     recomputable without it. Numeric columns masked with `by` get one
#'     draw per person and column. The `by` column must have no `NA`.
#'   \item `mask_truncate(unit = )` releases the first day of the ISO week
#'     (Monday), month, quarter or year holding each date; `mask_round(unit
#'     = )` the nearer of that day and the first day of the next unit (a date
#'     exactly halfway goes to the later). For a `POSIXct`, the day is taken
#'     in the column's time zone (the session's when it has none) and the
#'     result is midnight there. A scheme with `digits` refuses date columns
#'     and a scheme with a `unit` refuses numeric ones (classed errors).
#'   \item Dates before 1900 or after today are masked like the others, with
#'     a warning of class `epimask_warning_dates` naming the columns (a
#'     placeholder such as 1800-01-01, a typing error, a scheduled visit).
#'     `POSIXlt` columns are refused: convert them with [as.POSIXct()].
#' }
#'
#' Every scheme has the fields `method` (short name: `"none"`, `"round"`,
#' `"truncate"`, `"group"`, `"noise"`, `"matrix"` or the kernel name),
#' `degree` (a number: `digits` for rounding and truncation, `amount` for
#' noise, the mean interval width for grouping (infinite ends excluded),
#' `lambda` for kernels and matrix schemes, 0 for `mask_none()`) and `label`
#' (a short text such as `"round 2"` or `"ring 0.05"`), which profiles and
#' plots use.
#'
#' @param digits Number of digits (a whole number; significant digits must be >= 1);
#'   left out (`NULL`) with `unit`.
#' @param type `"significant"` or `"decimal"`.
#' @param breaks Increasing interval limits (at least two, distinct).
#' @param value `"mean"` or `"midpoint"`.
#' @param reference Values whose interval means replace the data: a numeric
#'   vector used for every masked column, or a named list (or data frame) with
#'   one numeric vector per masked column. `NULL`: the data themselves.
#' @param amount Noise scale > 0: half-width of the uniform or SD of the
#'   normal; for `dist = "correlated"`, the noise covariance as a multiple of
#'   the data's.
#' @param dist `"uniform"`, `"normal"` or `"correlated"`.
#' @param lower Lower bound after adding noise, or `NULL` for none.
#' @param by `NULL` or the name of the person column: one draw per person
#'   (for dates, one shift for all the person's records and date columns).
#' @param secret `NULL`, or a secret key (string or raw vector) making each
#'   person's date shift a keyed hash of their identifier, stable across
#'   releases under that secret; needs `by`.
#' @param unit For `Date` and `POSIXct` columns: `"week"`, `"month"`,
#'   `"quarter"` or `"year"` (then `digits` is left out).
#' @param base Round to multiples of `base` (a number > 0; `digits` and
#'   `unit` left out). On a count table ([table_counts()]) this is
#'   controlled rounding: every cell, margins included, goes to one of the
#'   two multiples of `base` next to it and the rounded cells still add up
#'   (a mixed-integer program, methods vignette section 30); on a data
#'   frame each value goes to the nearer multiple.
#' @param rounding With `base`: `"controlled"` (above) or `"random"`
#'   (unbiased random rounding: up with probability (x - lower multiple) /
#'   base; on a table the interior cells are rounded so and the margins are
#'   their sums).
#' @return A `mask_scheme`.
#' @references Cologne, J., Grant, E. J., Nakashima, E., Chen, Y., Funamoto,
#'   S. and Katayama, H. (2012). Protecting privacy of shared epidemiologic
#'   data without compromising analysis potential. Journal of Environmental
#'   and Public Health 2012, 193680.
#'
#'   Kim, J. J. (1986). A method for limiting disclosure in microdata based
#'   on random noise and transformation. Proceedings of the Section on Survey
#'   Research Methods, American Statistical Association, 303-308.
#' @seealso [mask_kernel()], [mask_matrix()], [apply_mask()]
#' @family masking schemes
#' @examples
#' d <- data.frame(dose = c(0.0123, 1.456, 0.789), age = c(31, 45, 52))
#' apply_mask(d, mask_round(2), "dose")
#' apply_mask(d, mask_truncate(1), "dose")
#' apply_mask(d, mask_group(c(0, 0.5, 1, 2)), "dose")
#' apply_mask(d, mask_group(c(0, 0.5, 1, 2), "midpoint"), "dose")
#' set.seed(1)
#' apply_mask(d, mask_noise(0.1, lower = 0), "dose")
#' apply_mask(d, mask_noise(0.5, "correlated"))
#' mask_none()
#' # dates: one shift per person keeps every interval within the person
#' visits <- data.frame(pid = c("a", "a", "b"),
#'                      seen = as.Date(c("2020-01-10", "2020-03-02", "2020-02-14")))
#' shifted <- apply_mask(visits, mask_noise(7, by = "pid"), "seen")
#' diff(shifted$seen[1:2]) == diff(visits$seen[1:2])
#' apply_mask(visits, mask_truncate(unit = "month"), "seen")
#' apply_mask(visits, mask_round(unit = "quarter"), "seen")
#' @name mask_scheme
NULL
