# k-anonymity as a risk criterion (methods vignette, section 7): every
# equivalence class of the keys holds at least k units (records, or persons
# with a person column). On the risk scale: the maximum (prosecutor) risk
# 1 / min f, met when at most 1 / k.

#' k-anonymity as a risk criterion
#'
#' Every equivalence class of the keys holds at least `k` records (persons,
#' when a person column is given): the maximum (prosecutor) re-identification
#' risk \eqn{1 / \min_j f_j} is at most \eqn{1 / k} (methods vignette,
#' section 7). NA in a key is a value of its own, as in [risk_kanon()].
#'
#' @param k The smallest class size accepted (a count >= 1).
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_k_anonymity", "risk_criterion")`
#'   (see [new_risk_criterion()]). Its value on a release is the maximum
#'   risk; in the lattice search a class fails when smaller than `k`; it is
#'   monotone.
#' @family risk criteria
#' @examples
#' crit <- k_anonymity(5)
#' crit
#' criterion_evaluate(crit, dose_cohort, keys = c("city", "sex"))
#' criterion_evaluate(crit, dose_cohort, keys = c("city", "sex", "age_exp"))
#' @export
k_anonymity <- function(k, keys = NULL) {
  k <- check_count(k)
  new_risk_criterion("k_anonymity", k = k, keys = keys,
                     label = sprintf("k-anonymity, k = %d", k), bound = 1 / k,
                     monotone = TRUE,
                     explanation = paste("Maximum (prosecutor) risk: one over the size of the",
                                         "smallest class of equal keys; met when every class",
                                         "holds at least k."))
}

#' @export
criterion_evaluate.risk_k_anonymity <- function(criterion, release, original = NULL,
                                                keys = NULL, id = NULL, ...) {
  keys <- criterion$keys %||% keys
  if (is.null(keys)) abort_value("keys", "the keys k-anonymity counts over")
  if (inherits(release, "epimask_synthetic"))
    return(criterion_not_applicable(criterion, paste(
      "k-anonymity counts classes of released records that are persons of the data;",
      "synthetic records are not, so the classes say nothing of re-identification",
      "(use singling_out(), linkability(), inference() or replicated_uniques())")))
  res <- risk_kanon(release, keys, k = criterion$k, id = id)
  new_criterion_result(criterion, res$max_risk, detail = res,
                       unit = if (is.null(id)) "records" else "persons")
}

#' @export
criterion_classes.risk_k_anonymity <- function(criterion, node, ...) node$size < criterion$k

#' @export
criterion_min_size.risk_k_anonymity <- function(criterion) criterion$k

#' @exportS3Method criterion_blanks_ok risk_k_anonymity
criterion_blanks_ok.risk_k_anonymity <- function(criterion) TRUE

#' @exportS3Method criterion_search_text risk_k_anonymity
criterion_search_text.risk_k_anonymity <- function(criterion, result = NULL) format(criterion)

# risk_spec("kanon", keys, measure, ...) of epimask 0.3: the criterion whose
# value is the measure asked for (the maximum risk is k-anonymity's, the
# average and strict average avg_risk()'s, the journalist and marketer risks
# k_map()'s over the population the spec names).
risk_spec_as_kanon <- function(args) {
  measure <- check_choice(args[["measure"]] %||% "strict_avg",
                          c("strict_avg", "avg", "max", "journalist", "marketer"),
                          arg = "measure")
  k <- args[["k"]] %||% 5L
  switch(measure,
    max = call("k_anonymity", k, keys = args[["keys"]]),
    avg = call("avg_risk", NA, keys = args[["keys"]]),
    strict_avg = call("avg_risk", NA, strict = TRUE, keys = args[["keys"]]),
    as.call(c(list(as.name("k_map"), k,
                   population = args[["population"]] %||% call("population_model", args[["pi"]] %||% 1)),
              compact(list(measure = measure, keys = args[["keys"]], weights = args[["weights"]],
                           pop_count = args[["pop_count"]])))))
}
attr(risk_spec_as_kanon, "required") <- "keys"
