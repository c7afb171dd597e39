# replicated_uniques() and disco(): against a loop over the records, and
# against synthpop 1.9's disclosure() when synthpop is installed.

synth_risk_fixture <- function(seed = 4, n = 300) {
  set.seed(seed)
  d <- data.frame(age = sample(20:80, n, TRUE), sex = factor(sample(c("f", "m"), n, TRUE)),
                  city = factor(sample(c("a", "b", NA), n, TRUE)))
  d$dia <- factor(ifelse(runif(n) < plogis(-4 + 0.05 * d$age), "yes", "no"))
  d
}

# The loops: for each original record i, its key and target against copy cp.
loop_key <- function(d, keys) apply(d[keys], 1L, function(r) paste(ifelse(is.na(r), "<NA>", r), collapse = "|"))
loop_repu <- function(o, cp, keys) {
  ko <- loop_key(o, keys)
  ks <- loop_key(cp, keys)
  vapply(seq_len(nrow(o)), function(i) sum(ko == ko[i]) == 1L && sum(ks == ko[i]) == 1L, logical(1))
}
loop_disco <- function(o, cp, keys, target) {
  ko <- loop_key(o, keys)
  ks <- loop_key(cp, keys)
  to <- as.character(o[[target]])
  ts <- as.character(cp[[target]])
  vapply(seq_len(nrow(o)), function(i) {
    vals <- unique(ts[ks == ko[i]])
    length(vals) == 1L && identical(vals, to[i])
  }, logical(1))
}

test_that("replicated uniques and DiSCO count what a loop over the records counts", {
  d <- synth_risk_fixture()
  set.seed(1)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 3)))
  keys <- c("age", "sex", "city")
  r <- criterion_evaluate(replicated_uniques(keys = keys), syn, d)
  hits <- vapply(unclass(syn), function(cp) loop_repu(d, cp, keys), logical(nrow(d)))
  expect_equal(r$detail$repU, colMeans(hits))
  expect_equal(r$value, mean(rowSums(hits) > 0))
  expect_equal(criterion_evaluate(replicated_uniques(keys = keys, copies = "mean"), syn, d)$value,
               mean(colMeans(hits)))
  ds <- criterion_evaluate(disco("dia", keys = keys), syn, d)
  dh <- vapply(unclass(syn), function(cp) loop_disco(d, cp, keys, "dia"), logical(nrow(d)))
  expect_equal(ds$detail$DiSCO, colMeans(dh))
  expect_equal(ds$value, mean(rowSums(dh) > 0))
  # keys of the call, a bound, the print
  rb <- criterion_evaluate(replicated_uniques(max = 0.01), syn, d, keys = keys)
  expect_identical(rb$pass, rb$value <= 0.01)
  expect_match(format(rb)[[1L]], "^replicated uniques <= 0.01 \\(in any copy\\): risk ")
  # a masked data frame is one copy
  one <- criterion_evaluate(replicated_uniques(keys = keys), d, d)
  expect_equal(one$value, mean(loop_repu(d, d, keys)))
})

test_that("the holdout is left out of the original records; bad input is classed", {
  d <- synth_risk_fixture()
  set.seed(2)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 2, holdout = 0.2)))
  h <- holdout_rows(syn)
  keys <- c("age", "sex")
  r <- criterion_evaluate(replicated_uniques(keys = keys), syn, d)
  expect_equal(r$detail$repU[[1L]], mean(loop_repu(d[-h, ], syn[[1L]], keys)))
  expect_match(r$note, "60 holdout records left out")
  expect_error(criterion_evaluate(replicated_uniques(keys = keys), syn, d[-1, ]),
               class = "epimask_error_length")
  expect_error(criterion_evaluate(replicated_uniques(), syn, d), class = "epimask_error_value")
  expect_error(criterion_evaluate(replicated_uniques(keys = "zz"), syn, d), class = "epimask_error_name")
  expect_error(criterion_evaluate(disco("dia", keys = keys), syn, d, id = "age"),
               class = "epimask_error_value")
  expect_error(disco("dia", keys = "dia"), class = "epimask_error_value")
  expect_error(replicated_uniques(max = 2), class = "epimask_error_value")
  expect_error(criterion_evaluate(replicated_uniques(keys = keys), syn), class = "epimask_error_type")
})

test_that("k-anonymity says it does not apply to synthetic copies", {
  d <- synth_risk_fixture()
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 1)))
  res <- criterion_evaluate(k_anonymity(5), syn, d, keys = "age")
  expect_false(res$applies)
  expect_true(is.na(res$value))
})

test_that("replicated uniques and DiSCO agree with synthpop::disclosure()", {
  skip_if_not_installed("synthpop")
  d <- synth_risk_fixture(seed = 6, n = 400)
  set.seed(3)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 3)))
  keys <- c("age", "sex", "city")
  # synthpop is a reference for comparison only, not a dependency of epimask
  # (tools/install-synthpop.sh installs it): looked up at run time
  synthpop_disclosure <- getExportedValue("synthpop", "disclosure")
  sp <- synthpop_disclosure(unclass(syn), d, keys = keys, target = "dia", print.flag = FALSE,
                             compare.synorig = FALSE)
  r <- criterion_evaluate(replicated_uniques(keys = keys), syn, d)$detail
  a <- criterion_evaluate(disco("dia", keys = keys), syn, d)$detail
  expect_equal(100 * r$repU, sp$ident$repU)
  expect_equal(100 * r$UiO, sp$ident$UiO)
  expect_equal(100 * r$UiS, sp$ident$UiS)
  expect_equal(100 * r$UiOiS, sp$ident$UiOiS)
  for (col in c("Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO"))
    expect_equal(100 * a[[col]], sp$attrib[[col]])
})

test_that("the attacks read a synthetic release: its copies and its holdout", {
  d <- synth_risk_fixture(n = 400)
  set.seed(5)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 2, holdout = 0.5)))
  expect_identical(syn$copies, lapply(seq_along(syn), function(j) syn[[j]]))
  expect_identical(syn$holdout, holdout_rows(syn))
  expect_identical(syn$m, 2L)
  res <- risk_singling_out(d, syn, n_attacks = 100, seed = 1)
  expect_match(paste(format(res), collapse = "\n"), "the 200 original records the synthetic release held out")
  # a hand-made list of fields keeps its own fields
  bare <- structure(list(copies = list(d), holdout = 1:3), class = "epimask_synthetic")
  expect_identical(bare$holdout, 1:3)
})
