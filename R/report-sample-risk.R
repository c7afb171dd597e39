# Rows of the reports' risk tables for releases that are samples (issue 27;
# methods vignette sections 21-22): population uniqueness (risk_population()),
# the log-linear risk (risk_loglinear()) and cluster risk
# (risk_individual(cluster = )), computed wherever a risk_spec() of the profile
# or of the report, or a population-uniqueness estimate of the release's
# certificate, names them. The numbers are the measures' own; the labels are
# stable (so that the original and the release line up) and the model chosen,
# whether it converged and the reason go to notes under the table.

# The risk specs among `specs` (a list; NULLs and other objects ignored) that
# name a measure of a sample: "population", "loglinear", "individual" with a
# cluster. Duplicates (the same spec from the profile and the report) once.
sample_risk_specs <- function(specs) {
  specs <- Filter(function(s) inherits(s, "epimask_risk_spec") &&
                    (s$name %in% c("population", "loglinear") ||
                       (identical(s$name, "individual") && !is.null(s$args$cluster))),
                  specs)
  specs[!duplicated(lapply(specs, function(s) unclass(s)))]
}

# The population model of a spec ("population": `pi` a fraction or a
# population_model(), with `model` and `arx`).
spec_population_model <- function(spec) {
  pi <- spec$args$pi %||% spec$args$population
  if (inherits(pi, "epimask_population_model")) return(pi)
  if (is.null(pi)) return(NULL)
  population_model(pi, model = if (is.null(spec$args$model)) "dankar" else spec$args$model,
                   arx = isTRUE(spec$args$arx))
}

# Plain names of the population models, for notes.
population_model_name <- function(m) {
  switch(m, dankar = "Dankar et al.'s rule", pitman = "the Pitman model",
         zayatz = "the Zayatz model", snb = "the SNB model", m)
}

# The rows of one data set: list(table = a data frame (measure, value) or
# NULL, notes = sentences). `original` supplies a cluster column the release dropped
# (same records in the same order). `context`: with a public context and a
# population spec, the public attack judged by the share of population
# uniques (risk_release(uniqueness = )).
sample_risk_rows <- function(data, specs, context = NULL, original = NULL, what = "the data") {
  rows <- list()
  notes <- character()
  add <- function(label, value) rows[[length(rows) + 1L]] <<- list(label, as.numeric(value))
  keys_text <- function(keys) paste(keys, collapse = ", ")
  # a measure, or NULL with a note saying why it is missing
  attempt <- function(expr, label) {
    res <- tryCatch(expr, error = function(e) e)
    if (!inherits(res, "error")) return(res)
    notes <<- c(notes, sprintf("%s of %s could not be computed: %s", label, what,
                               conditionMessage(res)))
    NULL
  }
  for (spec in sample_risk_specs(specs)) {
    keys <- spec$args$keys
    if (!all(keys %in% names(data))) next
    id <- spec$args$id
    if (spec$name == "population") {
      model <- spec_population_model(spec)
      if (is.null(model)) next
      pop <- attempt(suppressWarnings(risk_population(data, keys, model, compare = FALSE,
                                                      id = id)),
                     "Population uniqueness")
      if (is.null(pop)) next
      add(sprintf("Population uniques on %s: estimated number of people", keys_text(keys)),
          pop$uniques)
      add(sprintf("Population uniques on %s: estimated share of the population", keys_text(keys)),
          pop$share)
      # the reason of the model used (the rule's own reason only names it)
      est <- pop$estimates
      reason <- if (is.data.frame(est) && pop$used %in% est$model)
        est$reason[match(pop$used, est$model)] else pop$reason
      chosen <- if (pop$model == "dankar") sprintf("%s chose %s", population_model_name("dankar"),
                                                    population_model_name(pop$used))
                else sprintf("%s was asked for", population_model_name(pop$model))
      if (identical(pop$sample_uniques, 0) || identical(pop$sample_uniques, 0L)) {
        notes <- c(notes, sprintf(
          "Population uniqueness of %s (sampling fraction %s): no record is unique in the sample, so no person is estimated to be unique in the population.",
          what, format(signif(pop$pi, 3))))
      } else notes <- c(notes, sprintf(
        "Population uniqueness of %s (sampling fraction %s, population of about %s people): %s; %s. Sample uniques: %s of %s %s.",
        what, format(signif(pop$pi, 3)), format(round(pop$N), big.mark = ","), chosen,
        if (isTRUE(pop$converged)) sprintf("the estimate converged (%s)", reason)
        else sprintf("the estimate did NOT converge (%s), so no number is given", reason),
        format(pop$sample_uniques, big.mark = ","), format(pop$n, big.mark = ","),
        if (is.null(id)) "records" else "persons"))
      if (inherits(context, "release_context") && isTRUE(context$public) &&
          is.finite(pop$share)) {
        rr <- tryCatch(do.call(risk_release, c(list(data, keys, context, uniqueness = pop),
                                               if (!is.null(id)) list(id = id))),
                       error = function(e) NULL)
        if (!is.null(rr))
          add("Pr(re-id, public attack judged by population uniques)", rr$attacks$risk[[1L]])
      }
    } else if (spec$name == "loglinear") {
      rest <- spec$args[intersect(names(spec$args), c("weights", "formula", "method", "pi", "id"))]
      ll <- attempt(do.call(risk_loglinear, c(list(data, keys = keys), rest)),
                    "The log-linear risk")
      if (is.null(ll)) next
      add(sprintf("Log-linear model on %s: expected sample uniques that are population unique (tau1)",
                  keys_text(keys)), ll$tau1)
      add(sprintf("Log-linear model on %s: expected correct matches of sample uniques (tau2)",
                  keys_text(keys)), ll$tau2)
      add(sprintf("Log-linear model on %s: highest record risk of a correct match",
                  keys_text(keys)), max(ll$per_record$match_prob))
      notes <- c(notes, sprintf(
        "Log-linear risk of %s (Skinner & Shlomo): tau1 = %s, tau2 = %s; model %s, %s method, %s cells, %s sample uniques, sampling fraction %s%s.",
        what, format(signif(ll$tau1, 4)), format(signif(ll$tau2, 4)),
        paste(deparse(ll$formula), collapse = " "), ll$method,
        format(ll$n_cells, big.mark = ","), format(ll$sample_uniques, big.mark = ","),
        format(signif(ll$pi, 3)), if (ll$weighted) " (from the weights)" else ""))
    } else {
      cl <- spec$args$cluster
      if (is.character(cl) && length(cl) == 1L && !cl %in% names(data)) {
        if (!is.null(original) && cl %in% names(original) && nrow(original) == nrow(data)) {
          data[[cl]] <- original[[cl]]
        } else {
          notes <- c(notes, sprintf(
            "Cluster risk of %s: the cluster column '%s' is not in it, so it was not computed.",
            what, cl))
          next
        }
      }
      ind <- attempt(risk_individual(data, keys = keys, weights = spec$args$weights,
                                     cluster = cl, id = id), "The cluster risk")
      if (is.null(ind)) next
      add(sprintf("Clusters on %s: expected re-identifications (a cluster falls with any member)",
                  keys_text(keys)), ind$cluster_expected)
      add(sprintf("Clusters on %s: share of records re-identified", keys_text(keys)),
          ind$cluster_global)
      add(sprintf("Clusters on %s: highest cluster risk", keys_text(keys)), max(ind$cluster_risk))
      notes <- c(notes, sprintf(
        "Cluster risk of %s: %s clusters%s; without clusters the expected re-identifications are %s.",
        what, format(ind$n_clusters, big.mark = ","),
        if (is.character(cl) && length(cl) == 1L) sprintf(" (column '%s')", cl) else "",
        format(signif(ind$expected, 4), big.mark = ",")))
    }
  }
  list(table = if (length(rows))
         data.frame(measure = vapply(rows, `[[`, "", 1L), value = vapply(rows, `[[`, 0, 2L),
                    stringsAsFactors = FALSE),
       notes = notes)
}

# What the sample rows mean, for an ethics board: one paragraph per kind of
# measure present among `measures` (the labels of a risk table).
sample_risk_explanations <- function(measures) {
  has <- function(prefix) any(startsWith(measures, prefix))
  c(
    if (has("Population uniques"))
      paste(
        "Population uniques: most releases are a sample of a larger population (a registry, a",
        "trial's source population). A person who is the only one in the whole population with",
        "their combination of quasi-identifiers can be recognised by anyone who knows those",
        "values; the estimate is the number (and share) of such people in the population,",
        "projected from the sample by the model named in the notes (Pitman, Zayatz or SNB;",
        "Dankar et al.'s rule chooses Pitman for sampling fractions up to 0.1 and otherwise the",
        "smaller of Zayatz and SNB when SNB converges). A model that does not converge gives no",
        "number, and the notes say why. The estimate assumes a simple random sample at the",
        "stated fraction; it misleads when the sample is clustered or the fraction is wrong."),
    if (has("Pr(re-id, public attack judged by population uniques)"))
      paste(
        "The public attack judged by population uniques: for a public release, the",
        "probability of re-identification is taken as the share of the population that is",
        "unique on the quasi-identifiers, instead of one over the smallest class of the file."),
    if (has("Log-linear model"))
      paste(
        "Log-linear risk (Skinner and Shlomo): a model of the table of quasi-identifier",
        "combinations estimates, for every record unique in the file, the chance that it is",
        "unique in the population too. tau1 is the expected number of such records, tau2 the",
        "expected number of correct matches an intruder makes by linking the unique records",
        "to a population register, and the highest record risk is the largest chance that one",
        "record is correctly matched. The model assumes the combinations follow its main",
        "effects (or the interactions named in the notes)."),
    if (has("Clusters"))
      paste(
        "Cluster risk: when members of a household, family or care home are in the file",
        "together, identifying one of them identifies the others. A cluster's risk is the",
        "chance that at least one member is re-identified, 1 - prod(1 - r), given to every",
        "member; the expected number of re-identifications counts every member of every",
        "cluster so exposed.")
  )
}
