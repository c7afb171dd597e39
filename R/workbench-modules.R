# The workbench's steps as Shiny modules, one per step, each a UI function
# and a server function. A module owns its inputs and outputs (ids prefixed
# with the step: "data-source", "masking-run", ...) and hands the next steps
# reactives; workbench_server() (workbench-server.R) wires them:
#   data      -> the loaded data and a stamp that ticks at each load
#   variables -> the roles and the collaborator's model
#   context   -> the release context (or the condition it fails with)
#   masking   -> the schemes, the risk measure, and the profile run
#   profile   -> the R-U plot, the selected and the picked scheme
#   release   -> the downloads
# Every input error becomes a message on the screen (never a stopped app):
# computations that may fail go through `attempt()`.

wb_card <- function(title, ...) bslib::card(bslib::card_header(title), bslib::card_body(...))

# ---- 1 data -------------------------------------------------------------------

wb_data_ui <- function(id, data, data_name) {
  ns <- shiny::NS(id)
  shiny::fluidRow(
    shiny::column(4, wb_card("Source",
      shiny::radioButtons(ns("source"), NULL, workbench_sources(data, data_name),
                          selected = if (is.null(data)) "dose_cohort" else "passed"),
      shiny::fileInput(ns("upload"), "CSV (UTF-8), RDS, SAS, Stata or SPSS file",
                       accept = paste0(".", workbench_upload_types())),
      shiny::uiOutput(ns("status")))),
    shiny::column(8, wb_card("Columns (counts only, no values)",
      shiny::tableOutput(ns("columns")))))
}

# `roles()`: the roles of the columns, for the column table.
wb_data_server <- function(id, data, data_name, roles) {
  shiny::moduleServer(id, function(input, output, session) {
    rv <- shiny::reactiveValues(data = NULL, name = NULL, msg = NULL, stamp = 0L)
    set_data <- function(d, name, msg, level = "info") {
      rv$data <- d
      rv$name <- name
      rv$msg <- list(text = msg, level = level)
      rv$stamp <- rv$stamp + 1L
    }
    shiny::observeEvent(input$source, {
      src <- input$source
      if (identical(src, "passed") && !is.null(data)) {
        chk <- check_upload_data(data, data_name)
        if (!is.null(chk$data)) set_data(data, data_name, chk$message, chk$level)
        else rv$msg <- list(text = chk$message, level = "error")
      } else if (src %in% workbench_bundled()) {
        d <- bundled_data(src)
        set_data(d, src, sprintf("Loaded the bundled data set '%s': %d records, %d columns.",
                                 src, nrow(d), ncol(d)))
      } else if (identical(src, "upload") && is.null(input$upload)) {
        rv$msg <- list(text = "Choose a CSV (UTF-8), RDS, SAS, Stata or SPSS file.", level = "info")
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
    output$status <- shiny::renderUI(message_box(rv$msg$text, rv$msg$level, "data-message"))
    output$columns <- shiny::renderTable({
      shiny::req(rv$data)
      describe_columns(rv$data, roles())
    }, striped = TRUE, spacing = "xs")
    list(data = shiny::reactive(rv$data), name = shiny::reactive(rv$name),
         stamp = shiny::reactive(rv$stamp), message = shiny::reactive(rv$msg))
  })
}

# The preset of the data just loaded (NULL before any), for the steps that
# propose defaults.
wb_preset <- function(loaded) {
  d <- loaded$data()
  if (is.null(d)) return(NULL)
  list(preset = workbench_preset(loaded$name(), d), cols = names(d),
       numeric = names(d)[vapply(d, is.numeric, logical(1))])
}

# ---- 2 variables --------------------------------------------------------------

wb_variables_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::fluidRow(
    shiny::column(6, wb_card("Roles",
      shiny::selectizeInput(ns("identifiers"), "Direct identifiers (dropped from the release)", NULL, multiple = TRUE),
      shiny::selectInput(ns("person"), "Person column, when a person has several records (visits, stays)",
                         workbench_person_choices(character())),
      shiny::tags$p(class = "small text-muted", id = ns("person-help"),
        "With a person column every risk counts persons, not records (a person with 5 visits in a",
        "class of 5 records is alone in it), deidentify() suppresses persons with all their",
        "records, and the column is dropped from every release."),
      shiny::selectizeInput(ns("keys"), "Quasi-identifiers (keys an intruder may know)", NULL, multiple = TRUE),
      shiny::selectizeInput(ns("sensitive"), "Sensitive variables", NULL, multiple = TRUE),
      shiny::selectizeInput(ns("vars"), "Variables to mask (numeric)", NULL, multiple = TRUE))),
    shiny::column(6, wb_card("The collaborator's analysis",
      shiny::textInput(ns("formula"), "Model formula", ""),
      shiny::selectInput(ns("family"), "Model", c("Linear (gaussian)" = "gaussian",
                                                 "Logistic (binomial)" = "binomial",
                                                 "Poisson" = "poisson",
                                                 "Linear excess relative risk (ERR)" = "err")),
      shiny::textInput(ns("term"), "Coefficient of interest (the dose for ERR)", ""),
      shiny::uiOutput(ns("status")))))
}

# Returns the roles and the model as a reactive list; `spec()` is the
# custodian's whole choice (for the status line).
wb_variables_server <- function(id, loaded, spec) {
  shiny::moduleServer(id, function(input, output, session) {
    shiny::observeEvent(loaded$stamp(), {
      p <- wb_preset(loaded)
      shiny::req(p)
      keep <- function(x, pool) intersect(x, pool)
      pre <- p$preset
      shiny::updateSelectizeInput(session, "identifiers", choices = p$cols, selected = keep(pre$identifiers, p$cols))
      shiny::updateSelectInput(session, "person", choices = workbench_person_choices(p$cols),
                               selected = c(keep(pre$person, p$cols), "")[[1L]])
      shiny::updateSelectizeInput(session, "keys", choices = p$cols, selected = keep(pre$keys, p$cols))
      shiny::updateSelectizeInput(session, "sensitive", choices = p$cols, selected = keep(pre$sensitive, p$cols))
      shiny::updateSelectizeInput(session, "vars", choices = p$numeric, selected = keep(pre$vars, p$numeric))
      shiny::updateTextInput(session, "formula", value = pre$formula)
      shiny::updateSelectInput(session, "family", selected = pre$family)
      shiny::updateTextInput(session, "term", value = pre$term)
    })
    output$status <- shiny::renderUI({
      shiny::req(loaded$data())
      s <- spec()
      res <- attempt(workbench_profile_args(loaded$data(), s))
      if (failed(res)) message_box(conditionMessage(res), "warning")
      else message_box(sprintf("The release drops %s and masks %s.%s",
                               if (length(c(s$identifiers, s$person)))
                                 paste(c(s$identifiers, s$person), collapse = ", ") else "no column",
                               paste(s$vars, collapse = ", "),
                               if (is.null(s$person)) "" else sprintf(
                                 " Every risk counts persons (person column '%s').", s$person)),
                       "info")
    })
    shiny::reactive(list(identifiers = input$identifiers,
                         person = if (nzchar(input$person %||% "")) input$person,
                         keys = input$keys,
                         sensitive = input$sensitive, vars = input$vars,
                         formula = input$formula %||% "", family = input$family %||% "gaussian",
                         term = input$term %||% ""))
  })
}

# ---- 3 context ----------------------------------------------------------------

wb_context_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::fluidRow(
    shiny::column(5, wb_card("Release context (El Emam & Malin)",
      shiny::checkboxInput(ns("public"), "Public release (anyone may attempt re-identification)", FALSE),
      shiny::numericInput(ns("pr_attempt"), "Pr(attempt): a recipient tries deliberately", NA, 0, 1, 0.05),
      shiny::numericInput(ns("pr_acquaintance"), "Pr(acquaintance): an analyst knows someone in the data", NA, 0, 1, 0.05),
      shiny::numericInput(ns("pr_breach"), "Pr(breach) (0.27: HIMSS 2012)", 0.27, 0, 1, 0.01),
      shiny::selectInput(ns("threshold"), "Threshold", c("1/3 (highly trusted recipient)" = 1/3,
                                                        "1/5" = 1/5, "1/11" = 1/11,
                                                        "1/20 (public release)" = 1/20), selected = 1/5),
      shiny::textAreaInput(ns("reasons"), "Reasons for the threshold (one per line)", "", rows = 3)),
      wb_card("If the release is a sample of a population",
        shiny::tags$p(class = "small text-muted",
          "Population uniqueness and the log-linear risk estimate how many people of the",
          "population are unique on the quasi-identifiers (methods vignette, sections 21-22); they",
          "need the sampling fraction, or the population size. Cluster risk counts a cluster",
          "(household, care home) as re-identified with any of its members."),
        shiny::fluidRow(
          shiny::column(6, shiny::numericInput(ns("sample_pi"), "Sampling fraction (0-1]", NA, 0, 1, 0.01)),
          shiny::column(6, shiny::numericInput(ns("sample_population"), "or population size", NA, 1, NA, 1))),
        shiny::checkboxGroupInput(ns("sample_measures"), "Estimate",
                                  c("Population uniques (Dankar et al.'s rule)" = "population",
                                    "Log-linear risk (tau1, tau2)" = "loglinear")),
        shiny::selectInput(ns("cluster"), "Cluster column (cluster risk)",
                           workbench_cluster_choices(character())),
        shiny::uiOutput(ns("sample_status")))),
    shiny::column(7, wb_card("The context as recorded",
      shiny::uiOutput(ns("text")),
      shiny::tableOutput(ns("risk")),
      shiny::uiOutput(ns("risk_notes")))))
}

# Returns the context's fields (reactive list) and the context itself (a
# release_context() or the condition it fails with).
wb_context_server <- function(id, loaded, roles) {
  shiny::moduleServer(id, function(input, output, session) {
    num <- function(x) if (is.null(x) || length(x) != 1L || is.na(x)) NULL else as.numeric(x)
    fields <- shiny::reactive(list(
      public = isTRUE(input$public), pr_attempt = num(input$pr_attempt),
      pr_acquaintance = num(input$pr_acquaintance), pr_breach = num(input$pr_breach),
      threshold = num(input$threshold),
      reasons = strsplit(input$reasons %||% "", "\n", fixed = TRUE)[[1L]],
      sample_pi = num(input$sample_pi), sample_population = num(input$sample_population),
      sample_measures = as.character(input$sample_measures %||% character()),
      cluster = if (length(input$cluster) == 1L && nzchar(input$cluster)) input$cluster))
    shiny::observeEvent(loaded$data(), {
      d <- loaded$data()
      shiny::updateSelectInput(session, "cluster", choices = workbench_cluster_choices(names(d)),
                               selected = "")
    })
    # the sample rows' risk specs (or the condition saying what is missing)
    samples <- shiny::reactive({
      d <- loaded$data()
      shiny::req(d)
      attempt(workbench_sample_specs(c(roles(), fields()), d))
    })
    context <- shiny::reactive(attempt(workbench_context(fields())))
    output$text <- shiny::renderUI({
      ctx <- context()
      if (failed(ctx)) return(message_box(conditionMessage(ctx), "error", "context-message"))
      shiny::tagList(shiny::tags$ul(lapply(context_lines(ctx), shiny::tags$li)),
                     lapply(attr(ctx, "notes"), message_box, level = "warning"))
    })
    original_risk <- shiny::reactive({
      shiny::req(loaded$data())
      ctx <- context()
      r <- roles()
      if (failed(ctx) || !length(r$keys)) return(NULL)
      d <- loaded$data()
      d <- d[, setdiff(names(d), setdiff(r$identifiers, r$person)), drop = FALSE]
      specs <- samples()
      attempt(risk_rows(d, r$keys, r$sensitive, ctx, if (!failed(specs)) specs, original = d,
                        what = "the original data", id = r$person))
    })
    output$risk <- shiny::renderTable({
      tab <- original_risk()
      if (is.null(tab) || failed(tab)) NULL else format_table(tab)
    }, caption = "Risk of the original data (quasi-identifiers as they are)")
    output$risk_notes <- shiny::renderUI({
      tab <- original_risk()
      if (failed(tab)) return(message_box(conditionMessage(tab), "error"))
      risk_notes_ui(attr(tab, "notes"), roles()$person, session$ns("sample-notes"))
    })
    output$sample_status <- shiny::renderUI({
      specs <- samples()
      if (failed(specs)) message_box(conditionMessage(specs), "warning", session$ns("sample-message"))
    })
    list(fields = fields, context = context)
  })
}

# ---- 4 masking: schemes, risk measure, run and cancel ---------------------------

wb_masking_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::fluidRow(
    shiny::column(5, wb_card("Schemes (swept weak to strong)",
      shiny::checkboxGroupInput(ns("round_sig"), "Round to significant digits", 1:4, inline = TRUE),
      shiny::checkboxGroupInput(ns("round_dec"), "Round to decimal places", 0:3, inline = TRUE),
      shiny::textInput(ns("noise"), "Noise amounts (comma separated)", ""),
      shiny::selectInput(ns("noise_dist"), "Noise distribution", c("uniform", "normal")),
      shiny::checkboxGroupInput(ns("synth_methods"), "Synthesis of the masked variables (mask_synth())",
                                workbench_synth_choices()),
      # the synthesis settings, shown once a method is ticked
      shiny::conditionalPanel("input.synth_methods && input.synth_methods.length > 0", ns = ns,
        shiny::fluidRow(
          shiny::column(6, shiny::numericInput(ns("synth_m"), "Synthetic copies m", 5, 1, 50, 1)),
          shiny::column(6, shiny::numericInput(ns("synth_holdout"), "Hold-out share (the attacks' control)",
                                               0.5, 0, 0.9, 0.05)))),
      shiny::tags$p(class = "small text-muted",
        "A synthesis replaces the masked variables by m copies drawn from models fitted to the",
        "data; the collaborator's estimate combines the copies' fits by the synthetic-data rules.",
        "Record linkage does not apply to new records: judge synthesis by an Article 29 attack."))),
    shiny::column(7, wb_card("Risk measure and run",
      shiny::selectInput(ns("risk"), "Risk measure", workbench_risk_choices()),
      shiny::selectizeInput(ns("known"), "Variables the intruder knows", NULL, multiple = TRUE),
      # the secret matters to the attacks that guess it (and singling out's predicates)
      shiny::conditionalPanel("['article29', 'inference', 'singling_out'].indexOf(input.risk) >= 0", ns = ns,
        shiny::selectInput(ns("secret"), "Secret the intruder infers (Article 29 inference attack)",
                           character())),
      shiny::fluidRow(
        shiny::column(6, shiny::numericInput(ns("nrep"), "Replicates of random schemes", 10, 1, 1000, 1)),
        shiny::column(6, shiny::numericInput(ns("seed"), "Seed", 1, 1, .Machine$integer.max, 1))),
      shiny::tags$div(class = "d-flex gap-2",
                      shiny::actionButton(ns("run"), "Run profile", class = "btn-primary"),
                      shiny::actionButton(ns("cancel"), "Cancel", class = "btn-outline-danger")),
      shiny::uiOutput(ns("status")))))
}

# Returns the masking fields (reactive list) and the run's state: `result()`
# is NULL or list(ru, run, notes), `running()`, `progress()`, `async`.
wb_masking_server <- function(id, loaded, spec, context, start_plan = function() invisible()) {
  shiny::moduleServer(id, function(input, output, session) {
    rv <- shiny::reactiveValues(result = NULL, job = NULL, running = FALSE,
                                progress = c(0L, 1L), msg = NULL)
    async <- workbench_async_available()
    shiny::observeEvent(loaded$stamp(), {
      p <- wb_preset(loaded)
      shiny::req(p)
      pre <- p$preset
      rv$result <- NULL
      shiny::updateSelectizeInput(session, "known", choices = p$cols, selected = intersect(pre$known, p$cols))
      shiny::updateSelectInput(session, "secret", choices = p$cols,
                               selected = c(intersect(pre$sensitive, p$cols), p$cols)[[1L]])
      shiny::updateSelectInput(session, "risk", selected = pre$risk)
      shiny::updateCheckboxGroupInput(session, "round_sig", selected = as.character(pre$schemes$round_sig))
      shiny::updateCheckboxGroupInput(session, "round_dec", selected = as.character(pre$schemes$round_dec))
      shiny::updateTextInput(session, "noise", value = pre$schemes$noise)
    })
    fields <- shiny::reactive({
      num <- function(x) if (is.null(x) || length(x) != 1L || is.na(x)) NULL else as.numeric(x)
      list(risk = input$risk %||% "none", known = input$known, round_sig = input$round_sig,
           round_dec = input$round_dec, noise = input$noise %||% "",
           noise_dist = input$noise_dist %||% "uniform", nrep = num(input$nrep) %||% 1,
           seed = num(input$seed), secret = if (nzchar(input$secret %||% "")) input$secret,
           synth_methods = as.character(input$synth_methods %||% character()),
           synth_m = num(input$synth_m), synth_holdout = num(input$synth_holdout))
    })
    shiny::observeEvent(input$run, {
      if (isTRUE(rv$running)) return()
      shiny::req(loaded$data())
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
      args <- attempt(workbench_profile_args(loaded$data(), s, ctx))
      if (failed(args)) {
        rv$msg <- list(text = conditionMessage(args), level = "error")
        return()
      }
      schemes <- with_reference_scheme(args$schemes)
      labels <- scheme_labels(schemes)
      run <- list(spec = s, context = ctx, threshold = context_threshold(ctx) %||% s$threshold,
                  note = note, schemes = stats::setNames(schemes, labels),
                  call = workbench_profile_call(s, loaded$name()), started = Sys.time())
      rv$result <- NULL
      finish <- function(res) {
        rv$running <- FALSE
        rv$result <- list(ru = res$ru, run = run, notes = res$notes)
        secs <- as.numeric(difftime(Sys.time(), run$started, units = "secs"))
        rv$msg <- list(text = paste(sprintf("Profile done: %d schemes in %.1f s. See 5 Profile.",
                                            nrow(res$ru), secs), run$note %||% ""),
                       level = if (is.null(run$note)) "info" else "warning")
      }
      fail <- function(e) {
        rv$running <- FALSE
        rv$msg <- list(text = if (inherits(e, "epimask_cancelled")) "The profile was cancelled."
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
        rv$msg <- NULL
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
      rv$msg <- list(text = "Cancelling after the current scheme...", level = "warning")
    })
    output$status <- shiny::renderUI({
      bar <- if (isTRUE(rv$running))
        progress_bar(rv$progress[[1L]], rv$progress[[2L]],
                     sprintf("%d of %d fits done (schemes x replicates, in a background R process; the app stays usable)",
                             rv$progress[[1L]], rv$progress[[2L]]))
      shiny::tagList(bar, message_box(rv$msg$text, rv$msg$level, "run-message"),
                     if (!isTRUE(rv$running)) lapply(rv$result$notes, message_box, level = "warning"))
    })
    list(fields = fields, result = shiny::reactive(rv$result),
         running = shiny::reactive(rv$running), progress = shiny::reactive(rv$progress),
         message = shiny::reactive(rv$msg), async = async)
  })
}

# ---- 5 profile ----------------------------------------------------------------

wb_profile_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::tagList(
    shiny::fluidRow(
      shiny::column(7, wb_card("Risk-utility plot (click a point)",
        shiny::plotOutput(ns("ru_plot"), height = "540px", click = ns("ru_click")))),
      shiny::column(5, wb_card("Selected scheme",
        shiny::selectInput(ns("selected"), "Scheme", character()),
        shiny::uiOutput(ns("verdict")),
        shiny::tableOutput(ns("estimate")),
        shiny::tags$h6("Risk of the masked data (original for comparison)"),
        shiny::tableOutput(ns("risk")),
        shiny::uiOutput(ns("risk_notes")),
        shiny::tableOutput(ns("classes")),
        shiny::actionButton(ns("pick"), "Pick this scheme for the release", class = "btn-success"),
        shiny::tags$h6(class = "mt-3", "Recommendation within the threshold"),
        shiny::uiOutput(ns("recommendation"))))),
    wb_card("All schemes (U: analysis potential; SE: Monte Carlo standard errors)",
            shiny::tableOutput(ns("schemes"))))
}

# Returns the selected scheme, the picked one and its data, and where the
# plot's points landed. `go_release()` moves to the release step.
wb_profile_server <- function(id, loaded, result, context, spec, go_release = function() invisible()) {
  shiny::moduleServer(id, function(input, output, session) {
    rv <- shiny::reactiveValues(picked = NULL, picked_data = NULL, points = NULL)
    ru <- shiny::reactive(result()$ru)
    run <- shiny::reactive(result()$run)
    shiny::observeEvent(result(), {
      rv$picked <- NULL
      rv$picked_data <- NULL
      res <- result()
      if (is.null(res)) return()
      # preselect the recommendation among the schemes whose release passes
      v <- attempt(verdicts())
      failing <- if (failed(v)) character() else v$scheme[!v$pass & !is.na(v$release_risk)]
      candidates <- res$ru[!(res$ru$scheme %in% failing), ]
      choice <- if (inherits(candidates, "ru_profile"))
        recommend_with_notes(candidates, res$run$context, res$run$threshold)$rec$scheme
      shiny::updateSelectInput(session, "selected", choices = res$ru$scheme,
                               selected = choice %||% res$ru$scheme[[1L]])
    }, ignoreNULL = FALSE)
    threshold <- shiny::reactive({
      if (!is.null(run())) return(run()$threshold)
      ctx <- context()
      if (failed(ctx)) spec()$threshold else context_threshold(ctx)
    })
    # The released data of every scheme (noise drawn from unrecorded seeds),
    # once per run, and the verdict on each: the certificate is the verdict.
    releases <- shiny::reactive({
      shiny::req(ru(), run())
      s <- run()$spec
      lapply(run()$schemes, function(scheme)
        attempt(release_data(loaded$data(), scheme, s$vars, c(s$identifiers, s$person))))
    })
    verdicts <- shiny::reactive({
      rel <- releases()
      ok <- !vapply(rel, failed, logical(1))
      scheme_verdicts(ru()[ru()$scheme %in% names(rel)[ok], ], rel[ok], run(),
                      original = loaded$data())
    })
    output$ru_plot <- shiny::renderPlot({
      shiny::req(ru())
      pts <- workbench_ru_plot(ru(), threshold(), input$selected, verdicts())
      rv$points <- pts[, intersect(c("scheme", "ndc_x", "ndc_y"), names(pts)), drop = FALSE]
    }, res = 96)
    output$schemes <- shiny::renderTable({
      shiny::req(ru())
      tab <- profile_display_table(ru())
      v <- verdicts()
      if (any(!is.na(v$release_risk))) tab$release_risk <- v$release_risk[match(tab$scheme, v$scheme)]
      tab$verdict <- ifelse(v$pass[match(tab$scheme, v$scheme)] %in% TRUE, "within", "OVER")
      format_table(tab)
    }, striped = TRUE, spacing = "xs")
    output$verdict <- shiny::renderUI({
      shiny::req(ru(), run(), input$selected)
      m <- masked()
      if (failed(m)) return(NULL)
      s <- run()$spec
      v <- release_verdict(person_counted(m, loaded$data(), s$person), s$keys, run()$context,
                           ru()$risk[ru()$scheme == input$selected], ru_meta(ru())$risk,
                           run()$threshold, id = s$person,
                           original = verdict_original(loaded$data(), s))
      message_box(verdict_text(v, input$selected), if (v$pass) "info" else "error",
                  "verdict-message")
    })
    shiny::observeEvent(input$ru_click, {
      shiny::req(ru())
      near <- shiny::nearPoints(ru_points(ru(), threshold()), input$ru_click, xvar = "x",
                                yvar = "y", maxpoints = 1, threshold = 25)
      if (nrow(near)) shiny::updateSelectInput(session, "selected", selected = near$scheme[[1L]])
    })
    output$recommendation <- shiny::renderUI({
      shiny::req(ru(), run())
      # only schemes whose release passes every risk of the verdict compete
      v <- verdicts()
      failing <- v$scheme[!v$pass & !is.na(v$release_risk)]
      candidates <- ru()[!(ru()$scheme %in% failing), ]
      if (!inherits(candidates, "ru_profile"))
        return(message_box(sprintf(paste(
          "No scheme passes: the release context's attacks on the quasi-identifiers (%s) leave",
          "every release at an overall risk of %s or more, over the threshold %s. Masking %s alone",
          "cannot fix that: generalise or suppress the quasi-identifiers first."),
          paste(run()$spec$keys, collapse = ", "), format_num(min(v$release_risk, na.rm = TRUE), 2),
          format_num(run()$threshold, 3), paste(run()$spec$vars, collapse = ", ")),
          "warning", "recommendation-message"))
      rn <- recommend_with_notes(candidates, run()$context, run()$threshold)
      if (length(failing))
        rn$notes <- c(rn$notes, sprintf(
          "Left out: %s (the context's attacks on the release are over the threshold).",
          paste(failing, collapse = "; ")))
      shiny::tagList(
        if (!is.null(rn$rec)) message_box(paste(format(rn$rec), collapse = " "),
                                          if (is.null(rn$rec$scheme)) "warning" else "info",
                                          "recommendation-message"),
        lapply(rn$notes, message_box, level = "warning"))
    })
    masked <- shiny::reactive({
      shiny::req(ru(), run(), input$selected)
      rel <- releases()[[input$selected]]
      shiny::req(rel)
      rel
    })
    output$estimate <- shiny::renderTable({
      shiny::req(ru(), input$selected)
      tab <- scheme_estimate_table(ru(), input$selected)
      if (is.null(tab)) NULL else format_table(tab, 4)
    }, spacing = "xs")
    risk_table <- shiny::reactive({
      m <- masked()
      if (failed(m)) return(m)
      s <- run()$spec
      d <- loaded$data()
      d <- d[, setdiff(names(d), setdiff(s$identifiers, s$person)), drop = FALSE]
      specs <- attempt(workbench_sample_specs(s, d))
      attempt(scheme_risk_table(d, m, s$keys, s$sensitive, run()$context,
                                if (!failed(specs)) specs, id = s$person, ru = ru(),
                                label = input$selected))
    })
    output$risk <- shiny::renderTable({
      tab <- risk_table()
      if (failed(tab)) return(data.frame(problem = conditionMessage(tab)))
      if (is.null(tab)) data.frame(note = "Declare quasi-identifiers to see k-anonymity risks.")
      else format_table(tab)
    }, spacing = "xs")
    output$risk_notes <- shiny::renderUI({
      tab <- risk_table()
      risk_notes_ui(if (!failed(tab)) attr(tab, "notes"), run()$spec$person,
                    session$ns("sample-notes"))
    })
    output$classes <- shiny::renderTable({
      m <- masked()
      s <- run()$spec
      if (failed(m) || !length(s$keys) || is_synthetic(m)) return(NULL)
      class_size_counts(person_counted(m, loaded$data(), s$person), s$keys, s$person)
    }, caption = "Equivalence classes of the masked data on the quasi-identifiers, by size",
    spacing = "xs")
    shiny::observeEvent(input$pick, {
      m <- masked()
      if (failed(m)) return()
      rv$picked <- input$selected
      rv$picked_data <- m
      go_release()
    })
    list(selected = shiny::reactive(input$selected), picked = shiny::reactive(rv$picked),
         picked_data = shiny::reactive(rv$picked_data), masked = masked,
         points = shiny::reactive(rv$points))
  })
}

# ---- 6 release ----------------------------------------------------------------

# The risk spec that carries the report's quasi-identifiers and sensitive
# variables (NULL without quasi-identifiers).
workbench_report_risk <- function(spec) {
  if (!length(spec$keys)) return(NULL)
  # the person column is the verb's `id` (the profile carries it), not the
  # criterion's
  if (length(spec$sensitive))
    l_diversity(NA, spec$sensitive, measure = "entropy", keys = spec$keys)
  else avg_risk(NA, strict = TRUE, keys = spec$keys)
}

# The report's risk specs: the keys' spec first, then the rows for a release
# that is a sample (3 Context), when they can be computed.
workbench_report_specs <- function(spec, data) {
  first <- workbench_report_risk(spec)
  if (is.null(first)) return(NULL)
  samples <- attempt(workbench_sample_specs(spec, data))
  c(list(first), if (!failed(samples)) samples)
}

# The download buttons of a step, shown once there is something to download.
download_buttons <- function(ns, labels) {
  shiny::tags$div(class = "d-flex gap-2",
                  lapply(names(labels), function(id) shiny::downloadButton(ns(id), labels[[id]])))
}

wb_release_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::tagList(
    wb_card("Release",
      shiny::uiOutput(ns("status")),
      # the download buttons exist only once a scheme is picked (a link
      # before that would serve an error page)
      shiny::uiOutput(ns("downloads")),
      shiny::tags$p(class = "text-muted small mt-2",
                    "The masked file carries no original values of the masked variables and no masking",
                    "parameters; noise is drawn from a seed that is not recorded anywhere. Synthetic",
                    "copies are one file, the copy number in the first column.")),
    wb_card("Column review (every column's role; declarations of 6 De-identify)",
      shiny::uiOutput(ns("review_status")),
      shiny::tableOutput(ns("review"))))
}

# The message a download gives when there is nothing to download yet (a
# link opened before a scheme is picked): a clear sentence, not an error page.
no_release_file <- function(file, what) {
  writeLines(sprintf("No %s exists yet: pick a scheme on 5 Profile first.", what), file)
}

# `review()`: the column review of 6 De-identify (a list(review, declared)
# or a condition), shown here as well.
wb_release_server <- function(id, loaded, result, profile, review = function() NULL) {
  shiny::moduleServer(id, function(input, output, session) {
    output$status <- shiny::renderUI({
      if (is.null(profile$picked()))
        return(message_box("No scheme picked yet: pick one on 5 Profile; the downloads of its release appear here.",
                           "warning", "release-message"))
      s <- result()$run$spec
      dropped <- c(s$identifiers, s$person)
      data <- profile$picked_data()
      shape <- if (is_synthetic(data))
        sprintf("%d synthetic copies of %d records", length(synthetic_copies(data)),
                nrow(synthetic_copies(data)[[1L]]))
      else sprintf("%d records", nrow(data))
      cols <- if (is_synthetic(data)) ncol(synthetic_copies(data)[[1L]]) else ncol(data)
      message_box(sprintf("Release: %s, %s%s, %d columns (identifiers dropped: %s).",
                          profile$picked(), shape,
                          if (is.null(s$person)) "" else
                            sprintf(" of %d persons (person column '%s' dropped)",
                                    length(unique(loaded$data()[[s$person]])), s$person),
                          cols, if (length(dropped)) paste(dropped, collapse = ", ") else "none"),
                  "info", "release-message")
    })
    # a release exists once a scheme is picked and its data are made
    release <- shiny::reactive({
      if (is.null(profile$picked())) return(NULL)
      data <- attempt(profile$picked_data())
      if (failed(data) || !(is.data.frame(data) || is_synthetic(data))) NULL
      else list(label = profile$picked(), data = data)
    })
    output$downloads <- shiny::renderUI({
      if (is.null(release()) || is.null(result())) return(NULL)
      download_buttons(session$ns, c(download_data = "Masked data (CSV)",
                                     download_report = "De-identification report (HTML)"))
    })
    output$review_status <- shiny::renderUI({
      rev <- review()
      if (is.null(rev)) return(message_box("The column review appears once data and quasi-identifiers are chosen.", "info"))
      if (failed(rev)) return(message_box(conditionMessage(rev), "error", session$ns("review-message")))
      message_box(review_summary(rev$review), if (length(rev$review$pending)) "warning" else "info",
                  session$ns("review-message"))
    })
    output$review <- shiny::renderTable({
      rev <- review()
      if (is.null(rev) || failed(rev)) return(NULL)
      review_display(rev$review)
    }, striped = TRUE, spacing = "xs")
    output$download_data <- shiny::downloadHandler(
      filename = function() paste0("masked-", sanitize_name(loaded$name()), ".csv"),
      content = function(file) {
        rel <- release()
        if (is.null(rel)) return(no_release_file(file, "release"))
        out <- if (is_synthetic(rel$data)) synthetic_csv(rel$data) else rel$data
        utils::write.csv(out, file, row.names = FALSE)
      })
    output$download_report <- shiny::downloadHandler(
      filename = function() paste0("release-report-", sanitize_name(loaded$name()), ".html"),
      content = function(file) {
        rel <- release()
        res <- result()
        if (is.null(rel) || is.null(res)) return(no_release_file(file, "release"))
        s <- res$run$spec
        ru <- res$ru
        # the app's profile was run through do.call(): it records the call
        # the custodian can type, its seed and the data's name here
        attr(ru, "meta")[c("call", "seed", "data_name")] <- list(res$run$call, s$seed, loaded$name())
        # synthetic copies are named, not passed: the report's release
        # tables count records of the data, which synthetic records are not
        # (the profile's attacks and the Profile step's verdict judge them)
        release_report(ru, file, data = loaded$data(),
                       release = list(scheme = rel$label,
                                      data = if (!is_synthetic(rel$data)) rel$data),
                       risk = workbench_report_specs(s, loaded$data()), context = res$run$context)
      })
    invisible(NULL)
  })
}
