# parallel = TRUE on a real Slurm cluster: future.batchtools submits each
# chunk of work as a Slurm job (sbatch) run by another R process, through the
# job template the package ships (inst/cluster/slurm.tmpl). Results must be
# identical to the serial run; a job that dies must fail the call with an
# error of class epimask_error_worker, never give a partial result.
#
# These tests run when EPIMASK_SLURM_TESTS=true (.ci/run sets it after
# tools/start-slurm.sh has started a single-node cluster); then a missing
# package or a cluster that is not up is a failure, not a skip. Elsewhere
# (CRAN, a laptop) they skip.

slurm_tests_required <- function() identical(Sys.getenv("EPIMASK_SLURM_TESTS"), "true")

skip_unless_slurm <- function() {
  if (!slurm_tests_required())
    skip("Slurm tests run when EPIMASK_SLURM_TESTS=true (after tools/start-slurm.sh)")
  for (pkg in c("future", "future.apply", "future.batchtools", "batchtools"))
    if (!requireNamespace(pkg, quietly = TRUE))
      stop("package '", pkg, "' is needed for the Slurm tests (EPIMASK_SLURM_TESTS=true).",
           call. = FALSE)
  state <- tryCatch(suppressWarnings(system2("sinfo", c("-h", "-o", "%T"), stdout = TRUE,
                                             stderr = TRUE)),
                    error = function(e) conditionMessage(e))
  if (!any(trimws(state) %in% c("idle", "mixed", "allocated")))
    stop("Slurm is not up (sinfo: ", paste(state, collapse = " "),
         "); run tools/start-slurm.sh (EPIMASK_SLURM_TESTS=true).", call. = FALSE)
}

# Evaluate `code` with a batchtools_slurm plan of two workers (the node's two
# CPUs) whose jobs load the epimask under test: inside R CMD check that is
# the copy installed in epimask.Rcheck, first in .libPaths().
with_slurm_plan <- function(code, template = slurm_template()) {
  # batchtools finds the jobs with `squeue --user=$USER`; unset (containers,
  # cron) it finds none and takes every running job for a lost one
  if (!nzchar(Sys.getenv("USER"))) {
    Sys.setenv(USER = Sys.info()[["effective_user"]])
    on.exit(Sys.unsetenv("USER"), add = TRUE)
  }
  old_opts <- options(future.cache.path = file.path(tempdir(), "future-batchtools"))
  old_plan <- future::plan(future.batchtools::batchtools_slurm, template = template,
                           workers = 2L, resources = list(libpaths = .libPaths()))
  on.exit({
    future::plan(old_plan)
    options(old_opts)
  }, add = TRUE)
  force(code)
}

slurm_template <- function() {
  path <- system.file("cluster", "slurm.tmpl", package = "epimask")
  if (!nzchar(path)) stop("inst/cluster/slurm.tmpl is not installed", call. = FALSE)
  path
}

# A job template whose jobs die before R starts: a lost node, a job killed
# by the scheduler.
dying_template <- function() {
  path <- tempfile(fileext = ".tmpl")
  writeLines(c("#!/bin/bash",
               "#SBATCH --job-name=<%= job.name %>",
               "#SBATCH --output=<%= log.file %>",
               "#SBATCH --nodes=1",
               "echo 'this job dies before R starts' >&2",
               "exit 1"), path)
  path
}

test_that("the shipped job template runs the epimask under test on Slurm", {
  skip_unless_slurm()
  where <- with_slurm_plan(future::value(future::future(
    c(find.package("epimask"), Sys.getenv("SLURM_JOB_ID")))))
  # R CMD check may hand the job a library of links to the package under
  # test (its RLIBS_* directory): the same installation by another path
  expect_identical(normalizePath(where[[1L]]), normalizePath(find.package("epimask")))
  # the future ran as a Slurm job, not in this process
  expect_true(nzchar(where[[2L]]))
  expect_identical(Sys.getenv("SLURM_JOB_ID"), "")
})

test_that("ru_profile() on Slurm gives the serial profile, replicates included", {
  skip_unless_slurm()
  sim <- simulate_zdl(1, n = 200, seed = 1)
  coords <- cbind(sim$s1, sim$s2)
  schemes <- mask_grid(c("ring", "exponential"), c(0.02, 0.1), coords, source = c(0, 0))
  run <- function(parallel)
    deprecated(ru_profile(sim, schemes, y ~ x, family = poisson(), vars = c("x", "y"), term = "x",
               known = "x", unknown = "y", nrep = 4, simulate = zdl_simulator(sim),
               truth = 2, seed = 11, bootstrap = 3, parallel = parallel, progress = FALSE))
  serial <- run(FALSE)
  slurm <- with_slurm_plan(run(TRUE))
  expect_identical(slurm, serial)
  # every scheme, every replicate and every bootstrap resample came back
  expect_identical(nrow(replicates(slurm)), nrow(replicates(serial)))
  expect_identical(nrow(replicates(slurm)), 5L * 4L)
})

test_that("ru_profile() with randomized masks on Slurm draws the serial streams", {
  skip_unless_slurm()
  data <- profile_fixture(n = 150, seed = 4)
  schemes <- list(mask_noise(0.2, dist = "normal"), mask_noise(0.5),
                  mask_round(1))
  run <- function(parallel)
    deprecated(ru_profile(data, schemes, y ~ x + z, family = poisson(), vars = c("x", "z"),
               term = "x", risk = "match", known = c("x", "z"), nrep = 6, seed = 5,
               parallel = parallel, progress = FALSE))
  serial <- run(FALSE)
  slurm <- with_slurm_plan(run(TRUE))
  expect_identical(slurm, serial)
  # randomized schemes once per replicate, deterministic ones (the reference
  # and the rounding) once
  expect_identical(nrow(replicates(slurm)), 1L + 6L + 6L + 1L)
})

test_that("risk_match(parallel = TRUE) on Slurm gives the serial result", {
  skip_unless_slurm()
  set.seed(3)
  n <- 3000
  original <- data.frame(x = runif(n), s1 = runif(n), y = rnorm(n))
  masked <- original
  masked$x <- original$x + rnorm(n, sd = 0.05)
  masked$y <- original$y + rnorm(n, sd = 0.3)
  for (method in c("tree", "exhaustive")) {
    targets <- if (method == "tree") NULL else seq(1, n, by = 7)
    serial <- risk_match(original, masked, c("x", "s1"), "y", targets = targets,
                         method = method, threads = 1, progress = FALSE)
    slurm <- with_slurm_plan(
      risk_match(original, masked, c("x", "s1"), "y", targets = targets, method = method,
                 threads = 1, parallel = TRUE, progress = FALSE))
    expect_identical(slurm, serial)
  }
  # the exact sums too (prob_tol = 0 sums every record in every job)
  targets <- seq(1, n, by = 11)
  serial <- risk_match(original, masked, c("x", "s1"), "y", targets = targets,
                       prob_tol = 0, threads = 1, progress = FALSE)
  slurm <- with_slurm_plan(risk_match(original, masked, c("x", "s1"), "y", targets = targets,
                                      prob_tol = 0, threads = 1, parallel = TRUE,
                                      progress = FALSE))
  expect_identical(slurm, serial)
})

test_that("a Slurm job that dies fails the call with epimask_error_worker", {
  skip_unless_slurm()
  set.seed(4)
  n <- 2500
  original <- data.frame(x = runif(n), y = rnorm(n))
  masked <- data.frame(x = original$x + rnorm(n, sd = 0.1), y = original$y)
  res <- NULL
  err <- expect_error(
    res <- with_slurm_plan(risk_match(original, masked, "x", "y", threads = 1,
                                      parallel = TRUE, progress = FALSE),
                           template = dying_template()),
    class = "epimask_error_worker")
  expect_null(res)
  expect_match(conditionMessage(err), "worker failed")
  expect_identical(err$arg, "parallel")

  data <- profile_fixture(n = 120, seed = 6)
  ru <- NULL
  err <- expect_error(
    ru <- with_slurm_plan(ru_profile(data, mask_noise(0.3), y ~ x,
                                     family = poisson(), vars = "x", term = "x",
                                     risk = "none", nrep = 2, seed = 1, parallel = TRUE,
                                     progress = FALSE),
                          template = dying_template()),
    class = "epimask_error_worker")
  expect_null(ru)
  expect_match(conditionMessage(err), "worker failed")
})
