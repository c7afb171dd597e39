# Release context (methods vignette section 17): each attack's risk is Pr(re-id | attack) x
# Pr(attack), computed here by hand from the class sizes (table()), the
# overall risk is the largest, pass / fail flips exactly at the threshold.

# One key, classes of the given sizes (class j has value j).
classes_of <- function(sizes) data.frame(key = rep(seq_along(sizes), sizes))

# Strict average and maximum risk from the class sizes written out by hand.
by_hand <- function(sizes) {
  max_risk <- 1 / min(sizes)
  avg <- length(sizes) / sum(sizes)
  list(max = max_risk, strict = if (min(sizes) >= 3) avg else max_risk)
}

test_that("each attack's risk is the strict average risk times its probability", {
  for (sizes in list(1:10, 3:10, c(4, 4, 7, 10, 3))) {
    d <- classes_of(sizes)
    ref <- by_hand(sizes)
    ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.6, pr_breach = 0.27)
    r <- risk_release(d, "key", ctx)
    expect_equal(r$attacks$attack, c("deliberate", "inadvertent", "breach"))
    expect_equal(r$attacks$pr_attack, c(0.3, 0.6, 0.27))
    expect_equal(r$attacks$pr_reid_given, rep(ref$strict, 3))
    expect_equal(r$attacks$risk, c(0.3, 0.6, 0.27) * ref$strict)
    expect_equal(r$overall, 0.6 * ref$strict)
    # and against risk_kanon() itself
    k <- risk_kanon(d, "key")
    expect_equal(r$attacks$risk, c(0.3, 0.6, 0.27) * k$strict_avg_risk)
  }
})

test_that("with classes of 3 or more the strict average is the average J / n", {
  r <- risk_release(classes_of(3:10), "key",
                    release_context(pr_attempt = 1, pr_acquaintance = 0))
  expect_equal(r$attacks$pr_reid_given[[1]], 8 / 52)
  # with a unique it is the maximum risk, 1
  r1 <- risk_release(classes_of(1:10), "key",
                     release_context(pr_attempt = 1, pr_acquaintance = 0))
  expect_equal(r1$attacks$pr_reid_given[[1]], 1)
})

test_that("a breach may take the maximum risk", {
  sizes <- 3:10
  ctx <- release_context(pr_attempt = 0.1, pr_acquaintance = 0.1, pr_breach = 0.5,
                         breach_risk = "maximum")
  r <- risk_release(classes_of(sizes), "key", ctx)
  expect_equal(r$attacks$risk, c(0.1 * 8 / 52, 0.1 * 8 / 52, 0.5 / 3))
  expect_equal(r$overall, 0.5 / 3)
})

test_that("a public release uses the maximum risk and the strictest threshold", {
  ctx <- release_context(public = TRUE)
  expect_equal(ctx$threshold, 1 / 20)
  for (sizes in list(1:10, 3:10, 20:25)) {
    r <- risk_release(classes_of(sizes), "key", ctx)
    expect_equal(r$attacks$attack, "public")
    expect_equal(r$attacks$risk, 1 / min(sizes))
    expect_equal(r$overall, 1 / min(sizes))
    expect_identical(r$pass, 1 / min(sizes) <= 1 / 20)
  }
  expect_warning(release_context(public = TRUE, threshold = 1/5), class = "epimask_warning_threshold")
  expect_error(release_context(public = TRUE, pr_attempt = 0.2), class = "epimask_error_value")
})

test_that("the overall risk is the largest attack's", {
  set.seed(3)
  for (i in 1:20) {
    sizes <- sample(1:10, 6, replace = TRUE)
    p <- stats::runif(3)
    r <- risk_release(classes_of(sizes), "key",
                      release_context(pr_attempt = p[1], pr_acquaintance = p[2], pr_breach = p[3]))
    expect_equal(r$overall, max(p) * by_hand(sizes)$strict)
  }
})

test_that("pass / fail flips exactly at the threshold", {
  sizes <- c(5, 5, 5, 5)           # strict average = average = 4 / 20 = 0.2
  d <- classes_of(sizes)
  at <- release_context(pr_attempt = 1, pr_acquaintance = 0, pr_breach = 0, threshold = 0.2)
  expect_equal(risk_release(d, "key", at)$overall, 0.2)
  expect_true(risk_release(d, "key", at)$pass)
  below <- release_context(pr_attempt = 1, pr_acquaintance = 0, pr_breach = 0,
                           threshold = 0.2 - 1e-9)
  expect_false(risk_release(d, "key", below)$pass)
  # the same through the probability: 0.5 x 0.2 = 0.1 against 1/11 and 1/5
  half <- function(th) release_context(pr_attempt = 0.5, pr_acquaintance = 0,
                                       pr_breach = 0, threshold = th)
  expect_false(risk_release(d, "key", half(1 / 11))$pass)
  expect_true(risk_release(d, "key", half(0.1))$pass)
  expect_false(risk_release(d, "key", half(0.1 - 1e-12))$pass)
})

test_that("non-public contexts need the custodian's probabilities", {
  e <- tryCatch(release_context(pr_acquaintance = 0.5), error = identity)
  expect_s3_class(e, "epimask_error_value")
  expect_identical(e$arg, "pr_attempt")
  expect_match(conditionMessage(e), "pr_attempt")
  e <- tryCatch(release_context(pr_attempt = 0.5), error = identity)
  expect_s3_class(e, "epimask_error_value")
  expect_identical(e$arg, "pr_acquaintance")
  expect_error(release_context(pr_attempt = 2, pr_acquaintance = 0.1), class = "epimask_error_value")
  expect_error(release_context(pr_attempt = 0.2, pr_acquaintance = 0.1, threshold = 0),
               class = "epimask_error_value")
  expect_error(release_context(pr_attempt = 0.2, pr_acquaintance = 0.1, reasons = 3),
               class = "epimask_error_type")
  expect_error(risk_release(classes_of(1:3), "key", list(threshold = 0.2)),
               class = "epimask_error_type")
})

test_that("print, format and summary state the context and the decision", {
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 1/11,
                         reasons = "audited recipient")
  out <- format(ctx)
  expect_type(out, "character")
  expect_true(any(grepl("1/11", out)))
  expect_true(any(grepl("audited recipient", out)))
  expect_output(print(ctx), "Pr\\(attempt\\) 0.3")
  odd <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.15)
  expect_true(any(grepl("not one of the bins", format(odd))))
  r <- risk_release(classes_of(3:10), "key", ctx)
  expect_type(format(r), "character")
  expect_output(print(r), "0.0769 \\(inadvertent\\) <= threshold 1/11 \\(0.0909\\): PASS")
  expect_output(print(risk_release(classes_of(1:3), "key", ctx)), "FAIL")
  expect_output(print(summary(r)), "smallest 3")
  expect_identical(as.data.frame(r), r$attacks)
})
