# The risk-utility profile of a count table (methods vignette section 30):
# every scheme (suppression, rounding, smoothing, noise) applied to the
# table; utility is the collaborator's count model (a Poisson regression of
# the interior cells, with covariates of the codes), its coefficient's bias
# and MSE as for microdata (profile-class.R does that arithmetic); risk is
# the share of sensitive cells the release discloses under the rules.
# ru_profile() hands a table to ru_profile_table() unchanged.

#' The collaborator's model of a count table
#'
#' A Poisson regression (or another GLM) of the interior cells of a count
#' table, for [ru_profile()] on a table: one row per interior cell, its
#' published value as the response `count` (`NA`, and so left out, where
#' suppressed), the dimensions as columns (text), and covariates of the
#' codes joined by the dimensions they name (zip-level shares of the
#' bundled `zip_mortality`, say, with its person-years as an offset).
#'
#' @param formula The model, with the response `count`, e.g. `count ~
#'   p_black + offset(log(person_years))` or `count ~ sex + age`.
#' @param covariates `NULL`, or a data frame with a column for one or more
#'   of the table's dimensions (its codes) and the covariates; one row per
#'   code (combination).
#' @param family A family object; default [poisson()]. Published values that
#'   are not whole (smoothing) are fitted by the quasi-score with dispersion
#'   1, as for masked microdata.
#' @param term The coefficient the profile follows; default the first after
#'   the intercept.
#' @return An object of class `table_count_model`.
#' @family count tables
#' @family profiles
#' @examples
#' count_model(count ~ p_black + offset(log(person_years)),
#'             covariates = zip_mortality[c("zip", "p_black", "person_years")])
#' @export
count_model <- function(formula, covariates = NULL, family = stats::poisson(), term = NULL) {
  check_formula(formula)
  if (length(formula) != 3L || !identical(all.vars(formula[[2L]]), "count"))
    abort_value("formula", "a formula with the response `count` (the cells' published values)")
  if (!is.null(covariates)) covariates <- as_plain_data(check_data(covariates, "covariates"))
  family <- check_family(family)
  if (!is.null(term) && (!is.character(term) || length(term) != 1L || is.na(term)))
    abort_type("term", "one coefficient name")
  structure(list(formula = formula, covariates = covariates, family = family, term = term),
            class = "table_count_model")
}

#' @export
format.table_count_model <- function(x, ...) {
  sprintf("<count model> %s, %s family%s", paste(deparse(x$formula), collapse = " "),
          x$family$family, if (!is.null(x$term)) sprintf(", term '%s'", x$term) else "")
}

#' @export
print.table_count_model <- function(x, ...) print_formatted(x, ...)

# The model's data: one row per interior cell, `count` its published value.
count_model_data <- function(model, table, shown) {
  interior <- table_interior(table)
  d <- table_cells_frame(table, list(count = shown))[interior, , drop = FALSE]
  d$interior <- NULL
  for (dm in table$dims) d[[paste0(dm, "_level")]] <- NULL
  cov <- model$covariates
  if (!is.null(cov)) {
    by <- intersect(table$dims, names(cov))
    if (!length(by))
      abort_value("covariates", sprintf("a data frame with a column named like a dimension (%s)",
                                        paste(table$dims, collapse = ", ")))
    key_cov <- do.call(paste, c(lapply(by, function(b) as.character(cov[[b]])), sep = "\r"))
    if (anyDuplicated(key_cov)) abort_value("covariates", "one row per code of the dimensions it names")
    key <- do.call(paste, c(lapply(by, function(b) d[[b]]), sep = "\r"))
    hit <- match(key, key_cov)
    if (anyNA(hit))
      abort_value("covariates", sprintf("a row for every code of %s (missing: %s)", paste(by, collapse = ", "),
                                        paste0("'", utils::head(unique(key[is.na(hit)]), 3L), "'", collapse = ", ")))
    extra <- setdiff(names(cov), c(by, names(d)))
    for (nm in extra) d[[nm]] <- cov[[nm]][hit]
  }
  rownames(d) <- NULL
  d
}

count_model_fit <- function(model, data) {
  fit <- with_classed_errors(fit_glm(model$formula, data = data, family = model$family),
                             function(e) model_frame_error(e, model$formula, data))
  fit
}

count_model_estimate <- function(model, table, shown, term) {
  d <- count_model_data(model, table, shown)
  fit <- tryCatch(count_model_fit(model, d), epimask_error = function(e) NULL)
  if (is.null(fit)) return(c(estimate = NA_real_, se = NA_real_))
  est <- stats::coef(fit)[[term]]
  se <- sqrt(diag(stats::vcov(fit)))[[term]]
  c(estimate = est, se = se)
}

# ru_profile() on a count table.
ru_profile_table <- function(table, schemes, formula, risk, nrep = 1, seed = NULL,
                             control = table_control(), dim = NULL) {
  check_table(table, "data")
  schemes <- check_scheme_list(schemes)
  model <- if (inherits(formula, "table_count_model")) formula else
    if (inherits(formula, "formula")) count_model(formula) else
    abort_type("formula", "a count_model() or a formula with the response `count`")
  rules <- if (is.null(risk) || is.character(risk))
    abort_value("risk", paste0("the table's rules for a profile of a count table (risk = cell_threshold(11), ",
                               "or a list of rules)"))
  else check_table_rules(risk, table, "risk")
  nrep <- check_number(nrep, "nrep", lower = 1, upper = ru_max_replicates, integer = TRUE)
  seed <- check_number(seed, allow_null = TRUE, lower = -.Machine$integer.max,
                       upper = .Machine$integer.max)
  control <- check_table_control(control)
  v <- table_protected_value(table)
  fit0 <- count_model_fit(model, count_model_data(model, table, v))
  term <- model$term %||% names(stats::coef(fit0))[[min(2L, length(stats::coef(fit0)))]]
  if (!term %in% names(stats::coef(fit0)))
    abort_name("term", term, "the count model's coefficients")
  schemes <- with_reference_scheme(schemes)
  labels <- scheme_labels(schemes)
  streams <- rng_streams(length(schemes), seed)
  req <- table_requirements(table, rules)
  rows <- lapply(seq_along(schemes), function(i) with_rng_stream(streams[[i]], {
    s <- schemes[[i]]
    R <- if (is_random_scheme(s)) nrep else 1L
    reps <- lapply(seq_len(R), function(r) {
      rel <- mask_table(s, table, dim = dim, control = control)
      shown <- rel$shown
      est <- count_model_estimate(model, table, shown, term)
      data.frame(estimate = est[["estimate"]], se = est[["se"]],
                 risk = table_release_risk(req, rel), published = mean(!is.na(shown)),
                 epsilon = rel$epsilon %||% NA_real_)
    })
    reps <- do.call(rbind, reps)
    cbind(data.frame(scheme = labels[[i]], replicate = seq_len(R), stringsAsFactors = FALSE), reps,
          data.frame(degree = s$degree, mask_family = mask_family(s), label = scheme_label(s),
                     generator = scheme_generator(s), strength = scheme_strength(s),
                     unmasked = NA_real_, stringsAsFactors = FALSE))
  }))
  reps <- do.call(rbind, rows)
  reps <- drop_failed_replicates(reps)
  none <- labels[vapply(schemes, function(s) scheme_traits(s)$reference, logical(1))][[1L]]
  ref <- reps[reps$scheme == none, , drop = FALSE]
  reference <- list(truth = ref$estimate[[1L]], se = ref$se[[1L]], mse = ref$se[[1L]]^2,
                    type = "original", scheme = none, paired = FALSE)
  tab <- summarise_replicates(reps[, c("scheme", "replicate", "estimate", "se", "risk", "degree",
                                       "mask_family", "label", "generator", "strength", "unmasked")],
                              reference)
  extra <- stats::aggregate(reps[c("published", "epsilon")], reps["scheme"], mean)
  tab$published <- extra$published[match(tab$scheme, extra$scheme)]
  tab$epsilon <- extra$epsilon[match(tab$scheme, extra$scheme)]
  meta <- list(term = term, family = model$family, budget = 0,
               risk = sprintf("share of sensitive cells disclosed (%s)",
                              paste(vapply(rules, format, character(1)), collapse = "; ")))
  new_ru_profile(tab, reps[, c("scheme", "replicate", "estimate", "se", "risk")], reference, meta)
}

# The share of the sensitive cells of `req` a release discloses.
table_release_risk <- function(req, release) {
  if (!any(req$sensitive)) return(0)
  iv <- release_intervals(release, which(req$sensitive))
  disc <- table_disclosure(req, iv$lo, iv$hi, release$shown)
  sum(disc$disclosed) / sum(req$sensitive)
}
