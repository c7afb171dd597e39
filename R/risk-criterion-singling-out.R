# The singling-out attack as a risk criterion (methods vignette section 28.7):
# its value on a release is the risk of risk_singling_out() against the
# original, met when the interval's upper end (or the estimate) is at most
# the bound.

#' Singling-out risk as a risk criterion
#'
#' The attack of [risk_singling_out()] as a [risk criterion][new_risk_criterion()]:
#' its value on a release is the singling-out risk against the original
#' data, its interval the risk's interval, and it is met when the interval's
#' upper end (`against = "upper"`, the default: a context can then state
#' "singling-out risk upper bound under 0.05") or the estimate (`against =
#' "point"`) is at most `max`. The attack is drawn from `seed`, fixed when
#' the criterion is made, so that every release it judges (every scheme of a
#' profile, every release of a search) is attacked with the same hold-out
#' and draws. A release the attack cannot judge (one whose records are not
#' the original's rows when no `control` is given, or whose columns are
#' coded otherwise, as a generalized release) gives a result that does not
#' apply, with the reason.
#'
#' @inheritParams risk_singling_out
#' @param max `NA` (reported only) or the largest accepted risk.
#' @param against `"upper"` or `"point"`: what is compared with `max`.
#' @param control `NULL`, or (as for [risk_singling_out()]) the control for
#'   every release judged: row numbers of the original, or held-out records.
#' @param seed `NULL` (drawn now from the session's generator) or a number.
#' @return A risk criterion of class `c("risk_singling_out", "risk_criterion")`.
#' @family risk criteria
#' @family attacks
#' @examples
#' d <- dose_cohort[1:2000, c("sex", "city", "age_exp", "dose")]
#' crit <- singling_out(0.05, n_attacks = 200, seed = 1)
#' crit
#' criterion_evaluate(crit, d, original = d)
#' rounded <- apply_mask(d, mask_round(-1, type = "decimal"), "dose")
#' criterion_evaluate(crit, rounded, original = d)
#' @export
singling_out <- function(max = NA, mode = c("univariate", "multivariate"), n_attacks = 2000,
                         n_cols = 3, against = c("upper", "point"), columns = NULL,
                         control = NULL, seed = NULL, options = attack_options()) {
  mode <- check_choice(mode, c("univariate", "multivariate"))
  n_attacks <- check_number(n_attacks, "n_attacks", lower = 1, upper = 1e7, integer = TRUE)
  n_cols <- check_count(n_cols, "n_cols")
  if (!is.null(columns) && (!is.character(columns) || !length(columns) || anyNA(columns)))
    abort_type("columns", "NULL or a character vector of column names")
  new_attack_criterion(
    "singling_out", mode = mode, n_attacks = n_attacks, n_cols = n_cols,
    attack_columns = columns,
    what = sprintf("singling out (%s%s)", mode,
                   if (mode == "multivariate") sprintf(", %d columns", n_cols) else ""),
    max = max, against = against, control = control, seed = seed, options = options,
    columns = columns %||% character(),
    explanation = paste("Singling-out risk (Article 29 WP): predicates built from the release",
                        "that single out one original record, beyond what they do on records",
                        "never released; (attack - control) / (1 - control)."))
}

#' @export
criterion_evaluate.risk_singling_out <- function(criterion, release, original = NULL,
                                                 keys = NULL, id = NULL,
                                                 generalize = NULL, rows = NULL, ...) {
  attack_criterion_result(criterion, release, original, id, generalize = generalize, rows = rows,
                          run = function(o, r, control, id)
    risk_singling_out(o, r, control = control, n_attacks = criterion$n_attacks,
                      mode = criterion$mode, n_cols = criterion$n_cols, seed = criterion$seed,
                      id = id, columns = criterion$attack_columns, options = criterion$options))
}
