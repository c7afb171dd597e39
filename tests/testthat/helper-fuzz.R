# The engine of the fuzz test (test-fuzz.R): hostile calls run in forked
# child processes, so that a crash (segfault, abort, stack overflow) or a hang
# is counted as a failure of the call that caused it instead of ending the run.
#
# A case is list(label, fun, args): `fun` an export's name or a function
# (a closure the package returned, an S3 generic), `args` its argument list.
# Each case ends in exactly one outcome:
#   "value"     returned, without a warning
#   "warning"   returned, with a classed `epimask_warning` (and no other)
#   "error"     a classed `epimask_error`
#   "UNCLASSED: ..."  a base R / C level error or warning, or a value that
#               breaks the function's promise (NaN without a warning)
#   "MODIFIED"  the call changed one of its arguments in place
#   "CRASH" / "TIMEOUT"  the child process died or did not answer

# ---- one call ----------------------------------------------------------------

# The data of an argument list, without what may change legitimately when a
# function is called (closures get byte-compiled, environments are shared).
fuzz_strip <- function(x, depth = 0L) {
  if (is.function(x) || is.environment(x)) return("<fn/env>")
  if (inherits(x, "formula")) return(deparse(x))
  if (depth > 8L) return(x)
  # environments also hide in attributes (terms of a model frame)
  for (nm in names(attributes(x))) {
    a <- attr(x, nm)
    if (is.environment(a) || is.function(a)) attr(x, nm) <- NULL
    else if (is.list(a) || (!is.null(attributes(a)) && !nm %in% c("names", "dim", "dimnames", "class")))
      attr(x, nm) <- fuzz_strip(a, depth + 1L)
  }
  if (is.list(x)) x[] <- lapply(x, fuzz_strip, depth = depth + 1L)
  x
}

# A deep copy (serialize round trip), so that a change made in place by C
# code to the caller's object does not also reach the copy.
fuzz_snapshot <- function(args) unserialize(serialize(fuzz_strip(args), NULL))

fuzz_has_nan <- function(x, depth = 0L) {
  if (depth > 3L || is.function(x) || is.environment(x)) return(FALSE)
  if (is.list(x)) return(any(vapply(x, fuzz_has_nan, logical(1), depth = depth + 1L)))
  is.double(x) && any(is.nan(x))
}

# What a returned value must satisfy beyond not failing: no NaN anywhere in
# it (a silent NaN is a failure) unless a classed warning said why; masks of
# finite data stay finite.
fuzz_valid <- function(fun, res, warned) {
  if (!is.character(fun)) return(TRUE)
  # a grouping scheme keeps the caller's reference values, where NA (and so
  # NaN) marks a missing value that the means skip
  if (inherits(res, "mask_scheme")) res$reference <- NULL
  # (generalize() at level 0 is the identity: NaN in, NaN out)
  if (!warned && !fun %in% c("generalize", "kernel_matrix") && fuzz_has_nan(res)) return(FALSE)
  switch(fun,
    apply_mask = {
      num <- if (is.matrix(res)) res else res[vapply(res, is.numeric, logical(1))]
      all(is.finite(as.matrix(num))) || warned
    },
    risk_match = is.finite(res$expected_match_risk) && all(is.finite(res$sigma)),
    TRUE)
}

fuzz_call <- function(case) {
  # NaN handed in may come back out (a profile's NaN cell in its tidy table)
  nan_in <- grepl("NaN", case$label, fixed = TRUE)
  f <- if (is.character(case$fun)) getExportedValue("epimask", case$fun) else case$fun
  classed_warning <- FALSE
  other_warnings <- character()
  outcome <- withCallingHandlers(
    tryCatch({
      res <- do.call(f, case$args, quote = TRUE)
      # printing and formatting what a constructor returns must work too
      if (inherits(res, c("mask_scheme", "mask_list", "ru_profile"))) format(res)
      if (fuzz_valid(case$fun, res, classed_warning || nan_in)) "value"
      else "UNCLASSED: invalid result (NaN/Inf without a warning)"
    },
    epimask_error = function(e) "error",
    error = function(e) paste("UNCLASSED:", conditionMessage(e))),
    warning = function(w) {
      if (inherits(w, "epimask_warning")) classed_warning <<- TRUE
      else other_warnings <<- c(other_warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) invokeRestart("muffleMessage"))
  if (length(other_warnings) && !startsWith(outcome, "UNCLASSED"))
    outcome <- paste("UNCLASSED: warning:", other_warnings[[1L]])
  if (identical(outcome, "value") && classed_warning) outcome <- "warning"
  outcome
}

fuzz_run_case <- function(case) {
  before <- fuzz_snapshot(case$args)
  outcome <- fuzz_call(case)
  if (!identical(before, fuzz_strip(case$args))) outcome <- "MODIFIED"
  outcome
}

fuzz_run_batch <- function(cases) {
  old <- options(epimask.threads = 1L, warn = 0L)
  on.exit(options(old))
  # one thread even where a call asks for more: a forked child whose parent
  # (the test run) has a running OpenMP pool can hang in its first parallel
  # region; epimask_threads() honours the limit
  Sys.setenv(OMP_THREAD_LIMIT = "1")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  vapply(cases, function(case) {
    out <- fuzz_run_case(case)
    # a call that left a graphics device or a sink behind must not disturb the next one
    while (sink.number() > 0L) sink()
    out
  }, character(1))
}

# ---- child processes -------------------------------------------------------------

# Run `cases` in one forked child; NULL when the child died or timed out.
fuzz_child <- function(cases, timeout) {
  job <- parallel::mcparallel(fuzz_run_batch(cases), silent = TRUE)
  # (a child that died is reported here as a NULL result: its warning
  # "did not deliver a result" says nothing more)
  res <- suppressWarnings(parallel::mccollect(job, wait = FALSE, timeout = timeout))
  if (is.null(res)) {
    # still running: a hang (or an allocation that swaps); end it
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job, wait = TRUE)
    return("TIMEOUT")
  }
  out <- res[[1L]]
  if (is.character(out) && length(out) == length(cases)) out else NULL
}

# All cases, in batches of `batch` per child; a batch whose child died is
# re-run one case per child, so the crashing call is named.
fuzz_run_cases <- function(cases, batch = 200L, timeout = 120, single_timeout = 30) {
  outcome <- character(length(cases))
  groups <- split(seq_along(cases), ceiling(seq_along(cases) / batch))
  for (g in groups) {
    out <- fuzz_child(cases[g], timeout)
    if (!is.null(out) && !identical(out, "TIMEOUT")) {
      outcome[g] <- out
      next
    }
    for (i in g) {
      one <- fuzz_child(cases[i], single_timeout)
      outcome[i] <- if (is.null(one)) "CRASH" else one
    }
  }
  outcome
}

fuzz_summary <- function(cases, outcome) {
  bad <- !outcome %in% c("value", "warning", "error")
  list(
    counts = c(calls = length(outcome),
               values = sum(outcome == "value"),
               classed_warnings = sum(outcome == "warning"),
               classed_errors = sum(outcome == "error"),
               crashes = sum(outcome %in% c("CRASH", "TIMEOUT")),
               unclassed = sum(startsWith(outcome, "UNCLASSED")),
               modified = sum(outcome == "MODIFIED")),
    problems = unique(sprintf("%s: %s", vapply(cases[bad], `[[`, "", "label"), outcome[bad]))
  )
}

# ---- describing values ---------------------------------------------------------

fuzz_describe <- function(v) {
  if (is.null(v)) return("NULL")
  if (is.function(v)) return("<function>")
  cls <- paste(class(v), collapse = "/")
  txt <- tryCatch(paste(deparse(v, nlines = 1L), collapse = ""), error = function(e) "?")
  sprintf("<%s len %d: %s>", cls, length(v), substr(txt, 1, 40))
}

fuzz_case <- function(label, fun, args) list(label = label, fun = fun, args = args)
