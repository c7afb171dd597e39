# Noise with a privacy budget for count tables (methods vignette section
# 30): the geometric mechanism (Ghosh, Roughgarden and Sundararajan 2012) on
# every cell of the table, margins included, then the margin repair: the
# non-negative table that satisfies every additive relation and is nearest
# to the noisy one in total absolute difference (an LP; its integer optimum
# by the MILP solver when the LP's is not whole). The repair uses nothing but
# the noisy counts, so the release keeps the mechanism's guarantee.

#' Geometric-mechanism noise for count tables
#'
#' A masking scheme for count tables ([table_counts()], [apply_mask()]): to
#' every cell, margins included, independent two-sided geometric noise
#' \eqn{P(Z = z) = \frac{1 - \alpha}{1 + \alpha} \alpha^{|z|}} with
#' \eqn{\alpha = \exp(-\epsilon / \Delta)}, where \eqn{\Delta} is the number
#' of cells one unit counts in (one per choice of a level in each dimension:
#' the L1 sensitivity of the whole table to one unit more or less). The
#' release is then \eqn{\epsilon}-differentially private for one unit (a
#' person; a row of an aggregated table stands for `freq` units). The noisy
#' table is repaired afterwards: the non-negative whole-number table that
#' satisfies the additive relations and is nearest to the noisy counts in
#' total absolute difference (the table verbs' solver, [table_control()]);
#' the repair is post-processing and keeps the guarantee.
#'
#' A noisy cell is bounded with certainty by nothing but 0: as a criterion
#' the rules ([cell_threshold()]) count a sensitive cell as disclosed when
#' its published value equals it or falls inside its protection interval,
#' and epsilon is the release's guarantee beside that share.
#'
#' @param epsilon The privacy budget, a number > 0 (smaller: more noise).
#' @param mechanism `"geometric"` (the one offered).
#' @return A `mask_scheme` of class `c("mask_dp_counts", "mask_scheme")`.
#' @references Ghosh A, Roughgarden T, Sundararajan M (2012). Universally
#'   utility-maximizing privacy mechanisms. \emph{SIAM Journal on Computing}
#'   41(6), 1673-1693.
#' @family masking schemes
#' @family count tables
#' @examples
#' tab <- table_counts(dose_cohort, c("city", "sex"))
#' sch <- mask_dp_counts(1)
#' sch
#' set.seed(1)
#' \donttest{
#' if (requireNamespace("Rglpk", quietly = TRUE) || requireNamespace("highs", quietly = TRUE))
#'   apply_mask(tab, sch)
#' }
#' @export
mask_dp_counts <- function(epsilon, mechanism = "geometric") {
  epsilon <- check_number(epsilon, "epsilon", lower = 0, lower_open = TRUE)
  mechanism <- check_choice(mechanism, "geometric", arg = "mechanism")
  new_mask_scheme("dp_counts", method = "geometric", degree = epsilon, epsilon = epsilon,
                  mechanism = mechanism, random = TRUE,
                  label = sprintf("geometric noise, epsilon = %s", format_num(epsilon)))
}

#' @export
mask_validate.mask_dp_counts <- function(scheme, ...) mask_dp_counts(scheme$epsilon, scheme$mechanism)

#' @export
format.mask_dp_counts <- function(x, ...) {
  revalidate_scheme(x, "x")
  sprintf("geometric noise with privacy budget epsilon = %s", format_num(x$epsilon))
}

#' @export
scheme_label.mask_dp_counts <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("noise eps %s", format_num(scheme$epsilon))
}

#' @export
mask_generator.mask_dp_counts <- function(scheme, ...) "geometric noise"

# Larger epsilon is weaker masking.
#' @export
mask_strength.mask_dp_counts <- function(scheme, ...) 1 / scheme$epsilon

#' @export
mask_values.mask_dp_counts <- function(scheme, x, data, ...) {
  abort_value("scheme", paste0("a scheme for records: mask_dp_counts() applies to count tables ",
                               "(apply_mask(table_counts(...), mask_dp_counts(epsilon)))"))
}

#' @export
mask_table.mask_dp_counts <- function(scheme, table, dim = NULL, control = table_control(), ...) {
  if (!is.null(table$value))
    abort_value("scheme", paste0("a count table: the geometric mechanism's sensitivity is one unit, ",
                                 "which a magnitude table does not have"))
  delta <- prod(vapply(table$nodes, function(nd) max(nd$level) + 1, numeric(1)))
  alpha <- exp(-scheme$epsilon / delta)
  noisy <- table$count + rgeom2(length(table$count), alpha)
  solver <- pick_solver(control$solver)
  shown <- repair_table(table, noisy, solver, control$time_limit)
  out <- new_masked_table(table, shown, "noise", scheme, epsilon = scheme$epsilon)
  out$alpha <- alpha
  out$sensitivity <- delta
  out
}

# Two-sided geometric noise: the difference of two geometric draws with
# success probability 1 - alpha has P(Z = z) = (1 - alpha) / (1 + alpha) alpha^|z|.
rgeom2 <- function(n, alpha) {
  if (alpha <= 0) return(numeric(n))
  stats::rgeom(n, 1 - alpha) - stats::rgeom(n, 1 - alpha)
}

# The non-negative table satisfying every relation nearest to y in total
# absolute difference: min sum(e+ + e-) s.t. x - y = e+ - e-, M x = 0, x >= 0.
# Whole numbers: the LP first (its optimum is whole for one- and most
# two-dimensional tables), the MILP when it is not.
repair_table <- function(table, y, solver, time_limit) {
  n <- length(y)
  rel <- table$relations
  m <- table$n_relations
  # columns x (1..n), e+ (n+1..2n), e- (2n+1..3n)
  i <- c(rel$relation, m + seq_len(n), m + seq_len(n), m + seq_len(n))
  j <- c(rel$cell, seq_len(n), n + seq_len(n), 2L * n + seq_len(n))
  v <- c(rel$coef, rep(1, n), rep(-1, n), rep(1, n))
  build <- function(types) {
    new_program(c(rep(0, n), rep(1, 2L * n)), i, j, v, m + n, rep("==", m + n), c(rep(0, m), y),
                lower = rep(0, 3L * n), upper = rep(Inf, 3L * n), types = types)
  }
  res <- solve_program(build(rep("C", 3L * n)), solver, time_limit)
  if (res$status == "optimal") {
    x <- res$x[seq_len(n)]
    if (all(abs(x - round(x)) < 1e-7)) return(round(x))
  }
  res <- solve_program(build(c(rep("I", n), rep("C", 2L * n))), solver, time_limit)
  if (res$status != "optimal")
    epimask_abort(sprintf("The repair of the noisy table failed (%s: %s).", res$status,
                          shorten(res$message %||% "", 200L)),
                  c(if (res$status == "time_limit") "epimask_error_time_limit",
                    "epimask_error_solver", "epimask_error_value"), arg = "control")
  round(res$x[seq_len(n)])
}
