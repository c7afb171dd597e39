# Analysis potential of masked data (methods vignette section 3): fit the analyst's model to the
# original and to the masked data and compare the estimates of the quantity of
# interest (the model resolved, fitted and its quantity taken in fit-model.R,
# which ru_profile() and the analysis loss share).

#' Analysis potential of masked data for one model
#'
#' Fits the analyst's model to the original and to the masked data and
#' compares the estimates (Cologne et al. 2012; methods vignette, section 3). With
#' \eqn{\beta} the reference value (`truth` when given, otherwise the estimate
#' from the original data) and \eqn{\beta_m} the estimate from the masked data:
#' bias \eqn{= \beta_m - \beta}, relative bias \eqn{= 100 |bias| / |\beta|},
#' \eqn{MSE(\beta_m) = SE_m^2 + bias^2}, \eqn{MSE(\beta) = SE^2 +
#' (\hat\beta - \beta)^2} (just \eqn{SE^2} without `truth`), the
#' analysis-potential score \eqn{U = MSE(\beta) / (\max(SE_m^2, SE^2) +
#' bias^2)} (Cologne eq. 3 with the masked naive variance floored at the
#' original's, as in [ru_profile()]: at most 1, a bias hidden by a naive SE
#' that shrank under masking counts in full; the raw ratio
#' \eqn{MSE(\beta) / MSE(\beta_m)}, which may exceed 1, is
#' `analysis_potential_raw`), and the overlap of the two naive 95% confidence
#' intervals (Karr et al. 2006: the length of their intersection averaged over
#' both lengths; 1 for identical, 0 for disjoint intervals).
#'
#' @param original,masked The original and the masked data (data frames with
#'   the variables of `formula`). `masked` may be a synthetic release
#'   ([mask_synth()]): the model is then fitted to every copy and the fits
#'   combined by the release's rules ([combine_synthetic()]); the table
#'   gains the columns `rule`, `df`, `between`, `within` and `m`, and the CI
#'   overlap is that of the combined interval (a t interval for the
#'   `"partial"` and `"full"` rules).
#' @param formula Model formula, as for [glm()]. For `family = "err"` it gives
#'   the response and the log-linear part of the linear excess-relative-risk
#'   model (see [fit_err()]).
#' @param family A family object, family function or family name as for
#'   [glm()], `"err"` for linear excess-relative-risk binary regression
#'   with `term` naming the dose column, or `"cox"` for the Cox proportional
#'   hazards model of [fit_cox()] (a `Surv()` response, Efron ties,
#'   `strata()` terms; conditional logistic regression as a stratified Cox
#'   model): the quantity of interest is then the log hazard ratio of
#'   `term`.
#' @param term The quantity of interest: coefficient name(s) (default: every
#'   coefficient except the intercept; for `"err"` the dose column, required),
#'   or a function `function(fit, data)` returning the estimate and its naive
#'   SE (a length-2 numeric vector or a list with `estimate` and `se`), such
#'   as [population_or()].
#' @param truth The true value(s) of the quantity, when known (simulation);
#'   one number per term.
#' @return An object of class `epimask_utility`: a list with `table` (one row
#'   per term: `term`, `estimate_original`, `se_original`, `estimate_masked`,
#'   `se_masked`, `reference`, `bias`, `rel_bias`, `mse_original`,
#'   `mse_masked`, `analysis_potential`, `analysis_potential_raw`,
#'   `ci_overlap`) and the two fits
#'   (`original`, `masked`).
#' @references Cologne J, Grant EJ, Nakashima E, Chen Y, Funamoto S,
#'   Katayama H (2012). Protecting privacy of shared epidemiologic data without
#'   compromising analysis potential. \emph{Journal of Environmental and Public
#'   Health} 2012, 193680. \doi{10.1155/2012/193680}
#' @seealso [ru_profile()] for a whole list of masking schemes.
#' @family utility
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(x = runif(200))
#' d$y <- rpois(200, exp(1 + d$x))
#' masked <- apply_mask(d, mask_round(1, type = "decimal"), vars = "x")
#' utility_glm(d, masked, y ~ x, family = poisson())
#' # the log hazard ratio of age in a Cox model, age rounded to 10 years
#' lung <- survival::lung[c("time", "status", "age", "sex")]
#' utility_glm(lung, apply_mask(lung, mask_round(-1, type = "decimal"), vars = "age"),
#'             Surv(time, status) ~ age + sex, family = "cox", term = "age")
utility_glm <- function(original, masked, formula, family = gaussian(),
                        term = NULL, truth = NULL) {
  # synthetic copies: their fits combined by the release's rules (utility-synth.R)
  if (is_synthetic(masked))
    return(utility_synthetic(original, masked, formula, family, term, truth))
  original <- as_plain_data(check_data(original))
  masked <- as_plain_data(check_data(masked))
  check_formula(formula)
  model <- resolve_model(family, term, formula)
  fit_o <- fit_model(model, original)
  fit_m <- fit_model(model, masked)
  terms <- resolve_terms(model, fit_o, original, multiple = TRUE)
  est_o <- term_estimates(model, fit_o, original, terms)
  est_m <- term_estimates(model, fit_m, masked, terms)
  if (!is.null(truth)) {
    truth <- check_numeric_vector(truth, len = nrow(est_o))
  }
  table <- utility_table(est_o, est_m, truth)
  structure(list(table = table, original = fit_o, masked = fit_m,
                 formula = formula, family = model$label,
                 reference = if (is.null(truth)) "original" else "truth"),
            class = "epimask_utility")
}

utility_table <- function(est_o, est_m, truth) {
  z <- stats::qnorm(0.975)
  reference <- if (is.null(truth)) est_o$estimate else truth
  bias <- est_m$estimate - reference
  mse_o <- est_o$se^2 + (est_o$estimate - reference)^2
  mse_m <- est_m$se^2 + bias^2
  overlap <- vapply(seq_len(nrow(est_o)), function(j) {
    ci_overlap(est_o$estimate[j] - z * est_o$se[j], est_o$estimate[j] + z * est_o$se[j],
               est_m$estimate[j] - z * est_m$se[j], est_m$estimate[j] + z * est_m$se[j])
  }, numeric(1))
  data.frame(
    term = est_o$term,
    estimate_original = est_o$estimate, se_original = est_o$se,
    estimate_masked = est_m$estimate, se_masked = est_m$se,
    reference = reference, bias = bias,
    rel_bias = ifelse(reference != 0, 100 * abs(bias) / abs(reference), NA_real_),
    mse_original = mse_o, mse_masked = mse_m,
    # (an overflowing MSE, e.g. from a truth near the largest double, gives NA, not NaN)
    analysis_potential = capped_u_terms(mse_o, bias, est_o$se, est_m$se),
    analysis_potential_raw = ifelse(mse_m > 0 & is.finite(mse_m), mse_o / mse_m, NA_real_),
    ci_overlap = overlap,
    stringsAsFactors = FALSE)
}

# The U a profile reports (capped_potential()), term by term: the masked
# naive variance floored at the original's, at most 1, bias in full.
capped_u_terms <- function(mse_o, bias, se_o, se_m) {
  denom <- pmax(se_m^2, se_o^2) + bias^2
  out <- ifelse(denom > 0 & is.finite(denom), mse_o / denom, NA_real_)
  out[!is.finite(out)] <- NA_real_
  pmin(out, 1)
}

#' @export
format.epimask_utility <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)
  tab <- x$table
  with_se <- function(est, se) sprintf("%s (%s)", format_num(est, digits), format_num(se, digits - 1L))
  shown <- data.frame(
    term = tab$term,
    original = with_se(tab$estimate_original, tab$se_original),
    masked = with_se(tab$estimate_masked, tab$se_masked),
    `bias%` = format_num(tab$rel_bias, 2),
    MSE = format_num(tab$mse_masked, digits - 1L),
    U = format_num(tab$analysis_potential, 3),
    overlap = format_num(tab$ci_overlap, 2),
    check.names = FALSE, stringsAsFactors = FALSE)
  header <- sprintf("Analysis potential of masked data (%s model, reference: %s)",
                    x$family, if (x$reference == "truth") "true value" else
                      "original estimate")
  lost <- c(original = format_records_lost(x$original$records),
            masked = format_records_lost(x$masked$records))
  lost <- lost[nzchar(lost)]
  c(header, utils::capture.output(print(shown, row.names = FALSE, right = TRUE)),
    if (length(lost)) sprintf("%s data: %s", names(lost), lost),
    paste("estimate (SE); U = MSE(original) / MSE(masked), the masked SE floored at the",
          "original's (at most 1, bias in full; raw ratio: $table$analysis_potential_raw);",
          "overlap of the 95% CIs"))
}

#' @export
print.epimask_utility <- function(x, ...) print_formatted(x, ...)

#' @export
as.data.frame.epimask_utility <- function(x, ...) x$table

# ---- population-level odds ratio (methods vignette section 3.1) ----------------------------------

#' Population-level odds ratio as a profile target
#'
#' The quantity of interest of the zip-code application of Zhou, Dominici and
#' Louis (2010): the odds ratio of death, Black vs White, standardised to the
#' population. With \eqn{p^B_j} and \eqn{p^W_j} the model's predicted
#' probabilities for record \eqn{j} with the `race` variable set to 1 and to 0
#' and its other (possibly masked) covariates kept,
#' \eqn{p_R = \sum_j N_j p^R_j / \sum_j N_j} (\eqn{N_j} the `weight`, e.g.
#' person-years) and \eqn{OR = [p_B / (1 - p_B)] / [p_W / (1 - p_W)]}.
#' Predictions leave out any offset (they are per unit of exposure). The naive
#' SE is the delta method on \eqn{\log OR} with the model's covariance at
#' dispersion 1: \eqn{\nabla \log OR = \nabla p_B / (p_B (1 - p_B)) -
#' \nabla p_W / (p_W (1 - p_W))}, \eqn{\nabla p_R = \sum_j N_j
#' h'(\eta^R_j) x^R_j / \sum_j N_j} (methods vignette, section 3.1), and
#' \eqn{SE(OR) = OR \cdot SE(\log OR)}.
#'
#' @param race Name of the race variable (1 = Black, 0 = White; a share in
#'   aggregated data).
#' @param weight Name of the population weight column \eqn{N_j}, or `NULL`
#'   for equal weights.
#' @return A function `function(fit, data)` of a [fit_glm()] fit and the data
#'   it was fitted to, returning `c(estimate = OR, se = SE)`, for the `term`
#'   argument of [ru_profile()] and [utility_glm()].
#' @family utility
#' @export
#' @examples
#' set.seed(2)
#' d <- data.frame(black = rbinom(300, 1, 0.3), age = runif(300), py = rpois(300, 50) + 1)
#' d$deaths <- rbinom(300, d$py, plogis(-3 + 0.4 * d$black + d$age))
#' fit <- fit_glm(cbind(deaths, py - deaths) ~ black + age, d, family = binomial())
#' population_or("black", weight = "py")(fit, d)
population_or <- function(race, weight = NULL) {
  race <- check_string(race)
  weight <- check_string(weight, allow_null = TRUE)
  function(fit, data) {
    parts <- check_or_fit(fit)
    data <- as_plain_data(check_data(data, "data"))
    check_columns(c(race, weight), data, arg = "race/weight", data_arg = "data")
    size <- if (is.null(weight)) rep(1, nrow(data)) else check_or_weight(data[[weight]], weight)
    beta <- parts$beta
    if (anyNA(beta)) return(c(estimate = NA_real_, se = NA_real_))
    cov <- parts$cov
    dispersion <- fit$dispersion
    if (is.numeric(dispersion) && length(dispersion) == 1L && is.finite(dispersion) &&
        dispersion > 0) cov <- cov / dispersion
    # the model's design rebuilt on `data`: a fit of another model, or data
    # without its variables (or with values of other types), fails here
    black <- or_probability(fit, data, race, 1, beta, parts$family, size)
    white <- or_probability(fit, data, race, 0, beta, parts$family, size)
    log_or <- stats::qlogis(black$p) - stats::qlogis(white$p)
    grad <- black$grad / (black$p * (1 - black$p)) - white$grad / (white$p * (1 - white$p))
    se_log <- sqrt(drop(crossprod(grad, cov %*% grad)))
    c(estimate = exp(log_or), se = exp(log_or) * se_log)
  }
}

# What the closure of population_or() reads from a fit: named numeric
# coefficients, a matching covariance matrix, a complete family, terms.
check_or_fit <- function(fit) {
  expected <- "a model fit from fit_glm() or glm()"
  if (!is.list(fit) || is.data.frame(fit) || is.null(fit$terms %||% attr(fit, "terms")))
    abort_type("fit", expected)
  beta <- tryCatch(stats::coef(fit), error = function(e) NULL)
  if (!is.numeric(beta) || !length(beta) || is.null(names(beta)))
    abort_type("fit", paste(expected, "with named numeric coefficients"))
  cov <- tryCatch(stats::vcov(fit), error = function(e) NULL)
  if (!is.matrix(cov) || !is.numeric(cov) || !all(dim(cov) == length(beta)))
    abort_type("fit", paste(expected, "whose vcov() matches its coefficients"))
  family <- fit$family %||% tryCatch(stats::family(fit), error = function(e) NULL)
  if (!inherits(family, "family")) abort_type("fit", paste(expected, "with its family"))
  family <- check_family_parts(family, "fit$family")
  list(beta = beta, cov = cov, family = family)
}

check_or_weight <- function(w, weight) {
  arg <- sprintf("data$%s", weight)
  if (!(is.numeric(w) || is.logical(w)) || is.object(w)) abort_type(arg, "numeric population weights")
  if (anyNA(w) || any(!is.finite(w)) || any(w < 0))
    abort_value(arg, "finite population weights >= 0, without NA")
  if (sum(w) <= 0) abort_value(arg, "population weights with a positive sum")
  as.double(w)
}

or_probability <- function(fit, data, race, value, beta, family, size) {
  p <- with_classed_errors(standardised_probability(fit, data, race, value, beta, family, size),
                function(e) abort_value("data", sprintf(
                  "data the fit's model can be evaluated on (%s)", conditionMessage(e))))
  if (!is.finite(p$p) || any(!is.finite(p$grad)))
    abort_value("data", "data on which the model gives finite predicted probabilities")
  p
}

# p_R = sum N_j h(x_j^R' beta) / sum N_j and its gradient in beta.
standardised_probability <- function(fit, data, race, value, beta, family, size) {
  data[[race]] <- rep(value, nrow(data))
  tt <- stats::delete.response(stats::terms(fit))
  mf <- stats::model.frame(tt, data, xlev = fit$xlevels)
  x <- stats::model.matrix(tt, mf)
  eta <- drop(x %*% beta)
  total <- sum(size)
  list(p = sum(size * family$linkinv(eta)) / total,
       grad = colSums(size * family$mu.eta(eta) * x) / total)
}
