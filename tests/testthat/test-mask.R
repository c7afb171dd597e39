# Classical masks against signif/round/trunc and interval means computed in R;
# apply_mask's contract (class, shape, order, names, input untouched).

test_that("rounding and truncation equal signif, round and trunc", {
  set.seed(1)
  x <- c(rexp(50, 0.3), -rexp(10), 0, NA)
  d <- data.frame(x = x, y = x * 100)
  out <- apply_mask(d, mask_round(2))
  expect_identical(out$x, signif(x, 2))
  expect_identical(out$y, signif(x * 100, 2))
  expect_identical(apply_mask(d, mask_round(1, "decimal"))$x, round(x, 1))
  expect_identical(apply_mask(d, mask_round(-1, "decimal"))$y, round(x * 100, -1))
  expect_identical(apply_mask(d, mask_truncate())$x, trunc(x))
  expect_identical(apply_mask(d, mask_truncate(2))$y, trunc(x * 100 * 100) / 100)
})

# interval means by an explicit loop over the intervals
ref_group <- function(x, breaks, reference = x, midpoint = FALSE) {
  nb <- length(breaks)
  out <- rep(NA_real_, length(x))
  for (j in seq_len(nb - 1)) {
    last <- j == nb - 1
    inside <- function(v) !is.na(v) & v >= breaks[j] & (v < breaks[j + 1] | (last & v == breaks[j + 1]))
    level <- if (midpoint) (breaks[j] + breaks[j + 1]) / 2 else mean(reference[inside(reference)])
    out[inside(x)] <- level
  }
  out
}

test_that("grouping means by hand: missing values, an interval without reference values", {
  d <- data.frame(x = c(0.5, 1.5, NA, 2.5, 0.2))
  br <- c(0, 1, 2, 3)
  expect_equal(apply_mask(d, mask_group(br))$x, c(0.35, 1.5, NA, 2.5, 0.35))
  expect_warning(got <- apply_mask(d, mask_group(br, reference = c(0.1, 0.3, NA, 2.9)))$x,
                 class = "epimask_warning_reference")
  expect_equal(got, c(0.2, 1.5, NA, 2.9, 0.2))
})

test_that("grouping equals interval means and midpoints computed in R", {
  set.seed(2)
  x <- c(runif(200, 0, 4), 0, 4, 1, NA)
  br <- c(0, 0.5, 1, 2, 4)
  d <- data.frame(dose = x)
  expect_equal(apply_mask(d, mask_group(br))$dose, ref_group(x, br))
  expect_equal(apply_mask(d, mask_group(br, "midpoint"))$dose, ref_group(x, br, midpoint = TRUE))
  ref <- runif(5000, 0, 4)
  expect_equal(apply_mask(d, mask_group(br, reference = ref))$dose, ref_group(x, br, ref))
  two <- data.frame(a = x, b = 4 - x)
  got <- apply_mask(two, mask_group(br, reference = list(a = ref, b = 4 - ref)))
  expect_equal(got$b, ref_group(4 - x, br, 4 - ref))
  expect_equal(apply_mask(d, mask_group(c(-Inf, 1, Inf)))$dose,
               ref_group(x, c(-Inf, 1, Inf)))
})

test_that("grouping: values outside the breaks are an error, empty reference intervals warn", {
  d <- data.frame(dose = c(0.2, 5))
  e <- expect_error(apply_mask(d, mask_group(c(0, 1, 2))), class = "epimask_error_value")
  expect_identical(e$arg, "data")
  expect_warning(out <- apply_mask(data.frame(dose = c(0.2, 1.5)),
                                   mask_group(c(0, 1, 2), reference = c(0.1, 0.3))),
                 class = "epimask_warning_reference")
  expect_equal(out$dose, c(0.2, 1.5))
  expect_error(mask_group(c(1, 0)), class = "epimask_error_value")
  expect_error(mask_group(1), class = "epimask_error_type")
})

test_that("noise equals runif / rnorm draws and reproduces under set.seed", {
  x <- c(0.1, 0.5, 2, 3, 0)
  d <- data.frame(a = x, b = x + 1)
  set.seed(10)
  got <- apply_mask(d, mask_noise(0.4, lower = 0))
  set.seed(10)
  ea <- runif(5, -0.4, 0.4)
  eb <- runif(5, -0.4, 0.4)
  expect_identical(got$a, pmax(x + ea, 0))
  expect_identical(got$b, pmax(x + 1 + eb, 0))
  set.seed(11)
  got <- apply_mask(d, mask_noise(2, "normal"))
  set.seed(11)
  expect_identical(got$a, x + rnorm(5, 0, 2))
  set.seed(5)
  r1 <- apply_mask(d, mask_noise(1))
  set.seed(5)
  expect_identical(apply_mask(d, mask_noise(1)), r1)
})

test_that("mask_none and mask_matrix", {
  d <- data.frame(x = c(1, 2, 3), y = c(4, 5, 9), s = c("a", "b", "c"))
  expect_identical(apply_mask(d, mask_none()), d)
  A <- matrix(c(0.5, 0.5, 0, 0.25, 0.5, 0.25, 0, 0.5, 0.5), 3, byrow = TRUE)
  B <- matrix(c(1, 0.1, 0, 1), 2)
  got <- apply_mask(d, mask_matrix(A, B, C = c(1, -1)))
  want <- A %*% cbind(d$x, d$y) %*% B + matrix(c(1, -1), 3, 2, byrow = TRUE)
  expect_equal(cbind(got$x, got$y), unname(want))
  fA <- function(lambda) (diag(3) + lambda * matrix(1, 3, 3)) / (1 + 3 * lambda)
  sch <- mask_matrix(fA, lambda = 0.5)
  expect_identical(sch$degree, 0.5)
  expect_equal(kernel_matrix(sch), fA(0.5))
  expect_equal(apply_mask(d, sch)$x, drop(fA(0.5) %*% d$x))
  expect_equal(kernel_matrix(epimask:::scheme_at(sch, 0)), diag(3))
  expect_error(mask_matrix(function(x) x, lambda = 1), class = "epimask_error_type")
  expect_error(mask_matrix(fA), class = "epimask_error_type")
  expect_error(mask_matrix(matrix(1, 2, 3)), class = "epimask_error_length")
  expect_error(apply_mask(d, mask_matrix(diag(4))), class = "epimask_error_length")
})

test_that("apply_mask keeps class, shape, order and names and never modifies the input", {
  set.seed(3)
  xy <- matrix(runif(40), ncol = 2)
  d <- data.frame(id = letters[1:20], age = 31:50, dose = rexp(20), sex = rep(c("m", "f"), 10))
  rownames(d) <- paste0("p", 1:20)
  d0 <- d
  sch <- mask_kernel("exponential", 0.2, xy)
  out <- apply_mask(d, sch)
  expect_identical(d, d0)
  expect_identical(class(out), class(d))
  expect_identical(names(out), names(d))
  expect_identical(out$id, d$id)
  expect_identical(out$sex, d$sex)
  expect_true(is.double(out$age))
  expect_equal(out$dose, drop(kernel_matrix(sch) %*% d$dose))
  expect_identical(attr(out, "row.names"), paste0("p", 1:20))
  expect_setequal(names(attributes(out)), c("names", "class", "row.names"))
  only <- apply_mask(d, sch, vars = "dose")
  expect_identical(only$age, d$age)

  m <- cbind(a = d$age, b = d$dose)
  rownames(m) <- d$id
  mo <- apply_mask(m, sch)
  expect_true(is.matrix(mo))
  expect_identical(colnames(mo), c("a", "b"))
  expect_identical(rownames(mo), d$id)
  expect_identical(names(attributes(mo)), c("dim", "dimnames"))
  expect_equal(unname(apply_mask(m, sch, "b")[, "a"]), d$age)
})

test_that("tibble and data.table in, same class out, input untouched", {
  d <- data.frame(x = c(1.26, 2.34, 3.41), g = c("a", "b", "c"))
  skip_if_not_installed("tibble")
  tb <- tibble::as_tibble(d)
  out <- apply_mask(tb, mask_round(1, "decimal"))
  expect_s3_class(out, "tbl_df")
  expect_identical(out$x, round(d$x, 1))
  expect_identical(tb$x, d$x)
  skip_if_not_installed("data.table")
  dt <- data.table::as.data.table(d)
  dt0 <- data.table::copy(dt)
  out <- apply_mask(dt, mask_round(1, "decimal"))
  expect_s3_class(out, "data.table")
  expect_identical(out$x, round(d$x, 1))
  expect_identical(dt, dt0)
  # the result is a proper data.table: adding a column by reference works silently
  expect_silent(data.table::set(out, j = "y", value = 1))
  expect_false("y" %in% names(dt))
})

test_that("apply_mask: classed errors for bad vars and data", {
  d <- data.frame(x = 1:3, s = c("a", "b", "c"))
  e <- expect_error(apply_mask(d, mask_round(1), "s"), class = "epimask_error_type")
  expect_identical(e$arg, "vars")
  e <- expect_error(apply_mask(d, mask_round(1), "zz"), class = "epimask_error_name")
  expect_identical(e$arg, "vars")
  expect_error(apply_mask(data.frame(s = "a"), mask_round(1)), class = "epimask_error_empty")
  expect_error(apply_mask(d[0, ], mask_round(1)), class = "epimask_error_empty")
  expect_error(apply_mask(1:3, mask_round(1)), class = "epimask_error_type")
  expect_error(apply_mask(d, "round"), class = "epimask_error_type")
  expect_error(mask_round(0), class = "epimask_error_value")
  expect_error(mask_round(1.5), class = "epimask_error_value")
  expect_error(mask_noise(-1), class = "epimask_error_value")
  expect_error(mask_noise(1, "cauchy"), class = "epimask_error_value")
})

test_that("schemes print readably and expose degree and label", {
  fx <- kernel_fixture(20)
  expect_identical(format(mask_kernel("ring", 0.05, fx$xy, source = c(0, 0))),
                   "ring kernel, lambda = 0.05")
  expect_output(print(mask_round(2)), "rounding to 2 significant digits")
  expect_identical(format(mask_round(1, "decimal")), "rounding to 1 decimal place")
  # negative decimal digits are powers of ten, said as such
  expect_identical(format(mask_round(-1, "decimal")), "rounding to the nearest 10")
  expect_identical(format(mask_round(-3, "decimal")), "rounding to the nearest 1,000")
  expect_identical(format(mask_truncate(-2)), "truncation to a multiple of 100")
  expect_identical(format(mask_truncate(0)), "truncation to 0 decimal places")
  expect_identical(format(mask_noise(0.5, lower = 0)), "uniform noise, amount = 0.5, lower bound 0")
  expect_identical(format(mask_group(c(0, 1, 3))), "grouping into 2 intervals (interval means)")
  expect_identical(format(mask_none()), "no masking")
  expect_identical(mask_round(3)$degree, 3)
  expect_identical(mask_noise(0.2)$degree, 0.2)
  expect_identical(mask_group(c(0, 1, 3))$degree, 1.5)
  expect_identical(mask_truncate(1)$label, "truncate 1")
  l <- c(mask_none(), mask_round(2))
  expect_s3_class(l, "mask_list")
  expect_identical(names(l), c("none", "round 2"))
})

test_that("apply_mask keeps the caller's row names and attributes on every path and for every type", {
  set.seed(37)
  n <- 12
  d <- data.frame(pid = rep(sprintf("P%02d", 1:4), each = 3), x = round(rnorm(n, 10), 2),
                  y = rpois(n, 3) + 0.5, seen = as.Date("2020-01-01") + sample(0:300, n),
                  g = factor(sample(c("a", "b", "c"), n, TRUE)))
  rownames(d) <- sprintf("visit-%03d", seq_len(n) * 7L)
  attr(d, "source") <- "trial 7, extract of 2026-12-01"
  d0 <- d
  coords <- cbind(seq_len(n), (seq_len(n) %% 5)^2)
  cases <- list(
    list(mask_none(), c("x", "y")), list(mask_round(1), c("x", "y")),
    list(mask_truncate(0), c("x", "y")), list(mask_group(c(0, 10, 20)), "x"),
    list(mask_noise(0.5), c("x", "y")), list(mask_noise(0.1, dist = "correlated"), c("x", "y")),
    list(mask_microagg(3), c("x", "y")), list(mask_swap(20), c("x", "y")),
    list(mask_topcode(upper = 11), "x"), list(mask_matrix(diag(n) * 0.5 + 0.5 / n), c("x", "y")),
    list(mask_kernel("exponential", 0.3, coords), c("x", "y")),
    list(mask_pram(0.8), "g"), list(mask_none(), "g"),
    # dates: per person (one shift each), rounded, truncated and top-coded
    list(mask_noise(7, by = "pid"), "seen"), list(mask_round(unit = "month"), "seen"),
    list(mask_truncate(unit = "year"), "seen"), list(mask_topcode(upper = as.Date("2020-06-30")), "seen"),
    # records left unmasked set to NA
    list(mask_noise(0.5), "x", "suppress"))
  for (case in cases) {
    s <- case[[1L]]
    how <- if (length(case) > 2L) case[[3L]] else "warn"
    out <- suppressWarnings(apply_mask(d, s, case[[2L]], unmasked = how))
    what <- paste(format(s), "on", paste(case[[2L]], collapse = ", "))
    expect_identical(rownames(out), rownames(d), label = what)
    expect_identical(attr(out, "source"), attr(d, "source"), label = what)
    expect_setequal(names(attributes(out)), names(attributes(d)))
    kept <- setdiff(names(d), case[[2L]])
    expect_identical(out[kept], d[kept], label = what)
    expect_identical(d, d0)
  }
  # a matrix keeps its row names; a tibble and a data.table their class
  m <- as.matrix(d[c("x", "y")])
  expect_identical(dimnames(apply_mask(m, mask_round(2))), dimnames(m))
  expect_identical(rownames(apply_mask(m, mask_kernel("exponential", 0.3, coords))), rownames(m))
  skip_if_not_installed("data.table")
  dt <- data.table::as.data.table(d)
  out <- apply_mask(dt, mask_noise(7, by = "pid"), "seen")
  expect_s3_class(out, "data.table")
  expect_identical(out$pid, dt$pid)
})
