# The criteria of ola() and deidentify() as flat arguments (k, l, t,
# sensitive, diversity, ordered, avg_risk, k_map, population, k_map_alpha,
# k_map_estimator, uniqueness, loglinear, cluster_risk), the form of
# epimask 0.3: checked as they were, mapped to the risk criteria that state
# the same, with a deprecation warning that shows the new call. Kept for
# one release.

# The criteria of the flat arguments `flat` (a named list), in the order
# the print of epimask 0.3 listed them. `sensitive` is deidentify()'s own
# argument, which the flat l and t apply to; `default_k` the k when `k` is
# not given (ola()'s default 5; deidentify() takes the context's).
flat_criteria <- function(flat, data, verb, sensitive = NULL, default_k = 5L) {
  calls <- flat_criteria_calls(flat, data, sensitive, default_k)
  warn_deprecated_call(
    sprintf("%s(..., %s)", verb, paste(sprintf("%s = ", names(flat)), collapse = ", ")),
    sprintf("%s(..., criteria = list(%s))", verb,
            paste(vapply(calls, call_text, ""), collapse = ", ")))
  lapply(calls, eval, envir = asNamespace("epimask"))
}

flat_criteria_calls <- function(flat, data, sensitive = NULL, default_k = 5L) {
  data <- as.data.frame(data)
  k <- flat[["k"]] %||% default_k
  calls <- if (!is.null(k)) list(call("k_anonymity", check_count(k, "k"))) else list()
  l <- check_number(flat[["l"]], "l", lower = 1, allow_null = TRUE)
  t <- check_number(flat[["t"]], "t", lower = 0, upper = 1, allow_null = TRUE)
  sensitive <- flat[["sensitive"]] %||% (if (!is.null(l) || !is.null(t)) sensitive)
  if (is.null(sensitive) != (is.null(l) && is.null(t)))
    abort_value("sensitive", "given exactly when `l` or `t` is")
  sensitive <- check_columns(sensitive, data, "sensitive", allow_null = TRUE)
  diversity <- check_choice(flat[["diversity"]] %||% "distinct", c("distinct", "entropy"), "diversity")
  if (!is.null(l)) calls <- c(calls, list(call("l_diversity", l, sensitive, measure = diversity)))
  if (!is.null(t)) {
    # the ordered variables as ola() took them: those named that are
    # sensitive, and the numeric ones
    ordered <- check_columns(flat[["ordered"]], data, "ordered", allow_null = TRUE)
    ordered <- union(intersect(ordered, sensitive),
                     Filter(function(s) is.numeric(data[[s]]), sensitive))
    calls <- c(calls, list(call("t_closeness", t, sensitive, ordered = ordered)))
  }
  avg <- check_number(flat[["avg_risk"]], "avg_risk", lower = 0, upper = 1, allow_null = TRUE)
  if (!is.null(avg) && avg <= 0)
    abort_value("avg_risk", "a share above 0 (classes per released record)")
  if (!is.null(avg)) calls <- c(calls, list(call("avg_risk", avg)))
  if (is.null(flat[["k_map"]]) != is.null(flat[["population"]]))
    abort_value(if (is.null(flat[["k_map"]])) "k_map" else "population",
                "given together with `population` / `k_map` (k-map counts the population)")
  model_kmap <- NULL
  if (!is.null(flat[["k_map"]])) {
    k_map <- check_count(flat[["k_map"]], "k_map")
    population <- flat[["population"]]
    estimator <- check_choice(flat[["k_map_estimator"]] %||% "poisson", c("poisson", "zero_truncated"),
                              "k_map_estimator")
    alpha <- check_number(flat[["k_map_alpha"]] %||% 0.01, "k_map_alpha", lower = 0, upper = 1,
                          lower_open = TRUE, upper_open = TRUE)
    if (inherits(population, "epimask_population_model")) {
      model_kmap <- call("k_map", k_map, population, alpha = alpha, estimator = estimator)
    } else {
      if (is.matrix(population)) population <- as.data.frame(population, stringsAsFactors = FALSE)
      if (!is.data.frame(population))
        abort_type("population", "a data frame of the population's key values (one row per person)")
      calls <- c(calls, list(call("k_map", k_map, population)))
    }
  }
  u <- check_uniqueness(flat[["uniqueness"]])
  if (!is.null(u))
    calls <- c(calls, list(call("uniqueness", u$max,
                                call("population_model", u$pi, model = u$model))))
  if (!is.null(flat[["loglinear"]])) {
    ll <- check_loglinear_criterion(flat[["loglinear"]], data, NULL)
    calls <- c(calls, list(as.call(c(list(as.name("loglinear_risk"), ll$max),
                                     compact(list(pi = ll$pi, weights = flat[["loglinear"]]$weights,
                                                  measure = ll$measure, formula = ll$formula))))))
  }
  if (!is.null(flat[["cluster_risk"]])) {
    cl <- check_cluster_criterion(flat[["cluster_risk"]], data, NULL)
    calls <- c(calls, list(as.call(c(list(as.name("cluster_risk"), cl$max, cl$column),
                                     compact(list(weights = flat[["cluster_risk"]]$weights))))))
  }
  c(calls, if (!is.null(model_kmap)) list(model_kmap))
}
