# Average re-identification risk as a risk criterion (methods vignette,
# sections 7 and 20; ARX AverageReidentificationRisk): released classes per
# released unit, J / n, at most `max`; or El Emam's strict average (the
# average when every class holds at least 3 units, else the maximum risk
# 1 / min f), the risk given an attack of a non-public release context.

#' Average re-identification risk as a risk criterion
#'
#' The average risk is the number of equivalence classes of the keys over the
#' number of records (persons, with a person column), \eqn{J / n}: the
#' expected share of records a prosecutor re-identifies when picking a record
#' of each class at random (methods vignette, sections 7 and 20). The
#' *strict* average (El Emam & Malin 2014) is the average when every class has
#' at least 3 records and the maximum risk \eqn{1 / \min f} otherwise; it is
#' the risk given an attack of a non-public [release_context()].
#'
#' In the search of [ola()] the criterion is release-wide: as ARX does, the
#' smallest released classes are suppressed first (ties by their generalized
#' values) until the risk is at most `max`, within the suppression limit. Both
#' the average and the strict average never rise along that order, so the
#' least count is found in one pass. Predictive tagging does not use it (the
#' search checks it on every node the k-anonymity part leaves).
#'
#' @param max The largest accepted risk, in (0, 1]; `NA` for a criterion that
#'   is reported only (a profile's risk axis, say).
#' @param strict `TRUE` for the strict average.
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_avg_risk", "risk_criterion")`
#'   (see [new_risk_criterion()]); its value on a release is the (strict)
#'   average risk of [risk_kanon()].
#' @family risk criteria
#' @examples
#' crit <- avg_risk(0.1)
#' crit
#' criterion_evaluate(crit, dose_cohort, keys = c("city", "sex"))
#' criterion_evaluate(avg_risk(0.1, strict = TRUE), dose_cohort, keys = c("city", "sex", "age_exp"))
#' h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'           race = hierarchy_flat())
#' ola(adult_extract[1:1000, ], c("age", "sex", "race"), h,
#'     criteria = list(k_anonymity(2), avg_risk(0.05)))
#' @export
avg_risk <- function(max, strict = FALSE, keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) {
    max <- check_number(max, lower = 0, upper = 1)
    if (max <= 0) abort_value("max", "a share above 0 (classes per released record)")
  }
  check_flag(strict)
  what <- if (strict) "strict average risk" else "average risk"
  new_risk_criterion("avg_risk", strict = strict, keys = keys,
                     label = if (is.na(max)) what else sprintf("%s <= %s", what, format(max)),
                     bound = as.double(max), monotone = FALSE,
                     explanation = if (strict)
                       paste("Strict average risk: classes per record when every class holds",
                             "at least 3 records, else one over the smallest class.")
                     else paste("Average risk: the number of classes of equal keys over the",
                                "number of records."))
}

#' @export
criterion_evaluate.risk_avg_risk <- function(criterion, release, original = NULL, keys = NULL,
                                             id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "the average risk")
  if (!is.null(na)) return(na)
  res <- risk_kanon(release, keys, id = id)
  new_criterion_result(criterion, if (criterion$strict) res$strict_avg_risk else res$avg_risk,
                       detail = res, unit = if (is.null(id)) "records" else "persons")
}

# The released classes' (strict) average risk after suppressing the first m
# classes of `order`, for m = 0, 1, ..., length(order): the classes are
# smallest first, so the smallest remaining class is the next in the order.
avg_risk_path <- function(size, order, strict) {
  cum <- c(0, cumsum(size[order]))
  m <- seq_along(cum) - 1L
  classes <- length(order) - m
  records <- sum(size[order]) - cum
  list(classes = classes, records = records,
       smallest = c(size[order], Inf)[m + 1L], m = m)
}

# ARX's rule (methods vignette section 20): the least number of the smallest
# released classes whose suppression meets the bound. Suppressing a class
# smaller than the average lowers the ratio, and once the smallest class is
# not below the average every remaining class equals it, so the ratio never
# rises along the order (the strict average neither: its smallest class only
# grows) and the first count that meets the bound is the least (ARX finds it
# by binary search).
#' @export
criterion_suppress.risk_avg_risk <- function(criterion, node, kept, order, ...) {
  p <- avg_risk_path(node$size, order, criterion$strict)
  b <- criterion$bound
  meets <- if (!criterion$strict) p$classes <= b * p$records
           else ifelse(p$smallest >= 3, p$classes <= b * p$records, 1 <= b * p$smallest)
  # an empty release has no risk
  meets[p$classes == 0L] <- TRUE
  first <- which(meets)[1L]
  if (is.na(first)) NA_integer_ else p$m[[first]]
}

#' @export
criterion_release.risk_avg_risk <- function(criterion, node, kept, ...) {
  order <- which(kept)
  identical(criterion_suppress(criterion, node, kept, order[order(node$size[order])]), 0L)
}

#' @exportS3Method criterion_blanks_ok risk_avg_risk
criterion_blanks_ok.risk_avg_risk <- function(criterion) TRUE

#' @exportS3Method criterion_search_text risk_avg_risk
criterion_search_text.risk_avg_risk <- function(criterion, result = NULL) format(criterion)

#' @exportS3Method criterion_legacy_field risk_avg_risk
criterion_legacy_field.risk_avg_risk <- function(criterion, result = NULL) {
  if (criterion$strict) NULL else list(avg_risk = criterion$bound)
}
