# t-closeness as a risk criterion (methods vignette, section 12; Li, Li &
# Venkatasubramanian 2007): within every class of the keys, the earth
# mover's distance between the distribution of each sensitive variable and
# its distribution over all records is at most t. On the risk scale t
# itself, the largest distance over the classes and sensitive variables.

#' t-closeness as a risk criterion
#'
#' Every equivalence class of the keys has, for every `sensitive` variable,
#' an earth mover's distance of at most `t` between its distribution of the
#' variable and the distribution over all records (methods vignette, section
#' 12): ordered variables by the cumulative distance over their ordered
#' values, others by half the L1 distance. The value on the risk scale is
#' the largest distance, met when at most `t`.
#'
#' In the search of [ola()] the criterion is class-local (see
#' [l_diversity()]); the overall distribution is that of the data searched.
#'
#' @param t The largest distance accepted, in \[0, 1\], or `NA` (reported
#'   only).
#' @param sensitive The sensitive columns.
#' @param ordered `NULL` (numeric and ordered-factor sensitive variables are
#'   ordered) or the sensitive variables whose values are ordered (exactly
#'   those).
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_t_closeness", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' criterion_evaluate(t_closeness(0.2, "case"), d, keys = c("city", "sex", "age10"))
#' @export
t_closeness <- function(t, sensitive, ordered = NULL, keys = NULL) {
  if (!(length(t) == 1L && is.na(t))) t <- check_number(t, lower = 0, upper = 1)
  if (!is.character(sensitive) || !length(sensitive) || anyNA(sensitive))
    abort_type("sensitive", "the names of the sensitive columns")
  if (!is.null(ordered) && (!is.character(ordered) || anyNA(ordered)))
    abort_type("ordered", "NULL or a character vector of sensitive variables")
  new_risk_criterion("t_closeness", t = t, sensitive = sensitive, ordered = ordered,
                     keys = keys, columns = sensitive,
                     label = sprintf("t-closeness%s on %s",
                                     if (is.na(t)) "" else paste0(", t = ", format(t)),
                                     paste(sensitive, collapse = ", ")),
                     bound = as.double(t), monotone = FALSE,
                     explanation = paste("The largest earth mover's distance between a class's",
                                         "distribution of a sensitive variable and the overall",
                                         "one: what finding a person's class teaches about it."))
}

# The ordered sensitive variables fixed on the data: by default the numeric
# and ordered-factor ones, as risk_tcloseness() takes them.
#' @export
criterion_prepare.risk_t_closeness <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- criterion_prepare.default(criterion, data, keys = keys, id = id)
  s <- criterion$sensitive
  if (length(intersect(s, c(criterion$keys %||% keys, id))))
    abort_value("criteria", sprintf(
      "a t-closeness criterion whose sensitive columns (%s) are neither keys nor `id`",
      paste(s, collapse = ", ")))
  if (is.null(criterion$ordered)) {
    criterion$ordered <- Filter(function(v) is.ordered(data[[v]]) ||
                                  (is.numeric(data[[v]]) && !is.factor(data[[v]])), s)
  } else if (length(setdiff(criterion$ordered, s))) {
    abort_name("criteria", setdiff(criterion$ordered, s), "the t-closeness criterion's `sensitive`")
  }
  criterion
}

#' @export
criterion_evaluate.risk_t_closeness <- function(criterion, release, original = NULL,
                                                keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "t-closeness")
  if (!is.null(na)) return(na)
  res <- risk_tcloseness(release, keys, criterion$sensitive, ordered = criterion$ordered,
                         id = id)
  new_criterion_result(criterion, max(res$t), detail = res,
                       unit = if (is.null(id)) "records" else "persons")
}

# Classes farther than t on any sensitive variable; 1e-9 absorbs the rounding
# of the distances.
#' @export
criterion_classes.risk_t_closeness <- function(criterion, node, ...) {
  fails <- rep(FALSE, length(node$size))
  for (s in criterion$sensitive)
    fails <- fails | node_diversity(node, s, t = TRUE)$emd > criterion$t + 1e-9
  fails
}

#' @exportS3Method criterion_sensitive risk_t_closeness
criterion_sensitive.risk_t_closeness <- function(criterion) {
  list(sensitive = criterion$sensitive, ordered = criterion$ordered %||% character())
}

#' @exportS3Method criterion_search_text risk_t_closeness
criterion_search_text.risk_t_closeness <- function(criterion, result = NULL) format(criterion)

# risk_spec("tcloseness", keys, sensitive, ordered) of epimask 0.3.
risk_spec_as_tcloseness <- function(args) {
  as.call(c(list(as.name("t_closeness"), NA, args[["sensitive"]]),
            compact(list(ordered = args[["ordered"]], keys = args[["keys"]]))))
}
attr(risk_spec_as_tcloseness, "required") <- c("keys", "sensitive")
