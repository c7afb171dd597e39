# The p% rule of magnitude tables as a risk criterion (methods vignette
# section 30): the second largest contributor, who knows its own
# contribution, must not be able to estimate the largest within p% of it.

#' The p% rule of magnitude tables
#'
#' A cell of a magnitude table (`table_counts(..., value = )`) with total
#' \eqn{X} and largest contributions \eqn{x_1 \ge x_2} is sensitive when
#' \eqn{X - x_1 - x_2 < (p / 100) x_1}: the second largest contributor,
#' subtracting its own contribution from the total, would estimate the
#' largest to within p percent. Its protection interval must reach
#' \eqn{(p / 100) x_1 - (X - x_1 - x_2)} below and above \eqn{X} (the
#' protection levels of tau-argus). Cells without contributions are never
#' sensitive.
#'
#' As a criterion, its value on a table or a release of one is the share of
#' its sensitive cells disclosed (see [cell_threshold()]); met when 0.
#'
#' @param p The precision, in percent, to which no contributor may estimate
#'   another's contribution (greater than 0, at most 100).
#' @return A risk criterion of class `c("risk_p_percent", "risk_criterion")`.
#' @family risk criteria
#' @family count tables
#' @examples
#' set.seed(1)
#' firms <- data.frame(region = sample(c("north", "south"), 40, TRUE),
#'                     sector = sample(c("a", "b", "c"), 40, TRUE),
#'                     turnover = round(rlnorm(40, 3, 1.5)))
#' tab <- table_counts(firms, c("region", "sector"), value = "turnover")
#' sensitive_cells(tab, p_percent(10))
#' @export
p_percent <- function(p = 10) {
  p <- check_number(p, "p", lower = 0, upper = 100, lower_open = TRUE)
  new_risk_criterion("p_percent", p = p, label = sprintf("p%% rule, p = %s", format_num(p)),
                     bound = 0, monotone = FALSE,
                     explanation = paste("The share of sensitive cells (where one contributor could",
                                         "estimate another's contribution within p%) that the release",
                                         "discloses: published, or recoverable within less than their",
                                         "protection."))
}

#' @export
criterion_cells.risk_p_percent <- function(criterion, table, ...) {
  x1 <- table$top[, 1L]
  x2 <- table$top[, 2L]
  X <- table$value
  rest <- X - x1 - x2
  need <- criterion$p / 100 * x1
  sensitive <- X > 0 & rest < need * (1 - 1e-12)
  prot <- pmax(need - rest, 0)
  prot[!sensitive] <- 0
  list(sensitive = sensitive, lower = prot, upper = prot)
}

#' @export
criterion_evaluate.risk_p_percent <- function(criterion, release, original = NULL,
                                              keys = NULL, id = NULL, ...) {
  evaluate_table_rule(criterion, release, original)
}
