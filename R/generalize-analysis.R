# The analysis loss of the collaborator's model as a metric of the lattice
# search (methods vignette, section 20): 1 - U of the coefficient on each
# node's release, fitted by the package's IRLS, fits of identical releases
# cached.

#' Analysis loss: rank generalizations by the collaborator's model
#'
#' A metric for [ola()] (and [deidentify()]): the loss of a lattice node is one
#' minus the analysis potential (methods vignette, section 3) of the
#' collaborator's coefficient estimated on the node's release, against the
#' same model on the original data: \eqn{1 - U}, with \eqn{U} the capped
#' analysis potential every other report of the package gives (one U
#' everywhere; [ru_profile()]'s `analysis_potential`):
#' \eqn{U = \min(1, SE^2 / (\max(SE_m^2, SE^2) + (\hat\beta_m - \hat\beta)^2))},
#' the release's naive variance floored at the original's and the bias counted
#' in full. It is 0 when the release gives the original estimate (whatever its
#' standard error: a release cannot be more precise than the data), lies in
#' \eqn{[0, 1]}, and is 1 when the model cannot be fitted or the coefficient is
#' not estimable on the release.
#'
#' **The node's release as the model sees it** (methods vignette, section 20): the records
#' the node suppresses are dropped (complete cases), the keys are taken at the
#' node's levels: a numeric key generalized to a group (an interval, `"*"`)
#' becomes the mean of the original values in its group (the value a
#' collaborator would analyse grouped data at), any other key its generalized
#' label as a factor. A key of the model left with a single value in the
#' release (generalized to `"*"`) leaves a model that cannot be fitted as
#' stated: the loss is 1, as when the fit fails. (Dropping the variable
#' instead would reward releases that remove the collaborator's adjustment:
#' a smaller model often has a smaller standard error.) Other variables of
#' the model are as in the data. Every fit is by the package's C IRLS
#' ([fit_glm()]).
#'
#' Analysis loss is not monotone along generalization: [ola()] evaluates
#' every node that meets the privacy criteria (the criteria's own monotone
#' part still prunes the lattice), or only the minimal ones with
#' `search = "minimal"`.
#'
#' @param formula The collaborator's model formula, as for [glm()].
#' @param family A family object, family function or name, as for [glm()].
#' @param term The coefficient of interest (one name); `NULL` takes the first
#'   coefficient that is not the intercept.
#' @return An object of class `epimask_analysis_loss`, for the `metric`
#'   argument of [ola()] and the `model` argument of [deidentify()].
#' @family generalization
#' @examples
#' set.seed(3)
#' d <- data.frame(age = sample(20:69, 400, TRUE), sex = sample(c("f", "m"), 400, TRUE),
#'                 zip = sample(c("021", "022", "023", "024"), 400, TRUE))
#' d$visits <- rpois(400, exp(0.5 + 0.02 * d$age))
#' m <- analysis_loss(visits ~ age + sex, poisson(), term = "age")
#' m
#' h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'           zip = hierarchy_flat())
#' best <- ola(d, c("age", "sex", "zip"), h, criteria = k_anonymity(5), metric = m)
#' best$levels
#' info_loss(best, "analysis")
#' @export
analysis_loss <- function(formula, family = gaussian(), term = NULL) {
  check_formula(formula)
  if (is.character(family) && identical(family, "err"))
    abort_value("family", "a GLM family (the analysis loss is fitted by IRLS)")
  if (!is.null(term) && (!is.character(term) || length(term) != 1L || is.na(term)))
    abort_type("term", "NULL or the name of one coefficient")
  model <- resolve_model(family, term, formula)
  structure(list(formula = formula, family = model$family, term = term,
                 label = model$label),
            class = "epimask_analysis_loss")
}

#' @rdname analysis_loss
#' @param x An `epimask_analysis_loss` object.
#' @param ... Unused.
#' @export
format.epimask_analysis_loss <- function(x, ...) {
  sprintf("Analysis loss: 1 - analysis potential of %s in %s (%s)",
          if (is.null(x$term)) "the first coefficient" else paste0("'", x$term, "'"),
          paste(deparse(x$formula, width.cutoff = 500L), collapse = " "), x$label)
}

#' @rdname analysis_loss
#' @export
print.epimask_analysis_loss <- function(x, ...) print_formatted(x, ...)

# The closure that gives a node's analysis loss from its levels and the
# records it suppresses (methods vignette section 20). Fits on identical releases are cached.
analysis_evaluator <- function(metric, data, keys, hierarchies, lat) {
  vars <- all.vars(metric$formula)
  missing <- setdiff(vars, names(data))
  if (length(missing))
    epimask_abort(sprintf("The model of `metric` uses variable(s) not in `data`: %s.",
                          paste0("'", missing, "'", collapse = ", ")),
                  "epimask_error_name", arg = "metric")
  base <- as_plain_data(as.data.frame(data)[vars])
  model <- list(type = "glm", family = metric$family, label = metric$label,
                formula = metric$formula, term = metric$term, dose = NULL)
  fit_o <- with_classed_errors(fit_model(model, base), function(e)
    abort_value("metric", sprintf("a model that fits the original data (%s)",
                                  conditionMessage(e))))
  term <- resolve_terms(model, fit_o, base, multiple = FALSE)
  est_o <- term_estimates(model, fit_o, base, term)
  if (!is.finite(est_o$estimate) || !is.finite(est_o$se) || est_o$se <= 0)
    abort_value("metric", sprintf("a model whose coefficient '%s' is estimable on the original data", term))
  model_keys <- intersect(keys, vars)
  columns <- new.env(parent = emptyenv())
  column <- function(key, lv) {
    id <- paste(key, lv)
    if (!is.null(columns[[id]])) return(columns[[id]])
    x <- base[[key]]
    v <- match(key, lat$keys)
    value <- if (is.numeric(x) && !is.object(x)) {
      part <- lat$key[[v]]
      code <- part$level_codes[[lv + 1L]][part$code0]
      sums <- rowsum(ifelse(is.na(x), 0, as.double(x)), code, reorder = TRUE)
      counts <- rowsum(as.double(!is.na(x)), code, reorder = TRUE)
      means <- ifelse(counts > 0, sums / counts, NA_real_)
      means[code]
    } else {
      factor(apply_level(hierarchies[[key]], x, lv))
    }
    columns[[id]] <- value
    value
  }
  fits <- new.env(parent = emptyenv())
  # the loss, or (detail) the estimate on the release with its SE and U
  loss_of <- function(d, detail = FALSE) {
    none <- if (detail) data.frame(term = term, estimate = NA_real_, se = NA_real_,
                                   analysis_potential = 0, records = nrow(d)) else 1
    # a key of the model left with one value: the model cannot be fitted as
    # the collaborator states it
    if (any(vapply(model_keys, function(key) length(unique(d[[key]])) <= 1L, logical(1))))
      return(none)
    fit <- tryCatch(fit_model(model, d), error = function(e) NULL)
    if (is.null(fit) || !term %in% names(stats::coef(fit))) return(none)
    est <- tryCatch(term_estimates(model, fit, d, term), error = function(e) NULL)
    if (is.null(est) || !is.finite(est$estimate) || !is.finite(est$se)) return(none)
    u <- utility_table(est_o, est, NULL)$analysis_potential
    if (!is.finite(u)) u <- 0
    if (detail) data.frame(term = term, estimate = est$estimate, se = est$se,
                           analysis_potential = u, records = nrow(d))
    else 1 - u
  }
  # `levels`: the node's levels, or (local recoding) a matrix of each
  # record's levels, one column per key
  # `blank` (deidentify()): a records x keys logical matrix of cells blanked
  # by local suppression; a record with a blanked key of the model leaves
  # the model's complete cases
  structure(function(levels, supp_records, detail = FALSE, blank = NULL) {
    per_record <- is.matrix(levels)
    if (!is.null(blank)) {
      hit <- blank[, match(model_keys, lat$keys), drop = FALSE]
      supp_records <- supp_records | rowSums(hit) > 0
    }
    id <- if (!per_record && !detail)
      paste(c(levels[match(model_keys, lat$keys)], "|", which(supp_records)), collapse = ",")
    if (!is.null(id) && !is.null(fits[[id]])) return(fits[[id]])
    d <- base
    for (key in model_keys) {
      v <- match(key, lat$keys)
      if (!per_record) {
        if (levels[[v]] > 0L) d[[key]] <- column(key, levels[[v]])
        next
      }
      lv_rec <- levels[, v]
      if (all(lv_rec == 0L)) next
      x <- if (is.numeric(d[[key]]) && !is.object(d[[key]])) as.double(d[[key]])
           else as.character(d[[key]])
      for (lv in setdiff(unique(lv_rec), 0L)) {
        at <- lv_rec == lv
        x[at] <- if (is.factor(column(key, lv))) as.character(column(key, lv))[at]
                 else column(key, lv)[at]
      }
      d[[key]] <- if (is.character(x)) factor(x) else x
    }
    d <- d[!supp_records, , drop = FALSE]
    value <- loss_of(d, detail)
    if (!is.null(id)) fits[[id]] <- value
    value
  }, term = term, estimate = est_o)
}

# An analysis evaluator of the records (analysis_evaluator() on a lattice of
# the records) driven by a search on persons: levels per person (local
# recoding) and suppressed persons are spread over each person's records.
person_analysis <- function(evaluate, person) {
  structure(function(levels, supp_records, detail = FALSE, blank = NULL) {
    if (is.matrix(levels)) levels <- levels[person, , drop = FALSE]
    evaluate(levels, supp_records[person], detail = detail, blank = blank)
  }, term = attr(evaluate, "term"), estimate = attr(evaluate, "estimate"))
}

