# Population uniqueness as a risk criterion (methods vignette, section 21;
# ARX PopulationUniqueness): the estimated share of the population unique on
# the released keys, from the histogram of the released classes' sizes, at
# most `max`. Not monotone in the classes suppressed: the search tries the
# counts of the smallest classes one by one.

#' Population uniqueness as a risk criterion
#'
#' The estimated share of the population that is unique on the released
#' keys, when the data are a sample of a population with sampling fraction
#' \eqn{\pi} (methods vignette, section 21; ARX's PopulationUniqueness): the
#' estimators of [risk_population()] (`model` of [population_model()]:
#' Dankar et al.'s rule, Pitman, Zayatz or SNB) on the histogram of the
#' released classes' sizes, the population size fixed at \eqn{N =
#' round(n / \pi)} for the \eqn{n} records (persons) of the data, so that a
#' release of \eqn{n_r} records is a sample of fraction \eqn{n_r / N}. An
#' estimate that does not converge is `NA`, which fails.
#'
#' In the search of [ola()] it is release-wide and not monotone: after the
#' other criteria, the smallest released classes are suppressed first (ties
#' by their generalized values), the least number that meets `max`, within
#' the suppression limit; every count is tried (the share is not monotone in
#' it, where ARX searches it by bisection). Population uniques are sample
#' uniques: with \eqn{k \ge 2} and `outliers = "small"` the released classes
#' have none, so the criterion bites with \eqn{k = 1}. Not with local
#' recoding (the share is of the whole release).
#'
#' @param max The largest accepted share, in \[0, 1\] (or `NA`: reported only).
#' @param model A [population_model()] (the sampling fraction and the
#'   estimator).
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_uniqueness", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' crit <- uniqueness(0.01, population_model(0.05))
#' crit
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' criterion_evaluate(crit, d, keys = c("city", "sex", "age10"))
#' @export
uniqueness <- function(max, model, keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  if (missing(model) || !inherits(model, "epimask_population_model"))
    abort_type("model", "a population_model() (the sampling fraction and the estimator)")
  new_risk_criterion("uniqueness", model = model, keys = keys,
                     label = if (is.na(max)) sprintf("population uniqueness (%s, pi %s)",
                                                     model$model, format(model$pi))
                             else sprintf("population uniqueness <= %s (%s, pi %s)", format(max),
                                          model$model, format(model$pi)),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The estimated share of the population that is unique",
                                         "on the released keys (the release a sample of it)."))
}

#' @export
criterion_evaluate.risk_uniqueness <- function(criterion, release, original = NULL,
                                               keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "population uniqueness")
  if (!is.null(na)) return(na)
  unit <- if (is.null(id)) "records" else "persons"
  model <- criterion$model
  # the release is a sample of the population of the data: its fraction is
  # its units over N = round(n / pi), n the units of the data (the same as pi
  # when nothing was withheld)
  n_rel <- units_of(release, id)
  n_data <- if (!is.null(original) && all(c(keys, id) %in% names(original)))
    units_of(original, id) else n_rel
  if (n_rel < n_data) model$pi <- n_rel / round(n_data / model$pi)
  res <- suppressWarnings(risk_population(release, keys, pi = model, compare = FALSE, id = id))
  new_criterion_result(criterion, res$share, detail = res, unit = unit,
                       note = if (is.na(res$share))
                         sprintf("the estimate did not converge (%s)", res$reason))
}

#' @export
criterion_release.risk_uniqueness <- function(criterion, node, kept, ...) {
  share <- uniqueness_share(node$size[kept], criterion$model, node$n)
  is.finite(share) && share <= criterion$bound * (1 + 1e-12)
}

#' @export
criterion_suppress.risk_uniqueness <- function(criterion, node, kept, order, ...) "scan"

#' @exportS3Method criterion_search_text risk_uniqueness
criterion_search_text.risk_uniqueness <- function(criterion, result = NULL) format(criterion)

#' @exportS3Method criterion_legacy_field risk_uniqueness
criterion_legacy_field.risk_uniqueness <- function(criterion, result = NULL) {
  list(uniqueness = list(pi = criterion$model$pi, model = criterion$model$model,
                         max = criterion$bound))
}

# The report's rows (methods vignette section 21): the estimated number and
# share of population uniques, and for a public context the public attack
# judged by that share (risk_release(uniqueness = )).
#' @exportS3Method criterion_detail_rows risk_uniqueness
criterion_detail_rows.risk_uniqueness <- function(criterion, data, context = NULL,
                                                  original = NULL, what = "the data",
                                                  keys = NULL, id = NULL) {
  population_detail_rows(data, keys, criterion$model, context, what, id)
}

# The number of units (records, or persons of the `id` column) of a data set.
units_of <- function(data, id = NULL) {
  if (is.null(id)) nrow(data) else length(unique(data[[id]]))
}

# The estimated share of population uniques among the released records: the
# histogram of the released classes' sizes, the population size fixed at
# N = round(n / pi) for the n records of the data (the released records are
# a sample of the same population: fraction n_released / N). An empty
# release has no uniques; an estimate that is NA (the model did not
# converge) fails the criterion.
uniqueness_share <- function(size, spec, n) {
  if (!length(size)) return(0)
  N <- round(n / spec$pi)
  n_rel <- sum(size)
  h <- class_histogram(size)
  est <- population_uniques(h$size, h$count, n_rel / N, spec$model, warn = FALSE,
                            compare = FALSE)
  est$uniques / N
}

check_uniqueness <- function(uniqueness) {
  if (is.null(uniqueness)) return(NULL)
  if (!is.list(uniqueness) || is.null(names(uniqueness)) ||
      !all(c("pi", "max") %in% names(uniqueness)) ||
      length(setdiff(names(uniqueness), c("pi", "model", "max"))))
    abort_type("uniqueness", "a list(pi = , model = , max = ) (model optional, \"dankar\")")
  pi <- check_sampling_fraction(uniqueness$pi, arg = "uniqueness")
  model <- uniqueness$model %||% "dankar"
  if (!is.character(model) || length(model) != 1L || !model %in% population_models)
    abort_value("uniqueness", sprintf("a `model` among %s",
                                      paste0('"', population_models, '"', collapse = ", ")))
  max <- check_number(uniqueness$max, lower = 0, upper = 1, arg = "uniqueness")
  list(pi = pi, model = model, max = max)
}

# risk_spec("population", keys, pi, model, arx) of epimask 0.3.
risk_spec_as_population <- function(args) {
  pi <- args[["pi"]] %||% args[["population"]]
  if (is.null(pi))
    epimask_abort("`pi` must be given for the \"population\" risk (risk_spec(\"population\", keys = ..., pi = ...)).",
                  "epimask_error_value", arg = "pi")
  model <- if (inherits(pi, "epimask_population_model")) pi
           else as.call(c(list(as.name("population_model"), pi),
                          compact(list(model = args[["model"]], arx = args[["arx"]]))))
  call("uniqueness", NA, model, keys = args[["keys"]])
}
attr(risk_spec_as_population, "required") <- "keys"

# The rows of population uniqueness in the reports' risk tables: the
# estimated number and share of population uniques, the model chosen and
# whether it converged in the notes, and for a public context the public
# attack judged by the share (risk_release(uniqueness = )).
population_detail_rows <- function(data, keys, model, context, what, id) {
  out <- detail_rows()
  pop <- detail_attempt(out, suppressWarnings(risk_population(data, keys, model, compare = FALSE,
                                                               id = id)),
                        "Population uniqueness", what)
  if (is.null(pop)) return(out)
  keys_text <- paste(keys, collapse = ", ")
  out$add(sprintf("Population uniques on %s: estimated number of people", keys_text), pop$uniques)
  out$add(sprintf("Population uniques on %s: estimated share of the population", keys_text),
          pop$share)
  # the reason of the model used (the rule's own reason only names it)
  est <- pop$estimates
  reason <- if (is.data.frame(est) && pop$used %in% est$model)
    est$reason[match(pop$used, est$model)] else pop$reason
  chosen <- if (pop$model == "dankar") sprintf("%s chose %s", population_model_name("dankar"),
                                                population_model_name(pop$used))
            else sprintf("%s was asked for", population_model_name(pop$model))
  if (identical(pop$sample_uniques, 0) || identical(pop$sample_uniques, 0L)) {
    out$note(sprintf(
      "Population uniqueness of %s (sampling fraction %s): no record is unique in the sample, so no person is estimated to be unique in the population.",
      what, format(signif(pop$pi, 3))))
  } else out$note(sprintf(
    "Population uniqueness of %s (sampling fraction %s, population of about %s people): %s; %s. Sample uniques: %s of %s %s.",
    what, format(signif(pop$pi, 3)), format(round(pop$N), big.mark = ","), chosen,
    if (isTRUE(pop$converged)) sprintf("the estimate converged (%s)", reason)
    else sprintf("the estimate did NOT converge (%s), so no number is given", reason),
    format(pop$sample_uniques, big.mark = ","), format(pop$n, big.mark = ","),
    if (is.null(id)) "records" else "persons"))
  if (inherits(context, "release_context") && isTRUE(context$public) && is.finite(pop$share)) {
    rr <- tryCatch(do.call(risk_release, c(list(data, keys, context, criteria = list(),
                                                uniqueness = pop),
                                           if (!is.null(id)) list(id = id))),
                   error = function(e) NULL)
    if (!is.null(rr))
      out$add("Pr(re-id, public attack judged by population uniques)", rr$attacks$risk[[1L]])
  }
  out
}

#' @exportS3Method criterion_detail_explanations risk_uniqueness
criterion_detail_explanations.risk_uniqueness <- function(criterion, context = NULL) {
  c(paste(
    "Population uniques: most releases are a sample of a larger population (a registry, a",
    "trial's source population). A person who is the only one in the whole population with",
    "their combination of quasi-identifiers can be recognised by anyone who knows those",
    "values; the estimate is the number (and share) of such people in the population,",
    "projected from the sample by the model named in the notes (Pitman, Zayatz or SNB;",
    "Dankar et al.'s rule chooses Pitman for sampling fractions up to 0.1 and otherwise the",
    "smaller of Zayatz and SNB when SNB converges). A model that does not converge gives no",
    "number, and the notes say why. The estimate assumes a simple random sample at the",
    "stated fraction; it misleads when the sample is clustered or the fraction is wrong."),
    if (inherits(context, "release_context") && isTRUE(context$public)) paste(
      "The public attack judged by population uniques: for a public release, the",
      "probability of re-identification is taken as the share of the population that is",
      "unique on the quasi-identifiers, instead of one over the smallest class of the file."))
}

#' @exportS3Method criterion_limit_note risk_uniqueness
criterion_limit_note.risk_uniqueness <- function(criterion) {
  sprintf("The search required the estimated share of population uniques to be at most %s (sampling fraction %s, %s).",
          format(criterion$bound), format(criterion$model$pi),
          population_model_name(criterion$model$model))
}

#' @exportS3Method criterion_whole_release risk_uniqueness
criterion_whole_release.risk_uniqueness <- function(criterion) TRUE
