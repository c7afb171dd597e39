# The linear and mixed-integer programs of the table verbs (the intruder's
# LPs of audit_table(), the master MILP of suppress_table(), controlled
# rounding, the margin repair of mask_dp_counts()) go to an existing solver:
# GLPK through the Rglpk package or HiGHS through the highs package. The
# package writes no simplex of its own. Both are suggested packages: the
# table verbs say which to install when neither is there. This file holds
# the one interface the verbs use, solve_program(), and the solver choice.

# A program: minimise (or maximise) obj' x subject to rows A x (dir) rhs and
# bounds lower <= x <= upper, x integer where types == "I". A is given as
# triplets (i, j, v) with its dimensions, so the verbs never form a dense
# matrix.
new_program <- function(obj, i, j, v, nrow, dir, rhs, lower, upper, types = NULL,
                        maximum = FALSE) {
  list(obj = as.double(obj), i = as.integer(i), j = as.integer(j), v = as.double(v),
       nrow = as.integer(nrow), ncol = length(obj), dir = dir, rhs = as.double(rhs),
       lower = as.double(lower), upper = as.double(upper),
       types = types %||% rep("C", length(obj)), maximum = isTRUE(maximum))
}

# The solvers the table verbs can use, in order of preference when one is
# asked for everything. Both are suggested packages, installed by
# tools/install-deps.sh and tested by the check: GLPK (Rglpk; Debian's
# r-cran-rglpk installs in seconds) for the many small LPs of the searches,
# HiGHS (highs, which builds its C++ solver from source: 5 minutes with two
# cores) for the audits when it is installed (pick_solver(prefer =
# "highs")), as measured in inst/bench/README.md; either alone when only one
# is installed.
table_solvers <- c("glpk", "highs")
solver_packages <- c(highs = "highs", glpk = "Rglpk")

#' Options of the table verbs' solver
#'
#' The options that travel with every call of the linear-programming solver
#' used by [suppress_table()], [audit_table()], controlled rounding
#' ([mask_round()] with `base`) and the margin repair of [mask_dp_counts()].
#'
#' @param solver `NULL`, `"glpk"` (package Rglpk) or `"highs"` (package
#'   highs). `NULL` uses GLPK for the searches (many small programs) and
#'   HiGHS, when installed, for the audits (an interior-point method on a
#'   part of 2,000 suppressed cells and more, as measured in the methods
#'   vignette); either alone when only one is installed.
#' @param time_limit The most seconds one call of the solver (one MILP or LP)
#'   may take; also the most the whole search of either method of
#'   [suppress_table()] (the heuristic's repairs and the audits among them
#'   included) and the whole audit of a pattern ([audit_table()] and the
#'   audit [suppress_table()] ends with) may take. Past it the call ends
#'   with an error of class `epimask_error_time_limit` (or the optimal
#'   search falls back to the heuristic, `on_failure`).
#' @param on_failure What [suppress_table()]`(method = "optimal")` does when
#'   the optimal search fails or runs out of time: `"heuristic"` (the
#'   heuristic pattern, audited, with a warning of class
#'   `epimask_warning_solver`) or `"error"` (an error of class
#'   `epimask_error_solver`).
#' @param max_rounds The most rounds of the optimal search (each solves the
#'   master problem once and adds the intruder's cuts it violates).
#' @param cleanup Whether the heuristic ends with its clean-up pass: every
#'   secondary suppression, the most expensive first, is published again
#'   when every sensitive cell stays protected without it (proved by a
#'   witness table for each sensitive cell and direction; see the methods
#'   vignette). It stops at the time limit with the pattern reached. Tables
#'   of one and two dimensions up to 10,000 cells only: the sub-table
#'   heuristic of larger tables and of three and more dimensions has no
#'   clean-up (measured too slow for what it removes).
#' @return A list of class `table_control`.
#' @family count tables
#' @examples
#' table_control(time_limit = 30)
#' @export
table_control <- function(solver = NULL, time_limit = 300, on_failure = c("heuristic", "error"),
                          max_rounds = 500, cleanup = TRUE) {
  if (!is.null(solver)) solver <- check_choice(solver, table_solvers, arg = "solver")
  time_limit <- check_number(time_limit, "time_limit", lower = 0, lower_open = TRUE)
  on_failure <- check_choice(on_failure, c("heuristic", "error"), arg = "on_failure")
  max_rounds <- check_count(max_rounds, "max_rounds")
  check_flag(cleanup)
  structure(list(solver = solver, time_limit = time_limit, on_failure = on_failure,
                 max_rounds = max_rounds, cleanup = cleanup), class = "table_control")
}

#' @export
format.table_control <- function(x, ...) {
  sprintf("<table_control> solver %s, time limit %s s, on failure: %s, at most %d rounds",
          x$solver %||% "auto", format_num(x$time_limit, integers = TRUE), x$on_failure, x$max_rounds)
}

#' @export
print.table_control <- function(x, ...) print_formatted(x, ...)

check_table_control <- function(control, arg = "control") {
  if (is.null(control)) return(table_control())
  if (!inherits(control, "table_control")) abort_type(arg, "a table_control()")
  table_control(control$solver, control$time_limit, control$on_failure, control$max_rounds,
                control$cleanup %||% TRUE)
}

# The solver to use: the one asked for (which must be installed) or the
# first installed; none installed is an error saying what to install.
pick_solver <- function(solver = NULL, prefer = NULL) {
  have <- solver_installed
  # the intruder's LPs of an audit, many on one large part, go to HiGHS when
  # it is there (warm starts, table-audit.R); the many small LPs of the
  # searches to GLPK (less overhead per call), as measured
  if (is.null(solver) && !is.null(prefer) && have(prefer)) return(prefer)
  if (!is.null(solver)) {
    if (!have(solver))
      epimask_abort(sprintf(paste0("The solver \"%s\" needs the %s package, which is not installed: ",
                                   "install.packages(\"%s\"), or leave `solver` NULL to use another."),
                            solver, solver_packages[[solver]], solver_packages[[solver]]),
                    c("epimask_error_solver", "epimask_error_value"), arg = "solver")
    return(solver)
  }
  for (s in table_solvers) if (have(s)) return(s)
  epimask_abort(paste0("The table verbs solve linear programs with an existing solver, and none is ",
                       "installed: install the Rglpk package (GLPK; on Debian: apt-get install ",
                       "r-cran-rglpk) or the highs package (HiGHS)."),
                c("epimask_error_solver", "epimask_error_value"), arg = "solver")
}

solver_installed <- function(s) requireNamespace(solver_packages[[s]], quietly = TRUE)

# Solve a program. Returns list(status = "optimal" / "infeasible" /
# "unbounded" / "time_limit" / "error", objval, x, reduced (the reduced costs
# of the columns, LP only: d_j > 0 when raising the upper bound of x_j raises
# a maximum, < 0 when lowering its lower bound does; the opposite signs for a
# minimum), message).
solve_program <- function(p, solver, time_limit = Inf) {
  out <- switch(solver, glpk = solve_glpk(p, time_limit), highs = solve_highs(p, time_limit))
  if (identical(out$status, "optimal") && (is.null(out$x) || any(!is.finite(out$x))))
    out$status <- "error"
  out
}

solve_glpk <- function(p, time_limit) {
  mat <- structure(list(i = p$i, j = p$j, v = p$v, nrow = p$nrow, ncol = p$ncol, dimnames = NULL),
                   class = "simple_triplet_matrix")
  bounds <- glpk_bounds(p$lower, p$upper)
  control <- list(canonicalize_status = FALSE, verbose = FALSE, presolve = TRUE)
  if (is.finite(time_limit)) control$tm_limit <- max(1L, as.integer(ceiling(time_limit * 1000)))
  mip <- any(p$types != "C")
  started <- proc.time()[["elapsed"]]
  call <- function(control) {
    tryCatch(Rglpk::Rglpk_solve_LP(p$obj, mat, p$dir, p$rhs, bounds = bounds, types = p$types,
                                   max = p$maximum, control = control),
             error = function(e) list(status = -1L, message = conditionMessage(e)))
  }
  res <- call(control)
  # GLPK's presolver reports an infeasible or unbounded LP as undefined (1):
  # solved again without it for the status
  if (!mip && identical(res$status, 1L)) res <- call(utils::modifyList(control, list(presolve = FALSE)))
  elapsed <- proc.time()[["elapsed"]] - started
  code <- res$status
  # GLPK's 4 (no feasible solution) is a proof; its 3 (the basis it stopped
  # at is infeasible) is also what a run stopped by the time limit in its
  # first phase reports, so it is the time limit when that was reached
  status <- if (identical(code, 5L)) "optimal"
            else if (identical(code, 6L)) "unbounded"
            else if (identical(code, 4L)) "infeasible"
            else if (is.finite(time_limit) && elapsed >= 0.95 * time_limit) "time_limit"
            else if (identical(code, 3L)) "infeasible"
            else if (mip && identical(code, 1L)) "infeasible"
            else "error"
  list(status = status, objval = res$optimum, x = res$solution,
       reduced = if (!mip) res$solution_dual, message = res$message %||% sprintf("GLPK status %s", code))
}

# The bounds of every column in the form Rglpk hands to GLPK (its class
# "bound_table": GLPK's bound type of each column, then lower and upper),
# built here in one pass. From the list form (indices and values) Rglpk
# builds it with expand.grid() and labels it, which took a fifth of the
# sub-table pass on the Adult 3-D table (5,084 LPs; inst/bench/README.md).
# Rglpk calls as.list() on the bounds before it dispatches on their class,
# so ours keeps its class through as.list(). Bounds Rglpk would refuse go
# the list way, to its own error.
glpk_bounds <- function(lower, upper) {
  if (any(lower > upper) || any(lower == Inf) || any(upper == -Inf))
    return(list(lower = list(ind = seq_along(lower), val = lower),
                upper = list(ind = seq_along(upper), val = upper)))
  # GLPK's types: 1 free, 2 lower bound only, 3 upper only, 4 both, 5 fixed
  type <- ifelse(is.finite(lower), ifelse(is.finite(upper), 4L, 2L),
                 ifelse(is.finite(upper), 3L, 1L))
  type[lower == upper] <- 5L
  structure(list(type = type, lower = lower, upper = upper), row.names = c(NA, -length(lower)),
            class = c("epimask_glpk_bounds", "bound_table", "data.frame"))
}

#' @export
as.list.epimask_glpk_bounds <- function(x, ...) x

# The LPs of this many columns or more go to HiGHS's interior-point method.
highs_ipm_min_columns <- 2000L
highs_verdicts <- c("Optimal", "Infeasible", "Unbounded", "Primal infeasible or unbounded",
                    "Time limit reached")

solve_highs <- function(p, time_limit) {
  lhs <- ifelse(p$dir == "<=", -Inf, p$rhs)
  rhs <- ifelse(p$dir == ">=", Inf, p$rhs)
  A <- structure(list(i = p$i, j = p$j, v = p$v, nrow = p$nrow, ncol = p$ncol, dimnames = NULL),
                 class = "simple_triplet_matrix")
  control <- highs::highs_control(log_to_console = FALSE)
  if (is.finite(time_limit)) control$time_limit <- time_limit
  mip <- any(p$types != "C")
  # a large LP goes to HiGHS's interior-point method, crossover on (so the
  # solution is a vertex with its reduced costs, as from the simplex): on the
  # intruder's LPs of a part of 10,375 cells 0.33 s against 1.0 s for its
  # dual simplex and 3 s for GLPK's (inst/bench/README.md, eighth round)
  if (!mip && p$ncol >= highs_ipm_min_columns) {
    control$solver <- "ipm"
    control$run_crossover <- "on"
  }
  run <- function(control)
    tryCatch(highs::highs_solve(L = p$obj, lower = p$lower, upper = p$upper, A = A,
                                lhs = lhs, rhs = rhs, types = p$types,
                                maximum = p$maximum, control = control),
             error = function(e) list(status = -1L, status_message = conditionMessage(e)))
  res <- run(control)
  msg <- res$status_message %||% ""
  # an interior-point run that ends without a verdict (HiGHS's "Unknown")
  # is solved again by the simplex
  if (identical(control$solver, "ipm") && !msg %in% highs_verdicts) {
    control$solver <- "simplex"
    res <- run(control)
    msg <- res$status_message %||% ""
  }
  status <- switch(msg, "Optimal" = "optimal", "Infeasible" = "infeasible",
                   "Unbounded" = "unbounded", "Primal infeasible or unbounded" = "infeasible",
                   "Time limit reached" = "time_limit", "error")
  list(status = status, objval = res$objective_value, x = res$primal_solution,
       reduced = if (!mip) res$solver_msg$col_dual %||% res$info$col_dual,
       message = msg)
}
