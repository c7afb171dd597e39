# suppress_table() and audit_table() against independent references: the
# documented example of sdcTable (its tests/testthat/test-protectTable.r,
# version 0.34.0), an exhaustive search over suppression patterns audited
# by brute-force enumeration of the integer tables that agree with the
# published cells, and the intruder's LP solved by lpSolve on the interior
# formulation (a second solver, not the package's relations).

# sdcTable's microdata1 as a table of counts: region A-D x gender
sdc_counts <- data.frame(region = rep(c("A", "B", "C", "D"), 2),
                         gender = rep(c("female", "male"), each = 4),
                         n = c(2, 19, 10, 14, 18, 14, 12, 11))

test_that("sdcTable's documented example: the cheapest rectangle by counts (3 secondary, cost 40)", {
  skip_without_solver()
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  # sdcTable marks (A, female) primary; here the frequency rule does it
  expect_equal(sensitive_cells(tab, cell_threshold(3))$cell, which(tab$count == 2))
  prot <- suppress_table(tab, cell_threshold(3), cost = "value")
  d <- as.data.frame(prot)
  secondary <- d[d$status == "secondary", c("region", "gender")]
  expect_equal(secondary[order(secondary$region, secondary$gender), ],
               data.frame(region = c("A", "C", "C"), gender = c("male", "female", "male")),
               ignore_attr = TRUE)
  expect_true(prot$optimal)
  expect_equal(round(prot$cost), 40)
  # the heuristic finds the same pattern here, as sdcTable's SIMPLEHEURISTIC does
  heur <- suppress_table(tab, cell_threshold(3), method = "heuristic", cost = "value")
  expect_equal(heur$suppressed, prot$suppressed)
  expect_equal(length(prot$unprotected), 0L)
})

test_that("the optimal pattern equals an exhaustive search, audited by enumeration", {
  skip_without_solver()
  cases <- list(
    data.frame(a = rep(c("x", "y", "z"), 2), b = rep(c("p", "q"), each = 3), n = c(4, 1, 3, 2, 5, 1)),
    data.frame(a = rep(c("x", "y"), 3), b = rep(c("p", "q", "r"), each = 2), n = c(1, 3, 4, 2, 0, 5)),
    data.frame(a = c("x", "y", "z", "w"), b = "p", n = c(2, 5, 1, 4)))
  for (d in cases) {
    tab <- table_counts(d, c("a", "b"), freq = "n")
    rule <- cell_threshold(3)
    req <- table_requirements(tab, list(rule))
    mem <- bf_membership(tab)
    cap <- max(d$n) + 2
    for (cost in c("cells", "value")) {
      cst <- suppression_costs(cost, tab, req)$cost
      ref <- bf_optimal(mem, tab$count, req, cst, cap)
      prot <- suppress_table(tab, rule, cost = cost)
      expect_equal(sum(cst[prot$suppressed & !req$sensitive]), ref$cost, tolerance = 1e-9)
      expect_true(bf_protects(mem, tab$count, prot$suppressed, req, cap))
      heur <- suppress_table(tab, rule, method = "heuristic", cost = cost)
      expect_true(bf_protects(mem, tab$count, heur$suppressed, req, cap))
      expect_gte(heur$cost, prot$cost - 1e-9)
    }
  }
})

test_that("a one-dimensional hierarchy: optimal = exhaustive, audit = enumeration", {
  skip_without_solver()
  h <- hierarchy_category(data.frame(code = c("a1", "a2", "b1", "b2", "b3"),
                                     group = c("A", "A", "B", "B", "B")))
  d <- data.frame(code = c("a1", "a2", "b1", "b2", "b3"), n = c(1, 4, 2, 5, 3))
  tab <- table_counts(d, "code", hierarchies = list(code = h), freq = "n")
  rule <- cell_threshold(3)
  req <- table_requirements(tab, list(rule))
  mem <- bf_membership(tab, list(code = h))
  ref <- bf_optimal(mem, tab$count, req, rep(1, length(tab$count)), cap = 8)
  prot <- suppress_table(tab, rule)
  expect_equal(prot$n_secondary, ref$cost)
  e <- bf_enumerate(mem, tab$count, !prot$suppressed, cap = 30)
  a <- audit_table(prot)
  expect_equal(a$low, unname(e$low[a$cell]))
  # the enumeration is capped; the LP's maxima below the cap agree
  finite <- is.finite(a$high)
  expect_equal(a$high[finite], unname(e$high[a$cell][finite]))
})

test_that("the audit's intervals equal lpSolve's LP on the interior formulation", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  set.seed(11)
  h <- list(age = hierarchy_numeric(c(10, 20)))
  d <- data.frame(age = sample(20:59, 300, TRUE), sex = sample(c("f", "m"), 300, TRUE),
                  site = sample(c("s1", "s2", "s3"), 300, TRUE, prob = c(.6, .3, .1)))
  tab <- table_counts(d, c("age", "sex", "site"), hierarchies = h)
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic")
  mem <- bf_membership(tab, h)
  a <- audit_table(prot)
  ref <- bf_lp(mem, tab$count, !prot$suppressed, a$cell)
  expect_equal(a$low, unname(ref[, "low"]), tolerance = 1e-7)
  expect_equal(a$high, unname(ref[, "high"]), tolerance = 1e-7)
  expect_true(all(a$protected[a$status == "primary"]))
  # the verdict audit of suppress_table(): the same verdicts, its bounds inside the exact interval
  v <- prot$audit
  ex <- a[match(v$cell, a$cell), ]
  expect_equal(v$protected, ex$protected)
  expect_true(all(v$low >= ex$low - 1e-7 & v$high <= ex$high + 1e-7))
  expect_true(all(v$low[v$exact] == ex$low[v$exact] & v$high[v$exact] == ex$high[v$exact]))
  expect_true(any(!v$exact))
  # random patterns, not only protective ones
  for (r in 1:3) {
    pattern <- prot$primary | stats::runif(length(tab$count)) < 0.2
    fake <- prot
    fake$suppressed <- pattern
    au <- audit_table(fake)
    lp <- bf_lp(mem, tab$count, !pattern, au$cell)
    expect_equal(au$low, unname(lp[, "low"]), tolerance = 1e-7)
    expect_equal(au$high, unname(lp[, "high"]), tolerance = 1e-7)
  }
})

test_that("integer audit of a three-dimensional table equals the enumeration", {
  skip_without_solver()
  d <- expand.grid(a = c("x", "y"), b = c("p", "q"), c = c("u", "v"), stringsAsFactors = FALSE)
  d$n <- c(1, 2, 2, 1, 2, 1, 1, 2)
  tab <- table_counts(d, c("a", "b", "c"), freq = "n")
  pattern <- table_interior(tab)
  fake <- structure(list(original = tab, suppressed = pattern,
                         requirements = table_requirements(tab, list(cell_threshold(2)))),
                    class = c("epimask_protected_table", "epimask_table_release"))
  au <- audit_table(fake, integer = TRUE)
  e <- bf_enumerate(bf_membership(tab), tab$count, !pattern, cap = 4)
  expect_equal(au$low, unname(e$low[au$cell]))
  expect_equal(au$high, unname(e$high[au$cell]))
  lp <- audit_table(fake)
  expect_true(all(lp$low <= au$low + 1e-9 & lp$high >= au$high - 1e-9))
})

test_that("magnitude rules: the pattern protects every p% and dominance cell (lpSolve audit)", {
  skip_without_solver()
  skip_if_not_installed("lpSolve")
  set.seed(5)
  d <- data.frame(r = sample(c("n", "s", "e"), 80, TRUE), g = sample(c("a", "b", "c", "d"), 80, TRUE),
                  v = round(rlnorm(80, 3, 1.2)))
  tab <- table_counts(d, c("r", "g"), value = "v")
  rules <- list(p_percent(15), dominance(1, 70))
  prot <- suppress_table(tab, rules)
  req <- prot$requirements
  mem <- bf_membership(tab)
  lp <- bf_lp(mem, tab$value, !prot$suppressed, which(req$sensitive))
  s <- which(req$sensitive)
  expect_true(all(lp[, "high"] >= tab$value[s] + req$upper[s] - 1e-6))
  expect_true(all(lp[, "low"] <= tab$value[s] - req$lower[s] + 1e-6))
  expect_equal(criterion_evaluate(p_percent(15), prot)$value, 0)
})

test_that("a failing or timed-out solver: the heuristic with a classed warning, or a classed error", {
  skip_without_solver()
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  fail <- function(...) stop(structure(class = c("epimask_error_time_limit", "epimask_error_solver",
                                                 "epimask_error", "error", "condition"),
                                       list(message = "time", call = NULL, pattern = NULL)))
  local_mocked_bindings(solve_master = fail)
  expect_warning(prot <- suppress_table(tab, cell_threshold(3)), class = "epimask_warning_solver")
  expect_false(prot$optimal)
  expect_equal(prot$method, "optimal")
  expect_true(all(prot$audit$protected[prot$audit$status == "primary"]))
  expect_error(suppress_table(tab, cell_threshold(3), control = table_control(on_failure = "error")),
               class = "epimask_error_solver")
})

test_that("the optimal search's intruder LPs share its time limit: past it, the heuristic", {
  skip_without_solver()
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  seen <- new.env()
  orig <- intruder_intervals
  # the cuts' LPs (cuts = TRUE) find the deadline passed; the audits run as they are
  local_mocked_bindings(intruder_intervals = function(..., cuts = FALSE, deadline = Inf) {
    if (cuts) {
      seen$deadline <- deadline
      audit_time_out()
    }
    orig(..., cuts = cuts, deadline = deadline)
  })
  before <- proc.time()[["elapsed"]]
  expect_warning(prot <- suppress_table(tab, cell_threshold(3), control = table_control(time_limit = 50)),
                 "time limit of 50 s", class = "epimask_warning_solver")
  after <- proc.time()[["elapsed"]]
  # the deadline is the search's start plus its limit, not each LP's own limit
  expect_true(seen$deadline >= before + 50 && seen$deadline <= after + 50)
  expect_false(prot$optimal)
  expect_true(all(prot$audit$protected[prot$audit$status == "primary"]))
  expect_error(suppress_table(tab, cell_threshold(3),
                              control = table_control(time_limit = 50, on_failure = "error")),
               class = "epimask_error_time_limit")
})

test_that("a solver that is missing is a classed error saying what to install", {
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  local_mocked_bindings(solver_installed = function(s) FALSE)
  expect_error(suppress_table(tab, cell_threshold(3)), "Rglpk", class = "epimask_error_solver")
  expect_error(suppress_table(tab, cell_threshold(3), control = table_control(solver = "glpk")),
               class = "epimask_error_solver")
})

test_that("bad rules and costs are classed errors", {
  skip_without_solver()
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  expect_error(suppress_table(tab, k_anonymity(3)), class = "epimask_error_criterion")
  expect_error(suppress_table(tab, p_percent(10)), "value", class = "epimask_error_value")
  expect_error(suppress_table(tab, cell_threshold(3), cost = c(1, 2)), class = "epimask_error_length")
  expect_error(suppress_table(tab, cell_threshold(3), method = "magic"), class = "epimask_error_value")
})

test_that("the release holds no suppressed value; methods print", {
  skip_without_solver()
  tab <- table_counts(sdc_counts, c("region", "gender"), freq = "n")
  prot <- suppress_table(tab, cell_threshold(3))
  d <- as.data.frame(prot)
  expect_true(all(is.na(d$value[d$status != "published"])))
  expect_false("count" %in% names(d))
  expect_output(print(prot), "protected table")
  expect_output(print(prot$audit), "table audit")
  expect_output(print(summary(prot)), "Audit")
  expect_equal(glance(prot)$secondary, prot$n_secondary)
  # the audit kept with the table covers the sensitive cells, and says so
  g <- glance(prot$audit)
  expect_identical(g$audited, "sensitive")
  expect_identical(g$cells, sum(prot$primary))
  expect_match(format(prot$audit)[[1]], sprintf("%d sensitive cells audited", sum(prot$primary)))
  full <- glance(audit_table(prot))
  expect_identical(full$audited, "suppressed")
  expect_identical(full$cells, sum(prot$suppressed))
  expect_identical(full$secondary, sum(prot$suppressed & !prot$primary))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(prot)
  grDevices::dev.off()
  expect_true(file.exists(f))
})

test_that("GLPK's bounds built in one pass equal Rglpk's own, and the LP lpSolve's", {
  skip_if_not_installed("Rglpk")
  skip_if_not_installed("lpSolve")
  # every bound type: free, lower only, upper only, both, fixed
  lower <- c(-Inf, 0, -Inf, 1, 2, 0)
  upper <- c(Inf, Inf, 4, 3, 2, 5)
  b <- glpk_bounds(lower, upper)
  own <- Rglpk:::glp_bounds(list(lower = list(ind = 1:6, val = lower),
                                 upper = list(ind = 1:6, val = upper)), 6L)
  expect_identical(as.integer(b$type), as.integer(own$type))
  expect_identical(b$lower, own$lower)
  expect_identical(b$upper, own$upper)
  expect_s3_class(as.list(b), "bound_table")
  # an LP with fixed, double- and lower-bounded columns by GLPK against
  # lpSolve (x >= 0 there), its bounds written as rows
  p <- new_program(c(1, 1, 2, -1, 1, 0.5), i = c(1, 1, 2, 2, 2, 3, 3), j = c(1, 2, 3, 4, 5, 1, 6),
                   v = c(1, 1, 1, -1, 1, 1, -1), nrow = 3, dir = c("==", "<=", ">="),
                   rhs = c(10, 6, -3), lower = c(0, 0, 0, 1, 2, 0), upper = c(8, Inf, 4, 3, 2, 5),
                   maximum = TRUE)
  g <- solve_program(p, "glpk")
  rows <- matrix(0, 3, 6)
  rows[cbind(p$i, p$j)] <- p$v
  ub <- diag(6)[is.finite(p$upper), , drop = FALSE]
  lb <- diag(6)[p$lower > 0, , drop = FALSE]
  ref <- lpSolve::lp("max", p$obj, rbind(rows, ub, lb),
                     c("=", "<=", ">=", rep("<=", nrow(ub)), rep(">=", nrow(lb))),
                     c(p$rhs, p$upper[is.finite(p$upper)], p$lower[p$lower > 0]))
  expect_identical(g$status, "optimal")
  expect_equal(g$objval, ref$objval, tolerance = 1e-9)
  # bounds GLPK would refuse still reach Rglpk's own check, as a failed solve
  bad <- p
  bad$lower[[3]] <- 5
  expect_identical(solve_program(bad, "glpk")$status, "error")
})

test_that("GLPK stopped by its time limit is a time limit, not an infeasible LP", {
  skip_if_not_installed("Rglpk")
  # a feasible transportation problem of 150 x 150 routes (supplies equal demands)
  m <- 150L
  set.seed(7)
  supply <- rep(10, m)
  i <- c(rep(seq_len(m), each = m), m + rep(seq_len(m), times = m))
  j <- c(seq_len(m * m), seq_len(m * m))
  p <- new_program(stats::runif(m * m), i, j, rep(1, 2L * m * m), 2L * m, rep("==", 2L * m),
                   c(supply, supply), lower = numeric(m * m), upper = rep(Inf, m * m))
  stopped <- solve_program(p, "glpk", time_limit = 1e-3)
  expect_identical(stopped$status, "time_limit")
  expect_identical(solve_program(p, "glpk")$status, "optimal")
})

test_that("GLPK and HiGHS (warm-started) give the same intervals", {
  skip_if_not_installed("Rglpk")
  skip_if_not_installed("highs")
  set.seed(12)
  d <- data.frame(age = sample(20:59, 400, TRUE), sex = sample(c("f", "m"), 400, TRUE),
                  site = sample(c("s1", "s2", "s3"), 400, TRUE, prob = c(.6, .3, .1)))
  tab <- table_counts(d, c("age", "sex", "site"), hierarchies = list(age = hierarchy_numeric(c(10, 20))))
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic",
                         control = table_control(solver = "glpk"))
  g <- audit_table(prot, control = table_control(solver = "glpk"))
  h <- audit_table(prot, control = table_control(solver = "highs"))
  expect_equal(g$low, h$low, tolerance = 1e-7)
  expect_equal(g$high, h$high, tolerance = 1e-7)
  expect_gt(nrow(g), 50L)
})

test_that("a part of 2,000 cells and more (HiGHS's interior-point method) gives the Frechet bounds", {
  skip_if_not_installed("highs")
  # every interior cell of a 50 x 50 table suppressed, the margins published:
  # the intruder's interval of cell (i, j) is [max(0, r_i + c_j - N), min(r_i, c_j)]
  set.seed(13)
  d <- expand.grid(r = sprintf("r%02d", 1:50), c = sprintf("c%02d", 1:50), stringsAsFactors = FALSE)
  d$n <- stats::rpois(nrow(d), 3)
  tab <- table_counts(d, c("r", "c"), freq = "n")
  cells <- as.data.frame(tab)
  expect_gte(sum(cells$interior), highs_ipm_min_columns)
  v <- tab$count
  lo <- ifelse(cells$interior, 0, v)
  hi <- ifelse(cells$interior, Inf, v)
  targets <- sample(which(cells$interior), 5)
  row_total <- v[match(paste(cells$r[targets], "*"), paste(cells$r, cells$c))]
  col_total <- v[match(paste("*", cells$c[targets]), paste(cells$r, cells$c))]
  grand <- v[cells$r == "*" & cells$c == "*"]
  iv <- intruder_intervals(tab, lo, hi, targets, "highs")
  expect_equal(iv$low, pmax(0, row_total + col_total - grand), tolerance = 1e-7)
  expect_equal(iv$high, pmin(row_total, col_total), tolerance = 1e-7)
  # a vertex with its reduced costs, as the optimal search's cuts need: min
  # c'x with each block of 50 columns summing to 10 puts 10 on the cheapest
  # column of each block; the reduced cost of x_j is c_j less its block's minimum
  cost <- stats::runif(2500)
  block <- rep(1:50, each = 50)
  p <- new_program(cost, block, seq_len(2500), rep(1, 2500), 50, rep("==", 50), rep(10, 50),
                   numeric(2500), rep(Inf, 2500))
  res <- solve_program(p, "highs", Inf)
  expect_equal(res$status, "optimal")
  cheapest <- as.vector(tapply(cost, block, min))
  expect_equal(res$objval, 10 * sum(cheapest), tolerance = 1e-9)
  expect_equal(res$x, 10 * (cost == cheapest[block]), tolerance = 1e-9)
  expect_equal(res$reduced, cost - cheapest[block], tolerance = 1e-9)
})

test_that("a kept HiGHS solver's time limit counts per run, not over its whole life", {
  skip_if_not_installed("highs")
  set.seed(1)
  n <- 400L
  m <- 200L
  at <- sample(m * n, 2000L) - 1L
  A <- structure(list(i = at %% m + 1L, j = at %/% m + 1L, v = rnorm(2000L),
                      nrow = m, ncol = n, dimnames = NULL), class = "simple_triplet_matrix")
  hm <- highs::highs_model(L = rnorm(n), lower = rep(0, n), upper = rep(1, n), A = A,
                           lhs = rep(-1, m), rhs = rep(1, m))
  run <- function(hs) {
    highs::hi_solver_set_objective(hs, seq_len(n) - 1L, rnorm(n))
    highs::hi_solver_clear_solver(hs)
    highs::hi_solver_run(hs)
    highs::hi_solver_status_message(hs)
  }
  hs <- highs::hi_new_solver(hm)
  highs::hi_solver_set_option(hs, "output_flag", FALSE)
  for (i in 1:3) run(hs)
  so_far <- highs::hi_solver_get_run_time(hs)
  # HiGHS itself: a limit below the summed run time stops the next run at once
  highs::hi_solver_set_option(hs, "time_limit", so_far / 2)
  expect_identical(run(hs), "Time limit reached")
  # the package's limit is per run: the seconds given, counted from the sum so far
  before <- highs::hi_solver_get_run_time(hs)
  highs_run_limit(hs, so_far / 2)
  expect_equal(highs::hi_solver_get_dbl_option(hs, "time_limit"), before + so_far / 2)
  highs_run_limit(hs, 60)
  expect_identical(run(hs), "Optimal")
})

test_that("print and summary show the secondary cost and the counts to the last digit", {
  skip_without_solver()
  d <- expand.grid(a = c("x", "y", "z"), b = c("u", "v", "w"), stringsAsFactors = FALSE)
  d$k <- c(1, 12347, 23458, 34569, 45671, 56782, 67893, 78914, 89125)
  tab <- table_counts(d, c("a", "b"), freq = "k")
  prot <- suppress_table(tab, cell_threshold(3), method = "heuristic", cost = "value")
  secondary <- prot$suppressed & !prot$primary
  expect_gt(sum(secondary), 0L)
  total <- sum(as.data.frame(tab)$count[secondary])
  # the exact sum (the tie-breaking share of the cost left out), not 4 significant digits
  expect_match(paste(format(prot), collapse = "\n"), sprintf("secondary cost %s \\(value\\)", format(total, scientific = FALSE)))
  expect_match(paste(format(prot), collapse = "\n"), sprintf("of %s", format(sum(d$k), scientific = FALSE)))
  expect_match(paste(format(summary(prot)), collapse = "\n"), format(total, scientific = FALSE))
  cells <- suppress_table(tab, cell_threshold(3), method = "heuristic", cost = "cells")
  expect_match(paste(format(cells), collapse = "\n"),
               sprintf("secondary cost %d \\(cells\\)", cells$n_secondary))
})
