# Every .Call entry point of epimask under gctorture(TRUE), on tiny inputs:
# a missing PROTECT shows up as a crash or a corrupted result. Each case's
# result is compared bit for bit (identical(num.eq = FALSE)) with the same
# call made without gctorture, from the same RNG state.
#
# Coverage is checked, not claimed: a first pass (no gctorture) runs every
# case with .Call replaced, in each namespace function that uses it, by a
# recorder of the routine names; the script fails if an entry point of the
# table in src/init.c is reached by no case.
#
#   Rscript tools/gctorture.R [case-pattern]   (run from the package root)
#
# A pattern (a regular expression) runs only the matching cases and skips the
# coverage check (for reproducing one failure quickly).
library(epimask)

args <- commandArgs(trailingOnly = TRUE)
only <- if (length(args)) args[[1L]] else NULL
ns <- asNamespace("epimask")

# --- the entry points registered in src/init.c --------------------------------
init_c <- file.path("src", "init.c")
if (!file.exists(init_c)) stop("run from the package root: src/init.c not found")
init_lines <- readLines(init_c)
registered <- sub("^\\s*CALLDEF\\(([A-Za-z0-9_]+),.*$", "C_\\1",
                  grep("^\\s*CALLDEF\\(", init_lines, value = TRUE))
if (!length(registered)) stop("no CALLDEF(...) line found in src/init.c")
stopifnot(all(vapply(registered, exists, logical(1), envir = ns, inherits = FALSE)))

# --- tiny inputs ----------------------------------------------------------------
set.seed(1)
n <- 12
coords <- cbind(runif(n), runif(n))
dat <- data.frame(x = runif(n), y = rpois(n, 3), z = rnorm(n), g = rep(1:2, 6),
                  k1 = sample(c("a", "b"), n, TRUE), k2 = sample(1:3, n, TRUE),
                  k3 = sample(c("u", "v"), n, TRUE), w = runif(n, 1, 5),
                  s = sample(c("p", "q", "r"), n, TRUE), id = seq_len(n),
                  stringsAsFactors = FALSE)
# survival times with ties, a start time and two strata (fit_cox())
surv <- transform(dat, time = c(5, 3, 3, 8, 2, 9, 4, 4, 7, 1, 6, 3),
                  status = c(1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1),
                  start = c(0, 0, 1, 2, 0, 1, 0, 2, 1, 0, 0, 1))
cohort <- data.frame(case = rep(0:1, 6), dose = c(0, 0, 0.1, 0.5, 1, 2, 0, 0.3, 0.2, 1.5, 2.5, 0),
                     sex = rep(c("f", "m"), each = 6))
noisy <- function(d, cols, s = 0.1) apply_mask(d, mask_noise(s), cols)

# A 3-key lattice (10 x 2 x 4 nodes... kept small: ages in 2 levels).
set.seed(3)
gen <- data.frame(age = sample(20:59, 16, TRUE), sex = sample(c("f", "m"), 16, TRUE),
                  zip = sample(c("021", "022", "031", "032"), 16, TRUE),
                  dx = sample(c("a", "b", "c"), 16, TRUE), score = sample(1:4, 16, TRUE),
                  stringsAsFactors = FALSE)
gen_h <- list(age = hierarchy_numeric(c(10, 20)), sex = hierarchy_flat(),
              zip = hierarchy_category(data.frame(v = c("021", "022", "031", "032"),
                                                  a = c("02", "02", "03", "03"))))

# Rank-deficient design (x3 = x1 + x2) and a separated binomial response.
x_def <- cbind(1, x1 = dat$x, x2 = dat$z, x3 = dat$x + dat$z)
y_sep <- as.double(dat$x > 0.5)

# risk_match()'s job for the tree search, captured from a run without
# gctorture, to call the index builder and the search with a shared index
# (the route risk_match() takes with a progress bar over >= 1000 targets).
capture_match_job <- function() {
  box <- new.env()
  trace("call_c", where = ns, print = FALSE,
        tracer = bquote(if (identical(routine, C_risk_match) && is.null(.(box)$job))
          assign("job", list(...)[[1L]], envir = .(box))))
  on.exit(untrace("call_c", where = ns))
  set.seed(2)
  risk_match(dat, noisy(dat, c("x", "z")), "x", "z", method = "tree", prob_tol = 1e-6)
  stopifnot(is.list(box$job), identical(box$job$method, 1L))
  box$job
}
match_job <- capture_match_job()

# --- the cases ------------------------------------------------------------------
dotcall <- function(routine, ...) .Call(ns[[routine]], ...)
with_threads <- function(k, expr) {
  old <- options(epimask.threads = k)
  on.exit(options(old))
  expr
}

cases <- list(
  # freq (src/freq.c, row hashing)
  freq_group = function() epimask:::key_groups(dat, c("k1", "k2")),
  freq_na_keys = function() epimask:::key_groups(transform(dat, k1 = replace(k1, 3, NA)), c("k1", "k2")),
  freq_match = function() risk_identifiability(dat, dat, keys = c("k1", "k2"), id = "id")$score,
  risk_kanon = function() risk_kanon(dat, c("k1", "k2"), k = 2)$record_risk,
  risk_ldiversity = function() risk_ldiversity(dat, c("k1", "k2"), "s"),
  risk_tcloseness = function() risk_tcloseness(dat, c("k1", "k2"), "k3"),
  tcloseness_ordered = function() risk_tcloseness(dat, c("k1", "k2"), c("x", "y", "s"), ordered = c("x", "y")),
  ldiversity_recursive = function() risk_ldiversity(dat, "k1", c("y", "k2"), c = 1.5),
  diversity_counts = function() dotcall("C_diversity", list(
    class = c(1L, 1L, 2L, 2L, 1L), value = c(1L, 3L, 2L, 2L, 4L), count = c(2, 1, 0.5, 3, 1),
    n_classes = 2L, m = 4L, q = c(0.4, 0.3, 0.2, 0.1), ordered = 1L, c = 2)),
  # log-linear risk (src/loglinear.c)
  loglinear_pi = function() risk_loglinear(dat, c("k1", "k2", "k3"), pi = 0.3)[c("cells", "tau1", "tau2")],
  loglinear_weights = function() risk_loglinear(dat, c("k1", "k2"), weights = dat$w * 3)[c("cells", "tau1", "tau2")],
  # Cox model (src/cox.c)
  cox_efron = function() fit_cox(survival::Surv(time, status) ~ x + z, surv)[c("coefficients", "var", "loglik")],
  cox_breslow_strata_weights = function() fit_cox(survival::Surv(time, status) ~ x + strata(g), surv,
                                                  weights = w, ties = "breslow")[c("coefficients", "var")],
  cox_counting = function() fit_cox(survival::Surv(start, time, status) ~ x, surv)[c("coefficients", "var")],
  cox_replicates_2threads = function() with_threads(2L, epimask:::cox_replicate_estimates(
    fit_cox(survival::Surv(time, status) ~ x + z, surv),
    list(surv, transform(surv, x = x + 0.1), transform(surv, x = rev(x))), "x")),
  # risk measures of the second round
  individual = function() risk_individual(dat, c("k1", "k2")),
  individual_weighted = function() risk_individual(dat, c("k1", "k2"), weights = dat$w),
  suda = function() risk_suda(dat, c("k1", "k2", "k3")),
  suda_max_k = function() risk_suda(dat, c("k1", "k2", "k3", "s"), max_k = 2),
  linkage_exhaustive = function() risk_linkage(dat, noisy(dat, c("x", "z")), c("x", "z"),
                                               method = "exhaustive"),
  linkage_tree = function() risk_linkage(dat, noisy(dat, c("x", "z")), c("x", "z"), method = "tree"),
  linkage_tree_ties = function() risk_linkage(dat, apply_mask(dat, mask_round(1), c("x", "z")),
                                              c("x", "z"), method = "tree"),
  linkage_mahalanobis_2threads = function() risk_linkage(dat, noisy(dat, c("x", "y", "z")),
                                                         c("x", "y", "z"), "mahalanobis",
                                                         method = "tree", threads = 2),
  # the three attacks (src/gower.c, src/predicate.c): the tree and the scan,
  # NA as a category and ignored, persons, two threads, a larger control
  attack_singling_uni = function() risk_singling_out(dat, noisy(dat, c("x", "z")), seed = 1),
  attack_singling_multi_persons = function() risk_singling_out(
    transform(dat, pid = rep(1:6, 2)), transform(dat, pid = rep(1:6, 2)), mode = "multivariate",
    n_cols = 2, n_attacks = 20, seed = 2, id = "pid", columns = c("k1", "k2", "x")),
  attack_singling_control = function() risk_singling_out(dat[1:5, ], dat[1:5, ],
                                                         control = dat[6:12, ], n_attacks = 20,
                                                         mode = "multivariate", n_cols = 2,
                                                         seed = 3),
  attack_link_tree = function() risk_linkability(dat, noisy(dat, c("x", "z")),
                                                 aux = list(c("x", "k1"), c("z", "k2")),
                                                 n_neighbors = 2, seed = 1,
                                                 options = attack_options(search = "tree")),
  attack_link_scan_2threads = function() risk_linkability(
    transform(dat, x = replace(x, 2, NA)), dat, aux = list(c("x", "k1"), c("z", "k3")), seed = 1,
    options = attack_options(search = "exhaustive", threads = 2)),
  attack_inference_ignore = function() risk_inference(
    transform(dat, k1 = replace(k1, 3, NA)), dat, aux = c("k1", "k2", "x"), secret = "z",
    tolerance = 0.1, seed = 1, options = attack_options(na = "ignore")),
  # lattice / OLA (src/lattice.c, src/diversity.c)
  ola_k = function() ola(gen, c("age", "sex", "zip"), gen_h, k = 2, max_suppress = 0.2),
  ola_minimal = function() ola(gen, c("age", "sex", "zip"), gen_h, k = 3, max_suppress = 0.1,
                               metric = "discernibility", search = "minimal"),
  ola_l_t = function() ola(gen, c("age", "sex", "zip"), gen_h, k = 2, max_suppress = 0.3,
                           sensitive = c("dx", "score"), l = 2, t = 0.6, diversity = "entropy"),
  datafly = function() datafly(gen, c("age", "sex", "zip"), gen_h, k = 2, max_suppress = 0.2),
  # local suppression (src/suppress.c)
  suppress = function() suppress_local(dat, c("k1", "k2", "k3"), k = 3)$data,
  suppress_wildcard_strata = function() suppress_local(transform(dat, k1 = replace(k1, 2, NA)),
                                                       c("k1", "k2"), k = 2, na = "wildcard",
                                                       strata = "g")$data,
  # count tables (src/table.c): cells of every level with magnitudes, parts of a pattern
  table_cells = function() unclass(table_counts(transform(dat, k3 = abs(x)), c("k1", "k2"),
                                                value = "k3"))[c("count", "value", "top")],
  table_parts = function() {
    tab <- table_counts(dat, c("k1", "k2"))
    epimask:::free_parts(tab, seq_along(tab$count) %% 3 == 0)
  },
  # masking forms (src/microagg.c): MDAV, rank swapping; univariate and PRAM are R
  mdav = function() apply_mask(dat, mask_microagg(3), c("x", "z")),
  mdav_ties = function() apply_mask(transform(dat, x = round(x), z = 1), mask_microagg(4), c("x", "z")),
  mdav_one_group = function() apply_mask(dat[1:5, ], mask_microagg(3), c("x", "y")),
  microagg_univariate = function() apply_mask(transform(dat, z = replace(z, 2, NA)),
                                              mask_microagg(3, "univariate"), c("x", "z")),
  swap = function() apply_mask(dat, mask_swap(30), c("x", "y")),
  swap_na = function() apply_mask(transform(dat, x = replace(x, 4, NA)), mask_swap(100), "x"),
  pram = function() apply_mask(dat, mask_pram(0.7), "k1"),
  # kernels (src/kernel.c, par_rows, spatial index)
  kernel_exponential = function() apply_mask(dat, mask_kernel("exponential", 0.3, coords), c("x", "z")),
  kernel_ring = function() apply_mask(dat, mask_kernel("ring", 0.3, coords, source = c(0.5, 0.5)), "x"),
  kernel_shrink = function() apply_mask(dat, mask_kernel("shrink", 0.3, coords, bandwidth = 0.2,
                                                         groups = dat$g), "x"),
  kernel_matrix = function() kernel_matrix(mask_kernel("bvn", 0.3, coords, rho = 0.5)),
  kernel_gaussian_3cols = function() apply_mask(dat, mask_kernel("gaussian", 0.05, coords), c("x", "y", "z")),
  kernel_ring_angle = function() apply_mask(dat, mask_kernel("ring_angle", 0.3, coords,
                                                             source = c(0.5, 0.5), direction = c(1, 0)), "x"),
  kernel_ring_block = function() apply_mask(dat, mask_kernel("ring_block", 0.3, coords,
                                                             source = c(0.5, 0.5), groups = dat$g), "x"),
  kernel_deriv = function() bias_first_order(cbind(1, dat$x), c(0.5, 0.2), poisson(),
                                             mask_kernel("shrink", 0.1, coords, bandwidth = 0.3)),
  kernel_two_threads = function() with_threads(2L, apply_mask(dat, mask_kernel("exponential", 0.3, coords), "x")),
  # record matching (src/risk_match.c, src/match_tree.c)
  match_exhaustive = function() risk_match(dat, noisy(dat, c("x", "z")), "x", "z", method = "exhaustive"),
  match_tree = function() risk_match(dat, noisy(dat, c("x", "z")), "x", "z", method = "tree"),
  match_tree_tol0 = function() risk_match(dat, noisy(dat, c("x", "z")), "x", "z", method = "tree",
                                          prob_tol = 0),
  match_tree_tol1 = function() risk_match(dat, noisy(dat, c("x", "z")), "x", "z", method = "tree",
                                          prob_tol = 1),
  match_tree_2unknown_targets = function() risk_match(dat, noisy(dat, c("x", "y", "z")), c("x", "k2"),
                                                      c("y", "z"), targets = c(2, 5, 7),
                                                      method = "tree", threads = 2),
  match_tree_no_unknown = function() risk_match(dat, apply_mask(dat, mask_round(1), c("x", "z")),
                                                c("x", "z"), method = "tree"),
  match_exhaustive_targets = function() risk_match(dat, noisy(dat, c("x", "y", "z")), c("x", "k2"),
                                                   c("y", "z"), targets = c(2, 5, 7), threads = 2),
  match_shared_index = function() {
    job <- match_job
    job$index <- dotcall("C_risk_match_index", job)
    dotcall("C_risk_match", job)
  },
  triangle_normal = function() dotcall("C_risk_triangle_normal",
                                            list(a = dat$z, mean = 0.4, sd = 0.5, half_width = 1)),
  # linear ERR model (src/err.c)
  err_fit = function() fit_err(case ~ sex, data = cohort, dose = "dose")[c("coefficients", "se")],
  err_derivs = function() dotcall("C_err_derivs", list(
    z = cbind(1, cohort$sex == "m"), d = cohort$dose, y = as.double(cohort$case),
    m = rep(1, n), w = rep(1, n), offset = NULL, theta = c(-1, 0.2, 0.5), expected = 0L)),
  # GLM core (src/irls*.c)
  glm_codes = function() dotcall("C_glm_codes"),
  family_eval = function() {
    codes <- epimask:::family_codes(binomial("probit"))
    v <- c(-3, -0.2, 0, 0.4, 2)
    lapply(1:3, function(what) dotcall("C_irls_family_eval",
                                       c(codes, list(what = what, v = v, y = v, wt = v))))
  },
  irls_poisson = function() irls_fit(cbind(1, dat$x), dat$y, poisson()),
  irls_binomial_offset = function() irls_fit(cbind(1, dat$x), as.double(dat$y > 2), binomial(),
                                             offset = dat$z / 10),
  irls_rank_deficient = function() irls_fit(x_def, dat$y, poisson()),
  irls_separation = function() suppressWarnings(irls_fit(cbind(1, dat$x), y_sep, binomial())),
  irls_gaussian_weights = function() irls_fit(x_def[, 1:3], dat$z, gaussian(), weights = dat$w),
  irls_many = function() epimask:::irls_fit_many(cbind(1, dat$x), cbind(dat$y, dat$y + 1, rev(dat$y)), poisson()),
  fit_glm = function() fit_glm(y ~ x + z, data = dat, family = poisson())[c("coefficients", "se")],
  fit_glm_gamma = function() fit_glm(y + 1 ~ x, data = dat, family = Gamma(link = "log"))[c("coefficients", "se")],
  newton_many = function() {
    x <- cbind(1, dat$x)
    Y <- cbind(dat$y, rev(dat$y), dat$y * 0.7)
    with_threads(2L, epimask:::newton_many(x, crossprod(x, Y), poisson(), rep(0, n), rep(1, n),
                                            c(1, 0)))
  },
  newton_many_singular = function() {
    x <- x_def
    Y <- cbind(dat$y, rev(dat$y))
    epimask:::newton_many(x, crossprod(x, Y), poisson(), rep(0, n), rep(1, n), rep(0, 4))
  },
  irls_nonfinite = function() list(dotcall("C_irls_nonfinite", list(x = c(1, Inf, 2), threads = 1L)),
                                   dotcall("C_irls_nonfinite", list(x = x_def, threads = 2L))),
  ones_column = function() dotcall("C_irls_ones_column", list(x = x_def))
)

# --- helpers --------------------------------------------------------------------
# The values of a result, without closures or environments (a family object's
# functions differ by environment between two calls).
values_of <- function(x) {
  if (is.function(x) || is.environment(x)) return(NULL)
  if (is.language(x)) return(deparse(x))
  if (is.list(x)) {
    out <- lapply(unclass(x), values_of)
    attributes(out) <- attributes(x)[setdiff(names(attributes(x)), "class")]
    return(out)
  }
  attr(x, ".Environment") <- NULL
  x
}

# .Call replaced by `recorder` in every closure of the namespace that uses it.
replace_dotcall <- function(e, recorder) {
  if (is.symbol(e)) return(if (identical(e, quote(.Call))) recorder else e)
  if (!is.call(e)) return(e)
  for (i in seq_along(e)) {
    if (identical(e[[i]], quote(expr = ))) next
    new <- replace_dotcall(e[[i]], recorder)
    if (!identical(new, e[[i]])) e[[i]] <- new
  }
  e
}

instrument_namespace <- function(recorder) {
  saved <- list()
  for (nm in ls(ns, all.names = TRUE)) {
    f <- get(nm, envir = ns, inherits = FALSE)
    if (!is.function(f) || is.primitive(f)) next
    if (!any(grepl(".Call", deparse(f), fixed = TRUE))) next
    g <- f
    body(g) <- replace_dotcall(body(f), recorder)
    fm <- formals(f)
    for (a in names(fm)) {
      if (identical(fm[[a]], quote(expr = ))) next
      new <- replace_dotcall(fm[[a]], recorder)
      if (!identical(new, fm[[a]])) fm[[a]] <- new
    }
    formals(g) <- fm
    saved[[nm]] <- f
    set_everywhere(nm, g)
  }
  saved
}

restore_namespace <- function(saved) {
  for (nm in names(saved)) set_everywhere(nm, saved[[nm]])
}

# In the namespace and in the attached package (exported functions are
# copies there: library(epimask) resolves the script's calls to them).
set_everywhere <- function(nm, f) {
  utils::assignInNamespace(nm, f, ns)
  pkg <- as.environment("package:epimask")
  if (exists(nm, envir = pkg, inherits = FALSE)) {
    unlockBinding(nm, pkg)
    assign(nm, f, envir = pkg)
    lockBinding(nm, pkg)
  }
}

run_case <- function(f) {
  set.seed(2)
  withCallingHandlers(f(), warning = function(w) invokeRestart("muffleWarning"))
}

# --- pass 1: reference results and coverage -------------------------------------
if (!is.null(only)) cases <- cases[grepl(only, names(cases))]
hits <- new.env()
current <- NULL
recorder <- function(.NAME, ...) {
  nm <- if (is.character(.NAME)) .NAME else .NAME$name
  hits[[nm]] <- union(hits[[nm]], current)
  base::.Call(.NAME, ...)
}
saved <- instrument_namespace(recorder)
dotcall <- function(routine, ...) recorder(ns[[routine]], ...)
for (nm in names(cases)) {
  current <- nm
  run_case(cases[[nm]])
}
restore_namespace(saved)
dotcall <- function(routine, ...) .Call(ns[[routine]], ...)

reached <- ls(hits)
missing_entries <- setdiff(registered, reached)
for (entry in registered)
  cat(sprintf("%-28s %s\n", entry, if (entry %in% reached)
    paste(head(hits[[entry]], 4L), collapse = ", ") else "NOT EXERCISED"))

# --- pass 2: each case without and with gctorture --------------------------------
failed <- character()
t0 <- proc.time()
for (nm in names(cases)) {
  want <- values_of(run_case(cases[[nm]]))
  t1 <- proc.time()[["elapsed"]]
  gctorture(TRUE)
  got <- tryCatch(run_case(cases[[nm]]), error = function(e) e)
  gctorture(FALSE)
  ok <- !inherits(got, "error") && identical(values_of(got), want, num.eq = FALSE)
  cat(sprintf("%-30s %-6s %6.1f s%s\n", nm, if (ok) "ok" else "FAILED",
              proc.time()[["elapsed"]] - t1,
              if (inherits(got, "error")) paste(":", conditionMessage(got)) else ""))
  if (!ok) failed <- c(failed, nm)
}
cat(sprintf("gctorture: %d cases over %d of %d registered entry points, %d failed, %d entry points not exercised%s\n",
            length(cases), length(intersect(reached, registered)), length(registered),
            length(failed), if (is.null(only)) length(missing_entries) else NA_integer_,
            if (length(failed)) paste0(" (failed: ", paste(failed, collapse = ", "), ")") else ""))
cat(sprintf("elapsed %.0f s\n", (proc.time() - t0)[["elapsed"]]))
if (length(failed) || (is.null(only) && length(missing_entries))) quit(status = 1)
