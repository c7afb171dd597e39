# ola() against the brute-force enumeration of every lattice node
# (helper-ola.R), for every metric, with and without suppression, with
# l-diversity and t-closeness.

expect_optimum <- function(fx, metric, ...) {
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  ref <- brute_optimum(fx$data, fx$keys, h, metric, ...)
  args <- list(...)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = args$k, max_suppress = args$max_suppress,
             metric = metric, l = args$l, t = args$t, sensitive = args$sensitive,
             diversity = if (is.null(args$diversity)) "distinct" else args$diversity,
             ordered = args$ordered))
  expect_identical(unname(res$levels), as.integer(ref$levels),
                   label = sprintf("levels (%s, %s)", metric, deparse(args)))
  expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact)
  expect_equal(info_loss(res, "all"), ref$all, tolerance = tol_exact)
  expect_lt(res$nodes_evaluated, res$nodes_total + 1)
  res
}

metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

test_that("the optimum equals brute force for every metric, with and without suppression", {
  for (seed in 1:3) {
    fx <- ola_fixture(120, seed)
    for (metric in metrics) {
      for (ms in c(0, 0.04, 0.15)) {
        expect_optimum(fx, metric, k = 4, max_suppress = ms)
      }
    }
  }
})

test_that("the optimum equals brute force with l-diversity and t-closeness", {
  fx <- ola_fixture(150, 7)
  for (metric in metrics) {
    expect_optimum(fx, metric, k = 3, max_suppress = 0.05, l = 2, sensitive = "outcome")
    expect_optimum(fx, metric, k = 3, max_suppress = 0.1, l = 1.8,
                   sensitive = "outcome", diversity = "entropy")
    expect_optimum(fx, metric, k = 2, max_suppress = 0, l = 3, sensitive = "outcome")
    expect_optimum(fx, metric, k = 3, max_suppress = 0.05, t = 0.15,
                   sensitive = c("outcome", "score"), ordered = "score")
  }
})

test_that("the search evaluates a fraction of a larger lattice", {
  set.seed(3)
  n <- 4000
  d <- data.frame(age = sample(18:90, n, TRUE),
                  birth = as.Date("1940-01-01") + sample(0:20000, n, TRUE),
                  zip = sprintf("%05d", sample(c(2138:2160, 10001:10030), n, TRUE)),
                  sex = sample(c("f", "m"), n, TRUE))
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), birth = hierarchy_date(),
            zip = hierarchy_zip(), sex = hierarchy_flat())
  res <- deprecated(ola(d, names(d), h, k = 5, max_suppress = 0.02))
  expect_identical(res$nodes_total, 5L * 5L * 6L * 2L)
  expect_lt(res$nodes_evaluated, res$nodes_total / 2)
  # the release is k-anonymous within the budget and at the chosen levels
  expect_lte(res$n_suppressed, 0.02 * n)
  expect_gte(min(table(do.call(paste, res$data))), 5)
  kept <- setdiff(seq_len(n), res$suppressed)
  for (key in names(d))
    expect_identical(res$data[[key]], generalize(d[[key]][kept], h[[key]], res$levels[[key]]))
  # no evaluated-or-not node does better: every node one step down fails or
  # loses more (the optimum is checked exhaustively above on smaller lattices)
  greedy <- datafly(d, names(d), h, k = 5, max_suppress = 0.02)
  expect_lte(info_loss(res), info_loss(greedy) * (1 + 1e-12))
})

test_that("non-nested hierarchies fall back to an exact search", {
  fx <- ola_fixture(100, 11)
  fx$h$age <- hierarchy_numeric(c(10, 15))  # 15-year bins do not nest 10-year ones
  for (metric in c("entropy", "discernibility"))
    expect_optimum(fx, metric, k = 3, max_suppress = 0.05)
})

test_that("ola results have their own class with datafly's methods", {
  fx <- ola_fixture(120, 2)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 4))
  # (issue 37: ola()'s result is its own class, no longer an epimask_datafly)
  expect_false(inherits(res, "epimask_datafly"))
  expect_s3_class(res, "epimask_ola")
  expect_output(print(res), "OLA release")
  expect_output(print(res), "nodes evaluated")
  expect_output(print(summary(res)), "Information loss")
  expect_type(format(res), "character")
  expect_identical(as.data.frame(res), res$data)
  pdf(NULL)
  on.exit(dev.off())
  expect_equal(sum(plot(res)), length(res$class_sizes))
  expect_plot_snapshot("ola class sizes", function() plot(res))
})

test_that("no acceptable node: a classed warning and the top node", {
  d <- data.frame(a = c("x", "y", "z"), s = c("u", "u", "u"))
  expect_warning(res <- deprecated(ola(d, "a", list(a = hierarchy_flat()), k = 2, l = 2,
                            sensitive = "s")), class = "epimask_warning_suppressed")
  expect_identical(unname(res$levels), 1L)
  expect_false(res$acceptable)
})

test_that("bad input gets classed errors", {
  fx <- ola_fixture(50, 1)
  expect_error(ola(fx$data, fx$keys, fx$h, metric = "nope"), class = "epimask_error_value")
  expect_error(deprecated(ola(fx$data, fx$keys, fx$h, l = 2)), "sensitive", class = "epimask_error_value")
  expect_error(deprecated(ola(fx$data, fx$keys, fx$h, l = 2, sensitive = "age")),
               class = "epimask_error_value")
  expect_error(deprecated(ola(fx$data, fx$keys, fx$h, t = 2, sensitive = "outcome")),
               class = "epimask_error_value")
  expect_error(deprecated(ola(fx$data, fx$keys, fx$h, sensitive = "nope", l = 2)),
               class = "epimask_error_name")
  expect_error(ola(fx$data, fx$keys, fx$h[-1]), class = "epimask_error_name")
  expect_error(info_loss(list()), class = "epimask_error_type")
})

test_that("search = 'minimal' equals brute force when the loss is monotone", {
  # without suppression every metric grows along generalization, so the
  # optimum is k-minimal
  for (seed in 4:5) {
    fx <- ola_fixture(150, seed)
    h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
    for (metric in metrics) {
      ref <- brute_optimum(fx$data, fx$keys, h, metric, k = 3, max_suppress = 0)
      res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0, metric = metric,
                 search = "minimal"))
      expect_identical(unname(res$levels), as.integer(ref$levels))
      exact <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0, metric = metric))
      expect_identical(exact$levels, res$levels)
    }
  }
  # with suppression it never beats the exact search
  fx <- ola_fixture(150, 6)
  for (metric in metrics) {
    a <- deprecated(ola(fx$data, fx$keys, fx$h, k = 4, max_suppress = 0.1, metric = metric,
             search = "minimal"))
    b <- deprecated(ola(fx$data, fx$keys, fx$h, k = 4, max_suppress = 0.1, metric = metric))
    expect_gte(info_loss(a, metric), info_loss(b, metric) * (1 - 1e-12))
  }
})

test_that("class counts rolled up from a finer node equal table() on the generalized data", {
  fx <- ola_fixture(300, 9)
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  lat <- epimask:::lattice_build(fx$data, fx$keys, h, "outcome")
  bottom <- c(lat$bottom, list(levels = integer(4)))
  counts_of <- function(tab, levels) {
    # decode each row's key codes back to generalized values
    labels <- vapply(seq_along(fx$keys), function(v) {
      u <- unique(fx$data[[fx$keys[v]]])
      g <- as.character(generalize(u, h[[v]], levels[[v]]))
      first <- match(seq_len(max(lat$key[[v]]$level_codes[[levels[[v]] + 1L]])),
                     lat$key[[v]]$level_codes[[levels[[v]] + 1L]])
      g[first][tab$codes[, v]]
    }, character(nrow(tab$codes)))
    s <- unique(fx$data$outcome)[tab$codes[, 5]]
    key <- paste(apply(matrix(labels, ncol = 4), 1, paste, collapse = "|"), s, sep = "|")
    sort(stats::setNames(tab$count, key))
  }
  for (pair in list(list(c(1L, 0L, 1L, 0L), c(2L, 1L, 1L, 1L)),
                    list(c(0L, 0L, 0L, 1L), c(3L, 0L, 2L, 1L)))) {
    finer <- epimask:::lattice_rollup(lat, bottom, pair[[1]])
    finer$levels <- pair[[1]]
    coarse <- epimask:::lattice_rollup(lat, finer, pair[[2]])
    gen <- lapply(seq_along(fx$keys), function(v)
      as.character(generalize(fx$data[[fx$keys[v]]], h[[v]], pair[[2]][[v]])))
    ref <- table(paste(do.call(paste, c(gen, sep = "|")), fx$data$outcome, sep = "|"))
    got <- counts_of(coarse, pair[[2]])
    expect_identical(sort(names(got)), sort(names(ref)))
    expect_equal(unname(got[names(ref)]), as.vector(ref))
  }
})
