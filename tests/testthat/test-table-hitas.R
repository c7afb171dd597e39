# HiTaS's sub-tables (R/table-suppress-hitas.R), the heuristic of tables of
# three and more dimensions: the sub-tables against their definition
# recomputed from the codes (a loop over every cell and every relation), and
# the patterns against lpSolve's LP on the interior formulation
# (helper-tables.R), which uses neither the package's relations nor its
# solver.

# A 3-D table with two nested dimensions: code within groups, age in
# 5-year bands within 10-year bands, and a flat one.
hitas_table <- function(seed, n = 0:5) {
  h <- hierarchy_category(data.frame(code = c("a1", "a2", "b1", "b2", "b3"),
                                     group = c("A", "A", "B", "B", "B")))
  ha <- hierarchy_numeric(c(5, 10))
  set.seed(seed)
  d <- expand.grid(code = c("a1", "a2", "b1", "b2", "b3"), age = c(2, 7, 12, 17), s = c("f", "m"),
                   stringsAsFactors = FALSE)
  d$k <- sample(n, nrow(d), replace = TRUE)
  list(tab = table_counts(d, c("code", "age", "s"), hierarchies = list(code = h, age = ha), freq = "k"),
       hier = list(code = h, age = ha))
}

test_that("the sub-tables are every choice of one parent code per dimension, topmost first", {
  tab <- hitas_table(1)$tab
  subs <- hitas_subtables(tab)
  inner <- lapply(tab$nodes, function(nd) which(!nd$leaf))
  expect_length(subs$parents, prod(lengths(inner)))
  expect_false(anyDuplicated(vapply(subs$parents, paste, "", collapse = ",")) > 0)
  # depth by walking up to the total, per dimension
  depth_of <- function(nd, node) { d <- 0; while (!is.na(nd$parent[[node]])) { node <- nd$parent[[node]]; d <- d + 1 }; d }
  total_depth <- vapply(subs$parents, function(p)
    sum(vapply(seq_along(p), function(j) depth_of(tab$nodes[[j]], p[[j]]), 0)), 0)
  expect_false(is.unsorted(total_depth))
  expect_identical(total_depth[[1]], 0)
})

test_that("a sub-table's cells and relations are those of its definition (every cell, every relation)", {
  tab <- hitas_table(2)$tab
  csr <- table_relation_csr(tab)
  rel <- tab$relations
  for (p in hitas_subtables(tab)$parents) {
    # a cell belongs when, in every dimension, its code is the parent or a child of it
    inside <- vapply(seq_along(tab$count), function(cell) all(vapply(seq_along(p), function(j) {
      code <- tab$index[cell, j]
      code == p[[j]] || identical(tab$nodes[[j]]$parent[[code]], p[[j]])
    }, TRUE)), TRUE)
    cells <- hitas_cells(tab, p)
    expect_setequal(cells, which(inside))
    # a relation belongs when every one of its cells does
    want <- vapply(seq_len(tab$n_relations), function(r) all(inside[rel$cell[rel$relation == r]]), TRUE)
    expect_setequal(hitas_relations(csr, cells, length(tab$count)), which(want))
  }
})

test_that("the subtree box is the cells below the parent of each code (every cell checked)", {
  tab <- hitas_table(3)$tab
  for (k in c(1L, 7L, 40L, length(tab$count))) {
    keep <- vapply(seq_along(tab$count), function(cell) all(vapply(seq_along(tab$dims), function(j) {
      nd <- tab$nodes[[j]]
      top <- tab$index[k, j]
      if (!is.na(nd$parent[[top]])) top <- nd$parent[[top]]
      node <- tab$index[cell, j]
      while (node != top && !is.na(nd$parent[[node]])) node <- nd$parent[[node]]
      node == top
    }, TRUE)), TRUE)
    expect_identical(subtree_box(tab, k), which(keep))
  }
})

test_that("the wider boxes grow the subtree box by one level in one dimension (every cell checked)", {
  tab <- hitas_table(3)$tab
  d <- length(tab$dims)
  # the cells whose code in dimension j lies below the ancestor ups[[j]] levels above k's code
  below <- function(k, ups) which(vapply(seq_along(tab$count), function(cell) all(vapply(seq_len(d), function(j) {
    nd <- tab$nodes[[j]]
    top <- tab$index[k, j]
    for (u in seq_len(ups[[j]])) if (!is.na(nd$parent[[top]])) top <- nd$parent[[top]]
    node <- tab$index[cell, j]
    while (node != top && !is.na(nd$parent[[node]])) node <- nd$parent[[node]]
    node == top
  }, TRUE)), TRUE))
  grew <- 0L
  for (k in c(1L, 7L, 40L, 93L, length(tab$count))) {
    base <- below(k, rep(1L, d))
    want <- lapply(seq_len(d), function(j) below(k, replace(rep(1L, d), j, 2L)))
    want <- want[lengths(want) > length(base)]
    got <- wider_boxes(tab, k)
    expect_length(got, length(want))
    expect_false(is.unsorted(lengths(got)))
    # each box is one of the grown ones, and each grown one is there
    key <- function(b) paste(b, collapse = ",")
    expect_setequal(vapply(got, key, ""), vapply(want, key, ""))
    expect_true(all(vapply(got, function(b) all(base %in% b), TRUE)))
    grew <- grew + length(got)
  }
  expect_gt(grew, 3L)
  # the total's box is the whole table: nothing wider
  expect_length(wider_boxes(tab, 1L), 0L)
})

test_that("HiTaS patterns protect every sensitive cell (lpSolve), by either cost", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  checked <- 0L
  for (seed in 11:16) {
    b <- hitas_table(seed)
    tab <- b$tab
    rule <- cell_threshold(3)
    req <- table_requirements(tab, list(rule))
    if (!any(req$sensitive)) next
    mem <- bf_membership(tab, b$hier)
    s <- which(req$sensitive)
    for (cost in c("cells", "value")) {
      prot <- suppress_table(tab, rule, method = "heuristic", cost = cost)
      # the sub-table pass, its repairs, and no clean-up
      expect_true(is.na(prot$cleanup_complete))
      expect_length(prot$unprotected, 0L)
      iv <- bf_lp(mem, tab$count, !prot$suppressed, s)
      expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
      expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
      checked <- checked + 1L
    }
  }
  expect_gt(checked, 6L)
})

test_that("a sub-table's move keeps its relations, and the repair leaves no sensitive cell unproved", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  b <- hitas_table(21)
  tab <- b$tab
  req <- table_requirements(tab, list(cell_threshold(3)))
  costs <- suppression_costs("value", tab, req)
  ctl <- table_control(cleanup = FALSE)
  greedy <- hitas_greedy(tab, req, costs, pick_solver(NULL), ctl, proc.time()[["elapsed"]])
  expect_true(all(greedy$pattern[req$sensitive]))
  # one sub-table's LP by hand: its solution balances every relation of the sub-table
  csr <- table_relation_csr(tab)
  # the topmost sub-table that holds a sensitive cell
  for (p in hitas_subtables(tab)$parents) {
    cells <- hitas_cells(tab, p)
    if (any(req$sensitive[cells])) break
  }
  rels <- hitas_relations(csr, cells, length(tab$count))
  t <- which(req$sensitive[cells])[[1]]
  lp <- subtable_lp(tab, csr, cells, rels, req$value, model_cap(req), pick_solver(NULL), 60)
  mv <- lp(t, "up", 1, rep(TRUE, length(cells)), costs$cost[cells])
  z <- numeric(length(tab$count))
  z[mv$cells] <- mv$z
  expect_equal(z[cells[[t]]], 1)
  sums <- tapply(tab$relations$coef * z[tab$relations$cell], tab$relations$relation, sum)
  expect_true(all(abs(sums[as.character(rels)]) < 1e-9))
  expect_true(all(req$value + z >= -1e-9))
  # the repair: after it every sensitive cell is protected by lpSolve's LP
  rep <- hitas_repair(tab, req, costs, pick_solver(NULL), ctl, greedy$pattern, proc.time()[["elapsed"]])
  mem <- bf_membership(tab, b$hier)
  s <- which(req$sensitive)
  iv <- bf_lp(mem, tab$count, !rep$pattern, s)
  expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
  expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
})

test_that("the sub-table heuristic's last audit is the verdict returned, checked by lpSolve", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  b <- hitas_table(13)
  tab <- b$tab
  rule <- cell_threshold(3)
  req <- table_requirements(tab, list(rule))
  prot <- suppress_table(tab, rule, method = "heuristic", cost = "value")
  a <- as.data.frame(prot$audit)
  s <- which(req$sensitive)
  expect_setequal(a$cell, s)
  expect_true(all(a$protected))
  # the audit's low and high are tables found (exact = FALSE) or the LP's
  # ends: inside the intruder's interval by lpSolve's LP
  iv <- bf_lp(bf_membership(tab, b$hier), tab$count, !prot$suppressed, a$cell)
  expect_true(all(a$low >= iv[, "low"] - 1e-7))
  expect_true(all(a$high <= iv[, "high"] + 1e-7))
  expect_true(all(a$high >= tab$count[a$cell] + req$upper[a$cell] - 1e-7))
  expect_true(all(a$low <= tab$count[a$cell] - req$lower[a$cell] + 1e-7))
})

test_that("an audit past its deadline is a classed time-limit error, never a verdict", {
  skip_without_solver()
  b <- hitas_table(13)
  tab <- b$tab
  req <- table_requirements(tab, list(cell_threshold(3)))
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic")
  expect_error(run_audit(tab, prot$suppressed, req, pick_solver(NULL), 60, sensitive_only = TRUE,
                         exact = FALSE, deadline = proc.time()[["elapsed"]] - 1),
               class = "epimask_error_time_limit")
  # the heuristic's repairs share its deadline: started long ago, it stops
  costs <- suppression_costs("cells", tab, req)
  ctl <- table_control(time_limit = 5, cleanup = FALSE)
  greedy <- hitas_greedy(tab, req, costs, pick_solver(NULL), ctl, proc.time()[["elapsed"]])
  expect_error(hitas_repair(tab, req, costs, pick_solver(NULL), ctl, greedy$pattern,
                            started = proc.time()[["elapsed"]] - 10),
               class = "epimask_error_time_limit")
  # the error says how far the search got
  n_subs <- length(hitas_subtables(tab)$parents)
  expect_error(hitas_greedy(tab, req, costs, pick_solver(NULL), ctl, proc.time()[["elapsed"]] - 10),
               sprintf("in the sub-table pass, [0-9]+ of %d sub-tables done", n_subs),
               class = "epimask_error_time_limit")
  open <- which(req$sensitive)
  expect_error(heuristic_suppression(tab, req, costs, pick_solver(NULL), ctl, start = greedy$pattern,
                                     only = open, cleanup = FALSE,
                                     started = proc.time()[["elapsed"]] - 10),
               sprintf("the repair of the cells the audit did not prove, 0 of %d cells done", length(open)),
               class = "epimask_error_time_limit")
})

# A table with at least 8 sensitive cells (counts 1-3), its heuristic
# pattern, and that pattern with every other secondary suppression published
# (too few); NULL when the seed gives fewer sensitive cells.
audit_case <- function(seed) {
  b <- hitas_table(seed, n = 0:4)
  tab <- b$tab
  req <- table_requirements(tab, list(cell_threshold(4)))
  if (sum(req$sensitive) < 8L) return(NULL)
  prot <- suppress_table(tab, cell_threshold(4), method = "heuristic")
  secondary <- which(prot$suppressed & !req$sensitive)
  thin <- prot$suppressed
  thin[secondary[seq_along(secondary) %% 2 == 0]] <- FALSE
  list(tab = tab, req = req, mem = bf_membership(tab, b$hier), prot = prot, thin = thin)
}

# A verdict audit's verdicts equal lpSolve's intervals on the pattern, and
# every table it found lies within them.
expect_lpsolve_verdicts <- function(a, mem, tab, req, pattern) {
  iv <- bf_lp(mem, tab$count, !pattern, a$cell)
  truth <- iv[, "high"] >= tab$count[a$cell] + req$upper[a$cell] - 1e-7 &
    iv[, "low"] <= tab$count[a$cell] - req$lower[a$cell] + 1e-7
  expect_equal(a$protected, unname(truth))
  expect_true(all(a$low >= iv[, "low"] - 1e-7))
  expect_true(all(a$high <= iv[, "high"] + 1e-7))
}

test_that("the verdict audit's batch LPs and reflections agree with lpSolve's intervals", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  checked <- 0L
  for (seed in 31:34) {
    cs <- audit_case(seed)
    if (is.null(cs)) next
    tab <- cs$tab
    req <- cs$req
    mem <- cs$mem
    # a protected pattern, and one with too few secondary suppressions
    for (pattern in list(cs$prot$suppressed, cs$thin)) {
      a <- run_audit(tab, pattern, req, pick_solver(NULL), 60, sensitive_only = TRUE, exact = FALSE)
      expect_lpsolve_verdicts(a, mem, tab, req, pattern)
      checked <- checked + 1L
    }
  }
  expect_gt(checked, 3L)
})

test_that("a screening audit reports protected only what lpSolve's intervals protect", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  # without the single LPs (decide = FALSE) a direction the tables found do
  # not prove is reported unprotected: never a cell lpSolve finds exposed
  # reported protected, and every value reported is a table's (inside the
  # intruder's interval); every part screened, however small
  local_mocked_bindings(screen_min_cells = 0L)
  checked <- open <- 0L
  for (seed in 31:36) {
    cs <- audit_case(seed)
    if (is.null(cs)) next
    for (pattern in list(cs$prot$suppressed, cs$thin)) {
      a <- run_audit(cs$tab, pattern, cs$req, pick_solver(NULL), 60, sensitive_only = TRUE,
                     exact = FALSE, decide = FALSE)
      iv <- bf_lp(cs$mem, cs$tab$count, !pattern, a$cell)
      v <- cs$tab$count[a$cell]
      truth <- iv[, "high"] >= v + cs$req$upper[a$cell] - 1e-7 & iv[, "low"] <= v - cs$req$lower[a$cell] + 1e-7
      expect_true(all(truth[a$protected]))
      expect_true(all(!a$protected[!truth]))
      expect_true(all(a$low >= iv[, "low"] - 1e-7 & a$low <= v + 1e-7))
      expect_true(all(a$high <= iv[, "high"] + 1e-7 & a$high >= v - 1e-7))
      # the deciding audit with the screen's tables kept gives lpSolve's verdicts
      d <- run_audit(cs$tab, pattern, cs$req, pick_solver(NULL), 60, sensitive_only = TRUE,
                     exact = FALSE, known = a)
      expect_lpsolve_verdicts(d, cs$mem, cs$tab, cs$req, pattern)
      open <- open + sum(!a$protected)
      checked <- checked + 1L
    }
    # the repair rounds, whose audits are screens, end with a deciding audit:
    # lpSolve's verdicts on the pattern they return
    for (passes in 1:2) {
      rep <- hitas_repair(cs$tab, cs$req, suppression_costs("cells", cs$tab, cs$req), pick_solver(NULL),
                          table_control(), cs$thin, proc.time()[["elapsed"]], passes = passes)
      expect_identical(attr(rep$audit, "suppressed"), which(rep$pattern))
      expect_lpsolve_verdicts(rep$audit, cs$mem, cs$tab, cs$req, rep$pattern)
    }
  }
  expect_gt(checked, 3L)
  expect_gt(open, 0L)
})

test_that("a screen of parts smaller than screen_min_cells is the deciding audit", {
  skip_without_solver()
  cs <- audit_case(31)
  for (pattern in list(cs$prot$suppressed, cs$thin)) {
    a <- run_audit(cs$tab, pattern, cs$req, pick_solver(NULL), 60, sensitive_only = TRUE,
                   exact = FALSE, decide = FALSE)
    d <- run_audit(cs$tab, pattern, cs$req, pick_solver(NULL), 60, sensitive_only = TRUE, exact = FALSE)
    expect_lt(sum(pattern), screen_min_cells)
    expect_identical(a$protected, d$protected)
    expect_equal(a[c("low", "high")], d[c("low", "high")])
  }
})

test_that("a reflected table keeps every relation and bound (explicit sums)", {
  b <- hitas_table(13)
  tab <- b$tab
  v <- tab$count
  mem <- bf_membership(tab, b$hier)
  leaf <- which(as.data.frame(tab)$interior)
  for (k in leaf[v[leaf] > 0][1:3]) {
    # the same records and two more in leaf k: a table that keeps every relation
    x <- v + 2 * mem$M[, match(k, leaf)]
    back <- reflected_table(x, v, rep(0, length(v)), rep(Inf, length(v)))
    expect_true(all(back >= -1e-12))
    sums <- tapply(tab$relations$coef * back[tab$relations$cell], tab$relations$relation, sum)
    expect_true(all(abs(sums) < 1e-9))
    # moved down by as much as the leaf's count allows (its totals are larger)
    expect_equal(back[[k]], v[[k]] - min(2, v[[k]]))
    whole <- reflected_table(x, v, rep(0, length(v)), rep(Inf, length(v)), integer = TRUE)
    expect_equal(whole[[k]], if (v[[k]] >= 2) v[[k]] - 2 else v[[k]])
  }
})

# A 2-D table of codes within groups by age in 5-year within 10-year bands.
hitas_table_2d <- function(seed, n = 0:5) {
  b <- hitas_table(seed, n)
  d <- expand.grid(code = c("a1", "a2", "b1", "b2", "b3"), age = c(2, 7, 12, 17), stringsAsFactors = FALSE)
  set.seed(seed)
  d$k <- sample(n, nrow(d), replace = TRUE)
  list(tab = table_counts(d, c("code", "age"), hierarchies = b$hier, freq = "k"), hier = b$hier)
}

test_that("2-D tables in sub-tables protect every sensitive cell (lpSolve)", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  checked <- 0L
  for (seed in 31:38) {
    b <- hitas_table_2d(seed)
    tab <- b$tab
    req <- table_requirements(tab, list(cell_threshold(3)))
    if (!any(req$sensitive)) next
    costs <- suppression_costs("value", tab, req)
    h <- heuristic_suppression(tab, req, costs, pick_solver(NULL), table_control(), subtables = TRUE)
    # the sub-table pass (no clean-up) and its verdict audit
    expect_true(is.na(h$cleanup_complete))
    expect_false(is.null(h$audit))
    s <- which(req$sensitive)
    iv <- bf_lp(bf_membership(tab, b$hier), tab$count, !h$suppressed, s)
    expect_true(all(iv[, "high"] >= tab$count[s] + req$upper[s] - 1e-7))
    expect_true(all(iv[, "low"] <= tab$count[s] - req$lower[s] + 1e-7))
    checked <- checked + 1L
  }
  expect_gt(checked, 5L)
})

test_that("tables of one or two dimensions go to the sub-tables above 10,000 cells", {
  flat <- table_counts(data.frame(a = rep(c("x", "y"), 3), b = rep(c("u", "v", "w"), 2)), c("a", "b"))
  expect_false(use_subtables(flat))
  expect_true(use_subtables(flat, max_cells = 5L))
  expect_true(use_subtables(hitas_table(11)$tab, max_cells = 1e6))
  skip_without_solver()
  # 10,000 leaf codes in 100 groups by 2 codes: 10,101 x 3 cells, a few sensitive
  codes <- sprintf("c%05d", 1:10000)
  h <- hierarchy_category(data.frame(code = codes, group = substr(codes, 1, 4)))
  set.seed(5)
  d <- data.frame(code = rep(codes, 2), s = rep(c("f", "m"), each = 10000))
  d$k <- rpois(nrow(d), 30)
  d$k[sample(nrow(d), 12)] <- 1
  tab <- table_counts(d, c("code", "s"), hierarchies = list(code = h), freq = "k")
  expect_gt(length(tab$count), 10000L)
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic", cost = "value")
  # the sub-table path: no clean-up
  expect_true(is.na(prot$cleanup_complete))
  expect_length(prot$unprotected, 0L)
  # the exact intervals (both LPs of every sensitive cell) agree with the verdict
  ex <- audit_table(prot, exact = TRUE)
  sens <- ex[ex$status == "primary", ]
  expect_equal(nrow(sens), sum(prot$primary))
  expect_true(all(sens$protected))
  expect_true(all(sens$high >= sens$value + sens$upper - 1e-7 & sens$low <= sens$value - sens$lower + 1e-7))
})

test_that("an audit that keeps an earlier audit's tables gives lpSolve's verdicts on the larger pattern", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  checked <- 0L
  for (seed in 31:36) {
    cs <- audit_case(seed)
    if (is.null(cs)) next
    tab <- cs$tab
    req <- cs$req
    mem <- cs$mem
    prot <- cs$prot
    # the earlier pattern: half the secondary suppressions; the later one all
    thin <- cs$thin
    before <- run_audit(tab, thin, req, pick_solver(NULL), 60, sensitive_only = TRUE, exact = FALSE)
    after <- run_audit(tab, prot$suppressed, req, pick_solver(NULL), 60, sensitive_only = TRUE,
                       exact = FALSE, known = before)
    # the values kept and found are those of tables the intruder cannot exclude
    expect_lpsolve_verdicts(after, mem, tab, req, prot$suppressed)
    # what the earlier audit proved is not solved again: at least as far
    kept <- match(after$cell, before$cell)
    expect_true(all(after$high >= before$high[kept] - 1e-9, na.rm = TRUE))
    expect_true(all(after$low <= before$low[kept] + 1e-9, na.rm = TRUE))
    checked <- checked + 1L
  }
  expect_gt(checked, 2L)
  # an earlier audit of a pattern this one does not contain is refused
  expect_error(run_audit(tab, thin, req, pick_solver(NULL), 60, sensitive_only = TRUE, exact = FALSE,
                         known = after), "internal")
})
