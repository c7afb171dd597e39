# Helpers of the workbench tests (test-workbench.R, test-workbench-persons.R).

# The server in this R process (no background job), shiny and bslib present.
local_sync_workbench <- function(env = parent.frame()) {
  skip_if_not_installed("shiny")
  skip_if_not_installed("bslib")
  old <- options(epimask.workbench_async = FALSE)
  do.call(on.exit, list(bquote(options(.(old))), add = TRUE), envir = env)
}

browser_tests_required <- function() identical(Sys.getenv("EPIMASK_BROWSER_TESTS"), "true")

# Chromium for chromote: CHROMOTE_CHROME, else Debian's chromium on the path.
find_chromium <- function() {
  env <- Sys.getenv("CHROMOTE_CHROME")
  if (nzchar(env) && file.exists(env)) return(env)
  hits <- Sys.which(c("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"))
  hits <- hits[nzchar(hits)]
  if (length(hits)) unname(hits[[1L]]) else ""
}

# Skips cleanly unless EPIMASK_BROWSER_TESTS=true, where anything missing is a
# failure: CI must run these tests.
local_browser <- function() {
  missing <- c(if (!requireNamespace("shinytest2", quietly = TRUE)) "the shinytest2 package",
               if (!requireNamespace("chromote", quietly = TRUE)) "the chromote package",
               if (!requireNamespace("shiny", quietly = TRUE)) "the shiny package",
               if (!requireNamespace("bslib", quietly = TRUE)) "the bslib package",
               if (!nzchar(find_chromium())) "a Chromium browser")
  if (length(missing)) {
    msg <- paste("Browser tests need", paste(missing, collapse = ", "))
    if (browser_tests_required()) stop(msg, " (EPIMASK_BROWSER_TESTS=true).", call. = FALSE)
    testthat::skip(msg)
  }
  if (browser_tests_required()) {
    # shinytest2 (>= 0.4) skips every AppDriver under R CMD check unless told
    # not to; CI runs R CMD check and must run these tests.
    Sys.setenv(SHINYTEST2_APP_DRIVER_TEST_ON_CRAN = "1")
  } else {
    testthat::skip_on_cran()
  }
  Sys.setenv(CHROMOTE_CHROME = find_chromium())
  # With --disable-dev-shm-usage Chromium keeps its shared memory in files
  # (org.chromium.Chromium.*) under TMPDIR, and a browser closed at the end of
  # the R process can leave one behind (R CMD check's "detritus in the temp
  # directory"). Under R's own session directory they go with it.
  if (!identical(Sys.getenv("TMPDIR"), tempdir())) Sys.setenv(TMPDIR = tempdir())
  args <- c("--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage")
  if (.Platform$OS.type == "unix" && identical(unname(Sys.info()[["effective_user"]]), "root"))
    args <- c(args, "--no-sandbox")
  chromote::set_chrome_args(args)
  invisible(TRUE)
}


# The text of an element of the page (empty when it is absent).
text_of <- function(app, selector) {
  app$get_js(sprintf("(function(){var e=document.querySelector('%s');return e?e.innerText:'';})()",
                     selector))
}
