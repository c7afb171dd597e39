# Linear excess-relative-risk (ERR) binary regression, methods vignette section 2.1 (Cologne et
# al. Table 2, Epicure's GMBO model). The likelihood, its derivatives and the
# damped Newton solver are in C (src/err.c); this file holds the formula front
# end, the profile-likelihood interval, and the S3 methods.

#' Linear excess-relative-risk binary regression
#'
#' Fits the linear excess-relative-risk (ERR) model for a binary or binomial
#' outcome,
#' \deqn{\mathrm{odds}_i = \exp(z_i'\gamma)\,(1 + \beta d_i),}{odds_i = exp(z_i' gamma) * (1 + beta * d_i),}
#' where \eqn{z_i} is the log-linear part given by `formula` (intercept
#' included), \eqn{d_i} the dose and \eqn{\beta} the excess relative risk (of
#' the odds) per unit dose, subject to \eqn{1 + \beta d_i > 0} for every
#' record (\eqn{\beta > -1/\max d} when doses are non-negative).
#'
#' The log-linear part is first fitted with \eqn{\beta = 0} (a logistic
#' regression, whose deviance gives the likelihood-ratio test), then
#' \eqn{(\gamma, \beta)} are maximised jointly by Newton steps on the observed
#' information, with step halving and steps that never cross the admissible
#' limit. Standard errors come from the observed information. When the
#' likelihood keeps rising up to an admissible limit (for example a negative
#' dose effect with no cases at the highest dose), the estimate is that limit,
#' `boundary` is `TRUE`, and a warning of class `epimask_warning_boundary` is
#' given: the Wald standard error of \eqn{\beta} is then not meaningful, while
#' the likelihood-ratio test and the profile interval still are.
#'
#' The profile-likelihood interval is
#' \eqn{\{\beta : D(\beta) - D(\hat\beta) \le \chi^2_{1, level}\}}{{beta : D(beta) - D(beta_hat) <= qchisq(level, 1)}},
#' with \eqn{D(\beta)} the deviance minimised over \eqn{\gamma} at fixed
#' \eqn{\beta}; each end is found by root finding on warm-started fits. An end
#' the profile deviance never reaches within the admissible range is "open": it
#' is reported as the admissible limit (for example \eqn{-1/\max d}) or as
#' `Inf`, with `profile_ci$open` set.
#'
#' Records with zero weight (or zero trials) do not enter the likelihood nor
#' the constraint on \eqn{\beta}.
#'
#' @param formula A formula `response ~ terms` for the log-linear part. The
#'   response is 0/1 numeric, logical, a two-level factor (the first level is
#'   the non-case), or `cbind(cases, noncases)` with whole counts. An
#'   `offset()` term is allowed.
#' @param data A data frame (or a matrix with column names).
#' @param dose The name of the dose column of `data` (numeric, finite).
#' @param weights Optional prior weights: a non-negative numeric vector with
#'   one value per row of `data`, or the name of a column of `data`.
#' @param level Confidence level of the profile-likelihood interval.
#' @param control A list with `maxit` (Newton iterations, default 100),
#'   `max_halving` (default 30) and `eps` (relative deviance change for
#'   convergence, default 1e-10).
#' @return An object of class `epimask_err`: a list with `coefficients`
#'   (\eqn{\gamma} then \eqn{\beta}, named after the dose column), `se`,
#'   `vcov`, `deviance`, `null.deviance`, `df.residual`, `df.null`, `loglik`,
#'   `iter`, `converged`, `boundary`, `lr_test` (statistic
#'   \eqn{D(\beta = 0) - D(\hat\beta)}, `df`, `p.value`, `deviance_zero`),
#'   `profile_ci` (`lower`, `upper`, `open`, `limits`, `level`, `threshold`),
#'   `fitted.values`, `linear.predictors`, `records` (the records given and
#'   used: all of them, since missing values are refused), and what the
#'   methods need.
#'   Methods: `print`, `summary`, `coef`, `vcov`, `confint`, `logLik`,
#'   `deviance`, `nobs`, `predict`.
#' @seealso [confint.epimask_err()], [predict.epimask_err()]
#' @family model fitting
#' @examples
#' set.seed(1)
#' n <- 3000
#' cohort <- data.frame(sex = rbinom(n, 1, 0.5), age = runif(n, 0, 40),
#'                      dose = ifelse(runif(n) < 0.5, 0, rexp(n, 2)))
#' odds <- exp(-3.5 + 0.3 * cohort$sex + 0.01 * cohort$age) * (1 + 0.8 * cohort$dose)
#' cohort$case <- rbinom(n, 1, odds / (1 + odds))
#' fit <- fit_err(case ~ sex + age, cohort, dose = "dose")
#' fit
#' summary(fit)
#' confint(fit)
#' @importFrom stats coef vcov confint logLik deviance nobs predict
#' @export
fit_err <- function(formula, data, dose, weights = NULL, level = 0.95,
                    control = list()) {
  call <- match.call()
  check_formula(formula)
  data <- err_check_data(data)
  dose <- check_string(dose)
  check_columns(dose, data, arg = "dose")
  level <- check_number(level, lower = 0, upper = 1, lower_open = TRUE,
                        upper_open = TRUE)
  ctl <- err_control(control)

  d <- err_dose(data[[dose]])
  mf <- err_model_frame(formula, data)
  resp <- err_response(stats::model.response(mf))
  z <- design_matrix(attr(mf, "terms"), mf)
  storage.mode(z) <- "double"
  offset <- stats::model.offset(mf)
  if (!is.null(offset)) {
    offset <- as.double(offset)
    if (anyNA(offset) || any(!is.finite(offset)))
      abort_value("formula", "an offset() free of NA and Inf")
  }
  w <- err_weights(weights, data)
  err_check_informative(resp, w)
  err_check_rank(z, d, w > 0 & resp$m > 0, dose)

  eng <- err_engine(z, d, resp$y, resp$m, w, offset, ctl)
  names(eng$coefficients) <- c(colnames(z), dose)
  dimnames(eng$vcov) <- list(names(eng$coefficients), names(eng$coefficients))
  names(eng$se) <- names(eng$coefficients)
  err_signal(eng, dose)

  ci <- err_profile_ci(eng, level)
  fit <- c(eng, list(
    null.deviance = err_null_deviance(z, resp$y, resp$m, w, offset),
    loglik = err_loglik(eng$fitted.values, resp$y, resp$m, w),
    lr_test = err_lr_test(eng),
    profile_ci = ci,
    nobs = sum(w != 0),
    dose = dose,
    call = call,
    formula = formula,
    terms = attr(mf, "terms"),
    xlevels = stats::.getXlevels(attr(mf, "terms"), mf),
    contrasts = attr(z, "contrasts"),
    prior.weights = w,
    y = resp$y,
    trials = resp$m,
    # the ERR fit refuses missing values (err_model_frame()): it uses every record
    records = fit_records(nrow(data), nrow(data))
  ))
  fit$df.residual <- fit$nobs - length(fit$coefficients)
  fit$df.null <- fit$nobs - as.integer(attr(fit$terms, "intercept") == 1L)
  structure(fit, class = "epimask_err")
}

# ---- input checks --------------------------------------------------------

err_check_data <- function(data) {
  check_data(data)
  if (is.matrix(data)) {
    if (is.null(colnames(data))) abort_type("data", "a data frame or a matrix with column names")
    data <- as.data.frame(data)
  }
  data
}

err_dose <- function(d) {
  if (!is.numeric(d) || is.object(d))
    abort_type("dose", "the name of a numeric column of `data`")
  if (anyNA(d)) abort_value("dose", "a column free of NA and NaN")
  if (any(!is.finite(d))) abort_value("dose", "a column of finite values (no Inf)")
  as.double(d)
}

err_model_frame <- function(formula, data) {
  if (length(formula) != 3L)
    abort_type("formula", "a two-sided formula such as case ~ sex + age")
  mf <- tryCatch(
    stats::model.frame(formula, data, na.action = stats::na.pass),
    error = function(e) abort_value("formula",
      sprintf("made of columns of `data` (%s)", conditionMessage(e))))
  has_na <- vapply(mf, anyNA, logical(1))
  if (any(has_na))
    abort_value("data", sprintf("free of NA in the variables the model uses; %s has NA",
                                paste0("'", names(mf)[has_na], "'", collapse = ", ")))
  mf
}

# Binary or binomial response as successes y out of m trials.
err_response <- function(r) {
  bad <- function(what) abort_value("formula", paste("a response that is", what))
  if (is.logical(r)) return(list(y = as.double(r), m = rep(1, length(r))))
  if (is.factor(r)) {
    if (nlevels(r) != 2L) bad(sprintf("binary: a factor with 2 levels, not %d", nlevels(r)))
    return(list(y = as.double(as.integer(r) == 2L), m = rep(1, length(r))))
  }
  if (is.matrix(r)) {
    if (!is.numeric(r) || ncol(r) != 2L) bad("cbind(cases, noncases) with two numeric columns")
    if (any(!is.finite(r)) || any(r < 0) || any(r != round(r)))
      bad("cbind(cases, noncases) of non-negative whole counts")
    return(list(y = as.double(r[, 1L]), m = as.double(r[, 1L] + r[, 2L])))
  }
  if (!is.numeric(r)) bad("0/1 numeric, logical, a two-level factor or cbind(cases, noncases)")
  if (any(!(r %in% c(0, 1))))
    bad("binary (0/1); use cbind(cases, noncases) for counts")
  list(y = as.double(r), m = rep(1, length(r)))
}

err_weights <- function(weights, data) {
  n <- nrow(data)
  if (is.null(weights)) return(rep(1, n))
  if (is.character(weights) && length(weights) == 1L) {
    check_columns(weights, data, arg = "weights")
    weights <- data[[weights]]
  }
  if (!is.numeric(weights) || is.object(weights))
    abort_type("weights", "a numeric vector or the name of a numeric column of `data`")
  if (length(weights) != n)
    abort_length("weights", sprintf("have one value per row of `data` (%d), not %d",
                                    n, length(weights)))
  if (anyNA(weights) || any(!is.finite(weights)))
    abort_value("weights", "free of NA, NaN and Inf")
  if (any(weights < 0)) abort_value("weights", "non-negative")
  as.double(weights)
}

err_check_informative <- function(resp, w) {
  use <- w > 0 & resp$m > 0
  if (!any(use)) abort_empty("data")
  cases <- sum(w[use] * resp$y[use])
  noncases <- sum(w[use] * (resp$m[use] - resp$y[use]))
  if (cases <= 0 || noncases <= 0)
    abort_value("formula", "a response with both cases and non-cases")
}

err_check_rank <- function(z, d, use, dose) {
  zu <- z[use, , drop = FALSE]
  if (ncol(zu) > 0L && qr(zu)$rank < ncol(zu))
    epimask_abort(paste0("`formula` gives a singular log-linear design ",
                         "(collinear or constant columns)."),
                  "epimask_error_singular", arg = "formula")
  # at beta = 0 the dose enters the score as the column d
  if (qr(cbind(zu, d[use]))$rank < ncol(zu) + 1L)
    epimask_abort(sprintf(paste0("`dose` ('%s') is constant or collinear with the ",
                                 "log-linear part, so the ERR cannot be estimated."), dose),
                  "epimask_error_singular", arg = "dose")
}

err_control <- function(control) {
  if (!is.list(control)) abort_type("control", "a list")
  unknown <- setdiff(names(control), c("maxit", "max_halving", "eps"))
  if (length(unknown))
    abort_name("control", unknown, "the control settings (maxit, max_halving, eps)")
  maxit <- check_count(if (is.null(control$maxit)) 100L else control$maxit, "control$maxit")
  halving <- check_count(if (is.null(control$max_halving)) 30L else control$max_halving,
                         "control$max_halving", lower = 0L)
  eps <- check_number(if (is.null(control$eps)) 1e-10 else control$eps, "control$eps",
                      lower = 0, lower_open = TRUE)
  list(maxit = maxit, max_halving = halving, eps = eps)
}

# ---- fitting -------------------------------------------------------------

err_call_fit <- function(z, d, y, m, w, offset, start, fixed, ctl) {
  spec <- c(list(z = z, d = d, y = y, m = m, w = w, offset = offset,
                 start = as.double(start), fixed = as.integer(fixed)), ctl)
  call_c(C_err_fit, spec, arg = "control")
}

# Start of the log-linear part: the intercept at the overall logit.
err_gamma_start <- function(z, y, m, w) {
  g <- numeric(ncol(z))
  int <- which(colSums(z != 1) == 0)[1L]
  if (!is.na(int)) {
    use <- w > 0 & m > 0
    g[int] <- stats::qlogis(sum(w[use] * y[use]) / sum(w[use] * m[use]))
  }
  g
}

err_abort_singular <- function() {
  epimask_abort(paste0("The information matrix is singular: the log-linear part ",
                       "or the ERR cannot be estimated from these data."),
                "epimask_error_singular", arg = "formula")
}

# The fit without the profile interval: the logistic fit at beta = 0, then the
# joint Newton fit. Shared by fit_err() and err_fit_matrix().
err_engine <- function(z, d, y, m, w, offset, ctl, start = NULL) {
  p <- ncol(z)
  fit0 <- err_call_fit(z, d, y, m, w, offset, c(err_gamma_start(z, y, m, w), 0),
                       TRUE, ctl)
  if (fit0$status == 1L) err_abort_singular()
  if (is.null(start)) start <- fit0$coefficients
  fit <- err_call_fit(z, d, y, m, w, offset, start, FALSE, ctl)
  if (fit$status == 1L) err_abort_singular()
  if (fit$status == 2L) abort_value("start", "a point where every case has positive odds")
  vc <- err_vcov(fit$info)
  eta <- err_eta(z, d, offset, fit$coefficients)
  use <- w > 0 & m > 0
  lim <- err_beta_limits(d[use])
  list(coefficients = fit$coefficients, se = sqrt(pmax(diag(vc), 0)), vcov = vc,
       deviance = fit$deviance, deviance_zero = fit0$deviance,
       converged = fit$converged && fit0$converged, iter = fit$iter,
       boundary = fit$boundary != 0L, boundary_side = fit$boundary,
       score = fit$score, info = fit$info,
       linear.predictors = eta, fitted.values = stats::plogis(eta),
       limits = lim, ctl = ctl,
       model_data = list(z = z, d = d, y = y, m = m, w = w, offset = offset))
}

err_vcov <- function(info) {
  k <- nrow(info)
  vc <- tryCatch(chol2inv(chol(info)), error = function(e) NULL)
  if (is.null(vc) || any(!is.finite(vc))) vc <- matrix(NA_real_, k, k)
  vc
}

err_eta <- function(z, d, offset, theta) {
  p <- ncol(z)
  u <- 1 + theta[p + 1L] * d
  log_u <- ifelse(u > 0, log1p(theta[p + 1L] * d), ifelse(u == 0, -Inf, NaN))
  eta <- drop(z %*% theta[seq_len(p)]) + log_u
  if (!is.null(offset)) eta <- eta + offset
  eta
}

err_beta_limits <- function(d) {
  c(lower = if (any(d > 0)) -1 / max(d) else -Inf,
    upper = if (any(d < 0)) -1 / min(d) else Inf)
}

err_signal <- function(eng, dose) {
  if (eng$boundary)
    epimask_warn(sprintf(paste0("The ERR estimate for '%s' is at the %s admissible limit ",
                                "(1 + beta * dose = 0 for the most extreme dose); its Wald ",
                                "standard error is not meaningful."),
                         dose, if (eng$boundary_side < 0) "lower" else "upper"),
                 "epimask_warning_boundary")
  md <- eng$model_data
  use <- md$w > 0 & md$m > 0 & is.finite(eng$linear.predictors)
  tiny <- 10 * .Machine$double.eps
  p <- eng$fitted.values[use]
  if (any(p < tiny | p > 1 - tiny))
    epimask_warn("Fitted probabilities numerically 0 or 1 occurred (separation).",
                 "epimask_warning_separation")
  if (!eng$converged)
    epimask_warn(sprintf("The ERR fit did not converge in %d iterations.", eng$iter),
                 "epimask_warning_convergence")
}

err_lr_test <- function(eng) {
  stat <- max(eng$deviance_zero - eng$deviance, 0)
  list(statistic = stat, df = 1L,
       p.value = stats::pchisq(stat, 1, lower.tail = FALSE),
       deviance_zero = eng$deviance_zero)
}

err_binomial_deviance <- function(p, y, m, w) {
  use <- w > 0 & m > 0
  y <- y[use]; m <- m[use]; w <- w[use]; p <- p[use]
  t1 <- ifelse(y > 0, y * (log(y / m) - log(p)), 0)
  t2 <- ifelse(m - y > 0, (m - y) * (log((m - y) / m) - log1p(-p)), 0)
  2 * sum(w * (t1 + t2))
}

# As glm: the intercept-only fit (with the offset) when there is an intercept.
err_null_deviance <- function(z, y, m, w, offset) {
  use <- w > 0 & m > 0
  int <- which(colSums(z != 1) == 0)[1L]
  if (is.na(int)) {
    eta0 <- if (is.null(offset)) rep(0, length(y)) else offset
    return(err_binomial_deviance(stats::plogis(eta0), y, m, w))
  }
  if (is.null(offset))
    return(err_binomial_deviance(rep(sum(w[use] * y[use]) / sum(w[use] * m[use]),
                                     length(y)), y, m, w))
  one <- matrix(1, length(y), 1L)
  f <- err_call_fit(one, rep(0, length(y)), y, m, w, offset,
                    c(err_gamma_start(one, y, m, w), 0), TRUE,
                    err_control(list()))
  f$deviance
}

err_loglik <- function(p, y, m, w) {
  use <- w > 0 & m > 0
  sum(w[use] * stats::dbinom(y[use], m[use], p[use], log = TRUE))
}

# ---- profile-likelihood interval -----------------------------------------

# Profile deviance D(beta) (minimised over gamma) and its slope, warm-started
# from the last fit. By the envelope theorem dD/dbeta = -2 U_beta at the
# constrained optimum, so the slope comes free with the fit. D is Inf where
# some case would have odds 0.
err_profiler <- function(eng) {
  md <- eng$model_data
  p <- ncol(md$z)
  last_gamma <- eng$coefficients[seq_len(p)]
  function(beta) {
    f <- err_call_fit(md$z, md$d, md$y, md$m, md$w, md$offset, c(last_gamma, beta),
                      TRUE, eng$ctl)
    if (f$status == 1L) err_abort_singular()
    if (!is.finite(f$deviance)) return(list(dev = Inf, slope = NA_real_))
    last_gamma <<- f$coefficients[seq_len(p)]
    list(dev = f$deviance, slope = -2 * f$score[[p + 1L]])
  }
}

err_profile_ci <- function(eng, level) {
  q <- stats::qchisq(level, 1)
  beta_hat <- eng$coefficients[[length(eng$coefficients)]]
  se <- eng$se[[length(eng$se)]]
  step <- if (is.finite(se) && se > 0) se else 0.1 * max(abs(beta_hat), 1)
  lower <- err_profile_end(eng, -1, beta_hat, step, q)
  upper <- err_profile_end(eng, +1, beta_hat, step, q)
  list(lower = lower$end, upper = upper$end,
       open = c(lower = lower$open, upper = upper$open),
       limits = eng$limits, level = level, threshold = q)
}

# One end of the interval: the root of excess(b) = D(b) - D(beta_hat) - q on
# the `side` of beta_hat, by Newton steps on the profile deviance, safeguarded
# by bisection once the root is bracketed and by step doubling before. The end
# is open when the admissible limit is reached (or the profile levels off
# towards an infinite limit) with excess still <= 0.
err_profile_end <- function(eng, side, beta_hat, step, q) {
  profile <- err_profiler(eng)
  limit <- eng$limits[[if (side < 0) "lower" else "upper"]]
  open_end <- list(end = limit, open = TRUE)
  if (beta_hat == limit) return(open_end)
  beyond <- function(b) side * (b - limit) >= 0
  inner <- beta_hat                      # last point with excess <= 0
  outer <- NA_real_                      # first point with excess > 0
  x <- beta_hat + side * sqrt(q) * step  # the Wald guess
  f_prev <- -q
  for (iter in 1:200) {
    if (beyond(x)) x <- limit
    ev <- profile(x)
    f <- ev$dev - eng$deviance - q
    if (is.finite(f) && abs(f) < 1e-9) return(list(end = x, open = FALSE))
    if (!is.finite(f) || f > 0) {
      outer <- x
    } else {
      if (x == limit) return(open_end)
      flat <- !is.finite(limit) && abs(x - beta_hat) > 32 * step &&
        abs(f - f_prev) < 1e-7 * (abs(eng$deviance) + 1) && f < -1e-3
      if (flat || abs(x - beta_hat) > 1e15 * step) return(open_end)
      inner <- x
      f_prev <- f
    }
    if (!is.na(outer) && abs(outer - inner) <= 1e-12 * (abs(inner) + step))
      return(list(end = if (is.finite(f) && f > 0) inner else x, open = FALSE))
    newton <- if (is.finite(f) && is.finite(ev$slope) && side * ev$slope > 0)
      x - f / ev$slope else NA_real_
    if (is.na(outer)) {
      # still looking for a bracket: Newton, but at most 4 times as far out
      far <- inner + side * 4 * max(abs(inner - beta_hat), step)
      x <- if (is.na(newton) || side * (newton - far) > 0) far else newton
      if (side * (x - inner) <= 0) x <- far
    } else {
      inside <- !is.na(newton) && (newton - inner) * (newton - outer) < 0
      x <- if (inside) newton else (inner + outer) / 2
    }
  }
  list(end = (inner + outer) / 2, open = FALSE)
}

# ---- fast entry point for replicated fits --------------------------------

#' Fit the linear ERR model on prepared arrays (internal)
#'
#' The numerical core of [fit_err()] without formula handling, checks beyond
#' the basic ones, or the profile interval: for loops that refit hundreds of
#' masked replicates.
#'
#' @param z Numeric matrix of the log-linear part (intercept column included).
#' @param d Dose vector.
#' @param y Cases per record.
#' @param m Trials per record (default 1).
#' @param w Prior weights (default 1).
#' @param start Optional start (gamma then beta); default: the logistic fit at
#'   beta = 0.
#' @param offset Optional offset of the log-linear part.
#' @param control As in [fit_err()].
#' @return A list with `coefficients`, `se`, `vcov`, `deviance`,
#'   `deviance_zero` (at beta = 0), `converged`, `boundary`, `iter`.
#' @keywords internal
#' @noRd
err_fit_matrix <- function(z, d, y, m = NULL, w = NULL, start = NULL,
                           offset = NULL, control = list()) {
  z <- check_numeric_matrix(z)
  n <- nrow(z)
  d <- check_numeric_vector(d, "d", len = n)
  y <- check_numeric_vector(y, "y", len = n)
  m <- if (is.null(m)) rep(1, n) else check_numeric_vector(m, "m", len = n)
  w <- if (is.null(w)) rep(1, n) else check_numeric_vector(w, "w", len = n)
  if (!is.null(offset)) offset <- check_numeric_vector(offset, "offset", len = n)
  if (!is.null(start)) start <- check_numeric_vector(start, "start", len = ncol(z) + 1L)
  eng <- err_engine(z, d, y, m, w, offset, err_control(control), start)
  eng[c("coefficients", "se", "vcov", "deviance", "deviance_zero", "converged",
        "boundary", "iter")]
}

# ---- methods ---------------------------------------------------------------

#' @export
coef.epimask_err <- function(object, ...) object$coefficients

#' @export
vcov.epimask_err <- function(object, ...) object$vcov

#' @export
deviance.epimask_err <- function(object, ...) object$deviance

#' @export
nobs.epimask_err <- function(object, ...) object$nobs

#' @export
logLik.epimask_err <- function(object, ...) {
  structure(object$loglik, df = length(object$coefficients), nobs = object$nobs,
            class = "logLik")
}

#' Confidence intervals for a linear ERR fit
#'
#' The profile-likelihood interval for the ERR coefficient (recomputed when
#' `level` differs from the fitted one) and Wald intervals for the log-linear
#' coefficients. An open profile end is the admissible limit of the ERR (or
#' `Inf`) and is flagged in the `open` attribute.
#'
#' @param object An `epimask_err` fit.
#' @param parm Coefficient names or indices (default all).
#' @param level Confidence level.
#' @param method `"profile"` (ERR by profile likelihood, the rest Wald) or
#'   `"wald"` (all Wald).
#' @param ... Unused.
#' @return A matrix with one row per coefficient and the lower and upper
#'   limits; attribute `open` (logical, two columns) marks open profile ends.
#' @examples
#' set.seed(2)
#' n <- 2000
#' x <- data.frame(dose = ifelse(runif(n) < 0.5, 0, rexp(n, 2)))
#' odds <- exp(-3) * (1 + x$dose)
#' x$case <- rbinom(n, 1, odds / (1 + odds))
#' fit <- fit_err(case ~ 1, x, dose = "dose")
#' confint(fit)
#' confint(fit, method = "wald")
#' @export
confint.epimask_err <- function(object, parm, level = 0.95,
                                method = c("profile", "wald"), ...) {
  method <- check_choice(method, c("profile", "wald"))
  level <- check_number(level, lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  cf <- object$coefficients
  nm <- names(cf)
  parm <- if (missing(parm)) nm else check_parm(parm, nm)
  zq <- stats::qnorm((1 + level) / 2)
  ci <- cbind(cf - zq * object$se, cf + zq * object$se)
  open <- matrix(FALSE, length(cf), 2L)
  if (method == "profile") {
    pci <- object$profile_ci
    if (!isTRUE(all.equal(level, pci$level))) {
      eng <- object[c("coefficients", "se", "deviance", "limits", "ctl", "model_data")]
      pci <- err_profile_ci(eng, level)
    }
    k <- length(cf)
    ci[k, ] <- c(pci$lower, pci$upper)
    open[k, ] <- pci$open
  }
  pct <- paste(format(100 * c((1 - level) / 2, (1 + level) / 2), trim = TRUE,
                      scientific = FALSE, digits = 3), "%")
  dimnames(ci) <- list(nm, pct)
  dimnames(open) <- list(nm, c("lower", "upper"))
  keep <- match(parm, nm)
  out <- ci[keep, , drop = FALSE]
  attr(out, "open") <- open[keep, , drop = FALSE]
  out
}

#' Predictions from a linear ERR fit
#'
#' @param object An `epimask_err` fit.
#' @param newdata Optional data frame with the model's variables and the dose
#'   column; default the fitted records.
#' @param type `"link"` (log odds), `"response"` (probability) or `"err"`
#'   (the excess relative risk `beta * dose`).
#' @param se.fit If `TRUE`, also return delta-method standard errors.
#' @param ... Unused.
#' @return A numeric vector, or a list with `fit` and `se.fit`. Records whose
#'   dose gives `1 + beta * dose <= 0` (outside the fitted range) have log odds
#'   `-Inf` (exactly 0) or `NA` (negative) with a warning.
#' @examples
#' set.seed(3)
#' n <- 2000
#' x <- data.frame(dose = ifelse(runif(n) < 0.5, 0, rexp(n, 2)))
#' odds <- exp(-3) * (1 + x$dose)
#' x$case <- rbinom(n, 1, odds / (1 + odds))
#' fit <- fit_err(case ~ 1, x, dose = "dose")
#' predict(fit, data.frame(dose = c(0, 1, 2)), type = "response")
#' @export
predict.epimask_err <- function(object, newdata = NULL,
                                type = c("link", "response", "err"),
                                se.fit = FALSE, ...) {
  type <- check_choice(type, c("link", "response", "err"))
  se.fit <- check_flag(se.fit)
  if (is.null(newdata)) {
    md <- object$model_data
    z <- md$z; d <- md$d; offset <- md$offset
  } else {
    newdata <- err_check_data(newdata)
    check_columns(object$dose, newdata, arg = "newdata", data_arg = "newdata")
    d <- err_dose(newdata[[object$dose]])
    tt <- stats::delete.response(object$terms)
    mf <- newdata_frame(tt, newdata, object$xlevels)
    z <- newdata_matrix(tt, mf, object$contrasts)
    offset <- stats::model.offset(mf)
  }
  theta <- object$coefficients
  p <- length(theta) - 1L
  beta <- theta[[p + 1L]]
  u <- 1 + beta * d
  if (any(u < 0))
    epimask_warn("Some doses give 1 + beta * dose < 0 (negative odds): predictions are NA.",
                 "epimask_warning_range")
  eta <- err_eta(z, d, offset, theta)
  eta[is.nan(eta)] <- NA_real_
  fit <- switch(type, link = eta, response = stats::plogis(eta), err = beta * d)
  fit <- stats::setNames(as.vector(fit), rownames(z))
  if (!se.fit) return(fit)
  grad <- if (type == "err") cbind(matrix(0, length(d), p), d) else cbind(z, d / u)
  se <- sqrt(pmax(rowSums((grad %*% object$vcov) * grad), 0))
  if (type == "response") se <- se * fit * (1 - fit)
  list(fit = fit, se.fit = stats::setNames(as.vector(se), names(fit)))
}

#' @export
format.epimask_err <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    cat(err_title(x$dose), sep = "\n")
    if (!is.null(x$call)) cat("Call:  ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
    cat("Coefficients:\n")
    print.default(format(x$coefficients, digits = digits), print.gap = 2L, quote = FALSE)
    cat(sprintf("\nDeviance: %s on %d degrees of freedom\n",
                format(signif(x$deviance, digits + 2L)), x$df.residual))
    cat(err_format_lr(x$lr_test, digits), "\n", sep = "")
    cat(err_format_ci(x$profile_ci, x$dose, digits), "\n", sep = "")
    if (x$boundary) cat("Note: the ERR estimate is at its admissible limit.\n")
    if (!x$converged) cat("Note: the fit did not converge.\n")
  })
}

#' @export
print.epimask_err <- function(x, ...) print_formatted(x, ...)

#' @export
summary.epimask_err <- function(object, ...) {
  est <- object$coefficients
  se <- object$se
  zval <- est / se
  table <- cbind(Estimate = est, `Std. Error` = se, `z value` = zval,
                 `Pr(>|z|)` = 2 * stats::pnorm(-abs(zval)))
  structure(c(object[c("call", "dose", "deviance", "null.deviance", "df.residual",
                       "df.null", "loglik", "iter", "converged", "boundary",
                       "lr_test", "profile_ci")],
              list(coefficients = table,
                   aic = -2 * object$loglik + 2 * length(est))),
            class = "summary.epimask_err")
}

#' @export
format.summary.epimask_err <- function(x, digits = max(3L, getOption("digits") - 3L),
                                       signif.stars = getOption("show.signif.stars"), ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    cat(err_title(x$dose), sep = "\n")
    if (!is.null(x$call)) cat("Call:\n", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
    cat("Coefficients (the last row is the ERR per unit dose):\n")
    stats::printCoefmat(x$coefficients, digits = digits, signif.stars = signif.stars,
                        na.print = "NA", ...)
    cat(sprintf("\n    Null deviance: %s  on %d degrees of freedom\n",
                format(signif(x$null.deviance, digits + 2L)), x$df.null))
    cat(sprintf("Residual deviance: %s  on %d degrees of freedom\n",
                format(signif(x$deviance, digits + 2L)), x$df.residual))
    cat(sprintf("AIC: %s\n\n", format(signif(x$aic, digits + 2L))))
    cat(err_format_lr(x$lr_test, digits), "\n", sep = "")
    cat(err_format_ci(x$profile_ci, x$dose, digits), "\n", sep = "")
    if (x$boundary)
      cat("The ERR estimate is at its admissible limit: its Wald standard error is not meaningful.\n")
    cat(sprintf("\nNewton iterations: %d%s\n", x$iter,
                if (x$converged) "" else " (did not converge)"))
  })
}

#' @export
print.summary.epimask_err <- function(x, ...) print_formatted(x, ...)

err_title <- function(dose) {
  c("Linear excess-relative-risk binary regression",
    sprintf("odds = exp(log-linear part) * (1 + beta * %s)", dose), "")
}

err_format_lr <- function(lr, digits) {
  sprintf("Likelihood-ratio test of ERR = 0: %s on 1 df, p = %s",
          format(signif(lr$statistic, digits)), format.pval(lr$p.value, digits = digits))
}

err_format_ci <- function(ci, dose, digits) {
  fmt <- function(v) format(signif(v, digits))
  end <- function(side) {
    v <- ci[[side]]
    if (!ci$open[[side]] || !is.finite(v)) return(fmt(v))
    paste0(fmt(v), " [limit]")
  }
  out <- sprintf("%g%% profile-likelihood interval for the ERR per unit %s: (%s, %s)",
                 100 * ci$level, dose, end("lower"), end("upper"))
  note <- function(side) {
    if (!ci$open[[side]]) return(NULL)
    sprintf("%s end not reached: the profile deviance stays within %s of its minimum %s",
            side, fmt(ci$threshold),
            if (is.finite(ci[[side]]))
              sprintf("up to the admissible limit %s (1 + ERR * %s > 0)", fmt(ci[[side]]), dose)
            else "however far the ERR goes")
  }
  notes <- c(note("lower"), note("upper"))
  if (length(notes)) out <- paste0(out, paste0("\n  ", notes, collapse = ""))
  out
}
