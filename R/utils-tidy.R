# broom-style tidy() and glance() methods (generics package): one data frame
# row per coefficient / class / target / scheme (tidy) or one row per object
# (glance), with broom's column names, so results bind with dplyr and print
# in reports. The generics are re-exported so library(epimask) is enough.

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' Tidy and glance summaries of epimask results
#'
#' broom-style summaries. `tidy()` gives one row per coefficient (model
#' fits), per equivalence class ([risk_kanon()]), per target
#' ([risk_match()]), per match count ([risk_identifiability()]), per class
#' ([risk_ldiversity()], [risk_tcloseness()], [risk_individual()]), per
#' record ([risk_suda()], [risk_linkage()]), per attack ([risk_release()]) or
#' per scheme ([ru_profile()]); `glance()` gives one row per object (per
#' sensitive variable for l-diversity and t-closeness) with its overall
#' measures.
#'
#' For fits the columns are `term`, `estimate`, `std.error`, `statistic`,
#' `p.value` (Wald z or t statistic as in [summary.glm()]) and, with
#' `conf.int = TRUE`, `conf.low`, `conf.high` from [confint()] (Wald for
#' [fit_glm()]; for [fit_err()] the dose coefficient's interval is the
#' profile-likelihood interval).
#'
#' @param x An object returned by [fit_glm()], [fit_err()], [fit_cox()],
#'   [utility_general()], [risk_kanon()],
#'   [risk_match()], [risk_identifiability()], [risk_ldiversity()],
#'   [risk_tcloseness()], [risk_individual()], [risk_suda()], [risk_linkage()],
#'   [risk_release()] or [ru_profile()].
#' @param conf.int Add confidence limits (fits only).
#' @param conf.level Their level.
#' @param ... Unused.
#' @return A data frame.
#' @family tidiers
#' @name epimask-tidiers
#' @examples
#' fit <- fit_glm(case ~ sex + dose, data = dose_cohort, family = binomial())
#' tidy(fit, conf.int = TRUE)
#' glance(fit)
#' kan <- risk_kanon(dose_cohort, keys = c("sex", "city"), k = 5)
#' tidy(kan)
#' glance(kan)
NULL

tidy_coef_table <- function(est, se, stat, p, conf = NULL) {
  out <- data.frame(term = names(est), estimate = unname(est), std.error = unname(se),
                    statistic = unname(stat), p.value = unname(p),
                    stringsAsFactors = FALSE)
  if (!is.null(conf)) {
    out$conf.low <- unname(conf[, 1L])
    out$conf.high <- unname(conf[, 2L])
  }
  out
}

check_conf_args <- function(conf.int, conf.level) {
  check_flag(conf.int, "conf.int")
  check_number(conf.level, "conf.level", lower = 0, upper = 1, lower_open = TRUE,
               upper_open = TRUE)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_glm
#' @export
tidy.epimask_glm <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  level <- check_conf_args(conf.int, conf.level)
  table <- summary(x)$coefficients
  est <- x$coefficients
  stat <- p <- se <- stats::setNames(rep(NA_real_, length(est)), names(est))
  se[rownames(table)] <- table[, 2L]
  stat[rownames(table)] <- table[, 3L]
  p[rownames(table)] <- table[, 4L]
  conf <- if (conf.int) stats::confint(x, level = level) else NULL
  tidy_coef_table(est, se, stat, p, conf)
}

#' @rdname epimask-tidiers
#' @method glance epimask_glm
#' @export
glance.epimask_glm <- function(x, ...) {
  ll <- stats::logLik(x)
  data.frame(null.deviance = x$null.deviance, df.null = x$df.null,
             logLik = as.numeric(ll), AIC = x$aic,
             BIC = x$aic - 2 * attr(ll, "df") + log(stats::nobs(x)) * attr(ll, "df"),
             deviance = x$deviance, df.residual = x$df.residual, nobs = stats::nobs(x),
             converged = x$converged)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_err
#' @export
tidy.epimask_err <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  level <- check_conf_args(conf.int, conf.level)
  est <- x$coefficients
  stat <- est / x$se
  p <- 2 * stats::pnorm(-abs(stat))
  conf <- if (conf.int) unclass(stats::confint(x, level = level)) else NULL
  tidy_coef_table(est, x$se, stat, p, conf)
}

#' @rdname epimask-tidiers
#' @method glance epimask_err
#' @export
glance.epimask_err <- function(x, ...) {
  data.frame(null.deviance = x$null.deviance, df.null = x$df.null,
             logLik = x$loglik, deviance = x$deviance, df.residual = x$df.residual,
             nobs = x$nobs, lr.statistic = x$lr_test$statistic,
             lr.p.value = x$lr_test$p.value, boundary = x$boundary,
             converged = x$converged)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_kanon
#' @export
tidy.epimask_kanon <- function(x, ...) {
  as.data.frame(x$classes, stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method glance epimask_kanon
#' @export
glance.epimask_kanon <- function(x, ...) {
  data.frame(n = x$n, n_classes = x$n_classes, n_uniques = x$n_uniques,
             k = x$k, k_anonymous = x$k_anonymous, max_risk = x$max_risk,
             avg_risk = x$avg_risk, strict_avg_risk = x$strict_avg_risk,
             journalist_risk = x$journalist_risk, marketer_risk = x$marketer_risk)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_match
#' @export
tidy.epimask_match <- function(x, ...) {
  as.data.frame(x$per_target, stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method glance epimask_match
#' @export
glance.epimask_match <- function(x, ...) {
  data.frame(n_records = x$n_records, n_targets = x$n_targets,
             expected_match_risk = x$expected_match_risk,
             percent_correct = x$percent_correct,
             true_match_rate = x$true_match_rate, false_match_rate = x$false_match_rate)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_identifiability
#' @export
tidy.epimask_identifiability <- function(x, ...) {
  as.data.frame(x$counts, stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method glance epimask_identifiability
#' @export
glance.epimask_identifiability <- function(x, ...) {
  data.frame(n_released = x$n_released, n_source = x$n_source, score = x$score,
             anonymity = x$anonymity, perceived = x$perceived)
}

#' @rdname epimask-tidiers
#' @method tidy ru_profile
#' @export
tidy.ru_profile <- function(x, ...) {
  as.data.frame(x)
}

#' @rdname epimask-tidiers
#' @method glance ru_profile
#' @export
glance.ru_profile <- function(x, ...) {
  check_ru_profile(x, "x")
  meta <- attr(x, "meta")
  ref <- attr(x, "reference")
  data.frame(n_schemes = nrow(x), term = meta$term, family = meta$family,
             risk = meta$risk, reference = ref$truth, reference_type = ref$type,
             max_risk = if (all(is.na(x$risk))) NA_real_ else max(x$risk, na.rm = TRUE),
             min_analysis_potential = min(x$analysis_potential, na.rm = TRUE),
             stringsAsFactors = FALSE)
}

# ---- the measures of the second round ------------------------------------------

#' @rdname epimask-tidiers
#' @method tidy epimask_ldiversity
#' @export
tidy.epimask_ldiversity <- function(x, ...) as.data.frame(x$classes, stringsAsFactors = FALSE)

#' @rdname epimask-tidiers
#' @method glance epimask_ldiversity
#' @export
glance.epimask_ldiversity <- function(x, ...) {
  data.frame(sensitive = names(x$distinct_l), distinct_l = unname(x$distinct_l),
             entropy_l = unname(x$entropy_l), recursive_l = unname(x$recursive_l),
             c = x$c, n = x$n, n_classes = x$n_classes, stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_tcloseness
#' @export
tidy.epimask_tcloseness <- function(x, ...) as.data.frame(x$classes, stringsAsFactors = FALSE)

#' @rdname epimask-tidiers
#' @method glance epimask_tcloseness
#' @export
glance.epimask_tcloseness <- function(x, ...) {
  data.frame(sensitive = names(x$t), t = unname(x$t), n = x$n, n_classes = x$n_classes,
             stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_individual
#' @export
tidy.epimask_individual <- function(x, ...) as.data.frame(x$classes, stringsAsFactors = FALSE)

#' @rdname epimask-tidiers
#' @method glance epimask_individual
#' @export
glance.epimask_individual <- function(x, ...) {
  out <- data.frame(n = x$n, expected = x$expected, global = x$global,
                    max_risk = max(x$per_record), weighted = isTRUE(x$weighted))
  if (!is.null(x$cluster_risk)) {
    out$clusters <- x$n_clusters
    out$cluster_expected <- x$cluster_expected
    out$cluster_global <- x$cluster_global
  }
  out
}

#' @rdname epimask-tidiers
#' @method tidy epimask_suda
#' @export
tidy.epimask_suda <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance epimask_suda
#' @export
glance.epimask_suda <- function(x, ...) {
  data.frame(n = x$n, n_special_uniques = sum(x$score > 0), max_score = max(x$score),
             mean_dis = mean(x$dis), max_dis = max(x$dis), dis_file = x$dis_file,
             n_unique = x$n_unique, n_double = x$n_double)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_linkage
#' @export
tidy.epimask_linkage <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance epimask_linkage
#' @export
glance.epimask_linkage <- function(x, ...) {
  data.frame(n = x$n, risk = x$risk, linked = x$linked, distance = x$distance,
             stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method tidy risk_release
#' @export
tidy.risk_release <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance risk_release
#' @export
glance.risk_release <- function(x, ...) {
  data.frame(overall = x$overall, threshold = x$threshold, pass = x$pass)
}
