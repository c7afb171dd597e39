# The security-utility curve of Cologne et al. (2012), methods vignette section 6.1:
# anonymity = [1 - U^theta]^(1/theta), fitted by nonlinear least squares.

# The curve, computed on the log scale so that large theta (the paper found
# 178) and U close to 0 or 1 stay accurate: U^theta = exp(theta log U).
ru_curve_value <- function(u, theta) {
  out <- rep(NA_real_, length(u))
  ok <- !is.na(u)
  u <- pmin(pmax(u[ok], 0), 1)
  val <- numeric(length(u))
  val[u <= 0] <- 1
  inside <- u > 0 & u < 1
  val[inside] <- exp(log(-expm1(theta * log(u[inside]))) / theta)
  out[ok] <- val
  out
}

# d curve / d log(theta), used for Gauss-Newton steps and the standard error.
ru_curve_gradient <- function(u, theta) {
  grad <- numeric(length(u))
  inside <- u > 0 & u < 1
  ui <- u[inside]
  log_u <- log(ui)
  pow <- exp(theta * log_u)
  g <- log(-expm1(theta * log_u))
  f <- exp(g / theta)
  dtheta <- f * (-g / theta^2 - pow * log_u / (theta * (1 - pow)))
  grad[inside] <- dtheta * theta
  grad
}

#' Fit the security-utility curve to a risk-utility profile
#'
#' Fits the curve of the methods vignette, section 6.1, anonymity = \[1 - U^theta\]^(1/theta) of
#' Cologne et al. (2012) by nonlinear least squares, where U is the
#' analysis-potential score. U is clipped to \[0, 1\] (scores above 1 are
#' shown by the plot but count as 1 in the fit) and rows whose U or anonymity
#' is NA are dropped. The residual sum of squares is minimised over
#' log(theta) by a grid search followed by [stats::optimize()] and a few
#' Gauss-Newton steps; the standard error of theta is the usual nonlinear
#' least-squares one (residual variance over the squared gradient, by the
#' delta method from log(theta)), NA when the fit is exact or has no residual
#' degrees of freedom.
#'
#' @param ru an `ru_profile`, or a data frame with columns
#'   `analysis_potential` and `anonymity`.
#' @param interval range of theta searched.
#' @param object,x an `ru_curve`.
#' @param newdata analysis-potential scores (numeric) or a data frame with
#'   column `analysis_potential`; default the points fitted.
#' @param ... unused.
#' @return An object of class `ru_curve`: a list with `theta`, `se` (of
#'   theta), `rss`, `n` (points used), `n_clipped` (points with U > 1),
#'   `data` (the points used), `boundary` (TRUE when theta hit the edge of
#'   `interval`, or the fit is as good there as at the optimum), `identified`
#'   and `reason`, and `fits`, `rms`, `spread` and `fit_reason` (the
#'   goodness-of-fit rule below). When the points do not pin theta down (theta at the edge,
#'   a standard error larger than theta, every point in the corner of full
#'   utility and anonymity, a single point) `identified` is FALSE, `reason`
#'   says why, a warning of class `epimask_warning_unidentified` (and
#'   `epimask_warning_boundary` at the edge) is raised, and the plots leave
#'   the curve out unless asked.
#'
#'   **Goodness of fit.** A theta can be identified and the curve still miss
#'   the points (its one-parameter shape cannot follow them: e.g. anonymity
#'   that levels off below 1 as U falls). With \eqn{r_i} the residuals in
#'   anonymity, the curve fits when its root-mean-square residual is at most
#'   half the standard deviation of the points' anonymity (it explains about
#'   three quarters of their spread or more), or when every point is within
#'   \eqn{\max(0.02, 1.96 SE_i)} of it (\eqn{SE_i}: the Monte Carlo SE of
#'   the point's risk, column `risk_se`, 0 where NA). Otherwise `fits` is
#'   FALSE, `fit_reason` says by how much it misses, a warning of class
#'   `epimask_warning_misfit` is raised, `print()` says "DOES NOT FIT" and
#'   the plots leave the curve out unless asked. Methods: `print()`, `coef()` and
#'   `predict(object, newdata)`, `newdata` a vector of U values or a data
#'   frame with column `analysis_potential`.
#' @family profiles
#' @export
#' @examples
#' # points along a known curve (theta = 2) with a little noise
#' u <- seq(0.1, 0.95, length.out = 10)
#' pts <- data.frame(analysis_potential = u,
#'                   anonymity = (1 - u^2)^(1/2) + c(0.01, -0.01))
#' curve <- fit_ru_curve(pts)
#' curve
#' predict(curve, c(0.5, 0.9, 0.99))
#' # every point in the corner of full utility and anonymity: not identified
#' corner <- data.frame(analysis_potential = c(0.99, 1, 0.995),
#'                      anonymity = c(0.999, 0.99, 1))
#' suppressWarnings(fit_ru_curve(corner))$identified
fit_ru_curve <- function(ru, interval = c(1e-3, 1e6)) {
  if (!(inherits(ru, "ru_profile") || is.data.frame(ru)))
    abort_type("ru", "an `ru_profile` object")
  if (!inherits(ru, "ru_profile"))
    check_columns(c("analysis_potential", "anonymity"), ru, arg = "required columns",
                  data_arg = "ru")
  check_profile_cells(ru, "ru")
  interval <- check_numeric_vector(interval, "interval", len = 2L)
  if (interval[1] <= 0 || interval[2] <= interval[1])
    abort_value("interval", "two increasing positive numbers")
  keep <- !is.na(ru$analysis_potential) & !is.na(ru$anonymity)
  u_raw <- ru$analysis_potential[keep]
  y <- ru$anonymity[keep]
  if (length(y) == 0L)
    epimask_abort("`ru` has no scheme with both an analysis potential and an anonymity score.",
                  "epimask_error_empty", arg = "ru")
  u <- pmin(pmax(u_raw, 0), 1)
  if (!any(u > 0 & u < 1))
    epimask_abort(paste("`ru` needs at least one scheme with analysis potential",
                        "strictly between 0 and 1 to fit the curve."),
                  "epimask_error_value", arg = "ru")
  fit <- ru_curve_lsq(u, y, log(interval))
  theta <- exp(fit$log_theta)
  boundary <- fit$log_theta <= log(interval[1]) + 1e-8 ||
    fit$log_theta >= log(interval[2]) - 1e-8
  se <- if (boundary) NA_real_ else theta * fit$se_log_theta
  why <- ru_curve_unidentified(u, y, theta, se, fit$rss, boundary)
  if (length(why)) {
    epimask_warn(sprintf("The points do not pin theta down (%s): the curve is not drawn by default.",
                         why),
                 c("epimask_warning_unidentified", if (boundary) "epimask_warning_boundary"))
  }
  y_se <- if (is.null(ru$risk_se)) rep(NA_real_, length(y)) else as.double(ru$risk_se[keep])
  gof <- ru_curve_gof(u, y, theta, y_se)
  if (!length(why) && !gof$fits)
    epimask_warn(sprintf("The fitted curve does not fit the points it summarises (%s): it is not drawn by default.",
                         gof$reason), "epimask_warning_misfit")
  structure(list(
    theta = theta, se = se, rss = fit$rss,
    n = length(y), n_clipped = sum(u_raw > 1),
    data = data.frame(analysis_potential = u, anonymity = y,
                      scheme = if (is.null(ru$scheme)) seq_along(y) else ru$scheme[keep],
                      stringsAsFactors = FALSE),
    boundary = boundary,
    identified = !length(why),
    reason = if (length(why)) why else NA_character_,
    fits = gof$fits, rms = gof$rms, spread = gof$spread,
    fit_reason = if (gof$fits) NA_character_ else gof$reason
  ), class = "ru_curve")
}

# Does the fitted curve fit the points it summarises? With r_i the residuals
# on the anonymity scale (the scale it is fitted on), the curve fits when
#   (a) its root-mean-square residual is at most half the standard deviation
#       of the points' anonymity (it explains about three quarters or more of
#       their spread: R^2 = 1 - RSS / TSS >= 0.75 up to the degrees of
#       freedom), or
#   (b) every point is within max(0.02, 1.96 SE_i) of it, SE_i the Monte
#       Carlo SE of the point's risk (0 where NA): the misses are within the
#       points' own uncertainty, or too small to read off a plot.
# (b) covers points with little spread, where (a) has nothing to measure
# against. A curve that passes beside every point (the family's shape cannot
# follow them) fails both.
ru_curve_gof <- function(u, y, theta, y_se = NULL) {
  res <- y - ru_curve_value(u, theta)
  rms <- sqrt(mean(res^2))
  spread <- if (length(y) >= 2L) stats::sd(y) else NA_real_
  if (is.null(y_se)) y_se <- rep(NA_real_, length(y))
  y_se[is.na(y_se)] <- 0
  tol <- pmax(0.02, stats::qnorm(0.975) * y_se)
  fits <- (!is.na(spread) && rms <= 0.5 * spread) || all(abs(res) <= tol)
  worst <- which.max(abs(res) - tol)
  reason <- sprintf(paste0("root-mean-square residual %s in anonymity, more than half the points' ",
                           "spread (SD %s); the largest miss is %s at U = %s"),
                    format_num(rms, 2), format_num(spread, 2), format_num(res[worst], 2),
                    format_num(u[worst], 3))
  list(fits = fits, rms = rms, spread = spread, reason = reason)
}

# Why theta is not identified ("" when it is): theta at the edge of the
# search range; no residual degrees of freedom; every point in the corner of
# full utility and full anonymity (U and anonymity above 0.98), where every
# large theta fits; or a standard error larger than theta itself.
ru_curve_unidentified <- function(u, y, theta, se, rss, boundary) {
  if (boundary)
    return(sprintf("theta ran to the edge of the search interval (%s)", format(signif(theta, 3))))
  if (length(y) < 2L)
    return("one point leaves no residual degree of freedom")
  if (all(u > 0.98 & y > 0.98))
    return("all points sit in the corner of full utility and full anonymity")
  exact <- rss <= 1e-20 * length(y)
  if (!exact && is.na(se))
    return("the standard error of theta cannot be computed")
  if (!exact && se > theta)
    return(sprintf("the standard error of theta, %s, exceeds theta, %s",
                   format(signif(se, 2)), format(signif(theta, 3))))
  character()
}

ru_curve_lsq <- function(u, y, log_range) {
  rss <- function(lt) sum((y - ru_curve_value(u, exp(lt)))^2)
  grid <- seq(log_range[1], log_range[2], length.out = 241L)
  vals <- vapply(grid, rss, numeric(1))
  best <- which.min(vals)
  lo <- grid[max(1L, best - 1L)]
  hi <- grid[min(length(grid), best + 1L)]
  lt <- stats::optimize(rss, c(lo, hi), tol = 1e-12)$minimum
  if (vals[best] < rss(lt)) lt <- grid[best]
  # Gauss-Newton polish: quadratic convergence where optimize() is only linear.
  for (iter in 1:20) {
    res <- y - ru_curve_value(u, exp(lt))
    jac <- ru_curve_gradient(u, exp(lt))
    denom <- sum(jac^2)
    if (denom <= 0) break
    step <- sum(jac * res) / denom
    cand <- min(max(lt + step, log_range[1]), log_range[2])
    if (rss(cand) > rss(lt)) break
    done <- abs(cand - lt) < 1e-13 * max(1, abs(lt))
    lt <- cand
    if (done) break
  }
  r <- rss(lt)
  # When the RSS is as low at an end of the range as at the optimum, the data
  # do not pin theta down (e.g. every point at anonymity 1): report that end.
  flat <- function(end) rss(end) - r <= 1e-10 * (1 + r)
  if (flat(log_range[2])) lt <- log_range[2] else if (flat(log_range[1])) lt <- log_range[1]
  r <- rss(lt)
  jac <- ru_curve_gradient(u, exp(lt))
  df <- length(y) - 1L
  se <- if (df > 0 && sum(jac^2) > 0 && r > 0) sqrt(r / df / sum(jac^2)) else NA_real_
  list(log_theta = lt, rss = r, se_log_theta = se)
}

#' @rdname fit_ru_curve
#' @export
coef.ru_curve <- function(object, ...) c(theta = object$theta)

#' @rdname fit_ru_curve
#' @export
predict.ru_curve <- function(object, newdata = NULL, ...) {
  u <- if (is.null(newdata)) object$data$analysis_potential else
    if (is.data.frame(newdata)) newdata[["analysis_potential"]] else newdata
  if (is.null(u) || !is.numeric(u) || is.object(u) || !is.null(dim(u)))
    abort_type("newdata", "numeric analysis-potential scores or a data frame with column `analysis_potential`")
  ru_curve_value(u, object$theta)
}

#' @rdname fit_ru_curve
#' @export
format.ru_curve <- function(x, ...) {
  c("Security-utility curve: anonymity = [1 - U^theta]^(1/theta)",
    if (isFALSE(x$identified))
      sprintf("NOT IDENTIFIED: %s; theta below is not a finding and the curve is not drawn by default.",
              x$reason),
    if (isTRUE(x$identified) && isFALSE(x$fits))
      sprintf("DOES NOT FIT: %s; the curve does not summarise these points and is not drawn by default.",
              x$fit_reason),
    sprintf("theta = %s%s, RSS = %s, %d point%s%s",
            format_num(x$theta, 4),
            if (is.na(x$se)) "" else sprintf(" (SE %s)", format_num(x$se, 2)),
            format_num(x$rss, 3), x$n, if (x$n == 1L) "" else "s",
            if (x$n_clipped > 0) sprintf(" (%d with U > 1 clipped to 1)", x$n_clipped) else ""))
}

#' @rdname fit_ru_curve
#' @export
print.ru_curve <- function(x, ...) {
  cat(format(x), sep = "\n")
  invisible(x)
}
