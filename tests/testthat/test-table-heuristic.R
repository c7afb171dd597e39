# The heuristic secondary suppression and its clean-up pass (issue 40),
# against independent references: the worked examples of the Handbook on
# Statistical Disclosure Control (Hundepool et al., 2nd edition 2024,
# chapter 4, typed in from sdcTools/HandbookSDC), brute-force enumeration of
# the integer tables that agree with the published cells (helper-tables.R)
# and the membership of the interior cells in every cell recomputed from the
# hierarchies (not the package's relations).

test_that("Handbook example 1a: one secondary suppression, the cheaper sub-sector, and its interval", {
  skip_without_solver()
  # production by three sub-sectors of a sector, total 56,600; sub-sector I
  # (998) is sensitive; publishing the other two and the total discloses it
  d <- data.frame(sub = c("I", "II", "III"), n = c(998, 47600, 8002))
  tab <- table_counts(d, "sub", freq = "n")
  rule <- cell_threshold(999)
  for (method in c("optimal", "heuristic")) {
    prot <- suppress_table(tab, rule, method = method, cost = "value")
    out <- as.data.frame(prot)
    # "selecting one of the two non-sensitive subsector cells": by value III
    expect_equal(out$sub[out$status == "secondary"], "III")
    expect_equal(prot$n_secondary, 1L)
    expect_equal(sum(tab$count[prot$suppressed & !prot$primary]), 8002)
    # I + III = 56,600 - 47,600 = 9,000: each anywhere in [0, 9000]
    a <- audit_table(prot)
    expect_equal(a$low, c(0, 0))
    expect_equal(a$high, c(9000, 9000))
  }
  # by number of cells either sub-sector will do: one secondary
  expect_equal(suppress_table(tab, rule, method = "heuristic")$n_secondary, 1L)
})

test_that("Handbook example 3 (Geurts 1992): the feasibility intervals of four suppressed cells", {
  skip_without_solver()
  # rows 1-3 x columns 1-2; the four cells of rows 1-2 suppressed; published
  # row totals 7, 3, 6, column totals 9, 7, total 16; the handbook derives
  # X11 in [3, 6]; then X12 = 7 - X11, X21 = 6 - X11, X22 = X11 - 3. Any true
  # table that agrees with the published cells gives these intervals.
  d <- data.frame(r = rep(c("1", "2", "3"), 2), c = rep(c("1", "2"), each = 3),
                  n = c(4, 2, 3, 3, 1, 3))
  tab <- table_counts(d, c("r", "c"), freq = "n")
  cells <- as.data.frame(tab)
  expect_equal(tab$count[cells$r == "*" & cells$c == "*"], 16)
  hidden <- cells$interior & cells$r %in% c("1", "2")
  req <- table_requirements(tab, list(cell_threshold(2)))
  a <- run_audit(tab, hidden, req, pick_solver(NULL))
  iv <- a[order(a$r, a$c), c("r", "c", "low", "high")]
  expect_equal(iv$low, c(3, 1, 0, 0))
  expect_equal(iv$high, c(6, 4, 3, 3))
  # and the enumeration of the integer tables agrees
  mem <- bf_membership(tab)
  e <- bf_enumerate(mem, tab$count, !hidden, cap = 8)
  expect_equal(unname(e$low[which(hidden)]), a$low[order(a$cell)])
  expect_equal(unname(e$high[which(hidden)]), a$high[order(a$cell)])
})

# Random small tables: counts 0-5, counts 1-2 sensitive (protection 1).
random_tables <- function(n_tables, seed) {
  set.seed(seed)
  lapply(seq_len(n_tables), function(i) {
    shape <- if (i %% 2) c(3, 3) else c(2, 4)
    data.frame(a = rep(letters[seq_len(shape[[1]])], shape[[2]]),
               b = rep(LETTERS[seq_len(shape[[2]])], each = shape[[1]]),
               n = sample(0:5, prod(shape), replace = TRUE, prob = c(1, 2, 2, 2, 2, 2)))
  })
}

test_that("the heuristic's pattern is protected (enumeration) and locally minimal after the clean-up", {
  skip_without_solver()
  rule <- cell_threshold(3)
  checked <- 0L
  for (d in random_tables(12, 40)) {
    tab <- table_counts(d, c("a", "b"), freq = "n")
    req <- table_requirements(tab, list(rule))
    if (!any(req$sensitive)) next
    mem <- bf_membership(tab)
    cap <- max(d$n) + 2
    for (cost in c("cells", "value")) {
      heur <- suppress_table(tab, rule, method = "heuristic", cost = cost)
      if (sum(heur$suppressed[mem$interior]) > 5) next
      checked <- checked + 1L
      expect_true(bf_protects(mem, tab$count, heur$suppressed, req, cap))
      # no secondary suppression can be published again: the pattern without
      # any one of them leaves a sensitive cell too narrow (enumeration)
      for (c in which(heur$suppressed & !req$sensitive)) {
        fewer <- heur$suppressed
        fewer[[c]] <- FALSE
        expect_false(bf_protects(mem, tab$count, fewer, req, cap))
      }
      # the clean-up never costs more than the greedy pattern it starts from
      raw <- suppress_table(tab, rule, method = "heuristic", cost = cost,
                            control = table_control(cleanup = FALSE))
      expect_true(bf_protects(mem, tab$count, raw$suppressed, req, cap))
      expect_lte(heur$cost, raw$cost + 1e-9)
    }
  }
  expect_gt(checked, 10L)
})

test_that("every witness of the clean-up is a table the intruder cannot exclude", {
  skip_without_solver()
  h <- hierarchy_category(data.frame(code = c("a1", "a2", "a3", "b1", "b2"),
                                     group = c("A", "A", "A", "B", "B")))
  d <- expand.grid(code = c("a1", "a2", "a3", "b1", "b2"), s = c("f", "m"), stringsAsFactors = FALSE)
  d$n <- c(1, 4, 6, 2, 7, 5, 3, 8, 1, 9)
  tab <- table_counts(d, c("code", "s"), hierarchies = list(code = h), freq = "n")
  req <- table_requirements(tab, list(cell_threshold(3)))
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic")
  mem <- bf_membership(tab, list(code = h))
  ctx <- heuristic_context(tab, req)
  costs <- suppression_costs("cells", tab, req)
  kd <- sensitive_directions(req)
  expect_gt(nrow(kd), 0L)
  for (i in seq_len(nrow(kd))) {
    w <- witness_move(ctx, kd$cell[[i]], kd$dir[[i]], kd$need[[i]], prot$suppressed,
                      costs$cost, pick_solver(NULL), 60)
    expect_false(is.null(w))
    z <- numeric(length(tab$count))
    z[w$cells] <- w$z
    x <- tab$count + z
    # zero on the published cells, no negative cell, the sensitive cell moved
    # by its protection, and every cell the sum of its interior cells
    expect_true(all(z[!prot$suppressed] == 0))
    expect_true(all(x >= -1e-9))
    expect_equal(abs(z[[kd$cell[[i]]]]), kd$need[[i]], tolerance = 1e-9)
    expect_equal(as.vector(mem$M %*% x[mem$interior]), x, tolerance = 1e-9)
  }
  # a pattern without a secondary the cell needs has no witness
  one <- which(req$sensitive)[[1]]
  bare <- req$sensitive
  expect_null(witness_move(ctx, one, "up", 1, bare, costs$cost, pick_solver(NULL), 60))
})

test_that("three dimensions (the sibling sub-table first): the pattern is protected by lpSolve's LP", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  h <- hierarchy_category(data.frame(code = c("a1", "a2", "b1", "b2"), group = c("A", "A", "B", "B")))
  set.seed(41)
  for (i in 1:4) {
    d <- expand.grid(code = c("a1", "a2", "b1", "b2"), s = c("f", "m"), t = c("x", "y", "z"),
                     stringsAsFactors = FALSE)
    d$n <- sample(0:6, nrow(d), replace = TRUE)
    tab <- table_counts(d, c("code", "s", "t"), hierarchies = list(code = h), freq = "n")
    req <- table_requirements(tab, list(cell_threshold(3)))
    if (!any(req$sensitive)) next
    # the sub-table of a cell holds it, and only codes below its parent
    k <- which(req$sensitive)[[1]]
    box <- sibling_box(tab, k)
    expect_true(k %in% box)
    heur <- suppress_table(tab, cell_threshold(3), method = "heuristic")
    mem <- bf_membership(tab, list(code = h))
    s <- which(req$sensitive)
    iv <- bf_lp(mem, tab$count, !heur$suppressed, s)
    expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
    expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
  }
})

# A small 3-D table (code within groups x sex x three levels) for the paths
# of three and more dimensions.
heuristic_3d_table <- function(seed) {
  h <- hierarchy_category(data.frame(code = c("a1", "a2", "b1", "b2"), group = c("A", "A", "B", "B")))
  set.seed(seed)
  d <- expand.grid(code = c("a1", "a2", "b1", "b2"), s = c("f", "m"), t = c("x", "y", "z"),
                   stringsAsFactors = FALSE)
  d$n <- sample(0:6, nrow(d), replace = TRUE)
  list(tab = table_counts(d, c("code", "s", "t"), hierarchies = list(code = h), freq = "n"),
       hier = list(code = h))
}

# A deviation z is a table the intruder cannot exclude under `pattern`: zero
# on the published cells, no cell negative, every cell the sum of its
# interior cells (membership recomputed from the hierarchies).
expect_witness_table <- function(mem, values, pattern, cells, z, k, need) {
  full <- numeric(length(values))
  full[cells] <- z
  x <- values + full
  expect_true(all(full[!pattern] == 0))
  expect_true(all(x >= -1e-9))
  expect_equal(abs(full[[k]]), need, tolerance = 1e-9)
  expect_equal(as.vector(mem$M %*% x[mem$interior]), x, tolerance = 1e-9)
}

# The small 3-D table of `seed` with its requirements (counts 1-2
# sensitive), brute-force membership, heuristic context and cell values as
# costs; NULL when no cell is sensitive.
heuristic_3d_case <- function(seed) {
  b <- heuristic_3d_table(seed)
  req <- table_requirements(b$tab, list(cell_threshold(3)))
  if (!any(req$sensitive)) return(NULL)
  list(tab = b$tab, req = req, mem = bf_membership(b$tab, b$hier),
       ctx = heuristic_context(b$tab, req), costs = suppression_costs("value", b$tab, req))
}

test_that("three dimensions: the first-feasible fallback beyond the sub-table gives a valid deviation", {
  skip_without_solver()
  checked <- 0L
  for (seed in 41:44) {
    case <- heuristic_3d_case(seed)
    if (is.null(case)) next
    # tab, req, mem, ctx, costs
    list2env(case, environment())
    for (k in which(req$sensitive)) {
      need <- req$upper[[k]]
      # a sub-table of k alone has no cycle: the neighbourhoods are tried,
      # and without the fallback there is no solution
      expect_null(incremental_move(ctx$csr, ctx$rel_cell, ctx$rel_coef, ctx$rel_id, k, "up", need,
                                   req$sensitive, costs$cost, ctx$v, ctx$cap, pick_solver(NULL), 60,
                                   box = k, fallback = FALSE))
      mv <- incremental_move(ctx$csr, ctx$rel_cell, ctx$rel_coef, ctx$rel_id, k, "up", need,
                             req$sensitive, costs$cost, ctx$v, ctx$cap, pick_solver(NULL), 60, box = k)
      expect_false(is.null(mv))
      # the move's published cells become suppressed: then it is a witness
      pattern <- req$sensitive
      pattern[mv$cells[abs(mv$z) > 1e-9]] <- TRUE
      expect_witness_table(mem, tab$count, pattern, mv$cells, mv$z, k, need)
      checked <- checked + 1L
    }
  }
  expect_gt(checked, 5L)
})

test_that("three dimensions: a large box's suppressed cells first give a free witness, or the box's own LP", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  free_found <- 0L
  box_found <- 0L
  for (seed in 41:46) {
    case <- heuristic_3d_case(seed)
    if (is.null(case)) next
    # tab, req, mem, ctx, costs
    list2env(case, environment())
    # a pattern with room: the heuristic's own, whose suppressed cells often
    # already let a sensitive cell move within its sub-table
    pattern <- suppress_table(tab, cell_threshold(3), method = "heuristic",
                              control = table_control(cleanup = FALSE))$suppressed
    for (k in which(req$sensitive)) for (dir in c("up", "down")) {
      need <- if (dir == "up") req$upper[[k]] else req$lower[[k]]
      if (need <= 0) next
      box <- sibling_box(tab, k)
      move <- function(free_first)
        incremental_move(ctx$csr, ctx$rel_cell, ctx$rel_coef, ctx$rel_id, k, dir, need, pattern,
                         costs$cost, ctx$v, ctx$cap, pick_solver(NULL), 60, box = box,
                         fallback = FALSE, free_first = free_first)
      first <- move(1L)
      plain <- move(.Machine$integer.max)
      # the box's own LP, by the brute-force reference: is there a deviation
      # within the box that moves no published cell?
      free <- box[pattern[box]]
      lp_free <- bf_lp(mem, tab$count, !(seq_along(tab$count) %in% free), k)
      free_exists <- if (dir == "up") lp_free[, "high"] >= tab$count[[k]] + need - 1e-7
                     else lp_free[, "low"] <= tab$count[[k]] - need + 1e-7
      if (free_exists) {
        # the free witness: no published cell moves, so the pattern stays
        expect_false(is.null(first))
        expect_true(all(first$cells %in% free))
        expect_equal(first$cost, 0)
        expect_witness_table(mem, tab$count, pattern, first$cells, first$z, k, need)
        expect_equal(plain$cost, 0, tolerance = 1e-9)
        free_found <- free_found + 1L
      } else {
        # none: the box's LP decides, as without the first step
        expect_identical(is.null(first), is.null(plain))
        if (!is.null(first)) {
          expect_equal(first$cost, plain$cost)
          box_found <- box_found + 1L
        }
      }
    }
  }
  expect_gt(free_found, 3L)
  expect_gt(box_found, 0L)
})

test_that("three dimensions: the wider boxes are tried in order, a large one on its suppressed cells (lpSolve)", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  found <- c(full = 0L, free = 0L, none = 0L, beyond = 0L)
  for (seed in 41:46) {
    case <- heuristic_3d_case(seed)
    if (is.null(case)) next
    # tab, req, mem, ctx, costs
    list2env(case, environment())
    n <- length(tab$count)
    pattern <- suppress_table(tab, cell_threshold(3), method = "heuristic",
                              control = table_control(cleanup = FALSE))$suppressed
    # whether some table the intruder cannot exclude moves k by `need` with
    # only `cells` free (the rest at their values), by lpSolve
    reaches <- function(cells, k, dir, need) {
      iv <- bf_lp(mem, tab$count, !(seq_len(n) %in% cells), k)
      if (dir == "up") isTRUE(iv[, "high"] >= tab$count[[k]] + need - 1e-7)
      else isTRUE(iv[, "low"] <= tab$count[[k]] - need + 1e-7)
    }
    for (k in which(req$sensitive)) for (dir in c("up", "down")) {
      need <- if (dir == "up") req$upper[[k]] else req$lower[[k]]
      if (need <= 0) next
      # k's own box of one cell has no cycle; then its sibling box, then the whole table
      wide <- list(sibling_box(tab, k), seq_len(n))
      move <- function(free_first)
        incremental_move(ctx$csr, ctx$rel_cell, ctx$rel_coef, ctx$rel_id, k, dir, need, pattern,
                         costs$cost, ctx$v, ctx$cap, pick_solver(NULL), 60, box = k,
                         fallback = FALSE, free_first = free_first, wider = function() wide)
      for (large in c(FALSE, TRUE)) {
        # small boxes: their own LP; large ones (free_first 1): their suppressed cells alone
        tried <- if (large) lapply(wide, function(b) b[pattern[b] | b == k]) else wide
        first <- Position(function(b) reaches(b, k, dir, need), tried)
        got <- move(if (large) 1L else .Machine$integer.max)
        if (is.na(first)) {
          expect_null(got)
          found[["none"]] <- found[["none"]] + 1L
          next
        }
        expect_false(is.null(got))
        moved <- got$cells[abs(got$z) > 1e-9]
        expect_true(all(moved %in% tried[[first]]))
        if (large) expect_true(all(moved %in% which(pattern)))
        after <- pattern
        after[moved] <- TRUE
        expect_witness_table(mem, tab$count, after, got$cells, got$z, k, need)
        found[[if (large) "free" else "full"]] <- found[[if (large) "free" else "full"]] + 1L
        if (first > 1L) found[["beyond"]] <- found[["beyond"]] + 1L
      }
    }
  }
  # some directions have no solution in the sibling box and one in the whole table
  expect_true(all(found[c("full", "free", "beyond")] > 3L))
})

test_that("three dimensions: the clean-up's sub-table witnesses are valid and its pattern protected (lpSolve)", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  for (seed in 45:48) {
    b <- heuristic_3d_table(seed)
    tab <- b$tab
    rule <- cell_threshold(3)
    req <- table_requirements(tab, list(rule))
    if (!any(req$sensitive)) next
    mem <- bf_membership(tab, b$hier)
    for (cost in c("cells", "value")) {
      heur <- suppress_table(tab, rule, method = "heuristic", cost = cost)
      raw <- suppress_table(tab, rule, method = "heuristic", cost = cost,
                            control = table_control(cleanup = FALSE))
      expect_lte(heur$cost, raw$cost + 1e-9)
      s <- which(req$sensitive)
      iv <- bf_lp(mem, tab$count, !heur$suppressed, s)
      expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
      expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
    }
    # every witness found in a sensitive cell's sub-table is a table the
    # intruder cannot exclude
    ctx <- heuristic_context(tab, req)
    kd <- sensitive_directions(req)
    w8 <- suppression_costs("cells", tab, req)$cost
    for (i in seq_len(nrow(kd))) {
      k <- kd$cell[[i]]
      box <- context_box(ctx, k)
      expect_setequal(box, sibling_box(tab, k))
      w <- witness_move(ctx, k, kd$dir[[i]], kd$need[[i]], heur$suppressed, w8, pick_solver(NULL), 60,
                        box = box, give_up = TRUE)
      if (is.null(w)) next
      expect_true(all(w$cells %in% box))
      expect_witness_table(mem, tab$count, heur$suppressed, w$cells, w$z, k, kd$need[[i]])
    }
  }
})

test_that("the heuristic's large LPs go to HiGHS only in three and more dimensions, when no solver is asked for", {
  two <- list(dims = c("a", "b"))
  three <- list(dims = c("a", "b", "c"))
  expect_identical(heuristic_solvers("glpk", table_control(), two), "glpk")
  expect_identical(heuristic_solvers("glpk", table_control(solver = "glpk"), three), "glpk")
  expect_identical(heuristic_solvers("highs", table_control(), three), "highs")
  expect_identical(lp_solver_for("glpk", 1e6), "glpk")
  expect_identical(lp_solver_for(c("glpk", "highs"), 10), "glpk")
  expect_identical(lp_solver_for(c("glpk", "highs"), 5000), "highs")
  skip_if_not_installed("highs")
  skip_if_not_installed("Rglpk")
  skip_if_not_installed("lpSolve")
  expect_identical(heuristic_solvers("glpk", table_control(), three), c("glpk", "highs"))
  # every LP of the heuristic to HiGHS, then by size: the patterns are protected (lpSolve)
  b <- heuristic_3d_table(41)
  tab <- b$tab
  req <- table_requirements(tab, list(cell_threshold(3)))
  mem <- bf_membership(tab, b$hier)
  s <- which(req$sensitive)
  for (large in c(0L, 60L)) {
    local_mocked_bindings(lp_solver_for = function(solver, columns, ...)
      if (length(solver) == 1L) solver else if (columns >= large) solver[[2L]] else solver[[1L]])
    heur <- suppress_table(tab, cell_threshold(3), method = "heuristic", cost = "value")
    iv <- bf_lp(mem, tab$count, !heur$suppressed, s)
    expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
    expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
  }
})
