# The frequency rule of count tables as a risk criterion (methods vignette
# section 30): a cell counting 1 to n - 1 units (and 0, when zeros are
# sensitive) must not be published, nor be recoverable from the published
# cells within its protection interval. On the risk scale: the share of
# sensitive cells a release discloses exactly or too narrowly.

#' The frequency (small-cell) rule of count tables
#'
#' A cell of a table ([table_counts()]) counting from 1 to `n - 1` units is
#' sensitive (a common public-use policy suppresses counts from 1 to 10:
#' `cell_threshold(11)`); with `zeros = TRUE` so is an empty cell. A
#' sensitive cell is protected when the interval an intruder can derive for
#' it from the published cells and the table's additive relations reaches
#' `protection` below and above its value: the intruder can then not tell
#' its value from its neighbours (with the default 1, that a count of 1 is
#' not 0 or 2). The protection below is at most the value itself: the
#' intruder knows every count is at least 0. With `relative = TRUE` the
#' protection is the share `protection` of the cell's value (the frequency
#' safety range of tau-argus), which is what a magnitude table needs.
#'
#' As a criterion ([criterion_evaluate()]), its value on a table or a
#' release of one ([suppress_table()], [apply_mask()] of a table) is the
#' share of its sensitive cells disclosed: published, recoverable within
#' less than their protection, or shown at a value inside it; met when 0.
#'
#' @param n The smallest safe count (cells below it are sensitive), a whole
#'   number >= 1.
#' @param zeros Whether empty cells are sensitive too.
#' @param protection The protection each sensitive cell needs below and above
#'   its value, a number >= 0 (units of the table's value: counts in a count
#'   table), or a share of the value with `relative = TRUE`.
#' @param relative Whether `protection` is a share of the cell's value.
#' @return A risk criterion of class `c("risk_cell_threshold",
#'   "risk_criterion")` (see [new_risk_criterion()]).
#' @family risk criteria
#' @family count tables
#' @examples
#' rule <- cell_threshold(5)
#' rule
#' tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                     hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#' head(sensitive_cells(tab, rule))
#' criterion_evaluate(rule, tab)
#' @export
cell_threshold <- function(n, zeros = FALSE, protection = 1, relative = FALSE) {
  n <- check_count(n)
  check_flag(zeros)
  protection <- check_number(protection, "protection", lower = 0)
  check_flag(relative)
  # the field is `threshold`: a field `n` would be taken for new_risk_criterion()'s `name`
  new_risk_criterion("cell_threshold", threshold = n, zeros = zeros, protection = protection,
                     relative = relative,
                     label = sprintf("frequency rule: counts %s to %d sensitive, protection %s%s",
                                     if (zeros) "0" else "1", n - 1L,
                                     format_num(if (relative) 100 * protection else protection),
                                     if (relative) "%" else ""),
                     bound = 0, monotone = FALSE,
                     explanation = paste("The share of sensitive cells (counts below the threshold)",
                                         "that the release discloses: published, or recoverable from",
                                         "the published cells within less than their protection."))
}

#' @export
criterion_cells.risk_cell_threshold <- function(criterion, table, ...) {
  count <- table$count
  sensitive <- (count >= 1 & count < criterion$threshold) | (criterion$zeros & count == 0)
  v <- table_protected_value(table)
  prot <- if (criterion$relative) criterion$protection * v else rep(criterion$protection, length(v))
  prot[!sensitive] <- 0
  list(sensitive = sensitive, lower = prot, upper = prot)
}

#' @export
criterion_evaluate.risk_cell_threshold <- function(criterion, release, original = NULL,
                                                   keys = NULL, id = NULL, ...) {
  evaluate_table_rule(criterion, release, original)
}
