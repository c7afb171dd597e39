# The clean-up pass of the secondary suppression (methods vignette section
# 30): a pattern built greedily, one sensitive cell at a time, holds
# secondary suppressions that later ones made unnecessary (a large sub-total
# chosen early, then a cheap cycle of interior cells found for a neighbour
# that protects the first cell too). The pass tries to publish every
# secondary suppression again, the most expensive first, and keeps it
# published when every sensitive cell stays protected.
#
# "Protected" is shown by witnesses: for each sensitive cell and direction a
# table the intruder cannot exclude (it agrees with every published cell,
# satisfies the relations, has no negative cell) in which the cell is at
# least its protection away from its value. A witness is a deviation z from
# the true table that is zero on every published cell; publishing a cell c
# leaves every witness with z_c = 0 valid, so only the directions whose
# witness moves c are solved again (the deviation LP of the heuristic,
# restricted to the suppressed cells). When one of them has no witness left,
# c stays suppressed. Each accepted step is thus proved, the pass can stop
# at any time with a protected pattern, and the final audit of
# suppress_table() checks the result independently.

# The witness-keeping state of a pattern: `wit` the witnesses (cells, z),
# `owner` the witness proving each sensitive direction, `uses` for each cell
# the witnesses that move it.
cleanup_secondaries <- function(table, req, pattern, costs, solver, control, started,
                                ctx = heuristic_context(table, req)) {
  v <- req$value
  kd <- sensitive_directions(req)
  if (!nrow(kd)) return(list(pattern = pattern, removed = 0L, complete = TRUE))
  # a witness avoids what the pass will try to publish, the expensive cells
  # first: weight = cost on secondary cells, next to nothing on sensitive ones
  weight <- ifelse(req$sensitive, min(costs$cost) * 1e-3, costs$cost)
  st <- new_witness_state(length(v), nrow(kd))
  for (d in seq_len(nrow(kd))) {
    if (!is.na(st$owner[[d]])) next
    if (proc.time()[["elapsed"]] - started > control$time_limit)
      return(list(pattern = pattern, removed = 0L, complete = FALSE))
    w <- witness_move(ctx, kd$cell[[d]], kd$dir[[d]], kd$need[[d]], pattern, weight, solver,
                      control$time_limit, box = context_box(ctx, kd$cell[[d]]))
    if (is.null(w)) stop("internal: a sensitive cell of the pattern has no witness")
    st <- add_witness(st, w, kd, req, ctx$cap)
  }
  removed <- 0L
  # three or more dimensions: the most expensive tenth of the secondary
  # cells gets the thorough search (a witness among all suppressed cells,
  # repairs beyond the sub-table), the others the sub-table only
  first <- which(pattern & !req$sensitive)
  thorough <- if (is.null(ctx$boxes)) -Inf
              else if (length(first)) stats::quantile(costs$cost[first], 0.9, names = FALSE) else Inf
  # first with repairs (a publication may be paid for by cheaper new
  # suppressions), then plain publications of what is left, each round over
  # the secondary cells of the pattern as it stands, the most expensive first
  for (repair in c(TRUE, FALSE)) {
    candidates <- which(pattern & !req$sensitive)
    candidates <- candidates[order(-costs$cost[candidates], -v[candidates], candidates)]
    for (c in candidates) {
      if (proc.time()[["elapsed"]] - started > control$time_limit)
        return(list(pattern = pattern, removed = removed, complete = FALSE))
      if (!pattern[[c]]) next
      step <- try_publish(ctx, st, kd, req, pattern, c, weight, costs$cost, repair, solver,
                          control$time_limit, thorough = costs$cost[[c]] >= thorough)
      if (is.null(step)) next
      pattern <- step$pattern
      st <- step$state
      removed <- removed + 1L
    }
  }
  list(pattern = pattern, removed = removed, complete = TRUE)
}

# Publish secondary cell c again: every direction whose witness moves c
# gets a new witness among the suppressed cells; with `repair`, a direction
# that has none gets the cheapest deviation of the heuristic that keeps c
# published, whose published cells are suppressed, as long as the cells
# added cost less than c. NULL when c must stay suppressed; otherwise the
# new pattern and witness state.
try_publish <- function(ctx, st, kd, req, pattern, c, weight, cost, repair, solver, time_limit,
                        thorough = TRUE) {
  trial <- pattern
  trial[[c]] <- FALSE
  invalid <- st$uses[[c]]
  fresh <- st
  added <- 0
  for (d in which(st$owner %in% invalid)) {
    if (!(fresh$owner[[d]] %in% invalid)) next
    w <- witness_move(ctx, kd$cell[[d]], kd$dir[[d]], kd$need[[d]], trial, weight, solver, time_limit,
                      box = context_box(ctx, kd$cell[[d]]), give_up = !thorough)
    if (is.null(w)) {
      if (!repair) return(NULL)
      w <- repair_move(ctx, kd$cell[[d]], kd$dir[[d]], kd$need[[d]], trial, cost, c, solver,
                       time_limit, fallback = thorough)
      if (is.null(w)) return(NULL)
      new <- w$cells[!trial[w$cells]]
      added <- added + sum(cost[new])
      if (added >= cost[[c]]) return(NULL)
      trial[new] <- TRUE
    }
    fresh <- add_witness(fresh, w, kd, req, ctx$cap, replace = invalid)
  }
  fresh$uses[[c]] <- integer()
  list(pattern = trial, state = fresh)
}

# The heuristic's deviation of cell k (published cells charged their cost
# per unit moved, suppressed ones free) with cell `blocked` held at its
# value (incremental_move()). NULL when there is none.
repair_move <- function(ctx, k, dir, need, pattern, cost, blocked, solver, time_limit,
                        fallback = TRUE) {
  # three or more dimensions: the sibling sub-table, and without `fallback`
  # only it (without a repair the cell stays suppressed)
  best <- incremental_move(ctx$csr, ctx$rel_cell, ctx$rel_coef, ctx$rel_id, k, dir, need, pattern,
                           cost, ctx$v, ctx$cap, solver, time_limit, blocked = blocked,
                           box = context_box(ctx, k), fallback = fallback)
  if (is.null(best)) return(NULL)
  moved <- moved_by(best$z, need)
  list(cells = best$cells[moved], z = best$z[moved])
}

# One row per sensitive cell and direction with a protection to reach.
sensitive_directions <- function(req) {
  s <- which(req$sensitive)
  up <- s[req$upper[s] > 0]
  down <- s[req$lower[s] > 0]
  data.frame(cell = c(up, down), dir = rep(c("up", "down"), c(length(up), length(down))),
             need = c(req$upper[up], req$lower[down]), stringsAsFactors = FALSE)
}

new_witness_state <- function(n_cells, n_dirs) {
  list(wit = list(), owner = rep(NA_integer_, n_dirs), uses = vector("list", n_cells))
}

# Add a witness and make it the owner of every direction it proves that has
# no owner yet, or whose owner is among `replace` (the witnesses a
# publication invalidates). A deviation z proves (k, up) when z_k reaches
# k's upper protection, (k, down) when -z_k reaches the lower one; and -z is
# a witness too when it keeps every cell within 0 and the cap.
add_witness <- function(st, w, kd, req, cap, replace = integer()) {
  id <- length(st$wit) + 1L
  st$wit[[id]] <- w
  cells <- w$cells
  z <- w$z
  v <- req$value
  tol <- 1e-7 * pmax(1, v[cells])
  reversible <- all(z <= v[cells] + tol & -z <= cap - v[cells] + tol)
  at <- match(kd$cell, cells)
  zk <- z[at]
  need <- kd$need - 1e-7 * pmax(1, v[kd$cell])
  proves <- !is.na(at) & ifelse(kd$dir == "up", zk >= need, -zk >= need)
  if (reversible) proves <- proves | (!is.na(at) & ifelse(kd$dir == "up", -zk >= need, zk >= need))
  take <- proves & (is.na(st$owner) | st$owner %in% replace)
  st$owner[take] <- id
  for (c in cells) st$uses[[c]] <- c(st$uses[[c]], id)
  st
}

# The relations in the forms the deviation LPs need, built once per call.
heuristic_context <- function(table, req) {
  list(table = table, csr = table_relation_csr(table), rel_cell = table$relations$cell,
       rel_coef = table$relations$coef, rel_id = table$relations$relation,
       v = req$value, cap = model_cap(req), boxes = if (length(table$dims) >= 3L) new.env())
}

# The sibling sub-table of cell k (sibling_box()) in three or more
# dimensions, computed once per cell; NULL in one or two.
context_box <- function(ctx, k) {
  if (is.null(ctx$boxes)) return(NULL)
  key <- as.character(k)
  box <- ctx$boxes[[key]]
  if (is.null(box)) box <- ctx$boxes[[key]] <- sibling_box(ctx$table, k)
  box
}

# A witness for cell k in direction `dir` among the suppressed cells of
# `pattern`: the deviation LP of the heuristic with the published cells held
# at their values, the suppressed cells charged `weight` per unit moved,
# solved on the suppressed cells within two relations of k, then within more
# until it has a solution or no suppressed cell is left to add (NULL: k
# cannot be moved by `need`, the pattern does not protect it). Returns
# list(cells, z) with the cells that move.
witness_move <- function(ctx, k, dir, need, pattern, weight, solver, time_limit,
                         max_cells = 2500L, box = NULL, give_up = FALSE) {
  moved <- function(res) {
    m <- moved_by(res$z, need)
    list(cells = res$cells[m], z = res$z[m])
  }
  # three or more dimensions: the suppressed cells of k's sibling sub-table
  # first, then every suppressed cell, one LP each (growing neighbourhoods
  # cost most of the clean-up's time on the Adult age x education x race
  # table, in LPs that had no solution); with `give_up`, no witness in the
  # sub-table is taken as none (the clean-up then keeps the cell suppressed:
  # a step not proved is not taken)
  if (!is.null(box)) {
    near <- box[pattern[box]]
    res <- incremental_lp(ctx$rel_cell, ctx$rel_coef, ctx$rel_id, ctx$csr, near, k, dir, need,
                          !pattern, weight, ctx$v, ctx$cap, solver, time_limit)
    if (!is.null(res)) return(moved(res))
    if (give_up) return(NULL)
    all <- which(pattern)
    if (length(all) == length(near)) return(NULL)
    res <- incremental_lp(ctx$rel_cell, ctx$rel_coef, ctx$rel_id, ctx$csr, all, k, dir, need,
                          !pattern, weight, ctx$v, ctx$cap, solver, time_limit)
    return(if (is.null(res)) NULL else moved(res))
  }
  near <- k
  limit <- max_cells
  none <- rep(FALSE, length(pattern))
  for (radius in seq_len(1e6)) {
    rels <- unique(unlist(ctx$csr$cell_rels[near], use.names = FALSE))
    grown <- unique(c(near, ctx$rel_cell[relation_rows(ctx$csr, rels)]))
    grown <- grown[pattern[grown]]
    # many dimensions: the cheapest cells first, more while there is no witness
    cut <- length(grown) > limit
    if (cut) grown <- cheapest_cells(grown, near, none, weight, limit)
    full <- length(grown) == length(near)
    near <- grown
    if (radius == 1L && !full) next
    res <- incremental_lp(ctx$rel_cell, ctx$rel_coef, ctx$rel_id, ctx$csr, near, k, dir, need,
                          !pattern, weight, ctx$v, ctx$cap, solver, time_limit)
    if (!is.null(res)) return(moved(res))
    if (cut) limit <- 2L * limit
    else if (full) return(NULL)
  }
}
