# The collaborator's model as the utility, profile and analysis loss take
# it: a family, a name or "err" / "cox" resolved to a model, fitted on a data
# set, and the estimates of its coefficient of interest (a name, or a
# function of the fit).

# The analyst's model: a GLM family, or the linear ERR model with a dose.
resolve_model <- function(family, term, formula, arg = "family") {
  if (is.character(family) && length(family) == 1L && identical(family, "cox")) {
    if (!is.null(term) && !is.function(term) &&
        (!is.character(term) || length(term) == 0L || anyNA(term)))
      abort_type("term", "coefficient name(s) (log hazard ratios) or a function(fit, data)")
    return(list(type = "cox", family = NULL, label = "Cox (Efron ties)",
                formula = formula, term = term, dose = NULL, ties = "efron"))
  }
  is_err <- is.character(family) && length(family) == 1L && identical(family, "err")
  if (is_err) {
    if (!is.character(term) || length(term) != 1L || is.na(term))
      abort_type("term", "the name of the dose column when family = \"err\"")
    return(list(type = "err", family = NULL, label = "linear ERR",
                formula = formula, term = term, dose = term))
  }
  family <- check_family(family, arg, models = c("cox", "err"))
  if (!is.null(term) && !is.function(term) &&
      (!is.character(term) || length(term) == 0L || anyNA(term)))
    abort_type("term", "coefficient name(s) or a function(fit, data)")
  if (is.function(term)) check_user_function(term, "term", 2L, "coefficient name(s) or a function(fit, data)")
  list(type = "glm", family = family,
       label = sprintf("%s (%s link)", family$family, family$link),
       formula = formula, term = term, dose = NULL)
}

fit_model <- function(model, data) {
  if (model$type == "err")
    return(fit_err(model$formula, data, dose = model$dose))
  if (model$type == "cox") return(fit_cox(model$formula, data, ties = model$ties))
  fit_glm(model$formula, data, family = model$family)
}

# Coefficient names the quantity refers to: for a function term a single
# label; for the ERR model the dose coefficient; otherwise the named
# coefficients (all non-intercept ones by default), which must exist.
resolve_terms <- function(model, fit, data, multiple = FALSE) {
  term <- model$term
  if (is.function(term)) return("custom")
  coefs <- names(stats::coef(fit))
  if (model$type == "err") return(err_coef_name(fit, model$dose))
  if (is.null(term)) {
    term <- setdiff(coefs, "(Intercept)")
    if (!length(term)) abort_value("term", "given: the model has only an intercept")
    if (!multiple) term <- term[[1L]]
  }
  missing <- setdiff(term, coefs)
  if (length(missing))
    epimask_abort(sprintf("`term` names %s not in the model: %s (coefficients: %s).",
                          if (length(missing) == 1L) "a coefficient" else "coefficients",
                          paste0("'", missing, "'", collapse = ", "),
                          paste0("'", coefs, "'", collapse = ", ")),
                  "epimask_error_name", arg = "term")
  if (!multiple && length(term) != 1L)
    abort_length("term", "name a single coefficient")
  term
}

# The ERR coefficient of a fit_err() fit: named after the dose column.
err_coef_name <- function(fit, dose) {
  coefs <- names(stats::coef(fit))
  hit <- intersect(c(dose, paste0("beta:", dose), "beta"), coefs)
  if (!length(hit))
    epimask_abort(sprintf("The ERR fit has no coefficient for the dose '%s'.", dose),
                  "epimask_error_name", arg = "term")
  hit[[1L]]
}

term_estimates <- function(model, fit, data, terms) {
  if (is.function(model$term)) {
    value <- term_function_value(model$term, fit, data)
    return(data.frame(term = "custom", estimate = value[[1L]], se = value[[2L]],
                      stringsAsFactors = FALSE))
  }
  se <- sqrt(diag(stats::vcov(fit)))
  data.frame(term = terms, estimate = unname(stats::coef(fit)[terms]),
             se = unname(se[terms]), stringsAsFactors = FALSE)
}

# A term function returns c(estimate, se) or list(estimate =, se =).
term_function_value <- function(f, fit, data) {
  value <- call_user(f, list(fit, data), "term", "term(fit, data)")
  if (is.list(value) && !is.null(value$estimate)) value <- c(value$estimate, value$se)
  if (!is.numeric(value) || length(value) != 2L)
    abort_type("term", "a function returning the estimate and its SE (length 2)")
  as.double(unname(value))
}
