# The (n, k)-dominance rule of magnitude tables as a risk criterion (methods
# vignette section 30): a cell whose n largest contributions exceed k% of its
# total is sensitive; its protection is what keeps the intruder from bounding
# the total close enough to estimate those contributions, (100 / k) (x_1 +
# ... + x_n) - X above and below (tau-argus's protection levels).

#' The (n, k)-dominance rule of magnitude tables
#'
#' A cell of a magnitude table (`table_counts(..., value = )`) is sensitive
#' when its `n` largest contributions (records) make up more than `k` percent
#' of its total \eqn{X}: publishing it lets the largest contributors be
#' estimated. Its protection interval must reach \eqn{(100 / k) (x_1 + \dots
#' + x_n) - X} below and above \eqn{X} (the protection levels of tau-argus;
#' below at most \eqn{X}). Cells without contributions are never sensitive.
#'
#' As a criterion, its value on a table or a release of one is the share of
#' its sensitive cells disclosed (see [cell_threshold()]); met when 0.
#'
#' @param n The number of largest contributions, 1 to 10.
#' @param k Their largest accepted share of the total, in percent (0 to 100).
#' @return A risk criterion of class `c("risk_dominance", "risk_criterion")`.
#' @family risk criteria
#' @family count tables
#' @examples
#' set.seed(1)
#' firms <- data.frame(region = sample(c("north", "south"), 40, TRUE),
#'                     sector = sample(c("a", "b", "c"), 40, TRUE),
#'                     turnover = round(rlnorm(40, 3, 1.5)))
#' tab <- table_counts(firms, c("region", "sector"), value = "turnover")
#' sensitive_cells(tab, dominance(1, 60))
#' @export
dominance <- function(n = 2, k = 85) {
  n <- check_number(n, "n", lower = 1, upper = 10, integer = TRUE)
  k <- check_number(k, "k", lower = 0, upper = 100, lower_open = TRUE)
  new_risk_criterion("dominance", n_largest = n, k = k,
                     label = sprintf("(%d, %s)-dominance", n, format_num(k)),
                     bound = 0, monotone = FALSE,
                     explanation = paste("The share of sensitive cells (whose largest contributions",
                                         "dominate the total) that the release discloses: published, or",
                                         "recoverable within less than their protection."))
}

#' @export
criterion_cells.risk_dominance <- function(criterion, table, ...) {
  top <- table$top[, seq_len(criterion$n_largest), drop = FALSE]
  largest <- rowSums(top)
  X <- table$value
  sensitive <- X > 0 & largest > criterion$k / 100 * X * (1 + 1e-12)
  prot <- pmax(100 / criterion$k * largest - X, 0)
  prot[!sensitive] <- 0
  list(sensitive = sensitive, lower = prot, upper = prot)
}

#' @export
criterion_evaluate.risk_dominance <- function(criterion, release, original = NULL,
                                              keys = NULL, id = NULL, ...) {
  evaluate_table_rule(criterion, release, original)
}
