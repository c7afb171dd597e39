# Individual re-identification risk under sampling as a risk criterion
# (methods vignette, section 13; Benedetti & Franconi 1998): the expected
# share of records re-identified (global risk), or the highest record risk.

#' Individual re-identification risk as a risk criterion
#'
#' The individual risk of [risk_individual()] (methods vignette, section 13):
#' with sampling `weights`, each record's risk \eqn{E(1 / F \mid f)} under the
#' negative-binomial posterior of its population count (Benedetti & Franconi
#' 1998), \eqn{1 / f} without. The value is the global risk (the expected
#' share of records re-identified, `measure = "global"`) or the highest
#' record risk (`"max"`). For clusters (households), see [cluster_risk()].
#'
#' In the search of [ola()] it is release-wide and evaluated on each node's
#' release ([criterion_release()]'s default).
#'
#' @param max The largest accepted value, in \[0, 1\] (or `NA`: reported only).
#' @param weights `NULL` or the column of sampling weights (each >= 1).
#' @param measure `"global"` or `"max"`.
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_individual_risk", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' criterion_evaluate(individual_risk(0.05, weights = rep(20, nrow(d))), d,
#'                    keys = c("city", "sex", "age10"))
#' @export
individual_risk <- function(max, weights = NULL, measure = c("global", "max"), keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  measure <- check_choice(measure, c("global", "max"))
  what <- if (measure == "global") "individual risk (global)" else "highest individual risk"
  new_risk_criterion("individual_risk", weights = weights, measure = measure, keys = keys,
                     columns = if (is.character(weights) && length(weights) == 1L) weights
                               else character(),
                     label = if (is.na(max)) what else sprintf("%s <= %s", what, format(max)),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The expected share of records re-identified when the",
                                         "release is a sample (Benedetti and Franconi), or the",
                                         "highest risk of a record."))
}

#' @export
criterion_evaluate.risk_individual_risk <- function(criterion, release, original = NULL,
                                                    keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "the individual risk")
  if (!is.null(na)) return(na)
  res <- risk_individual(release, keys, weights = criterion$weights, id = id)
  new_criterion_result(criterion, if (criterion$measure == "global") res$global
                                  else max(res$per_record),
                       detail = res, unit = if (is.null(id)) "records" else "persons")
}

# risk_spec("individual", keys, weights, cluster, measure) of epimask 0.3.
risk_spec_as_individual <- function(args) {
  rest <- compact(list(weights = args[["weights"]], measure = args[["measure"]], keys = args[["keys"]]))
  if (!is.null(args[["cluster"]])) as.call(c(list(as.name("cluster_risk"), NA, args[["cluster"]]), rest))
  else as.call(c(list(as.name("individual_risk"), NA), rest))
}
attr(risk_spec_as_individual, "required") <- "keys"
