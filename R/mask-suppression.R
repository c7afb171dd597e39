# Cell suppression as a masking scheme of count tables, so that a profile
# (profile-table.R) puts it beside rounding, smoothing and noise: the scheme
# holds the rules and options of suppress_table(), which does the work.

#' Cell suppression as a masking scheme for count tables
#'
#' A masking scheme that, applied to a count table ([apply_mask()],
#' [ru_profile()]), is [suppress_table()] with these arguments: the
#' sensitive cells of `rules` and the secondary suppressions that protect
#' them, audited. It lets one profile compare suppression with rounding
#' ([mask_round()] with `base`), smoothing ([mask_kernel()]) and noise
#' ([mask_dp_counts()]) on the same table.
#'
#' @param rules The primary rules ([cell_threshold()], [dominance()],
#'   [p_percent()]).
#' @param method,cost As for [suppress_table()].
#' @return A `mask_scheme` of class `c("mask_suppression", "mask_scheme")`.
#' @family masking schemes
#' @family count tables
#' @examples
#' mask_suppression(cell_threshold(11))
#' @export
mask_suppression <- function(rules, method = c("optimal", "heuristic"), cost = c("cells", "value")) {
  rules <- as_criteria(rules, "rules")
  if (!length(rules)) abort_empty("rules")
  for (r in rules) if (!inherits(r, table_rule_classes))
    abort_type("rules", "rules for table cells (cell_threshold(), dominance(), p_percent())")
  method <- check_choice(method, c("optimal", "heuristic"), arg = "method")
  cost <- check_choice(cost, c("cells", "value"), arg = "cost")
  new_mask_scheme("suppression", method = "suppression", degree = 0, rules = rules,
                  suppress_method = method, cost = cost,
                  label = sprintf("suppression (%s)", paste(vapply(rules, format, character(1)),
                                                             collapse = "; ")))
}

#' @export
mask_validate.mask_suppression <- function(scheme, ...) {
  mask_suppression(scheme$rules, scheme$suppress_method, scheme$cost)
}

#' @export
format.mask_suppression <- function(x, ...) {
  sprintf("%s cell suppression, cost %s: %s", x$suppress_method, x$cost,
          paste(vapply(x$rules, format, character(1)), collapse = "; "))
}

#' @export
scheme_label.mask_suppression <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("suppression (%s)", scheme$suppress_method)
}

#' @export
mask_generator.mask_suppression <- function(scheme, ...) "cell suppression"

#' @export
mask_values.mask_suppression <- function(scheme, x, data, ...) {
  abort_value("scheme", "a scheme for records: mask_suppression() applies to count tables")
}

#' @export
mask_table.mask_suppression <- function(scheme, table, dim = NULL, control = table_control(), ...) {
  suppress_table(table, scheme$rules, scheme$suppress_method, scheme$cost, control)
}
