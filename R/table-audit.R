# The intruder's linear programs (methods vignette section 30). What is
# published about a table bounds each cell: a published cell is known
# exactly, a suppressed one only to be >= 0, a rounded one to lie within
# base - 1 of its rounded value. With the additive relations, the smallest
# and largest value of a cell consistent with all of it are two LPs. The
# relations tie a cell only to the cells it shares a relation with, so the
# cells whose bounds leave them free fall apart into parts (the connected
# components of the free cells and the relations that hold them, found in
# C, src/table.c), and each cell's LPs involve its part alone.

# The relations in compressed form: the triplets are sorted by relation, so
# relation r holds triplets start[r] + 1 .. start[r + 1] (0-based offsets);
# `cell_rels` lists the relations of each cell. Built once per verb call.
table_relation_csr <- function(table) {
  rel <- table$relations
  n_rel <- table$n_relations
  len <- tabulate(rel$relation, n_rel)
  list(start = as.integer(c(0L, cumsum(len))), len = len, cell = as.integer(rel$cell - 1L),
       n_rel = n_rel,
       cell_rels = split(rel$relation, factor(rel$cell, levels = seq_along(table$count))))
}

# The triplets (rows of table$relations) of some relations.
relation_rows <- function(csr, rels) {
  if (!length(rels)) return(integer())
  sequence(csr$len[rels], from = csr$start[rels] + 1L)
}

# The parts of the free cells (lo < hi): a part number per cell, NA for a
# cell known exactly.
free_parts <- function(table, free, csr = table_relation_csr(table)) {
  call_c(C_table_parts, list(start = csr$start, cell = csr$cell, sup = as.integer(free)),
         arg = "table")
}

# The intruder's interval of each target cell. `lo`, `hi`: what the intruder
# knows of every cell before the relations (lo == hi: published exactly).
# Returns list(low, high) for the targets; with `cuts = TRUE` also the
# reduced costs of every cell in the target's LPs (the Benders cut of the
# optimal secondary suppression, table-suppress.R): list(up, down) of
# named numeric vectors, one per target. `time_limit` bounds each LP,
# `deadline` (a time of proc.time()'s clock) all of them: past it the
# audit stops with the classed time-limit error.
intruder_intervals <- function(table, lo, hi, targets, solver, time_limit = Inf,
                               integer = FALSE, cuts = FALSE, csr = NULL, reach = NULL,
                               deadline = Inf) {
  free <- hi > lo
  if (is.null(csr)) csr <- table_relation_csr(table)
  parts <- free_parts(table, free, csr)
  rel <- table$relations
  low <- lo[targets]
  high <- hi[targets]
  exact <- rep(TRUE, length(targets))
  cut_up <- cut_down <- vector("list", length(targets))
  todo <- which(free[targets])
  if (!length(todo)) return(list(low = low, high = high, up = cut_up, down = cut_down, exact = exact))
  # the relations of each part: those holding one of its free cells
  on_free <- free[rel$cell]
  rel_part <- rep(NA_integer_, csr$n_rel)
  rel_part[rel$relation[on_free]] <- parts[rel$cell[on_free]]
  rels_of <- split(seq_len(csr$n_rel), factor(rel_part))
  by_part <- split(todo, parts[targets[todo]])
  for (p in names(by_part)) {
    model <- part_model(table, lo, hi, rels_of[[p]], integer, csr, keep_fixed = cuts)
    solve <- deadline_solver(part_solver(model, solver, time_limit, length(by_part[[p]])),
                             time_limit, deadline)
    ts <- by_part[[p]]
    if (!is.null(reach)) {
      # verdict mode: a solution that puts a target past the value it must
      # reach proves that direction (a table the intruder cannot exclude);
      # its own LP is then not needed. `reach$up`, `reach$down`: the value
      # each target must reach (NA: no need).
      col <- match(targets[ts], model$cells)
      # what an audit of a pattern this one contains found (reach$known_*)
      best_up <- if (is.null(reach$known_up)) rep(-Inf, length(ts)) else reach$known_up[ts]
      best_down <- if (is.null(reach$known_down)) rep(Inf, length(ts)) else reach$known_down[ts]
      truth <- reach$value[model$cells]
      # a table found, and its reflection through the true table (the
      # deviation reversed, shortened to stay within the bounds: the
      # relations are linear, so it is a table the intruder cannot exclude)
      see <- function(x) {
        back <- reflected_table(x, truth, model$lower, model$upper, integer)
        best_up <<- pmax(best_up, x[col], back[col])
        best_down <<- pmin(best_down, x[col], back[col])
      }
      tol <- 1e-7 * pmax(1, abs(reach$up[ts]), abs(reach$down[ts]), na.rm = TRUE)
      # a screen (reach$decide FALSE) of a large part stops at the tables
      # found: what they leave open is reported unproved without its own LP
      decide <- !isFALSE(reach$decide) || length(model$cells) < screen_min_cells
      if (length(ts) >= batch_min_targets && !integer) {
        found <- batch_witnesses(model, col, reach$up[ts], reach$down[ts], tol, solver,
                                 time_limit, deadline, best_up, best_down)
        for (x in found) see(x)
      }
      for (a in seq_along(ts)) {
        t <- ts[[a]]
        k <- targets[[t]]
        if (!is.na(reach$up[[t]]) && best_up[[a]] < reach$up[[t]] - tol[[a]] && decide) {
          r <- solve(k, TRUE)
          high[[t]] <- r$value
          if (is.finite(r$value) && !is.null(r$x)) see(r$x) else best_up[[a]] <- r$value
        } else {
          # (a screen leaves an open direction at the tables found, the true
          # one among them)
          high[[t]] <- if (is.na(reach$up[[t]])) NA_real_ else max(best_up[[a]], truth[[col[[a]]]])
          exact[[t]] <- FALSE
        }
        if (!is.na(reach$down[[t]]) && best_down[[a]] > reach$down[[t]] + tol[[a]] && decide) {
          r <- solve(k, FALSE)
          low[[t]] <- r$value
          if (!is.null(r$x)) see(r$x)
        } else {
          low[[t]] <- if (is.na(reach$down[[t]])) NA_real_ else min(best_down[[a]], truth[[col[[a]]]])
          exact[[t]] <- FALSE
        }
      }
      next
    }
    for (t in ts) {
      k <- targets[[t]]
      up <- solve(k, TRUE)
      down <- solve(k, FALSE)
      high[[t]] <- up$value
      low[[t]] <- down$value
      if (cuts) {
        cut_up[[t]] <- up$reduced
        cut_down[[t]] <- down$reduced
      }
    }
  }
  list(low = low, high = high, up = cut_up, down = cut_down, exact = exact)
}

# A screen leaves the cells' own LPs out on parts of this many free cells or
# more, where each takes seconds (4-5 s by GLPK on the Adult 3-D part of
# 10,375); on smaller parts they are cheap, and the repair of a cell they
# would prove can add suppressions (Adult age x education x race: 1,870
# secondary suppressions against 1,847 when every part was screened).
screen_min_cells <- 5000L

# Verdict audits of parts with this many targets or more start with the
# batch LPs of batch_witnesses().
batch_min_targets <- 8L

# Tables that prove many directions at once (the verdict audit): one LP
# moves every target not yet proved in one direction towards the value it
# must reach (the sum of their values maximised, or minimised, each capped at
# that value so that none runs off alone); the other direction next; repeated
# while a round proves more. A capped LP only narrows what the intruder could
# consider, so each solution is a table the intruder cannot exclude. What the
# rounds leave unproved gets its own LPs (intruder_intervals()), which decide.
# Measured on the Adult 3-D pattern with GLPK: see inst/bench/README.md.
batch_witnesses <- function(model, col, reach_up, reach_down, tol, solver, time_limit, deadline,
                            best_up = rep(-Inf, length(col)), best_down = rep(Inf, length(col)),
                            max_rounds = 20L) {
  found <- list()
  n <- length(model$cells)
  for (round in seq_len(max_rounds)) {
    progress <- FALSE
    for (up in c(TRUE, FALSE)) {
      open <- if (up) which(!is.na(reach_up) & best_up < reach_up - tol)
              else which(!is.na(reach_down) & best_down > reach_down + tol)
      if (!length(open)) next
      obj <- numeric(n)
      obj[col[open]] <- 1
      lower <- model$lower
      upper <- model$upper
      if (up) upper[col[open]] <- pmax(pmin(upper[col[open]], reach_up[open]), lower[col[open]])
      else lower[col[open]] <- pmin(pmax(lower[col[open]], reach_down[open]), upper[col[open]])
      p <- new_program(obj, model$i, model$j, model$v, model$nrow, rep("==", model$nrow),
                       model$rhs, lower, upper, model$types, maximum = up)
      res <- solve_program(p, solver, audit_time_left(time_limit, deadline))
      if (res$status != "optimal") next
      x <- res$x
      proved_before <- sum(best_up >= reach_up - tol, na.rm = TRUE) +
        sum(best_down <= reach_down + tol, na.rm = TRUE)
      best_up <- pmax(best_up, x[col])
      best_down <- pmin(best_down, x[col])
      proved <- sum(best_up >= reach_up - tol, na.rm = TRUE) +
        sum(best_down <= reach_down + tol, na.rm = TRUE)
      if (proved > proved_before) {
        found[[length(found) + 1L]] <- x
        progress <- TRUE
      }
    }
    if (!progress) break
  }
  found
}

# The reflection of a table x through the true table: truth - t (x - truth)
# with the largest t <= 1 that keeps every cell within its bounds (t = 1
# only for the integer programs: a shortened deviation need not be whole).
reflected_table <- function(x, truth, lower, upper, integer = FALSE) {
  d <- x - truth
  room <- ifelse(d > 0, (truth - lower) / d, ifelse(d < 0, (upper - truth) / -d, Inf))
  t <- min(1, room)
  if (!is.finite(t) || t <= 0 || (integer && t < 1)) return(truth)
  truth - t * d
}

# The seconds the next LP of an audit may take: at most `time_limit`, and
# none past the deadline.
audit_time_left <- function(time_limit, deadline) {
  left <- deadline - proc.time()[["elapsed"]]
  if (left <= 0) audit_time_out()
  min(time_limit, left)
}

# The LP of one part: its relations as rows, the cells they hold as columns
# with the intruder's bounds. With `keep_fixed` the published cells are
# columns fixed at their value (their reduced costs say what publishing them
# less would give: the optimal search's cuts); otherwise they are moved to
# the right-hand sides, which leaves the free cells alone as columns (on
# the Adult 4-D pattern 29,120 of 81,694; the LP is the same).
part_model <- function(table, lo, hi, rels, integer, csr, keep_fixed = TRUE) {
  rows <- relation_rows(csr, rels)
  r <- table$relations[rows, , drop = FALSE]
  rhs <- numeric(length(rels))
  if (!keep_fixed) {
    fixed <- lo[r$cell] == hi[r$cell]
    row_of_fixed <- match(r$relation[fixed], rels)
    rhs <- -as.vector(tapply(r$coef[fixed] * lo[r$cell[fixed]],
                             factor(row_of_fixed, levels = seq_along(rels)), sum, default = 0))
    r <- r[!fixed, , drop = FALSE]
  }
  cells <- sort(unique(r$cell))
  list(cells = cells, i = match(r$relation, rels), j = match(r$cell, cells), v = r$coef,
       nrow = length(rels), rhs = rhs, lower = lo[cells], upper = hi[cells],
       types = if (integer) rep("I", length(cells)) else rep("C", length(cells)))
}

# A part's solver under the audit's deadline: each LP gets the time left
# (at most `time_limit`), and none starts past the deadline.
deadline_solver <- function(solve, time_limit, deadline) {
  if (!is.finite(deadline)) return(function(k, maximum) solve(k, maximum, time_limit))
  function(k, maximum) solve(k, maximum, audit_time_left(time_limit, deadline))
}

audit_time_out <- function() {
  epimask_abort(paste0("The audit of the suppression pattern exceeded the time limit ",
                       "(table_control(time_limit = )); no pattern is returned unaudited."),
                c("epimask_error_time_limit", "epimask_error_solver", "epimask_error_value"),
                arg = "control")
}

# A function(k, maximum) giving the largest or smallest value of cell k in a
# part's LP. With HiGHS and several cells to bound in a mid-sized part, one
# solver keeps the part's model and its last basis, and each LP changes only
# the objective (a warm start: measured 3 times faster than GLPK from
# scratch on a part of 1,469 cells, inst/bench/README.md); otherwise every
# LP is solved from scratch. A part of highs_ipm_min_columns cells or more
# is solved from scratch by the interior-point method (solve_highs()): on
# a part of 10,375 cells the warm-started simplex took 1-15 s per LP, the
# interior-point method 0.33 s.
part_solver <- function(model, solver, time_limit, n_targets) {
  if (solver != "highs" || integer_model(model) || length(model$cells) * n_targets < 2000 ||
      length(model$cells) >= highs_ipm_min_columns)
    return(function(k, maximum, limit = time_limit) solve_part(model, k, maximum, solver, limit))
  A <- structure(list(i = model$i, j = model$j, v = model$v, nrow = model$nrow,
                      ncol = length(model$cells), dimnames = NULL), class = "simple_triplet_matrix")
  hm <- highs::highs_model(L = numeric(length(model$cells)), lower = model$lower,
                           upper = model$upper, A = A, lhs = model$rhs, rhs = model$rhs)
  hs <- highs::hi_new_solver(hm)
  highs::hi_solver_set_option(hs, "output_flag", FALSE)
  previous <- NULL
  function(k, maximum, limit = time_limit) {
    highs_run_limit(hs, limit)
    col <- match(k, model$cells)
    if (!is.null(previous)) highs::hi_solver_set_objective(hs, previous - 1L, 0)
    highs::hi_solver_set_objective(hs, col - 1L, 1)
    previous <<- col
    highs::hi_solver_set_sense(hs, maximum)
    highs::hi_solver_run(hs)
    status <- highs::hi_solver_status_message(hs)
    if (status == "Unbounded" && maximum) return(list(value = Inf, reduced = NULL))
    if (status != "Optimal")
      epimask_abort(sprintf("The solver (highs) could not solve the intruder's LP for a cell (%s).", status),
                    c(if (identical(status, "Time limit reached")) "epimask_error_time_limit",
                      "epimask_error_solver", "epimask_error_value"), arg = "control")
    sol <- highs::hi_solver_get_solution(hs)
    value <- min(max(sol$col_value[[col]], model$lower[[col]]), model$upper[[col]])
    list(value = value, reduced = stats::setNames(sol$col_dual, model$cells), x = sol$col_value)
  }
}

integer_model <- function(model) any(model$types != "C")

# The time limit of the next run of a kept HiGHS solver. HiGHS compares its
# option time_limit with the solver's run time summed over all its runs
# (highs 1.15: a limit below that sum stops the next run at once), so the
# limit of one more run is that sum plus the seconds it may take.
highs_run_limit <- function(hs, limit) {
  if (is.finite(limit))
    highs::hi_solver_set_option(hs, "time_limit", as.double(highs::hi_solver_get_run_time(hs) + limit))
  invisible(hs)
}

# The largest (maximum = TRUE) or smallest value of cell k in a part's LP.
# An unbounded maximum is Inf. A solver that fails is an error of class
# epimask_error_solver: an interval the package could not compute is never
# reported as one.
solve_part <- function(model, k, maximum, solver, time_limit) {
  obj <- numeric(length(model$cells))
  col <- match(k, model$cells)
  obj[[col]] <- 1
  p <- new_program(obj, model$i, model$j, model$v, model$nrow, rep("==", model$nrow),
                   model$rhs, model$lower, model$upper, model$types, maximum)
  res <- solve_program(p, solver, time_limit)
  if (res$status == "unbounded" && maximum)
    return(list(value = Inf, reduced = NULL))
  if (res$status != "optimal")
    epimask_abort(sprintf(paste0("The solver (%s) could not solve the intruder's LP for a cell ",
                                 "(%s: %s)%s."), solver, res$status, shorten(res$message %||% "", 200L),
                          if (res$status == "time_limit") "; raise table_control(time_limit = )" else ""),
                  c(if (res$status == "time_limit") "epimask_error_time_limit",
                    "epimask_error_solver", "epimask_error_value"), arg = "control")
  value <- res$x[[col]]
  # the bound itself when the solver lands within its tolerance of it
  value <- min(max(value, model$lower[[col]]), model$upper[[col]])
  list(value = value, x = res$x, reduced = stats::setNames(res$reduced %||% numeric(0),
                                                if (length(res$reduced)) model$cells))
}

#' Audit a protected table: the intruder's interval of every suppressed cell
#'
#' For every suppressed cell of a table from [suppress_table()], the smallest
#' and largest value it can take in any table that agrees with the published
#' cells, satisfies the table's additive relations and has no negative cell:
#' two linear programs per cell (the intruder's LPs of tau-argus and
#' sdcTable's `attack()`), solved by the table verbs' solver
#' ([table_control()]). A sensitive cell is protected when its interval
#' reaches its protection below and above its value ([sensitive_cells()]).
#'
#' The LPs treat the cells as real numbers. With `integer = TRUE` they are
#' solved as integer programs: an intruder who uses that counts are whole
#' numbers can narrow the interval of a table with three or more dimensions
#' (where the LP's corners need not be whole); in one- and two-dimensional
#' tables without nested hierarchies the two agree.
#'
#' [suppress_table()] audits every pattern before returning it; call
#' `audit_table()` to recheck one, or with `integer = TRUE`.
#'
#' @param protected A table from [suppress_table()].
#' @param integer Whether the intruder's programs are integer programs.
#' @param cells `"suppressed"` (every suppressed cell) or `"sensitive"` (the
#'   sensitive ones only: all the verdict needs, and what [suppress_table()]
#'   audits; the secondary suppressions' intervals are left out).
#' @param exact `TRUE`: both LPs of every cell, so `low` and `high` are the
#'   ends of the intruder's interval. `FALSE`: the verdict only, faster on
#'   large patterns: a cell's LP is skipped when a table found by another
#'   cell's LP already puts it past its protection (that table is one the
#'   intruder cannot exclude, so the verdict is the same); `low` and `high`
#'   are then the extremes of the tables found (the interval is at least
#'   that wide) where column `exact` is `FALSE`. Sensitive cells only.
#' @param control Options of the solver ([table_control()]).
#' @return An object of class `epimask_table_audit`: a data frame, one row per
#'   suppressed cell, with the codes and levels of its dimensions, `cell`,
#'   `value` (custodian-side: the true value), `status` (`"primary"` or
#'   `"secondary"`), `low`, `high` (the intruder's interval), `lower`,
#'   `upper` (the protection a sensitive cell needs, 0 for a secondary one)
#'   `protected` (`TRUE` / `FALSE` for a sensitive cell, `NA` for a
#'   secondary one) and `exact` (see `exact`); attributes `solver`, `integer`, `seconds`,
#'   `cells` (`"suppressed"` or `"sensitive"`: which cells have a row). Methods
#'   `print()`, `format()`, `summary()`, `glance()` (one row: `audited`, `cells`, `primary`,
#'   `secondary`, `unprotected`, `solver`, `integer`, `seconds`).
#' @family count tables
#' @examples
#' \donttest{
#' if (requireNamespace("Rglpk", quietly = TRUE) || requireNamespace("highs", quietly = TRUE)) {
#'   tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                       hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#'   prot <- suppress_table(tab, cell_threshold(5))
#'   audit_table(prot)
#' }
#' }
#' @export
audit_table <- function(protected, integer = FALSE, cells = c("suppressed", "sensitive"),
                        exact = TRUE, control = table_control()) {
  if (!inherits(protected, "epimask_protected_table"))
    abort_type("protected", "a protected table from suppress_table()")
  check_flag(integer)
  check_flag(exact)
  cells <- check_choice(cells, c("suppressed", "sensitive"), arg = "cells")
  if (!exact) cells <- "sensitive"
  control <- check_table_control(control)
  check_table(protected$original, "protected$original")
  solver <- pick_solver(control$solver, prefer = "highs")
  run_audit(protected$original, protected$suppressed, protected$requirements, solver,
            control$time_limit, integer, sensitive_only = cells == "sensitive", exact = exact)
}

# `time_limit` bounds each LP and, from the audit's start, the whole audit;
# `deadline` (a time of proc.time()'s clock) may end it sooner (the
# heuristic's own limit when it audits its pattern). `known` (verdict mode
# only): an earlier run_audit() of a pattern that this one contains (every
# cell suppressed there is suppressed here). Every table the intruder could
# not exclude there is one here too (fewer cells published, the same
# relations), so the values its tables reached are kept and only the
# directions they did not prove get LPs (the repair rounds of the sub-table
# heuristic, which only add suppressions). `decide = FALSE` (verdict mode
# only) makes it a screen: on a part of screen_min_cells free cells or more
# the directions the tables found leave open are reported unprotected
# without their own LPs, which decide them (a cell so reported may be
# protected; a cell reported protected is).
run_audit <- function(table, suppressed, req, solver, time_limit = Inf, integer = FALSE,
                      sensitive_only = FALSE, exact = TRUE, deadline = Inf, known = NULL,
                      decide = TRUE) {
  started <- proc.time()[["elapsed"]]
  deadline <- min(deadline, started + time_limit)
  v <- req$value
  lo <- ifelse(suppressed, 0, v)
  hi <- ifelse(suppressed, Inf, v)
  targets <- which(suppressed & (req$sensitive | !sensitive_only))
  reach <- if (!exact) {
    sens <- req$sensitive[targets]
    list(up = ifelse(sens, v[targets] + req$upper[targets], NA_real_),
         down = ifelse(sens, v[targets] - req$lower[targets], NA_real_), value = v,
         decide = decide)
  }
  if (!is.null(known)) {
    if (exact || !all(suppressed[attr(known, "suppressed")]))
      stop("internal: an earlier audit is kept only in verdict mode, for a pattern this one contains")
    at <- match(targets, known$cell)
    reach$known_up <- ifelse(is.na(at), -Inf, known$high[at])
    reach$known_down <- ifelse(is.na(at), Inf, known$low[at])
    reach$known_up[is.na(reach$known_up)] <- -Inf
    reach$known_down[is.na(reach$known_down)] <- Inf
  }
  iv <- intruder_intervals(table, lo, hi, targets, solver, time_limit, integer, reach = reach,
                           deadline = deadline)
  tol <- 1e-7 * pmax(1, abs(v[targets]))
  sens <- req$sensitive[targets]
  protected <- ifelse(sens, iv$high >= v[targets] + req$upper[targets] - tol &
                        iv$low <= v[targets] - req$lower[targets] + tol, NA)
  out <- table_cells_frame(table, list(cell = seq_along(v), value = v))[targets, , drop = FALSE]
  out$interior <- NULL
  out$status <- ifelse(sens, "primary", "secondary")
  out$low <- iv$low
  out$high <- iv$high
  out$lower <- req$lower[targets]
  out$upper <- req$upper[targets]
  out$protected <- protected
  # FALSE: low and high are the extremes of the tables found that prove the
  # protection (the intruder's interval is at least that wide), not its ends
  out$exact <- iv$exact
  rownames(out) <- NULL
  structure(out, class = c("epimask_table_audit", "data.frame"), solver = solver,
            integer = integer, cells = if (sensitive_only) "sensitive" else "suppressed", seconds = proc.time()[["elapsed"]] - started,
            suppressed = which(suppressed),
            unsafe_published = sum(req$sensitive & !suppressed))
}

#' @export
format.epimask_table_audit <- function(x, ...) {
  d <- as.data.frame(x)
  prim <- d$status == "primary"
  n_bad <- sum(prim & !d$protected) + attr(x, "unsafe_published")
  what <- if (identical(attr(x, "cells"), "sensitive"))
    sprintf("%d sensitive cells audited (the secondary suppressions not listed)", nrow(d)) else
    sprintf("%d suppressed cells (%d primary, %d secondary)", nrow(d), sum(prim), sum(!prim))
  c(sprintf("<table audit> %s; solver %s%s", what, attr(x, "solver"),
            if (isTRUE(attr(x, "integer"))) ", integer programs" else ", linear programs"),
    if (n_bad) sprintf("  NOT PROTECTED: %d sensitive cells%s", n_bad,
                       if (attr(x, "unsafe_published")) sprintf(" (%d published)", attr(x, "unsafe_published")) else "")
    else "  every sensitive cell is protected: its interval reaches its protection below and above")
}

#' @export
print.epimask_table_audit <- function(x, n = 10L, ...) {
  cat(format(x), sep = "\n")
  d <- as.data.frame(x)
  if (nrow(d)) {
    d <- d[order(d$status != "primary" | d$protected %in% TRUE, seq_len(nrow(d))), , drop = FALSE]
    print(format_table(utils::head(d, n)), row.names = FALSE)
    if (nrow(d) > n) cat(sprintf("  ... %d more\n", nrow(d) - n))
  }
  invisible(x)
}

#' @export
as.data.frame.epimask_table_audit <- function(x, row.names = NULL, optional = FALSE, ...) {
  attr(x, "solver") <- attr(x, "integer") <- attr(x, "seconds") <- NULL
  attr(x, "unsafe_published") <- attr(x, "cells") <- attr(x, "suppressed") <- NULL
  class(x) <- "data.frame"
  apply_row_names(x, row.names, optional)
}

#' @rdname epimask-tidiers
#' @method glance epimask_table_audit
#' @export
glance.epimask_table_audit <- function(x, ...) {
  d <- as.data.frame(x)
  prim <- d$status == "primary"
  # `audited`: every suppressed cell, or (the audit suppress_table() keeps)
  # the sensitive ones only
  data.frame(audited = attr(x, "cells") %||% "suppressed", cells = nrow(d),
             primary = sum(prim), secondary = sum(!prim),
             unprotected = sum(prim & !d$protected) + attr(x, "unsafe_published"),
             solver = attr(x, "solver"), integer = attr(x, "integer"),
             seconds = attr(x, "seconds"), stringsAsFactors = FALSE)
}

# Rows or columns of an audit are a plain data frame (the print needs every column).
#' @export
`[.epimask_table_audit` <- function(x, ...) as.data.frame(x)[...]
