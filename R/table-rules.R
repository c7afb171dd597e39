# The primary rules of count and magnitude tables (methods vignette section
# 30): which cells are sensitive, and the protection interval each needs.
# Each rule is a risk criterion in its own file (risk-criterion-threshold.R,
# risk-criterion-dominance.R, risk-criterion-ppercent.R) with a
# criterion_cells() method; this file combines rules, and judges a release:
# a sensitive cell is disclosed when what is published puts it inside its
# protection interval.

# The cells a rule makes sensitive and their protection: a method per rule.
# Returns list(sensitive = logical per cell, lower, upper = the protection
# below and above the cell's value (0 where not sensitive)).
criterion_cells <- function(criterion, table, ...) UseMethod("criterion_cells")

#' @export
criterion_cells.default <- function(criterion, table, ...) {
  epimask_abort(sprintf(paste0("The criterion '%s' is not a rule for table cells: use cell_threshold(), ",
                               "dominance() or p_percent()."), format(criterion)),
                c("epimask_error_criterion", "epimask_error_type"), arg = "rules")
}

table_rule_classes <- c("risk_cell_threshold", "risk_dominance", "risk_p_percent")

check_table_rules <- function(rules, table, arg = "rules") {
  rules <- as_criteria(rules, arg)
  if (!length(rules)) abort_empty(arg)
  for (r in rules) {
    if (!inherits(r, table_rule_classes))
      epimask_abort(sprintf(paste0("`%s` must be rules for table cells (cell_threshold(), dominance(), ",
                                   "p_percent()); '%s' is not."), arg, format(r)),
                    c("epimask_error_criterion", "epimask_error_type"), arg = arg)
    if (inherits(r, c("risk_dominance", "risk_p_percent")) && is.null(table$value))
      epimask_abort(sprintf(paste0("The rule '%s' needs the magnitudes of the cells: make the table with ",
                                   "table_counts(..., value = ) (a count table has none)."), format(r)),
                    "epimask_error_value", arg = arg)
  }
  rules
}

# The value the protection refers to: the magnitude in a magnitude table,
# else the count.
table_protected_value <- function(table) table$value %||% table$count

# The rules combined: a cell is sensitive when any rule says so; its
# protection below and above is the largest any rule asks. The protection
# below is at most the value (the intruder knows every cell is >= 0, so a
# lower bound below 0 cannot be had).
table_requirements <- function(table, rules) {
  n <- length(table$count)
  sensitive <- rep(FALSE, n)
  lower <- upper <- rep(0, n)
  rule <- rep(NA_character_, n)
  for (r in rules) {
    cc <- criterion_cells(r, table)
    hit <- cc$sensitive
    rule[hit & is.na(rule)] <- format(r)
    rule[hit & !is.na(rule) & rule != format(r)] <-
      paste(rule[hit & !is.na(rule) & rule != format(r)], format(r), sep = "; ")
    sensitive <- sensitive | hit
    lower[hit] <- pmax(lower[hit], cc$lower[hit])
    upper[hit] <- pmax(upper[hit], cc$upper[hit])
  }
  v <- table_protected_value(table)
  lower <- pmin(lower, v)
  list(sensitive = sensitive, lower = lower, upper = upper, rule = rule, value = v)
}

#' The sensitive cells of a table and the protection each needs
#'
#' Applies the primary rules to every cell of a count or magnitude table:
#' which cells are sensitive and how far below and above its value the
#' interval an intruder can derive must reach for the cell to count as
#' protected ([suppress_table()] builds a pattern that gives every
#' sensitive cell that interval; [audit_table()] checks it).
#'
#' @param table A table from [table_counts()].
#' @param rules A rule or a list of rules: [cell_threshold()], [dominance()],
#'   [p_percent()]. A cell is sensitive when any rule makes it so, and needs
#'   the largest protection any of them asks.
#' @return A data frame, one row per sensitive cell: the codes and levels of
#'   its dimensions, `cell` (its number in the table), `value` (the count, or
#'   the magnitude in a magnitude table), `lower`, `upper` (the protection
#'   needed below and above: the intruder's interval must reach `value -
#'   lower` and `value + upper`) and `rule`.
#' @family count tables
#' @examples
#' tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                     hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#' sensitive_cells(tab, cell_threshold(5))
#' @export
sensitive_cells <- function(table, rules) {
  check_table(table)
  rules <- check_table_rules(rules, table)
  req <- table_requirements(table, rules)
  idx <- which(req$sensitive)
  out <- table_cells_frame(table, list(cell = seq_along(table$count), value = req$value,
                                       lower = req$lower, upper = req$upper, rule = req$rule))
  out <- out[idx, , drop = FALSE]
  out$interior <- NULL
  rownames(out) <- NULL
  out
}

# ---- disclosure ------------------------------------------------------------------

# Which sensitive cells a release discloses. `lo`, `hi`: the interval the
# intruder can prove for each cell (equal to the value where published
# exactly; 0 and Inf where nothing bounds it); `shown`: the value published
# for each cell (NA where none: a suppressed cell). A sensitive cell with
# value v and protection (L, U) is disclosed when the proved interval does
# not reach v - L and v + U (exactly: lo = hi = v; too narrowly: otherwise),
# or when the value shown equals v or lies strictly between v - L and v + U
# (the intruder who takes it at face value is closer than the rule allows).
table_disclosure <- function(req, lo, hi, shown = NULL) {
  v <- req$value
  tol <- 1e-7 * pmax(1, abs(v))
  narrow <- req$sensitive & (hi < v + req$upper - tol | lo > v - req$lower + tol)
  exact <- req$sensitive & abs(hi - lo) <= tol
  guess <- rep(FALSE, length(v))
  if (!is.null(shown)) {
    s <- !is.na(shown)
    guess[s] <- req$sensitive[s] & (abs(shown[s] - v[s]) <= tol[s] |
                                      (shown[s] > v[s] - req$lower[s] + tol[s] &
                                         shown[s] < v[s] + req$upper[s] - tol[s]))
  }
  kind <- ifelse(exact, "exact", ifelse(narrow, "interval", ifelse(guess, "value shown", "")))
  list(disclosed = req$sensitive & (narrow | guess), kind = kind)
}

# The share of sensitive cells disclosed (0 when there are none), as a
# criterion's result.
table_rule_result <- function(criterion, req, disc, detail = NULL, note = NULL) {
  n_sens <- sum(req$sensitive)
  value <- if (n_sens) sum(disc$disclosed) / n_sens else 0
  new_criterion_result(criterion, value, detail = detail, unit = "cells",
                       note = note %||% sprintf("%d of %d sensitive cells disclosed",
                                                sum(disc$disclosed), n_sens))
}

# criterion_evaluate() of a rule on a table or a release of one: the rule's
# sensitive cells on the original table, the release's intervals for them.
evaluate_table_rule <- function(criterion, release, original = NULL) {
  if (inherits(release, "epimask_table") && !inherits(release, "epimask_table_release")) {
    check_table(release)
    req <- table_requirements(release, list(criterion))
    v <- req$value
    disc <- table_disclosure(req, v, v, v)
    return(table_rule_result(criterion, req, disc, detail = disclosure_frame(release, req, disc, v, v),
                             note = sprintf("%d sensitive cells, all published as they are",
                                            sum(req$sensitive))))
  }
  if (!inherits(release, "epimask_table_release"))
    abort_type("release", "a count table (table_counts()) or a release of one (suppress_table(), apply_mask())")
  table <- release$original
  check_table(table, "release$original")
  req <- table_requirements(table, list(criterion))
  iv <- release_intervals(release, which(req$sensitive))
  disc <- table_disclosure(req, iv$lo, iv$hi, release$shown)
  table_rule_result(criterion, req, disc,
                    detail = disclosure_frame(table, req, disc, iv$lo, iv$hi),
                    note = release_disclosure_note(release, req, disc))
}

disclosure_frame <- function(table, req, disc, lo, hi) {
  idx <- which(req$sensitive)
  out <- table_cells_frame(table, list(cell = seq_along(req$value), value = req$value,
                                       lower = req$lower, upper = req$upper, low = lo, high = hi,
                                       disclosed = disc$disclosed, how = disc$kind))
  out <- out[idx, , drop = FALSE]
  out$interior <- NULL
  rownames(out) <- NULL
  out
}

release_disclosure_note <- function(release, req, disc) {
  n <- sum(req$sensitive)
  base <- sprintf("%d of %d sensitive cells disclosed", sum(disc$disclosed), n)
  if (!is.null(release$epsilon))
    base <- paste0(base, sprintf(paste0("; noise bounds no cell with certainty: the release is ",
                                        "epsilon-differentially private with epsilon = %s"),
                                 format_num(release$epsilon)))
  base
}
