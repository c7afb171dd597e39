# The classical masks of METHODS 1.2: rounding, truncation, grouping, noise.

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
#' Every scheme has the fields `method` (short name: `"none"`, `"round"`,
#' `"truncate"`, `"group"`, `"noise"`, `"matrix"` or the kernel name),
#' `degree` (a number: `digits` for rounding and truncation, `amount` for
#' noise, the mean interval width for grouping (infinite ends excluded),
#' `lambda` for kernels and matrix schemes, 0 for `mask_none()`) and `label`
#' (a short text such as `"round 2"` or `"ring 0.05"`), which profiles and
#' plots use.
#'
#' @param digits Number of digits (a whole number; significant digits must be >= 1).
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
#' @name mask_scheme
NULL

#' @rdname mask_scheme
#' @export
mask_none <- function() {
  new_mask_scheme("none", "none", 0, "none")
}

#' @rdname mask_scheme
#' @export
mask_round <- function(digits, type = c("significant", "decimal")) {
  type <- check_choice(type, c("significant", "decimal"), arg = "type")
  digits <- check_number(digits, "digits", integer = TRUE,
                         lower = if (type == "significant") 1 else -Inf)
  new_mask_scheme("round", "round", digits,
                  sprintf("round %d%s", digits, if (type == "decimal") "d" else ""),
                  digits = digits, round_type = type)
}

#' @rdname mask_scheme
#' @export
mask_truncate <- function(digits = 0) {
  digits <- check_number(digits, "digits", integer = TRUE)
  new_mask_scheme("truncate", "truncate", digits, sprintf("truncate %d", digits),
                  digits = digits)
}

#' @rdname mask_scheme
#' @export
mask_group <- function(breaks, value = c("mean", "midpoint"), reference = NULL) {
  value <- check_choice(value, c("mean", "midpoint"), arg = "value")
  if (!is.numeric(breaks) || length(breaks) < 2L || anyNA(breaks))
    abort_type("breaks", "a numeric vector of at least two interval limits")
  if (any(diff(breaks) <= 0)) abort_value("breaks", "strictly increasing")
  breaks <- as.double(breaks)
  if (value == "midpoint" && any(is.infinite(breaks)))
    abort_value("breaks", "finite for `value = \"midpoint\"`")
  if (!is.null(reference)) reference <- check_group_reference(reference)
  widths <- diff(breaks)
  degree <- mean(widths[is.finite(widths)])
  if (is.nan(degree)) degree <- Inf
  new_mask_scheme("group", "group", degree,
                  sprintf("group %d", length(breaks) - 1L),
                  breaks = breaks, value = value, reference = reference,
                  generator = sprintf("grouping (%s)", if (value == "mean") "means" else "midpoints"),
                  strength = degree)
}

check_group_reference <- function(reference) {
  if (is.list(reference)) {
    if (is.null(names(reference)) || any(!nzchar(names(reference))))
      abort_type("reference", "a numeric vector or a named list of numeric vectors")
    for (nm in names(reference))
      reference[[nm]] <- check_numeric_vector(reference[[nm]], "reference", finite = FALSE)
    return(as.list(reference))
  }
  check_numeric_vector(reference, "reference", finite = FALSE)
}

#' @rdname mask_scheme
#' @export
mask_noise <- function(amount, dist = c("uniform", "normal", "correlated"), lower = NULL) {
  dist <- check_choice(dist, c("uniform", "normal", "correlated"), arg = "dist")
  amount <- check_number(amount, "amount", lower = 0, lower_open = TRUE)
  lower <- check_number(lower, "lower", allow_null = TRUE)
  new_mask_scheme("noise", "noise", amount,
                  sprintf("%snoise %s", if (dist == "correlated") "corr " else "",
                          format(amount, digits = 4)),
                  amount = amount, dist = dist, lower = lower,
                  generator = sprintf("%s noise", dist), strength = amount, random = TRUE)
}

# trunc(Z * 10^digits) / 10^digits without overflow: a value whose scaling
# overflows (|Z| > 1e16 or 10^digits = Inf) has no digits to drop; with
# 10^digits = 0 every finite value truncates to 0.
truncate_values <- function(Z, digits) {
  scale <- 10^digits
  if (scale == 0) return(Z * 0)
  out <- trunc(Z * scale) / scale
  unchanged <- is.finite(Z) & !is.finite(out)
  out[unchanged] <- Z[unchanged]
  out
}

mask_group_values <- function(scheme, Z) {
  breaks <- scheme$breaks
  nb <- length(breaks)
  mids <- (breaks[-1L] + breaks[-nb]) / 2
  for (j in seq_len(ncol(Z))) {
    z <- Z[, j]
    bin <- findInterval(z, breaks, rightmost.closed = TRUE)
    outside <- !is.na(z) & (bin == 0L | bin == nb)
    if (any(outside))
      abort_value("data", sprintf("within the `breaks` of the grouping scheme [%s, %s]; %d value(s) are outside",
                                  format(breaks[1L]), format(breaks[nb]), sum(outside)))
    level <- mids
    if (scheme$value == "mean") level <- group_means(scheme, z, colnames(Z)[j], breaks)
    Z[, j] <- level[bin]
  }
  Z
}

group_means <- function(scheme, z, var, breaks) {
  nb <- length(breaks)
  ref <- scheme$reference
  if (is.list(ref)) {
    if (is.null(var) || !var %in% names(ref))
      abort_name("reference", if (is.null(var)) "(unnamed column)" else var,
                 "the masked columns")
    ref <- ref[[var]]
  }
  if (is.null(ref)) ref <- z
  ref <- ref[!is.na(ref)]
  rbin <- findInterval(ref, breaks, rightmost.closed = TRUE)
  keep <- rbin >= 1L & rbin < nb
  # one pass over the reference values, whatever the number of intervals
  counts <- tabulate(rbin[keep], nb - 1L)
  sums <- numeric(nb - 1L)
  if (any(keep)) {
    by_bin <- rowsum(ref[keep], rbin[keep], reorder = TRUE)
    sums[as.integer(rownames(by_bin))] <- by_bin[, 1L]
  }
  means <- sums / counts
  used <- unique(findInterval(z[!is.na(z)], breaks, rightmost.closed = TRUE))
  empty <- intersect(used, which(counts == 0L))
  if (length(empty)) {
    epimask_warn(sprintf("%d interval(s) hold data but no reference values; their midpoints are used.",
                         length(empty)), "epimask_warning_reference")
    means[empty] <- (breaks[empty] + breaks[empty + 1L]) / 2
  }
  means
}

mask_noise_values <- function(scheme, Z) {
  n <- nrow(Z)
  if (scheme$dist == "correlated") {
    Z <- Z + correlated_noise(Z, scheme$amount)
    if (!is.null(scheme$lower)) Z[] <- pmax(Z, scheme$lower)
    return(Z)
  }
  for (j in seq_len(ncol(Z))) {
    e <- if (scheme$dist == "uniform") stats::runif(n, -scheme$amount, scheme$amount)
         else stats::rnorm(n, 0, scheme$amount)
    z <- Z[, j] + e
    if (!is.null(scheme$lower)) z <- pmax(z, scheme$lower)
    Z[, j] <- z
  }
  Z
}

# n x p draws of N(0, amount * Sigma), Sigma the covariance of Z's complete
# rows: standard normals (column by column) times a root C with C'C = amount
# * Sigma.
correlated_noise <- function(Z, amount) {
  complete <- rowSums(!is.finite(Z)) == 0
  if (sum(complete) < 2L)
    abort_value("data", "at least two records with every masked value present and finite for correlated noise")
  Sigma <- amount * stats::cov(Z[complete, , drop = FALSE])
  root <- covariance_root(Sigma)
  matrix(stats::rnorm(nrow(Z) * ncol(Z)), nrow(Z), ncol(Z)) %*% root
}

# Upper-triangular Cholesky factor, or sqrt(D) V' from the eigen
# decomposition when Sigma is only positive semi-definite (a constant or
# collinear column).
covariance_root <- function(Sigma) {
  root <- tryCatch(chol(Sigma), error = function(e) NULL)
  if (!is.null(root)) return(root)
  e <- eigen(Sigma, symmetric = TRUE)
  # eigenvalues at rounding level are zero: their square roots (~1e-8 of
  # the largest) would put noise off the data's subspace
  values <- e$values
  values[values < max(values, 0) * nrow(Sigma) * .Machine$double.eps] <- 0
  sqrt(values) * t(e$vectors)
}
