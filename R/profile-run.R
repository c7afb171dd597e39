# ru_profile(): the loop that joins masking, model fitting and risk over a
# list of schemes (?ru_profile). The summary arithmetic and
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
#' scheme of the trade-off between analysis potential (methods vignette, section 3)
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
#' **Risk.** The measure is a [risk criterion][new_risk_criterion()] that
#' carries its columns (`risk`): [match_risk()] (the matching risk of
#' [risk_match()] of the masked data against the original: the expected
#' proportion of correct matches), [linkage_risk()], [identifiability()]
#' (exact matching: blind to masks that change values without creating ties
#' (noise, kernels, matrix masks); a profile resting on it with such schemes
#' raises a warning of class `epimask_warning_blind_risk`), or a criterion of
#' the keys with its `keys` (`k_anonymity(5, keys = c("city", "sex"))`,
#' `avg_risk(NA, strict = TRUE, keys = )`, [l_diversity()], ...); or a list
#' of them (the first is the profile's `risk`, the others add columns
#' `risk_<name>`); or a function `function(original, masked)` returning a
#' number in \[0, 1\]; or `NULL` (no risk). Anonymity = 1 - risk. The
#' shorthand of epimask 0.3, a name with its columns beside it (`risk =
#' "match", known = , unknown = `), and [risk_spec()] still work for one
#' release, with a warning of class `epimask_warning_deprecated`. The risk is
#' computed once per distinct masked data set: once for a deterministic
#' scheme, once per replicate for a randomized one, and on the first
#' simulated data set in a simulation study (the matching risk depends on the
#' masking far more than on the outcome draw, and this keeps a 500-replicate
#' study affordable).
#'
#' **Bootstrap.** `bootstrap = B` resamples the original records (the first
#' simulated data set in a simulation study) B times, re-masks the resample
#' (a kernel scheme moves its coordinates with the records) and refits,
#' adding `boot_se` (SD of the bootstrap estimates), the percentile interval
#' `boot_lower`, `boot_upper` and the bootstrap-SE interval `boot_se_lower`,
#' `boot_se_upper` (the masked estimate of that data set \eqn{\pm 1.96}
#' `boot_se`) to the table. This captures the correlation that smoothing
#' induces, which the naive SE ignores (methods vignette, section 3.1).
#'
#' **Synthetic releases.** A [mask_synth()] scheme is random: each replicate
#' is one synthesis of `m` copies, the model fitted to every copy and the
#' fits combined by the release's rules ([combine_synthetic()]), so `estimate`
#' and `se` are the combined estimate and its standard error, what the
#' collaborator would report from the copies alone, and `ci_overlap` (Karr et
#' al. 2006) compares its normal interval with the original's. The criteria
#' that compare each masked record with its original, or count classes of
#' records that are persons of the data, do not apply to synthetic records
#' (NA, with a warning of class `epimask_warning_synth_risk`); give a
#' criterion that judges the release, e.g. `replicated_uniques(keys = k)` or
#' [disco()].
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
#' one under the same seed, whatever the backend. A worker that fails (a
#' cluster job lost, killed or out of memory) fails the call with an error
#' of class `epimask_error_worker`: no partial profile is returned. On a
#' Slurm cluster use the job template the package ships:
#' `future::plan(future.batchtools::batchtools_slurm, template =
#' system.file("cluster", "slurm.tmpl", package = "epimask"), resources =
#' list(libpaths = .libPaths()))` (the jobs load the session's epimask).
#'
#' @param data A data frame (tibble, data.table) with the model variables;
#'   for kernel schemes in the row order of the schemes' coordinates. Or a
#'   count table ([table_counts()]): then `schemes` are schemes for tables
#'   ([mask_suppression()], [mask_round()] with `base`, [mask_kernel()],
#'   [mask_dp_counts()]), `formula` is a [count_model()], `risk` the table's
#'   rules ([cell_threshold()], ...): the risk of a scheme is the share of
#'   sensitive cells its release discloses, and the profile adds the columns
#'   `published` (share of cells published) and `epsilon` (noise); `nrep`,
#'   `seed`, and in `...` `control` (a [table_control()]) and `dim` (the
#'   dimension a kernel smooths over, see [mask_count_table()]) apply, the
#'   other arguments do not.
#' @param schemes A `mask_scheme` or a list of them (e.g. from [mask_grid()]
#'   or `c()` of schemes).
#' @param formula Model formula, as for [glm()]; for `family = "err"` the
#'   response and the log-linear part (see [fit_err()]).
#' @param family A family object, function or name, `"err"` for the linear
#'   excess-relative-risk model with `term` as the dose, or `"cox"` for the
#'   Cox model of [fit_cox()] (`formula` with a `Surv()` response; `term` a
#'   log hazard ratio). The replicates of a Cox profile that share the
#'   survival times (the times are not masked) are fitted in one call of the
#'   C core.
#' @param vars Columns to mask; default the covariates of the model (and for
#'   `"err"` the dose) that are numeric columns of `data`. The response is
#'   not masked unless named here (a message says so).
#' @param term The quantity of interest: a coefficient name (default the
#'   first coefficient after the intercept), for `"err"` the dose column, or a
#'   function `function(fit, data)` of a [fit_glm()] fit and the masked data
#'   returning the estimate and its naive SE, such as [population_or()].
#' @param risk The disclosure-risk measure: a [risk criterion][new_risk_criterion()]
#'   carrying its columns (e.g. `match_risk("dose", unknown = "case")`,
#'   `linkage_risk("dose")`, `k_anonymity(5, keys = c("city", "sex"))`), a list
#'   of criteria, a function `function(original, masked)` returning a number in
#'   \[0, 1\], or `NULL` / `"none"` (no risk); to be given (it has no
#'   default: the profile's risk axis is the custodian's choice). See Details.
#' @param nrep Number of replicates of randomized schemes or of simulated data
#'   sets, from 1 to 100,000.
#' @param context `NULL` or a [release_context()]: its threshold becomes the
#'   profile's risk budget (metadata `budget`), used by [recommend()] and
#'   drawn by the plots.
#' @param seed `NULL` or an integer: the seed of the profile's random
#'   streams. Each scheme's replicates draw from a stream derived from it (or
#'   from one draw of the caller's random number generator when `NULL`), so a
#'   profile is reproducible and identical serial and on any \pkg{future}
#'   backend.
#' @param control A [profile_control()]: the simulation study (`simulate`,
#'   `truth`, `aggregate`), resampling (`bootstrap`, `risk_nrep`), the
#'   model-free utility (`utility`), the person column (`id`), the
#'   collaborator's derivation (`derive`) and how the profile runs
#'   (`parallel`, `progress`).
#' @param ... The options of [profile_control()] given by name (as [glm()]
#'   takes those of [glm.control()]), e.g. `progress = FALSE`, `simulate =
#'   f`; and, deprecated, the columns of a risk given by name (`known`,
#'   `unknown`, the measure's arguments).
#' @return An `ru_profile`: a data frame with one row per scheme and columns
#'   `scheme`, `degree`, `estimate` (mean over replicates), `se` (mean naive
#'   SE), `sd` (empirical SD), `bias`, `rel_bias`, `mse`,
#'   `analysis_potential` (U = MSE(original) / MSE(masked) with the masked
#'   naive variance floored at the original's, at most 1: a bias hidden by a
#'   naive SE that shrank under masking counts in full; the number every
#'   print, summary, plot, [recommend()] and report shows), `risk`,
#'   `anonymity`, `width_ratio`, plus `mask_family` (the scheme's family,
#'   [mask_family()]: a kernel's name, else the type; until 0.2 this column
#'   was `kernel`, which still reads with a deprecation warning), `bandwidth`
#'   and `report_label` (what the type's `bandwidth` and `withheld` traits
#'   and [mask_report_label()] say, for the plots and the report),
#'   `records_used`, `records_lost` and `records_lost_interval` (the records
#'   the fits used and left out, and of those the (start, stop] intervals
#'   with stop <= start; means over the replicates; printed wherever U is
#'   shown), `nrep`, the CI columns, the Monte Carlo standard errors `bias_se`,
#'   `mse_se`, `analysis_potential_se`, `risk_se` (NA where not estimable:
#'   one replicate, or a risk evaluated once; see Details), `pareto` (on the
#'   risk-utility frontier: no other scheme has a risk as low and a U
#'   as high, or lower by less than 0.01, and is better on one of them beyond
#'   its Monte Carlo uncertainty (and 0.01 on U); a Monte Carlo tie never
#'   puts a scheme off it, a U tie within 0.01 goes to the lower risk as in
#'   [recommend()]),
#'   `analysis_potential_raw` (the raw ratio MSE(original) / MSE(masked) of
#'   Cologne et al. 2012, without the floor; may exceed 1) with its Monte
#'   Carlo SE `analysis_potential_raw_se`, `generator` and
#'   `strength` ([scheme_generator()], [mask_sweep()]), `unmasked` (records that a
#'   scheme promising change, a kernel, matrix or noise, left exactly as they
#'   were in the first replicate, by the rule of [apply_mask()]'s `unmasked`
#'   argument; values at the floor of floored noise are shared and not
#'   counted; NA for schemes that do not promise change, such as rounding,
#'   grouping or microaggregation; for a synthesis, the records of its copies
#'   equal to an original record, see [mask_synth()]) and the bootstrap
#'   columns; see [replicates()],
#'   [plot.ru_profile()], [recommend()]. Metadata (`attr(, "meta")`) holds
#'   `budget` and `context`.
#'
#' **Monte Carlo standard errors.** Over the R replicates of a scheme, with
#' \eqn{d_r} the replicate's deviation from the reference and \eqn{b_r} its
#' squared naive SE: `bias_se` = sd(d) / sqrt(R); `mse_se` and
#' `analysis_potential_raw_se` by the delta method on the means of
#' \eqn{(b_r, d_r)} (MSE = mean(b) + mean(d)^2, U = MSE(reference) / MSE),
#' with, in a simulation study, the reference's replicates on the same data
#' sets (paired) so that the reference's own sampling error enters;
#' `analysis_potential_se` is that SE scaled by the ratio of the reported U
#' to the raw one;
#' `risk_se` = sd / sqrt(k) over the k replicates whose risk was evaluated.
#' @references Cologne J, Grant EJ, Nakashima E, Chen Y, Funamoto S,
#'   Katayama H (2012). Protecting privacy of shared epidemiologic data
#'   without compromising analysis potential. \emph{Journal of Environmental
#'   and Public Health} 2012, 193680. \doi{10.1155/2012/193680}
#'
#'   Zhou Y, Dominici F, Louis TA (2010). A smoothing approach for masking
#'   spatial data. \emph{Annals of Applied Statistics} 4(3), 1451-1475.
#'   \doi{10.1214/09-AOAS325}
#' @family profiles
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 300, seed = 1)
#' schemes <- c(mask_sweep(mask_round, digits = 2:0, type = "decimal"),
#'              mask_sweep(mask_noise, amount = c(0.05, 0.2, 0.5)))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = "x",
#'                  risk = match_risk("x"), nrep = 5, seed = 1, progress = FALSE)
#' ru
#' summary(ru)
#' # a second criterion adds a column: the profile's risk stays the first
#' sim$x10 <- round(sim$x, 1)
#' ru2 <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = "x",
#'                   risk = list(match_risk("x"), linkage_risk("x")), nrep = 5, seed = 1,
#'                   progress = FALSE)
#' ru2[c("scheme", "risk", "risk_linkage_risk")]
#' # Zhou et al.'s kernel masks of a simulation study
#' sim <- simulate_zdl(1, n = 200, seed = 1)
#' coords <- cbind(sim$s1, sim$s2)
#' schemes <- mask_grid(c("ring", "exponential"), c(0.02, 0.1), coords,
#'                      source = c(0, 0))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = c("x", "y"),
#'                  term = "x", risk = match_risk("x", unknown = "y"), nrep = 5,
#'                  control = profile_control(simulate = zdl_simulator(sim), truth = 2),
#'                  seed = 1)
#' ru
#' # a Cox model (log hazard ratio of age), and a profile without a model
#' lung <- survival::lung[c("time", "status", "age", "sex", "ph.ecog")]
#' lung <- lung[stats::complete.cases(lung), ]
#' ru_profile(lung, mask_sweep(mask_noise, amount = c(0.2, 1)),
#'            Surv(time, status) ~ age + sex + ph.ecog, family = "cox", term = "age",
#'            vars = "age", risk = "none", nrep = 5, seed = 1, progress = FALSE)
#' ru_profile(lung, mask_sweep(mask_noise, amount = c(0.2, 1)), vars = "age",
#'            utility = "ks", risk = match_risk("age"), nrep = 5, seed = 1,
#'            progress = FALSE)
ru_profile <- function(data, schemes, formula, family = gaussian(), vars = NULL,
                       term = NULL, risk, nrep = 1, seed = NULL, context = NULL,
                       control = profile_control(), ...) {
  # a count table: its own loop (profile-table.R), the model a count_model()
  if (inherits(data, "epimask_table"))
    return(ru_profile_table(data, schemes, formula, risk = if (!missing(risk)) risk, nrep = nrep,
                            seed = seed, ...))
  # recorded with the profile, for release_report()
  recorded <- list(call = profile_call_text(match.call()),
                   data_name = if (is.symbol(substitute(data))) deparse(substitute(data)))
  dots <- list(...)
  control <- control_with_dots(control, dots[intersect(names(dots), names(formals(profile_control)))],
                               profile_control, "profile_control")
  risk_dots <- dots[setdiff(names(dots), names(formals(profile_control)))]
  simulate <- control$simulate
  truth <- control$truth
  parallel <- control$parallel
  progress <- control$progress
  bootstrap <- control$bootstrap
  aggregate <- control$aggregate
  risk_nrep <- control$risk_nrep
  utility <- control$utility
  id <- control$id
  derive <- control$derive
  data <- as_plain_data(check_data(data))
  schemes <- check_scheme_list(schemes)
  utility <- check_profile_utility(utility)
  if (missing(formula) || is.null(formula)) {
    # a profile on a model-free measure alone (utility-general.R)
    if (is.null(utility))
      abort_value("formula", "a model formula (or give `utility` for a profile without a model)")
    model <- list(type = "none", family = NULL, label = NA_character_, formula = NULL,
                  term = NULL, dose = NULL)
  } else {
    check_formula(formula)
    model <- resolve_model(family, term, formula)
  }
  id <- check_person_id(id, data)
  risk <- profile_risk(if (missing(risk)) NULL else risk, risk_dots, data, id,
                       missing = missing(risk))
  check_function(derive, allow_null = TRUE)
  # bounded before anything is allocated (one stored estimate per replicate
  # and scheme)
  nrep <- check_number(nrep, "nrep", lower = 1, upper = ru_max_replicates, integer = TRUE)
  bootstrap <- check_number(bootstrap, "bootstrap", lower = 0, upper = ru_max_replicates,
                            integer = TRUE)
  simulate <- check_user_function(simulate, "simulate", 1L, "a function(data) returning a data frame",
                                  allow_null = TRUE)
  truth <- check_number(truth, allow_null = TRUE)
  aggregate <- check_number(aggregate, allow_null = TRUE)
  seed <- check_number(seed, allow_null = TRUE, lower = -.Machine$integer.max,
                       upper = .Machine$integer.max)
  parallel <- check_flag(parallel)
  progress <- check_flag(progress)
  if (!is.null(context) && !inherits(context, "release_context"))
    abort_type("context", "a release_context() or NULL")
  risk_nrep <- check_number(risk_nrep, "risk_nrep", lower = 1, upper = ru_max_replicates,
                            integer = TRUE, allow_null = TRUE)
  if (model$type == "none" && bootstrap > 0)
    abort_value("bootstrap", "0 for a profile without a model (`formula` not given)")
  vars <- profile_vars(vars, data, model)
  if (parallel && !requireNamespace("future.apply", quietly = TRUE))
    abort_value("parallel", "FALSE unless the future.apply package is installed")

  job <- list(model = model, vars = vars, risk = risk, nrep = nrep,
              bootstrap = bootstrap, simulated = !is.null(simulate),
              risk_nrep = if (is.null(risk_nrep)) nrep else min(risk_nrep, nrep),
              derive = derive, id = id)
  job$term <- profile_term(model, derive_data(derive, data, "data"))
  job[c("seed", "call", "data_name")] <- list(seed, recorded$call, recorded$data_name)
  job$utility <- utility
  # said once the arguments are known to be good
  if (!length(vars)) abort_value("vars", "given: the model has no numeric covariate to mask")
  if (!is.null(attr(vars, "note"))) message(attr(vars, "note"))
  job$vars <- as.vector(vars)
  schemes <- with_reference_scheme(schemes)
  labels <- scheme_labels(schemes)
  streams <- rng_streams(length(schemes) + 1L, seed)
  job <- c(job, simulate_replicates(data, simulate, nrep, streams[[1L]], model, vars))

  warn_blind_risk(job$risk, schemes, labels, "profile")
  run_one <- function(i, tick) run_scheme(schemes[[i]], labels[[i]], job, streams[[i + 1L]], tick)
  steps <- vapply(schemes, scheme_steps, numeric(1), job = job)
  results <- map_schemes(length(schemes), run_one, parallel, progress, streams[-1L], steps)
  if (model$type == "none")
    return(assemble_utility_profile(results, labels, schemes, job, context))
  ru <- assemble_profile(results, labels, schemes, model, job, truth, aggregate, context)
  if (!is.null(utility)) ru <- add_profile_utility(ru, results, job)
  ru
}

# ---- arguments ----------------------------------------------------------------

# The call as text when it is short (arguments named or small, as typed at
# the console); NULL when it embeds data (do.call() with a data frame).
profile_call_text <- function(call) {
  if (utils::object.size(call) > 2e4) return(NULL)
  paste(deparse(call, width.cutoff = 80L), collapse = "\n")
}

# The most replicates (or bootstrap resamples) a profile takes.
ru_max_replicates <- 1e5

check_scheme_list <- function(schemes, arg = "schemes") {
  if (inherits(schemes, "mask_scheme")) schemes <- list(schemes)
  if (!is.list(schemes) || !length(schemes) ||
      !all(vapply(schemes, inherits, logical(1), what = "mask_scheme"))) {
    if (is.list(schemes) && !length(schemes)) abort_empty(arg)
    abort_type(arg, "a mask_scheme or a list of mask_scheme objects (e.g. from mask_grid())")
  }
  # a scheme edited after construction fails here as in apply_mask()
  for (i in seq_along(schemes)) revalidate_scheme(schemes[[i]], sprintf("%s[[%d]]", arg, i))
  unname(unclass(schemes))
}

# Default: the numeric model variables except the response, which a
# custodian masking covariates does not mean to change (masking a 0/1
# outcome makes the fits fail); said so in a message.
profile_vars <- function(vars, data, model) {
  if (!is.null(vars)) return(check_columns(vars, data))
  if (model$type == "none")
    return(names(data)[vapply(data, is.numeric, logical(1))])
  response <- if (length(model$formula) == 3L) all.vars(model$formula[[2L]]) else character()
  used <- unique(c(all.vars(model$formula[-2L]), model$dose))
  if (length(model$formula) == 2L) used <- unique(c(all.vars(model$formula), model$dose))
  used <- setdiff(intersect(used, names(data)), c(response, strata_variables(model$formula)))
  used <- used[vapply(used, function(v) is.numeric(data[[v]]), logical(1))]
  if (length(response) && length(used))
    attr(used, "note") <- sprintf(paste0(
      "Masking %s (`vars` not given); the response %s is not masked (give `vars` to choose)."),
      paste0("'", used, "'", collapse = ", "), paste0("'", response, "'", collapse = ", "))
  used
}

#' Options of ru_profile()
#'
#' The options of [ru_profile()] beyond the data, the schemes, the model and
#' the risk: the simulation study, resampling, the model-free utility, the
#' person column, the collaborator's derivation and how the profile runs.
#' Each may also be given by name in the `...` of [ru_profile()].
#'
#' @param simulate `NULL` or a function `function(data)` returning a new data
#'   set (e.g. from [zdl_simulator()]).
#' @param truth The true value of the quantity, when known.
#' @param parallel Run the schemes in parallel with \pkg{future.apply}.
#' @param progress Show a progress bar (\pkg{progressr}, when installed).
#' @param bootstrap Number of bootstrap resamples (0 for none, at most
#'   100,000).
#' @param aggregate Optional aggregated-data reference estimate (e.g.
#'   `zdl_aggregate(sim)$estimate`), kept with the profile and drawn as a
#'   reference line in the estimate plot.
#' @param risk_nrep `NULL` (the risk of a randomized scheme is evaluated on
#'   every replicate) or a number: evaluate it on the first `risk_nrep`
#'   replicates only, 1 to 100,000 (the profile's risk is their mean,
#'   `risk_se` its Monte Carlo SE). An exhaustive matching risk on 16,000
#'   records takes seconds per evaluation, so this bounds the cost of many
#'   noise replicates.
#' @param utility `NULL` or a model-free utility measure of
#'   [utility_general()], computed on the masked columns `vars` of every
#'   replicate against its unmasked data: `"pmse_ratio"` (pMSE over its null
#'   expectation), `"pmse"`, `"ks"` (the largest Kolmogorov-Smirnov distance),
#'   `"il1s"` or `"cor"` (the largest change of a correlation); lower is
#'   better for all. Beside a model it adds the columns `utility` (mean over
#'   the replicates) and `utility_se` (its Monte Carlo SE). Without
#'   `formula` (a custodian who does not know the collaborator's model) the
#'   profile rests on the measure alone: class `ru_utility_profile`, the model
#'   columns NA, `vars` by default every numeric column, `pareto` the
#'   frontier of low risk and low measure; its plot puts the measure on the x
#'   axis, labelled with the direction that is better.
#' @param id `NULL` or the name of the person column when a person has
#'   several records: passed to the risk criterion, which then counts
#'   persons (see [risk_kanon()]); exact-match [identifiability()] and a
#'   custom risk function ignore it.
#' @param derive `NULL` or a function `function(data)` returning the data
#'   frame the model is fitted to: the collaborator's derivation step (an age
#'   at diagnosis or a follow-up time from dates, one row per person, ...),
#'   applied to the original data and to every masked data set before the
#'   fit, so that the bias is that of the analysis on the derived quantities.
#'   The risk is measured on the masked data as released (not derived). With
#'   `derive`, give `vars` (the columns masked, e.g. the dates).
#' @return An object of class `profile_control`.
#' @family profiles
#' @examples
#' profile_control(progress = FALSE, bootstrap = 200)
#' @export
profile_control <- function(simulate = NULL, truth = NULL, parallel = FALSE,
                            progress = interactive(), bootstrap = 0, aggregate = NULL,
                            risk_nrep = NULL, utility = NULL, id = NULL, derive = NULL) {
  structure(list(simulate = simulate, truth = truth, parallel = parallel, progress = progress,
                 bootstrap = bootstrap, aggregate = aggregate, risk_nrep = risk_nrep,
                 utility = utility, id = id, derive = derive),
            class = "profile_control")
}

#' @export
format.profile_control <- function(x, ...) {
  shown <- Filter(Negate(is.null), unclass(x))
  c("<profile options>",
    sprintf("  %s: %s", names(shown), vapply(shown, function(v)
      if (is.function(v)) "<function>" else format(v)[[1L]], "")))
}

#' @export
print.profile_control <- function(x, ...) print_formatted(x, ...)

# The profile's risk as a list of criteria (empty: no risk). The shorthand of
# epimask 0.3, a name with `known` / `unknown` / the measure's arguments in
# `...`, becomes the criterion of risk_spec() (deprecated, with its warning);
# a user function becomes a criterion; the columns a criterion names are
# checked against the data now, not per scheme.
profile_risk <- function(risk, dots, data, id, missing = FALSE) {
  if (missing && is.null(dots[["known"]]))
    epimask_abort(paste0("`risk` must be given: a risk criterion (match_risk(known), ",
                         "identifiability(known), k_anonymity(k, keys = ), ...), or NULL for none ",
                         "(the default of epimask 0.3, risk = \"match\", needed `known`)."),
                  "epimask_error_value", arg = "risk")
  if (missing) risk <- shorthand_default
  if (is.character(risk)) {
    risk <- shorthand_risk(risk[[1L]], dots)
  } else if (length(dots)) {
    # a criterion (or function) carries its own columns and arguments: the
    # shorthand beside it would be silently ignored
    given <- names(dots)[[1L]]
    epimask_abort(sprintf(
      "`%s` goes inside the risk measure when `risk` is a criterion or a function, e.g. match_risk(%s = ...).",
      given, given), "epimask_error_value", arg = given)
  }
  criteria <- if (is.list(risk) && !is_risk_criterion(risk)) risk else list(risk)
  criteria <- Filter(Negate(is.null), lapply(criteria, as_profile_criterion))
  prepare_criteria(criteria, data, id = id, arg = "risk")
}

# The collaborator's derivation step (intervals from dates, one row per
# person, ...) applied to an original or masked data set before a fit.
derive_data <- function(derive, data, what = "a masked data set") {
  if (is.null(derive)) return(data)
  out <- derive(data)
  if (!is.data.frame(out) || !nrow(out))
    epimask_abort(sprintf("`derive` must return a data frame with at least one row (for %s); it returned %s.",
                          what, if (is.data.frame(out)) "no rows" else class(out)[[1L]]),
                  "epimask_error_type", arg = "derive")
  as_plain_data(out)
}

# The coefficient the profile follows, checked on a fit to the original data
# so a wrong name fails before any masking.
profile_term <- function(model, data) {
  if (model$type == "none") return(NA_character_)
  fit <- with_classed_errors(
    if (is.function(model$term) || model$type != "glm") fit_model(model, data)
    else fit_formula(model, data),
    function(e) model_frame_error(e, model$formula, data))
  if (is.function(model$term)) {
    term_function_value(model$term, fit, data)
    return("custom")
  }
  resolve_terms(model, fit, data, multiple = FALSE)
}

with_reference_scheme <- function(schemes) {
  if (any(vapply(schemes, function(s) scheme_traits(s)$reference, logical(1)))) return(schemes)
  c(list(mask_none()), schemes)
}

scheme_labels <- function(schemes) {
  make.unique(vapply(schemes, format, character(1)), sep = " #")
}

# ---- replicates -----------------------------------------------------------------

# The unmasked data sets: `data` itself, or nrep draws of simulate(data) made
# once (stream 1) and shared by every scheme. `varying` are the model, masked
# and risk columns that change between draws, `vary` their n x nrep matrices.
simulate_replicates <- function(data, simulate, nrep, stream, model, vars) {
  if (is.null(simulate))
    return(list(sims = list(data), varying = character(0), vary = list()))
  sims <- with_rng_stream(stream, lapply(seq_len(nrep), function(r)
    call_user(simulate, list(data), "simulate", "simulate(data)")))
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
      profile_mask(unmasked_replicate(job, r), scheme, job$vars)))
  }
  first <- profile_mask(job$sims[[1L]], scheme, job$vars)
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

# The risk of each replicate, NA where it is not evaluated: once for a
# deterministic scheme (and on the first simulated data set in a simulation
# study), on the first `risk_nrep` replicates of a randomized scheme (all by
# default), so the profile's risk is their mean with a Monte Carlo SE.
# With several criteria the first is the profile's risk; the others are
# returned as attribute "extra" (a replicates x criteria matrix), and the
# unit the first counted (records, persons) as attribute "unit".
scheme_risk <- function(scheme, job, masked, tick = NULL) {
  R <- length(masked)
  out <- rep(NA_real_, R)
  if (is_no_risk(job$risk)) return(out)
  extra <- matrix(NA_real_, R, length(job$risk) - 1L)
  evals <- if (job$simulated || !is_random_scheme(scheme)) 1L else min(R, job$risk_nrep)
  unit <- NULL
  for (r in seq_len(evals)) {
    res <- lapply(job$risk, run_criterion, release = masked[[r]], original = job$sims[[1L]],
                  id = job$id)
    if (r == 1L) warn_not_applicable(res[[1L]], masked[[r]], sprintf("'%s'", format(scheme)))
    out[[r]] <- res[[1L]]$value
    unit <- res[[1L]]$unit
    if (ncol(extra)) extra[r, ] <- vapply(res[-1L], `[[`, 0, "value")
    if (!is.null(tick)) tick()
  }
  structure(out, extra = if (ncol(extra)) extra, unit = unit)
}

risk_evaluations <- function(scheme, job) {
  if (is_no_risk(job$risk)) return(0L)
  if (job$simulated || !is_random_scheme(scheme)) 1L
  else min(replicate_count(scheme, job), job$risk_nrep)
}

# Progress steps of a scheme: one per replicate fit, risk evaluation and
# bootstrap resample.
scheme_steps <- function(scheme, job) {
  replicate_count(scheme, job) + risk_evaluations(scheme, job) + job$bootstrap
}

# Records left exactly as they were by a scheme that promises change (first
# replicate): isolated records under a kernel, noise below the precision of
# large values, identity rows of a matrix (mask-validate.R, the same rule as
# apply_mask()'s warning). NA for schemes that do not promise change
# (rounding, grouping, microaggregation, ...), which leave some values as
# they were by design.
count_unmasked <- function(scheme, job, masked) {
  # a synthetic release: its records equal to an original record (all copies)
  if (is_synthetic(masked)) return(as.double(sum(synthetic_info(masked)$original_records)))
  orig <- job$sims[[1L]]
  vars <- job$vars[vapply(job$vars, function(v) is.numeric(orig[[v]]), logical(1))]
  if (!scheme_promises_change(scheme) || !length(vars)) return(NA_real_)
  Z <- extract_vars(orig, vars)
  Zm <- extract_vars(masked, vars)
  as.double(length(unmasked_records(scheme, Z, Zm)))
}

# apply_mask() inside a profile: records left unmasked are counted in the
# profile's `unmasked` column instead of a warning per replicate.
profile_mask <- function(data, scheme, vars) {
  withCallingHandlers(apply_mask(data, scheme, vars),
                      epimask_warning_unmasked = function(w) invokeRestart("muffleWarning"),
                      epimask_warning_synth_original = function(w) invokeRestart("muffleWarning"))
}

# A risk measure that cannot see a masking form (exact-match identifiability
# of noise, kernels, matrix masks) would call those schemes safe: warn.
warn_blind_risk <- function(risk, schemes, labels, where) {
  blind <- blind_schemes_of(risk, schemes, labels)
  if (!length(blind)) return(invisible(character()))
  epimask_warn(blind_risk_message(blind, where, format(risk[[1L]])), "epimask_warning_blind_risk")
  invisible(blind)
}

# The schemes the profile's risk (its first criterion) cannot see.
blind_schemes_of <- function(risk, schemes, labels) {
  if (is_no_risk(risk)) return(character())
  labels[vapply(schemes, function(s) isTRUE(criterion_blind_to(risk[[1L]], s)), logical(1))]
}

blind_risk_message <- function(blind, where, measure = "exact-match identifiability") {
  sprintf(paste0(
    "The %s rests on %s (exact matching), which cannot see %s: noise, kernels ",
    "and matrix masks change values without creating ties, so their risk is near 0 by ",
    "construction, not because they are safe. Use a risk that sees them: ",
    "match_risk() (risk_match()), linkage_risk() (risk_linkage()) or another criterion."),
    where, measure, paste0("'", blind, "'", collapse = ", "))
}

# No criterion: the profile has no risk.
is_no_risk <- function(risk) !length(risk)

# ---- bootstrap ------------------------------------------------------------------------

bootstrap_scheme <- function(scheme, job, tick = NULL) {
  data <- job$sims[[1L]]
  n <- nrow(data)
  vapply(seq_len(job$bootstrap), function(b) {
    idx <- sample.int(n, n, replace = TRUE)
    masked <- profile_mask(data[idx, , drop = FALSE], resample_scheme(scheme, idx), job$vars)
    if (!is.null(tick)) tick()
    replicate_estimate(job, masked)[[1L]]
  }, numeric(1))
}

# The scheme for resampled records (the type's mask_resample() method):
# kernel coordinates (and groups) follow their records; value-wise schemes
# need nothing.
resample_scheme <- function(scheme, idx) mask_resample(scheme, idx)

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

run_scheme <- function(scheme, label, job, stream, tick = NULL) {
  with_rng_stream(stream, {
    R <- replicate_count(scheme, job)
    est <- NULL
    failure <- NULL
    if (use_sufficient_statistics(scheme, job, R)) {
      est <- estimate_by_sufficient_statistics(scheme, job)
      if (!is.null(est)) {
        if (!is.null(tick)) tick(amount = R)
        first_risk <- scheme_risk(scheme, job, list(est$first), tick)
        risk <- structure(c(first_risk, rep(NA_real_, R - 1L)), unit = attr(first_risk, "unit"),
                          extra = if (!is.null(attr(first_risk, "extra")))
                            rbind(attr(first_risk, "extra"),
                                  matrix(NA_real_, R - 1L, ncol(attr(first_risk, "extra")))))
        util <- scheme_utility(job, list(est$first), R)
        unmasked <- count_unmasked(scheme, job, est$first)
      }
    }
    if (is.null(est)) {
      masked <- mask_replicates(scheme, job, R)
      est <- if (job$model$type == "none") list(estimate = rep(NA_real_, R), se = rep(NA_real_, R))
             else estimate_replicates(scheme, job, masked, tick)
      risk <- scheme_risk(scheme, job, masked, tick)
      util <- scheme_utility(job, masked, R)
      unmasked <- count_unmasked(scheme, job, masked[[1L]])
      failed <- if (job$model$type == "none") integer() else
        which(!is.finite(est$estimate) | !is.finite(est$se))
      if (length(failed)) failure <- diagnose_failure(job, masked[[failed[[1L]]]], est$error)
    }
    boot <- if (job$bootstrap > 0L) bootstrap_scheme(scheme, job, tick)
    reps <- data.frame(scheme = label, replicate = seq_len(R),
                       estimate = est$estimate, se = est$se, risk = risk,
                       degree = scheme$degree, scheme_profile_columns(scheme),
                       label = scheme_label(scheme),
                       generator = scheme_generator(scheme),
                       strength = scheme_strength(scheme),
                       unmasked = c(unmasked, rep(NA_real_, R - 1L)),
                       stringsAsFactors = FALSE)
    if (job$model$type != "none")
      reps <- cbind(reps, est$records %||% all_records_used(if (!is.null(est$first))
        rep(list(est$first), R) else masked))
    if (!is.null(util)) reps$utility <- util
    extra <- attr(risk, "extra")
    if (!is.null(extra)) {
      names_extra <- extra_risk_columns(job$risk)
      for (j in seq_along(names_extra)) reps[[names_extra[[j]]]] <- extra[, j]
    }
    list(replicates = reps, bootstrap = boot, failure = failure, risk_unit = attr(risk, "unit"))
  })
}

# Why the model could not be fitted to a masked data set: a masked variable
# that became constant (or lost its spread), non-finite values, or the
# fitter's own message naming the variable when it does.
diagnose_failure <- function(job, masked, error = NULL) {
  reasons <- character()
  for (v in job$vars) {
    x <- masked[[v]]
    if (!is.numeric(x)) next
    if (any(!is.finite(x))) {
      reasons <- c(reasons, sprintf("'%s' has non-finite values after masking", v))
    } else if (length(unique(x)) == 1L) {
      reasons <- c(reasons, sprintf("'%s' is constant after masking (all %s)", v, format(x[[1L]])))
    } else if (identical(job$model$family$family, "binomial") &&
               v %in% all.vars(job$model$formula[[2L]]) && any(x != 0 & x != 1)) {
      reasons <- c(reasons, sprintf("the binomial response '%s' is no longer 0/1 after masking", v))
    } else if (v %in% c(job$model$dose) && any(x < 0)) {
      reasons <- c(reasons, sprintf("the dose '%s' has negative values after masking", v))
    }
  }
  if (!length(reasons) && !is.null(error)) reasons <- error
  if (!length(reasons)) reasons <- "the fit did not converge"
  paste(reasons, collapse = "; ")
}

map_schemes <- function(k, run_one, parallel, progress, streams, steps = rep(1, k)) {
  sweep <- function(tick) {
    task <- function(i) run_one(i, tick)
    if (parallel) map_schemes_future(k, task, streams)
    else lapply(seq_len(k), task)
  }
  if (progress && requireNamespace("progressr", quietly = TRUE)) {
    return(progressr::with_progress({
      tick <- progressr::progressor(steps = sum(steps))
      sweep(tick)
    }, handlers = progress_handlers(), enable = TRUE))
  }
  sweep(NULL)
}

# The schemes on the current future::plan(). A worker that fails (a job
# lost, killed or out of memory: a FutureError) fails the whole profile with
# an error of class epimask_error_worker, never a partial profile; an error
# the scheme itself raises is re-signalled as the serial run would.
map_schemes_future <- function(k, task, streams) {
  tryCatch(
    future.apply::future_lapply(seq_len(k), task, future.seed = streams),
    FutureError = function(e) epimask_abort(sprintf(paste0(
      "A parallel worker failed, so ru_profile() returns nothing (a partial ",
      "profile would leave schemes out unnoticed): %s"), conditionMessage(e)),
      "epimask_error_worker", arg = "parallel"))
}

# The handlers the user registered with progressr::handlers(), else a bar
# with an estimate of the time left (the progress package's) or a text bar;
# enabled in scripts too, since progress = TRUE asked for it.
progress_handlers <- function() {
  user <- getOption("progressr.handlers")
  if (length(user)) return(user)
  if (requireNamespace("progress", quietly = TRUE))
    return(list(progressr::handler_progress(
      format = "ru_profile [:bar] :current/:total :percent ETA :eta", clear = FALSE,
      enable = TRUE)))
  list(progressr::handler_txtprogressbar(enable = TRUE))
}

# ---- the profile object ---------------------------------------------------------------

assemble_profile <- function(results, labels, schemes, model, job, truth, aggregate,
                             context = NULL) {
  reps <- do.call(rbind, lapply(results, `[[`, "replicates"))
  failures <- stats::setNames(lapply(results, `[[`, "failure"), labels)
  reps <- drop_failed_replicates(reps, failures)
  none <- labels[vapply(schemes, function(s) scheme_traits(s)$reference, logical(1))][[1L]]
  ref_reps <- reps[reps$scheme == none, , drop = FALSE]
  if (!nrow(ref_reps))
    epimask_abort(sprintf("The model could not be fitted to the unmasked data%s.",
                          if (is.null(failures[[none]])) "" else paste0(": ", failures[[none]])),
                  "epimask_error_singular", arg = "data")
  unmasked <- mean(ref_reps$estimate)
  beta <- if (is.null(truth)) unmasked else truth
  reference <- list(truth = beta, se = mean(ref_reps$se),
                    mse = mean(ref_reps$se^2) + (unmasked - beta)^2,
                    type = if (is.null(truth)) "original" else "truth",
                    scheme = none, paired = job$simulated)
  table <- summarise_replicates(reps, reference)
  table <- add_extra_risks(table, reps, job)
  if (job$bootstrap > 0L) table <- add_bootstrap_columns(table, results, labels, reps)
  blind <- blind_schemes_of(job$risk, schemes, labels)
  meta <- list(term = if (is.function(model$term)) "custom" else job$term,
               family = if (model$type == "glm") model$family else model$label,
               risk = profile_risk_label(job$risk), aggregate = aggregate,
               budget = if (!is.null(context)) context$threshold, context = context,
               blind = blind, vars = job$vars,
               risk_nrep = if (job$risk_nrep < job$nrep) job$risk_nrep,
               seed = job$seed, call = job$call, data_name = job$data_name,
               risk_id = profile_risk_id(results, job),
               risk_spec = if (!is_no_risk(job$risk)) job$risk[[1L]],
               risk_criteria = job$risk)
  new_ru_profile(table, reps, reference, meta)
}

drop_failed_replicates <- function(reps, failures = list()) {
  ok <- is.finite(reps$estimate) & is.finite(reps$se)
  if (all(ok)) return(reps)
  lost <- unique(reps$scheme[!ok])
  gone <- setdiff(lost, reps$scheme[ok])
  why <- vapply(lost, function(l) {
    f <- failures[[l]]
    if (is.null(f)) sprintf("'%s'", l) else sprintf("'%s': %s", l, f)
  }, character(1))
  epimask_warn(sprintf("The model could not be fitted to %d masked data set%s (%s)%s.",
                       sum(!ok), if (sum(!ok) == 1L) "" else "s",
                       paste(why, collapse = "; "),
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

# ---- the profile's criteria ----------------------------------------------------

# The columns of the criteria after the first (the profile's `risk`).
extra_risk_columns <- function(risk) {
  if (length(risk) < 2L) return(character())
  make.unique(paste0("risk_", vapply(risk[-1L], `[[`, "", "name")), sep = "_")
}

# The profile's risk in the print and the plots: the name it was asked by
# (a risk_spec() name of epimask 0.3), else its label; NA without a risk.
profile_risk_label <- function(risk) {
  if (is_no_risk(risk)) return(NA_character_)
  if (!is.null(risk[[1L]]$spec)) return(risk[[1L]]$spec)
  format(risk[[1L]])
}

# The person column the profile's risk counted by (NULL when it counted
# records: no person column, or a measure of records such as exact matching).
profile_risk_id <- function(results, job) {
  units <- unlist(lapply(results, `[[`, "risk_unit"))
  if (is_no_risk(job$risk) || !length(units) || units[[1L]] != "persons") return(NULL)
  job$risk[[1L]]$id %||% job$id
}

# The mean of each further criterion over the replicates where it was
# evaluated, one column per criterion.
add_extra_risks <- function(table, reps, job) {
  for (col in extra_risk_columns(job$risk)) {
    v <- tapply(reps[[col]], reps$scheme, function(x) if (all(is.na(x))) NA_real_
                else mean(x, na.rm = TRUE))
    table[[col]] <- as.vector(v[table$scheme])
  }
  table
}
