# fit_cox(): the Cox proportional hazards model (methods vignette section 24) fitted by
# Newton-Raphson in C (src/cox.c), with the methods fit_glm() has. The model
# frame, the Surv() response and strata() are read here; the C core gets
# arrays (times, status, weights, two orderings and the stratum slices),
# built once and shared by every replicate of a profile.

#' Fit a Cox proportional hazards model
#'
#' The partial-likelihood fit of [survival::coxph()], with the
#' Newton-Raphson iteration in C: from \eqn{\beta = 0}, each iteration is one
#' pass over the records sorted by time within strata giving the log partial
#' likelihood, its score and information; a step that lowers the log partial
#' likelihood is halved back towards the last good \eqn{\beta}; the fit has
#' converged when the relative change of the log partial likelihood is at most
#' `eps` (`coxph.control()`'s rule and defaults: `eps = 1e-9`, `iter.max =
#' 20`). The covariance is the inverse of the information at the estimate
#' (model-based, not robust).
#'
#' **Monotone likelihood.** When a covariate orders the event times (all
#' events of one group before those of the other, as `time < median(time)`
#' does on `survival::lung`) the partial likelihood keeps rising as its
#' coefficient grows: there is no finite estimate. The log likelihood then
#' converges while the coefficient does not; as [survival::coxph()]
#' ("Loglik converged before variable ...; coefficient may be infinite"),
#' a coefficient is flagged when the next Newton step at the estimate is
#' larger than `eps` and than \eqn{\sqrt{eps}} times the coefficient (or
#' the score is not finite). The fit then warns (class
#' `epimask_warning_monotone`), marks the coefficients in `infinite`, and
#' reports `converged = FALSE`; [ru_profile()] leaves such replicates out
#' with the reason.
#'
#' Coefficients and variances equal `coxph()`'s to
#' about 1e-10 relative on the package's tests (`lung`, `colon`, `flchain`,
#' `heart`, `infert`).
#'
#' **Response.** `Surv(time, status)` (right censored) or `Surv(start,
#' stop, status)` (counting process, risk set \eqn{start < t \le stop}).
#' `Surv()` and `strata()` are taken from \pkg{survival} when the formula's
#' environment does not define them, so `library(survival)` is not needed.
#' Times that differ by rounding error are different times here (`coxph()`'s
#' `timefix` merges them first); round the times if that matters.
#'
#' **Ties.** `ties = "efron"` (default, as `coxph()`) or `"breslow"`. With
#' \eqn{d} events at time \eqn{t}, \eqn{D} their set, \eqn{R(t)} the risk
#' set and \eqn{r_i = w_i \exp(x_i'\beta)}, Efron's term is
#' \eqn{\sum_{k=0}^{d-1} \bar w \log(\sum_{R(t)} r_i - (k/d) \sum_D r_i)}
#' (\eqn{\bar w} the events' mean weight) and Breslow's
#' \eqn{\sum_D w_i \log \sum_{R(t)} r_i}.
#'
#' **Strata.** `strata(v)` terms in the formula give each stratum its own
#' baseline hazard (its own risk sets). **Conditional logistic regression**
#' for matched case-control data is the stratified Cox model with a constant
#' time and the case indicator as the event:
#' `fit_cox(Surv(rep(1, n), case) ~ x + strata(set), data)`.
#' [survival::clogit()]'s default (`method = "exact"`) is the exact
#' conditional likelihood (the sum over all ways of choosing the cases of a
#' set); `fit_cox()` gives the Efron or the Breslow approximation of it
#' (`clogit(method = "efron")` or `"breslow"`/`"approximate"`). For 1:m
#' matching (one case per matched set) every set has a single event, so the
#' exact, Efron and Breslow likelihoods are the same function and
#' `fit_cox()` equals `clogit()`'s default fit; with several cases in a set
#' they differ (Efron is the closer approximation).
#'
#' @param formula a formula with a `Surv()` response, covariates and optional
#'   `strata()` terms (and `offset()` terms).
#' @param data a data frame (tibble and data.table accepted).
#' @param weights optional case weights: a vector, a column name or an
#'   expression in `data`.
#' @param ties `"efron"` or `"breslow"`.
#' @param control list with `eps` (1e-9), `iter.max` (20) and `nthreads`.
#' @param na.action how to treat missing values (default [stats::na.omit()]).
#' @param ... unused.
#' @return An object of class `epimask_cox`: `coefficients`, `var` (their
#'   covariance), `se`, `loglik` (at \eqn{\beta = 0} and at the estimate),
#'   `iter`, `converged` (`FALSE` also when a coefficient may be infinite),
#'   `infinite` (named logical: the coefficients along which the likelihood
#'   is monotone, so that they may be infinite), `n`, `nevent`, `records`
#'   (the records given, used and left out, and why: `total`, `used`,
#'   `lost`, `stop_le_start`, `missing`), `means` (the covariate means the
#'   linear predictor is centred on), `linear.predictors`, `ties`, `call`,
#'   `formula`, `terms`, `xlevels`, `contrasts`, `strata` (the stratum of each
#'   record, or `NULL`), `na.action`. Methods: `print`, `summary`, `format`,
#'   `coef`, `vcov`, `confint` (Wald), `logLik` (the log partial likelihood,
#'   with `nobs` the number of events as for `coxph()`), `nobs`, `predict`,
#'   `as.data.frame`, [tidy()][epimask-tidiers] and [glance()][epimask-tidiers].
#' @references Cox DR (1972). Regression models and life-tables. \emph{Journal
#'   of the Royal Statistical Society B} 34, 187-220.
#'
#'   Efron B (1977). The efficiency of Cox's likelihood function for censored
#'   data. \emph{Journal of the American Statistical Association} 72,
#'   557-565.
#' @seealso [utility_glm()] and [ru_profile()] with `family = "cox"`.
#' @family model fitting
#' @export
#' @examples
#' fit <- fit_cox(Surv(time, status) ~ age + sex + ph.ecog, survival::lung)
#' fit
#' summary(fit)
#' confint(fit)
#' # conditional logistic regression: 1:m matched sets as strata
#' d <- datasets::infert
#' d$time <- 1
#' fit_cox(Surv(time, case) ~ spontaneous + induced + strata(stratum), d)
fit_cox <- function(formula, data, weights = NULL, ties = c("efron", "breslow"),
                    control = list(), na.action = stats::na.omit, ...) {
  cl <- match.call()
  formula <- check_formula(formula)
  data <- as.data.frame(check_data(data))
  ties <- check_choice(ties, c("efron", "breslow"))
  ctl <- cox_control(control)
  env <- parent.frame()
  wts <- eval_in_data(substitute(weights), data, env, "weights")
  check_aux_vector(wts, nrow(data), "weights")
  if (is.logical(wts)) wts <- as.double(wts)
  frame <- cox_frame(formula, data, wts, na.action)
  if (frame$records[["stop_le_start"]] > 0)
    epimask_warn(sprintf("%s: Surv() drops the (start, stop] intervals with stop <= start.",
                         format_records_lost(frame$records)), "epimask_warning_records")
  prep <- cox_arrays(frame)
  fit <- cox_call(prep, frame$x, ties, ctl)
  beta <- fit$coefficients[, 1L]
  p <- length(beta)
  xnames <- colnames(frame$x)
  var <- matrix(fit$var, p, p, dimnames = list(xnames, xnames))
  status <- fit$status[[1L]]
  if (status >= 2L)
    epimask_abort(if (status == 2L)
      "The Cox model's information matrix is singular: a covariate is constant or a combination of others (within strata)."
      else "The Cox fit overflowed: the covariates are on a scale where exp(x'beta) is not finite; rescale them.",
      "epimask_error_singular", arg = "formula")
  names(beta) <- xnames
  means <- colMeans(frame$x)
  lp <- drop(sweep(frame$x, 2L, means) %*% beta) + (frame$offset %||% 0)
  infinite <- cox_infinite(beta, var, fit$score[, 1L], ctl$eps)
  converged <- status == 0L && !any(infinite)
  signal_cox_convergence(status, infinite, lp, ctl$iter.max)
  structure(list(
    coefficients = beta, var = var, se = sqrt(diag(var)),
    loglik = fit$loglik[, 1L], iter = fit$iter[[1L]], converged = converged,
    infinite = infinite,
    n = nrow(frame$x), nevent = sum(frame$status), means = means,
    linear.predictors = lp, ties = ties, call = cl, formula = formula,
    terms = frame$terms, xlevels = frame$xlevels, contrasts = frame$contrasts,
    strata = frame$strata_factor, offset = frame$offset, weights = frame$weights,
    na.action = frame$na.action, records = frame$records, type = frame$type),
    class = "epimask_cox")
}

# The coefficients that may be infinite (a monotone likelihood), by
# coxph()'s rule: the next Newton step var %*% score, taken at the estimate,
# is still larger than eps and than sqrt(eps) (coxph.control()'s toler.inf)
# relative to the coefficient, or the score is not finite. At a finite
# maximum Newton's method converges quadratically and that step is far below
# both; along a direction in which the likelihood keeps rising it stays near
# a constant while the log likelihood has stopped changing.
cox_infinite <- function(beta, var, score, eps) {
  step <- abs(drop(var %*% score))
  out <- !is.finite(score) | !is.finite(step) | (step > eps & step > sqrt(eps) * abs(beta))
  stats::setNames(out & !is.na(beta), names(beta))
}

# The warnings of a finished fit: a monotone likelihood (as coxph():
# "Loglik converged before variable ...; coefficient may be infinite") or
# no convergence (then also "coefficients may be infinite" where the linear
# predictor went past 500, as coxph()).
signal_cox_convergence <- function(status, infinite, lp, iter_max) {
  named <- paste0("'", names(infinite)[infinite], "'", collapse = ", ")
  if (status == 0L && any(infinite)) {
    epimask_warn(sprintf(paste(
      "The Cox fit's log partial likelihood converged before the estimate of %s did: the",
      "likelihood is monotone in %s, so the coefficient may be infinite and its SE is",
      "meaningless (coxph(): \"coefficient may be infinite\"); `converged` is FALSE. A",
      "covariate that orders the event times (all events of one group before the other's)",
      "does this."), named, if (sum(infinite) == 1L) "it" else "them"),
      "epimask_warning_monotone")
  } else if (status != 0L) {
    epimask_warn(sprintf("The Cox fit did not converge in %d iterations%s.", iter_max,
                         if (any(infinite) || max(lp) > 500)
                           "; one or more coefficients may be infinite" else ""),
                 c(if (any(infinite) || max(lp) > 500) "epimask_warning_monotone",
                   "epimask_warning_convergence"))
  }
  invisible()
}

cox_control <- function(control) {
  if (!is.list(control) || (length(control) && is.null(names(control))))
    abort_type("control", "a named list such as list(eps = 1e-9, iter.max = 20)")
  unknown <- setdiff(names(control), c("eps", "iter.max", "nthreads"))
  if (length(unknown))
    abort_value("control", "a named list with elements among eps, iter.max, nthreads")
  list(eps = check_number(control$eps %||% 1e-9, "control$eps", lower = 0, upper = 1,
                          lower_open = TRUE),
       iter.max = check_number(control$iter.max %||% 20L, "control$iter.max", lower = 1,
                               upper = 1e6, integer = TRUE),
       nthreads = epimask_threads(control$nthreads))
}

# The formula evaluated with survival's Surv() and strata() at hand (unless
# the formula's environment has its own).
cox_formula_env <- function(formula) {
  fenv <- environment(formula) %||% globalenv()
  env <- new.env(parent = fenv)
  if (!exists("Surv", envir = fenv, mode = "function") ||
      !exists("strata", envir = fenv, mode = "function")) {
    if (!requireNamespace("survival", quietly = TRUE))
      abort_value("formula", "a formula whose Surv() can be evaluated (install the survival package)")
    if (!exists("Surv", envir = fenv, mode = "function")) env$Surv <- survival::Surv
    if (!exists("strata", envir = fenv, mode = "function")) env$strata <- survival::strata
  }
  environment(formula) <- env
  formula
}

# Model frame, Surv response (checked), strata and design (without an
# intercept; factors coded as with one, as coxph does).
cox_frame <- function(formula, data, weights = NULL, na.action = stats::na.omit) {
  if (length(formula) != 3L)
    abort_value("formula", "a formula with a Surv() response, such as Surv(time, status) ~ x")
  formula <- cox_formula_env(formula)
  tt <- stats::terms(formula, specials = "strata", data = data)
  # Surv() turns an interval with stop <= start into NA with an unclassed
  # warning; those records are counted (fit$records) and the fit says so.
  # The count is taken from the frame as na.action receives it (the response
  # NA where its times were given), so Surv() is not evaluated twice.
  times <- intersect(all.vars(formula[[2L]]), names(data))
  given <- if (length(times)) stats::complete.cases(data[times]) else rep(TRUE, nrow(data))
  interval_bad <- 0L
  counting_na <- function(frame) {
    y <- stats::model.response(frame)
    if (inherits(y, "Surv") && identical(attr(y, "type"), "counting"))
      interval_bad <<- sum(!stats::complete.cases(unclass(y)) & given)
    # (a name is looked up here, inside model.frame()'s classed errors)
    act <- if (is.character(na.action)) get(na.action, mode = "function") else na.action
    act(frame)
  }
  mf <- with_classed_errors(withCallingHandlers(
    do.call(stats::model.frame, list(tt, data = data, weights = weights,
                                     na.action = counting_na, drop.unused.levels = TRUE)),
    warning = function(w) if (grepl("Stop time must be > start time", conditionMessage(w)))
      invokeRestart("muffleWarning")),
    function(e) model_frame_error(e, formula, data))
  records <- fit_records(nrow(data), nrow(mf), interval_bad)
  if (nrow(mf) == 0L) {
    if (records[["stop_le_start"]] > 0)
      abort_value("data", sprintf("records with start < stop: all %s have stop <= start",
                                  format_count(records[["stop_le_start"]])))
    abort_empty("data")
  }
  y <- stats::model.response(mf)
  surv <- cox_response(y)
  mt <- attr(mf, "terms")
  sp <- attr(mt, "specials")$strata
  strata_factor <- NULL
  if (length(sp)) {
    fac <- attr(mt, "factors")
    sterms <- which(colSums(fac[sp, , drop = FALSE]) > 0)
    if (any(colSums(fac[-sp, sterms, drop = FALSE]) > 0))
      abort_value("formula", "a formula whose strata() terms are not in interactions")
    strata_factor <- droplevels(interaction(mf[sp], drop = TRUE, lex.order = TRUE))
    mt_x <- mt[-sterms]
  } else {
    mt_x <- mt
  }
  attr(mt_x, "intercept") <- 1L
  x <- stats::model.matrix(mt_x, mf)
  contrasts <- attr(x, "contrasts")
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  if (ncol(x) == 0L) abort_value("formula", "a formula with at least one covariate")
  if (any(!is.finite(x))) abort_value("data", "finite covariate values (no Inf)")
  w <- stats::model.weights(mf)
  if (!is.null(w) && any(w < 0)) abort_value("weights", "non-negative")
  if (!is.null(w) && all(w == 0)) abort_empty("weights")
  off <- stats::model.offset(mf)
  attr(x, "assign") <- NULL
  list(x = x, start = surv$start, stop = surv$stop, status = surv$status, type = surv$type,
       strata = if (is.null(strata_factor)) rep.int(1L, nrow(x)) else as.integer(strata_factor),
       strata_factor = strata_factor, weights = w, offset = off, terms = mt_x,
       xlevels = stats::.getXlevels(mt_x, mf), contrasts = contrasts,
       na.action = attr(mf, "na.action"), records = records)
}


# The Surv object, read without survival's accessors: right-censored
# (time, status) or counting-process (start, stop, status) columns.
cox_response <- function(y) {
  if (!inherits(y, "Surv"))
    abort_type("formula", "a formula whose response is a Surv() object, such as Surv(time, status) ~ x")
  type <- attr(y, "type")
  if (!type %in% c("right", "counting"))
    abort_value("formula", sprintf("a Surv() response that is right censored or (start, stop], not \"%s\"", type))
  y <- unclass(y)
  if (type == "right") {
    start <- NULL
    stop <- as.double(y[, 1L])
    status <- y[, 2L]
  } else {
    start <- as.double(y[, 1L])
    stop <- as.double(y[, 2L])
    status <- y[, 3L]
  }
  if (any(!is.finite(stop)) || (!is.null(start) && any(!is.finite(start))))
    abort_value("formula", "a Surv() response with finite times")
  if (any(stop < 0) || (!is.null(start) && any(start < 0)))
    abort_value("formula", "a Surv() response with non-negative times")
  if (!all(status == 0 | status == 1))
    abort_value("formula", "a Surv() response with status 0 (censored) or 1 (event)")
  if (!any(status == 1))
    abort_value("formula", "a Surv() response with at least one event (all records are censored)")
  list(start = start, stop = stop, status = as.integer(status), type = type)
}

# The arrays the C core needs, built once for the times, status, weights and
# strata (shared by every replicate design). The records are put in the
# order of the pass (by stratum, then decreasing stop time; `perm`), so the
# pass reads them sequentially (at n = 1e6 the scattered reads cost more than
# the arithmetic); `ord` is then the identity, `ord2` the positions by
# stratum and decreasing start time, `bound` the stratum slices.
cox_arrays <- function(frame) {
  n <- length(frame$stop)
  s <- frame$strata
  ns <- max(s)
  perm <- order(s, -frame$stop)
  start <- if (!is.null(frame$start)) frame$start[perm]
  list(n = n, perm = perm, stop = frame$stop[perm], start = start,
       status = frame$status[perm],
       weights = as.double(if (is.null(frame$weights)) rep.int(1, n) else frame$weights[perm]),
       offset = if (!is.null(frame$offset)) as.double(frame$offset[perm]),
       ord = seq.int(0L, n - 1L),
       ord2 = if (!is.null(start)) order(s[perm], -start) - 1L,
       bound = c(0L, cumsum(tabulate(s, ns))))
}

# One C call: x an n x p design or an n x p x nrep array of designs.
cox_call <- function(prep, x, ties, ctl) {
  d <- dim(x)
  p <- d[[2L]]
  nrep <- if (length(d) == 3L) d[[3L]] else 1L
  x <- if (length(d) == 3L) x[prep$perm, , , drop = FALSE] else x[prep$perm, , drop = FALSE]
  storage.mode(x) <- "double"
  call_c(C_cox_fit, list(
    x = x, p = as.integer(p), nrep = as.integer(nrep), stop = prep$stop, start = prep$start,
    status = prep$status, weights = prep$weights, offset = prep$offset, ord = prep$ord,
    ord2 = prep$ord2, bound = as.integer(prep$bound), efron = as.integer(ties == "efron"),
    maxit = as.integer(ctl$iter.max), eps = ctl$eps, threads = as.integer(ctl$nthreads)),
    arg = "control")
}

# ---- methods ---------------------------------------------------------------------

#' @export
coef.epimask_cox <- function(object, ...) object$coefficients

#' @export
vcov.epimask_cox <- function(object, ...) object$var

#' @export
nobs.epimask_cox <- function(object, ...) object$nevent

#' @export
logLik.epimask_cox <- function(object, ...) {
  structure(object$loglik[[2L]], nobs = object$nevent, df = length(object$coefficients),
            class = "logLik")
}

#' @export
confint.epimask_cox <- function(object, parm, level = 0.95, ...) {
  wald_confint(object$coefficients, object$se, parm, level)
}

cox_coef_table <- function(object) {
  est <- object$coefficients
  se <- object$se
  z <- est / se
  tab <- cbind(est, exp(est), se, z, 2 * stats::pnorm(-abs(z)))
  dimnames(tab) <- list(names(est), c("coef", "exp(coef)", "se(coef)", "z", "Pr(>|z|)"))
  tab
}

#' @export
summary.epimask_cox <- function(object, ...) {
  structure(list(call = object$call, coefficients = cox_coef_table(object),
                 conf.int = exp(confint(object)), loglik = object$loglik,
                 n = object$n, nevent = object$nevent, ties = object$ties,
                 iter = object$iter, converged = object$converged,
                 infinite = object$infinite, records = object$records,
                 strata = if (!is.null(object$strata)) nlevels(object$strata),
                 na.action = object$na.action),
            class = "summary.epimask_cox")
}

#' @export
format.summary.epimask_cox <- function(x, digits = max(3L, getOption("digits") - 3L),
                                       signif.stars = getOption("show.signif.stars"), ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    cat("\nCall:\n", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
    cat(sprintf("  n = %d, number of events = %d%s\n", x$n, x$nevent,
                if (!is.null(x$strata)) sprintf(", strata = %d", x$strata) else ""))
    if (nzchar(mess <- records_note(x))) cat("   (", mess, ")\n", sep = "")
    cat("\n")
    stats::printCoefmat(x$coefficients, digits = digits, signif.stars = signif.stars,
                        P.values = TRUE, has.Pvalue = TRUE, ...)
    cat("\n")
    ci <- cbind(x$coefficients[, 2L, drop = FALSE], x$conf.int)
    colnames(ci) <- c("exp(coef)", "lower .95", "upper .95")
    print(signif(ci, digits))
    lr <- 2 * (x$loglik[[2L]] - x$loglik[[1L]])
    df <- nrow(x$coefficients)
    cat(sprintf("\nLog partial likelihood: %s (null %s); likelihood ratio test = %s on %d df, p = %s\n",
                format(signif(x$loglik[[2L]], digits + 2L)), format(signif(x$loglik[[1L]], digits + 2L)),
                format(signif(lr, digits)), df, format.pval(stats::pchisq(lr, df, lower.tail = FALSE),
                                                            digits = digits)))
    cat(sprintf("Ties: %s; Newton-Raphson iterations: %d%s\n", x$ties, x$iter,
                if (x$converged) "" else if (any(x$infinite)) "" else " (not converged)"))
    if (nzchar(note <- infinite_note(x$infinite))) cat(note, "\n", sep = "")
    cat("\n")
  })
}

#' @export
print.summary.epimask_cox <- function(x, ...) print_formatted(x, ...)

#' @export
print.epimask_cox <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  digits <- check_digits(digits)
  cat("\nCall:  ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(format(x, digits = digits), sep = "\n")
  lr <- 2 * (x$loglik[[2L]] - x$loglik[[1L]])
  cat(sprintf("\nLikelihood ratio test = %s on %d df; n = %d, number of events = %d (%s ties)\n",
              format(signif(lr, digits)), length(x$coefficients), x$n, x$nevent, x$ties))
  if (nzchar(mess <- records_note(x))) cat("   (", mess, ")\n", sep = "")
  if (nzchar(note <- infinite_note(x$infinite))) cat(note, "\n", sep = "")
  invisible(x)
}

# The line a print adds under a fit whose likelihood is monotone.
infinite_note <- function(infinite) {
  if (!any(infinite)) return("")
  sprintf("Monotone likelihood: the estimate of %s may be infinite (its SE is meaningless).",
          paste0("'", names(infinite)[infinite], "'", collapse = ", "))
}

#' @export
as.data.frame.epimask_cox <- function(x, row.names = NULL, optional = FALSE, ...) {
  tab <- cox_coef_table(x)
  out <- data.frame(term = rownames(tab), estimate = tab[, 1L], hazard_ratio = tab[, 2L],
                    std.error = tab[, 3L], statistic = tab[, 4L], p.value = tab[, 5L],
                    row.names = NULL, stringsAsFactors = FALSE)
  apply_row_names(out, row.names, optional)
}

#' @export
format.epimask_cox <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  digits <- check_digits(digits)
  tab <- as.data.frame(x)
  cols <- c(list(tab$term), lapply(tab[-1L], function(v) format(signif(v, digits))))
  names(cols) <- c("term", "coef", "exp(coef)", "se(coef)", "z", "p")
  cols <- Map(function(name, v) format(c(name, v), justify = if (name == "term") "left" else "right"),
              names(cols), cols)
  do.call(paste, c(unname(cols), sep = "  "))
}

#' Predictions from a Cox model fitted by fit_cox()
#'
#' The linear predictor centred on the covariate means of the fit,
#' \eqn{(x - \bar x)'\beta} (plus any offset), or the relative risk
#' \eqn{\exp} of it, as [survival::predict.coxph()] with `reference =
#' "sample"`.
#'
#' @param object an `epimask_cox` fit.
#' @param newdata optional data frame with the covariates; the fitted data if
#'   omitted.
#' @param type `"lp"` or `"risk"`.
#' @param ... unused.
#' @return A numeric vector.
#' @export
#' @examples
#' fit <- fit_cox(Surv(time, status) ~ age + sex, survival::lung)
#' predict(fit, data.frame(age = c(50, 70), sex = 1), type = "risk")
predict.epimask_cox <- function(object, newdata = NULL, type = c("lp", "risk"), ...) {
  type <- check_choice(type, c("lp", "risk"))
  if (is.null(newdata)) {
    lp <- object$linear.predictors
  } else {
    design <- newdata_design(object, newdata)
    x <- design$x[, names(object$coefficients), drop = FALSE]
    lp <- drop(sweep(x, 2L, object$means) %*% object$coefficients)
    off <- stats::model.offset(design$mf)
    if (!is.null(off)) lp <- lp + off
  }
  if (type == "risk") exp(lp) else lp
}

#' @rdname epimask-tidiers
#' @param exponentiate For Cox fits: report hazard ratios (and their
#'   confidence limits) instead of log hazard ratios.
#' @export
tidy.epimask_cox <- function(x, conf.int = FALSE, conf.level = 0.95, exponentiate = FALSE,
                             ...) {
  conf.int <- check_flag(conf.int, "conf.int")
  exponentiate <- check_flag(exponentiate, "exponentiate")
  est <- x$coefficients
  conf <- if (conf.int) confint(x, level = conf.level)
  out <- tidy_coef_table(est, x$se, est / x$se, 2 * stats::pnorm(-abs(est / x$se)), conf)
  if (exponentiate) {
    out$estimate <- exp(out$estimate)
    if (conf.int) {
      out$conf.low <- exp(out$conf.low)
      out$conf.high <- exp(out$conf.high)
    }
  }
  out
}

#' @rdname epimask-tidiers
#' @export
glance.epimask_cox <- function(x, ...) {
  lr <- 2 * (x$loglik[[2L]] - x$loglik[[1L]])
  p <- length(x$coefficients)
  data.frame(n = x$n, nevent = x$nevent, statistic.log = lr,
             p.value.log = stats::pchisq(lr, p, lower.tail = FALSE),
             logLik = x$loglik[[2L]], AIC = -2 * x$loglik[[2L]] + 2 * p,
             BIC = -2 * x$loglik[[2L]] + log(x$nevent) * p, iter = x$iter,
             converged = x$converged, ties = x$ties, stringsAsFactors = FALSE)
}

# ---- many designs at once (the replicates of a profile) ----------------------------

# The coefficient `term` and its SE for each of the masked data sets; NULL
# when they do not share the times, status, weights and strata of the first
# (then each is fitted alone). One C call for all replicates.
cox_replicate_estimates <- function(model, masked, term) {
  frames <- lapply(masked, function(d) cox_frame(model$formula, d))
  first <- frames[[1L]]
  shared <- vapply(frames, function(f) {
    identical(f$stop, first$stop) && identical(f$start, first$start) &&
      identical(f$status, first$status) && identical(f$strata, first$strata) &&
      identical(f$weights, first$weights) && identical(f$offset, first$offset) &&
      identical(colnames(f$x), colnames(first$x))
  }, logical(1))
  if (!all(shared)) return(NULL)
  X <- array(unlist(lapply(frames, `[[`, "x"), use.names = FALSE),
             c(dim(first$x), length(frames)))
  fit <- cox_call(cox_arrays(first), X, model$ties %||% "efron", cox_control(list()))
  j <- match(term, colnames(first$x))
  p <- ncol(first$x)
  var <- array(fit$var, c(p, p, length(frames)))
  # a monotone likelihood has no estimate: the replicate is dropped with the
  # reason, as fit_cox() would report it
  infinite <- vapply(seq_along(frames), function(r)
    any(cox_infinite(fit$coefficients[, r], var[, , r], fit$score[, r], 1e-9)), logical(1))
  ok <- fit$status == 0L & !infinite
  rec <- first$records
  list(estimate = ifelse(ok, fit$coefficients[j, ], NA_real_),
       se = ifelse(ok, sqrt(var[j, j, ]), NA_real_),
       records = records_table(rep(rec[["used"]], length(frames)), rec[["lost"]],
                               rec[["stop_le_start"]]),
       error = if (any(infinite)) monotone_reason(colnames(first$x)[
         cox_infinite(fit$coefficients[, which(infinite)[1L]], var[, , which(infinite)[1L]],
                      fit$score[, which(infinite)[1L]], 1e-9)]))
}

# Why a profile fit has no estimate when the likelihood is monotone.
monotone_reason <- function(terms) {
  sprintf("the likelihood is monotone in %s (the coefficient may be infinite)",
          paste0("'", terms, "'", collapse = ", "))
}

# Variables inside strata() terms (matched-set ids, not covariates to mask).
strata_variables <- function(formula) {
  found <- character()
  walk <- function(e) {
    if (is.call(e)) {
      if (identical(e[[1L]], as.name("strata"))) found <<- c(found, all.vars(e))
      else for (a in as.list(e)[-1L]) walk(a)
    }
  }
  walk(formula)
  unique(found)
}
