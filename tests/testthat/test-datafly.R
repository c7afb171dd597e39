# Datafly against Sweeney's Table 6a -> 6b and El Emam & Dankar Figure 1.

sweeney_hierarchies <- list(ethnicity = list(identity), birth = hierarchy_date(),
                            sex = list(identity), zip = hierarchy_zip())

test_that("Sweeney Table 6a -> 6b with k = 2", {
  set.seed(11)
  keys <- c("ethnicity", "birth", "sex", "zip")
  # one record of 12 may be dropped (the Caucasian female), two may not
  res <- datafly(sweeney_6a, keys, sweeney_hierarchies, k = 2,
                 max_suppress = 0.1, id = "ssn")
  expect_identical(res$level_labels[["birth"]], "year")
  expect_identical(res$levels[["zip"]], 1L)
  expect_identical(res$levels[["ethnicity"]], 0L)
  expect_identical(res$levels[["sex"]], 0L)
  expect_identical(res$suppressed, 8L)
  expect_identical(nrow(res$data), 11L)
  expect_identical(res$class_sizes, c(2L, 2L, 2L, 3L, 2L))
  expect_equal(res$data[names(sweeney_6b)], sweeney_6b)
  # discernibility: 2^2 + 2^2 + 2^2 + 3^2 + 2^2 + 12 for the suppressed record
  expect_equal(res$discernibility, 37)
  # SSNs replaced by keyed pseudonyms (16 hexadecimal digits)
  expect_true(all(grepl("^[0-9a-f]{16}$", res$data$ssn)))
  expect_false(any(res$data$ssn %in% sweeney_6a$ssn))
  expect_false(anyDuplicated(res$data$ssn) > 0)
  # the steps: birth to month, to year, then the birth/ZIP tie goes to ZIP
  expect_identical(res$steps$key, c("birth", "birth", "zip"))
  # the release is k-anonymous
  expect_true(risk_kanon(res$data, keys, k = 2)$k_anonymous)
})

test_that("pseudonyms: HMAC-SHA-256 under the secret, one per identifier value", {
  d <- sweeney_6a
  d$ssn[2] <- d$ssn[1]
  h <- list(sex = list(identity))
  a <- datafly(d, "sex", h, k = 2, id = "ssn", secret = "custodian key")
  expect_identical(a$data$ssn[1], a$data$ssn[2])
  expect_identical(length(unique(a$data$ssn)), 11L)
  # the HMAC of RFC 2104 written out: H((K xor opad) || H((K xor ipad) || m)),
  # K the key padded to SHA-256's 64-byte block
  hmac <- function(key, msg) {
    k <- c(charToRaw(key), raw(64 - nchar(key)))
    inner <- openssl::sha256(c(xor(k, as.raw(0x36)), charToRaw(msg)))
    as.character(openssl::sha256(c(xor(k, as.raw(0x5c)), as.raw(inner))))
  }
  expect_identical(a$data$ssn, substr(vapply(d$ssn, hmac, "", key = "custodian key",
                                             USE.NAMES = FALSE), 1, 16))
  expect_null(a$secret)
  expect_false(any(grepl("custodian key", capture.output(str(unclass(a))))))
})

test_that("pseudonyms: same secret, same pseudonyms whatever the seed; different secret, different", {
  h <- list(sex = list(identity))
  set.seed(1)
  a <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn", secret = "s1")
  set.seed(2)
  b <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn", secret = "s1")
  c2 <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn", secret = "s2")
  r <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn", secret = as.raw(1:32))
  expect_identical(a$data$ssn, b$data$ssn)
  expect_false(any(a$data$ssn == c2$data$ssn))
  expect_false(any(a$data$ssn == r$data$ssn))
  expect_error(datafly(sweeney_6a, "sex", h, k = 2, id = "ssn", secret = 3),
               class = "epimask_error_type")
})

test_that("pseudonyms without a secret: not reproducible by set.seed()", {
  h <- list(sex = list(identity))
  set.seed(5)
  a <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn")
  set.seed(5)
  b <- datafly(sweeney_6a, "sex", h, k = 2, id = "ssn")
  expect_false(any(a$data$ssn == b$data$ssn))
  # and R's random stream is left alone
  set.seed(5)
  u1 <- runif(1)
  set.seed(5)
  invisible(datafly(sweeney_6a, "sex", h, k = 2, id = "ssn"))
  expect_identical(runif(1), u1)
  o <- deprecated(ola(sweeney_6a, "sex", list(sex = hierarchy_flat()), k = 2, id = "ssn",
           secret = "s1"))
  expect_identical(o$data$ssn, datafly(sweeney_6a, "sex", h, k = 2, id = "ssn",
                                       secret = "s1")$data$ssn)
})

test_that("proxies: a released column mapping one-to-one onto a generalized key", {
  set.seed(3)
  edu <- c("Bachelors", "HS-grad", "Masters", "Doctorate", "11th")
  d <- data.frame(education = sample(edu, 200, TRUE), sex = sample(c("f", "m"), 200, TRUE))
  d$education_num <- match(d$education, edu) + 8L   # one-to-one with education
  d$score <- round(runif(200), 2)
  h <- list(education = hierarchy_category(data.frame(v = edu,
    g = c("higher", "school", "higher", "higher", "school"))), sex = hierarchy_flat())
  # ola() with k is the deprecated form of its criteria: checked by deprecated()
  for (fun in list(datafly, function(...) deprecated(ola(...)))) {
    expect_warning(r <- fun(d, "education", h["education"], k = 50, max_suppress = 0),
                   "education_num' -> 'education", class = "epimask_warning_proxy")
    expect_gt(r$levels[["education"]], 0L)
    expect_identical(r$proxies$column, "education_num")
    expect_true("education_num" %in% names(r$data))
    expect_silent(r2 <- fun(d, "education", h["education"], k = 50, max_suppress = 0,
                            drop_proxies = TRUE))
    expect_false("education_num" %in% names(r2$data))
    expect_identical(r2$dropped, "education_num")
    expect_true("score" %in% names(r2$data))
  }
  # no warning when the key is released as is
  expect_silent(datafly(d, c("education", "sex"), h, k = 1))
})

test_that("El Emam & Dankar Figure 1: decade of birth, IDs 3, 5, 8 suppressed", {
  s <- dankar_sample
  res <- datafly(s, c("sex", "yob"), list(sex = list(identity),
                                          yob = hierarchy_numeric(c(5, 10))),
                 k = 2, max_suppress = 0.25)
  expect_identical(res$levels[["yob"]], 2L)
  expect_identical(s$id[res$suppressed], c(3L, 5L, 8L))
  expect_identical(res$data$yob, decade_of(s$yob[-c(3, 5, 8)]))
  pop <- transform(dankar_population, yob = decade_of(yob))
  r <- risk_kanon(res$data, c("sex", "yob"), population = pop, k = 2)
  expect_equal(r$max_risk, 0.5)
  expect_equal(r$journalist_risk, 0.25)
})

test_that("ties on distinct values go to the smaller discernibility, then the later key", {
  # a and b have 3 distinct values each; generalizing a leaves classes
  # 2, 2, 2 (DM 12), generalizing b leaves 4, 1, 1 (DM 16 + 2 * 6 = 28).
  d <- data.frame(a = c(1, 1, 1, 1, 2, 3), b = c(1, 1, 2, 2, 3, 3))
  h <- list(a = list(identity), b = list(identity))
  res <- datafly(d, c("a", "b"), h, k = 2, max_suppress = 0)
  expect_identical(unname(res$levels), c(1L, 0L))
  # symmetric case: equal discernibility, the later key is generalized
  d2 <- data.frame(a = c(1, 1, 2, 2), b = c(1, 2, 1, 2))
  res2 <- datafly(d2, c("a", "b"), h, k = 2, max_suppress = 0)
  expect_identical(unname(res2$levels), c(0L, 1L))
  expect_identical(res2$data$b, rep("*", 4))
})

test_that("nothing is generalized when the data are already k-anonymous", {
  d <- data.frame(a = rep(c("x", "y"), 3))
  res <- datafly(d, "a", list(a = list(identity)), k = 3)
  expect_identical(unname(res$levels), 0L)
  expect_identical(nrow(res$steps), 0L)
  expect_identical(res$data, d)
})

test_that("too few records: all suppressed with a warning", {
  d <- data.frame(a = c("x", "y"))
  expect_warning(res <- datafly(d, "a", list(a = list(identity)), k = 3),
                 class = "epimask_warning_suppressed")
  expect_identical(nrow(res$data), 0L)
  expect_identical(res$suppressed, 1:2)
})

test_that("a tibble in gives a tibble out; input unchanged", {
  skip_if_not_installed("tibble")
  tb <- tibble::as_tibble(sweeney_6a)
  before <- tb
  res <- suppressWarnings(datafly(tb, c("sex", "zip"),
                                  list(sex = list(identity), zip = hierarchy_zip()),
                                  k = 2))
  expect_s3_class(res$data, "tbl_df")
  expect_identical(tb, before)
})

test_that("a distinct character column outside keys and id draws a warning", {
  expect_warning(datafly(sweeney_6a, "sex", list(sex = list(identity)), k = 2),
                 "ssn", class = "epimask_warning_identifier")
})

test_that("bad input gets classed errors naming the argument", {
  h <- sweeney_hierarchies
  d <- sweeney_6a
  expect_error(datafly(d, c("sex", "age"), h, id = "ssn"), class = "epimask_error_name")
  expect_error(datafly(d, c("sex", "zip"), h["sex"], id = "ssn"), "hierarchies",
               class = "epimask_error_name")
  expect_error(datafly(d, "sex", h, id = "ssn"), "hierarchies", class = "epimask_error_name")
  expect_error(datafly(d, "sex", h["sex"], k = 0, id = "ssn"), "`k`",
               class = "epimask_error_value")
  expect_error(datafly(d, "sex", h["sex"], max_suppress = 2, id = "ssn"),
               "max_suppress", class = "epimask_error_value")
  expect_error(datafly(d[0, ], "sex", h["sex"]), class = "epimask_error_empty")
  expect_error(datafly(d, "sex", list(sex = "x"), id = "ssn"), class = "epimask_error_type")
  expect_error(datafly(d, "sex", h["sex"], id = "sex"), class = "epimask_error_value")
  expect_error(datafly(d, "zip", list(zip = list(identity, c("02138" = "021"))),
                       id = "ssn", k = 5),
               "lookup", class = "epimask_error_value")
})

test_that("print, summary and plot work", {
  res <- datafly(sweeney_6a, c("ethnicity", "birth", "sex", "zip"),
                 sweeney_hierarchies, k = 2, max_suppress = 0.1, id = "ssn")
  expect_output(print(res), "11 of 12 records kept, 1 suppressed")
  expect_output(print(summary(res)), "birth")
  pdf(NULL)
  on.exit(dev.off())
  expect_equal(sum(plot(res)), 5)
  expect_plot_snapshot("datafly class sizes", function() plot(res))
})

test_that("on random data the release is k-anonymous within the suppression budget", {
  set.seed(21)
  n <- 3000
  d <- data.frame(
    birth = as.Date("1940-01-01") + sample(0:20000, n, TRUE),
    zip = sprintf("%05d", sample(c(2138:2145, 10001:10010), n, TRUE)),
    age = sample(18:90, n, TRUE),
    dx = sample(c("I21", "I22", "J45", "J46", "K50"), n, TRUE))
  tab <- data.frame(code = c("I21", "I22", "J45", "J46", "K50"),
                    chapter = c("I", "I", "J", "J", "K"))
  h <- list(birth = hierarchy_date(), zip = hierarchy_zip(),
            age = hierarchy_numeric(c(5, 10, 20)), dx = hierarchy_category(tab))
  res <- datafly(d, names(d), h, k = 5, max_suppress = 0.02)
  expect_lte(res$n_suppressed, 0.02 * n)
  expect_equal(nrow(res$data), n - res$n_suppressed)
  sizes <- table(do.call(paste, res$data))
  expect_gte(min(sizes), 5)
  expect_identical(sort(as.vector(sizes)), sort(res$class_sizes))
  # every released key value is the chosen level of the original value
  kept <- setdiff(seq_len(n), res$suppressed)
  for (key in names(d)) {
    expect_identical(res$data[[key]],
                     generalize(d[[key]][kept], h[[key]], res$levels[[key]]))
  }
  expect_equal(res$discernibility,
               sum(as.double(res$class_sizes)^2) + n * res$n_suppressed)
  expect_gt(res$levels[["birth"]], 0L)
  expect_false(any(as.character(d$birth) %in% res$data$birth))
})
