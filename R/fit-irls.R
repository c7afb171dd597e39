# The GLM fitting core: irls_fit() prepares the data as glm.fit does
# (family$initialize, starting values) and hands the iteration to C
# (src/irls.c); the summaries of the fit are assembled here.

# The integer codes of src/glm_codes.h, the one C header that defines them;
# .onLoad (R/zzz.R) stops the package from loading if this table and the C
# one (C_glm_codes) ever differ.
glm_codes <- list(
  family = c(gaussian = 1L, binomial = 2L, poisson = 3L, Gamma = 4L),
  link = c(identity = 1L, log = 2L, logit = 3L, probit = 4L, cloglog = 5L,
           inverse = 6L, sqrt = 7L),
  status = c(ok = 0L, no_start = 1L, variance = 2L, mu_eta = 3L, no_valid = 4L,
             halving = 5L, x_nan = 6L, x_inf = 7L),
  warning = c(divergence = 1L, out_of_bounds = 2L, nonfinite_coef = 4L,
              no_informative = 8L)
)

# Fails loudly when the R and C code tables differ (a build out of step).
check_glm_codes <- function(c_codes = call_c(C_glm_codes)) {
  if (!identical(c_codes, glm_codes))
    stop("epimask: the family, link and status codes of the C core (src/glm_codes.h) ",
         "differ from the R table `glm_codes` (R/fit-irls.R); the package is built ",
         "from sources out of step.", call. = FALSE)
  invisible(TRUE)
}

supported_links <- list(
  gaussian = c("identity", "log", "inverse"),
  binomial = c("logit", "probit", "cloglog", "log"),
  quasibinomial = c("logit", "probit", "cloglog", "log"),
  poisson = c("log", "identity", "sqrt"),
  quasipoisson = c("log", "identity", "sqrt"),
  Gamma = c("inverse", "log", "identity")
)

# The family and link codes of a family object, as the fields `family` and
# `link` of the C specs (quasi families share their parent's code).
family_codes <- function(family, arg = "family") {
  fam <- family$family
  links <- supported_links[[fam]]
  if (is.null(links))
    abort_value(arg, sprintf("one of the families %s, not \"%s\"",
                             paste(names(supported_links), collapse = ", "), fam))
  if (!(family$link %in% links))
    abort_value(arg, sprintf("a %s family with link %s, not \"%s\"", fam,
                             paste0('"', links, '"', collapse = ", "), family$link))
  parent <- sub("^quasi", "", fam)
  list(family = glm_codes$family[[parent]], link = glm_codes$link[[family$link]])
}

# Families whose dispersion is fixed at 1 (masked, non-integer outcomes keep
# dispersion 1 too: the fit is then a quasi-score fit with naive SEs).
fixed_dispersion <- function(family) family$family %in% c("binomial", "poisson")

irls_control <- function(control) {
  if (!is.list(control)) abort_type("control", "a list such as list(epsilon = 1e-8, maxit = 25)")
  known <- c("epsilon", "maxit", "trace", "nthreads", "chol_tol")
  unknown <- setdiff(names(control), known)
  if (length(unknown) || (length(control) && is.null(names(control))))
    abort_value("control", sprintf("a named list with elements among %s",
                                   paste(known, collapse = ", ")))
  epsilon <- check_number(control$epsilon %||% 1e-8, "control$epsilon",
                          lower = 0, lower_open = TRUE)
  maxit <- check_count(control$maxit %||% 25L, "control$maxit")
  trace <- check_flag(as.logical(control$trace %||% FALSE), "control$trace")
  nthreads <- epimask_threads(control$nthreads)
  chol_tol <- check_number(control$chol_tol %||% 1e-6, "control$chol_tol",
                           lower = 0, upper = 1)
  list(epsilon = epsilon, maxit = maxit, trace = trace, nthreads = nthreads,
       chol_tol = chol_tol, qr_tol = min(1e-07, epsilon / 1000))
}


# The response as glm.fit sees it: a vector, a factor or logical (binomial),
# or a two-column matrix of successes and failures (binomial).
check_response <- function(y, n, family) {
  binom <- family$family %in% c("binomial", "quasibinomial")
  if (binom && (is.factor(y) || is.logical(y))) {
    # a logical or factor response is recoded, not recycled: one value per row
    if (length(y) != n)
      abort_length("y", sprintf("have one value per row of `x` (%d), not %d (a %s %s)", n,
                                length(y), if (is.factor(y)) "factor" else "logical",
                                if (length(y) == 1L) "scalar" else "vector"))
    if (anyNA(y)) abort_value("y", "free of NA")
    return(if (is.factor(y)) as.double(y != levels(y)[1L]) else as.double(y))
  }
  if (is.data.frame(y)) y <- as.matrix(y)
  if (!is.numeric(y) || is.object(y) || (is.matrix(y) && !(ncol(y) == 1L || (binom && ncol(y) == 2L))))
    abort_type("y", if (binom) "a numeric vector, a factor or a two-column matrix of successes and failures"
                    else "a numeric vector")
  if (NROW(y) != n)
    abort_length("y", sprintf("have one value per row of `x` (%d), not %d", n, NROW(y)))
  if (anyNA(y)) abort_value("y", "free of NA and NaN")
  if (is.double(y) && call_c(C_irls_nonfinite, list(x = y, threads = 1L), arg = "y") == 2L) abort_value("y", "finite (no Inf)")
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  storage.mode(y) <- "double"
  y
}

check_support <- function(y, weights, family, codes = family_codes(family)) {
  fam <- family$family
  bad <- !is.matrix(y) &&
    call_c(C_irls_support, c(codes, list(y = y, weights = as.double(weights))), arg = "y")
  if (fam %in% c("binomial", "quasibinomial")) {
    if (is.matrix(y)) {
      if (any(y < 0)) abort_value("y", "non-negative counts of successes and failures")
    } else if (bad) {
      abort_value("y", "proportions between 0 and 1 for the binomial family")
    }
  } else if (fam %in% c("poisson", "quasipoisson")) {
    if (bad) abort_value("y", "non-negative for the poisson family")
  } else if (fam == "Gamma") {
    if (bad) abort_value("y", "positive for the Gamma family")
  }
}

# The initialize expression of the stats family of the same name, if
# `family` is one (then run_initialize() can do its work in C).
stats_initialize <- function(family) {
  ctor <- switch(family$family, binomial = stats::binomial, quasibinomial = stats::quasibinomial,
                 poisson = stats::poisson, quasipoisson = stats::quasipoisson,
                 Gamma = stats::Gamma,
                 gaussian = if (family$link == "identity") stats::gaussian,
                 NULL)
  if (is.null(ctor)) NULL else ctor()$initialize
}

# Evaluates family$initialize exactly as glm.fit does, returning y (as a
# proportion for binomial), the prior weights (times the trials for a
# two-column binomial response), mustart and n (for the AIC).
run_initialize <- function(family, y, weights, start, etastart, mustart,
                           codes = family_codes(family)) {
  nobs <- NROW(y)
  ref <- if (!is.matrix(y)) stats_initialize(family)
  if (!is.null(ref) && identical(family$initialize, ref)) {
    # the same computation in one pass: mustart (binomial: (w y + 0.5) / (w + 1)
    # with y set to 0 where w is 0; poisson: y + 0.1; gaussian, Gamma: y)
    weights <- as.double(weights)
    fast <- call_c(C_irls_initialize, c(codes, list(y = y, weights = weights)), arg = "y")
    if (fast$status != 0L)
      abort_value("y", sprintf("valid for the %s family", family$family))
    return(list(y = fast$y, weights = weights, mustart = mustart %||% fast$mustart,
                n = rep.int(1, nobs)))
  }
  init_env <- environment()
  n <- NULL
  mukeep <- mustart
  tryCatch(
    withCallingHandlers(eval(family$initialize, envir = init_env),
      warning = function(w) {
        # masked responses are legitimately non-integer (quasi-score fit)
        if (grepl("non-integer", conditionMessage(w))) invokeRestart("muffleWarning")
      }),
    error = function(e) abort_value("y", sprintf("valid for the %s family (%s)",
                                                 family$family, conditionMessage(e))))
  if (!is.null(mukeep)) mustart <- mukeep
  list(y = as.double(y), weights = as.double(weights), mustart = mustart, n = n)
}

#' Fit a generalized linear model by IRLS in C
#'
#' The counterpart of [stats::glm.fit()]: the same starting values
#' (`family$initialize`), working response and weights, convergence rule
#' \eqn{|dev - dev_{old}| / (|dev| + 0.1) < \epsilon}{|dev - devold| / (|dev| + 0.1) < epsilon}
#' and step halving, so coefficients, standard errors and deviance agree with
#' `glm()` to 1e-10 (relative; about 1e-12 on the package's test data). The
#' iteration runs in C: each weighted least-squares step makes one pass over
#' \eqn{X} that computes the linear predictor, the deviance and \eqn{X'WX},
#' \eqn{X'Wz} together, block by block of rows while the block is in cache
#' (register tiles in plain C, not the BLAS, so the speed does not depend on
#' an optimized BLAS; the same result for any number of threads), and solves
#' it by LAPACK's Cholesky. Threads: the chunks of rows of a pass are
#' handed out one at a time in one parallel region and summed in chunk
#' order (the same bits for any number of threads and any assignment of
#' chunks to threads); a thread waits for the others by sleeping, not
#' spinning; and when a pass's threads get less than 1.25 cores of CPU time
#' (on a machine whose cores other sessions keep busy, the threads of one R
#' session share the time one thread would get), the next passes run on one
#' thread, and threads are tried again a second later (see
#' [epimask_threads()]). Small fits run on one thread. Measured in one run of
#' `inst/bench/bench-irls.R` (2-core AMD EPYC shared with other jobs, load
#' average 12.7, reference BLAS): 1/8.2 (logistic) and 1/8.6 (Poisson) of
#' [stats::glm.fit()]'s time at \eqn{n = 10^6}, \eqn{p = 10}; a pass over
#' \eqn{X} 9 times the physical limit of portable C there (the family's exp
#' and log per row dominate) and 1.7 times at \eqn{p = 50}. 2 threads against
#' 1, logistic, \eqn{n = 10^6}, \eqn{p = 10}, four runs of
#' `inst/bench/bench-irls.R` on that machine shared with four other sessions
#' (load average 4.0-5.6): 2 threads took as long as 1 (speed ratio
#' 0.93-1.04, with or without a busy loop of another session; the code
#' before: 0.85-0.91 with the busy loop at load 1-2). When
#' a column is so nearly a combination of the earlier ones that the Cholesky
#' is not trusted (`chol_tol`), the step is solved by a Householder QR with
#' the limited column pivoting of `glm.fit`'s `dqrdc2` (a column whose norm
#' falls below `min(1e-7, epsilon / 1000)` of its original norm once the
#' earlier ones are projected out moves to the end), so aliased coefficients
#' are reported exactly as `glm()` reports them (`NA`, `rank` below the
#' number of columns).
#'
#' Families and links: binomial and quasibinomial (logit, probit, cloglog,
#' log), poisson and quasipoisson (log, identity, sqrt), gaussian (identity,
#' log, inverse), Gamma (inverse, log, identity). The dispersion is 1 for
#' binomial and poisson, otherwise Pearson's \eqn{\chi^2} over the residual
#' degrees of freedom (as `summary.glm`). Non-integer binomial or poisson
#' responses (masked data) are accepted without warning: the fit is then a
#' quasi-score fit with the dispersion kept at 1 ("naive" standard errors) and
#' `aic` is `NA` for a non-integer poisson response.
#'
#' @param x numeric design matrix (include a column of ones for an intercept).
#' @param y response: numeric vector; for binomial families also a factor,
#'   a logical vector, a proportion (with the trials as `weights`) or a
#'   two-column matrix of successes and failures.
#' @param family a family object, family function or family name.
#' @param weights optional non-negative prior weights; rows with zero weight
#'   do not enter the fit but get fitted values.
#' @param offset optional offset added to the linear predictor.
#' @param control list with `epsilon` (1e-8), `maxit` (25), `trace` (FALSE),
#'   `nthreads` (OpenMP threads; default [epimask_threads()]) and
#'   `chol_tol` (1e-6: smallest \eqn{1 - R^2} of a column on the earlier ones
#'   for which the Cholesky solve is trusted before switching to QR).
#' @param start optional starting coefficients (warm start).
#' @param etastart,mustart optional starting linear predictor or means, as in
#'   `glm.fit`.
#' @param intercept does the model contain an intercept? `NULL` (default)
#'   detects a column of ones; used for the null deviance.
#' @return A list of class `epimask_irls` with `coefficients` (`NA` if
#'   aliased), `se`, `vcov`, `deviance`, `null.deviance`, `df.residual`,
#'   `df.null`, `dispersion`, `iter`, `converged`, `boundary`, `rank`,
#'   `aliased`, `fitted.values`, `linear.predictors`, `residuals` (working),
#'   `weights` (working), `prior.weights`, `y`, `aic`, `family`, `flags`
#'   (`separation`, `step_halved`, `used_qr`, `infinite`: a named logical,
#'   the coefficients that may be infinite).
#'
#' **Separation.** As `glm.fit`, a fit whose fitted probabilities come within
#' `10 * .Machine$double.eps` of 0 or 1 (rates of 0) warns (class
#' `epimask_warning_separation`). Quasi-complete separation (a level of a
#' factor with no events, say) leaves the fitted probabilities of its records
#' near 1e-9 instead, and `glm()` reports a converged fit with a coefficient
#' near 20 (SE in the thousands) and no warning; here, for the families and
#' links whose means reach their bounds only as the linear predictor goes to
#' infinity (binomial with logit, probit, cloglog or log; poisson with log),
#' a coefficient is flagged in `flags$infinite` when some fitted mean is
#' within 1e-6 of its bound and the next scoring step at the estimate,
#' \eqn{(X'WX)^{-1} U}, still moves the linear predictor by more than 0.01
#' (`coxph()`'s test of an infinite coefficient, on the scale of the linear
#' predictor), and the fit warns with class `epimask_warning_monotone` (also
#' `epimask_warning_separation`). `converged` keeps glm's meaning (the
#' deviance converged).
#' @seealso [fit_glm()] for the formula interface.
#' @family model fitting
#' @export
#' @examples
#' data(mtcars)
#' x <- cbind(1, wt = mtcars$wt, hp = mtcars$hp)
#' fit <- irls_fit(x, mtcars$am, family = binomial())
#' fit$coefficients
#' fit$se
irls_fit <- function(x, y, family = gaussian(), weights = NULL, offset = NULL,
                     control = list(), start = NULL, etastart = NULL,
                     mustart = NULL, intercept = NULL) {
  family <- check_family(family)
  codes <- family_codes(family)
  # non-finite values in x are caught by the first pass of the C iteration
  x <- check_design(x, "x", scan = FALSE)
  n <- nrow(x)
  ynames <- if (is.matrix(y)) rownames(y) else names(y)
  ynames <- ynames %||% rownames(x)
  y <- check_response(y, n, family)
  weights <- check_numeric_vector(weights, "weights", len = n, allow_null = TRUE)
  if (!is.null(weights) && any(weights < 0)) abort_value("weights", "non-negative")
  offset <- check_numeric_vector(offset, "offset", len = n, allow_null = TRUE)
  start <- check_numeric_vector(start, "start", len = ncol(x), allow_null = TRUE)
  etastart <- check_numeric_vector(etastart, "etastart", len = n, allow_null = TRUE)
  mustart <- check_numeric_vector(mustart, "mustart", len = n, allow_null = TRUE)
  if (!is.null(intercept)) intercept <- check_flag(intercept, "intercept")
  ctl <- irls_control(control)
  prior <- weights %||% rep.int(1, n)
  check_support(y, prior, family, codes)
  if (family$family == "gaussian" && is.null(start) && is.null(etastart) && is.null(mustart) &&
      ((family$link == "log" && any(y <= 0)) || (family$link == "inverse" && any(y == 0))))
    abort_value("y", sprintf("%s for the gaussian family with %s link, unless `start`, `etastart` or `mustart` is given",
                             if (family$link == "log") "positive" else "non-zero", family$link))
  init <- run_initialize(family, y, prior, start, etastart, mustart, codes)
  if (!is.null(weights) && all(init$weights == 0)) abort_empty("weights")
  if (is.null(intercept)) intercept <- has_intercept_column(x)
  fit <- irls_call(x, init, codes, offset, ctl, start, etastart)
  if (!is.null(ynames)) {
    for (el in c("linear.predictors", "fitted.values", "residuals", "weights"))
      names(fit[[el]]) <- ynames
    names(init$y) <- names(init$weights) <- ynames
  }
  irls_finish(fit, x, init, family, offset, ctl, intercept, codes)
}

has_intercept_column <- function(x) call_c(C_irls_ones_column, list(x = x), arg = "x")

# check_numeric_matrix() without its temporary n x p logical matrices: a
# design can have millions of rows. `scan = FALSE` leaves the search for
# non-finite values to the caller.
check_design <- function(x, arg, scan = TRUE) {
  if (!(is.matrix(x) && is.double(x) && length(x) > 0L))
    x <- check_numeric_matrix(x, arg, finite = FALSE)
  if (scan) report_nonfinite_design(call_c(C_irls_nonfinite, list(x = x, threads = as.integer(epimask_threads())),
                                            arg = arg), arg)
  x
}

report_nonfinite_design <- function(bad, arg) {
  if (bad == 1L) abort_value(arg, "free of NA and NaN")
  if (bad == 2L) abort_value(arg, "finite (no Inf)")
}

# The C spec of one fit (src/r_irls.c, r_irls_fit): data, family codes,
# control and start (mode 0: etastart, 1: coefficients, 2: mustart).
irls_spec <- function(x, y, weights, offset, codes, ctl, start_mode, start,
                      final_weights = ctl$final_weights %||% 0L) {
  c(list(x = x, y = y, weights = weights, offset = offset), codes,
    list(maxit = as.integer(ctl$maxit), epsilon = ctl$epsilon, trace = as.integer(ctl$trace),
         qr_tol = ctl$qr_tol, chol_tol = ctl$chol_tol, threads = ctl$nthreads,
         schedule = as.integer(ctl$schedule %||% 0L), final_weights = as.integer(final_weights), start_mode = start_mode,
         start = as.double(start)))
}

# One run of the C iteration, with glm.fit's order of starting values.
irls_call <- function(x, init, codes, offset, ctl, start = NULL, etastart = NULL) {
  if (!is.null(etastart)) {
    mode <- 0L; start_vec <- etastart
  } else if (!is.null(start)) {
    mode <- 1L; start_vec <- start
  } else {
    mode <- 2L; start_vec <- init$mustart
  }
  fit <- call_c(C_irls_fit, irls_spec(x, init$y, init$weights, offset, codes, ctl, mode, start_vec),
                arg = "control")
  report_irls_status(fit$status)
  fit
}

report_irls_status <- function(status) {
  codes <- glm_codes$status
  if (status == codes[["ok"]]) return(invisible())
  if (status == codes[["x_nan"]]) report_nonfinite_design(1L, "x")
  if (status == codes[["x_inf"]]) report_nonfinite_design(2L, "x")
  msg <- switch(names(codes)[match(status, codes)],
    no_start = "valid for the family: no valid starting values were found; supply `start`, `etastart` or `mustart`",
    variance = "such that the variance function is non-zero and not NA at the fitted means",
    mu_eta = "such that d(mu)/d(eta) is not NA",
    no_valid = "such that the first step is valid; no valid set of coefficients has been found, supply `start`",
    halving = "such that step halving can correct the divergence (inner loop could not correct step size)")
  abort_value("start", msg)
}

irls_finish <- function(fit, x, init, family, offset, ctl, intercept, codes) {
  n <- nrow(x)
  p <- ncol(x)
  xnames <- colnames(x) %||% paste0("x", seq_len(p))
  y <- init$y
  prior <- init$weights
  rank <- fit$rank
  pivot <- fit$pivot
  kept <- pivot[seq_len(rank)]
  aliased <- rep(TRUE, p)
  aliased[kept] <- FALSE
  coef <- fit$coefficients
  coef[aliased] <- NA_real_
  names(coef) <- names(aliased) <- xnames
  # NaN (not NA) estimates mean the arithmetic overflowed: never return them.
  if (any(is.nan(coef[!aliased])))
    epimask_abort(paste("The fit overflowed: `x` or `y` are on a scale where IRLS",
                        "arithmetic is not finite; rescale them."),
                  "epimask_error_value", arg = "x")
  mu <- fit$fitted.values
  eta <- fit$linear.predictors

  n_ok <- n - sum(prior == 0)
  df_residual <- n_ok - rank
  df_null <- n_ok - as.integer(intercept)
  dispersion <- if (fixed_dispersion(family)) 1 else if (df_residual > 0) {
    sum((fit$weights * fit$residuals^2)[fit$weights > 0]) / df_residual
  } else NaN

  cov_unscaled <- matrix(NA_real_, p, p, dimnames = list(xnames, xnames))
  cov_unscaled[kept, kept] <- fit$cov.unscaled[seq_len(rank), seq_len(rank)]
  vcov <- dispersion * cov_unscaled
  se <- sqrt(diag(vcov))
  names(se) <- xnames

  null_dev <- null_deviance(y, prior, offset, family, intercept, mu, codes, ctl)
  flags <- irls_flags(fit, mu, family, codes)
  flags$infinite <- irls_infinite(x, fit, coef, cov_unscaled, init, family)
  signal_irls_warnings(fit, flags, family)

  aic <- irls_aic(family, y, init$n, mu, prior, fit$deviance, rank, codes)
  structure(list(
    coefficients = coef, se = se, vcov = vcov, cov.unscaled = cov_unscaled,
    deviance = fit$deviance, null.deviance = null_dev,
    df.residual = df_residual, df.null = df_null, dispersion = dispersion,
    iter = fit$iter, converged = fit$converged, boundary = fit$boundary,
    rank = rank, aliased = aliased, fitted.values = mu, linear.predictors = eta,
    residuals = fit$residuals, weights = fit$weights, prior.weights = prior,
    y = y, n = init$n, aic = aic, family = family, intercept = intercept,
    flags = flags), class = "epimask_irls")
}

# As glm(): with an intercept and an offset the null model is refitted
# (intercept + offset); otherwise the weighted mean, or linkinv(offset).
null_deviance <- function(y, prior, offset, family, intercept, mu, codes, ctl) {
  if (intercept && !is.null(offset) && any(offset != 0)) {
    ones <- matrix(1, length(y), 1L)
    quiet <- utils::modifyList(ctl, list(trace = FALSE))
    fit <- call_c(C_irls_fit, irls_spec(ones, y, prior, offset, codes, quiet, 2L, mu,
                                        final_weights = 1L), arg = "control")
    if (fit$status != 0L) return(NA_real_)
    return(fit$deviance)
  }
  # deviance at wtdmu = sum(prior * y) / sum(prior), or at linkinv(offset)
  call_c(C_irls_null_deviance, c(codes, list(y = y, weights = prior, offset = offset,
                                            intercept = as.integer(intercept))), arg = "y")
}

irls_flags <- function(fit, mu, family, codes = family_codes(family)) {
  # binomial: a mean within 10 * .Machine$double.eps of 0 or 1; poisson: of 0
  sep <- call_c(C_irls_separation, c(codes, list(mu = as.double(mu))), arg = "mu")
  bit <- function(name) bitwAnd(fit$warnings, glm_codes$warning[[name]]) > 0L
  list(separation = sep,
       step_halved = bit("divergence") || bit("out_of_bounds"),
       nonfinite_coefficients = bit("nonfinite_coef"),
       no_informative = bit("no_informative"),
       used_qr = fit$used_qr)
}

# The coefficients that may be infinite (quasi-complete separation: the
# likelihood keeps rising along them, and glm() converges silently at a
# coefficient near 20 with an SE in the thousands). Only where a mean can
# approach its bound as eta goes to infinity (binomial with logit, probit,
# cloglog or log link; poisson with log link). The test is coxph()'s: the
# next scoring step at the estimate, (X'WX)^-1 U, is still large after the
# deviance converged. Measured on the linear predictor (|step_j| times the
# largest |x_ij|), so that it does not depend on the covariate's units: a
# diverging coefficient still moves eta by 0.05-0.4 per step (probit-logit)
# while a finite maximum leaves at most 2e-4 (cloglog and Gamma-log fits of
# 30 records, the slowest; logit and log below 1e-7); and only when some
# fitted mean is within 1e-6 of its bound, where a diverging coefficient
# takes its records.
irls_infinite <- function(x, fit, coef, cov_unscaled, init, family) {
  out <- stats::setNames(rep(FALSE, length(coef)), names(coef))
  parent <- sub("^quasi", "", family$family)
  bounded <- (parent == "binomial" && family$link %in% c("logit", "probit", "cloglog", "log")) ||
    (parent == "poisson" && family$link == "log")
  kept <- !is.na(coef)
  if (!bounded || !any(kept)) return(out)
  mu <- fit$fitted.values
  near <- if (parent == "binomial") mu < 1e-6 | mu > 1 - 1e-6 else mu < 1e-6
  if (!any(near)) return(out)
  live <- init$weights > 0
  if (!any(near & live)) return(out)
  r <- init$weights * family$mu.eta(fit$linear.predictors) / family$variance(mu) * (init$y - mu)
  r[!is.finite(r) | !live] <- 0
  xk <- x[, kept, drop = FALSE]
  step <- drop(cov_unscaled[kept, kept, drop = FALSE] %*% crossprod(xk, r))
  reach <- vapply(seq_len(ncol(xk)), function(j) max(abs(xk[live, j])), numeric(1))
  out[kept] <- !is.finite(step) | abs(step) * reach > 1e-2
  out
}

signal_irls_warnings <- function(fit, flags, family) {
  if (flags$no_informative)
    epimask_warn(sprintf("No observations informative at iteration %d.", fit$iter),
                 "epimask_warning_convergence")
  if (flags$nonfinite_coefficients)
    epimask_warn(sprintf("Non-finite coefficients at iteration %d.", fit$iter),
                 "epimask_warning_convergence")
  if (!fit$converged)
    epimask_warn(sprintf("IRLS did not converge in %d iterations.", fit$iter),
                 "epimask_warning_convergence")
  if (fit$boundary)
    epimask_warn("IRLS stopped at a boundary value (step size truncated).",
                 "epimask_warning_boundary")
  binomial <- family$family %in% c("binomial", "quasibinomial")
  infinite <- flags$infinite %||% FALSE
  if (any(infinite)) {
    one <- sum(infinite) == 1L
    named <- paste0("'", names(infinite)[infinite], "'", collapse = ", ")
    what <- sprintf("the estimate%s of %s may be infinite", if (one) "" else "s", named)
    meaningless <- sprintf("%s SE and test %s meaningless", if (one) "its" else "their",
                           if (one) "is" else "are")
    msg <- if (flags$separation) {
      sprintf("%s (separation): %s (the likelihood keeps rising along %s); %s.",
              if (binomial) "Fitted probabilities numerically 0 or 1 occurred"
              else "Fitted rates numerically 0 occurred",
              what, if (one) "it" else "them", meaningless)
    } else {
      sprintf(paste("%s: the fitted %s of some records approach %s while the likelihood keeps",
                    "rising along %s (quasi-complete separation, which glm() reports as a",
                    "converged fit without a warning: a coefficient near 20 with an SE in the",
                    "thousands); %s."),
              paste0(toupper(substring(what, 1, 1)), substring(what, 2)),
              if (binomial) "probabilities" else "rates", if (binomial) "0 or 1" else "0",
              if (one) "it" else "them", meaningless)
    }
    epimask_warn(msg,
      c("epimask_warning_monotone", "epimask_warning_separation"))
  } else if (flags$separation) {
    epimask_warn(if (binomial)
      "Fitted probabilities numerically 0 or 1 occurred (separation)."
      else "Fitted rates numerically 0 occurred.",
      "epimask_warning_separation")
  }
}

irls_aic <- function(family, y, n, mu, prior, deviance, rank, codes) {
  aic <- if (family$family %in% c("binomial", "poisson")) {
    # binomial()$aic and poisson()$aic from the log-likelihood sum computed
    # in C with the same dbinom/dpois (NA for a non-integer poisson
    # response); binomial sizes as binomial()$aic takes them
    n <- n %||% rep.int(1, length(y))
    size <- if (any(n > 1)) n else prior
    -2 * call_c(C_irls_aic_loglik, c(codes, list(y = as.double(y), size = as.double(size),
                                                 mu = as.double(mu), weights = as.double(prior))),
                arg = "y")
  } else {
    suppressWarnings(family$aic(y, n, mu, prior, deviance))
  }
  aic + 2 * rank
}

#' @export
format.epimask_irls <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  digits <- check_digits(digits)
  c(sprintf("IRLS fit: %s family, %s link; %d iterations%s", x$family$family,
            x$family$link, x$iter, if (x$converged) "" else " (not converged)"),
    "Coefficients:",
    utils::capture.output(print.default(format(x$coefficients, digits = digits),
                                        print.gap = 2L, quote = FALSE)),
    sprintf("Deviance: %s on %d df; null deviance %s on %d df",
            format(signif(x$deviance, digits)), x$df.residual,
            format(signif(x$null.deviance, digits)), x$df.null))
}

#' @export
print.epimask_irls <- function(x, ...) print_formatted(x, ...)

# Many responses sharing one design (the replicates of a risk-utility
# profile): one C fit per column, each warm-started from the previous
# column's coefficients when `warm_start` is TRUE. Internal.
irls_fit_many <- function(x, Y, family = gaussian(), weights = NULL, offset = NULL,
                          control = list(), warm_start = TRUE, start = NULL) {
  family <- check_family(family)
  codes <- family_codes(family)
  x <- check_design(x, "x")
  n <- nrow(x)
  Y <- check_numeric_matrix(Y, "Y", nrow = n)
  weights <- check_numeric_vector(weights, "weights", len = n, allow_null = TRUE)
  if (!is.null(weights) && any(weights < 0)) abort_value("weights", "non-negative")
  offset <- check_numeric_vector(offset, "offset", len = n, allow_null = TRUE)
  start <- check_numeric_vector(start, "start", len = ncol(x), allow_null = TRUE)
  ctl <- irls_control(control)
  prior <- weights %||% rep.int(1, n)
  p <- ncol(x)
  m <- ncol(Y)
  xnames <- colnames(x) %||% paste0("x", seq_len(p))
  coef <- se <- matrix(NA_real_, p, m, dimnames = list(xnames, colnames(Y)))
  deviance <- dispersion <- numeric(m)
  converged <- logical(m)
  rank <- integer(m)
  for (k in seq_len(m)) {
    yk <- Y[, k]
    check_support(yk, prior, family)
    init <- run_initialize(family, yk, prior, NULL, NULL, NULL)
    # glm's SEs use the working weights of the last step, i.e. at the
    # previous iterate; a warm-started fit is not on glm.fit's path, so its
    # weights are refreshed at the final estimate instead.
    ctl$final_weights <- as.integer(warm_start)
    fit <- irls_call(x, init, codes, offset, ctl, start = start)
    kept <- fit$pivot[seq_len(fit$rank)]
    b <- rep(NA_real_, p)
    b[kept] <- fit$coefficients[kept]
    df_r <- sum(init$weights != 0) - fit$rank
    disp <- if (fixed_dispersion(family)) 1 else if (df_r > 0)
      sum((fit$weights * fit$residuals^2)[fit$weights > 0]) / df_r else NaN
    s <- rep(NA_real_, p)
    s[kept] <- sqrt(disp * diag(fit$cov.unscaled)[seq_len(fit$rank)])
    coef[, k] <- b
    se[, k] <- s
    deviance[k] <- fit$deviance
    dispersion[k] <- disp
    converged[k] <- fit$converged
    rank[k] <- fit$rank
    if (warm_start && fit$converged && fit$rank == p && all(is.finite(b))) start <- b
  }
  if (!all(converged))
    epimask_warn(sprintf("IRLS did not converge for %d of %d responses.", sum(!converged), m),
                 "epimask_warning_convergence")
  list(coefficients = coef, se = se, deviance = deviance, dispersion = dispersion,
       converged = converged, rank = rank)
}
