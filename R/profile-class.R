# The risk-utility profile object: what ru_profile() returns and what plot(),
# autoplot(), fit_ru_curve() and recommend() consume. ru_profile() only has to
# collect the per-replicate estimates, naive SEs and risks; everything else
# (the utility summary of methods vignette section 3, printing, subsetting) lives here.

# Columns every profile table carries, in this order (the value documented in
# ?ru_profile), followed by the extras the plots and the summary need.
ru_profile_columns <- c("scheme", "degree", "estimate", "se", "sd", "bias",
                        "rel_bias", "mse", "analysis_potential", "risk",
                        "anonymity", "width_ratio")
ru_profile_extra_columns <- c("mask_family", "label", "nrep", "ci_lower", "ci_upper",
                              "ci_overlap", "bias_se", "mse_se",
                              "analysis_potential_se", "risk_se",
                              "analysis_potential_raw", "analysis_potential_raw_se", "pareto",
                              "generator", "strength", "bandwidth", "report_label",
                              "unmasked", "records_used",
                              "records_lost", "records_lost_interval")

# Two-sided 95% normal quantile used for every naive interval.
ru_z <- function() stats::qnorm(0.975)

#' Summarise per-replicate estimates into a risk-utility table
#'
#' Internal. Implements the methods vignette, section 3, for every scheme: with beta the
#' reference (original estimate or truth) and beta_m,r the estimates of the R
#' replicates of a scheme, bias = mean(beta_m) - beta, relative bias =
#' 100 |bias| / |beta| (NA when beta = 0), MSE = mean(SE_r^2) + bias^2,
#' analysis potential U = MSE(beta) / MSE(beta_m) with MSE(beta) =
#' `reference$mse` (default `reference$se^2`), empirical SD of beta_m,r (NA
#' for one replicate), width ratio = naive 95% CI width 2 z mean(SE_r) over the
#' empirical 2.5%-97.5% range of beta_m,r (NA for one replicate or a zero
#' range), and the CI overlap of Karr et al. (2006): the intersection of the
#' original and masked 95% CIs averaged over both lengths,
#' `(|I| / |CI_orig| + |I| / |CI_mask|) / 2`, 0 when they are disjoint.
#'
#' @param replicates data.frame with columns `scheme`, `replicate`,
#'   `estimate`, `se` and optionally `risk`, `degree`, `kernel` (the last two
#'   constant within a scheme). Schemes keep their order of first appearance.
#'   `risk` must be a probability in \[0, 1\] (anonymity = 1 - risk): for the
#'   matching risk of methods vignette, section 5 that is the expected match risk divided by n
#'   (the expected proportion of correct matches), not the count.
#' @param reference list with `truth` (beta), `se` (its SE, may be NA),
#'   optionally `mse` (MSE(beta), default `se^2`) and `type`.
#' @return data.frame, one row per scheme.
#' @noRd
summarise_replicates <- function(replicates, reference) {
  replicates <- check_replicates(replicates)
  reference <- check_ru_reference(reference)
  schemes <- unique(replicates$scheme)
  ref_reps <- if (!is.na(reference$scheme))
    replicates[replicates$scheme == reference$scheme, , drop = FALSE]
  rows <- lapply(schemes, function(s) {
    summarise_scheme(replicates[replicates$scheme == s, , drop = FALSE],
                     reference, ref_reps)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out <- report_capped_potential(out, reference)
  out$pareto <- ru_pareto(out$risk, out$analysis_potential, out$risk_se,
                          out$analysis_potential_se)
  out
}

# One U everywhere (the number printed, summarised, recommended, reported and
# plotted): `analysis_potential` is the capped analysis potential
# (capped_potential(): the masked variance floored at the reference's, bias
# counted in full) and `analysis_potential_se` its Monte Carlo SE; the raw
# ratio MSE(reference) / MSE(masked) of Cologne et al. (2012), which a naive
# SE shrunk by masking can push above 1 while the bias grows, is kept as
# `analysis_potential_raw` (SE `analysis_potential_raw_se`).
report_capped_potential <- function(tab, reference) {
  raw <- tab$analysis_potential
  raw_se <- tab$analysis_potential_se %||% rep(NA_real_, nrow(tab))
  capped <- capped_potential(tab$mse, tab$bias, reference$mse, reference$se)
  tab$analysis_potential <- capped
  tab$analysis_potential_se <- capped_potential_se(raw_se, raw, capped)
  tab$analysis_potential_raw <- raw
  tab$analysis_potential_raw_se <- raw_se
  tab
}

# A table written before U was reported capped (column
# `analysis_potential_capped` beside the raw `analysis_potential`) in the
# layout of report_capped_potential().
upgrade_capped_columns <- function(tab) {
  if (is.null(tab$analysis_potential_capped) || !is.null(tab$analysis_potential_raw))
    return(tab)
  raw <- tab$analysis_potential
  raw_se <- tab$analysis_potential_se %||% rep(NA_real_, nrow(tab))
  capped <- as.double(tab$analysis_potential_capped)
  tab$analysis_potential <- capped
  tab$analysis_potential_se <- capped_potential_se(raw_se, raw, capped)
  tab$analysis_potential_raw <- raw
  tab$analysis_potential_raw_se <- raw_se
  tab$analysis_potential_capped <- NULL
  tab
}

# The reported U of a profile and its SE, also for a profile saved before U
# was reported capped; `capped` says whether U is the capped one.
ru_u <- function(x) {
  se_of <- function(v) if (is.null(v)) rep(NA_real_, nrow(x)) else as.double(v)
  if (is.null(x$analysis_potential_raw) && !is.null(x$analysis_potential_capped) &&
      any(is.finite(x$analysis_potential_capped))) {
    capped <- as.double(x$analysis_potential_capped)
    return(list(u = capped, se = capped_potential_se(se_of(x$analysis_potential_se),
                                                     x$analysis_potential, capped),
                capped = TRUE))
  }
  list(u = as.double(x$analysis_potential), se = se_of(x$analysis_potential_se),
       capped = !is.null(x$analysis_potential_raw))
}

summarise_scheme <- function(rep, reference, ref_reps = NULL) {
  z <- ru_z()
  beta <- reference$truth
  est <- rep$estimate
  se <- rep$se
  nrep <- length(est)
  mean_est <- mean(est)
  mean_se <- mean(se)
  bias <- mean_est - beta
  mse <- mean(se^2) + bias^2
  sd_emp <- if (nrep > 1L) stats::sd(est) else NA_real_
  width_ratio <- NA_real_
  if (nrep > 1L) {
    range_emp <- diff(stats::quantile(est, c(0.025, 0.975), names = FALSE))
    if (range_emp > 0) width_ratio <- 2 * z * mean_se / range_emp
  }
  # Risk: the mean over the replicates where it was evaluated (NA elsewhere).
  risks <- if (is.null(rep$risk)) numeric(0) else rep$risk[!is.na(rep$risk)]
  risk <- if (length(risks)) mean(risks) else NA_real_
  risk_se <- if (length(risks) >= 2L) stats::sd(risks) / sqrt(length(risks)) else NA_real_
  u <- if (mse > 0) reference$mse / mse else NA_real_
  mc <- monte_carlo_se(rep, reference, ref_reps, bias, mse, u)
  ci_lower <- mean_est - z * mean_se
  ci_upper <- mean_est + z * mean_se
  first_of <- function(col, na) if (is.null(rep[[col]])) na else rep[[col]][[1L]]
  unmasked <- if (is.null(rep$unmasked) || all(is.na(rep$unmasked))) NA_real_
              else mean(rep$unmasked, na.rm = TRUE)
  # the records the fits used and lost (mean over replicates), NA when the
  # replicates do not say
  mean_of <- function(col) if (is.null(rep[[col]]) || all(is.na(rep[[col]]))) NA_real_
                           else mean(rep[[col]], na.rm = TRUE)
  data.frame(
    scheme = as.character(rep$scheme[[1L]]),
    degree = as.double(first_of("degree", NA_real_)),
    estimate = mean_est,
    se = mean_se,
    sd = sd_emp,
    bias = bias,
    rel_bias = if (beta != 0) 100 * abs(bias) / abs(beta) else NA_real_,
    mse = mse,
    analysis_potential = u,
    risk = risk,
    anonymity = 1 - risk,
    width_ratio = width_ratio,
    mask_family = as.character(first_of("mask_family", NA_character_)),
    label = as.character(first_of("label", NA_character_)),
    nrep = nrep,
    ci_lower = ci_lower,
    ci_upper = ci_upper,
    ci_overlap = ci_overlap(beta - z * reference$se, beta + z * reference$se,
                            ci_lower, ci_upper),
    bias_se = mc[["bias_se"]],
    mse_se = mc[["mse_se"]],
    analysis_potential_se = mc[["analysis_potential_se"]],
    risk_se = risk_se,
    generator = as.character(first_of("generator", NA_character_)),
    strength = as.double(first_of("strength", NA_real_)),
    bandwidth = as.logical(first_of("bandwidth", FALSE)),
    report_label = as.character(first_of("report_label", NA_character_)),
    unmasked = unmasked,
    records_used = mean_of("records_used"),
    records_lost = mean_of("records_lost"),
    records_lost_interval = mean_of("records_lost_interval"),
    stringsAsFactors = FALSE
  )
}

# Monte Carlo standard errors of bias, MSE and U over the R replicates of a
# scheme (NA for fewer than two). With d_r the replicate's deviation from the
# reference and b_r = SE_r^2, bias = mean(d), MSE = mean(b) + mean(d)^2 and
# U = A / MSE, A = MSE of the reference. The delta method on these means:
#   Var(bias) = Var(d) / R
#   Var(MSE)  = g' Cov(b, d) g / R,           g = (1, 2 bias)
#   Var(U)    = h' Cov(a, e, b, d) h / R,     h = (1/B, 2 e_bar/B, -A/B^2, -2 bias A/B^2)
# where, when the replicates are paired with the reference's (simulated data
# sets shared by every scheme), a_r = the reference's SE_r^2 and e_r its
# deviation from beta, so the reference's own sampling error enters (and the
# reference row gets SE 0); d_r is then est_r minus the reference estimate of
# the same data set when beta is the mean reference estimate. Unpaired (one
# fixed data set), A is a constant and only (b, d) vary.
monte_carlo_se <- function(rep, reference, ref_reps, bias, mse, u) {
  out <- c(bias_se = NA_real_, mse_se = NA_real_, analysis_potential_se = NA_real_)
  paired <- isTRUE(reference$paired) && !is.null(ref_reps) && nrow(ref_reps) >= 2L
  if (paired) {
    common <- intersect(rep$replicate, ref_reps$replicate)
    rep <- rep[match(common, rep$replicate), , drop = FALSE]
    ref <- ref_reps[match(common, ref_reps$replicate), , drop = FALSE]
  }
  R <- nrow(rep)
  if (R < 2L) return(out)
  b <- rep$se^2
  if (paired) {
    a <- ref$se^2
    e <- ref$estimate - reference$truth
    d <- if (reference$type == "truth") rep$estimate - reference$truth
         else rep$estimate - ref$estimate
    if (reference$type != "truth") e <- e - mean(e)   # beta is the mean reference estimate
  } else {
    d <- rep$estimate - reference$truth
  }
  out[["bias_se"]] <- stats::sd(d) / sqrt(R)
  g <- c(1, 2 * bias)
  out[["mse_se"]] <- sqrt(max(0, drop(t(g) %*% stats::cov(cbind(b, d)) %*% g)) / R)
  if (!is.na(u)) {
    A <- reference$mse
    B <- mse
    if (paired) {
      h <- c(1 / B, 2 * mean(e) / B, -A / B^2, -2 * bias * A / B^2)
      V <- stats::cov(cbind(a, e, b, d))
    } else {
      h <- c(-A / B^2, -2 * bias * A / B^2)
      V <- stats::cov(cbind(b, d))
    }
    out[["analysis_potential_se"]] <- sqrt(max(0, drop(t(h) %*% V %*% h)) / R)
  }
  out
}

# The risk-utility frontier: scheme i is on it unless another scheme j
# dominates it: j is at least as good on both and better on one beyond the
# uncertainty.
#   - "At least as good" is on the point estimates: risk_j <= risk_i and
#     U_j >= U_i - u_tolerance. A Monte Carlo tie never condemns: a scheme
#     with risk 3e-5 is not dominated by one with risk 2e-3 and a higher U,
#     however noisy that risk, nor one with U 0.67 by one with U 0.42 and a
#     lower risk, however noisy those U. Only a loss of U below
#     `u_tolerance` (recommend()'s default 0.01: not one a custodian can
#     measure) counts as "as good", so that, as in recommend(), U ties go
#     to the lower risk.
#   - "Beyond the uncertainty": risk_j < risk_i - tie_r or U_j > U_i +
#     max(tie_u, u_tolerance), tie = z sqrt(se_i^2 + se_j^2) + 1e-9, SEs
#     that are NA counting as 0.
# `u` is the capped analysis potential (capped_potential()) and `u_se` its SE
# (capped_potential_se()), so U above 1 counts as no measurable loss. NA
# where risk or U is NA.
ru_pareto <- function(risk, u, risk_se = NULL, u_se = NULL, u_tolerance = 0.01, z = ru_z()) {
  n <- length(risk)
  if (is.null(risk_se)) risk_se <- rep(NA_real_, n)
  if (is.null(u_se)) u_se <- rep(NA_real_, n)
  risk_se[is.na(risk_se)] <- 0
  u_se[is.na(u_se)] <- 0
  u <- pmin(u, 1)
  known <- !is.na(risk) & !is.na(u)
  out <- rep(NA, n)
  for (i in which(known)) {
    dominated <- FALSE
    for (j in which(known)) {
      if (j == i) next
      tie_r <- z * sqrt(risk_se[i]^2 + risk_se[j]^2) + 1e-9
      tie_u <- max(z * sqrt(u_se[i]^2 + u_se[j]^2) + 1e-9, u_tolerance)
      if (risk[j] > risk[i] || u[j] < u[i] - u_tolerance) next
      if (risk[j] < risk[i] - tie_r || u[j] > u[i] + tie_u) {
        dominated <- TRUE
        break
      }
    }
    out[i] <- !dominated
  }
  out
}

# The Monte Carlo SE of the capped analysis potential, taken as the SE of U
# scaled by capped / U (the same relative uncertainty as U). Where the cap
# does not bite (capped = U) it is the SE of U itself. Used by the frontier,
# recommend() and the plots' intervals alike.
capped_potential_se <- function(u_se, u, capped) {
  out <- u_se * ifelse(is.finite(u) & u > 0, capped / u, NA_real_)
  out[is.na(u_se)] <- NA_real_
  out
}

# The capped analysis potential: U with the masked fit's variance part
# (MSE - bias^2, the mean squared naive SE) floored at the reference's,
# since masking cannot add information. U above 1 comes from a naive SE that
# shrank under masking (noise or coarse rounding spread a dose), which can
# hide a large bias; the capped U is at most 1 and counts that bias in full:
#   U_capped = MSE_ref / (max(MSE - bias^2, SE_ref^2) + bias^2).
# It equals U wherever the naive SE did not shrink below the reference's.
capped_potential <- function(mse, bias, ref_mse, ref_se) {
  var_part <- pmax(mse - bias^2, 0)
  floor_var <- if (is.na(ref_se)) 0 else ref_se^2
  out <- ref_mse / (pmax(var_part, floor_var) + bias^2)
  out[!is.finite(out)] <- NA_real_
  pmin(out, 1)
}

# Karr et al. (2006) average interval overlap; 1 for identical intervals, 0 for
# disjoint ones, NA when either interval is unknown or degenerate.
ci_overlap <- function(lower_orig, upper_orig, lower_mask, upper_mask) {
  len_orig <- upper_orig - lower_orig
  len_mask <- upper_mask - lower_mask
  if (anyNA(c(len_orig, len_mask)) || len_orig <= 0 || len_mask <= 0)
    return(NA_real_)
  inter <- max(0, min(upper_orig, upper_mask) - max(lower_orig, lower_mask))
  (inter / len_orig + inter / len_mask) / 2
}

check_replicates <- function(replicates, arg = "replicates") {
  if (!is.data.frame(replicates)) abort_type(arg, "a data frame")
  if (nrow(replicates) == 0L) abort_empty(arg)
  check_columns(c("scheme", "replicate", "estimate", "se"), replicates,
                arg = "required columns", data_arg = arg)
  replicates <- as.data.frame(replicates, stringsAsFactors = FALSE)
  replicates <- rename_kernel_column(replicates)
  replicates$scheme <- as.character(replicates$scheme)
  if (anyNA(replicates$scheme)) abort_value(sprintf("%s$scheme", arg), "free of NA")
  for (col in intersect(c("estimate", "se", "risk", "degree"), names(replicates))) {
    check_numeric_vector(replicates[[col]], sprintf("%s$%s", arg, col),
                         finite = FALSE)
  }
  for (col in c("estimate", "se")) {
    if (any(!is.finite(replicates[[col]])))
      abort_value(sprintf("%s$%s", arg, col), "finite (no NA, NaN or Inf)")
  }
  if (any(replicates$se < 0)) abort_value(sprintf("%s$se", arg), "non-negative")
  if (!is.null(replicates$risk) &&
      any(replicates$risk < 0 | replicates$risk > 1, na.rm = TRUE))
    abort_value(sprintf("%s$risk", arg), "in [0, 1] (or NA)")
  replicates
}

check_ru_reference <- function(reference, arg = "reference") {
  if (!is.list(reference) || is.null(reference$truth))
    abort_type(arg, "a list with element `truth` (and `se`)")
  truth <- check_number(reference$truth, sprintf("%s$truth", arg))
  se <- reference$se
  if (is.null(se) || identical(se, NA)) se <- NA_real_
  if (!is.numeric(se) || length(se) != 1L || is.infinite(se) ||
      (!is.na(se) && se < 0))
    abort_value(sprintf("%s$se", arg), "a single non-negative number or NA")
  mse <- reference$mse
  if (is.null(mse) || identical(mse, NA)) mse <- se^2
  if (!is.numeric(mse) || length(mse) != 1L || is.infinite(mse) ||
      (!is.na(mse) && mse < 0))
    abort_value(sprintf("%s$mse", arg), "a single non-negative number or NA")
  type <- reference$type
  if (is.null(type)) type <- "original"
  type <- check_choice(type, c("original", "truth"), sprintf("%s$type", arg))
  scheme <- reference$scheme
  if (is.null(scheme)) scheme <- NA_character_
  list(truth = truth, se = as.double(se), mse = as.double(mse), type = type,
       scheme = as.character(scheme), paired = isTRUE(reference$paired))
}

check_meta <- function(meta, arg = "meta") {
  if (is.null(meta)) meta <- list()
  if (!is.list(meta)) abort_type(arg, "a list")
  label <- function(x, name) {
    if (is.null(x)) return(NA_character_)
    if (is.function(x)) return("custom")
    if (inherits(x, "family")) return(x$family)
    if (!is.character(x) || length(x) != 1L)
      abort_type(sprintf("%s$%s", arg, name), "a single character string")
    x
  }
  aggregate <- meta$aggregate
  if (!is.null(aggregate))
    aggregate <- check_number(aggregate, sprintf("%s$aggregate", arg))
  budget <- meta$budget
  if (!is.null(budget))
    budget <- check_number(budget, sprintf("%s$budget", arg), lower = 0, upper = 1)
  context <- meta$context
  if (!is.null(context) && !inherits(context, "release_context"))
    abort_type(sprintf("%s$context", arg), "a release_context() or NULL")
  c(list(term = label(meta$term, "term"), family = label(meta$family, "family"),
         risk = label(meta$risk, "risk"), aggregate = aggregate, budget = budget,
         context = context),
    meta[intersect(c("blind", "response", "vars", "risk_nrep", "seed", "call", "data_name",
                     "risk_id", "risk_spec", "risk_criteria"), names(meta))])
}

check_profile_table <- function(table, arg = "table") {
  if (!is.data.frame(table)) abort_type(arg, "a data frame")
  if (nrow(table) == 0L) abort_empty(arg)
  check_columns(ru_profile_columns, table, arg = "required columns",
                data_arg = arg)
  table <- upgrade_capped_columns(as.data.frame(table, stringsAsFactors = FALSE))
  table$scheme <- as.character(table$scheme)
  if (anyNA(table$scheme) || anyDuplicated(table$scheme))
    abort_value(sprintf("%s$scheme", arg), "unique, non-missing scheme labels")
  numeric_cols <- c(setdiff(ru_profile_columns, "scheme"),
                    intersect(c("nrep", "ci_lower", "ci_upper", "ci_overlap", "bias_se",
                                "mse_se", "analysis_potential_se", "risk_se", "strength",
                                "analysis_potential_raw", "analysis_potential_raw_se",
                                "unmasked", "records_used", "records_lost",
                                "records_lost_interval"), names(table)))
  for (col in numeric_cols) {
    if (!(is.numeric(table[[col]]) || all(is.na(table[[col]]))))
      abort_type(sprintf("%s$%s", arg, col), "numeric")
    table[[col]] <- as.double(table[[col]])
  }
  table <- rename_kernel_column(table)
  if (is.null(table$mask_family)) table$mask_family <- NA_character_
  table$mask_family <- as.character(table$mask_family)
  if (any(table$risk < 0 | table$risk > 1, na.rm = TRUE))
    abort_value(sprintf("%s$risk", arg), "in [0, 1] (or NA)")
  table
}

#' Construct a risk-utility profile (internal)
#'
#' @param table data.frame with the columns of `ru_profile_columns` (and
#'   optionally the extras), one row per scheme, usually from
#'   [summarise_replicates()].
#' @param replicates long data.frame of per-replicate results.
#' @param reference list(truth, se, mse, type).
#' @param meta list(term, family, risk, aggregate).
#' @noRd
new_ru_profile <- function(table, replicates, reference, meta = list()) {
  table <- check_profile_table(table)
  replicates <- check_replicates(replicates)
  unknown <- setdiff(unique(replicates$scheme), table$scheme)
  if (length(unknown))
    abort_name("replicates$scheme", unknown, "`table$scheme`")
  reference <- check_ru_reference(reference)
  meta <- check_meta(meta)
  cols <- c(ru_profile_columns, intersect(ru_profile_extra_columns, names(table)),
            setdiff(names(table), c(ru_profile_columns, ru_profile_extra_columns)))
  table <- table[, cols, drop = FALSE]
  rownames(table) <- NULL
  structure(table, class = c("ru_profile", "data.frame"),
            replicates = replicates, reference = reference, meta = meta)
}

# Convenience used by ru_profile() and the tests: replicates -> profile.
ru_profile_from_replicates <- function(replicates, reference, meta = list()) {
  new_ru_profile(summarise_replicates(replicates, reference), replicates,
                 reference, meta)
}

check_ru_profile <- function(x, arg = "ru") {
  if (!inherits(x, "ru_profile")) abort_type(arg, "an `ru_profile` object")
  check_profile_cells(x, arg)
  x
}

# The columns of a profile that the decisions compute with (a profile is a
# data frame a user can edit, or build by hand for fit_ru_curve()): numbers,
# NA for a scheme without that measure, never Inf; the schemes' labels text.
ru_numeric_columns <- c("degree", "estimate", "se", "sd", "bias", "rel_bias", "mse",
                        "analysis_potential", "risk", "anonymity", "bias_se", "mse_se",
                        "analysis_potential_se", "risk_se", "analysis_potential_capped",
                        "analysis_potential_raw", "analysis_potential_raw_se", "strength")

check_profile_cells <- function(x, arg = "ru") {
  for (col in intersect(ru_numeric_columns, names(x))) {
    v <- x[[col]]
    where <- sprintf("%s$%s", arg, col)
    if (!(is.numeric(v) || is.logical(v)) || is.object(v) || !is.null(dim(v)))
      abort_type(where, sprintf("a numeric column (NA for a scheme without it), not %s",
                                class(v)[[1L]]))
    if (any(is.infinite(v))) abort_value(where, "finite numbers or NA (no Inf)")
  }
  if (!is.null(x$scheme)) {
    if (!(is.character(x$scheme) || is.factor(x$scheme) || is.numeric(x$scheme)) ||
        !is.null(dim(x$scheme)))
      abort_type(sprintf("%s$scheme", arg), "a column of scheme labels")
    check_utf8(x$scheme, sprintf("%s$scheme", arg))
  }
  if (inherits(x, "ru_profile")) {
    missing <- setdiff(ru_profile_columns, names(x))
    if (length(missing))
      epimask_abort(sprintf("`%s` has lost the profile column%s %s (was it edited?).", arg,
                            if (length(missing) == 1L) "" else "s",
                            paste0("'", missing, "'", collapse = ", ")),
                    "epimask_error_name", arg = arg)
    if (!is.character(x$scheme))
      abort_type(sprintf("%s$scheme", arg), "a character column of scheme labels")
    if (anyNA(x$scheme)) abort_value(sprintf("%s$scheme", arg), "scheme labels without NA")
    if (!is.list(attr(x, "reference")) || !is.list(attr(x, "meta")))
      abort_type(arg, "an `ru_profile` object with its reference and meta attributes (from ru_profile())")
  }
  invisible(x)
}

#' Per-replicate results of a risk-utility profile
#'
#' A risk-utility profile keeps, besides its one-row-per-scheme table, the
#' estimate, naive standard error and (when computed) risk of every replicate
#' of every scheme. `replicates()` returns them as a long data frame.
#'
#' @param ru an `ru_profile` (from `ru_profile()`).
#' @return A data frame with columns `scheme`, `replicate`, `estimate`, `se`
#'   and, when computed, `risk`; only the schemes present in `ru`.
#' @family profiles
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 300, seed = 1)
#' schemes <- c(mask_sweep(mask_round, digits = 2:0, type = "decimal"),
#'              mask_sweep(mask_noise, amount = c(0.05, 0.2, 0.5)))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = "x",
#'                  risk = match_risk("x"), nrep = 5, seed = 1, progress = FALSE)
#' head(replicates(ru))
replicates <- function(ru) {
  check_ru_profile(ru)
  reps <- attr(ru, "replicates")
  reps <- reps[reps$scheme %in% ru$scheme, , drop = FALSE]
  rownames(reps) <- NULL
  reps
}

ru_reference <- function(ru) attr(ru, "reference")

# Tables written before the column `kernel` (which held every type's family)
# was renamed `mask_family`.
rename_kernel_column <- function(tab) {
  if (!is.null(tab[["kernel"]]) && is.null(tab[["mask_family"]]))
    names(tab)[names(tab) == "kernel"] <- "mask_family"
  tab
}

# A profile's column under its old name still reads, with a deprecation
# warning, for one release (`ru$kernel` is `ru$mask_family`).
#' @export
`$.ru_profile` <- function(x, name) get_field(x, name, exact = FALSE)
#' @export
`[[.ru_profile` <- function(x, i, exact = TRUE, ...) {
  if (!missing(...)) return(NextMethod())
  get_field(x, i, exact = exact)
}
ru_meta <- function(ru) attr(ru, "meta")

# Subsetting keeps the class while every required column survives (rows may go;
# the replicates follow the rows kept); otherwise it degrades to a data.frame.
#' @rdname ru_profile-methods
#' @export
`[.ru_profile` <- function(x, ...) {
  # indices the data frame cannot take (NA columns, lists) fail with a classed error
  out <- tryCatch(NextMethod(), error = function(e)
    abort_value("i/j", sprintf("rows and columns of the profile (%s)", conditionMessage(e))))
  restore_ru_profile(out, x)
}

restore_ru_profile <- function(out, template) {
  if (!is.data.frame(out)) return(out)
  if (!all(ru_profile_columns %in% names(out)) || anyNA(out$scheme) ||
      anyDuplicated(out$scheme) || nrow(out) == 0L) {
    return(strip_ru_profile(out))
  }
  reps <- attr(template, "replicates")
  structure(out, class = c("ru_profile", "data.frame"),
            replicates = reps[reps$scheme %in% out$scheme, , drop = FALSE],
            reference = attr(template, "reference"),
            meta = attr(template, "meta"))
}

strip_ru_profile <- function(x) {
  attr(x, "replicates") <- NULL
  attr(x, "reference") <- NULL
  attr(x, "meta") <- NULL
  class(x) <- "data.frame"
  x
}

#' @rdname ru_profile-methods
#' @param row.names,optional as in [as.data.frame()].
#' @export
as.data.frame.ru_profile <- function(x, row.names = NULL, optional = FALSE, ...) {
  apply_row_names(strip_ru_profile(x), row.names, optional)
}

# ---- printing -------------------------------------------------------------

ru_header <- function(x) {
  meta <- ru_meta(x)
  ref <- ru_reference(x)
  n <- nrow(x)
  parts <- sprintf("Risk-utility profile: %d scheme%s", n, if (n == 1L) "" else "s")
  if (!is.na(meta$term)) parts <- paste0(parts, sprintf(", term '%s'", meta$term))
  if (!is.na(meta$family)) parts <- paste0(parts, sprintf(", family %s", meta$family))
  if (!is.na(meta$risk)) parts <- paste0(parts, sprintf(", risk: %s", meta$risk))
  extra <- profile_extra_risk_columns(x)
  if (length(extra))
    parts <- paste0(parts, sprintf(" (column risk; also %s)",
                                   paste(sub("^risk_", "", extra), collapse = ", ")))
  if (!is.null(meta$risk_id)) parts <- paste0(parts, sprintf(" of persons ('%s')", meta$risk_id))
  ref_line <- sprintf("Reference: %s %s%s", if (ref$type == "truth") "true value" else
                        "original estimate", format_num(ref$truth, 4),
                      if (is.na(ref$se)) "" else sprintf(" (SE %s)", format_num(ref$se, 4)))
  if (!is.null(meta$aggregate))
    ref_line <- paste0(ref_line, sprintf("; aggregated-data estimate %s",
                                         format_num(meta$aggregate, 4)))
  out <- c(parts, ref_line)
  if (!is.null(meta$context))
    out <- c(out, sprintf("Release context: %s release, threshold %s",
                          if (meta$context$public) "public" else "non-public",
                          format_threshold(meta$context$threshold)))
  out
}

# The header wrapped to the console, the risk phrase ("risk: kanon of
# persons ('pid')") kept on one line rather than broken after "risk:".
wrap_ru_header <- function(header, width) {
  m <- regexpr(", risk: .*$", header[[1L]])
  if (m > 0L) {
    tail <- regmatches(header[[1L]], m)
    regmatches(header[[1L]], m) <- paste0(", ", gsub(" ", "\001", substring(tail, 3L), fixed = TRUE))
  }
  gsub("\001", " ", strwrap(header, width = width, exdent = 2), fixed = TRUE)
}

# Columns with a digit budget each, in the order shown: scheme, U and risk
# first so that a narrow console drops only secondary columns; all-NA
# optional columns are left out.
ru_display_table <- function(x, digits = 3) {
  spec <- list(
    scheme = NULL, analysis_potential = digits, risk = 2, pareto = NULL,
    rel_bias = 2, estimate = digits + 1, se = digits + 1, mse = digits,
    sd = digits, nrep = 0, width_ratio = 2, ci_overlap = 2)
  headers <- c(scheme = "scheme", analysis_potential = "U", risk = "risk",
               pareto = "front", rel_bias = "bias%", estimate = "estimate", se = "se",
               mse = "mse", sd = "sd", nrep = "reps", width_ratio = "width",
               ci_overlap = "overlap")
  optional <- c("nrep", "sd", "risk", "pareto", "width_ratio", "ci_overlap")
  cols <- names(spec)[names(spec) %in% names(x)]
  cols <- cols[!(cols %in% optional & vapply(cols, function(c) all(is.na(x[[c]])), TRUE))]
  if ("nrep" %in% cols && all(x$nrep == 1)) cols <- setdiff(cols, "nrep")
  out <- lapply(cols, function(col) {
    v <- x[[col]]
    if (col == "pareto") return(ifelse(is.na(v), "", ifelse(v, "*", "")))
    if (is.character(v)) return(ifelse(is.na(v), "", v))
    if (col == "nrep") return(format(v))
    if (col == "analysis_potential") return(format_u(v, digits))
    format_num(v, spec[[col]])
  })
  names(out) <- headers[cols]
  # the further criteria of the profile (risk = list(...)), beside the first
  extra <- profile_extra_risk_columns(x)
  if (length(extra) && "risk" %in% headers[cols]) {
    at <- match("risk", names(out))
    more <- stats::setNames(lapply(extra, function(col) format_num(x[[col]], 2)),
                            sub("^risk_", "", extra))
    out <- c(out[seq_len(at)], more, out[-seq_len(at)])
  }
  as.data.frame(out, check.names = FALSE, stringsAsFactors = FALSE)
}

# The columns of a profile's further criteria (`risk = list(...)`: the
# first is `risk`, each other one `risk_<name>`).
profile_extra_risk_columns <- function(x) {
  cols <- grep("^risk_", names(x), value = TRUE)
  cols <- setdiff(cols, c("risk_se", "risk_low", "risk_high", "risk_unit", "risk_nrep"))
  cols[vapply(cols, function(col) is.numeric(x[[col]]), logical(1))]
}

# U above 1 is a sampling artefact, not a better analysis: shown as ">1".
format_u <- function(u, digits = 3) {
  out <- format_num(u, digits)
  out[!is.na(u) & u > 1] <- paste0(format_num(u[!is.na(u) & u > 1], digits), "*")
  out
}

# Shorter labels for narrow consoles: the short label each scheme's type
# builds from its fields (scheme_label(), column `label` of the profile),
# the full label where there is none (profiles built from replicates).
short_scheme_labels <- function(x) {
  short <- x$label %||% rep(NA_character_, nrow(x))
  short[is.na(short)] <- x$scheme[is.na(short)]
  make.unique(short, sep = " #")
}

#' Print, format and summarise a risk-utility profile
#'
#' Row subsetting (`x[i, ]`, [subset()]) keeps the class and the replicates of
#' the schemes kept; selecting columns so that a required one is lost, or
#' every row, gives a plain data frame. `as.data.frame()` drops the class and
#' the attributes and keeps every column.
#'
#' `format()` gives the lines `print()` shows: a header naming the number of
#' schemes, the term, the model family and the risk measure, the reference
#' value, and one row per scheme with, first whatever the width, the scheme,
#' its analysis potential U (marked `*` above 1: no measurable loss, not a
#' gain) and risk, then whether it is on the risk-utility frontier, relative
#' bias (%), mean estimate, mean naive SE, MSE, empirical SD and width ratio
#' as the width allows (columns that are all NA are left out; scheme labels
#' are shortened to fit). `summary()` lays the table out as Table 2 of
#' Cologne et al. (2012), with the anonymity score, the frontier and the
#' Monte Carlo standard errors (in parentheses) added.
#'
#' @param x,object an `ru_profile`.
#' @param digits significant digits for most columns.
#' @param n maximum number of rows to print.
#' @param width console width the printed table is fitted to.
#' @param ... for `[`, the row and column indices; otherwise unused.
#' @return `format()`: a character vector; `print()`: `x`, invisibly;
#'   `summary()`: a data frame of class `summary.ru_profile`; `[`: an
#'   `ru_profile` or a data frame; `as.data.frame()`: a data frame.
#' @name ru_profile-methods
#' @family profiles
#' @examples
#' sim <- simulate_zdl(1, n = 300, seed = 1)
#' schemes <- c(mask_sweep(mask_round, digits = 2:0, type = "decimal"),
#'              mask_sweep(mask_noise, amount = c(0.05, 0.2, 0.5)))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = "x",
#'                  risk = match_risk("x"), nrep = 5, seed = 1, progress = FALSE)
#' ru
#' print(ru, width = 40)
#' summary(ru)
#' ru[ru$risk <= 0.2, ]
NULL

#' @rdname ru_profile-methods
#' @export
format.ru_profile <- function(x, digits = 3, n = 20L, width = getOption("width", 80), ...) {
  check_ru_profile(x, "x")
  digits <- check_digits(digits)
  n <- check_count(n, "n")
  width <- check_count(width, "width", lower = 10L)
  shown <- utils::head(as.data.frame(x), n)
  tab <- ru_display_table(shown, digits)
  # scheme, U and risk always fit: labels are shortened, then cut, to the room left
  key_width <- sum(vapply(intersect(c("U", "risk", sub("^risk_", "",
                                                         profile_extra_risk_columns(shown))),
                                    names(tab)), function(col)
    max(nchar(c(col, tab[[col]]))) + 1L, 1L))
  room <- max(8L, min(40L, width - key_width - 1L))
  if (max(nchar(tab$scheme)) > room) tab$scheme <- short_scheme_labels(shown)
  tab$scheme <- truncate_label(tab$scheme, room)
  fit <- fit_columns(format_table(tab, left = c("scheme", "mask_family")), width,
                     always = sub("^risk_", "", profile_extra_risk_columns(shown)))
  body <- utils::capture.output(print(fit$table, row.names = FALSE, right = TRUE))
  lines <- c(wrap_ru_header(ru_header(x), width), body)
  if (nrow(x) > n) lines <- c(lines, sprintf("# ... %d more scheme%s", nrow(x) - n,
                                             if (nrow(x) - n == 1L) "" else "s"))
  if (length(fit$dropped))
    lines <- c(lines, strwrap(sprintf("# not shown: %s (see summary(), as.data.frame())",
                                      paste(trimws(fit$dropped), collapse = ", ")),
                              width = width, exdent = 2))
  nrep <- range(x$nrep %||% 1)
  shown_cols <- names(fit$table)
  note <- paste0(
    if (ru_u(x)$capped)
      "# U = analysis potential MSE(original) / MSE(masked) with the masked variance floored at the original's (at most 1, bias counted in full; raw ratio: column analysis_potential_raw)"
    else "# U = analysis potential MSE(original) / MSE(masked)",
    if (any(x$analysis_potential > 1, na.rm = TRUE)) " (* above 1: no measurable loss, not a gain)" else "",
    if ("front" %in% shown_cols) "; front * = on the risk-utility frontier" else "",
    if ("bias%" %in% shown_cols) "; bias% = relative bias" else "",
    if ("width" %in% shown_cols) "; width = naive CI width / empirical 95% range" else "",
    if (nrep[2] > 1) sprintf("; %s replicates per scheme",
                             if (nrep[1] == nrep[2]) nrep[1] else
                               paste(nrep, collapse = "-")) else "")
  budget <- ru_meta(x)$budget
  if (!is.null(budget)) note <- paste0(note, sprintf("; risk budget %s", format_num(budget, 3)))
  lost <- profile_records_note(x)
  c(lines, strwrap(note, width = width, exdent = 2, prefix = "", initial = ""),
    if (nzchar(lost)) strwrap(paste("#", lost), width = width, exdent = 2))
}

truncate_label <- function(x, max_chars) {
  long <- nchar(x) > max_chars
  x[long] <- paste0(substr(x[long], 1L, max_chars - 1L), "~")
  x
}

# Keep the leading columns that fit in `width` characters (tibble-like).
fit_columns <- function(tab, width, always = character()) {
  widths <- vapply(names(tab), function(col) max(nchar(c(col, tab[[col]]))) + 1L, 1L)
  keep <- cumsum(widths) <= width
  keep[names(tab) %in% c(names(tab)[1L], "U", "risk", always)] <- TRUE
  list(table = tab[, keep, drop = FALSE], dropped = names(tab)[!keep])
}


#' @rdname ru_profile-methods
#' @export
print.ru_profile <- function(x, digits = 3, n = 20L, width = getOption("width", 80), ...) {
  digits <- check_digits(digits)
  cat(format(x, digits = digits, n = n, width = width), sep = "\n")
  invisible(x)
}

#' @rdname ru_profile-methods
#' @export
summary.ru_profile <- function(object, ...) {
  check_ru_profile(object, "object")
  col <- function(name, na = NA_real_) if (is.null(object[[name]])) rep(na, nrow(object)) else object[[name]]
  out <- data.frame(
    masking = object$scheme,
    estimate = object$estimate,
    se = object$se,
    bias = object$bias,
    bias_se = col("bias_se"),
    rel_bias = object$rel_bias,
    mse = object$mse,
    mse_se = col("mse_se"),
    analysis_potential = object$analysis_potential,
    analysis_potential_se = col("analysis_potential_se"),
    analysis_potential_raw = col("analysis_potential_raw"),
    analysis_potential_raw_se = col("analysis_potential_raw_se"),
    risk = object$risk,
    risk_se = col("risk_se"),
    anonymity = object$anonymity,
    pareto = col("pareto", NA),
    nrep = col("nrep", 1),
    stringsAsFactors = FALSE
  )
  meta <- ru_meta(object)
  structure(out, class = c("summary.ru_profile", "data.frame"),
            header = ru_header(object), budget = meta$budget, context = meta$context)
}

#' @rdname ru_profile-methods
#' @export
format.summary.ru_profile <- function(x, digits = 4, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    with_se <- function(v, se, d) {
      out <- format_num(v, d)
      has <- !is.na(se) & !is.na(v)
      out[has] <- sprintf("%s (%s)", out[has], format_num(se[has], 2))
      out
    }
    u <- with_se(x$analysis_potential, x$analysis_potential_se, 3)
    above <- !is.na(x$analysis_potential) & x$analysis_potential > 1
    u[above] <- paste0(u[above], "*")
    tab <- data.frame(
      `Masking` = x$masking,
      `Estimate` = format_num(x$estimate, digits),
      `SE` = format_num(x$se, digits),
      `Bias` = with_se(x$bias, x$bias_se, 2),
      `Rel. bias (%)` = format_num(x$rel_bias, 2),
      `MSE` = with_se(x$mse, x$mse_se, 3),
      `Analysis potential` = u,
      `Raw MSE ratio` = format_num(x$analysis_potential_raw, 3),
      `Risk` = with_se(x$risk, x$risk_se, 2),
      `Anonymity` = format_num(x$anonymity, 2),
      `Frontier` = ifelse(is.na(x$pareto), "", ifelse(x$pareto, "yes", "")),
      check.names = FALSE, stringsAsFactors = FALSE)
    if (all(is.na(x$risk))) tab$Risk <- tab$Anonymity <- tab$Frontier <- NULL
    # the raw ratio only where the floor changed U somewhere
    raw_differs <- !is.na(x$analysis_potential_raw) & !is.na(x$analysis_potential) &
      abs(x$analysis_potential_raw - x$analysis_potential) > 5e-4
    if (!any(raw_differs)) tab$`Raw MSE ratio` <- NULL
    cat(attr(x, "header"), sep = "\n")
    print(format_table(tab, left = "Masking"), row.names = FALSE, right = TRUE)
    notes <- "Monte Carlo standard errors over the replicates in parentheses (none for a single deterministic replicate)."
    if (any(raw_differs))
      notes <- c(notes, paste("Analysis potential: MSE(original) / MSE(masked) with the masked fit's variance floored at the original's",
                              "(masking adds no information), so a bias counts in full; the raw ratio, without the floor, is shown where they differ",
                              "(a naive SE that shrank under masking)."))
    if (any(above)) notes <- c(notes, "* U above 1: no measurable loss of analysis potential (a sampling artefact, not a better analysis).")
    if (!is.null(attr(x, "budget")))
      notes <- c(notes, sprintf("Risk budget: %s%s.", format_num(attr(x, "budget"), 3),
                                if (!is.null(attr(x, "context"))) " (the release context's threshold)" else ""))
    cat(strwrap(notes, width = getOption("width", 80), exdent = 2), sep = "\n")
  })
}

#' @export
print.summary.ru_profile <- function(x, ...) print_formatted(x, ...)

# A small Zhou-like profile for the examples: two kernels x three degrees plus
# the unmasked reference, 20 simulated replicates each.
example_ru_profile <- function() {
  grid <- expand.grid(degree = c(0.01, 0.1, 1), mask_family = c("ring", "exponential"),
                      stringsAsFactors = FALSE)
  schemes <- rbind(data.frame(degree = 0, mask_family = "none"), grid)
  schemes$scheme <- ifelse(schemes$mask_family == "none", "none",
                           sprintf("%s, lambda = %g", schemes$mask_family, schemes$degree))
  shift <- ifelse(schemes$mask_family == "ring", 0.15, 0.08)
  reps <- do.call(rbind, lapply(seq_len(nrow(schemes)), function(i) {
    d <- schemes$degree[i]
    r <- seq_len(20)
    data.frame(scheme = schemes$scheme[i], replicate = r,
               estimate = 1 - shift[i] * log1p(10 * d) + 0.14 * sin(r * (i + 1)),
               se = 0.1 * (1 - 0.1 * log1p(d)), risk = 0.6 / (1 + 8 * d),
               degree = d, mask_family = schemes$mask_family[i])
  }))
  ru_profile_from_replicates(reps, list(truth = 1, se = 0.1, type = "truth", scheme = "none"),
                             list(term = "x", family = "gaussian", risk = "match"))
}
