# Additive noise (METHODS 1.2; correlated noise, METHODS 15): uniform,
# normal, or with the data's covariance; floored at `lower`.

#' @rdname mask_scheme
#' @export
mask_noise <- function(amount, dist = c("uniform", "normal", "correlated"), lower = NULL) {
  dist <- check_choice(dist, c("uniform", "normal", "correlated"), arg = "dist")
  amount <- check_number(amount, "amount", lower = 0, lower_open = TRUE)
  lower <- check_number(lower, "lower", allow_null = TRUE)
  new_mask_scheme("noise", method = "noise", degree = amount,
                  label = sprintf("%snoise %s", if (dist == "correlated") "corr " else "",
                                  format(amount, digits = 4)),
                  amount = amount, dist = dist, lower = lower,
                  generator = sprintf("%s noise", dist), strength = amount, random = TRUE)
}

#' @export
mask_validate.mask_noise <- function(scheme, ...) {
  mask_noise(scheme$amount, scheme$dist, scheme$lower)
}

#' @export
mask_values.mask_noise <- function(scheme, x, data, ...) mask_noise_values(scheme, x)

#' @export
format.mask_noise <- function(x, ...) {
  revalidate_scheme(x, "x")
  num <- function(v) format(v, digits = 4)
  paste0(sprintf("%s noise, amount = %s", x$dist, num(x$amount)),
         if (!is.null(x$lower)) sprintf(", lower bound %s", num(x$lower)) else "")
}

#' @export
scheme_label.mask_noise <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("%s noise %s", scheme$dist, format(scheme$amount, digits = 4))
}

#' @export
mask_generator.mask_noise <- function(scheme, ...) sprintf("noise (%s)", scheme$dist %||% "uniform")

#' @export
mask_strength.mask_noise <- function(scheme, ...) {
  if (is.numeric(scheme$amount) && length(scheme$amount) == 1L) scheme$amount else NA_real_
}

# A draw; every record should change; no ties for exact matching to find.
#' @export
mask_traits.mask_noise <- function(scheme, ...) {
  list(random = TRUE, promises_change = TRUE, exact_match_blind = TRUE)
}

# Independent noise changes constant columns too; correlated noise
# (covariance amount * Sigma) leaves a column without variance as it is, by
# design. Values at or below `lower` are floored there (Cologne: zero doses
# stay zero; a shared floor value identifies nobody): they say nothing.
#' @export
unmasked_records.mask_noise <- function(scheme, Z, Zm) {
  varying <- if (!identical(scheme$dist, "correlated")) seq_len(ncol(Z)) else varying_columns(Z)
  lower <- scheme$lower
  unchanged_rows(Z, Zm, varying,
                 if (!is.null(lower)) function(Zv) !is.na(Zv) & Zv <= lower)
}

#' @export
unmasked_cause.mask_noise <- function(scheme, Z, rows) {
  sprintf("the noise `amount` = %s is below the precision of values that large (|x| up to %s)",
          format(scheme$amount, digits = 4),
          format(max(abs(Z[rows, ]), na.rm = TRUE), digits = 4))
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
