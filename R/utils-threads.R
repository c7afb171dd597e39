# One thread policy for every OpenMP routine of the C core (kernel masking,
# matching risk, IRLS, frequency counts): the number of threads a .Call gets.

# The most threads a call may ask for.
max_threads <- 1024L

#' Threads used by the C core
#'
#' Every OpenMP routine of epimask (kernel masking, matching risk, model
#' fitting, frequency counts) runs on `epimask_threads()` threads. The value
#' is, in order: the `threads` argument when given; the option
#' `epimask.threads`; otherwise the number of cores
#' ([parallel::detectCores()]), but no more than the option `mc.cores` when
#' it is set (the parallel package's setting, which `future` workers and
#' cluster jobs use to say how many cores a task may take, so that work split
#' over workers does not start nested threads). It is never more than the environment
#' variable `OMP_THREAD_LIMIT` allows, never more than 2 under
#' `R CMD check` (which sets `_R_CHECK_LIMIT_CORES_`), as CRAN asks.
#'
#' These are the most threads a routine uses. On a machine whose cores are
#' kept busy by other sessions, Linux shares CPU time between sessions, not
#' threads, so the threads of one R session get no more than one thread
#' would, and their waits for each other cost time. The C core therefore
#' measures what its threads get: a helper thread that is on a core less than
#' 60% of the time stops taking work, and after a parallel region whose
#' threads got less than 1.25 cores of CPU time (their own CPU clocks over
#' the wall-clock time) the work of the next second runs on one thread; then
#' threads are tried again (after 2, 4, ... up to 16 seconds while the
#' verdict repeats). Threads wait for each other by sleeping, not spinning.
#' Results never depend on the number of threads. Measured in
#' `inst/bench/bench-threads.R` (2-core AMD EPYC shared with four other
#' sessions, load average 5.5-7.2, a busy loop of another session added):
#' 2 threads 0.96-1.10 times as fast as 1 over the model fits, linkage,
#' kernel masking and the matching risk (the code before, in the next run at
#' load 6.3-8.9: 0.84-1.05); nearly idle (load 0.5-1.4) 2 threads made a
#' model fit 1.4-1.6 times as fast (the code before, and the passive waits
#' before the governor was added; the machine was not idle again to measure
#' the final code).
#'
#' @param threads `NULL` or a whole number of threads, from 1 to 1024 (the
#'   bound is checked before any thread is started).
#' @return The number of threads, an integer of at least 1.
#' @family utilities
#' @examples
#' epimask_threads()
#' old <- options(epimask.threads = 1)
#' epimask_threads()
#' options(old)
#' @export
epimask_threads <- function(threads = NULL) {
  if (is.null(threads)) threads <- getOption("epimask.threads", NULL)
  if (is.null(threads)) {
    threads <- detected_cores()
    mc <- getOption("mc.cores")
    if (is.numeric(mc) && length(mc) == 1L && !is.na(mc) && mc >= 1) threads <- min(threads, mc)
  }
  # OpenMP sets up each requested thread: bounded before any is started
  threads <- check_number(threads, "threads", lower = 1, upper = max_threads, integer = TRUE)
  limit <- suppressWarnings(as.integer(Sys.getenv("OMP_THREAD_LIMIT", "")))
  if (!is.na(limit) && limit >= 1L) threads <- min(threads, limit)
  check_limit <- tolower(Sys.getenv("_R_CHECK_LIMIT_CORES_", ""))
  if (nzchar(check_limit) && check_limit != "false") threads <- min(threads, 2L)
  as.integer(threads)
}

# parallel::detectCores() runs a shell command on Linux (about 30 ms, more
# than a whole model fit at n = 1e5): the count is taken once per session.
detected_cores <- local({
  cores <- NULL
  function() {
    if (is.null(cores)) {
      found <- parallel::detectCores(logical = TRUE)
      cores <<- if (is.na(found)) 1L else found
    }
    cores
  }
})

# Progress of a long search, signalled through progressr when it is
# installed (the user sees it under progressr::with_progress() or
# progressr::handlers(global = TRUE)); a no-op function otherwise.
search_progressor <- function(steps) {
  if (!requireNamespace("progressr", quietly = TRUE)) return(function(...) invisible())
  progressr::progressor(steps = steps, envir = parent.frame())
}
