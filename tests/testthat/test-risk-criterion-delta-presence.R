# delta-presence (methods vignette 28.8): delta = f / F per class by hand, the
# class-local rule on a lattice node, and ARX's DPresence test values
# (TestAnonymizationDPresence.java on ARX's adult.csv / adult_subset.csv with
# ARX's hierarchies; the files are not bundled: the test skips without them).

test_that("delta per class by hand on a small population", {
  pop <- data.frame(sex = c(rep("f", 6), rep("m", 4)), age = c(1, 1, 1, 2, 2, 2, 1, 1, 2, 2))
  rel <- pop[c(1, 4, 5, 7, 9, 10), ]
  # classes (f,1): 1 of 3; (f,2): 2 of 3; (m,1): 1 of 2; (m,2): 2 of 2
  res <- criterion_evaluate(delta_presence(0, 1, pop), rel, keys = c("sex", "age"))
  expect_equal(res$value, 1)
  expect_equal(sort(res$detail$delta), sort(c(1 / 3, 2 / 3, 1 / 2, 1)))
  expect_equal(res$detail$population[order(res$detail$delta)], c(3, 2, 3, 2))
  expect_true(res$pass)
  expect_false(criterion_evaluate(delta_presence(0, 0.7, pop), rel, keys = c("sex", "age"))$pass)
  # the lower bound: the smallest delta 1/3 < 0.4
  low <- criterion_evaluate(delta_presence(0.4, 1, pop), rel, keys = c("sex", "age"))
  expect_false(low$pass)
  expect_true(criterion_evaluate(delta_presence(0.3, 1, pop), rel, keys = c("sex", "age"))$pass)
  # a release class the population lacks: the population is not the release's
  bad <- rel
  bad$age[[1]] <- 9
  na <- criterion_evaluate(delta_presence(0, 1, pop), bad, keys = c("sex", "age"))
  expect_false(na$applies)
  expect_match(na$note, "population holds fewer")
})

test_that("in the lattice a class fails when its delta leaves the bounds", {
  pop <- data.frame(g = rep(c("a", "b", "c"), c(10, 20, 5)))
  node <- list(keys = "g", size = c(2, 8, 1),
               classes = function() data.frame(g = c("a", "b", "c")),
               generalize = function(df) df)
  expect_identical(criterion_classes(delta_presence(0, 0.25, pop), node), c(FALSE, TRUE, FALSE))
  # c: 1 of 5 = 0.2 < 0.21
  expect_identical(criterion_classes(delta_presence(0.21, 0.5, pop), node), c(TRUE, FALSE, TRUE))
  expect_true(criterion_monotone(delta_presence(0, 0.25, pop)))
  # with dmin > 0 a population class the data do not hold fails the node
  pop2 <- rbind(pop, data.frame(g = c("d", "d")))
  expect_false(criterion_release(delta_presence(0.1, 0.5, pop2), node, c(TRUE, TRUE, TRUE)))
  expect_true(criterion_release(delta_presence(0, 0.5, pop2), node, c(TRUE, TRUE, TRUE)))
  expect_true(criterion_release(delta_presence(0.1, 0.5, pop), node, c(TRUE, FALSE, TRUE)))
})

test_that("on a release, dmin > 0 fails when a population class has no released record", {
  pop <- data.frame(g = rep(c("a", "b", "c"), c(10, 10, 10)))
  rel <- data.frame(g = c("a", "a", "b", "b"))
  expect_true(criterion_evaluate(delta_presence(0, 0.5, pop), rel, keys = "g")$pass)
  res <- criterion_evaluate(delta_presence(0.1, 0.5, pop), rel, keys = "g")
  expect_false(res$pass)
  expect_match(res$note, "without a released record")
  rel$g[[4]] <- "c"
  expect_true(criterion_evaluate(delta_presence(0.1, 0.5, pop), rel, keys = "g")$pass)
})

test_that("bad input is a classed error naming the argument", {
  pop <- data.frame(g = "a")
  expect_error(delta_presence(0, 0, pop), class = "epimask_error_value")
  expect_error(delta_presence(0.5, 0.2, pop), class = "epimask_error_value")
  expect_error(delta_presence(0, 0.2), class = "epimask_error_type")
  expect_error(delta_presence(0, 0.2, pop[0, , drop = FALSE]), class = "epimask_error_empty")
  err <- tryCatch(criterion_prepare(delta_presence(0, 0.2, pop), data.frame(h = 1), keys = "h"),
                  error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_identical(err$arg, "population")
})

arx_dir <- function() {
  dir <- Sys.getenv("EPIMASK_ARX_DATA", file.path("..", "..", "..", "shared", "data", "arx"))
  if (!dir.exists(dir)) dir <- "/work/shared/data/arx"
  dir
}

arx_fixture <- function() {
  dir <- arx_dir()
  skip_if_not(file.exists(file.path(dir, "adult_subset.csv")), "ARX's adult fixtures not available")
  read <- function(f) utils::read.csv(file.path(dir, f), sep = ";", colClasses = "character",
                                      check.names = FALSE)
  keys <- c("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
            "salary-class")
  h <- lapply(keys, function(k) hierarchy_category(file.path(dir, sprintf("adult_hierarchy_%s.csv", k))))
  names(h) <- keys
  list(pop = read("adult.csv"), sub = read("adult_subset.csv"), keys = keys, h = h)
}

# A lattice node of the subset as the search would give it (size, classes,
# generalize), built with generalize() at the node's levels.
arx_node <- function(fx, levels) {
  gen <- function(df) {
    out <- lapply(seq_along(fx$keys), function(v)
      as.character(generalize(df[[fx$keys[v]]], fx$h[[v]], levels[[v]])))
    stats::setNames(as.data.frame(out, stringsAsFactors = FALSE, col.names = fx$keys,
                                  check.names = FALSE), fx$keys)
  }
  g <- gen(fx$sub)
  key <- do.call(paste, c(g, sep = "\r"))
  cls <- unique(key)
  list(keys = fx$keys, size = tabulate(match(key, cls), length(cls)),
       classes = function() g[match(cls, key), , drop = FALSE], generalize = gen)
}

test_that("ARX's DPresence optima are acceptable with ARX's AECS and their predecessors fail", {
  fx <- arx_fixture()
  # TestAnonymizationDPresence: suppression 0, AECS metric
  cases <- list(list(dmin = 0, dmax = 0.2, node = c(1, 4, 1, 1, 0, 2, 2, 0), aecs = 52.0),
                list(dmin = 0.05, dmax = 0.15, node = c(0, 4, 0, 1, 3, 2, 2, 1), aecs = 150.8))
  for (cs in cases) {
    crit <- delta_presence(cs$dmin, cs$dmax, fx$pop)
    node <- arx_node(fx, cs$node)
    expect_false(any(criterion_classes(crit, node)))
    expect_true(criterion_release(crit, node, rep(TRUE, length(node$size))))
    # ARX's AECS: records over classes
    expect_equal(nrow(fx$sub) / length(node$size), cs$aecs)
    # every node one level more specific fails (the criterion is monotone, so the
    # optimum is a minimal acceptable node)
    for (v in which(cs$node > 0)) {
      lower <- cs$node
      lower[[v]] <- lower[[v]] - 1
      lower_node <- arx_node(fx, lower)
      expect_true(any(criterion_classes(crit, lower_node)) ||
                    !criterion_release(crit, lower_node, rep(TRUE, length(lower_node$size))),
                  info = paste(lower, collapse = ""))
    }
  }
  # the optima of the entropy metric (cases 1, 2 and 7, 8) are acceptable too
  expect_false(any(criterion_classes(delta_presence(0, 0.2, fx$pop),
                                     arx_node(fx, c(0, 1, 1, 2, 3, 2, 2, 0)))))
  expect_false(any(criterion_classes(delta_presence(0.05, 0.15, fx$pop),
                                     arx_node(fx, c(1, 4, 1, 1, 1, 2, 2, 1)))))
})

test_that("over the whole lattice, ARX's nodes have the least AECS among acceptable nodes", {
  skip_on_cran()
  fx <- arx_fixture()
  tops <- vapply(fx$h, function(h) length(h$levels) - 1L, integer(1))
  # each key's generalized values as codes, per level, for the subset and the population
  codes <- lapply(seq_along(fx$keys), function(v) lapply(0:tops[[v]], function(l) {
    s <- as.character(generalize(fx$sub[[fx$keys[v]]], fx$h[[v]], l))
    p <- as.character(generalize(fx$pop[[fx$keys[v]]], fx$h[[v]], l))
    u <- unique(c(s, p))
    list(s = match(s, u), p = match(p, u), n = length(u))
  }))
  grid <- as.matrix(expand.grid(lapply(tops, function(t) 0:t)))
  best <- list(c(Inf, NA), c(Inf, NA))
  bounds <- list(c(0, 0.2), c(0.05, 0.15))
  aecs <- numeric(nrow(grid))
  ok <- matrix(FALSE, nrow(grid), 2)
  for (r in seq_len(nrow(grid))) {
    ks <- kp <- 0
    for (v in seq_along(fx$keys)) {
      cv <- codes[[v]][[grid[r, v] + 1L]]
      ks <- ks * cv$n + (cv$s - 1)
      kp <- kp * cv$n + (cv$p - 1)
    }
    cls <- unique(ks)
    f <- tabulate(match(ks, cls), length(cls))
    Fp <- tabulate(match(kp, cls), length(cls))
    delta <- f / Fp
    aecs[[r]] <- nrow(fx$sub) / length(cls)
    # with dmin > 0, a population class without a subset record fails the node (ARX)
    covered <- all(kp %in% cls)
    for (b in 1:2) ok[r, b] <- all(delta >= bounds[[b]][[1]] & delta <= bounds[[b]][[2]]) &&
      (bounds[[b]][[1]] == 0 || covered)
  }
  for (b in 1:2) {
    m <- min(aecs[ok[, b]])
    expect_equal(m, c(52.0, 150.8)[[b]])
    arx <- list(c(1, 4, 1, 1, 0, 2, 2, 0), c(0, 4, 0, 1, 3, 2, 2, 1))[[b]]
    at <- which(apply(grid, 1, function(g) all(g == arx)))
    expect_true(ok[at, b])
    expect_equal(aecs[[at]], m)
  }
})
