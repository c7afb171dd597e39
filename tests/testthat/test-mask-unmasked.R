# No record released unmasked in silence, and hand-edited schemes fail like
# bad constructor calls (issue "Reliability").

isolated_by_distance <- function(xy, lambda, cutoff = 36) {
  D <- as.matrix(dist(xy))
  diag(D) <- Inf
  which(apply(D, 1, min) / lambda > cutoff)
}

test_that("isolated records under a kernel are counted, named and handled", {
  set.seed(11)
  xy <- cbind(runif(40), runif(40))
  d <- data.frame(x = rnorm(40), y = rnorm(40))
  lambda <- 0.005
  want <- isolated_by_distance(xy, lambda)
  expect_gt(length(want), 0L)
  s <- mask_kernel("exponential", lambda, xy)
  w <- expect_warning(out <- apply_mask(d, s), class = "epimask_warning_unmasked")
  expect_match(conditionMessage(w), sprintf("^%d of 40 records", length(want)))
  expect_match(conditionMessage(w), "lambda")
  unchanged <- which(out$x == d$x & out$y == d$y)
  expect_identical(unchanged, unname(want))
  expect_error(apply_mask(d, s, unmasked = "error"), class = "epimask_error_unmasked")
  sup <- apply_mask(d, s, unmasked = "suppress")
  expect_true(all(is.na(sup$x[want])) && all(is.na(sup$y[want])))
  expect_identical(sup$x[-want], out$x[-want])
  # a small cutoff is named as the cause, not lambda
  w2 <- expect_warning(apply_mask(d, mask_kernel("ring", 0.05, xy, source = c(0.5, 0.5),
                                                 cutoff = 0.5)),
                       class = "epimask_warning_unmasked")
  expect_match(conditionMessage(w2), "cutoff")
  # a constant column cannot identify anyone and is not counted
  expect_no_warning(apply_mask(data.frame(x = rep(1, 40)), s))
})

test_that("noise below the precision of large values is reported", {
  big <- data.frame(x = c(1e17, -3e17, 2.5))
  set.seed(1)
  w <- expect_warning(out <- apply_mask(big, mask_noise(0.5)), class = "epimask_warning_unmasked")
  expect_match(conditionMessage(w), "^2 of 3 records")
  expect_match(conditionMessage(w), "amount")
  expect_identical(out$x[1:2], big$x[1:2])
  set.seed(1)
  expect_warning(tiny <- apply_mask(data.frame(x = c(1, 2, 3)), mask_noise(1e-300)),
                 class = "epimask_warning_nomask")
  expect_identical(tiny$x, c(1, 2, 3))
  set.seed(1)
  sup <- apply_mask(big, mask_noise(0.5), unmasked = "suppress")
  expect_true(all(is.na(sup$x[1:2])) && !is.na(sup$x[3]))
  # missing and infinite originals say nothing either way: only the 1e17 record
  set.seed(2)
  w <- expect_warning(apply_mask(data.frame(x = c(NA, 1e17, 2, Inf)), mask_noise(0.5)),
                      class = "epimask_warning_unmasked")
  expect_match(conditionMessage(w), "^1 of 4 records")
  # correlated noise leaves a column without variance as it is, by design
  set.seed(3)
  expect_no_warning(apply_mask(data.frame(x = rnorm(20), k = 3), mask_noise(0.5, "correlated")))
  # values at the floor of floored noise stay there by design: not reported
  expect_no_warning(apply_mask(data.frame(x = c(0, 0, 0, 1, 2)), mask_noise(0.5, lower = 0)))
})

test_that("identity rows of a matrix mask are reported", {
  A <- diag(4)
  A[1:2, 1:2] <- 0.5
  d <- data.frame(x = c(1, 2, 3, 4))
  w <- expect_warning(out <- apply_mask(d, mask_matrix(A)), class = "epimask_warning_unmasked")
  expect_match(conditionMessage(w), "^2 of 4 records")
  expect_identical(out$x[3:4], c(3, 4))
})

test_that("schemes that do not promise change stay quiet", {
  d <- data.frame(x = c(1, 2, 3.5))
  expect_no_warning(apply_mask(d, mask_round(1, "decimal")))
  expect_no_warning(apply_mask(d, mask_group(c(0, 2, 4))))
  expect_no_warning(apply_mask(d, mask_none()))
  expect_error(apply_mask(d, mask_round(1), unmasked = "maybe"), class = "epimask_error_value")
})

test_that("hand-edited scheme fields give classed errors naming the field", {
  set.seed(3)
  xy <- cbind(runif(30), runif(30))
  d <- data.frame(x = rnorm(30))
  base <- mask_kernel("ring_angle", 0.05, xy, source = c(0.5, 0.5), direction = c(1, 0))
  edits <- list(source = list(NA, Inf, numeric(0), -1, "a", NULL),
                direction = list(NA, -1, Inf, numeric(0), c(0, 0), NULL),
                lambda = list(NA, -1, Inf, "a", NULL),
                cutoff = list(0, -1, NA),
                coords = list(rbind(xy[-1, ], c(NA, 1)), NULL, "a", xy[, 1, drop = FALSE] * Inf),
                kernel = list("nope", NA, NULL))
  for (field in names(edits)) {
    for (value in edits[[field]]) {
      s <- base
      s[field] <- list(value)
      if (is.null(value)) s[[field]] <- NULL
      e <- expect_error(apply_mask(d, s), class = "epimask_error")
      expect_identical(e$arg, paste0("scheme$", field))
    }
  }
  s <- base
  s$type <- "warp"
  expect_error(apply_mask(d, s), class = "epimask_error_value")
  r <- mask_round(2)
  r$digits <- NA
  e <- expect_error(apply_mask(d, r), class = "epimask_error")
  expect_identical(e$arg, "scheme$digits")
  n <- mask_noise(1)
  n$amount <- -1
  expect_error(apply_mask(d, n), class = "epimask_error_value")
  g <- mask_group(c(-10, 0, 10))
  g$breaks <- c(1, 0)
  expect_error(apply_mask(d, g), class = "epimask_error_value")
})
