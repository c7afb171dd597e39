# risk_identifiability() against the Cologne Table 1 arithmetic and a
# brute-force count of exact matches.

test_that("Cologne Table 1(a): 35 unique, 3 double, 1 triple among 64 give 0.5755 (0.58)", {
  fx <- cologne_fixture()
  r <- risk_identifiability(fx$released, fx$source, keys = "dose", id = "id")
  expect_equal(r$score, (35 + 3 / 2 + 1 / 3) / 64)
  expect_equal(round(r$score, 2), 0.58)
  expect_equal(r$anonymity, 1 - r$score)
  expect_equal(r$perceived, r$score)
  cnt <- r$counts
  expect_identical(cnt$matches, 0:3)
  expect_identical(cnt$records, c(25L, 35L, 3L, 1L))
  expect_identical(cnt$true_match, c(0L, 35L, 3L, 1L))
  expect_equal(cnt$risk, c(0, 1, 1 / 2, 1 / 3))
  # without id: the worst case, every match assumed correct
  no_id <- risk_identifiability(fx$released, fx$source, keys = "dose")
  expect_equal(no_id$score, r$score)
  expect_false(no_id$id_used)
  expect_true(all(is.na(no_id$records$true_match)))
})

test_that("a match that is not the true person counts for the perceived score only", {
  # Cologne Table 1(b), all organ doses: 6 unique, 5 double, 1 triple chance matches
  source <- data.frame(id = 1:100, dose = c(1:6, rep(7:11, each = 2), rep(12, 3),
                                            seq(100, by = 1, length.out = 81)))
  released <- data.frame(id = 1001:1064, dose = c(1:12, 500 + 1:52))
  r <- risk_identifiability(released, source, "dose", id = "id")
  expect_identical(r$score, 0)
  expect_identical(r$anonymity, 1)
  expect_equal(r$perceived, (6 + 5 / 2 + 1 / 3) / 64)
  expect_equal(round(r$perceived, 2), 0.14)
  expect_identical(r$counts$true_match, c(0L, 0L, 0L, 0L))
  # mixing: person 1 released with its own value, person 2 with someone else's
  rel <- data.frame(id = c(1L, 2L), dose = c(1, 3))
  r2 <- risk_identifiability(rel, source, "dose", id = "id")
  expect_identical(r2$records$true_match, c(TRUE, FALSE))
  expect_identical(r2$records$risk, c(1, 0))
  expect_identical(r2$records$perceived_risk, c(1, 1))
  expect_equal(r2$score, 0.5)
  expect_equal(r2$perceived, 1)
})

test_that("match counts on several keys equal a double loop", {
  set.seed(12)
  source <- data.frame(pid = sample(1e5, 600), city = sample(c("H", "N"), 600, TRUE),
                       sex = factor(sample(c("m", "f"), 600, TRUE)),
                       dose = round(rexp(600), 1))
  released <- source[sample(600, 50), ]
  released$dose[1:10] <- released$dose[1:10] + 0.05
  keys <- c("city", "sex", "dose")
  r <- risk_identifiability(released, source, keys, id = "pid")
  same <- function(i) source$city == released$city[i] & source$sex == released$sex[i] &
    source$dose == released$dose[i]
  m <- vapply(seq_len(50), function(i) sum(same(i)), numeric(1))
  truth <- vapply(seq_len(50), function(i) released$pid[i] %in% source$pid[same(i)],
                  logical(1))
  expect_identical(r$records$matches, as.integer(m))
  expect_identical(r$records$true_match, truth)
  expect_equal(r$score, sum(ifelse(truth, 1 / m, 0)) / 50)
  expect_equal(r$perceived, sum(ifelse(m > 0, 1 / m, 0)) / 50)
  expect_identical(sum(r$counts$records), 50L)
})

test_that("methods print the n_i table and the scores", {
  fx <- cologne_fixture()
  r <- risk_identifiability(fx$released, fx$source, "dose", id = "id")
  out <- capture.output(print(r))
  expect_match(out[1], "Identifiability by exact matching")
  expect_true(any(grepl("Matches in source", out)))
  expect_true(any(grepl("Identifiability risk score: 0.576", out)))
  expect_true(any(grepl("Anonymity score: 0.424", out)))
  s <- summary(r)
  expect_s3_class(s, "summary.epimask_identifiability")
  expect_identical(s$counts, r$counts)
  expect_match(format(r), "identifiability 0.576, anonymity 0.424")
  expect_identical(as.data.frame(r), r$records)
  no_id <- risk_identifiability(fx$released, fx$source, "dose")
  expect_true(any(grepl("upper bound", capture.output(print(no_id)))))
  many <- data.frame(k = rep(1:8, 1:8))
  expect_true(any(grepl("^ *6-8", capture.output(print(
    risk_identifiability(data.frame(k = 1:8), many, "k"))))))
})

test_that("bad input gets a classed error naming the argument", {
  fx <- cologne_fixture()
  rel <- fx$released
  src <- fx$source
  expect_error(risk_identifiability(rel, src, "zz"), "`keys`", class = "epimask_error_name")
  expect_error(risk_identifiability(rel, src["id"], "dose"), "`keys`.*`source`",
               class = "epimask_error_name")
  expect_error(risk_identifiability(rel, src, "dose", id = "pid"), "`id`",
               class = "epimask_error_name")
  expect_error(risk_identifiability(rel, src, "dose", id = "dose"), "`id`",
               class = "epimask_error_value")
  expect_error(risk_identifiability(rel, src, "dose", id = 1), "`id`",
               class = "epimask_error_type")
  dup <- src
  dup$id[2] <- dup$id[1]
  expect_error(risk_identifiability(rel, dup, "dose", id = "id"), "unique",
               class = "epimask_error_value")
  na_id <- rel
  na_id$id[1] <- NA
  expect_error(risk_identifiability(na_id, src, "dose", id = "id"), "`id`",
               class = "epimask_error_value")
  all_na <- rel
  all_na$dose <- NA
  expect_error(risk_identifiability(all_na, src, "dose"), "`released`.*all NA",
               class = "epimask_error_value")
  lst <- src
  lst$dose <- as.list(lst$dose)
  expect_error(risk_identifiability(rel, lst, "dose"), "`source`",
               class = "epimask_error_type")
  expect_error(risk_identifiability(rel[0, ], src, "dose"), "`released`",
               class = "epimask_error_empty")
  expect_error(risk_identifiability(1:3, src, "dose"), "`released`",
               class = "epimask_error_type")
})

test_that("NA is a key value of its own and inputs are not modified", {
  src <- data.frame(k = c(1, NA, NA, 2))
  rel <- data.frame(k = c(NA, 2, 3))
  rel_copy <- rel
  r <- risk_identifiability(rel, src, "k")
  expect_identical(r$records$matches, c(2L, 1L, 0L))
  expect_identical(rel, rel_copy)
  # matrices work too
  m <- risk_identifiability(as.matrix(data.frame(k = c(1, 2))), as.matrix(src), "k")
  expect_identical(m$records$matches, c(1L, 1L))
})

test_that("tibbles and data.tables are accepted", {
  skip_if_not_installed("data.table")
  skip_if_not_installed("tibble")
  fx <- cologne_fixture()
  want <- risk_identifiability(fx$released, fx$source, "dose", id = "id")
  got <- risk_identifiability(data.table::as.data.table(fx$released),
                              data.table::as.data.table(fx$source), "dose", id = "id")
  expect_identical(got$score, want$score)
  expect_identical(got$records, want$records)
  got <- risk_identifiability(tibble::as_tibble(fx$released),
                              tibble::as_tibble(fx$source), "dose", id = "id")
  expect_identical(got$counts, want$counts)
})
