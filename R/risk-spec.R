# Risk as a value: risk_spec() names a disclosure-risk measure and its
# arguments, so that ru_profile() (and recommend(), the workbench) can
# evaluate any measure on (original, masked) pairs. Each measure registers
# one adapter in `risk_registry` below: a function (original, masked, args)
# returning one number in [0, 1], plus the columns it needs named.

#' A disclosure-risk measure as a value
#'
#' `risk_spec()` names a risk measure and its arguments once, so that a
#' risk-utility profile ([ru_profile()]) evaluates it on every masked data
#' set: `ru_profile(data, schemes, formula, risk = risk_spec("kanon", keys =
#' c("age", "sex"), k = 5))`. A plain function `function(original, masked)`
#' returning one number in \[0, 1\] is accepted wherever a `risk_spec` is.
#'
#' Measures and the number each contributes to a profile:
#' \describe{
#'   \item{`"match"`}{[risk_match()] of the masked against the original data
#'     with columns `known` (and `unknown`); risk = `percent_correct / 100`.
#'     Sees noise, interval means and kernels.}
#'   \item{`"identifiability"`}{[risk_identifiability()] of the masked
#'     `known` columns against the original data as the source, records
#'     identified by position; risk = its score. Exact matching: blind to
#'     masks that change values without creating ties (noise, kernels).}
#'   \item{`"kanon"`}{[risk_kanon()] of the masked data on `keys`;
#'     `measure` one of `"strict_avg"` (default), `"avg"`, `"max"`,
#'     `"journalist"`, `"marketer"` picks the risk reported.}
#'   \item{`"ldiversity"`}{[risk_ldiversity()] of the masked data on `keys`
#'     and `sensitive`; risk = \eqn{1/l}, the largest over the sensitive
#'     variables, with `measure` `"entropy"` (default: an intruder who finds
#'     the class is about that sure of the value), `"distinct"` or
#'     `"recursive"` (with `c`) picking the l.}
#'   \item{`"tcloseness"`}{[risk_tcloseness()] of the masked data on `keys`
#'     and `sensitive` (with `ordered`); risk = \eqn{t}, the largest EMD.}
#'   \item{`"individual"`}{[risk_individual()] of the masked data on `keys`
#'     (with `weights`); risk = the global risk (expected re-identifications
#'     over n), or the highest record risk with `measure = "max"`; with
#'     `cluster`, the cluster risks of [risk_individual()] instead.}
#'   \item{`"population"`}{[risk_population()] of the masked data on `keys`
#'     with `pi` (a sampling fraction or a [population_model()]), `model`,
#'     `arx`; risk = the estimated share of the population that is unique on
#'     the keys (NA when the model does not converge).}
#'   \item{`"loglinear"`}{[risk_loglinear()] of the masked data on `keys`
#'     (with `weights`, `formula`, `method`, `pi`); risk = \eqn{\tau_1 / n},
#'     the expected share of records that are population uniques, or
#'     \eqn{\tau_2 / n} with `measure = "tau2"`.}
#'   \item{`"suda"`}{[risk_suda()] of the masked data on `keys` (with `max_k`,
#'     `dis_fraction`); risk = the mean DIS-SUDA score (the expected share of
#'     records correctly matched as special uniques), or with `measure =
#'     "share"` the share of records whose DIS-SUDA exceeds `threshold`
#'     (default 0.1), or with `"max"` the largest.}
#'   \item{`"linkage"`}{[risk_linkage()] of the original against the masked
#'     data on `known` (with `distance`, `method`; `vars` is its deprecated
#'     old name); risk = the linkage risk,
#'     the expected share of records re-linked to their own by distance. Sees
#'     noise of any size that leaves records nearest their originals.}
#'   \item{`"none"`}{no risk (NA).}
#' }
#' Further arguments are passed to the measure's function; `id` (the person
#' column, when a person has several records) is passed to every measure but
#' `"identifiability"` (whose own `id` identifies the released records), so
#' that the risk is of persons.
#'
#' @param name The measure's name (see Details).
#' @param ... Its arguments, e.g. `known`, `unknown` (`"match"`), `keys`,
#'   `k`, `measure` (`"kanon"`).
#' @return An object of class `epimask_risk_spec`: `$name`, `$args`.
#' @family risk measures
#' @seealso [risk_value()] to evaluate one, [ru_profile()].
#' @examples
#' spec <- risk_spec("match", known = "dose")
#' spec
#' d <- dose_cohort[1:300, ]
#' risk_value(spec, d, apply_mask(d, mask_round(1, "decimal"), "dose"))
#' @export
risk_spec <- function(name, ...) {
  name <- check_choice(name, names(risk_registry), arg = "name")
  args <- list(...)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args)))))
    abort_type("...", "named arguments of the risk measure")
  # an argument given as NULL takes the measure's default, as in the call of
  # the measure itself (risk_match(unknown = NULL))
  args <- args[!vapply(args, is.null, logical(1))]
  entry <- risk_registry[[name]]
  # the linkage risk's columns were `vars` up to version 0.2.0
  if (name == "linkage" && !is.null(args$vars)) {
    args$known <- renamed_argument(args$known, args$vars, "known", "vars")
    args$vars <- NULL
  }
  for (req in entry$required) {
    if (is.null(args[[req]]))
      epimask_abort(sprintf("`%s` must be given for the \"%s\" risk (risk_spec(\"%s\", %s = ...)).",
                            req, name, name, req), "epimask_error_value", arg = req)
    if (!is.character(args[[req]]) || !length(args[[req]]) || anyNA(args[[req]]))
      abort_type(req, "column names (a character vector)")
  }
  structure(list(name = name, args = args), class = "epimask_risk_spec")
}

#' Evaluate a disclosure-risk measure on a masked data set
#'
#' @param spec A `risk_spec()`, a measure name with its arguments in `...`,
#'   or a function `function(original, masked)`.
#' @param original,masked The original and the masked data frames (same rows,
#'   same order).
#' @param ... Arguments of the measure when `spec` is a name.
#' @return One number in \[0, 1\] (NA for `"none"`).
#' @family risk measures
#' @examples
#' d <- dose_cohort[1:300, ]
#' m <- apply_mask(d, mask_noise(0.05), "dose")
#' risk_value("match", d, m, known = "dose")
#' risk_value(function(original, masked) mean(original$dose == masked$dose), d, m)
#' @export
risk_value <- function(spec, original, masked, ...) {
  spec <- as_risk_spec(spec, ...)
  original <- check_data(original, "original")
  if (is_synthetic(masked)) return(synthetic_risk_value(spec, original, masked))
  masked <- check_data(masked, "masked")
  if (nrow(original) != nrow(masked))
    abort_length("masked", sprintf("have as many rows as `original` (%d), not %d",
                                   nrow(original), nrow(masked)))
  if (is.function(spec))
    return(check_risk_number(call_user(spec, list(original, masked), "risk", "risk(original, masked)"),
                             "risk function"))
  entry <- risk_registry[[spec$name]]
  check_risk_number(entry$value(original, masked, spec$args), sprintf("the \"%s\" risk", spec$name))
}

# A spec from what ru_profile() and risk_value() accept: a spec, a function,
# or a name with the arguments (legacy `known` / `unknown` included).
as_risk_spec <- function(risk, ..., arg = "risk") {
  if (inherits(risk, "epimask_risk_spec")) {
    if (!risk$name %in% names(risk_registry)) abort_value(arg, "a risk_spec of a known measure")
    return(risk)
  }
  if (is.function(risk)) {
    return(check_user_function(risk, arg, 2L, "a function(original, masked) returning a number in [0, 1]"))
  }
  if (is.character(risk) && length(risk) >= 1L) {
    args <- list(...)
    args <- args[!vapply(args, is.null, logical(1))]
    return(do.call(risk_spec, c(list(risk[[1L]]), args), quote = TRUE))
  }
  abort_type(arg, "a risk_spec(), a measure name or a function(original, masked)")
}

check_risk_number <- function(x, what) {
  if (length(x) == 1L && is.na(x) && !is.nan(x)) return(NA_real_)
  if (!is.numeric(x) || length(x) != 1L || !is.finite(x) || x < 0 || x > 1)
    epimask_abort(sprintf("%s must return one number in [0, 1].", what),
                  "epimask_error_value", arg = "risk")
  as.double(x)
}

risk_spec_label <- function(spec) {
  if (is.function(spec)) return("custom")
  spec$name
}

#' @export
format.epimask_risk_spec <- function(x, ...) {
  args <- vapply(x$args, function(a) paste(if (is.character(a)) a else format(a), collapse = ", "), character(1))
  inner <- if (length(args)) paste0(", ", paste(names(args), "=", args, collapse = "; ")) else ""
  sprintf("risk: %s%s", x$name, inner)
}

#' @export
print.epimask_risk_spec <- function(x, ...) {
  cat("<", format(x), ">\n", sep = "")
  invisible(x)
}

# ---- the registry: one adapter per measure -----------------------------------

risk_match_value <- function(original, masked, args) {
  rest <- args[setdiff(names(args), c("known", "unknown"))]
  # the profile's risk is the percentage of correct matches, which does not
  # depend on prob_tol: certify the probabilities only coarsely unless asked
  if (is.null(rest$prob_tol)) rest$prob_tol <- 1
  if (is.null(rest$progress)) rest$progress <- FALSE
  res <- do.call(risk_match, c(list(original, masked, known = args$known,
                                    unknown = args$unknown), rest))
  res$percent_correct / 100
}

risk_identifiability_value <- function(original, masked, args) {
  id <- ".epimask_record"
  original[[id]] <- masked[[id]] <- seq_len(nrow(original))
  rest <- args[setdiff(names(args), c("known", "id"))]
  res <- do.call(risk_identifiability, c(list(masked, original, keys = args$known, id = id),
                                         rest))
  res$score
}

risk_kanon_value <- function(original, masked, args) {
  measure <- check_choice(if (is.null(args$measure)) "strict_avg" else args$measure,
                          c("strict_avg", "avg", "max", "journalist", "marketer"),
                          arg = "measure")
  rest <- args[setdiff(names(args), c("keys", "measure"))]
  res <- do.call(risk_kanon, c(list(masked, keys = args$keys), rest))
  res[[paste0(measure, "_risk")]]
}

risk_ldiversity_value <- function(original, masked, args) {
  measure <- check_choice(if (is.null(args$measure)) "entropy" else args$measure,
                          c("entropy", "distinct", "recursive"), arg = "measure")
  rest <- args[intersect(names(args), c("c", "id"))]
  res <- do.call(risk_ldiversity, c(list(masked, keys = args$keys, sensitive = args$sensitive),
                                    rest))
  1 / min(res[[paste0(measure, "_l")]])
}

risk_tcloseness_value <- function(original, masked, args) {
  res <- risk_tcloseness(masked, keys = args$keys, sensitive = args$sensitive,
                         ordered = args$ordered, id = args$id)
  max(res$t)
}

risk_individual_value <- function(original, masked, args) {
  measure <- check_choice(if (is.null(args$measure)) "global" else args$measure,
                          c("global", "max"), arg = "measure")
  res <- risk_individual(masked, keys = args$keys, weights = args$weights, cluster = args$cluster,
                         id = args$id)
  if (!is.null(args$cluster))
    return(if (measure == "global") res$cluster_global else max(res$cluster_risk))
  if (measure == "global") res$global else max(res$per_record)
}

risk_population_value <- function(original, masked, args) {
  pi <- args$pi %||% args$population
  if (is.null(pi))
    epimask_abort("`pi` must be given for the \"population\" risk (risk_spec(\"population\", keys = ..., pi = ...)).",
                  "epimask_error_value", arg = "pi")
  model <- if (is.null(args$model)) "dankar" else args$model
  res <- suppressWarnings(risk_population(masked, keys = args$keys, pi = pi, model = model,
                                          arx = isTRUE(args$arx), compare = FALSE,
                                          id = args$id))
  res$share
}

risk_loglinear_value <- function(original, masked, args) {
  measure <- check_choice(if (is.null(args$measure)) "tau1" else args$measure,
                          c("tau1", "tau2"), arg = "measure")
  rest <- args[intersect(names(args), c("weights", "formula", "method", "pi", "id"))]
  res <- do.call(risk_loglinear, c(list(masked, keys = args$keys), rest))
  if (measure == "tau1") res$tau1_share else res$tau2_share
}

risk_suda_value <- function(original, masked, args) {
  measure <- check_choice(if (is.null(args$measure)) "mean" else args$measure,
                          c("mean", "share", "max"), arg = "measure")
  rest <- args[intersect(names(args), c("max_k", "dis_fraction", "id"))]
  res <- do.call(risk_suda, c(list(masked, keys = args$keys), rest))
  # one value per person when the person is the unit
  if (identical(res$unit, "persons")) res$dis <- res$dis[!duplicated(res$person)]
  threshold <- if (is.null(args$threshold)) 0.1 else
    check_number(args$threshold, "threshold", lower = 0, upper = 1)
  switch(measure, mean = mean(res$dis), max = max(res$dis), share = mean(res$dis > threshold))
}

risk_linkage_value <- function(original, masked, args) {
  rest <- args[intersect(names(args), c("distance", "method", "threads", "id"))]
  do.call(risk_linkage, c(list(original, masked, known = args$known), rest))$risk
}

risk_registry <- list(
  match = list(required = "known", value = risk_match_value),
  identifiability = list(required = "known", value = risk_identifiability_value),
  kanon = list(required = "keys", value = risk_kanon_value),
  ldiversity = list(required = c("keys", "sensitive"), value = risk_ldiversity_value),
  tcloseness = list(required = c("keys", "sensitive"), value = risk_tcloseness_value),
  individual = list(required = "keys", value = risk_individual_value),
  population = list(required = "keys", value = risk_population_value),
  loglinear = list(required = "keys", value = risk_loglinear_value),
  suda = list(required = "keys", value = risk_suda_value),
  linkage = list(required = "known", value = risk_linkage_value),
  none = list(required = character(), value = function(original, masked, args) NA_real_)
)
