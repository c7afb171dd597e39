# The workbench's server: reactive state and the wiring between the screens.
# Every input error becomes a message on the screen (never a stopped app):
# computations that may fail go through `attempt()`.

# Value of `expr`, or a condition object when it fails.
attempt <- function(expr) tryCatch(expr, error = function(e) e)
failed <- function(x) inherits(x, "error")

bundled_data <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "epimask", envir = env)
  as_plain_data(get(name, envir = env))
}

workbench_server <- function(data, data_name, start_plan = function() invisible()) {
  function(input, output, session) {
    session$onFlushed(start_plan, once = TRUE)
    rv <- shiny::reactiveValues(
      data = NULL, name = NULL, msg = NULL, upload_msg = NULL,
      ru = NULL, run = NULL, job = NULL, running = FALSE, progress = c(0L, 1L),
      run_msg = NULL, notes = character(), picked = NULL, picked_data = NULL)
    async <- workbench_async_available()
    plot_points <- shiny::reactiveVal(NULL)

    # ---- 1 data -------------------------------------------------------------
    set_data <- function(d, name, msg, level = "info") {
      rv$data <- d
      rv$name <- name
      rv$msg <- list(text = msg, level = level)
      rv$ru <- NULL
      rv$picked <- NULL
      rv$picked_data <- NULL
      apply_preset(session, workbench_preset(name, d), d)
    }
    shiny::observeEvent(input$source, {
      src <- input$source
      if (identical(src, "passed") && !is.null(data)) {
        chk <- check_upload_data(data, data_name)
        if (!is.null(chk$data)) set_data(data, data_name, chk$message, chk$level)
        else rv$msg <- list(text = chk$message, level = "error")
      } else if (src %in% c("dose_cohort", "zip_mortality")) {
        d <- bundled_data(src)
        set_data(d, src, sprintf("Loaded the bundled data set '%s': %d records, %d columns.",
                                 src, nrow(d), ncol(d)))
      } else if (identical(src, "upload") && is.null(input$upload)) {
        rv$msg <- list(text = "Choose a CSV (UTF-8) or RDS file.", level = "info")
      }
    })
    shiny::observeEvent(input$upload, {
      up <- input$upload
      res <- attempt(read_workbench_upload(up$datapath, up$name))
      if (failed(res)) res <- upload_error("The file could not be read: ", conditionMessage(res))
      shiny::updateRadioButtons(session, "source", selected = "upload")
      if (is.null(res$data)) {
        keep <- if (is.null(rv$name)) "" else sprintf(" The data in use are still '%s'.", rv$name)
        rv$msg <- list(text = paste0(res$message, keep), level = "error")
      } else {
        set_data(res$data, up$name, res$message, res$level)
      }
    })
    output$data_status <- shiny::renderUI(message_box(rv$msg$text, rv$msg$level, "data-message"))
    output$data_table <- shiny::renderTable({
      shiny::req(rv$data)
      describe_columns(rv$data, list(identifier = input$identifiers, `quasi-identifier` = input$keys,
                                     sensitive = input$sensitive, masked = input$vars))
    }, striped = TRUE, spacing = "xs")

    # ---- 2 variables and 3 context ------------------------------------------
    spec <- shiny::reactive(workbench_spec(input))
    context <- shiny::reactive(attempt(workbench_context(spec())))
    output$variables_status <- shiny::renderUI({
      shiny::req(rv$data)
      s <- spec()
      res <- attempt(workbench_profile_args(rv$data, s))
      if (failed(res)) message_box(conditionMessage(res), "warning")
      else message_box(sprintf("The release drops %s and masks %s.",
                               if (length(s$identifiers)) paste(s$identifiers, collapse = ", ") else "no column",
                               paste(s$vars, collapse = ", ")), "info")
    })
    output$context_text <- shiny::renderUI({
      ctx <- context()
      if (failed(ctx)) return(message_box(conditionMessage(ctx), "error", "context-message"))
      shiny::tagList(shiny::tags$ul(lapply(context_lines(ctx), shiny::tags$li)),
                     lapply(attr(ctx, "notes"), message_box, level = "warning"))
    })
    output$context_risk <- shiny::renderTable({
      shiny::req(rv$data)
      ctx <- context()
      s <- spec()
      if (failed(ctx) || !length(s$keys)) return(NULL)
      d <- rv$data[, setdiff(names(rv$data), s$identifiers), drop = FALSE]
      tab <- risk_rows(d, s$keys, s$sensitive, ctx)
      if (is.null(tab)) NULL else format_table(tab)
    }, caption = "Risk of the original data (quasi-identifiers as they are)")

    # ---- 4 masking: run and cancel ------------------------------------------
    shiny::observeEvent(input$run, {
      if (isTRUE(rv$running)) return()
      shiny::req(rv$data)
      s <- spec()
      ctx <- context()
      note <- NULL
      if (failed(ctx)) {
        # An incomplete context does not stop the exploration: the threshold
        # is still the risk budget; the attack risks wait for the context.
        note <- paste("Release context incomplete (", conditionMessage(ctx),
                      "): the profile uses the threshold as its budget, without attack risks.")
        ctx <- NULL
      }
      args <- attempt(workbench_profile_args(rv$data, s, ctx))
      if (failed(args)) {
        rv$run_msg <- list(text = conditionMessage(args), level = "error")
        return()
      }
      labels <- scheme_labels(with_reference_scheme(args$schemes))
      run <- list(spec = s, context = ctx, threshold = context_threshold(ctx) %||% s$threshold,
                  note = note, schemes = stats::setNames(with_reference_scheme(args$schemes), labels),
                  call = workbench_profile_call(s, rv$name), started = Sys.time())
      rv$ru <- NULL
      rv$notes <- character()
      rv$picked <- NULL
      rv$picked_data <- NULL
      finish <- function(res) {
        ru <- res$ru
        rv$running <- FALSE
        rv$notes <- res$notes
        rv$ru <- ru
        rv$run <- run
        secs <- as.numeric(difftime(Sys.time(), run$started, units = "secs"))
        rv$run_msg <- list(text = paste(sprintf("Profile done: %d schemes in %.1f s. See 5 Profile.",
                                                nrow(ru), secs), run$note %||% ""),
                           level = if (is.null(run$note)) "info" else "warning")
        select_after_run(session, ru, run$context, run$threshold)
      }
      fail <- function(e) {
        rv$running <- FALSE
        rv$run_msg <- list(text = if (inherits(e, "epimask_cancelled")) "The profile was cancelled."
                                  else paste("The profile failed:", conditionMessage(e)),
                           level = if (inherits(e, "epimask_cancelled")) "warning" else "error")
      }
      if (async) {
        start_plan()
        job <- attempt(workbench_start_profile(args))
        if (failed(job)) return(fail(job))
        rv$job <- job
        rv$running <- TRUE
        rv$progress <- c(0L, length(labels))
        rv$run_msg <- NULL
        done <- promises::then(job$promise, onFulfilled = finish, onRejected = fail)
        promises::finally(done, function() workbench_cleanup_job(job))
        return(invisible(NULL))  # not the promise: the session stays responsive
      }
      res <- shiny::withProgress(message = "Running the profile", value = 0.5,
                                 attempt(workbench_run_profile(args)))
      if (failed(res)) fail(res) else finish(res)
    })
    shiny::observe({
      if (!isTRUE(rv$running)) return()
      shiny::invalidateLater(250)
      rv$progress <- workbench_read_progress(shiny::isolate(rv$job))
    })
    shiny::observeEvent(input$cancel, {
      if (!isTRUE(rv$running)) return()
      workbench_cancel_profile(rv$job)
      rv$run_msg <- list(text = "Cancelling after the current scheme...", level = "warning")
    })
    output$run_status <- shiny::renderUI({
      bar <- if (isTRUE(rv$running))
        progress_bar(rv$progress[[1L]], rv$progress[[2L]],
                     sprintf("%d of %d fits done (schemes x replicates, in a background R process; the app stays usable)",
                             rv$progress[[1L]], rv$progress[[2L]]))
      shiny::tagList(bar, message_box(rv$run_msg$text, rv$run_msg$level, "run-message"),
                     if (!isTRUE(rv$running)) lapply(rv$notes, message_box, level = "warning"))
    })

    # ---- 5 profile ------------------------------------------------------------
    threshold <- shiny::reactive({
      if (!is.null(rv$run)) return(rv$run$threshold)
      ctx <- context()
      if (failed(ctx)) spec()$threshold else context_threshold(ctx)
    })
    output$ru_plot <- shiny::renderPlot({
      shiny::req(rv$ru)
      pts <- workbench_ru_plot(rv$ru, threshold(), input$selected)
      plot_points(pts[, intersect(c("scheme", "ndc_x", "ndc_y"), names(pts)), drop = FALSE])
    }, res = 96)
    output$profile_table <- shiny::renderTable({
      shiny::req(rv$ru)
      format_table(profile_display_table(rv$ru))
    }, striped = TRUE, spacing = "xs")
    shiny::observeEvent(input$ru_click, {
      shiny::req(rv$ru)
      near <- shiny::nearPoints(ru_points(rv$ru, threshold()), input$ru_click, xvar = "x",
                                yvar = "y", maxpoints = 1, threshold = 25)
      if (nrow(near)) shiny::updateSelectInput(session, "selected", selected = near$scheme[[1L]])
    })
    output$recommendation <- shiny::renderUI({
      shiny::req(rv$ru)
      shiny::req(rv$run)
      rn <- recommend_with_notes(rv$ru, rv$run$context, rv$run$threshold)
      shiny::tagList(
        if (!is.null(rn$rec)) message_box(paste(format(rn$rec), collapse = " "),
                                          if (is.null(rn$rec$scheme)) "warning" else "info",
                                          "recommendation-message"),
        lapply(rn$notes, message_box, level = "warning"))
    })
    masked <- shiny::reactive({
      shiny::req(rv$ru, rv$run, input$selected)
      scheme <- rv$run$schemes[[input$selected]]
      shiny::req(scheme)
      attempt(release_data(rv$data, scheme, rv$run$spec$vars, rv$run$spec$identifiers))
    })
    output$estimate_table <- shiny::renderTable({
      shiny::req(rv$ru, input$selected)
      tab <- scheme_estimate_table(rv$ru, input$selected)
      if (is.null(tab)) NULL else format_table(tab, 4)
    }, spacing = "xs")
    output$risk_table <- shiny::renderTable({
      m <- masked()
      if (failed(m)) return(data.frame(problem = conditionMessage(m)))
      s <- rv$run$spec
      d <- rv$data[, setdiff(names(rv$data), s$identifiers), drop = FALSE]
      tab <- scheme_risk_table(d, m, s$keys, s$sensitive, rv$run$context)
      if (is.null(tab)) data.frame(note = "Declare quasi-identifiers to see k-anonymity risks.")
      else format_table(tab)
    }, spacing = "xs")
    output$class_table <- shiny::renderTable({
      m <- masked()
      keys <- rv$run$spec$keys
      if (failed(m) || !length(keys)) return(NULL)
      class_size_counts(m, keys)
    }, caption = "Equivalence classes of the masked data on the quasi-identifiers, by size",
    spacing = "xs")
    shiny::observeEvent(input$pick, {
      m <- masked()
      if (failed(m)) return()
      rv$picked <- input$selected
      rv$picked_data <- m
      bslib::nav_select("tabs", "release", session = session)
    })

    # ---- 6 release --------------------------------------------------------------
    output$release_status <- shiny::renderUI({
      if (is.null(rv$picked))
        return(message_box("No scheme picked yet: pick one on 5 Profile. The downloads give the scheme selected there.",
                           "warning", "release-message"))
      message_box(sprintf("Release: %s, %d records, %d columns (identifiers dropped: %s).",
                          rv$picked, nrow(rv$picked_data), ncol(rv$picked_data),
                          paste(c(rv$run$spec$identifiers, "none")[1L], collapse = ", ")),
                  "info", "release-message")
    })
    release <- shiny::reactive({
      if (!is.null(rv$picked)) return(list(label = rv$picked, data = rv$picked_data))
      m <- masked()
      if (failed(m)) NULL else list(label = input$selected, data = m)
    })
    output$download_data <- shiny::downloadHandler(
      filename = function() paste0("masked-", sanitize_name(rv$name), ".csv"),
      content = function(file) {
        rel <- release()
        shiny::req(rel)
        utils::write.csv(rel$data, file, row.names = FALSE)
      })
    output$download_report <- shiny::downloadHandler(
      filename = function() paste0("release-report-", sanitize_name(rv$name), ".html"),
      content = function(file) {
        rel <- release()
        shiny::req(rv$ru, rel)
        s <- rv$run$spec
        release_report(rv$ru, file, data = rv$data, vars = s$vars, keys = s$keys,
                       sensitive = s$sensitive, identifiers = s$identifiers,
                       context = rv$run$context, choice = rel$label, masked = rel$data,
                       seed = s$seed, call = rv$run$call, data_name = rv$name)
      })

    shiny::exportTestValues(
      profile = if (is.null(rv$ru)) NULL else profile_display_table(rv$ru),
      selected = input$selected, picked = rv$picked, data_name = rv$name,
      running = rv$running, async = async, plot_points = plot_points(),
      progress = rv$progress)
  }
}

sanitize_name <- function(x) {
  x <- gsub("[^A-Za-z0-9_-]+", "-", sub("\\.[[:alnum:]]+$", "", x %||% "data"))
  if (nzchar(x)) x else "data"
}

# The custodian's choices as one list (what the statistics functions take).
workbench_spec <- function(input) {
  num <- function(x) if (is.null(x) || length(x) != 1L || is.na(x)) NULL else as.numeric(x)
  list(identifiers = input$identifiers, keys = input$keys, sensitive = input$sensitive,
       vars = input$vars, formula = input$formula %||% "", family = input$family %||% "gaussian",
       term = input$term %||% "", risk = input$risk %||% "none", known = input$known,
       round_sig = input$round_sig, round_dec = input$round_dec, noise = input$noise %||% "",
       noise_dist = input$noise_dist %||% "uniform", nrep = num(input$nrep) %||% 1,
       seed = num(input$seed), public = isTRUE(input$public),
       pr_attempt = num(input$pr_attempt), pr_acquaintance = num(input$pr_acquaintance),
       pr_breach = num(input$pr_breach), threshold = num(input$threshold),
       reasons = strsplit(input$reasons %||% "", "\n", fixed = TRUE)[[1L]])
}

apply_preset <- function(session, preset, data) {
  cols <- names(data)
  numeric <- cols[vapply(data, is.numeric, logical(1))]
  keep <- function(x, pool) intersect(x, pool)
  shiny::updateSelectizeInput(session, "identifiers", choices = cols, selected = keep(preset$identifiers, cols))
  shiny::updateSelectizeInput(session, "keys", choices = cols, selected = keep(preset$keys, cols))
  shiny::updateSelectizeInput(session, "sensitive", choices = cols, selected = keep(preset$sensitive, cols))
  shiny::updateSelectizeInput(session, "vars", choices = numeric, selected = keep(preset$vars, numeric))
  shiny::updateSelectizeInput(session, "known", choices = cols, selected = keep(preset$known, cols))
  shiny::updateTextInput(session, "formula", value = preset$formula)
  shiny::updateSelectInput(session, "family", selected = preset$family)
  shiny::updateTextInput(session, "term", value = preset$term)
  shiny::updateSelectInput(session, "risk", selected = preset$risk)
  shiny::updateCheckboxGroupInput(session, "round_sig", selected = as.character(preset$schemes$round_sig))
  shiny::updateCheckboxGroupInput(session, "round_dec", selected = as.character(preset$schemes$round_dec))
  shiny::updateTextInput(session, "noise", value = preset$schemes$noise)
}

select_after_run <- function(session, ru, context, threshold) {
  choice <- recommend_with_notes(ru, context, threshold)$rec$scheme
  if (is.null(choice)) choice <- ru$scheme[[1L]]
  shiny::updateSelectInput(session, "selected", choices = ru$scheme, selected = choice)
}
