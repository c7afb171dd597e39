# Additive noise (methods vignette section 1.2; correlated noise, methods vignette section 15): uniform,
# normal, or with the data's covariance; floored at `lower`.

#' @rdname mask_scheme
#' @export
mask_noise <- function(amount, dist = c("uniform", "normal", "correlated"), lower = NULL,
                       by = NULL, secret = NULL) {
  dist <- check_choice(dist, c("uniform", "normal", "correlated"), arg = "dist")
  amount <- check_number(amount, "amount", lower = 0, lower_open = TRUE)
  lower <- check_number(lower, "lower", allow_null = TRUE)
  by <- check_string(by, "by", allow_null = TRUE)
  if (!is.null(by) && dist == "correlated")
    abort_value("by", "NULL for correlated noise (one draw per person is for uniform or normal noise)")
  if (!is.null(secret)) {
    if (is.null(by)) abort_value("secret", "NULL unless `by` names the person column (a stable shift is one per person)")
    secret <- check_secret(secret, by)
  }
  new_mask_scheme("noise", method = "noise", degree = amount,
                  label = sprintf("%snoise %s%s", if (dist == "correlated") "corr " else "",
                                  format(amount, digits = 4),
                                  if (!is.null(by)) sprintf(" by %s", by) else ""),
                  amount = amount, dist = dist, lower = lower, by = by, secret = secret,
                  generator = sprintf("%s noise%s", dist, if (!is.null(by)) " per person" else ""),
                  strength = amount, random = TRUE)
}

#' @export
mask_validate.mask_noise <- function(scheme, ...) {
  mask_noise(scheme$amount, scheme$dist, scheme$lower, scheme$by, scheme$secret)
}

#' @export
mask_values.mask_noise <- function(scheme, x, data, ...) {
  dated <- noise_date_columns(scheme, x, data)
  person <- noise_persons(scheme, data)
  numeric_cols <- setdiff(seq_len(ncol(x)), dated)
  if (length(numeric_cols)) {
    x[, numeric_cols] <- if (is.null(person)) mask_noise_values(scheme, x[, numeric_cols, drop = FALSE])
                         else noise_by_person(scheme, x[, numeric_cols, drop = FALSE], person)
  }
  if (length(dated)) {
    # one shift in whole days per person (per record without `by`), the same
    # for all the person's date columns: every interval within a person kept
    unit <- if (is.null(person)) seq_len(nrow(x)) else person
    ids <- if (!is.null(person)) data[[scheme$by]]
    days <- date_shifts(scheme$amount, unit, ids, scheme$secret)
    for (j in dated) {
      per_day <- if (inherits(data[[colnames(x)[[j]]]], "POSIXct")) 86400 else 1
      x[, j] <- x[, j] + per_day * days
    }
  }
  x
}

# The date columns among the masked ones; dates take whole-day uniform
# shifts only.
noise_date_columns <- function(scheme, x, data) {
  if (is.matrix(data) || is.null(colnames(x))) return(integer())
  dated <- which(vapply(colnames(x), function(v) inherits(data[[v]], c("Date", "POSIXct")), logical(1)))
  if (!length(dated)) return(dated)
  if (scheme$dist != "uniform")
    abort_value("scheme", sprintf("uniform noise for the date column(s) %s (a shift in whole days), not %s",
                                  paste0("'", colnames(x)[dated], "'", collapse = ", "), scheme$dist))
  if (scheme$amount != round(scheme$amount) || scheme$amount > 1e6)
    abort_value("amount", sprintf("a whole number of days (at most 1e6) to shift the date column(s) %s, not %s",
                                  paste0("'", colnames(x)[dated], "'", collapse = ", "),
                                  format(scheme$amount)))
  if (!is.null(scheme$lower))
    abort_value("lower", sprintf("NULL when masking the date column(s) %s",
                                 paste0("'", colnames(x)[dated], "'", collapse = ", ")))
  unname(dated)
}

# The person of each record (NULL without `by`).
noise_persons <- function(scheme, data) {
  if (is.null(scheme$by)) return(NULL)
  if (!is.data.frame(data))
    abort_type("data", sprintf("a data frame holding the person column '%s' (`by`)", scheme$by))
  check_person_id(scheme$by, data, arg = "by")
  person_index(data[[scheme$by]])
}

# Numeric columns with `by`: one draw per person and column.
noise_by_person <- function(scheme, Z, person) {
  P <- max(person)
  for (j in seq_len(ncol(Z))) {
    e <- if (scheme$dist == "uniform") stats::runif(P, -scheme$amount, scheme$amount)
         else stats::rnorm(P, 0, scheme$amount)
    z <- Z[, j] + e[person]
    if (!is.null(scheme$lower)) z <- pmax(z, scheme$lower)
    Z[, j] <- z
  }
  Z
}

# Uniform noise shifts Date and POSIXct columns (whole days).
#' @export
mask_traits.mask_noise <- function(scheme, ...) {
  list(random = TRUE, promises_change = TRUE, exact_match_blind = TRUE, dates = TRUE)
}

#' @export
format.mask_noise <- function(x, ...) {
  revalidate_scheme(x, "x")
  num <- function(v) format(v, digits = 4)
  paste0(sprintf("%s noise, amount = %s", x$dist, num(x$amount)),
         if (!is.null(x$lower)) sprintf(", lower bound %s", num(x$lower)) else "",
         if (!is.null(x$by)) sprintf(", per '%s'%s", x$by,
                                     if (!is.null(x$secret)) " (keyed: stable across releases)" else "")
         else "")
}

#' @export
scheme_label.mask_noise <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("%s noise %s", scheme$dist, format(scheme$amount, digits = 4))
}

#' @export
mask_generator.mask_noise <- function(scheme, ...) {
  sprintf("noise (%s%s)", scheme$dist %||% "uniform", if (!is.null(scheme$by)) ", per person" else "")
}

#' @export
mask_strength.mask_noise <- function(scheme, ...) {
  if (is.numeric(scheme$amount) && length(scheme$amount) == 1L) scheme$amount else NA_real_
}

# A draw; every record should change; no ties for exact matching to find.

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
