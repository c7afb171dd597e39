# Running a profile off the app's thread. The installed shiny may predate
# ExtendedTask (shiny 1.8.1), so the workbench uses what ExtendedTask is built
# on: a future evaluated in another R process, turned into a promise whose
# callbacks update the session, and never returned to shiny (so the session
# keeps answering while the profile runs). The worker reports progress and
# notices a cancel request through two small files: ru_profile() ticks a
# progressr progressor after each scheme, and the handler installed in the
# worker writes the step and stops the run when the cancel file exists.

# TRUE when profiles can run in the background (future and promises installed,
# not switched off with options(epimask.workbench_async = FALSE)).
workbench_async_available <- function() {
  isTRUE(getOption("epimask.workbench_async", TRUE)) &&
    requireNamespace("future", quietly = TRUE) &&
    requireNamespace("promises", quietly = TRUE) &&
    requireNamespace("progressr", quietly = TRUE)
}

# A plan that evaluates futures in another process. A sequential plan (the
# default) or a one-worker multisession plan (which future runs sequentially)
# would block the app, so the workbench uses one background R process for its
# lifetime and restores the caller's plan when it stops.
workbench_use_background_plan <- function() {
  old <- future::plan()
  if (!inherits(old, "uniprocess") && future::nbrOfWorkers() > 1) return(NULL)
  if (inherits(old, "cluster") && !inherits(old, "multisession")) return(NULL)
  future::plan(future::cluster, workers = 1L, rscript_libs = .libPaths())
  old
}

# The job run in the worker: ru_profile() with a progress handler writing to
# `progress_file` and stopping when `cancel_file` appears.
workbench_profile_job <- function(args, progress_file, cancel_file) {
  handler <- progressr::make_progression_handler("epimask_workbench", reporter = list(
    update = function(config, state, progression, ...) {
      writeLines(sprintf("%d %d", as.integer(state$step), as.integer(config$max_steps)),
                 progress_file)
      if (file.exists(cancel_file))
        stop(structure(class = c("epimask_cancelled", "error", "condition"),
                       list(message = "The profile was cancelled.", call = NULL)))
    }), enable = TRUE)
  old <- options(progressr.enable = TRUE, progressr.handlers = list(handler))
  on.exit(options(old), add = TRUE)
  args$progress <- TRUE
  workbench_run_profile(args)
}

# ru_profile() with its warnings kept as text (the app shows them; in a
# background process they would only reach the console).
workbench_run_profile <- function(args) {
  notes <- character()
  ru <- withCallingHandlers(do.call(ru_profile, args), warning = function(w) {
    notes <<- c(notes, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(ru = ru, notes = unique(notes))
}

#' Start a profile in the background
#'
#' Internal. Returns list(promise, progress_file, cancel_file): a promise of
#' list(ru, notes) (rejected with class `epimask_cancelled` after a cancel).
#' @noRd
workbench_start_profile <- function(args) {
  progress_file <- tempfile("epimask-progress-")
  cancel_file <- tempfile("epimask-cancel-")
  writeLines("0 1", progress_file)
  job <- workbench_profile_job
  fut <- future::future(job(args, progress_file, cancel_file),
                        globals = list(job = job, args = args, progress_file = progress_file,
                                       cancel_file = cancel_file),
                        packages = "epimask", seed = TRUE)
  list(promise = promises::as.promise(fut), progress_file = progress_file,
       cancel_file = cancel_file)
}

workbench_cancel_profile <- function(job) {
  if (!is.null(job)) file.create(job$cancel_file)
  invisible(NULL)
}

# c(step, total) from the progress file (0 of 1 while it cannot be read).
workbench_read_progress <- function(job) {
  line <- tryCatch(readLines(job$progress_file, n = 1L, warn = FALSE),
                   error = function(e) character(), warning = function(w) character())
  nums <- suppressWarnings(as.integer(strsplit(line[1L], " ", fixed = TRUE)[[1L]]))
  if (length(nums) != 2L || anyNA(nums) || nums[[2L]] < 1L) return(c(0L, 1L))
  nums
}

workbench_cleanup_job <- function(job) {
  if (!is.null(job)) unlink(c(job$progress_file, job$cancel_file))
  invisible(NULL)
}
