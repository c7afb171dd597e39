# ru_profile(): the loop that joins masking, model fitting and risk over a
# list of schemes (DESIGN "Profiles and plots"). The summary arithmetic and
# the object itself live in profile-class.R, the fitting of replicates in
# profile-fit.R; this file produces the per-replicate estimates, naive SEs
# and risks, as fast as the structure of each scheme allows:
# - a linear scheme (kernel, matrix) with simulated replicates masks the
#   fixed columns once and all replicates of the varying columns in one pass
#   (or, for poisson-log and binomial-logit, needs only A' on the design);
# - when only the response varies, the replicates share one design and are
#   fitted together;
# - the risk is computed once per distinct masked data set.
# Randomness: one L'Ecuyer-CMRG stream for the simulated data and one per
# scheme, derived from `seed` (or from one draw of the caller's RNG) in the
# main process, so serial and parallel runs (any future backend) agree.

#' Risk-utility profile of a list of masking schemes
#'
#' For every masking scheme, masks the data, fits the analyst's model to the
#' masked data, and measures the disclosure risk left, giving one row per
#' scheme of the trade-off between analysis potential (METHODS.md section 3)
#' and risk: the Cologne et al. (2012) security-utility table and the
#' risk-utility profile of Zhou, Dominici and Louis (2010).
#'
#' **Reference.** The unmasked data ([mask_none()]) are always part of the
#' profile (added first when `schemes` has no such scheme). The reference
#' value \eqn{\beta} of the bias is `truth` when given, otherwise the mean
#' unmasked estimate (the original estimate when nothing is simulated);
#' \eqn{MSE(\beta)}, the numerator of the analysis-potential score, is the
#' MSE of the unmasked row, so that row has analysis potential 1 (and bias 0
#' without `truth`).
#'
#' **Replicates.** Without `simulate`, a deterministic scheme (rounding,
#' grouping, kernels, ...) is applied once and a randomized one
#' ([mask_noise()]) `nrep` times. With `simulate`, `nrep` data sets
#' `simulate(data)` are drawn once and every scheme masks each of them
#' (common random numbers across schemes, as in the simulation study of Zhou
#' et al.); `truth` is then the true value. The per-replicate estimates,
#' naive SEs and risks are kept ([replicates()]).
#'
#' **Risk.** `"match"`: the matching risk of [risk_match()] of the masked data
#' against the original with the `known` and `unknown` variables; risk =
#' expected proportion of correct matches (`percent_correct / 100`).
#' `"identifiability"`: [risk_identifiability()] of the masked `known`
#' columns (the keys) against the original data as the source, with record
#' ids, so the true person is known; risk = its score. In both cases
#' anonymity = 1 - risk. The risk is computed once per distinct masked data
#' set: once for a deterministic scheme, once per replicate for a randomized
#' one, and on the first simulated data set in a simulation study (the
#' matching risk depends on the masking far more than on the outcome draw,
#' and this keeps a 500-replicate study affordable).
#'
#' **Bootstrap.** `bootstrap = B` resamples the original records (the first
#' simulated data set in a simulation study) B times, re-masks the resample
#' (a kernel scheme moves its coordinates with the records) and refits,
#' adding `boot_se` (SD of the bootstrap estimates), the percentile interval
#' `boot_lower`, `boot_upper` and the bootstrap-SE interval `boot_se_lower`,
#' `boot_se_upper` (the masked estimate of that data set \eqn{\pm 1.96}
#' `boot_se`) to the table. This captures the correlation that smoothing
#' induces, which the naive SE ignores (METHODS.md section 3.1).
#'
#' **Speed.** In a simulation study where only the outcome varies, a linear
#' scheme (kernel, matrix) masks the fixed columns once. For poisson-log and
#' binomial-logit models (canonical link, dispersion 1) the masked fit of
#' replicate \eqn{r} depends on the outcome only through
#' \eqn{T_r = (A' W \tilde X)' y_r}, so \eqn{A'} is applied to the
#' \eqn{p} design columns (through the dense kernel matrix up to
#' `getOption("epimask.dense_max", 2500)` records, otherwise by smoothing
#' the outcomes) and all replicates are solved together by Newton's method
#' (identical to IRLS for these links); other families smooth all outcome
#' replicates in one pass of the kernel core and fit them in C with warm
#' starts. Every fit is iterated to a relative deviance change of
#' \eqn{10^{-12}}, so the naive SEs do not depend on the starting values.
#' `parallel = TRUE` runs the schemes through [future.apply::future_lapply()]
#' on the current [future::plan()]; the result is identical to the serial
#' one under the same seed, whatever the backend.
#'
#' @param data A data frame (tibble, data.table) with the model variables;
#'   for kernel schemes in the row order of the schemes' coordinates.
#' @param schemes A `mask_scheme` or a list of them (e.g. from [mask_grid()]
#'   or `c()` of schemes).
#' @param formula Model formula, as for [glm()]; for `family = "err"` the
#'   response and the log-linear part (see [fit_err()]).
#' @param family A family object, function or name, or `"err"` for the linear
#'   excess-relative-risk model with `term` as the dose.
#' @param vars Columns to mask; default the variables of the model (and for
#'   `"err"` the dose) that are numeric columns of `data`.
#' @param term The quantity of interest: a coefficient name (default the
#'   first coefficient after the intercept), for `"err"` the dose column, or a
#'   function `function(fit, data)` of a [fit_glm()] fit and the masked data
#'   returning the estimate and its naive SE, such as [population_or()].
#' @param risk The disclosure-risk measure: `"match"`, `"identifiability"`,
#'   `"none"` or any other name of [risk_spec()] (with `known`, `unknown` and
#'   `...` as its arguments), a [risk_spec()], or a function
#'   `function(original, masked)` returning a number in \[0, 1\].
#' @param known Columns the intruder knows (the keys for
#'   `"identifiability"`); required by `"match"` and `"identifiability"`.
#' @param unknown Columns the intruder wants to learn (`"match"` only).
#' @param nrep Number of replicates of randomized schemes or of simulated data
#'   sets.
#' @param simulate `NULL` or a function `function(data)` returning a new data
#'   set (e.g. from [zdl_simulator()]).
#' @param truth The true value of the quantity, when known.
#' @param seed `NULL` (use, and advance by one draw, the caller's random
#'   number stream, so `set.seed()` beforehand reproduces the result) or a
#'   number; with a number the caller's stream is left untouched.
#' @param parallel Run the schemes in parallel with \pkg{future.apply}.
#' @param progress Show a progress bar (\pkg{progressr}, when installed).
#' @param bootstrap Number of bootstrap resamples (0 for none).
#' @param aggregate Optional aggregated-data reference estimate (e.g.
#'   `zdl_aggregate(sim)$estimate`), kept with the profile and drawn as a
#'   reference line in the estimate plot.
#' @param ... Further arguments for the risk measure ([risk_match()], e.g.
#'   `targets` or `threads`, or [risk_identifiability()]).
#' @return An `ru_profile`: a data frame with one row per scheme and columns
#'   `scheme`, `degree`, `estimate` (mean over replicates), `se` (mean naive
#'   SE), `sd` (empirical SD), `bias`, `rel_bias`, `mse`,
#'   `analysis_potential`, `risk`, `anonymity`, `width_ratio`, plus `kernel`,
#'   `nrep`, the CI columns and the bootstrap columns; see [replicates()],
#'   [plot.ru_profile()], [recommend()].
#' @references Cologne J, Grant EJ, Nakashima E, Chen Y, Funamoto S,
#'   Katayama H (2012). Protecting privacy of shared epidemiologic data
#'   without compromising analysis potential. \emph{Journal of Environmental
#'   and Public Health} 2012, 193680. \doi{10.1155/2012/193680}
#'
#'   Zhou Y, Dominici F, Louis TA (2010). A smoothing approach for masking
#'   spatial data. \emph{Annals of Applied Statistics} 4(3), 1451-1475.
#'   \doi{10.1214/09-AOAS325}
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 200, seed = 1)
#' coords <- cbind(sim$s1, sim$s2)
#' schemes <- mask_grid(c("ring", "exponential"), c(0.02, 0.1), coords,
#'                      source = c(0, 0))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = c("x", "y"),
#'                  term = "x", known = "x", unknown = "y", nrep = 5,
#'                  simulate = zdl_simulator(sim), truth = 2, seed = 1)
#' ru
ru_profile <- function(data, schemes, formula, family = gaussian(), vars = NULL,
                       term = NULL, risk = c("match", "identifiability", "none"),
                       known = NULL, unknown = NULL, nrep = 1, simulate = NULL,
                       truth = NULL, seed = NULL, parallel = FALSE,
                       progress = interactive(), bootstrap = 0, aggregate = NULL,
                       ...) {
  data <- as_plain_data(check_data(data))
  schemes <- check_scheme_list(schemes)
  check_formula(formula)
  model <- resolve_model(family, term, formula)
  risk <- profile_risk_spec(risk, known, unknown, data, ...)
  nrep <- check_count(nrep)
  bootstrap <- check_count(bootstrap, lower = 0L)
  check_function(simulate, allow_null = TRUE)
  truth <- check_number(truth, allow_null = TRUE)
  aggregate <- check_number(aggregate, allow_null = TRUE)
  seed <- check_number(seed, allow_null = TRUE, lower = -.Machine$integer.max,
                       upper = .Machine$integer.max)
  parallel <- check_flag(parallel)
  progress <- check_flag(progress)
  vars <- profile_vars(vars, data, model)
  if (parallel && !requireNamespace("future.apply", quietly = TRUE))
    abort_value("parallel", "FALSE unless the future.apply package is installed")

  job <- list(model = model, vars = vars, risk = risk, nrep = nrep,
              bootstrap = bootstrap, simulated = !is.null(simulate))
  job$term <- profile_term(model, data)
  schemes <- with_reference_scheme(schemes)
  labels <- scheme_labels(schemes)
  streams <- rng_streams(length(schemes) + 1L, seed)
  job <- c(job, simulate_replicates(data, simulate, nrep, streams[[1L]], model, vars))

  run_one <- function(i) run_scheme(schemes[[i]], labels[[i]], job, streams[[i + 1L]])
  results <- map_schemes(length(schemes), run_one, parallel, progress, streams[-1L])
  assemble_profile(results, labels, schemes, model, job, truth, aggregate)
}

# ---- arguments ----------------------------------------------------------------

check_scheme_list <- function(schemes, arg = "schemes") {
  if (inherits(schemes, "mask_scheme")) schemes <- list(schemes)
  if (!is.list(schemes) || !length(schemes) ||
      !all(vapply(schemes, inherits, logical(1), what = "mask_scheme"))) {
    if (is.list(schemes) && !length(schemes)) abort_empty(arg)
    abort_type(arg, "a mask_scheme or a list of mask_scheme objects (e.g. from mask_grid())")
  }
  unname(unclass(schemes))
}

profile_vars <- function(vars, data, model) {
  if (!is.null(vars)) return(check_columns(vars, data))
  used <- unique(c(all.vars(model$formula), model$dose))
  used <- intersect(used, names(data))
  used[vapply(used, function(v) is.numeric(data[[v]]), logical(1))]
}

# The profile's risk as a risk_spec (or a user function). The legacy form,
# a name with `known` / `unknown` / `...`, becomes risk_spec(name, ...); the
# columns a spec names are checked against the data now, not per scheme.
profile_risk_spec <- function(risk, known, unknown, data, ...) {
  if (missing(risk) || (is.character(risk) && length(risk) > 1L)) risk <- risk[[1L]]
  if (is.character(risk)) {
    risk <- check_choice(risk, names(risk_registry), arg = "risk")
    args <- list(...)
    if (risk == "match") args <- c(list(known = known, unknown = unknown), args)
    if (risk == "identifiability") args <- c(list(known = known), args)
    if (risk %in% c("match", "identifiability") && is.null(known))
      epimask_abort(sprintf("`known` must name the columns the intruder knows when risk = \"%s\" (or use risk = \"none\").", risk),
                    "epimask_error_value", arg = "known")
    risk <- do.call(as_risk_spec, c(list(risk), args))
  } else {
    risk <- as_risk_spec(risk)
  }
  if (inherits(risk, "epimask_risk_spec")) {
    for (col_arg in intersect(c("known", "unknown", "keys"), names(risk$args)))
      check_columns(risk$args[[col_arg]], data, arg = col_arg)
  }
  risk
}

# The coefficient the profile follows, checked on a fit to the original data
# so a wrong name fails before any masking.
profile_term <- function(model, data) {
  fit <- tryCatch(
    if (is.function(model$term) || model$type == "err") fit_model(model, data)
    else fit_formula(model, data),
    epimask_error = function(e) stop(e),
    error = function(e) model_frame_error(e, model$formula, data))
  if (is.function(model$term)) {
    term_function_value(model$term, fit, data)
    return("custom")
  }
  resolve_terms(model, fit, data, multiple = FALSE)
}

with_reference_scheme <- function(schemes) {
  types <- vapply(schemes, function(s) s$type, character(1))
  if ("none" %in% types) return(schemes)
  c(list(mask_none()), schemes)
}

scheme_labels <- function(schemes) {
  make.unique(vapply(schemes, format, character(1)), sep = " #")
}

scheme_family_label <- function(scheme) {
  if (identical(scheme$type, "kernel")) kernel_family_name(scheme$kernel, scheme$rho) else scheme$type
}

# ---- random number streams ------------------------------------------------------

# k L'Ecuyer-CMRG streams (.Random.seed vectors, as parallel::nextRNGStream
# gives them), the first one after set.seed(seed). Without a seed, one draw of
# the caller's generator picks it; the caller's generator is otherwise left as
# it was.
rng_streams <- function(k, seed) {
  if (is.null(seed)) seed <- sample.int(.Machine$integer.max, 1L)
  with_saved_rng({
    set.seed(seed, kind = "L'Ecuyer-CMRG", normal.kind = "Inversion",
             sample.kind = "Rejection")
    s <- get(".Random.seed", envir = globalenv())
    out <- vector("list", k)
    for (i in seq_len(k)) {
      s <- next_rng_stream(s)
      out[[i]] <- s
    }
    out
  })
}

with_saved_rng <- function(expr) {
  genv <- globalenv()
  old <- get0(".Random.seed", envir = genv, inherits = FALSE)
  on.exit({
    if (is.null(old)) {
      if (exists(".Random.seed", envir = genv, inherits = FALSE))
        rm(".Random.seed", envir = genv)
    } else {
      assign(".Random.seed", old, envir = genv)
    }
  }, add = TRUE)
  expr
}

# Run expr with .Random.seed set to a stream (its first element carries the
# generator kinds), putting the caller's state back afterwards.
with_rng_stream <- function(stream, expr) {
  with_saved_rng({
    assign(".Random.seed", stream, envir = globalenv())
    expr
  })
}

# parallel::nextRNGStream in plain R: advance an L'Ecuyer-CMRG seed by 2^127
# steps (the jump matrices of L'Ecuyer et al. 2002). Multiplications are
# split at 2^16 so every intermediate stays below 2^53.
next_rng_stream <- function(seed) {
  state <- as.double(seed[2:7])
  state[state < 0] <- state[state < 0] + 2^32
  s1 <- lecuyer_matvec(lecuyer_a1p127, state[1:3], 4294967087)
  s2 <- lecuyer_matvec(lecuyer_a2p127, state[4:6], 4294944443)
  out <- c(s1, s2)
  out[out >= 2^31] <- out[out >= 2^31] - 2^32
  c(seed[[1L]], as.integer(out))
}

lecuyer_a1p127 <- matrix(c(2427906178, 3580155704, 949770784,
                           226153695, 1230515664, 3580155704,
                           1988835001, 986791581, 1230515664), 3L, byrow = TRUE)
lecuyer_a2p127 <- matrix(c(1464411153, 277697599, 1610723613,
                           32183930, 1464411153, 1022607788,
                           2824425944, 32183930, 2093834863), 3L, byrow = TRUE)

lecuyer_matvec <- function(A, s, m) {
  mulmod <- function(a, x) ((a %/% 65536 * x) %% m * 65536 + a %% 65536 * x) %% m
  vapply(1:3, function(i) {
    acc <- 0
    for (j in 1:3) acc <- (acc + mulmod(A[i, j], s[j])) %% m
    acc
  }, numeric(1))
}

# ---- replicates -----------------------------------------------------------------

# The unmasked data sets: `data` itself, or nrep draws of simulate(data) made
# once (stream 1) and shared by every scheme. `varying` are the model, masked
# and risk columns that change between draws, `vary` their n x nrep matrices.
simulate_replicates <- function(data, simulate, nrep, stream, model, vars) {
  if (is.null(simulate))
    return(list(sims = list(data), varying = character(0), vary = list()))
  sims <- with_rng_stream(stream, lapply(seq_len(nrep), function(r) simulate(data)))
  sims <- lapply(sims, function(s) {
    if (!is.data.frame(s) || nrow(s) != nrow(data))
      abort_type("simulate", sprintf("a function returning a data frame with %d rows", nrow(data)))
    as_plain_data(s)
  })
  used <- intersect(unique(c(all.vars(model$formula), model$dose, vars)), names(data))
  missing <- setdiff(used, names(sims[[1L]]))
  if (length(missing)) abort_name("simulate", missing, "the simulated data")
  varying <- used[vapply(used, function(v) {
    any(vapply(sims[-1L], function(s) !identical(s[[v]], sims[[1L]][[v]]), logical(1)))
  }, logical(1))]
  numeric_varying <- varying[vapply(varying, function(v) is.numeric(sims[[1L]][[v]]), logical(1))]
  vary <- lapply(stats::setNames(numeric_varying, numeric_varying), function(v) {
    vapply(sims, function(s) as.double(s[[v]]), numeric(nrow(data)))
  })
  list(sims = sims, varying = varying, vary = vary)
}

replicate_count <- function(scheme, job) {
  if (job$simulated || is_random_scheme(scheme)) job$nrep else 1L
}

unmasked_replicate <- function(job, r) {
  job$sims[[if (job$simulated) r else 1L]]
}

# The masked data sets of one scheme. Linear schemes on simulated data mask
# the first data set and then every replicate of the varying masked columns
# in one call (one pass of the kernel core over an n x nrep matrix).
mask_replicates <- function(scheme, job, R) {
  masked_vary <- intersect(job$varying, job$vars)
  if (R == 1L || !job$simulated || !is_linear_scheme(scheme) || !length(masked_vary)) {
    return(lapply(seq_len(R), function(r)
      apply_mask(unmasked_replicate(job, r), scheme, job$vars)))
  }
  first <- apply_mask(job$sims[[1L]], scheme, job$vars)
  Z <- do.call(cbind, job$vary[masked_vary])
  Zm <- scheme_linear_apply(scheme, Z)
  plain_vary <- setdiff(job$varying, job$vars)
  lapply(seq_len(R), function(r) {
    d <- first
    for (v in plain_vary) d[[v]] <- job$sims[[r]][[v]]
    for (k in seq_along(masked_vary)) d[[masked_vary[[k]]]] <- Zm[, (k - 1L) * R + r]
    d
  })
}

# ---- risk ---------------------------------------------------------------------------

scheme_risk <- function(scheme, job, masked) {
  R <- length(masked)
  if (is_no_risk(job$risk)) return(rep(NA_real_, R))
  if (job$simulated || !is_random_scheme(scheme))
    return(rep(risk_value(job$risk, job$sims[[1L]], masked[[1L]]), R))
  vapply(masked, function(d) risk_value(job$risk, job$sims[[1L]], d), numeric(1))
}

is_no_risk <- function(spec) inherits(spec, "epimask_risk_spec") && spec$name == "none"

# ---- bootstrap ------------------------------------------------------------------------

bootstrap_scheme <- function(scheme, job) {
  data <- job$sims[[1L]]
  n <- nrow(data)
  vapply(seq_len(job$bootstrap), function(b) {
    idx <- sample.int(n, n, replace = TRUE)
    masked <- apply_mask(data[idx, , drop = FALSE], resample_scheme(scheme, idx), job$vars)
    replicate_estimate(job, masked)[[1L]]
  }, numeric(1))
}

# The scheme for resampled records: kernel coordinates (and groups) follow
# their records; value-wise schemes need nothing.
resample_scheme <- function(scheme, idx) {
  if (identical(scheme$type, "kernel")) {
    return(mask_kernel(scheme$kernel, scheme$lambda, scheme$coords[idx, , drop = FALSE],
                       scheme$source, scheme$direction,
                       if (!is.null(scheme$groups)) scheme$groups[idx],
                       scheme$rho, scheme$bandwidth, scheme$cutoff))
  }
  if (identical(scheme$type, "matrix"))
    abort_value("bootstrap", "0 for matrix masks (their A is tied to the original records)")
  scheme
}

bootstrap_summary <- function(boot, estimate) {
  boot <- boot[is.finite(boot)]
  if (length(boot) < 2L)
    return(c(boot_se = NA_real_, boot_lower = NA_real_, boot_upper = NA_real_,
             boot_se_lower = NA_real_, boot_se_upper = NA_real_))
  z <- stats::qnorm(0.975)
  se <- stats::sd(boot)
  pct <- stats::quantile(boot, c(0.025, 0.975), names = FALSE)
  c(boot_se = se, boot_lower = pct[[1L]], boot_upper = pct[[2L]],
    boot_se_lower = estimate - z * se, boot_se_upper = estimate + z * se)
}

# ---- one scheme, all schemes --------------------------------------------------------

run_scheme <- function(scheme, label, job, stream) {
  with_rng_stream(stream, {
    R <- replicate_count(scheme, job)
    est <- NULL
    if (use_sufficient_statistics(scheme, job, R)) {
      est <- estimate_by_sufficient_statistics(scheme, job)
      if (!is.null(est)) risk <- rep(scheme_risk(scheme, job, list(est$first)), R)
    }
    if (is.null(est)) {
      masked <- mask_replicates(scheme, job, R)
      est <- estimate_replicates(scheme, job, masked)
      risk <- scheme_risk(scheme, job, masked)
    }
    boot <- if (job$bootstrap > 0L) bootstrap_scheme(scheme, job)
    reps <- data.frame(scheme = label, replicate = seq_len(R),
                       estimate = est$estimate, se = est$se, risk = risk,
                       degree = scheme$degree, kernel = scheme_family_label(scheme),
                       stringsAsFactors = FALSE)
    list(replicates = reps, bootstrap = boot)
  })
}

map_schemes <- function(k, run_one, parallel, progress, streams) {
  sweep <- function(tick) {
    task <- function(i) {
      out <- run_one(i)
      if (!is.null(tick)) tick()
      out
    }
    if (parallel) future.apply::future_lapply(seq_len(k), task, future.seed = streams)
    else lapply(seq_len(k), task)
  }
  if (progress && requireNamespace("progressr", quietly = TRUE)) {
    return(progressr::with_progress({
      tick <- progressr::progressor(steps = k)
      sweep(tick)
    }))
  }
  sweep(NULL)
}

# ---- the profile object ---------------------------------------------------------------

assemble_profile <- function(results, labels, schemes, model, job, truth, aggregate) {
  reps <- do.call(rbind, lapply(results, `[[`, "replicates"))
  reps <- drop_failed_replicates(reps)
  none <- labels[vapply(schemes, function(s) identical(s$type, "none"), logical(1))][[1L]]
  ref_reps <- reps[reps$scheme == none, , drop = FALSE]
  if (!nrow(ref_reps))
    epimask_abort("The model could not be fitted to the unmasked data.",
                  "epimask_error_singular", arg = "data")
  unmasked <- mean(ref_reps$estimate)
  beta <- if (is.null(truth)) unmasked else truth
  reference <- list(truth = beta, se = mean(ref_reps$se),
                    mse = mean(ref_reps$se^2) + (unmasked - beta)^2,
                    type = if (is.null(truth)) "original" else "truth")
  table <- summarise_replicates(reps, reference)
  if (job$bootstrap > 0L) table <- add_bootstrap_columns(table, results, labels, reps)
  meta <- list(term = if (is.function(model$term)) "custom" else job$term,
               family = if (model$type == "err") "linear ERR" else model$family,
               risk = risk_spec_label(job$risk), aggregate = aggregate)
  new_ru_profile(table, reps, reference, meta)
}

drop_failed_replicates <- function(reps) {
  ok <- is.finite(reps$estimate) & is.finite(reps$se)
  if (all(ok)) return(reps)
  lost <- unique(reps$scheme[!ok])
  gone <- setdiff(lost, reps$scheme[ok])
  epimask_warn(sprintf("The model could not be fitted to %d masked data set%s (%s)%s.",
                       sum(!ok), if (sum(!ok) == 1L) "" else "s",
                       paste0("'", lost, "'", collapse = ", "),
                       if (length(gone)) sprintf("; scheme%s %s left out of the profile",
                                                 if (length(gone) == 1L) "" else "s",
                                                 paste0("'", gone, "'", collapse = ", ")) else ""),
               "epimask_warning_convergence")
  reps[ok, , drop = FALSE]
}

add_bootstrap_columns <- function(table, results, labels, reps) {
  rows <- lapply(seq_along(results), function(i) {
    first <- reps[reps$scheme == labels[[i]], , drop = FALSE]
    centre <- if (nrow(first)) first$estimate[[1L]] else NA_real_
    bootstrap_summary(results[[i]]$bootstrap, centre)
  })
  boot <- do.call(rbind, rows)
  boot <- boot[match(table$scheme, labels), , drop = FALSE]
  cbind(table, as.data.frame(boot))
}
