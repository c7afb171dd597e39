# The heuristic secondary suppression of tables of three and more
# dimensions (methods vignette section 30): de Wolf's HiTaS order. A
# hierarchical table splits into sub-tables without hierarchy: in every
# dimension one code that has children (a "parent") and its children; the
# sub-table's relations are the table's relations that hold only its cells.
# The sub-tables are protected one after the other, the topmost first (the
# least total depth of their parents); in each, the incremental attacker
# problem of the heuristic (incremental_lp()) runs on that sub-table's cells
# and relations alone, so every LP is small (about a thousand cells on the
# Adult 4-D table) where the sibling sub-table of a sensitive sub-total can
# be the whole table.
#
# What a sub-table passes down: a cell its deviations moved (suppressed) is
# a sub-total of the sub-tables below it, where it is protected like a
# sensitive cell by as much as it was moved (the deviation found above holds
# only if the cell can move by as much within its own sub-table); a cell a
# sub-table already processed published stays fixed in the ones after it
# (it is known exactly). Protecting each sub-table on its own does not
# protect every cell of the whole table (the deviations of two sub-tables
# need not agree on the cells they share), so the pattern is then audited
# on the whole table (run_audit(), the same verdict as suppress_table()'s)
# and the directions it does not prove get the whole-table heuristic
# (heuristic_suppression() on those cells alone), until every sensitive cell
# is proved or none moves.

hitas_suppression <- function(table, req, costs, solver, control, started, start = NULL) {
  greedy <- hitas_greedy(table, req, costs, solver, control, started, start)
  repaired <- hitas_repair(table, req, costs, solver, control, greedy$pattern, started)
  # no clean-up: on the Adult 3-D table its witnesses alone (one LP per
  # sensitive cell and direction on the subtree box) took longer than the
  # whole search, and in 415 s it removed 7 % of the count without finishing
  list(suppressed = repaired$pattern, optimal = FALSE, rounds = greedy$rounds + repaired$rounds,
       removed = 0L, cleanup_complete = NA, subtables = greedy$subtables,
       repaired = repaired$cells, audit = repaired$audit)
}

# The pass over the sub-tables, topmost first.
hitas_greedy <- function(table, req, costs, solver, control, started, start = NULL) {
  v <- req$value
  cap <- model_cap(req)
  csr <- table_relation_csr(table)
  subs <- hitas_subtables(table)
  pattern <- req$sensitive | (if (is.null(start)) FALSE else start)
  # what a cell must be protected by in the sub-tables after the one that moved it
  moved_up <- moved_down <- numeric(length(v))
  processed <- rep(FALSE, length(v))
  rounds <- 0L
  for (s in seq_along(subs$parents)) {
    cells <- hitas_cells(table, subs$parents[[s]])
    rels <- hitas_relations(csr, cells, length(v))
    need_up <- pmin(pmax(req$upper[cells], moved_up[cells]), cap - v[cells])
    need_down <- pmin(pmax(req$lower[cells], moved_down[cells]), v[cells])
    target <- pattern[cells] & (need_up > 0 | need_down > 0)
    if (any(target)) {
      lp <- subtable_lp(table, csr, cells, rels, v, cap, solver, control$time_limit)
      sub_req <- list(upper = need_up, lower = need_down)
      done <- list(up = need_up <= 0, down = need_down <= 0)
      order_t <- which(target)
      order_t <- order_t[order(-pmax(need_up[order_t], need_down[order_t]), cells[order_t])]
      for (t in order_t) {
        for (dir in c("up", "down")) {
          if (done[[dir]][[t]]) next
          check_heuristic_time(control, started,
                               search_progress("the sub-table pass", s - 1L, length(subs$parents),
                                               "sub-tables"))
          need <- if (dir == "up") need_up[[t]] else need_down[[t]]
          movable <- !processed[cells] | pattern[cells]
          w <- ifelse(pattern[cells], 0, costs$cost[cells])
          rounds <- rounds + 1L
          move <- lp(t, dir, need, movable, w)
          # a published cell of a sub-table above may have to move after all
          # (the whole-table audit then decides)
          if (is.null(move) && !all(movable)) {
            rounds <- rounds + 1L
            move <- lp(t, dir, need, rep(TRUE, length(cells)), w)
          }
          if (is.null(move)) next
          hit <- moved_by(move$z, need)
          move$z[!hit] <- 0
          pattern[move$cells[hit]] <- TRUE
          moved_up[move$cells] <- pmax(moved_up[move$cells], move$z)
          moved_down[move$cells] <- pmax(moved_down[move$cells], -move$z)
          at <- match(move$cells, cells)
          done <- certify_moves(done, list(cells = at, z = move$z), sub_req, v[cells], cap)
        }
      }
    }
    processed[cells] <- TRUE
  }
  list(pattern = pattern, rounds = rounds, subtables = length(subs$parents))
}

# The incremental attacker problem of a sub-table (incremental_lp()'s LP on
# its cells and relations): a function(t, dir, need, movable, w) giving
# list(cells, z) for target t (a position among the sub-table's cells),
# NULL when there is no solution. The LPs of one sub-table differ only in
# their bounds and costs, so with HiGHS one solver keeps the model and its
# last basis (a warm start); with GLPK each is solved from scratch.
subtable_lp <- function(table, csr, cells, rels, v, cap, solver, time_limit) {
  rows <- relation_rows(csr, rels)
  rel <- table$relations
  col <- match(rel$cell[rows], cells)
  row <- match(rel$relation[rows], rels)
  m <- length(cells)
  i <- c(row, row)
  j <- c(col, m + col)
  x <- c(rel$coef[rows], -rel$coef[rows])
  up_cap <- cap - v[cells]
  down_cap <- v[cells]
  bounds <- function(t, dir, need, movable) {
    upper <- c(ifelse(movable, up_cap, 0), ifelse(movable, down_cap, 0))
    lower <- numeric(2L * m)
    if (dir == "up") {
      lower[[t]] <- upper[[t]] <- need
      upper[[m + t]] <- 0
    } else {
      lower[[m + t]] <- upper[[m + t]] <- need
      upper[[t]] <- 0
    }
    list(lower = lower, upper = upper)
  }
  result <- function(sol) {
    z <- sol[seq_len(m)] - sol[m + seq_len(m)]
    keep <- abs(z) > 0
    list(cells = cells[keep], z = z[keep])
  }
  if (solver != "highs") {
    return(function(t, dir, need, movable, w) {
      b <- bounds(t, dir, need, movable)
      p <- new_program(c(w, w), i, j, x, length(rels), rep("==", length(rels)), rep(0, length(rels)),
                       b$lower, b$upper)
      res <- solve_program(p, solver, time_limit)
      if (res$status == "infeasible") return(NULL)
      check_deviation_status(res$status, res$message, solver)
      result(res$x)
    })
  }
  A <- structure(list(i = i, j = j, v = x, nrow = length(rels), ncol = 2L * m, dimnames = NULL),
                 class = "simple_triplet_matrix")
  hs <- highs::hi_new_solver(highs::highs_model(L = numeric(2L * m), lower = numeric(2L * m),
                                                upper = c(up_cap, down_cap), A = A,
                                                lhs = rep(0, length(rels)), rhs = rep(0, length(rels))))
  highs::hi_solver_set_option(hs, "output_flag", FALSE)
  every <- seq_len(2L * m) - 1L
  function(t, dir, need, movable, w) {
    b <- bounds(t, dir, need, movable)
    highs::hi_solver_set_objective(hs, every, c(w, w))
    highs::hi_solver_set_variable_bounds(hs, every, b$lower, b$upper)
    highs_run_limit(hs, time_limit)
    highs::hi_solver_run(hs)
    status <- highs::hi_solver_status_message(hs)
    if (status %in% c("Infeasible", "Primal infeasible or unbounded")) return(NULL)
    check_deviation_status(if (status == "Optimal") "optimal" else status, status, "highs")
    result(highs::hi_solver_get_solution(hs)$col_value)
  }
}

check_deviation_status <- function(status, message, solver) {
  if (status == "optimal") return(invisible())
  epimask_abort(sprintf("The solver (%s) failed on the incremental attacker problem (%s: %s).",
                        solver, status, shorten(message %||% "", 200L)),
                c(if (status %in% c("time_limit", "Time limit reached")) "epimask_error_time_limit",
                  "epimask_error_solver", "epimask_error_value"), arg = "control")
}

# The directions of sensitive cells the whole-table audit does not prove
# get the whole-table heuristic, on those cells alone; repeated while the
# audit finds new ones (a repair only adds suppressions, so what was proved
# stays proved). The audits before the last are screens (run_audit(decide
# = FALSE)): on a large part what their tables found leaves open goes to
# the repair without its own LPs (on the Adult 3-D table 11 LPs of 10,375
# columns, 45 s of GLPK's 241 s), at the price of a few suppressions where
# the repair of a cell that is in fact protected adds some (2,148 secondary
# suppressions against 2,139; methods vignette section 30). The audits and
# repairs share the heuristic's time limit. Returns the last audit too, a
# verdict (a screen that proved every cell is one): suppress_table() would
# compute it again on the same pattern.
hitas_repair <- function(table, req, costs, solver, control, pattern, started, passes = 5L) {
  rounds <- 0L
  repaired <- integer()
  audit_solver <- pick_solver(control$solver, prefer = "highs")
  deadline <- started + control$time_limit
  previous <- NULL
  # the tables the audit before found stay possible: only the cells it did
  # not prove get LPs
  audit_of <- function(pattern, decide)
    run_audit(table, pattern, req, audit_solver, control$time_limit, sensitive_only = TRUE,
              exact = FALSE, deadline = deadline, known = previous, decide = decide)
  unproved <- function(audit) audit$cell[audit$status == "primary" & !audit$protected]
  for (pass in seq_len(passes)) {
    audit <- audit_of(pattern, decide = FALSE)
    previous <- audit
    bad <- unproved(audit)
    if (!length(bad)) break
    check_heuristic_time(control, started, sprintf("in repair round %d (the sub-table pass done)", pass))
    res <- heuristic_suppression(table, req, costs, solver, control, start = pattern, only = bad,
                                 cleanup = FALSE, started = started)
    rounds <- rounds + res$rounds
    repaired <- union(repaired, bad)
    if (identical(res$suppressed, pattern)) break
    # a new pattern: the audit above is no longer its verdict
    audit <- NULL
    pattern <- res$suppressed
  }
  # a screen that left cells open is no verdict: their own LPs decide
  if (is.null(audit) || length(unproved(audit))) audit <- audit_of(pattern, decide = TRUE)
  list(pattern = pattern, rounds = rounds, cells = repaired, audit = audit)
}

# The heuristic's time limit (table_control(time_limit = )), over its whole
# search; `where` says how far the search got, so that the custodian can
# judge how much more time it needs.
check_heuristic_time <- function(control, started, where = NULL) {
  if (proc.time()[["elapsed"]] - started > control$time_limit)
    epimask_abort(sprintf(paste0("The heuristic secondary suppression exceeded the time limit of ",
                                 "%s s (table_control(time_limit = ))%s."), format_num(control$time_limit, integers = TRUE),
                          if (is.null(where)) "" else paste0(" ", where)),
                  c("epimask_error_time_limit", "epimask_error_solver", "epimask_error_value"),
                  arg = "control")
}

# How far a search got, for check_heuristic_time(): "in <stage>, <done> of <total> <what> done".
search_progress <- function(stage, done, total, what)
  sprintf("in %s, %s of %s %s done", stage, format_num(done, integers = TRUE),
          format_num(total, integers = TRUE), what)

# The sub-tables of a table: one parent code per dimension (a code with
# children), in HiTaS's order (the sum of the parents' depths, then the
# dimensions' order). Returns list(parents = list of integer vectors).
hitas_subtables <- function(table) {
  per_dim <- lapply(table$nodes, function(nd) {
    inner <- which(!nd$leaf)
    list(node = inner, depth = node_depths(nd$parent)[inner])
  })
  grid <- expand.grid(lapply(per_dim, function(p) seq_along(p$node)), KEEP.OUT.ATTRS = FALSE)
  depth <- Reduce(`+`, Map(function(p, g) p$depth[g], per_dim, grid))
  grid <- grid[do.call(order, c(list(depth), rev(as.list(grid)))), , drop = FALSE]
  parents <- lapply(seq_len(nrow(grid)), function(r)
    vapply(seq_along(per_dim), function(j) per_dim[[j]]$node[[grid[r, j]]], integer(1)))
  list(parents = parents)
}

# The depth of every node of a hierarchy (the total: 0).
node_depths <- function(parent) {
  depth <- rep(NA_integer_, length(parent))
  depth[is.na(parent)] <- 0L
  while (anyNA(depth)) {
    next_ <- is.na(depth) & !is.na(depth[pmax(parent, 1L)]) & !is.na(parent)
    depth[next_] <- depth[parent[next_]] + 1L
  }
  depth
}

# The cells of the sub-table of `parents` (one node per dimension): in
# every dimension the parent and its children, by the table's numbering
# (cell = 1 + sum (code - 1) * stride).
hitas_cells <- function(table, parents) {
  stride <- cumprod(c(1, vapply(table$nodes, nrow, integer(1))))[seq_along(parents)]
  cells <- 1
  for (j in seq_along(parents)) {
    codes <- c(parents[[j]], which(table$nodes[[j]]$parent %in% parents[[j]]))
    cells <- as.vector(outer(cells, (codes - 1) * stride[[j]], `+`))
  }
  as.integer(cells)
}

# The relations of a sub-table: those all of whose cells lie in it.
hitas_relations <- function(csr, cells, n) {
  inside <- rep(FALSE, n)
  inside[cells] <- TRUE
  rels <- unique(unlist(csr$cell_rels[cells], use.names = FALSE))
  rows <- relation_rows(csr, rels)
  all_in <- tapply(inside[csr$cell[rows] + 1L], rep(rels, csr$len[rels]), all)
  as.integer(names(all_in)[all_in])
}
