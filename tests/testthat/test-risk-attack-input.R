# Bad input to the three attacks: classed errors naming the argument, the
# caller's data never modified; the control for each kind of release.

attack_calls <- list(
  singling_out = function(o, r, ...) risk_singling_out(o, r, n_attacks = 50, seed = 1, ...),
  linkability = function(o, r, ...) risk_linkability(o, r, aux = list(c("age", "sex"),
                                                                      c("bmi", "region")),
                                                     n_attacks = 50, seed = 1, ...),
  inference = function(o, r, ...) risk_inference(o, r, aux = c("age", "sex", "region"),
                                                 secret = "bmi", n_attacks = 50, seed = 1, ...))

test_that("a release of 0 or 1 rows, or not a data frame, is a classed error", {
  d <- mixed_data(100, 51)
  for (f in attack_calls) {
    expect_error(f(d, d[0, ]), class = "epimask_error_empty")
    expect_error(f(d, d[1, ]), class = "epimask_error_empty")
    expect_error(f(d, list(1, 2)), class = "epimask_error_type")
    expect_error(f(d[1, ], d), class = "epimask_error_empty")
  }
})

test_that("columns absent from one side name the argument and the data set", {
  d <- mixed_data(100, 52)
  rel <- d
  rel$bmi <- NULL
  err <- tryCatch(attack_calls$linkability(d, rel), error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_identical(err$arg, "aux")
  expect_match(conditionMessage(err), "`release`.*bmi")
  err <- tryCatch(attack_calls$inference(d, rel), error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_identical(err$arg, "secret")
  expect_error(risk_singling_out(d, d, columns = "nope", seed = 1), class = "epimask_error_name")
  ctrl <- mixed_data(50, 53)
  ctrl$sex <- NULL
  err <- tryCatch(attack_calls$linkability(d, d, control = ctrl), error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_match(conditionMessage(err), "`control`")
})

test_that("a control that overlaps the released records is a classed error", {
  d <- mixed_data(300, 54, dup = FALSE)
  for (f in attack_calls) {
    err <- tryCatch(f(d, d, control = d[1:60, ]), error = identity)
    expect_s3_class(err, "epimask_error_value")
    expect_identical(err$arg, "control")
    expect_match(conditionMessage(err), "overlaps")
  }
  # persons: one shared person is enough
  d$pid <- seq_len(300)
  ctrl <- mixed_data(50, 55, dup = FALSE)
  ctrl$pid <- c(1L, 1000 + seq_len(49))
  err <- tryCatch(attack_calls$inference(d, d, control = ctrl, id = "pid"), error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_match(conditionMessage(err), "shares 1 person")
  # records equal by chance (categories only: many twins) are not an overlap
  cat_o <- data.frame(sex = sample(c("f", "m"), 500, TRUE), region = sample(letters[1:3], 500, TRUE),
                      age = sample(1:3, 500, TRUE), bmi = sample(1:2, 500, TRUE))
  cat_c <- cat_o[sample.int(500, 200, TRUE), ]
  cat_c2 <- data.frame(sex = sample(c("f", "m"), 200, TRUE), region = sample(letters[1:3], 200, TRUE),
                       age = sample(1:3, 200, TRUE), bmi = sample(1:2, 200, TRUE))
  expect_s3_class(attack_calls$linkability(cat_o, cat_o, control = cat_c2), "epimask_attack")
})

test_that("n_cols larger than the columns, bad counts and options are classed errors", {
  d <- mixed_data(100, 56)
  err <- tryCatch(risk_singling_out(d, d, mode = "multivariate", n_cols = 20, seed = 1),
                  error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_identical(err$arg, "n_cols")
  expect_error(risk_singling_out(d, d, n_attacks = 0), class = "epimask_error_value")
  expect_error(risk_singling_out(d, d, mode = "bivariate"), class = "epimask_error_value")
  expect_error(risk_singling_out(d, d, options = list()), class = "epimask_error_type")
  expect_error(attack_options(holdout = 1), class = "epimask_error_value")
  expect_error(attack_options(na = "drop"), class = "epimask_error_value")
  expect_error(risk_linkability(d, d, aux = c("age", "sex")), class = "epimask_error_type")
  expect_error(risk_linkability(d, d, aux = list("age", character())), class = "epimask_error_type")
  expect_error(risk_linkability(d, d, aux = list("age", "sex"), n_neighbors = 1000),
               class = "epimask_error_value")
  expect_error(risk_inference(d, d, aux = "age", secret = "age"), class = "epimask_error_value")
  expect_error(risk_inference(d, d, aux = "age", secret = "bmi", tolerance = -1),
               class = "epimask_error_value")
  expect_error(risk_inference(d, d, aux = "age"), class = "epimask_error_type")
})

test_that("a column missing in every record is a classed error naming the data set", {
  d <- mixed_data(100, 57)
  rel <- d
  rel$bmi <- NA_real_
  for (f in attack_calls) {
    err <- tryCatch(f(d, rel), error = identity)
    expect_s3_class(err, "epimask_error_value")
    expect_identical(err$arg, "release")
    expect_match(conditionMessage(err), "'bmi' is missing")
  }
  o <- d
  o$region <- NA_character_
  err <- tryCatch(attack_calls$linkability(o, d), error = identity)
  expect_identical(err$arg, "original")
})

test_that("a column of one kind in the original and another in the release is a classed error", {
  d <- mixed_data(100, 58)
  rel <- d
  rel$age <- as.character(cut(rel$age, c(0, 40, 60, 100)))
  err <- tryCatch(attack_calls$linkability(d, rel), error = identity)
  expect_s3_class(err, "epimask_error_attack_coding")
  expect_match(conditionMessage(err), "generalize")
})

test_that("a release of new records needs a control; control rows are checked", {
  d <- mixed_data(200, 59)
  other <- mixed_data(150, 60)
  for (f in attack_calls) {
    err <- tryCatch(f(d, other), error = identity)
    expect_s3_class(err, "epimask_error_value")
    expect_identical(err$arg, "control")
    expect_match(conditionMessage(err), "Hold records out BEFORE")
  }
  expect_error(attack_calls$inference(d, d, control = 0:3), class = "epimask_error_value")
  expect_error(attack_calls$inference(d, d, control = c(1, 1, 2)), class = "epimask_error_value")
  expect_error(attack_calls$inference(d, d, control = seq_len(200)), class = "epimask_error_value")
  expect_error(attack_calls$inference(d, d, control = "a"), class = "epimask_error_type")
  # a person is held out whole
  d$pid <- rep(1:100, each = 2)
  expect_error(attack_calls$inference(d, d, control = 1:3, id = "pid"),
               class = "epimask_error_value")
  # singling out on new records needs a control as large as the records behind them
  err <- tryCatch(risk_singling_out(d, other, control = mixed_data(50, 61), seed = 1),
                  error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_match(conditionMessage(err), "smaller than the records behind")
})

test_that("nothing the caller gave is modified, nor the caller's generator", {
  d <- mixed_data(200, 62)
  rel <- d
  rel$age <- rel$age + 1
  ctrl <- mixed_data(80, 63)
  d0 <- d
  rel0 <- rel
  ctrl0 <- ctrl
  set.seed(7)
  seed0 <- .Random.seed
  for (f in attack_calls) {
    f(d, rel)
    f(d, rel, control = ctrl)
  }
  expect_identical(d, d0)
  expect_identical(rel, rel0)
  expect_identical(ctrl, ctrl0)
  expect_identical(.Random.seed, seed0)
})

test_that("a synthetic release: its copies are attacked together, its hold-out is the control", {
  d <- mixed_data(400, 64)
  held <- sort(sample.int(400, 200))
  copies <- lapply(1:2, function(i) {
    s <- d[-held, ]
    s$age <- sample(s$age)
    s$bmi <- sample(s$bmi)
    rownames(s) <- NULL
    s
  })
  syn <- structure(list(copies = copies, holdout = held), class = "epimask_synthetic")
  for (f in attack_calls) {
    res <- f(d, syn)
    expect_identical(res$control_source, "synthetic")
    expect_identical(res$rows$control, held)
    expect_identical(res$n_release, 400L)
    expect_identical(res$copies, 2L)
    expect_match(format(res)[[1]], "2 synthetic copies")
  }
  # without a hold-out there is no control to be had
  bare <- structure(list(copies = copies), class = "epimask_synthetic")
  expect_error(attack_calls$linkability(d, bare), "recorded no hold-out",
               class = "epimask_error_value")
})

test_that("a deidentify()-style release without the original's rows needs a control", {
  d <- mixed_data(300, 65)
  # the release dropped 10 of the 200 records it was made from
  rel <- structure(list(data = d[101:290, ]), class = "epimask_release")
  expect_error(attack_calls$inference(d[101:300, ], rel), class = "epimask_error_value")
  res <- attack_calls$inference(d[101:300, ], rel, control = d[1:100, ])
  expect_identical(res$release_kind, "deidentified")
})

test_that("one person cannot be split into targets and a control", {
  d <- mixed_data(10, 66)
  d$pid <- 1L
  err <- tryCatch(risk_inference(d, d, aux = "age", secret = "bmi", id = "pid", seed = 1),
                  error = identity)
  expect_s3_class(err, "epimask_error_empty")
  expect_identical(err$arg, "original")
})

test_that("a synthetic release with a control given: its own hold-out is not a target", {
  d <- mixed_data(300, 67)
  held <- 1:100
  syn <- structure(list(copies = list(d[-held, ]), holdout = held), class = "epimask_synthetic")
  ctrl <- mixed_data(150, 68)
  res <- risk_linkability(d, syn, control = ctrl, aux = list("age", "bmi"), seed = 1)
  expect_identical(res$rows$target, 101:300)
  expect_identical(res$control_source, "data")
})
