# SUDA special uniques as a risk criterion (methods vignette, section 14;
# Elliot et al. 2002): the mean DIS-SUDA score (the expected share of
# records correctly matched as special uniques), the share of records above
# a DIS threshold, or the largest.

#' Special uniques (DIS-SUDA) as a risk criterion
#'
#' The DIS-SUDA scores of [risk_suda()] (methods vignette, section 14): the
#' value is their mean (`measure = "mean"`: the expected share of records
#' correctly matched as special uniques), the share of records whose score
#' exceeds `threshold` (`"share"`), or the largest (`"max"`); with a person
#' column, one value per person.
#'
#' In the search of [ola()] it is release-wide and evaluated on each node's
#' release ([criterion_release()]'s default): a SUDA search per node.
#'
#' @param max The largest accepted value, in \[0, 1\] (or `NA`: reported only).
#' @param max_k,dis_fraction As for [risk_suda()].
#' @param measure `"mean"`, `"share"` or `"max"`.
#' @param threshold With `measure = "share"`: the DIS-SUDA score above which a
#'   record counts.
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_suda_risk", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort
#' d$age5 <- 5 * (d$age_exp %/% 5)
#' criterion_evaluate(suda_risk(0.01), d, keys = c("city", "sex", "age5", "case"))
#' @export
suda_risk <- function(max, max_k = NULL, dis_fraction = 0.01,
                      measure = c("mean", "share", "max"), threshold = 0.1, keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  if (!is.null(max_k)) max_k <- check_count(max_k)
  dis_fraction <- check_number(dis_fraction, lower = 0, upper = 1, lower_open = TRUE,
                               upper_open = TRUE)
  measure <- check_choice(measure, c("mean", "share", "max"))
  threshold <- check_number(threshold, lower = 0, upper = 1)
  what <- switch(measure, mean = "mean DIS-SUDA score",
                 share = sprintf("share of records with DIS-SUDA above %s", format(threshold)),
                 max = "largest DIS-SUDA score")
  new_risk_criterion("suda_risk", max_k = max_k, dis_fraction = dis_fraction,
                     measure = measure, threshold = threshold, keys = keys,
                     label = if (is.na(max)) what else sprintf("%s <= %s", what, format(max)),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("Special uniques (SUDA): records unique on small",
                                         "combinations of the keys, scored by DIS-SUDA as the",
                                         "chance of a correct match."))
}

#' @export
criterion_evaluate.risk_suda_risk <- function(criterion, release, original = NULL, keys = NULL,
                                              id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "SUDA")
  if (!is.null(na)) return(na)
  res <- risk_suda(release, keys, max_k = criterion$max_k %||% length(keys),
                   dis_fraction = criterion$dis_fraction, id = id)
  dis <- res$dis
  # one value per person when the person is the unit
  if (identical(res$unit, "persons")) dis <- dis[!duplicated(res$person)]
  value <- switch(criterion$measure, mean = mean(dis), max = max(dis),
                  share = mean(dis > criterion$threshold))
  new_criterion_result(criterion, value, detail = res,
                       unit = if (is.null(id)) "records" else "persons")
}

# risk_spec("suda", keys, max_k, dis_fraction, measure, threshold) of epimask 0.3.
risk_spec_as_suda <- function(args) {
  as.call(c(list(as.name("suda_risk"), NA),
            compact(args[c("max_k", "dis_fraction", "measure", "threshold", "keys")])))
}
attr(risk_spec_as_suda, "required") <- "keys"
