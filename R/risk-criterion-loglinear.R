# Skinner & Shlomo's log-linear risk as a risk criterion (methods vignette,
# section 22): tau1 / n (the expected share of released units that are
# sample uniques unique in the population) or tau2 / n (the expected share
# correctly matched), fitted by risk_loglinear() on the released key table,
# at most `max`. In the search it suppresses nothing of its own: it is
# checked on the release the other criteria leave (each count suppressed
# would refit the whole key table).

#' Log-linear re-identification risk as a risk criterion
#'
#' Skinner & Shlomo's log-linear risk (methods vignette, section 22): the
#' released key table is fitted by [risk_loglinear()] (a Poisson log-linear
#' model of the cell counts, main effects or `formula`), with the sampling
#' fraction `pi` or the sampling `weights` (a column, each at least 1;
#' neither: the data are the population), and \eqn{\tau_1 / n} (`measure =
#' "tau1"`: the expected share of released units that are sample uniques
#' unique in the population) or \eqn{\tau_2 / n} (`"tau2"`: the expected
#' share correctly matched) must be at most `max`, \eqn{n} the released
#' records (persons).
#'
#' In the search of [ola()] it is checked on the release the other criteria
#' leave and suppresses nothing of its own (each count suppressed would refit
#' the whole key table: on Adult's five usual keys, 81,760 cells, and
#' hundreds of counts per node): a node meets it by its generalization. A
#' table too large to fit or a model that does not converge fails the node.
#' It concerns sample uniques: with \eqn{k \ge 2} and `outliers = "small"` the
#' released classes have none (\eqn{\tau = 0}), so it bites with \eqn{k = 1}.
#' Not with local recoding.
#'
#' @param max The largest accepted share, in \[0, 1\] (or `NA`: reported only).
#' @param pi `NULL` or the sampling fraction.
#' @param weights `NULL` or the column of sampling weights (each >= 1).
#' @param measure `"tau1"` or `"tau2"`.
#' @param formula `NULL` (main effects) or a one-sided formula of the keys.
#' @param method The fitting method of [risk_loglinear()].
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_loglinear_risk", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' crit <- loglinear_risk(0.01, pi = 0.05)
#' crit
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' criterion_evaluate(crit, d, keys = c("city", "sex", "age10"))
#' @export
loglinear_risk <- function(max, pi = NULL, weights = NULL, measure = c("tau1", "tau2"),
                           formula = NULL, method = c("default", "CE", "PML", "IPF"),
                           keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  measure <- check_choice(measure, c("tau1", "tau2"))
  method <- check_choice(method, c("default", "CE", "PML", "IPF"))
  if (!is.null(pi) && !is.null(weights))
    abort_value("weights", "NULL when `pi` is given (the weights give the fractions)")
  if (!is.null(pi)) pi <- check_sampling_fraction(pi, arg = "pi")
  if (!is.null(weights) && !(is.character(weights) && length(weights) == 1L) &&
      !is.numeric(weights))
    abort_type("weights", "NULL, a column name or a numeric vector of sampling weights")
  if (!is.null(formula) && !inherits(formula, "formula"))
    abort_type("formula", "NULL or a one-sided formula of the keys")
  source <- if (is.character(weights)) sprintf("weights '%s'", weights)
            else if (!is.null(weights)) "weights" else if (!is.null(pi)) sprintf("pi %s", format(pi))
            else "census"
  new_risk_criterion("loglinear_risk", pi = pi, weights = weights, measure = measure,
                     formula = formula, method = method, keys = keys,
                     columns = if (is.character(weights)) weights else character(),
                     label = if (is.na(max)) sprintf("log-linear risk %s share (%s)", measure, source)
                             else sprintf("log-linear risk %s share <= %s (%s)", measure,
                                          format(max), source),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The expected share of released records that are unique",
                                         "in the sample and in the population (tau1), or that an",
                                         "intruder matches correctly (tau2), by Skinner and",
                                         "Shlomo's log-linear model of the key table."))
}

# The weights as one per unit of the search (equal on a person's records).
#' @export
criterion_prepare.risk_loglinear_risk <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- criterion_prepare.default(criterion, data, keys = keys, id = id)
  criterion$unit_weights <- unit_weights(criterion$weights, data, generalize_persons(data, id),
                                         "loglinear")
  criterion
}

#' @export
criterion_evaluate.risk_loglinear_risk <- function(criterion, release, original = NULL,
                                                   keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "the log-linear risk")
  if (!is.null(na)) return(na)
  unit <- if (is.null(id)) "records" else "persons"
  res <- tryCatch(risk_loglinear(release, keys, weights = criterion$weights,
                                 formula = criterion$formula, method = criterion$method,
                                 pi = criterion$pi, id = id),
                  epimask_error = function(e) e)
  if (inherits(res, "error"))
    return(new_criterion_result(criterion, NA_real_, unit = unit,
                                note = sprintf("not computed: %s", conditionMessage(res))))
  new_criterion_result(criterion, if (criterion$measure == "tau1") res$tau1_share
                                  else res$tau2_share, detail = res, unit = unit)
}

#' @export
criterion_release.risk_loglinear_risk <- function(criterion, node, kept, ...) {
  share <- loglinear_share(node$class_codes, node$unit_class(), kept, node$lat$keys,
                           loglinear_spec(criterion))
  is.finite(share) && share <= criterion$bound * (1 + 1e-12)
}

# The search's value of the criterion at its node (for the print and
# `$criteria`): the share on the release.
#' @exportS3Method criterion_search_text risk_loglinear_risk
criterion_search_text.risk_loglinear_risk <- function(criterion, result = NULL) {
  source <- if (is.character(criterion$weights)) sprintf("weights '%s'", criterion$weights)
            else if (!is.null(criterion$pi)) sprintf("pi %s", format(criterion$pi)) else "census"
  sprintf("log-linear risk %s share <= %s (%s; release %s)", criterion$measure,
          format(criterion$bound), source,
          if (is.null(result)) "NA" else format(signif(result$value, 4)))
}

#' @exportS3Method criterion_legacy_field risk_loglinear_risk
criterion_legacy_field.risk_loglinear_risk <- function(criterion, result = NULL) {
  list(loglinear = list(max = criterion$bound, pi = criterion$pi, measure = criterion$measure,
                        formula = criterion$formula,
                        weights_column = if (is.character(criterion$weights)) criterion$weights,
                        release = if (!is.null(result)) result$value))
}

# The search's spec of the criterion (loglinear_share()).
loglinear_spec <- function(criterion) {
  list(max = criterion$bound, pi = criterion$pi, weights = criterion$unit_weights,
       measure = criterion$measure, formula = criterion$formula)
}

#' @exportS3Method criterion_detail_rows risk_loglinear_risk
criterion_detail_rows.risk_loglinear_risk <- function(criterion, data, context = NULL,
                                                      original = NULL, what = "the data",
                                                      keys = NULL, id = NULL) {
  loglinear_detail_rows(data, keys, criterion, what, id)
}

# tau1 / n (or tau2 / n) of the released units by risk_loglinear(): the
# expected share of released units that are sample uniques unique in the
# population (or correctly matched). An empty release has no risk; a model
# that cannot be fitted (table too large) or does not converge gives NA,
# which fails the node.
loglinear_share <- function(class_codes, unit_class, kept, keys, spec) {
  if (!is.null(attr(class_codes, "sets")))
    return(set_loglinear_share(unit_class, kept, attr(class_codes, "sets"), spec))
  rows <- which(kept[unit_class])
  if (!length(rows)) return(0)
  loglinear_fit_share(class_frame(class_codes, unit_class, rows, keys), keys,
                      if (!is.null(spec$weights)) spec$weights[rows], spec)
}

# risk_loglinear()'s tau1 / n (or tau2 / n) of a frame of released units
# (`id`: the column of their persons); NA when it cannot be fitted or does
# not converge.
loglinear_fit_share <- function(frame, keys, weights, spec, id = NULL) {
  converged <- TRUE
  res <- tryCatch(withCallingHandlers(
    risk_loglinear(frame, keys, weights = weights, formula = spec$formula, pi = spec$pi,
                   id = id),
    epimask_warning_convergence = function(w) {
      converged <<- FALSE
      invokeRestart("muffleWarning")
    }), epimask_error = function(e) NULL)
  if (is.null(res) || !converged) return(NA_real_)
  if (spec$measure == "tau1") res$tau1_share else res$tau2_share
}

check_loglinear_criterion <- function(loglinear, data, person) {
  if (is.null(loglinear)) return(NULL)
  allowed <- c("max", "pi", "weights", "measure", "formula")
  if (!is.list(loglinear) || is.null(names(loglinear)) || !"max" %in% names(loglinear) ||
      length(setdiff(names(loglinear), allowed)))
    abort_type("loglinear", paste0("a list(max = , pi = , weights = , measure = , formula = ) ",
                                   "(max required; the others optional)"))
  max <- check_number(loglinear$max, lower = 0, upper = 1, arg = "loglinear")
  measure <- loglinear$measure %||% "tau1"
  if (!is.character(measure) || length(measure) != 1L || !measure %in% c("tau1", "tau2"))
    abort_value("loglinear", "a `measure` \"tau1\" or \"tau2\"")
  if (!is.null(loglinear$pi) && !is.null(loglinear$weights))
    abort_value("loglinear", "a list with `pi` or `weights`, not both (the weights give the fractions)")
  pi <- if (!is.null(loglinear$pi)) check_sampling_fraction(loglinear$pi, arg = "loglinear")
  weights <- unit_weights(loglinear$weights, data, person, "loglinear")
  formula <- loglinear$formula
  if (!is.null(formula) && !inherits(formula, "formula"))
    abort_type("loglinear", "a list whose `formula` is NULL or a one-sided formula of the keys")
  list(max = max, pi = pi, weights = weights, measure = measure, formula = formula,
       weights_column = if (is.character(loglinear$weights)) loglinear$weights)
}

# risk_spec("loglinear", keys, weights, formula, method, pi, measure) of epimask 0.3.
risk_spec_as_loglinear <- function(args) {
  as.call(c(list(as.name("loglinear_risk"), NA),
            compact(args[c("pi", "weights", "measure", "formula", "method", "keys")])))
}
attr(risk_spec_as_loglinear, "required") <- "keys"

# The rows of the log-linear risk in the reports' risk tables: tau1, tau2 and
# the highest record risk of a correct match, the model in the notes.
loglinear_detail_rows <- function(data, keys, criterion, what, id) {
  out <- detail_rows()
  ll <- detail_attempt(out, risk_loglinear(data, keys = keys, weights = criterion$weights,
                                           formula = criterion$formula, method = criterion$method,
                                           pi = criterion$pi, id = id),
                       "The log-linear risk", what)
  if (is.null(ll)) return(out)
  keys_text <- paste(keys, collapse = ", ")
  out$add(sprintf("Log-linear model on %s: expected sample uniques that are population unique (tau1)",
                  keys_text), ll$tau1)
  out$add(sprintf("Log-linear model on %s: expected correct matches of sample uniques (tau2)",
                  keys_text), ll$tau2)
  out$add(sprintf("Log-linear model on %s: highest record risk of a correct match", keys_text),
          max(ll$per_record$match_prob))
  out$note(sprintf(
    "Log-linear risk of %s (Skinner & Shlomo): tau1 = %s, tau2 = %s; model %s, %s method, %s cells, %s sample uniques, sampling fraction %s%s.",
    what, format(signif(ll$tau1, 4)), format(signif(ll$tau2, 4)),
    paste(deparse(ll$formula), collapse = " "), ll$method,
    format(ll$n_cells, big.mark = ","), format(ll$sample_uniques, big.mark = ","),
    format(signif(ll$pi, 3)), if (ll$weighted) " (from the weights)" else ""))
  out
}

#' @exportS3Method criterion_detail_explanations risk_loglinear_risk
criterion_detail_explanations.risk_loglinear_risk <- function(criterion, context = NULL) {
  paste(
    "Log-linear risk (Skinner and Shlomo): a model of the table of quasi-identifier",
    "combinations estimates, for every record unique in the file, the chance that it is",
    "unique in the population too. tau1 is the expected number of such records, tau2 the",
    "expected number of correct matches an intruder makes by linking the unique records",
    "to a population register, and the highest record risk is the largest chance that one",
    "record is correctly matched. The model assumes the combinations follow its main",
    "effects (or the interactions named in the notes).")
}

#' @exportS3Method criterion_limit_note risk_loglinear_risk
criterion_limit_note.risk_loglinear_risk <- function(criterion) {
  sprintf("The search required the log-linear %s divided by the released records to be at most %s.",
          criterion$measure, format(criterion$bound))
}

#' @exportS3Method criterion_whole_release risk_loglinear_risk
criterion_whole_release.risk_loglinear_risk <- function(criterion) TRUE
