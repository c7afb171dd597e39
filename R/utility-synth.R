# Inference from synthetic copies (methods vignette section 29): the combining
# rules for the m fits (Raab, Nowok & Dibben 2016 simplified; Reiter 2003
# partially synthetic; Raghunathan, Reiter & Rubin 2003 fully synthetic),
# the analyst's combined fit of a release, and the analysis potential of a
# synthetic release for utility_glm() and ru_profile(), with the confidence
# interval overlap of Karr et al. (2006).

#' Combine estimates from synthetic copies
#'
#' The point estimate, its standard error and a confidence interval of one
#' quantity estimated on each of the `m` copies of a synthetic release
#' (methods vignette, section 29). With \eqn{q_j} and \eqn{v_j = se_j^2} the
#' estimate and its variance on copy \eqn{j}, \eqn{\bar q = \frac1m\sum q_j},
#' \eqn{\bar u = \frac1m \sum v_j}, \eqn{b = \frac1{m-1}\sum (q_j - \bar
#' q)^2}, \eqn{n} the number of original records and \eqn{k} the records of a
#' copy:
#' \describe{
#'   \item{`"simple"`}{(Raab, Nowok & Dibben 2016, the rules synthpop uses
#'     for fully synthetic data): \eqn{T = \bar u \frac kn (1 + \frac{n}{k m})}
#'     when the copies are drawn from the fitted model, \eqn{T = \bar u \frac
#'     kn (1 + \frac{n/k + 1}{m})} when each copy's parameters are drawn
#'     (`proper`); normal interval. Valid from \eqn{m = 1} when the synthesis
#'     model is right.}
#'   \item{`"partial"`}{(Reiter 2003, partially synthetic data):
#'     \eqn{T = b/m + \bar u}, interval from the t distribution with
#'     \eqn{\nu = (m - 1)(1 + \bar u / (b/m))^2} degrees of freedom; needs
#'     \eqn{m \ge 2}.}
#'   \item{`"full"`}{(Raghunathan, Reiter & Rubin 2003, fully synthetic data
#'     drawn from the posterior predictive distribution): \eqn{T = (1 +
#'     1/m) b - \bar u}, \eqn{\nu = (m - 1)(1 - m \bar u / ((m + 1) b))^2};
#'     \eqn{T} can be negative, and is then replaced by \eqn{\frac kn \bar u}
#'     (Reiter 2002; `adjusted = TRUE`, normal interval); needs \eqn{m \ge
#'     2}.}
#' }
#' `"simple"` rests on the synthesis model being right and is stable for
#' small `m`; `"partial"` and `"full"` estimate the synthesis variance from
#' the spread of the copies and need more copies to be stable.
#'
#' @param estimate The `m` estimates, one per copy.
#' @param se Their standard errors.
#' @param rules `"simple"`, `"partial"` or `"full"`.
#' @param n,k The number of original records synthesised from and of records
#'   per copy (default both equal: only their ratio enters, in `"simple"`
#'   and the adjusted `"full"`).
#' @param proper Were each copy's parameters drawn from their posterior
#'   (`"simple"` only)?
#' @param level Confidence level of the interval.
#' @return A one-row data frame: `estimate`, `se` (\eqn{\sqrt T}), `df`
#'   (`Inf` for a normal interval), `lower`, `upper`, `between` (\eqn{b}),
#'   `within` (\eqn{\bar u}), `m`, `rule`, `adjusted`.
#' @references Raab GM, Nowok B, Dibben C (2016). Practical data synthesis
#'   for large samples. \emph{Journal of Privacy and Confidentiality} 7(3),
#'   67-97.
#'
#'   Reiter JP (2003). Inference for partially synthetic, public use
#'   microdata sets. \emph{Survey Methodology} 29(2), 181-188.
#'
#'   Raghunathan TE, Reiter JP, Rubin DB (2003). Multiple imputation for
#'   statistical disclosure limitation. \emph{Journal of Official
#'   Statistics} 19(1), 1-16.
#'
#'   Reiter JP (2002). Satisfying disclosure restrictions with synthetic data
#'   sets. \emph{Journal of Official Statistics} 18(4), 531-543.
#' @family utility
#' @seealso [fit_synthetic()] to fit a model to every copy and combine.
#' @examples
#' combine_synthetic(c(0.51, 0.47, 0.55, 0.49, 0.52), rep(0.04, 5), "simple")
#' combine_synthetic(c(0.51, 0.47, 0.55, 0.49, 0.52), rep(0.04, 5), "partial")
#' @export
combine_synthetic <- function(estimate, se, rules = c("simple", "partial", "full"), n = NULL,
                              k = NULL, proper = FALSE, level = 0.95) {
  rules <- check_choice(rules, c("simple", "partial", "full"), arg = "rules")
  estimate <- check_numeric_vector(estimate, "estimate")
  se <- check_numeric_vector(se, "se", len = length(estimate))
  if (any(se < 0)) abort_value("se", "standard errors >= 0")
  if (!length(estimate)) abort_empty("estimate")
  n <- check_number(n, "n", lower = 1, allow_null = TRUE)
  k <- check_number(k, "k", lower = 1, allow_null = TRUE)
  ratio <- if (is.null(n) || is.null(k)) 1 else k / n
  proper <- check_flag(proper, "proper")
  level <- check_number(level, "level", lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  m <- length(estimate)
  if (rules != "simple" && m < 2L)
    abort_value("rules", sprintf("\"simple\" for one copy (the \"%s\" rules need m >= 2 copies)", rules))
  q <- mean(estimate)
  u <- mean(se^2)
  b <- if (m >= 2L) stats::var(estimate) else NA_real_
  adjusted <- FALSE
  df <- Inf
  total <- switch(rules,
    simple = u * ratio * (1 + (if (proper) 1 / ratio + 1 else 1 / ratio) / m),
    partial = {
      if (b > 0) df <- (m - 1) * (1 + u / (b / m))^2
      b / m + u
    },
    full = {
      t_f <- (1 + 1 / m) * b - u
      if (t_f > 0) {
        df <- (m - 1) * (1 - m * u / ((m + 1) * b))^2
        t_f
      } else {
        adjusted <- TRUE
        ratio * u
      }
    })
  half <- sqrt(total) * (if (is.finite(df)) stats::qt(1 - (1 - level) / 2, df)
                         else stats::qnorm(1 - (1 - level) / 2))
  data.frame(estimate = q, se = sqrt(total), df = df, lower = q - half, upper = q + half,
             between = b, within = u, m = m, rule = rules, adjusted = adjusted,
             stringsAsFactors = FALSE)
}

# The combining of a release, for each term: per-copy estimates (a data
# frame with `term`, `estimate`, `se`, `copy`) combined by the release's
# rule (`rule` = NULL: the one it states).
combine_release_terms <- function(per_copy, info, rule = NULL, level = 0.95) {
  rule <- rule %||% synthetic_rule(info)
  if (rule != "simple" && info$m < 2L) rule <- "simple"
  terms <- unique(per_copy$term)
  rows <- lapply(terms, function(t) {
    e <- per_copy[per_copy$term == t, , drop = FALSE]
    if (any(!is.finite(e$estimate) | !is.finite(e$se)))
      return(data.frame(estimate = NA_real_, se = NA_real_, df = NA_real_, lower = NA_real_,
                        upper = NA_real_, between = NA_real_, within = NA_real_, m = info$m,
                        rule = rule, adjusted = FALSE, stringsAsFactors = FALSE))
    combine_synthetic(e$estimate, e$se, rule, n = info$n, k = mean(info$k),
                      proper = info$proper, level = level)
  })
  cbind(data.frame(term = terms, stringsAsFactors = FALSE), do.call(rbind, rows))
}

#' Fit a model to every copy of a synthetic release and combine
#'
#' What an analyst does with a synthetic release: the same model fitted to
#' each of the `m` copies ([fit_glm()], [fit_cox()] or [fit_err()], as in
#' [utility_glm()]) and the fits combined, term by term, by the release's
#' combining rules ([combine_synthetic()]).
#'
#' @param release A synthetic release ([epimask_synthetic]).
#' @param formula,family,term As in [utility_glm()].
#' @param rules `NULL` (the rules the release states, `"auto"` resolved:
#'   `"simple"` for a fully synthetic release, `"partial"` for a partially
#'   synthetic one) or one of `"simple"`, `"partial"`, `"full"`.
#' @param level Confidence level.
#' @return An object of class `epimask_synthetic_fit`: `table` (one row per
#'   term: `term`, `estimate`, `se`, `df`, `lower`, `upper`, `between`,
#'   `within`, `m`, `rule`, `adjusted`), `copies` (the per-copy estimates:
#'   `copy`, `term`, `estimate`, `se`), `rule`, `family`, `formula`. Methods
#'   `print()`, `format()`, `coef()`, `confint()`, [tidy()][epimask-tidiers],
#'   [glance()][epimask-tidiers].
#' @family utility
#' @examples
#' set.seed(3)
#' d <- data.frame(x = rnorm(400))
#' d$y <- rbinom(400, 1, plogis(-0.5 + 0.8 * d$x))
#' syn <- apply_mask(d, mask_synth(m = 5, method = "parametric"))
#' fit <- fit_synthetic(syn, y ~ x, family = binomial())
#' fit
#' tidy(fit)
#' @export
fit_synthetic <- function(release, formula, family = gaussian(), term = NULL, rules = NULL,
                          level = 0.95) {
  info <- synthetic_info(release, "release")
  check_formula(formula)
  if (!is.null(rules)) rules <- check_choice(rules, c("simple", "partial", "full"), arg = "rules")
  model <- resolve_model(family, term, formula)
  per_copy <- copy_term_estimates(release, model)
  table <- combine_release_terms(per_copy, info, rules, level)
  structure(list(table = table, copies = per_copy, rule = table$rule[[1L]],
                 family = model$label, formula = formula, level = level),
            class = "epimask_synthetic_fit")
}

# The terms' estimates and SEs on every copy (fits of the model of
# utility_glm()).
copy_term_estimates <- function(release, model) {
  copies <- unclass(release)
  terms <- NULL
  rows <- lapply(seq_along(copies), function(j) {
    d <- as_plain_data(copies[[j]])
    fit <- fit_model(model, d)
    if (is.null(terms)) terms <<- resolve_terms(model, fit, d, multiple = TRUE)
    est <- term_estimates(model, fit, d, terms)
    est$copy <- j
    est
  })
  out <- do.call(rbind, rows)
  out[c("copy", "term", "estimate", "se")]
}

#' @export
format.epimask_synthetic_fit <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)
  tab <- x$table
  shown <- data.frame(term = tab$term, estimate = format_num(tab$estimate, digits),
                      se = format_num(tab$se, digits),
                      df = ifelse(is.finite(tab$df), format_num(tab$df, 1), "Inf"),
                      lower = format_num(tab$lower, digits), upper = format_num(tab$upper, digits),
                      stringsAsFactors = FALSE)
  names(shown)[5:6] <- sprintf(c("%s%% lower", "%s%% upper"), format(100 * x$level))
  c(sprintf("Fit to %d synthetic cop%s (%s model), combined by the %s rules", tab$m[[1L]],
            if (tab$m[[1L]] == 1L) "y" else "ies", x$family, x$rule),
    utils::capture.output(print(shown, row.names = FALSE, right = TRUE)),
    if (any(tab$adjusted)) "(the full-synthesis variance was negative: (k/n) mean variance used instead, Reiter 2002)")
}

#' @export
print.epimask_synthetic_fit <- function(x, ...) print_formatted(x, ...)

#' @export
coef.epimask_synthetic_fit <- function(object, ...) stats::setNames(object$table$estimate, object$table$term)

#' @export
confint.epimask_synthetic_fit <- function(object, parm, level = 0.95, ...) {
  tab <- object$table
  if (!missing(level) && !isTRUE(all.equal(level, object$level))) {
    z <- ifelse(is.finite(tab$df), stats::qt(1 - (1 - level) / 2, tab$df),
                stats::qnorm(1 - (1 - level) / 2))
    tab$lower <- tab$estimate - z * tab$se
    tab$upper <- tab$estimate + z * tab$se
  }
  out <- cbind(tab$lower, tab$upper)
  dimnames(out) <- list(tab$term, sprintf("%s %%", format(100 * c((1 - level) / 2, 1 - (1 - level) / 2))))
  if (!missing(parm)) out <- out[parm, , drop = FALSE]
  out
}

#' @rdname epimask-tidiers
#' @export
tidy.epimask_synthetic_fit <- function(x, ...) {
  tab <- x$table
  stat <- tab$estimate / tab$se
  data.frame(term = tab$term, estimate = tab$estimate, std.error = tab$se, statistic = stat,
             p.value = ifelse(is.finite(tab$df), 2 * stats::pt(-abs(stat), tab$df),
                              2 * stats::pnorm(-abs(stat))),
             conf.low = tab$lower, conf.high = tab$upper, df = tab$df, rule = tab$rule,
             stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @export
glance.epimask_synthetic_fit <- function(x, ...) {
  data.frame(m = x$table$m[[1L]], rule = x$rule, family = x$family, terms = nrow(x$table),
             stringsAsFactors = FALSE)
}

# ---- analysis potential of a synthetic release (utility_glm, ru_profile) ------------

# utility_glm() on a synthetic release: the original fit against the copies'
# fits combined by the release's rule; the CI overlap of Karr et al. (2006)
# between the original's normal interval and the combined interval (the t
# interval of the "partial" and "full" rules).
utility_synthetic <- function(original, release, formula, family, term, truth) {
  info <- synthetic_info(release, "masked")
  original <- as_plain_data(check_data(original))
  check_formula(formula)
  model <- resolve_model(family, term, formula)
  fit_o <- fit_model(model, original)
  terms <- resolve_terms(model, fit_o, original, multiple = TRUE)
  est_o <- term_estimates(model, fit_o, original, terms)
  per_copy <- copy_term_estimates(release, model)
  combined <- combine_release_terms(per_copy, info)
  combined <- combined[match(est_o$term, combined$term), , drop = FALSE]
  if (!is.null(truth)) truth <- check_numeric_vector(truth, len = nrow(est_o))
  table <- utility_table(est_o, data.frame(term = combined$term, estimate = combined$estimate,
                                           se = combined$se, stringsAsFactors = FALSE), truth)
  z <- stats::qnorm(0.975)
  table$ci_overlap <- vapply(seq_len(nrow(table)), function(j)
    ci_overlap(est_o$estimate[j] - z * est_o$se[j], est_o$estimate[j] + z * est_o$se[j],
               combined$lower[j], combined$upper[j]), numeric(1))
  table$rule <- combined$rule
  table$df <- combined$df
  table$between <- combined$between
  table$within <- combined$within
  table$m <- combined$m
  structure(list(table = table, original = fit_o, copies = per_copy, formula = formula,
                 family = model$label, reference = if (is.null(truth)) "original" else "truth",
                 rule = combined$rule[[1L]], m = info$m),
            class = c("epimask_utility_synthetic", "epimask_utility"))
}

#' @export
format.epimask_utility_synthetic <- function(x, ...) {
  out <- NextMethod()
  out[[1L]] <- sub("of masked data", sprintf("of a synthetic release (%d copies)", x$m), out[[1L]],
                   fixed = TRUE)
  c(out, sprintf("masked = the copies' fits combined by the %s rules (%s); overlap of the original's 95%% CI with the combined one",
                 x$rule, if (x$rule == "simple") "normal interval" else "t interval"))
}

# A profile's replicate of a synthetic scheme: the quantity's estimate and
# SE on every copy, combined by the release's rule (NA when a copy's fit
# fails).
synthetic_replicate_estimate <- function(job, release) {
  info <- synthetic_info(release, "masked")
  copies <- unclass(release)
  values <- lapply(copies, function(d) replicate_estimate(job, as_plain_data(d)))
  est <- vapply(values, `[[`, numeric(1), 1L)
  se <- vapply(values, `[[`, numeric(1), 2L)
  # the records the copies' fits used and lost, summed over the copies
  count <- function(field) sum(vapply(values, function(v) {
    r <- attr(v, "records")
    if (is.null(r) || is.null(r[[field]])) 0 else as.double(r[[field]])
  }, numeric(1)))
  records <- fit_records(count("total"), count("used"), count("stop_le_start"))
  if (any(!is.finite(est) | !is.finite(se))) {
    err <- Filter(Negate(is.null), lapply(values, attr, "error"))
    out <- c(NA_real_, NA_real_)
    if (length(err)) attr(out, "error") <- err[[1L]]
    attr(out, "records") <- records
    return(out)
  }
  per_copy <- data.frame(term = "q", estimate = est, se = se, stringsAsFactors = FALSE)
  comb <- combine_release_terms(per_copy, info)
  structure(c(comb$estimate, comb$se), records = records)
}

# utility_general() of a synthetic release: each measure on every copy
# against the original records synthesised from, averaged over the copies;
# IL1s (records paired) only for a partially synthetic release.
utility_general_synthetic <- function(original, release, vars, measures, nperm) {
  parts <- release_copies_and_original(release, original)
  info <- synthetic_info(release, "masked")
  if (!info$partial) measures <- setdiff(measures, "il1s")
  if (!length(measures)) abort_value("measures", "a measure other than IL1s for a fully synthetic release")
  each <- lapply(parts$copies, function(cp)
    utility_general(parts$original, cp, vars = vars, measures = measures, nperm = nperm))
  out <- each[[1L]]
  mean_of <- function(f) mean(vapply(each, function(u) as.double(f(u)), numeric(1)))
  if (!is.null(out$pmse))
    out$pmse <- vapply(names(out$pmse), function(nm) mean_of(function(u) u$pmse[[nm]]), numeric(1))
  for (col in c("ks", "il1s"))
    out$variables[[col]] <- rowMeans(vapply(each, function(u) as.double(u$variables[[col]]),
                                            numeric(nrow(out$variables))))
  out$ks_max <- mean_of(function(u) u$ks_max)
  out$il1s <- mean_of(function(u) u$il1s)
  out$cor_change <- mean_of(function(u) u$cor_change)
  out$separation <- any(vapply(each, function(u) isTRUE(u$separation), logical(1)))
  out$copies <- length(each)
  out
}
