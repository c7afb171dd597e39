# Secondary cell suppression (methods vignette section 30). The sensitive
# cells of the primary rules are suppressed; secondary suppressions make sure
# that no sensitive cell can be recovered from the published cells and the
# additive relations within less than its protection. "optimal" solves the
# mixed-integer model of Fischetti and Salazar-Gonzalez (1999) by Benders
# decomposition: a master problem over which cells to suppress, with the
# capacity cuts that the intruder's LPs (table-audit.R) give for every
# sensitive cell whose interval is too narrow, until none is. "heuristic"
# covers one violated cut at a time greedily, cell by cell. Either way the
# pattern is audited (with unbounded intruder bounds) before it is returned.

#' Secondary cell suppression of a count or magnitude table
#'
#' Suppresses the sensitive cells of `rules` (primary suppression) and as few
#' other cells as needed (secondary suppression, by number of cells or by
#' their total value) so that for every sensitive cell the interval an
#' intruder can derive from the published cells, the additive relations and
#' the knowledge that no cell is negative reaches the cell's protection below
#' and above its value ([sensitive_cells()]).
#'
#' `method = "optimal"` solves the mixed-integer model of Fischetti and
#' Salazar-Gonzalez by Benders decomposition with an existing MILP solver
#' (GLPK or HiGHS, [table_control()]): the master problem chooses the cells to
#' suppress subject to capacity cuts; the intruder's two LPs of every
#' sensitive cell give, when its interval is too narrow, the cut that the
#' next pattern must satisfy; the search ends when no sensitive cell is
#' disclosed, and the pattern is then optimal for the model (cells bounded by
#' twice the largest cell plus the largest protection; see the methods
#' vignette). `method = "heuristic"` starts from the primary suppressions and,
#' for one disclosed cell at a time, adds the cheapest cells of the cut its
#' LP gives until it is protected: fast on large tables, not optimal. With
#' three and more dimensions, and on tables of more than 10,000 cells in one
#' or two, it works in de Wolf's HiTaS order: the
#' sub-tables without hierarchy (one parent code and its children in every
#' dimension), the topmost first, each cell's LP on its sub-table alone;
#' the cells the whole-table audit then does not prove get the whole-table
#' LP (see the methods vignette). Smaller tables of one or two dimensions get
#' the LP on neighbourhoods of the whole table and then a clean-up pass that
#' publishes again the secondary suppressions not needed (`table_control(cleanup = )`),
#' which gives fewer suppressions but costs time that grows faster than the
#' table (measured on a 2-D table of 16,986 cells: 1 % fewer secondary
#' suppressions in 18 times the time; see the methods vignette).
#'
#' The optimal search proves tables of a few hundred cells and small
#' two-dimensional ones; on a table of thousands of cells it seldom ends
#' within the time limit, and `method = "heuristic"` saves that time. On
#' tables of about 1e5 cells (measured on a 2-core machine with HiGHS
#' installed; inst/bench/README.md) the heuristic took 45 s on Adult age x
#' education x native-country (82,908 cells) and 22 minutes on Adult age x
#' occupation x education x sex (88,830 cells, 16,496 sensitive): give such
#' a table `table_control(time_limit = )` to match. Past the limit the error
#' says how far the search got.
#'
#' Every pattern is audited (the intruder's LPs of [audit_table()], bounds 0
#' and infinity, with `exact = FALSE`: an LP is skipped when a table found by
#' another LP already proves that direction) before it is returned. A sensitive cell that could not be protected (it
#' cannot happen in exact arithmetic: suppressing every cell protects all) is
#' listed in the result, with a warning of class `epimask_warning_unprotected`.
#' When the optimal search fails or exceeds `control$time_limit`, the
#' heuristic pattern is returned with a warning of class
#' `epimask_warning_solver` (or an error of class `epimask_error_solver` with
#' `table_control(on_failure = "error")`); no table is ever returned as
#' protected without its audit.
#'
#' @param table A table from [table_counts()].
#' @param rules The primary rules: [cell_threshold()], [dominance()],
#'   [p_percent()], or a list of them.
#' @param method `"optimal"` or `"heuristic"`.
#' @param cost What the secondary suppressions cost: `"cells"` (their number),
#'   `"value"` (their total value: counts, or magnitudes; ties go to fewer
#'   cells), or a numeric vector of one positive cost per cell.
#' @param control Options of the solver ([table_control()]).
#' @return An object of class `c("epimask_protected_table",
#'   "epimask_table_release")`: a list with `suppressed` and `primary`
#'   (logical, one per cell), `audit` (the [audit_table()] result),
#'   `unprotected` (the cells that could not be protected, normally none),
#'   `n_secondary`, `cost` (of the secondary suppressions), `method`,
#'   `optimal` (whether the pattern was proved optimal), `rounds`, `cleanup_complete` (the heuristic: whether its clean-up pass ran to the end within the time limit; `NA` without it), `seconds`,
#'   `solver`, and the custodian-side `original` table and `requirements`.
#'   `as.data.frame()` is the release: one row per cell with the codes of
#'   its dimensions, `value` (`NA` where suppressed) and `status`
#'   (`"published"`, `"primary"`, `"secondary"`); it holds no suppressed
#'   value. Methods `print()`, `format()`, `summary()`, `plot()`, `tidy()`,
#'   `glance()`; [criterion_evaluate()] and [release_report()] take it.
#' @references Fischetti M, Salazar-Gonzalez JJ (1999). Models and algorithms
#'   for the 2-dimensional cell suppression problem in statistical disclosure
#'   control. \emph{Mathematical Programming} 84, 283-312.
#'
#'   Hundepool A, Domingo-Ferrer J, Franconi L, Giessing S, Schulte Nordholt
#'   E, Spicer K, de Wolf P-P (2012). \emph{Statistical Disclosure Control}.
#'   Wiley, chapter 4.
#' @family count tables
#' @examples
#' \donttest{
#' if (requireNamespace("Rglpk", quietly = TRUE) || requireNamespace("highs", quietly = TRUE)) {
#'   tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                       hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#'   prot <- suppress_table(tab, cell_threshold(5))
#'   prot
#'   head(as.data.frame(prot))
#'   criterion_evaluate(cell_threshold(5), prot)
#' }
#' }
#' @export
suppress_table <- function(table, rules, method = c("optimal", "heuristic"),
                           cost = c("cells", "value"), control = table_control()) {
  check_table(table)
  rules <- check_table_rules(rules, table)
  method <- check_choice(method, c("optimal", "heuristic"), arg = "method")
  control <- check_table_control(control)
  solver <- pick_solver(control$solver)
  req <- table_requirements(table, rules)
  costs <- suppression_costs(cost, table, req)
  started <- proc.time()[["elapsed"]]
  search <- if (!any(req$sensitive)) list(suppressed = req$sensitive, optimal = TRUE, rounds = 0L)
            else if (method == "optimal") optimal_or_fallback(table, req, costs, solver, control)
            else heuristic_suppression(table, req, costs, solver, control)
  # the verdict on every sensitive cell, LPs skipped where a table found
  # already proves a direction (audit_table() gives the exact intervals);
  # the sub-table heuristic's last audit is that verdict on this pattern
  audit <- search$audit %||%
    run_audit(table, search$suppressed, req, pick_solver(control$solver, prefer = "highs"),
              control$time_limit, sensitive_only = TRUE, exact = FALSE)
  new_protected_table(table, req, search, audit, costs, method, solver, rules,
                      proc.time()[["elapsed"]] - started)
}

suppression_costs <- function(cost, table, req) {
  n <- length(req$value)
  if (is.numeric(cost) && !is.object(cost)) {
    if (length(cost) != n) abort_length("cost", sprintf("have one cost per cell (%d), not %d", n, length(cost)))
    if (anyNA(cost) || any(!is.finite(cost)) || any(cost <= 0)) abort_value("cost", "positive finite costs")
    return(list(type = "custom", cost = as.double(cost)))
  }
  type <- check_choice(cost, c("cells", "value"), arg = "cost")
  if (type == "cells") return(list(type = type, cost = rep(1, n)))
  # the value, and a little more than nothing for an empty cell, so that a
  # tie in value goes to the pattern of fewer cells
  v <- req$value
  eps <- min(c(v[v > 0], 1)) / (n + 1)
  list(type = type, cost = v + eps)
}

# ---- the optimal search -------------------------------------------------------------

# The optimal search, or (when it fails or runs out of time) the heuristic
# with a warning, or the error the caller asked for.
optimal_or_fallback <- function(table, req, costs, solver, control) {
  res <- tryCatch(optimal_suppression(table, req, costs, solver, control),
                  epimask_error_solver = function(e) e)
  if (!inherits(res, "condition")) return(res)
  if (control$on_failure == "error") stop(res)
  epimask_warn(sprintf(paste0("The optimal secondary suppression did not finish (%s); the heuristic ",
                              "pattern is returned instead (audited like every pattern)."),
                       conditionMessage(res)), "epimask_warning_solver")
  out <- heuristic_suppression(table, req, costs, solver, control, start = res$pattern)
  out$fallback <- conditionMessage(res)
  out
}

# An upper bound of every cell in the model: no feasible table the pattern
# must allow needs a cell larger than twice the largest cell plus the
# largest protection (methods vignette section 30).
model_cap <- function(req) 2 * max(req$value) + max(req$upper) + 1

optimal_suppression <- function(table, req, costs, solver, control) {
  started <- proc.time()[["elapsed"]]
  deadline <- started + control$time_limit
  n <- length(req$value)
  cap <- model_cap(req)
  cuts <- initial_cuts(table, req, cap)
  sens <- which(req$sensitive)
  pattern <- req$sensitive
  for (round in seq_len(control$max_rounds)) {
    left <- control$time_limit - (proc.time()[["elapsed"]] - started)
    if (left <= 0) solver_time_out(control, pattern)
    pattern <- solve_master(n, costs$cost, req$sensitive, cuts, solver, left, pattern)
    # the intruder's LPs of a round share what is left of the time limit
    # (thousands of LPs of seconds each on a table of 1e5 cells: without
    # the deadline the Adult 3-D table's first round ran past 13 minutes
    # under a limit of 300 s)
    found <- tryCatch(violated_cuts(table, req, pattern, sens, cap, solver, left, deadline),
                      epimask_error_time_limit = function(e) solver_time_out(control, pattern))
    if (!length(found)) return(list(suppressed = pattern, optimal = TRUE, rounds = round))
    cuts <- c(cuts, found)
  }
  err <- structure(class = c("epimask_error_solver", "epimask_error_value", "epimask_error",
                             "error", "condition"),
                   list(message = sprintf("the search did not end within %d rounds (table_control(max_rounds = ))",
                                          control$max_rounds), call = NULL, arg = "control",
                        pattern = pattern))
  stop(err)
}

solver_time_out <- function(control, pattern) {
  err <- structure(class = c("epimask_error_time_limit", "epimask_error_solver",
                             "epimask_error_value", "epimask_error", "error", "condition"),
                   list(message = sprintf("it exceeded the time limit of %s s (table_control(time_limit = ))",
                                          format_num(control$time_limit, integers = TRUE)),
                        call = NULL, arg = "control", pattern = pattern))
  stop(err)
}

# A cut: sum over `cells` of `coef` * y >= `need` (y = 1: suppressed).
new_cut <- function(cells, coef, need) {
  coef <- pmin(coef, need)
  keep <- coef > 1e-9 * need
  list(cells = cells[keep], coef = coef[keep], need = need)
}

# The cuts every pattern must satisfy from the start: for a sensitive cell
# and each relation that holds it, the other cells of the relation must be
# able to move by its protection (the cells on its side of the relation
# down, those on the other side up).
initial_cuts <- function(table, req, cap) {
  rel <- table$relations
  v <- req$value
  sens <- which(req$sensitive)
  on <- rel$cell %in% sens
  out <- list()
  for (r in unique(rel$relation[on])) {
    rows <- rel[rel$relation == r, , drop = FALSE]
    for (k in intersect(rows$cell, sens)) {
      others <- rows[rows$cell != k, , drop = FALSE]
      same <- sign(others$coef) == sign(rows$coef[rows$cell == k])
      down <- v[others$cell]
      up <- cap - v[others$cell]
      if (req$upper[[k]] > 0)
        out[[length(out) + 1L]] <- new_cut(others$cell, ifelse(same, down, up), req$upper[[k]])
      if (req$lower[[k]] > 0)
        out[[length(out) + 1L]] <- new_cut(others$cell, ifelse(same, up, down), req$lower[[k]])
    }
  }
  out
}

# The master problem: the cheapest pattern that holds the sensitive cells
# and satisfies every cut.
solve_master <- function(n, cost, fixed, cuts, solver, time_limit, previous) {
  m <- length(cuts)
  i <- rep(seq_len(m), vapply(cuts, function(ct) length(ct$cells), integer(1)))
  j <- unlist(lapply(cuts, `[[`, "cells"))
  v <- unlist(lapply(cuts, `[[`, "coef"))
  p <- new_program(cost, i, j, v, m, rep(">=", m), vapply(cuts, `[[`, numeric(1), "need"),
                   lower = as.double(fixed), upper = rep(1, n), types = rep("I", n))
  res <- solve_program(p, solver, time_limit)
  if (res$status != "optimal") {
    err <- structure(class = c(if (res$status == "time_limit") "epimask_error_time_limit",
                               "epimask_error_solver", "epimask_error_value", "epimask_error",
                               "error", "condition"),
                     list(message = sprintf("the master problem was not solved (%s: %s)",
                                            res$status, shorten(res$message %||% "", 200L)),
                          call = NULL, arg = "control", pattern = previous))
    stop(err)
  }
  res$x > 0.5
}

# The cuts a pattern violates: for every sensitive cell whose interval (cells
# bounded by `cap`) does not reach its protection, the Benders cut of its LP.
violated_cuts <- function(table, req, pattern, sens, cap, solver, time_limit, deadline = Inf) {
  v <- req$value
  lo <- ifelse(pattern, 0, v)
  hi <- ifelse(pattern, cap, v)
  iv <- intruder_intervals(table, lo, hi, sens, solver, time_limit, cuts = TRUE, deadline = deadline)
  out <- list()
  for (t in seq_along(sens)) {
    k <- sens[[t]]
    tol <- 1e-7 * max(1, v[[k]])
    if (req$upper[[k]] > 0 && iv$high[[t]] < v[[k]] + req$upper[[k]] - tol)
      out[[length(out) + 1L]] <- benders_cut(iv$up[[t]], v, cap, req$upper[[k]], pattern)
    if (req$lower[[k]] > 0 && iv$low[[t]] > v[[k]] - req$lower[[k]] + tol)
      out[[length(out) + 1L]] <- benders_cut(iv$down[[t]], v, cap, req$lower[[k]], pattern)
  }
  out
}

# The capacity cut of an intruder's LP: a cell with reduced cost d > 0 may
# rise by cap - value, one with d < 0 fall by its value; sum over cells of
# |d| times that capacity, times y, must reach the protection. At the
# current pattern the sum over the suppressed cells is what the intruder's
# bound moves (LP duality), which is short of the protection. If the
# solver gave no reduced costs, the weaker cut: suppress one more cell of
# the part's relations.
benders_cut <- function(reduced, v, cap, need, pattern) {
  if (!length(reduced)) stop("internal: no reduced costs")
  cells <- as.integer(names(reduced))
  d <- unname(reduced)
  coef <- ifelse(d > 0, d * (cap - v[cells]), -d * v[cells])
  cut <- new_cut(cells, coef, need)
  if (!length(cut$cells) || sum(cut$coef[!pattern[cut$cells]]) <= 0)
    cut <- list(cells = cells[!pattern[cells]], coef = rep(need, sum(!pattern[cells])), need = need)
  cut
}

# ---- the heuristic ---------------------------------------------------------------------

# For each sensitive cell and direction in turn: the incremental attacker problem of Fischetti and Salazar-Gonzalez
# (an LP over the deviations z+ and z- of the cells from their values: the
# cell moved by its protection, every relation still holding, each cell
# within its capacity, published cells charged their cost per unit moved);
# the published cells its solution moves are suppressed, and the moved
# table then is one the intruder cannot exclude, so the cell is protected.
# More suppressions only widen intervals: a cell once protected stays so,
# and one pass suffices. The LP is solved on the cells within a few
# relations of the cell first, on more when that has no solution.
heuristic_suppression <- function(table, req, costs, solver, control, start = NULL, only = NULL,
                                  cleanup = control$cleanup, started = proc.time()[["elapsed"]],
                                  subtables = use_subtables(table)) {
  # three and more dimensions, or many cells: HiTaS's sub-tables
  # (table-suppress-hitas.R)
  if (is.null(only) && subtables)
    return(hitas_suppression(table, req, costs, solver, control, started, start))
  solver <- heuristic_solvers(solver, control, table)
  v <- req$value
  cap <- model_cap(req)
  pattern <- req$sensitive | (if (is.null(start)) FALSE else start)
  sens <- if (is.null(only)) which(req$sensitive) else only
  sens <- sens[order(-pmax(req$upper[sens], req$lower[sens]), sens)]
  csr <- table_relation_csr(table)
  rel_cell <- table$relations$cell
  rel_coef <- table$relations$coef
  rel_id <- table$relations$relation
  # directions already shown protected by a deviation found for another cell
  done <- list(up = req$upper <= 0, down = req$lower <= 0)
  rounds <- 0L
  many <- length(table$dims) >= 3L
  stage <- if (is.null(only)) "the search" else "the repair of the cells the audit did not prove"
  for (a in seq_along(sens)) {
    k <- sens[[a]]
    box <- NULL
    for (dir in c("up", "down")) {
      if (done[[dir]][[k]]) next
      if (many && is.null(box)) box <- sibling_box(table, k)
      need <- if (dir == "up") req$upper[[k]] else req$lower[[k]]
      check_heuristic_time(control, started, search_progress(stage, a - 1L, length(sens), "cells"))
      rounds <- rounds + 1L
      move <- incremental_move(csr, rel_cell, rel_coef, rel_id, k, dir, need, pattern, costs$cost,
                               v, cap, solver, control$time_limit,
                               box = box, wider = if (many) function() wider_boxes(table, k))
      if (is.null(move)) stop("internal: the incremental attacker problem has no solution on the whole table")
      pattern[move$cells[moved_by(move$z, need)]] <- TRUE
      done <- certify_moves(done, move, req, v, cap)
    }
  }
  removed <- 0L
  complete <- NA
  if (cleanup) {
    clean <- cleanup_secondaries(table, req, pattern, costs, solver, control, started)
    pattern <- clean$pattern
    removed <- clean$removed
    complete <- clean$complete
  }
  list(suppressed = pattern, optimal = FALSE, rounds = rounds, removed = removed,
       cleanup_complete = complete)
}

# Whether the heuristic works in HiTaS's sub-tables: always with three and
# more dimensions (the relation neighbourhoods of a cell reach thousands of
# cells), and in one or two above `max_cells` cells, where the
# neighbourhood LPs and the clean-up grow faster than the table (a 2-D table
# of zip codes within counties and states by 18 age groups, counts 1-3
# sensitive: 16,986 cells 72 s with the clean-up, 34 s without it, 4.6 s in
# sub-tables, 677 secondary of count 10,629 against 670 of 10,597; 42,408
# cells 243 s against 11.7 s; bench README, seventh round).
use_subtables <- function(table, max_cells = 10000L) {
  length(table$dims) >= 3L || length(table$count) > max_cells
}

# A deviation z (a table the intruder cannot exclude minus the true one)
# shows every sensitive cell it moves by at least its protection protected in
# that direction, and in the other when -z stays within the cells'
# capacities; it stays possible as more cells are suppressed.
certify_moves <- function(done, move, req, v, cap) {
  cells <- move$cells
  z <- move$z
  tol <- 1e-7 * pmax(1, v[cells])
  done$up[cells] <- done$up[cells] | (z >= req$upper[cells] - tol)
  done$down[cells] <- done$down[cells] | (-z >= req$lower[cells] - tol)
  if (all(z <= v[cells] + tol & -z <= cap - v[cells] + tol)) {
    done$up[cells] <- done$up[cells] | (-z >= req$upper[cells] - tol)
    done$down[cells] <- done$down[cells] | (z >= req$lower[cells] - tol)
  }
  done
}

# The incremental attacker problem of cell k: list(cells, z), the cells of
# the problem and their deviation in its solution (zero on every published
# cell when the suppressed ones already let k move by its protection: they
# cost nothing). Solved on the cells within two relations of k first,
# within more when that has no solution, the cheapest kept up to
# `max_radius`. In tables of many dimensions two relations already reach
# thousands of cells: a neighbourhood is then cut to its `max_cells`
# cheapest cells (the suppressed ones, free, always kept), and the cut
# doubles while the problem has no solution (any solution on fewer cells is
# one on the table: the cells left out stay at their values).
incremental_move <- function(csr, rel_cell, rel_coef, rel_id, k, dir, need, pattern, cost, v,
                             cap, solver, time_limit, max_radius = 6L, max_cells = 2500L,
                             blocked = integer(), box = NULL, fallback = TRUE,
                             free_first = 20000L, wider = NULL) {
  near <- k
  n <- length(v)
  best <- NULL
  # the LP on a box of cells: a large box (free_first cells or more) on its
  # suppressed cells alone first. A solution there moves no published cell,
  # so it costs nothing, the box's optimum; and it is a third of the box's
  # LP: on the Adult 4-D table, where the repair's boxes of the top cells
  # are the whole table, 4-8 s against 60-99 s (inst/bench/README.md,
  # eleventh round). `free_only`: the suppressed cells alone, not the box after them.
  box_lp <- function(box, free_only = FALSE) {
    if (free_only || length(box) >= free_first) {
      res <- incremental_lp(rel_cell, rel_coef, rel_id, csr, box[pattern[box] | box == k], k, dir,
                            need, pattern, cost, v, cap, solver, time_limit)
      if (!is.null(res) || free_only) return(res)
    }
    incremental_lp(rel_cell, rel_coef, rel_id, csr, box, k, dir, need, pattern, cost, v, cap,
                   solver, time_limit)
  }
  # with three or more dimensions, the cells around k in every dimension
  # (sibling_box()) first: the relation neighbourhoods that hold a cycle of
  # 2^d cells reach far too many cells, and the box's solution is taken
  if (!is.null(box)) {
    res <- box_lp(box[!(box %in% blocked)])
    if (!is.null(res)) return(res)
    # then the box grown by one level in one dimension at a time (wider_boxes()),
    # the smallest first, a large one on its suppressed cells alone: on the
    # Adult 4-D table's repair, 11 of 21 sampled cells whose box had no
    # solution had one there (total cost 10), where the relation
    # neighbourhoods' first solution cost 27,994 (inst/bench/README.md,
    # twelfth round)
    for (wide in if (is.null(wider)) list() else wider()) {
      wide <- wide[!(wide %in% blocked)]
      res <- box_lp(wide, free_only = length(wide) >= free_first)
      if (!is.null(res)) return(res)
    }
    if (!fallback) return(NULL)
    # the relation neighbourhoods then, uncut, and the first that has a
    # solution is taken (keeping the cheapest of up to four relations cost
    # minutes on the Adult age x education x race table: the wider ones
    # reach the whole table)
    max_radius <- 1L
    max_cells <- Inf
  }
  limit <- max_cells
  for (radius in seq_len(64L)) {
    rels <- unique(unlist(csr$cell_rels[near], use.names = FALSE))
    rows <- relation_rows(csr, rels)
    grown <- unique(c(near, rel_cell[rows]))
    if (length(blocked)) grown <- grown[!(grown %in% blocked)]
    cut <- length(grown) > limit
    if (cut) grown <- cheapest_cells(grown, near, pattern, cost, limit)
    full <- length(grown) == length(near)
    near <- grown
    if (radius == 1L && !full) next
    res <- incremental_lp(rel_cell, rel_coef, rel_id, csr, near, k, dir, need, pattern, cost, v,
                          cap, solver, time_limit)
    # a wider neighbourhood may hold a cheaper cycle (one through the small
    # cells of a neighbouring group rather than a large sub-total): keep the
    # cheapest up to max_radius (6: on the Adult age x education table 4
    # gave total cost 4,713, 6 and 10 both 1,609), stop at a free one or at
    # the cut
    if (!is.null(res) && (is.null(best) || res$cost < best$cost - 1e-9 * max(1, best$cost))) best <- res
    if (!is.null(best) && (best$cost <= 0 || radius >= max_radius || cut)) break
    if (is.null(best) && cut) limit <- 2L * limit
    else if (full || length(near) == n) break
  }
  best
}

# The cells of a table whose code in every dimension lies in the subtree of
# the parent of cell k's code (the whole dimension when k's code is its
# total): cell k, its siblings and everything below them, the smallest
# sub-table in which a cycle around k closes within every relation (the
# parent's own relation upwards holds cells outside, so the parent stays
# put). de Wolf's HiTaS and tau-argus's hypercubes work on such sub-tables.
sibling_box <- function(table, k) subtree_box(table, k)

# The sibling box of cell k grown by one level in one dimension (that
# dimension's grandparent code, the parent in the others), one box per
# dimension where k's parent code is not the total, the smallest first: a
# cycle through a neighbouring group's small cells closes there where the
# sibling box holds none.
wider_boxes <- function(table, k) {
  d <- length(table$dims)
  base <- length(sibling_box(table, k))
  boxes <- lapply(seq_len(d), function(j) subtree_box(table, k, up = replace(rep(1L, d), j, 2L)))
  boxes <- boxes[lengths(boxes) > base]
  boxes[order(lengths(boxes))]
}

# The cells whose code in every dimension lies in the subtree of the
# ancestor `up` levels above cell k's code (the parent by default; the
# total where the code has fewer ancestors; one `up` per dimension or one
# for all), by the table's numbering (cell = 1 + sum (code - 1) * stride),
# in increasing order.
subtree_box <- function(table, k, up = 1L) {
  stride <- cumprod(c(1, vapply(table$nodes, nrow, integer(1))))[seq_along(table$dims)]
  up <- rep_len(up, length(table$dims))
  cells <- 1
  for (j in seq_along(table$dims)) {
    nd <- table$nodes[[j]]
    top <- table$index[k, j]
    for (u in seq_len(up[[j]])) if (!is.na(nd$parent[[top]])) top <- nd$parent[[top]]
    cells <- as.vector(outer(cells, (node_subtree(nd$parent, top) - 1) * stride[[j]], `+`))
  }
  sort(as.integer(cells))
}

# A node and all its descendants, from the parent of every node.
node_subtree <- function(parent, top) {
  out <- top
  new <- top
  while (length(new)) {
    new <- which(parent %in% new)
    out <- c(out, new)
  }
  out
}

# The cells of a neighbourhood kept when it is cut to `limit`: those of the
# last one and the suppressed ones first, then the cheapest others.
cheapest_cells <- function(grown, near, pattern, cost, limit) {
  new <- setdiff(grown, near)
  first <- new[pattern[new]]
  rest <- new[!pattern[new]]
  rest <- rest[order(cost[rest], rest)]
  c(near, first, utils::head(rest, max(0L, limit - length(near) - length(first))))
}

# The solvers of the heuristic's LPs: the one picked, and HiGHS for the
# large ones when it is installed and no solver was asked for (GLPK took
# 16-31 s on the 23,688 columns of a sub-total's LP in the Adult age x
# education x race table, HiGHS 0.6 s; GLPK has less overhead on the many
# small ones). A vector c(small, large), or the one solver.
heuristic_solvers <- function(solver, control, table) {
  if (length(table$dims) < 3L || !is.null(control$solver) || solver == "highs" ||
      !solver_installed("highs")) return(solver)
  c(solver, "highs")
}

# The cells a deviation moves: |z| above 1e-6 of max(1, need). A smaller
# value is the solver's rounding, not a move (HiGHS's feasibility tolerance
# is 1e-7). The audit, not this, certifies the pattern.
moved_by <- function(z, need) abs(z) > 1e-6 * max(1, need)

# The solver for an LP of `columns` columns.
lp_solver_for <- function(solver, columns, large = 4000L) {
  if (length(solver) == 1L) solver else if (columns >= large) solver[[2L]] else solver[[1L]]
}

incremental_lp <- function(rel_cell, rel_coef, rel_id, csr, near, k, dir, need, pattern, cost, v,
                           cap, solver, time_limit, rels = NULL) {
  solver <- lp_solver_for(solver, 2L * length(near))
  # every relation of the cells (the cells outside `near` fixed), or the
  # relations given (a HiTaS sub-table's: the codes below its children free)
  if (is.null(rels)) rels <- unique(unlist(csr$cell_rels[near], use.names = FALSE))
  rows <- relation_rows(csr, rels)
  col <- match(rel_cell[rows], near)
  keep <- !is.na(col)
  rows <- rows[keep]
  col <- col[keep]
  m <- length(near)
  # columns: z+ of the cells, then z-; relation rows: sum coef (z+ - z-) = 0
  i <- rep(match(rel_id[rows], rels), 2L)
  j <- c(col, m + col)
  x <- c(rel_coef[rows], -rel_coef[rows])
  w <- cost[near]
  w[pattern[near]] <- 0
  upper <- c(cap - v[near], v[near])
  lower <- numeric(2L * m)
  kk <- match(k, near)
  if (dir == "up") {
    lower[[kk]] <- upper[[kk]] <- need
    upper[[m + kk]] <- 0
  } else {
    lower[[m + kk]] <- upper[[m + kk]] <- need
    upper[[kk]] <- 0
  }
  p <- new_program(c(w, w), i, j, x, length(rels), rep("==", length(rels)), rep(0, length(rels)),
                   lower, upper)
  res <- solve_program(p, solver, time_limit)
  if (res$status == "infeasible") return(NULL)
  if (res$status != "optimal")
    epimask_abort(sprintf("The solver (%s) failed on the incremental attacker problem (%s: %s).",
                          solver, res$status, shorten(res$message %||% "", 200L)),
                  c(if (res$status == "time_limit") "epimask_error_time_limit",
                    "epimask_error_solver", "epimask_error_value"), arg = "control")
  z <- res$x[seq_len(m)] - res$x[m + seq_len(m)]
  list(cells = near, z = z, cost = sum(cost[near][!pattern[near] & moved_by(z, need)]))
}

# ---- the result ----------------------------------------------------------------------

new_protected_table <- function(table, req, search, audit, costs, method, solver, rules, seconds) {
  supp <- search$suppressed
  d <- as.data.frame(audit)
  bad <- d$cell[d$status == "primary" & !d$protected]
  if (length(bad))
    epimask_warn(sprintf(paste0("%d sensitive cell%s could not be protected: %s. They are listed in ",
                                "$unprotected; do not publish the table as it is."), length(bad),
                         if (length(bad) == 1L) "" else "s",
                         paste(utils::head(cell_label(table, bad), 5L), collapse = "; ")),
                 "epimask_warning_unprotected")
  secondary <- supp & !req$sensitive
  structure(list(original = table, requirements = req, suppressed = supp, primary = req$sensitive,
                 shown = ifelse(supp, NA_real_, req$value), audit = audit, unprotected = bad,
                 n_primary = sum(req$sensitive), n_secondary = sum(secondary),
                 cost = sum(costs$cost[secondary]), cost_type = costs$type, method = method,
                 optimal = isTRUE(search$optimal), fallback = search$fallback,
                 rounds = search$rounds, cleanup_complete = search$cleanup_complete,
                 seconds = seconds, solver = solver, rules = rules,
                 form = "suppression"),
            class = c("epimask_protected_table", "epimask_table_release"))
}

# The intruder's interval of given cells of a protected table: a published
# cell exactly, a suppressed one from the audit.
release_intervals <- function(release, cells) UseMethod("release_intervals")

#' @export
release_intervals.epimask_protected_table <- function(release, cells) {
  v <- release$requirements$value
  lo <- hi <- v
  a <- release$audit
  lo[a$cell] <- a$low
  hi[a$cell] <- a$high
  # suppressed cells the audit did not bound (sensitive under another rule)
  more <- setdiff(cells[release$suppressed[cells]], a$cell)
  if (length(more)) {
    sup <- release$suppressed
    iv <- intruder_intervals(release$original, ifelse(sup, 0, v), ifelse(sup, Inf, v), more,
                             pick_solver(NULL, prefer = "highs"))
    lo[more] <- iv$low
    hi[more] <- iv$high
  }
  list(lo = lo, hi = hi)
}

#' @rdname suppress_table
#' @param x A protected table.
#' @param ... Ignored.
#' @param row.names,optional As for [as.data.frame()].
#' @export
as.data.frame.epimask_protected_table <- function(x, row.names = NULL, optional = FALSE, ...) {
  status <- ifelse(x$primary, "primary", ifelse(x$suppressed, "secondary", "published"))
  out <- table_cells_frame(x$original, list(value = x$shown, status = status))
  apply_row_names(out, row.names, optional)
}

#' @rdname suppress_table
#' @export
format.epimask_protected_table <- function(x, ...) {
  n <- length(x$suppressed)
  tab <- x$original
  total_v <- sum(x$requirements$value[table_interior(tab)])
  lost <- sum(x$requirements$value[x$suppressed & table_interior(tab)])
  c(sprintf("<protected table> %s of %s cells suppressed: %d primary, %d secondary (%s%s)",
            format_num(sum(x$suppressed), integers = TRUE), format_num(n, integers = TRUE),
            x$n_primary, x$n_secondary, x$method,
            if (x$method == "optimal" && x$optimal) ", proved optimal" else
              if (!is.null(x$fallback)) ", heuristic after the optimal search failed" else ""),
    sprintf("  rules: %s", paste(vapply(x$rules, format, character(1)), collapse = "; ")),
    sprintf("  secondary cost %s (%s); interior %s suppressed: %s of %s",
            format_cost(x), x$cost_type, if (is.null(tab$value)) "counts" else "value",
            format_num(lost, 7, integers = TRUE), format_num(total_v, 7, integers = TRUE)),
    if (length(x$unprotected))
      sprintf("  NOT PROTECTED: %d sensitive cells (see $unprotected)", length(x$unprotected))
    else sprintf("  audit (%s, %s s): every sensitive cell's interval reaches its protection",
                 attr(x$audit, "solver") %||% x$solver, format_num(attr(x$audit, "seconds"), 2)))
}

#' @rdname suppress_table
#' @param n Number of cells to print.
#' @export
print.epimask_protected_table <- function(x, n = 10L, ...) {
  cat(format(x), sep = "\n")
  d <- as.data.frame(x)
  d <- d[d$status != "published", , drop = FALSE]
  if (nrow(d)) {
    cat("\nSuppressed cells:\n")
    print(format_table(utils::head(d, n)), row.names = FALSE)
    if (nrow(d) > n) cat(sprintf("  ... %d more\n", nrow(d) - n))
  }
  invisible(x)
}

#' @rdname suppress_table
#' @param object A protected table.
#' @export
summary.epimask_protected_table <- function(object, ...) {
  structure(list(glance = glance(object), audit = glance(object$audit),
                 cost_shown = format_cost(object)),
            class = "summary.epimask_protected_table")
}

# The cost of the secondary suppressions as a custodian reads it: their
# number or their total value to the last digit (without the tie-breaking
# share of suppression_costs(), less than 1 in all), a custom cost to 6
# significant digits.
format_cost <- function(x) {
  secondary <- x$suppressed & !x$primary
  switch(x$cost_type,
         cells = format_num(sum(secondary), integers = TRUE),
         value = format_num(sum(x$requirements$value[secondary]), 7, integers = TRUE),
         format_num(x$cost, 6))
}

#' @export
format.summary.epimask_protected_table <- function(x, ...) {
  g <- x$glance
  g$cost <- x$cost_shown
  c("Protected table", utils::capture.output(print(format_table(g), row.names = FALSE)),
    "", "Audit", utils::capture.output(print(format_table(x$audit), row.names = FALSE)))
}

#' @export
print.summary.epimask_protected_table <- function(x, ...) print_formatted(x, ...)

#' @rdname epimask-tidiers
#' @method tidy epimask_protected_table
#' @export
tidy.epimask_protected_table <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance epimask_protected_table
#' @export
glance.epimask_protected_table <- function(x, ...) {
  data.frame(cells = length(x$suppressed), suppressed = sum(x$suppressed), primary = x$n_primary,
             secondary = x$n_secondary, cost = x$cost, cost_type = x$cost_type, method = x$method,
             optimal = x$optimal, unprotected = length(x$unprotected), solver = x$solver,
             seconds = x$seconds, stringsAsFactors = FALSE)
}
