# fit_glm(): the formula front end of irls_fit(), with the methods users
# expect from a glm object.

#' @importFrom stats coef vcov confint deviance fitted logLik nobs predict residuals
NULL

#' Fit a generalized linear model (formula interface)
#'
#' Like [stats::glm()], but the iteration runs in C through [irls_fit()]. The
#' model frame is built by [stats::model.frame()]: `weights` and `offset` may
#' be vectors, column names, or expressions evaluated in `data`; `offset()`
#' terms in the formula are added to `offset`. Binomial responses may be 0/1,
#' a factor, proportions with the trials as `weights`, or
#' `cbind(successes, failures)`. Rows with missing values are dropped
#' (`na.action`, as `glm()`).
#'
#' @param formula a model formula.
#' @param data a data frame (tibble and data.table accepted).
#' @param family a family object, family function or name; see [irls_fit()]
#'   for the families and links available.
#' @param weights optional prior weights: a vector, a column name or an
#'   expression in `data`.
#' @param offset optional offset: a vector, a column name or an expression in
#'   `data`.
#' @param control list passed to [irls_fit()] (`epsilon`, `maxit`, `trace`,
#'   `nthreads`).
#' @param na.action how to treat missing values (default [stats::na.omit()]).
#' @param start optional starting coefficients.
#' @param ... unused.
#' @return An object of class `epimask_glm`: the components of [irls_fit()]
#'   plus `call`, `formula`, `terms`, `model`, `xlevels`, `contrasts`,
#'   `offset`, `na.action` and `records` (the records given, used and left
#'   out for missing values: `total`, `used`, `lost`, `missing`). Methods: `print`, `summary`, `coef`, `vcov`,
#'   `confint` (Wald intervals), `logLik`, `AIC` (via `logLik`), `deviance`,
#'   `nobs`, `fitted`, `residuals`, `predict`, `as.data.frame` and `format`
#'   (the coefficient table).
#' @seealso [irls_fit()]
#' @family model fitting
#' @export
#' @examples
#' fit <- fit_glm(cbind(ncases, ncontrols) ~ agegp + alcgp, datasets::esoph,
#'                family = binomial())
#' summary(fit)
#' confint(fit)
#' predict(fit, newdata = datasets::esoph[1:3, ], type = "response")
fit_glm <- function(formula, data, family = gaussian(), weights = NULL, offset = NULL,
                    control = list(), na.action = stats::na.omit, start = NULL, ...) {
  cl <- match.call()
  family <- check_family(family)
  family_codes(family)
  formula <- check_formula(formula)
  data <- check_data(data)
  data <- as.data.frame(data)
  env <- parent.frame()
  weights_expr <- substitute(weights)
  offset_expr <- substitute(offset)
  wts <- eval_in_data(weights_expr, data, env, "weights")
  off <- eval_in_data(offset_expr, data, env, "offset")
  check_aux_vector(wts, nrow(data), "weights")
  check_aux_vector(off, nrow(data), "offset")
  # logical vectors pass the checks; model.offset() would refuse them
  if (is.logical(wts)) wts <- as.double(wts)
  if (is.logical(off)) off <- as.double(off)

  mf <- tryCatch(
    # do.call inlines the evaluated weights and offset, which model.frame
    # would otherwise look up in the formula's environment
    do.call(stats::model.frame,
            list(formula, data = data, weights = wts, offset = off,
                 na.action = na.action, drop.unused.levels = TRUE)),
    error = function(e) model_frame_error(e, formula, data))
  mt <- attr(mf, "terms")
  if (nrow(mf) == 0L) abort_empty("data")
  y <- stats::model.response(mf, "any")
  if (is.null(y)) abort_value("formula", "a formula with a response, such as y ~ x")
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  x <- design_matrix(mt, mf)
  if (ncol(x) == 0L) abort_value("formula", "a formula with at least one term or an intercept")
  fit <- irls_fit(x, y, family = family, weights = stats::model.weights(mf),
                  offset = stats::model.offset(mf), control = control, start = start,
                  intercept = attr(mt, "intercept") > 0L)
  fit$call <- cl
  fit$formula <- formula
  fit$terms <- mt
  fit$model <- mf
  fit$xlevels <- stats::.getXlevels(mt, mf)
  fit$contrasts <- attr(x, "contrasts")
  fit$offset <- stats::model.offset(mf)
  fit$offset_expr <- if (is.null(offset_expr)) NULL else offset_expr
  fit$env <- env
  fit$na.action <- attr(mf, "na.action")
  fit$records <- fit_records(nrow(data), nrow(mf))
  class(fit) <- c("epimask_glm", "epimask_irls")
  fit
}

# A weights/offset argument: NULL, a vector, a column name, or an expression
# evaluated in `data` (as glm does).
# The `parm` of the confint() methods: coefficient names, or their positions
# (whole numbers from 1 to p); anything else is refused before it is used.
check_parm <- function(parm, pnames) {
  if ((!is.numeric(parm) && !is.character(parm)) || is.object(parm) || !length(parm) ||
      anyNA(parm))
    abort_type("parm", "coefficient names or positions")
  if (is.numeric(parm)) {
    if (any(parm < 1 | parm > length(pnames) | parm != round(parm)))
      abort_value("parm", sprintf("coefficient positions from 1 to %d", length(pnames)))
    return(pnames[parm])
  }
  check_utf8(parm, "parm")
  bad <- setdiff(parm, pnames)
  if (length(bad)) abort_name("parm", shorten(bad), "the coefficients")
  parm
}

# The design matrix of a fit: a column model.matrix() cannot code (complex
# numbers, a character or factor column with a single value) fails classed,
# naming `data`.
design_matrix <- function(terms, mf) {
  with_classed_errors(stats::model.matrix(terms, mf), function(e)
    abort_value("data", sprintf("columns the formula's terms can be coded from (%s)",
                                conditionMessage(e))))
}

# The model frame of `newdata` for predict(): each variable must have the
# type it was fitted with (a character column where a number was fitted would
# otherwise become a factor and give a model matrix of the right width but the
# wrong meaning), the levels the fit saw, and no base R warning or error
# escapes unclassed. `terms` carries the fit's "dataClasses".
newdata_frame <- function(terms, newdata, xlevels) {
  check_utf8_data(newdata, "newdata")
  problem <- function(e) abort_value("newdata", sprintf("usable with the model (%s)", conditionMessage(e)))
  mf <- with_classed_errors(withCallingHandlers(
    stats::model.frame(terms, newdata, na.action = stats::na.pass, xlev = xlevels),
    warning = function(w) problem(w)), problem)
  classes <- attr(terms, "dataClasses")
  if (!is.null(classes))
    tryCatch(stats::.checkMFClasses(classes, mf), error = function(e)
      abort_type("newdata", sprintf("columns of the types the model was fitted on (%s)",
                                    conditionMessage(e))))
  mf
}

newdata_matrix <- function(terms, mf, contrasts) {
  problem <- function(e) abort_value("newdata", sprintf(
    "columns of the types the model was fitted on (%s)", conditionMessage(e)))
  with_classed_errors(withCallingHandlers(stats::model.matrix(terms, mf, contrasts.arg = contrasts),
                                         warning = function(w) problem(w)), problem)
}

eval_in_data <- function(expr, data, env, arg) {
  if (is.null(expr)) return(NULL)
  val <- tryCatch(eval(expr, data, env), error = function(e)
    abort_name(arg, deparse1(expr), "`data` or the calling environment"))
  if (is.character(val) && length(val) == 1L && nrow(data) != 1L) {
    if (!val %in% names(data)) abort_name(arg, val, "`data`")
    val <- data[[val]]
  }
  val
}

check_aux_vector <- function(v, n, arg) {
  if (is.null(v)) return(invisible())
  if (!(is.numeric(v) || is.logical(v)) || is.object(v)) abort_type(arg, "a numeric vector or a column name")
  if (length(v) != n)
    abort_length(arg, sprintf("have one value per row of `data` (%d), not %d", n, length(v)))
  if (arg == "weights" && any(v < 0, na.rm = TRUE)) abort_value("weights", "non-negative")
  if (any(is.infinite(v))) abort_value(arg, "finite (no Inf)")
}

model_frame_error <- function(e, formula, data) {
  vars <- all.vars(formula)
  missing <- setdiff(vars, c(names(data), ls(environment(formula))))
  if (length(missing)) abort_name("formula", missing, "`data`")
  abort_value("formula", sprintf("usable with `data` (%s)", conditionMessage(e)))
}

#' @export
coef.epimask_glm <- function(object, ...) object$coefficients

#' @export
vcov.epimask_glm <- function(object, complete = TRUE, ...) {
  complete <- check_flag(complete)
  v <- object$vcov
  if (!complete) v <- v[!object$aliased, !object$aliased, drop = FALSE]
  v
}

#' @export
deviance.epimask_glm <- function(object, ...) object$deviance

#' @export
nobs.epimask_glm <- function(object, ...) sum(object$prior.weights != 0)

#' @export
fitted.epimask_glm <- function(object, ...) object$fitted.values

#' @export
residuals.epimask_glm <- function(object, type = c("deviance", "pearson", "working", "response"), ...) {
  type <- check_choice(type, c("deviance", "pearson", "working", "response"))
  y <- object$y
  mu <- object$fitted.values
  wts <- object$prior.weights
  switch(type,
    deviance = {
      d <- sqrt(pmax(object$family$dev.resids(y, mu, wts), 0))
      ifelse(y > mu, d, -d)
    },
    pearson = (y - mu) * sqrt(wts) / sqrt(object$family$variance(mu)),
    working = object$residuals,
    response = y - mu)
}

#' @export
logLik.epimask_glm <- function(object, ...) {
  fam <- object$family$family
  p <- object$rank
  if (fam %in% c("gaussian", "Gamma", "inverse.gaussian")) p <- p + 1L
  val <- p - object$aic / 2
  structure(val, nobs = stats::nobs(object), df = p, class = "logLik")
}

#' @export
confint.epimask_glm <- function(object, parm, level = 0.95, ...) {
  wald_confint(object$coefficients, object$se, parm, level)
}

# Wald intervals estimate +- z SE for the coefficients named or numbered by
# `parm` (all when missing); shared by the fits' confint() methods.
wald_confint <- function(cf, se, parm, level) {
  level <- check_number(level, "level", lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  pnames <- names(cf)
  parm <- if (missing(parm)) pnames else check_parm(parm, pnames)
  a <- (1 - level) / 2
  q <- stats::qnorm(c(a, 1 - a))
  ci <- cf[parm] + se[parm] %o% q
  dimnames(ci) <- list(parm, sprintf("%s %%", format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE, digits = 3)))
  ci
}

# The coefficient table of summary.glm: estimate, SE, z or t, p-value.
coef_table <- function(object) {
  est_disp <- !fixed_dispersion(object$family)
  keep <- !object$aliased
  est <- object$coefficients[keep]
  se <- object$se[keep]
  stat <- est / se
  df_r <- object$df.residual
  if (est_disp) {
    pval <- 2 * stats::pt(-abs(stat), df_r)
    tab <- cbind(est, se, stat, pval)
    dimnames(tab) <- list(names(est), c("Estimate", "Std. Error", "t value", "Pr(>|t|)"))
  } else {
    pval <- 2 * stats::pnorm(-abs(stat))
    tab <- cbind(est, se, stat, pval)
    dimnames(tab) <- list(names(est), c("Estimate", "Std. Error", "z value", "Pr(>|z|)"))
  }
  tab
}

#' @export
summary.epimask_glm <- function(object, ...) {
  structure(list(
    call = object$call, family = object$family, deviance.resid = stats::residuals(object, "deviance"),
    coefficients = coef_table(object), aliased = object$aliased, dispersion = object$dispersion,
    est_disp = !fixed_dispersion(object$family), df.residual = object$df.residual,
    df.null = object$df.null, deviance = object$deviance, null.deviance = object$null.deviance,
    aic = object$aic, iter = object$iter, cov.unscaled = object$cov.unscaled,
    cov.scaled = object$vcov, converged = object$converged, na.action = object$na.action,
    records = object$records),
    class = "summary.epimask_glm")
}

#' @export
format.summary.epimask_glm <- function(x, digits = max(3L, getOption("digits") - 3L),
                                       signif.stars = getOption("show.signif.stars"), ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    cat("\nCall:\n", paste(deparse(x$call), sep = "\n", collapse = "\n"), "\n\n", sep = "")
    cat("Deviance Residuals: \n")
    d <- x$deviance.resid
    if (x$df.residual > 5) {
      d <- stats::setNames(stats::quantile(d, na.rm = TRUE), c("Min", "1Q", "Median", "3Q", "Max"))
    }
    xx <- zapsmall(d, digits + 1L)
    print.default(xx, digits = digits, na.print = "", print.gap = 2L)
    n_aliased <- sum(x$aliased)
    if (n_aliased) {
      cat("\nCoefficients: (", n_aliased, " not defined because of singularities)\n", sep = "")
      cf <- matrix(NA_real_, length(x$aliased), ncol(x$coefficients),
                   dimnames = list(names(x$aliased), colnames(x$coefficients)))
      cf[!x$aliased, ] <- x$coefficients
    } else {
      cat("\nCoefficients:\n")
      cf <- x$coefficients
    }
    stats::printCoefmat(cf, digits = digits, signif.stars = signif.stars, na.print = "NA", ...)
    cat("\n(Dispersion parameter for ", x$family$family, " family taken to be ",
        format(x$dispersion), ")\n\n",
        apply(cbind(paste(format(c("Null", "Residual"), justify = "right"), "deviance:"),
                    format(unlist(x[c("null.deviance", "deviance")]), digits = max(5L, digits + 1L)),
                    " on", format(unlist(x[c("df.null", "df.residual")])), " degrees of freedom\n"),
              1L, paste, collapse = " "), sep = "")
    if (nzchar(mess <- records_note(x))) cat("  (", mess, ")\n", sep = "")
    cat("AIC: ", format(x$aic, digits = max(4L, digits + 1L)), "\n\n",
        "Number of Fisher Scoring iterations: ", x$iter, "\n", sep = "")
    if (!x$converged) cat("(IRLS did not converge)\n")
    cat("\n")
  })
}

#' @export
print.summary.epimask_glm <- function(x, ...) print_formatted(x, ...)

#' @export
print.epimask_glm <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  digits <- check_digits(digits)
  cat("\nCall:  ", paste(deparse(x$call), sep = "\n", collapse = "\n"), "\n\n", sep = "")
  cat("Coefficients:\n")
  print.default(format(x$coefficients, digits = digits), print.gap = 2, quote = FALSE)
  cat("\nDegrees of Freedom:", x$df.null, "Total (i.e. Null); ",
      x$df.residual, "Residual\n")
  if (nzchar(mess <- records_note(x))) cat("  (", mess, ")\n", sep = "")
  cat("Null Deviance:\t   ", format(signif(x$null.deviance, digits)),
      "\nResidual Deviance:", format(signif(x$deviance, digits)), "\tAIC:",
      format(signif(x$aic, digits)))
  cat("\n")
  invisible(x)
}

#' @export
as.data.frame.epimask_glm <- function(x, row.names = NULL, optional = FALSE, ...) {
  tab <- coef_table(x)
  out <- data.frame(term = rownames(tab), estimate = tab[, 1L], std.error = tab[, 2L],
                    statistic = tab[, 3L], p.value = tab[, 4L], row.names = NULL,
                    stringsAsFactors = FALSE)
  apply_row_names(out, row.names, optional)
}

#' @export
format.epimask_glm <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  digits <- check_digits(digits)
  # the coefficient table as lines of text, one per term after a header
  tab <- as.data.frame(x)
  cols <- c(list(tab$term), lapply(tab[-1L], function(v) format(signif(v, digits))))
  names(cols) <- names(tab)
  cols <- Map(function(name, v) format(c(name, v), justify = if (name == "term") "left" else "right"),
              names(cols), cols)
  do.call(paste, c(unname(cols), sep = "  "))
}

#' Predictions from a GLM fitted by fit_glm()
#'
#' @param object an `epimask_glm` fit.
#' @param newdata optional data frame; the fitted data if omitted.
#' @param type `"link"` (linear predictor) or `"response"` (mean).
#' @param se.fit also return standard errors (delta method on the response
#'   scale)?
#' @param ... unused.
#' @return A vector of predictions, or with `se.fit = TRUE` a list with `fit`,
#'   `se.fit` and `residual.scale`, as [stats::predict.glm()].
#' @export
#' @examples
#' fit <- fit_glm(am ~ wt, datasets::mtcars, family = binomial())
#' predict(fit, data.frame(wt = c(2, 3)), type = "response", se.fit = TRUE)
predict.epimask_glm <- function(object, newdata = NULL, type = c("link", "response"),
                                se.fit = FALSE, ...) {
  type <- check_choice(type, c("link", "response"))
  se.fit <- check_flag(se.fit, "se.fit")
  keep <- !object$aliased
  if (is.null(newdata)) {
    x <- stats::model.matrix(object$terms, object$model)
    eta <- object$linear.predictors
  } else {
    design <- newdata_design(object, newdata)
    newdata <- design$data
    mf <- design$mf
    x <- design$x
    off <- stats::model.offset(mf) %||% rep(0, nrow(x))
    if (!is.null(object$offset_expr)) {
      arg_off <- eval_in_data(object$offset_expr, newdata, object$env, "offset")
      if (length(arg_off) != nrow(x))
        abort_length("offset", "be computable from `newdata` (one value per row)")
      off <- off + arg_off
    }
    eta <- drop(x[, keep, drop = FALSE] %*% object$coefficients[keep]) + off
  }
  fit <- if (type == "link") eta else object$family$linkinv(eta)
  if (!se.fit) return(fit)
  xk <- x[, keep, drop = FALSE]
  v <- object$vcov[keep, keep, drop = FALSE]
  se <- sqrt(rowSums((xk %*% v) * xk))
  if (type == "response") se <- se * abs(object$family$mu.eta(eta))
  names(se) <- names(fit)
  list(fit = fit, se.fit = se, residual.scale = sqrt(object$dispersion))
}

# The model frame and design of a fit's terms on new data (factor levels and
# contrasts of the fit), with classed errors naming `newdata`.
newdata_design <- function(object, newdata) {
  newdata <- as.data.frame(check_data(newdata))
  tt <- stats::delete.response(object$terms)
  mf <- newdata_frame(tt, newdata, object$xlevels)
  x <- newdata_matrix(tt, mf, object$contrasts)
  list(data = newdata, mf = mf, x = x)
}
