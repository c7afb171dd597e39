# risk_kanon() against the fixtures of methods vignette section 9 and a plain-R recount.

test_that("El Emam & Malin Table 1 / Table 3: sex and year of birth", {
  r <- risk_kanon(malin_table1, c("sex", "yob"))
  expect_identical(r$n_classes, 16L)
  expect_identical(r$n_uniques, 11L)
  expect_equal(r$max_risk, 1)
  expect_equal(r$avg_risk, 16 / 27)
  expect_equal(round(r$avg_risk, 4), 0.5926)
  expect_equal(r$strict_avg_risk, 1)
  # Table 3, probability of re-identification per record (0.33 = 1/3).
  table3 <- c(1/3, 1, 1/3, 1/3, 1, 1, 1/3, 1, 1/3, 1/5, 1, 1/3, 1/5, 1/5, 1/3,
              1/3, 1/5, 1/2, 1/2, 1, 1/3, 1/5, 1, 1, 1, 1, 1)
  expect_equal(r$record_risk, table3)
  expect_identical(r$n_doubles, 1L)
  expect_identical(sum(r$classes$double), 1L)
  expect_identical(r$classes$unique, r$classes$size == 1L)
  expect_equal(sum(r$classes$size), 27)
})

test_that("El Emam & Malin Table 4: decade of birth (recomputed values)", {
  d <- transform(malin_table1, decade = decade_of(yob))
  r <- risk_kanon(d, c("sex", "decade"))
  expect_identical(r$n_classes, 9L)
  expect_equal(r$avg_risk, 9 / 27)
  expect_equal(r$max_risk, 1)
  expect_equal(r$strict_avg_risk, 1)
  # Paper's values, with IDs 6, 25, 20, 23 corrected to 0.5 (methods vignette section 9).
  table4 <- c(1/3, 1/8, 1/6, 1/3, 1, 1/2, 1/3, 1, 1/3, 1/8, 1/8, 1/6, 1/8, 1/8,
              1/3, 1/6, 1/8, 1/6, 1/6, 1/2, 1/3, 1/8, 1/2, 1/6, 1/2, 1, 1/8)
  expect_equal(r$record_risk, table4)
  expect_equal(r$record_risk[c(6, 25, 20, 23)], rep(0.5, 4))
})

test_that("El Emam & Malin Table 5: without IDs 5, 8, 20, 26", {
  d <- transform(malin_table1, decade = decade_of(yob))
  d <- d[!d$id %in% c(5, 8, 20, 26), ]
  r <- risk_kanon(d, c("sex", "decade"))
  expect_identical(r$n, 23L)
  expect_equal(r$avg_risk, 6 / 23)
  expect_equal(round(r$avg_risk, 4), 0.2609)
  tab <- as.data.frame(r)
  expect_identical(tab$ID, as.character(d$id))
  expect_equal(tab$risk[tab$ID == "23"], 1)
  expect_equal(tab$risk[tab$ID %in% c("6", "25")], c(0.5, 0.5))
  expect_identical(r$n_uniques, 1L)
  expect_identical(r$n_doubles, 1L)
  # Strict average fails (a unique and a double remain): it is the maximum risk.
  expect_equal(r$max_risk, 1)
  expect_equal(r$strict_avg_risk, 1)
})

test_that("strict average equals the average once every class has 3 or more", {
  d <- data.frame(a = rep(c("x", "y"), c(3, 4)))
  r <- risk_kanon(d, "a")
  expect_equal(r$strict_avg_risk, 2 / 7)
  expect_equal(r$max_risk, 1 / 3)
})

test_that("El Emam & Dankar Figure 1: 2-anonymity by decade, journalist 0.25", {
  s <- transform(dankar_sample, decade = decade_of(yob))
  r <- risk_kanon(s, c("sex", "decade"), k = 2)
  expect_false(r$k_anonymous)
  expect_identical(s$id[r$record_risk > 1 / 2], c(3L, 5L, 8L))
  kept <- s[!s$id %in% c(3, 5, 8), ]
  pop <- transform(dankar_population, decade = decade_of(yob))
  r2 <- risk_kanon(kept, c("sex", "decade"), population = pop, k = 2)
  expect_true(r2$k_anonymous)
  expect_equal(r2$max_risk, 0.5)
  expect_equal(sort(r2$classes$pop_size), c(4, 5, 5, 5, 5))
  expect_equal(r2$journalist_risk, 0.25)
  expect_true(r2$k_map)
  # marketer risk by hand: (1/n) sum f_j / F_j over the five classes
  f <- r2$classes$size
  expect_equal(r2$marketer_risk, sum(f / r2$classes$pop_size) / 11)
})

test_that("El Emam & Dankar Figure 2: 2-map in five-year bins, not 2-anonymous", {
  s <- transform(dankar_sample, bin = five_years_of(yob))
  pop <- transform(dankar_population, bin = five_years_of(yob))
  r <- risk_kanon(s, c("sex", "bin"), population = pop, k = 2)
  expect_true(r$k_map)
  expect_equal(r$journalist_risk, 0.5)
  expect_false(r$k_anonymous)
  expect_identical(s$id[r$record_risk == 1], c(2L, 3L, 5L, 7L, 8L, 11L, 14L))
})

test_that("a population given as counts equals one row per person", {
  s <- transform(dankar_sample, bin = five_years_of(yob))
  pop <- transform(dankar_population, bin = five_years_of(yob))
  counts <- aggregate(list(people = rep(1, nrow(pop))), pop[c("sex", "bin")], sum)
  # split one count over two rows: rows repeating a combination add up
  extra <- counts[1, ]
  counts$people[1] <- counts$people[1] - 1
  extra$people <- 1
  counts <- rbind(counts, extra)
  a <- risk_kanon(s, c("sex", "bin"), population = pop, k = 2)
  b <- risk_kanon(s, c("sex", "bin"), population = counts, pop_count = "people", k = 2)
  expect_equal(b$classes$pop_size, a$classes$pop_size)
  expect_equal(b$journalist_risk, a$journalist_risk)
  expect_equal(b$marketer_risk, a$marketer_risk)
})

test_that("D3 / D4 k' reproduce the reference table of methods vignette section 7", {
  for (i in seq_len(nrow(k_prime_reference))) {
    ref <- k_prime_reference[i, ]
    got <- k_prime(ref$k, ref$pi, alpha = 0.1)
    expect_identical(unname(got), as.integer(c(ref$D3, ref$D4)),
                     info = sprintf("k = %d, pi = %g", ref$k, ref$pi))
  }
  r <- risk_kanon(malin_table1, c("sex", "yob"), pi = 0.1, k = 5)
  expect_identical(r$k_prime, c(D3 = 2L, D4 = 3L))
  expect_identical(r$passes_k_prime, c(D3 = FALSE, D4 = FALSE))
})

test_that("D3 / D4 pass when the smallest class reaches min(k, k')", {
  d <- data.frame(a = rep(c("x", "y"), c(3, 6)))
  r <- risk_kanon(d, "a", pi = 0.1, k = 5)   # k' = 2 (D3), 3 (D4)
  expect_identical(r$passes_k_prime, c(D3 = TRUE, D4 = TRUE))
  expect_false(r$k_anonymous)
  r <- risk_kanon(d[-1, , drop = FALSE], "a", pi = 0.1, k = 5)
  expect_identical(r$passes_k_prime, c(D3 = TRUE, D4 = FALSE))
})

brute_kanon <- function(df, keys) {
  key <- do.call(paste, c(lapply(df[keys], function(x)
    ifelse(is.na(x), "<NA>", as.character(x))), sep = "\r"))
  f <- table(key)[key]
  list(risk = 1 / as.vector(f), J = length(unique(key)), key = key)
}

test_that("keys of every type, NA as its own category, match a paste/table count", {
  set.seed(3)
  n <- 3000
  df <- data.frame(
    ch = sample(c("a", "b", NA), n, TRUE),
    fa = factor(sample(c("u", "v", "w"), n, TRUE)),
    int = sample(c(1:4, NA), n, TRUE),
    dbl = sample(c(0.5, 1.25, NA), n, TRUE),
    dt = as.Date("2001-01-01") + sample(c(0:3, NA), n, TRUE),
    lg = sample(c(TRUE, FALSE, NA), n, TRUE),
    stringsAsFactors = FALSE)
  keys <- names(df)
  r <- risk_kanon(df, keys, k = 3)
  want <- brute_kanon(df, keys)
  expect_equal(r$record_risk, want$risk)
  expect_identical(r$n_classes, want$J)
  expect_equal(r$avg_risk, want$J / n)
  f <- 1 / want$risk
  expect_equal(r$max_risk, 1 / min(f))
  sizes <- as.vector(table(want$key))
  expect_equal(r$discernibility,
               sum(sizes[sizes >= 3]^2) + n * sum(sizes[sizes < 3]))
  # the EC table carries the key values with their types
  expect_s3_class(r$classes$dt, "Date")
  expect_s3_class(r$classes$fa, "factor")
  expect_true(any(is.na(r$classes$ch)))
})

test_that("a population with NA keys and weights give the brute-force F_j", {
  set.seed(4)
  pop <- data.frame(a = sample(c("x", "y", NA), 400, TRUE),
                    b = sample(1:3, 400, TRUE), stringsAsFactors = FALSE)
  s <- pop[sample(400, 80), ]
  r <- risk_kanon(s, c("a", "b"), population = pop, pi = 0.2)
  key_s <- brute_kanon(s, c("a", "b"))$key
  key_p <- brute_kanon(pop, c("a", "b"))$key
  F_rec <- as.vector(table(key_p)[key_s])
  f_rec <- 1 / brute_kanon(s, c("a", "b"))$risk
  expect_equal(r$journalist_risk, 1 / min(F_rec))
  # marketer: (1/n) sum_j f_j / F_j = (1/n) sum_i 1 / F_j(i)
  expect_equal(r$marketer_risk, mean(1 / F_rec))
  expect_identical(r$population_source, "population")

  w <- runif(80, 1, 9)
  rw <- risk_kanon(s, c("a", "b"), weights = w)
  F_w <- tapply(w, key_s, sum)[key_s]
  expect_equal(rw$journalist_risk, 1 / min(F_w))
  expect_equal(rw$marketer_risk, mean(1 / F_w))
  s$w <- w
  expect_equal(risk_kanon(s, c("a", "b"), weights = "w")$marketer_risk,
               rw$marketer_risk)

  # without population or weights: F_j = f_j / pi
  rp <- risk_kanon(s, c("a", "b"), pi = 0.25)
  expect_equal(rp$journalist_risk, 0.25 / min(f_rec))
  expect_equal(rp$marketer_risk, 0.25 * rp$n_classes / 80)
})

test_that("tibble, data.table and matrix input give the same result", {
  skip_if_not_installed("tibble")
  skip_if_not_installed("data.table")
  d <- transform(malin_table1, decade = decade_of(yob))
  r <- risk_kanon(d, c("sex", "decade"))
  expect_equal(risk_kanon(tibble::as_tibble(d), c("sex", "decade"))$record_risk,
               r$record_risk)
  expect_equal(risk_kanon(data.table::as.data.table(d), c("sex", "decade"))$record_risk,
               r$record_risk)
  m <- as.matrix(d[c("sex", "decade")])
  expect_equal(risk_kanon(m, c("sex", "decade"))$record_risk, r$record_risk)
})

test_that("bad input gets classed errors naming the argument", {
  d <- malin_table1
  expect_error(risk_kanon(d, c("sex", "age")), class = "epimask_error_name")
  expect_error(risk_kanon(d, c("sex", "age")), "keys")
  expect_error(risk_kanon(d[0, ], "sex"), class = "epimask_error_empty")
  expect_error(risk_kanon(d, "sex", k = 0), class = "epimask_error_value")
  expect_error(risk_kanon(d, "sex", k = 0), "`k`")
  expect_error(risk_kanon(d, "sex", k = 2.5), class = "epimask_error_value")
  expect_error(risk_kanon(d, "sex", pi = 0), class = "epimask_error_value")
  expect_error(risk_kanon(d, "sex", pi = 1.5), "`pi`", class = "epimask_error_value")
  expect_error(risk_kanon(d, "sex", alpha = 1), class = "epimask_error_value")
  expect_error(risk_kanon("a", "sex"), class = "epimask_error_type")
  pop <- dankar_population[dankar_population$yob != 1987, ]
  expect_error(risk_kanon(dankar_sample, c("sex", "yob"), population = pop),
               "`population`", class = "epimask_error_value")
  expect_error(risk_kanon(dankar_sample, c("sex", "yob"),
                          population = dankar_population[c("sex")]),
               class = "epimask_error_name")
  expect_error(risk_kanon(dankar_sample, c("sex", "yob"),
                          population = transform(dankar_population, yob = as.character(yob))),
               class = "epimask_error_type")
  expect_error(risk_kanon(d, "sex", weights = rep(0.5, 27)), "`weights`",
               class = "epimask_error_value")
  expect_error(risk_kanon(d, "sex", weights = 1:3), class = "epimask_error_length")
  expect_error(risk_kanon(dankar_sample, "sex", population = dankar_population,
                          weights = rep(2, 14)), class = "epimask_error_value")
  expect_error(risk_kanon(dankar_sample, "sex", population = dankar_population,
                          pop_count = "n"), class = "epimask_error_name")
})

test_that("the input is not modified", {
  d <- malin_table1
  before <- d
  risk_kanon(d, c("sex", "yob"))
  expect_identical(d, before)
})

test_that("print, summary (Table 3 layout) and plot work", {
  r <- risk_kanon(malin_table1, c("sex", "yob"), k = 3)
  expect_output(print(r), "16 equivalence classes; 11 uniques")
  s <- summary(r)
  expect_identical(names(s$records), c("ID", "sex", "yob", "risk"))
  expect_equal(s$records$risk, r$record_risk)
  expect_output(print(s), "probability of re-identification")
  expect_identical(s$thresholds$maximum_risk_met, rep(FALSE, 4))
  pdf(NULL)
  on.exit(dev.off())
  h <- plot(r)
  expect_equal(sum(h), 16)
  expect_equal(sum(plot(r, what = "records")), 27)
  expect_plot_snapshot("k-anonymity classes", function() plot(r))
  expect_plot_snapshot("k-anonymity records", function() plot(r, what = "records"))
})

test_that("keys named like the EC-table columns are refused", {
  d <- data.frame(size = c(1, 2), a = c("x", "y"))
  expect_error(risk_kanon(d, c("size", "a")), "`keys`", class = "epimask_error_value")
})
