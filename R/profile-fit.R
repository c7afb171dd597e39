# Fitting the replicates of a risk-utility profile, every GLM in C: one
# masked data set at a time through irls_fit() (or the ERR engine), many
# replicates sharing one design through irls_fit_many(), and, for canonical
# links with dispersion 1, all replicates from their sufficient statistics
# through the C routine behind newton_many().

# ---- fitting ----------------------------------------------------------------------

# Convergence of every profile fit. Tighter than glm's default so that the
# naive SE (computed from the working weights of the last iteration) is that
# of the converged estimate whatever the starting values: warm-started
# replicate fits then agree with cold-started ones to ~1e-9, not ~1e-5.
profile_fit_control <- list(epsilon = 1e-12, maxit = 50L)

# The model on one data set via the C IRLS; a light fit (coefficients, SEs,
# the records it used).
fit_formula <- function(model, data) {
  mf <- stats::model.frame(model$formula, data, na.action = stats::na.omit)
  x <- stats::model.matrix(attr(mf, "terms"), mf)
  fit <- irls_fit(x, stats::model.response(mf), family = model$family,
                  weights = stats::model.weights(mf), offset = stats::model.offset(mf),
                  control = profile_fit_control)
  structure(list(coefficients = stats::setNames(fit$coefficients, colnames(x)),
                 se = stats::setNames(fit$se, colnames(x)),
                 records = fit_records(nrow(data), nrow(mf))),
            class = "epimask_light_fit")
}

# The linear ERR model through its array interface (no profile interval,
# which a replicate does not need); fit_err() for responses it cannot take.
fit_err_light <- function(model, data) {
  used <- intersect(unique(c(all.vars(model$formula), model$dose)), names(data))
  total <- nrow(data)
  data <- data[stats::complete.cases(data[used]), , drop = FALSE]
  records <- fit_records(total, nrow(data))
  mf <- stats::model.frame(model$formula, data)
  y <- stats::model.response(mf)
  if (is.matrix(y) || !is.null(stats::model.weights(mf))) {
    fit <- fit_model(model, data)
    return(list(coefficients = stats::coef(fit), se = sqrt(diag(stats::vcov(fit))),
                records = records))
  }
  z <- stats::model.matrix(attr(mf, "terms"), mf)
  fit <- err_fit_matrix(z, as.double(data[[model$dose]]), as.double(y),
                        offset = stats::model.offset(mf))
  names(fit$coefficients) <- names(fit$se) <- c(colnames(z), model$dose)
  fit$records <- records
  fit
}

#' @export
coef.epimask_light_fit <- function(object, ...) object$coefficients

# Estimate and naive SE of the profile's quantity on one masked data set,
# and the records the fit used (attribute `records`: the count with its
# reasons); NA when the fit fails (e.g. a covariate masked to a constant).
replicate_estimate <- function(job, data) {
  # synthetic copies: each fitted, combined by the release's rules
  if (is_synthetic(data)) return(synthetic_replicate_estimate(job, data))
  model <- job$model
  records <- NULL
  out <- tryCatch({
    data <- derive_data(job$derive, data)
    if (is.function(model$term)) {
      fit <- fit_model(model, data)
      records <- fit$records
      term_function_value(model$term, fit, data)
    } else if (model$type == "cox") {
      # a monotone likelihood has no estimate: the replicate fails with the
      # reason (the profile's warning quotes it) instead of a coefficient of 20
      # records with stop <= start are counted in the profile, not warned
      # about once per replicate
      fit <- withCallingHandlers(fit_cox(model$formula, data, ties = model$ties),
                                 epimask_warning_monotone = function(w) invokeRestart("muffleWarning"),
                                 epimask_warning_records = function(w) invokeRestart("muffleWarning"))
      records <- fit$records
      if (any(fit$infinite))
        epimask_abort(monotone_reason(names(fit$infinite)[fit$infinite]), "epimask_error_singular")
      c(fit$coefficients[[job$term]], fit$se[[job$term]])
    } else if (model$type == "err") {
      fit <- fit_err_light(model, data)
      records <- fit$records
      c(fit$coefficients[[job$term]], fit$se[[job$term]])
    } else {
      fit <- fit_formula(model, data)
      records <- fit$records
      c(fit$coefficients[[job$term]], fit$se[[job$term]])
    }
  }, epimask_error = function(e) structure(c(NA_real_, NA_real_), error = conditionMessage(e)))
  err <- attr(out, "error")
  out <- as.double(out)
  if (!is.null(err)) attr(out, "error") <- err
  attr(out, "records") <- records %||% fit_records(nrow(data), nrow(data))
  out
}

# Do the replicates share one design (only the response differs)?
shared_design <- function(scheme, job, R) {
  model <- job$model
  if (R == 1L || model$type != "glm" || is.function(model$term)) return(FALSE)
  if (!is.null(job$derive)) return(FALSE)
  if (is_random_scheme(scheme)) return(FALSE)
  lhs <- model$formula[[2L]]
  if (length(model$formula) != 3L || !is.name(lhs)) return(FALSE)
  rhs <- all.vars(model$formula[-2L])
  !any(job$varying %in% rhs)
}

estimate_replicates <- function(scheme, job, masked, tick = NULL) {
  R <- length(masked)
  if (R > 1L && job$model$type == "cox" && !is.function(job$model$term) && is.null(job$derive) &&
      !is_synthetic(masked[[1L]])) {
    # all replicate designs in one C call when they share the survival times
    fast <- tryCatch(withCallingHandlers(cox_replicate_estimates(job$model, masked, job$term),
                                         epimask_warning_records = function(w) invokeRestart("muffleWarning")),
                     epimask_error = function(e) NULL)
    if (!is.null(fast)) {
      if (!is.null(tick)) tick(amount = R)
      return(fast)
    }
  }
  if (shared_design(scheme, job, R)) {
    fast <- estimate_shared_design(job, masked)
    if (!is.null(fast)) {
      if (!is.null(tick)) tick(amount = R)
      fast$records <- all_records_used(masked)
      return(fast)
    }
  }
  error <- NULL
  out <- vapply(masked, function(d) {
    value <- replicate_estimate(job, d)
    if (is.null(error) && !is.null(attr(value, "error"))) error <<- attr(value, "error")
    if (!is.null(tick)) tick()
    rec <- attr(value, "records")
    c(as.double(value), rec[["used"]], rec[["lost"]], rec[["stop_le_start"]])
  }, numeric(5))
  list(estimate = out[1L, ], se = out[2L, ], error = error,
       records = records_table(out[3L, ], out[4L, ], out[5L, ]))
}

# The records each replicate's fit used and lost (and of those, how many had
# stop <= start), one row per replicate; all used where no record is lost.
records_table <- function(used, lost, stop_le_start = 0) {
  data.frame(records_used = as.double(used), records_lost = as.double(lost),
             records_lost_interval = as.double(stop_le_start))
}

all_records_used <- function(masked) {
  n <- vapply(masked, nrow, numeric(1))
  records_table(n, 0, 0)
}

# All replicates fitted in C with one design and warm starts; NULL when rows
# were dropped for missing values (then each replicate is fitted alone).
estimate_shared_design <- function(job, masked) {
  model <- job$model
  mf <- stats::model.frame(model$formula, masked[[1L]], na.action = stats::na.omit)
  if (nrow(mf) != nrow(masked[[1L]])) return(NULL)
  x <- stats::model.matrix(attr(mf, "terms"), mf)
  response <- as.character(model$formula[[2L]])
  Y <- vapply(masked, function(d) as.double(d[[response]]), numeric(nrow(x)))
  fits <- tryCatch(
    irls_fit_many(x, Y, family = model$family, weights = stats::model.weights(mf),
                  offset = stats::model.offset(mf), control = profile_fit_control),
    epimask_error = function(e) NULL)
  if (is.null(fits)) return(NULL)
  list(estimate = unname(fits$coefficients[job$term, ]),
       se = unname(fits$se[job$term, ]))
}

# ---- replicates through sufficient statistics ---------------------------------------
# With a canonical link and the dispersion fixed at 1 (poisson-log,
# binomial-logit) the quasi-score of replicate r on linearly masked data,
# X~' W (A y_r - mu(b)) = 0, and the information X~' diag(w mu.eta) X~ depend
# on the outcome only through T_r = (A' W X~)' y_r. A linear scheme then
# needs A' on the p columns of W X~ instead of A on nrep outcome columns, and
# the nrep fits are Newton steps on p-vectors (in C, one replicate per thread).
# The estimates and naive SEs are those of the IRLS fit of A y_r on X~.

# Largest n for which A' is applied through the dense kernel matrix; above
# it the outcome replicates are smoothed instead (one pass over n x nrep).
# Option `epimask.dense_max` (default 2500, a 50 MB matrix).
dense_transpose_max <- function() {
  value <- getOption("epimask.dense_max", 2500L)
  if (!is.numeric(value) || length(value) != 1L || is.na(value)) 2500L else value
}

canonical_fixed_dispersion <- function(family) {
  (family$family == "poisson" && family$link == "log") ||
    (family$family == "binomial" && family$link == "logit")
}

use_sufficient_statistics <- function(scheme, job, R) {
  response <- deparse(job$model$formula[[2L]])
  job$simulated && R > 1L && is_linear_scheme(scheme) &&
    shared_design(scheme, job, R) && canonical_fixed_dispersion(job$model$family) &&
    identical(job$varying, response)
}

# Returns the estimates and the first masked data set (for the risk), or
# NULL when the data need the general path (rows dropped, failed start).
estimate_by_sufficient_statistics <- function(scheme, job) {
  model <- job$model
  dense <- scheme_dense_matrix(scheme, nrow(job$sims[[1L]]))
  # with the dense A at hand, the first data set is masked by it too
  first <- profile_mask(job$sims[[1L]],
                      if (is.null(dense)) scheme else mask_matrix(dense), job$vars)
  mf <- stats::model.frame(model$formula, first, na.action = stats::na.omit)
  if (nrow(mf) != nrow(first)) return(NULL)
  x <- stats::model.matrix(attr(mf, "terms"), mf)
  weights <- stats::model.weights(mf)
  if (is.null(weights)) weights <- rep(1, nrow(x))
  offset <- stats::model.offset(mf)
  if (is.null(offset)) offset <- rep(0, nrow(x))
  response <- deparse(model$formula[[2L]])
  Y <- job$vary[[response]]
  wx <- weights * x
  stat <- if (!response %in% job$vars) crossprod(wx, Y)
          else if (!is.null(dense)) crossprod(crossprod(dense, wx), Y)
          else crossprod(wx, scheme_linear_apply(scheme, Y))
  start <- tryCatch(fit_formula(model, first)$coefficients, epimask_error = function(e) NULL)
  if (is.null(start) || anyNA(start)) return(NULL)
  fits <- newton_many(x, stat, model$family, offset, weights, start)
  j <- match(job$term, colnames(x))
  list(estimate = fits$coefficients[j, ], se = fits$se[j, ], first = first)
}

# The dense A of a linear scheme when it is cheap to hold (identity: NULL,
# nothing to apply; kernels up to dense_transpose_max() records):
# scheme_dense_matrix(), a generic with methods in the type files.

# nrep GLMs sharing the design x, given T = X' W y per replicate (columns
# of `stat`), fitted in C (src/irls_many.c): Newton's method, which is IRLS
# for a canonical link, with step halving on the concave quasi-log-likelihood
# T'b - sum w kappa(eta), from `start` (the fit of the first data set); a
# replicate that fails (singular information, no convergence) is NA.
newton_many <- function(x, stat, family, offset, weights, start, maxit = 50L,
                        tol = 1e-11) {
  spec <- c(list(x = x, weights = as.double(weights), offset = as.double(offset)),
            family_codes(family),
            list(stat = matrix(as.double(stat), nrow(stat)), start = as.double(start),
                 maxit = as.integer(maxit), tol = tol, threads = epimask_threads()))
  fits <- call_c(C_irls_stat_many, spec, arg = "model")
  dimnames(fits$coefficients) <- dimnames(fits$se) <- list(colnames(x), NULL)
  fits
}
