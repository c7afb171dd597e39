# Properties every masking scheme and risk function must have, whatever the
# numbers: the caller's objects are left alone, a release carries neither the
# original values of a masked column nor the masking parameters, results do
# not depend on the number of threads or on serial/parallel execution, and
# the long C loops answer an interrupt.

prop_data <- function(n = 40, seed = 3) {
  set.seed(seed)
  # continuous values with many digits: ties and already-rounded values have
  # probability zero, so every masked value is expected to differ
  data.frame(id = seq_len(n), x = runif(n, 1, 9), y = rnorm(n, 50, 10),
             k = sample(c("a", "b", "c"), n, TRUE), s1 = runif(n), s2 = runif(n))
}

# Every scheme, with degrees at which each record receives weight from others
# (lambda large against the spacing of n = 40 points in the unit square).
prop_schemes <- function(d) {
  xy <- cbind(d$s1, d$s2)
  n <- nrow(d)
  list(
    round = mask_round(2),
    round_decimal = mask_round(1, "decimal"),
    truncate = mask_truncate(0),
    group = mask_group(c(0, 3, 6, 10, 100)),
    group_midpoint = mask_group(c(0, 3, 6, 10, 100), "midpoint"),
    noise_uniform = mask_noise(0.5),
    noise_normal = mask_noise(0.5, "normal", lower = 0),
    matrix = mask_matrix(matrix(1 / n, n, n) * 0.5 + diag(0.5, n)),
    exponential = mask_kernel("exponential", 0.2, xy),
    gaussian = mask_kernel("gaussian", 0.05, xy),
    ring = mask_kernel("ring", 0.2, xy, source = c(0.5, 0.5)),
    ring_angle = mask_kernel("ring_angle", 0.5, xy, source = c(0.5, 0.5),
                             direction = c(1, 0)),
    ring_block = mask_kernel("ring_block", 0.2, xy, source = c(0.5, 0.5),
                             groups = rep(1:2, length.out = n)),
    bvn = mask_kernel("bvn", 0.5, xy, rho = 0.3),
    shrink = mask_kernel("shrink", 0.5, xy, bandwidth = 0.3)
  )
}

deep_copy <- function(x) unserialize(serialize(x, NULL))

# Addresses of an object and of its columns (data.table::address when the
# package is there): a function that wrote into the caller's memory, or
# replaced a column by reference, changes the value or one of these.
addresses <- function(x) {
  if (!requireNamespace("data.table", quietly = TRUE)) return(NULL)
  c(data.table::address(x),
    if (is.list(x)) vapply(x, data.table::address, character(1)))
}

expect_untouched <- function(x, before_value, before_address) {
  expect_identical(x, before_value)
  expect_identical(addresses(x), before_address)
}

test_that("masking never modifies the caller's data or scheme", {
  d <- prop_data()
  schemes <- prop_schemes(d)
  m <- as.matrix(d[c("x", "y")])
  for (nm in names(schemes)) {
    s <- schemes[[nm]]
    for (input in list(d, m)) {
      v_data <- deep_copy(input)
      a_data <- addresses(input)
      v_scheme <- deep_copy(s)
      a_scheme <- addresses(s)
      out <- apply_mask(input, s, if (is.data.frame(input)) c("x", "y") else NULL)
      expect_untouched(input, v_data, a_data)
      expect_untouched(s, v_scheme, a_scheme)
    }
  }
})

test_that("masking a data.table or tibble leaves it unchanged (no change by reference)", {
  d <- prop_data()
  s <- mask_kernel("exponential", 0.2, cbind(d$s1, d$s2))
  if (requireNamespace("data.table", quietly = TRUE)) {
    dt <- data.table::as.data.table(d)
    v <- data.table::copy(dt)
    a <- addresses(dt)
    out <- apply_mask(dt, s, c("x", "y"))
    expect_identical(dt, v)
    expect_identical(addresses(dt), a)
    expect_false(identical(data.table::address(out), a[[1]]))
  }
  if (requireNamespace("tibble", quietly = TRUE)) {
    tb <- tibble::as_tibble(d)
    v <- deep_copy(tb)
    out <- apply_mask(tb, s, c("x", "y"))
    expect_identical(tb, v)
  }
})

test_that("risk functions never modify the caller's objects", {
  d <- prop_data()
  masked <- apply_mask(d, mask_noise(0.5), c("x", "y"))
  check_untouched_after <- function(f, ...) {
    args <- list(...)
    before <- lapply(args, deep_copy)
    where <- lapply(args, addresses)
    f(...)
    # (a formula's environment does not survive the deep copy; skip formulas)
    for (i in seq_along(args)) if (!inherits(args[[i]], "formula"))
      expect_untouched(args[[i]], before[[i]], where[[i]])
  }
  check_untouched_after(risk_match, d, masked, "x", "y")
  check_untouched_after(risk_match, as.matrix(d[c("x", "y")]), as.matrix(masked[c("x", "y")]),
                        "x", "y", 1:5)
  check_untouched_after(risk_identifiability, d[1:10, ], d, c("k"), "id")
  check_untouched_after(risk_kanon, d, c("k"), NULL, 1, 2)
  check_untouched_after(datafly, d, c("x", "k"),
                        list(x = hierarchy_numeric(c(1, 5)), k = list(identity)), 2)
  check_untouched_after(utility_glm, d, masked, y ~ x)
})

test_that("a masked column holds no original value", {
  # Property: for data with n distinct continuous values, every scheme with
  # a positive degree (every record receiving weight from another record, for
  # the kernels; intervals holding several records, for grouping) gives
  # masked values that differ from the original in the same row and, more
  # strongly, that match no original value of the column at all.
  d <- prop_data()
  schemes <- prop_schemes(d)
  for (nm in names(schemes)) {
    set.seed(1)
    out <- apply_mask(d, schemes[[nm]], c("x", "y"))
    for (v in c("x", "y")) {
      expect_true(all(out[[v]] != d[[v]]), label = paste(nm, v, "row-wise"))
      expect_false(any(out[[v]] %in% d[[v]]), label = paste(nm, v, "anywhere"))
    }
    # the unmasked columns are carried over as they are
    expect_identical(out[c("id", "k", "s1", "s2")], d[c("id", "k", "s1", "s2")])
  }
})

test_that("a release carries no masking parameter", {
  d <- prop_data()
  d_rn <- d
  rownames(d_rn) <- paste0("person", seq_len(nrow(d)))  # row names may identify
  m <- as.matrix(d[c("x", "y")])
  rownames(m) <- rownames(d_rn)
  forbidden <- c("lambda", "kernel", "coords", "scheme", "source", "direction",
                 "groups", "bandwidth", "breaks", "amount", "digits", "A")
  for (s in prop_schemes(d)) {
    out <- apply_mask(d_rn, s, c("x", "y"))
    expect_setequal(names(attributes(out)), names(attributes(d_rn)))
    expect_identical(class(out), class(d_rn))
    expect_identical(rownames(out), rownames(d_rn))
    for (v in names(out)) {
      expect_length(intersect(names(attributes(out[[v]])), forbidden), 0L)
      expect_true(all(names(attributes(out[[v]])) %in% names(attributes(d_rn[[v]]))))
    }
    out_m <- apply_mask(m, s)
    expect_setequal(names(attributes(out_m)), c("dim", "dimnames"))
    expect_identical(rownames(out_m), rownames(m))
    expect_identical(colnames(out_m), colnames(m))
  }
})

test_that("kernel masking and record matching do not depend on the thread count", {
  d <- prop_data(n = 300)
  xy <- cbind(d$s1, d$s2)
  run <- function(threads) {
    old <- options(epimask.threads = threads)
    on.exit(options(old))
    lapply(c("exponential", "ring", "shrink"), function(k)
      apply_mask(d, mask_kernel(k, 0.1, xy, source = c(0.5, 0.5), bandwidth = 0.2),
                 c("x", "y")))
  }
  expect_identical(run(1L), run(2L))
  masked <- apply_mask(d, mask_noise(0.5), c("x", "y"))
  expect_identical(risk_match(d, masked, "x", "y", threads = 1L),
                   risk_match(d, masked, "x", "y", threads = 2L))
})

test_that("noise schemes give the same profile serially and in parallel", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future")
  d <- prop_data(n = 60)
  schemes <- list(mask_noise(0.5), mask_noise(1, "normal", lower = 0), mask_round(1))
  run <- function(parallel) deprecated(ru_profile(d, schemes, y ~ x, vars = c("x", "y"),
                                       known = "x", unknown = "y", nrep = 2,
                                       seed = 5, parallel = parallel, progress = FALSE))
  serial <- run(FALSE)
  old_plan <- future::plan("sequential")
  on.exit(future::plan(old_plan), add = TRUE)
  expect_identical(as.data.frame(run(TRUE)), as.data.frame(serial))
  future::plan("multisession", workers = 2)
  par <- run(TRUE)
  expect_identical(as.data.frame(par), as.data.frame(serial))
  expect_identical(replicates(par), replicates(serial))
  # the seed matters: another one gives other noise
  expect_false(identical(as.data.frame(deprecated(ru_profile(d, schemes[1], y ~ x, vars = c("x", "y"),
                                                  known = "x", unknown = "y", seed = 6,
                                                  progress = FALSE)))$risk,
                         as.data.frame(serial)$risk[1:2]))
})

# Runs `expr` in a forked child, sends it SIGINT after `after` seconds and
# returns how the child ended and how long the interrupt took to act.
interrupt_child <- function(expr, after = 1) {
  job <- parallel::mcparallel(
    tryCatch({ force(expr); "finished" }, interrupt = function(i) "interrupted"),
    silent = TRUE)
  on.exit(tools::pskill(job$pid, tools::SIGKILL), add = TRUE)
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(job$pid, tools::SIGINT)
  res <- parallel::mccollect(job, wait = FALSE, timeout = 10)
  list(result = if (is.null(res)) "no answer" else res[[1]],
       seconds = as.numeric(difftime(Sys.time(), sent, units = "secs")))
}

test_that("the long C loops answer an interrupt", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not(.Platform$OS.type == "unix")
  # the exhaustive matching loop over n records and n targets costs n^2
  # candidate evaluations: at n = 60000 tens of seconds uninterrupted, even on
  # a fast machine (the default tree search with rates only, chosen past 1e9
  # pairs, ends in about a second, too soon to be interrupted)
  set.seed(1)
  n <- 60000
  d <- data.frame(x = runif(n), y = runif(n))
  masked <- d + 0.01
  got <- interrupt_child(risk_match(d, masked, "x", "y", threads = 1L, method = "exhaustive"))
  expect_identical(got$result, "interrupted")
  expect_lt(got$seconds, 5)
  # kernel smoothing with a lambda so large that every record weighs every other
  xy <- cbind(runif(n), runif(n))
  s <- mask_kernel("exponential", 1e3, xy)
  got <- interrupt_child({
    options(epimask.threads = 1L)
    apply_mask(d, s)
  })
  expect_identical(got$result, "interrupted")
  expect_lt(got$seconds, 5)
})
