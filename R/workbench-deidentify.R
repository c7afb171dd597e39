# The workbench's de-identification step (a module, as the other steps):
# deidentify() on the data loaded in step 1 with the quasi-identifiers,
# sensitive variables and identifiers of step 2 under the release context of
# step 3. When step 2 states the collaborator's model, the generalizations
# are ranked by it (deidentify(model = analysis_loss(formula, family, term)):
# the release that does the least damage to that analysis), else, or when the
# custodian asks, by the entropy metric. Its certificate (every attack of the
# context recounted on the release by risk_release()) is the verdict; the
# release and its report are downloaded here.

wb_deidentify_ui <- function(id) {
  ns <- shiny::NS(id)
  # the review first: the custodian declares the flagged columns before the run
  shiny::tagList(
    wb_card("Column review: every column's role (review_columns()); declare the flagged ones you judge safe",
      shiny::tags$p(class = "small text-muted",
        "A column outside the keys that the review flags is counted as a key by the certificate",
        "unless you declare it safe here, with the reason (it is printed in the certificate).",
        "An empty reason is no declaration."),
      shiny::uiOutput(ns("review_status")),
      shiny::tags$div(style = "overflow-x:auto", shiny::tableOutput(ns("review"))),
      shiny::uiOutput(ns("declare_ui"))),
  shiny::fluidRow(
    shiny::column(5, wb_card("De-identify to the release context",
      shiny::tags$p(class = "small text-muted",
        "deidentify() generalises the quasi-identifiers of 2 Variables to the targets the context",
        "of 3 Context implies, blanks single values where classes are still too small, drops the",
        "direct identifiers, and recounts every attack of the context on the result: that",
        "certificate is the verdict."),
      shiny::uiOutput(ns("hierarchies")),
      shiny::uiOutput(ns("metric_ui")),
      shiny::numericInput(ns("max_suppress"), "Largest share suppressed (of persons with a person column, else of records)", 0.05, 0, 1, 0.01),
      shiny::checkboxInput(ns("synthesis"), paste("Offer a synthetic release as a candidate (mask_synth(), judged by",
                                                  "replicated uniques at the threshold and by the model)"), FALSE),
      shiny::conditionalPanel("input.synthesis", ns = ns, shiny::fluidRow(
        shiny::column(6, shiny::selectInput(ns("synth_method"), "Synthesis method", workbench_synth_choices())),
        shiny::column(6, shiny::numericInput(ns("synth_m"), "Copies m", 5, 1, 50, 1)))),
      shiny::actionButton(ns("run"), "De-identify", class = "btn-primary"),
      shiny::uiOutput(ns("status")))),
    shiny::column(7, wb_card("Certificate: each attack of the context on the release",
      shiny::uiOutput(ns("verdict")),
      shiny::uiOutput(ns("failure")),
      shiny::tableOutput(ns("certificate")),
      shiny::uiOutput(ns("declared")),
      shiny::uiOutput(ns("released")),
      shiny::tableOutput(ns("candidates")),
      shiny::tags$div(style = "overflow-x:auto", shiny::tableOutput(ns("steps"))),
      shiny::uiOutput(ns("steps_units")),
      shiny::tableOutput(ns("model_steps")),
      shiny::plotOutput(ns("risk_plot"), height = "320px"),
      # the download buttons exist only once there is a release
      shiny::uiOutput(ns("downloads"))))))
}

# Interval widths proposed for a numeric key: about 1/20, 1/10 and 1/5 of its
# range, rounded to one significant digit (the text the custodian may edit).
default_widths <- function(x) {
  r <- diff(range(x, na.rm = TRUE))
  if (!is.finite(r) || r <= 0) return("1")
  w <- unique(signif(r * c(0.05, 0.1, 0.2), 1))
  paste(vapply(w, format, character(1), scientific = FALSE), collapse = ", ")
}

# The hierarchies of deidentify() from the custodian's widths: a numeric key
# by hierarchy_numeric() with its interval widths (proposed by
# default_widths()), any other key flat (kept or suppressed as a whole:
# hierarchy_flat()).
workbench_hierarchies <- function(data, keys, widths = list()) {
  stats::setNames(lapply(keys, function(k) {
    if (inherits(data[[k]], "Date")) return(hierarchy_date())
    if (!is.numeric(data[[k]])) return(hierarchy_flat())
    w <- widths[[k]]
    if (is.null(w) || !nzchar(trimws(w))) w <- default_widths(data[[k]])
    hierarchy_numeric(sort(unique(parse_amounts(w, sprintf("The interval widths of %s", k)))))
  }), keys)
}

# The collaborator's model of 2 Variables (`roles`: formula, family, term) as
# the analysis_loss() that ranks the generalizations, or the condition that
# says why it cannot (no formula, the ERR model, which is not a GLM, columns
# the data lack or that are dropped as identifiers).
workbench_analysis_loss <- function(roles, data) {
  text <- trimws(roles$formula %||% "")
  if (!nzchar(text)) return(workbench_condition("No model is stated on 2 Variables."))
  family <- roles$family %||% "gaussian"
  if (identical(family, "err"))
    return(workbench_condition(paste("The linear ERR model of 2 Variables is not a GLM;",
                                     "analysis_loss() ranks by a GLM's coefficient.")))
  formula <- tryCatch(stats::as.formula(text, env = globalenv()), error = function(e) NULL)
  if (!inherits(formula, "formula"))
    return(workbench_condition(sprintf("The model formula '%s' cannot be read.", text)))
  usable <- setdiff(names(data), roles$identifiers)
  missing <- setdiff(all.vars(formula), usable)
  if (length(missing))
    return(workbench_condition(sprintf("The model uses columns not in the released data: %s.",
                                       paste(missing, collapse = ", "))))
  term <- trimws(roles$term %||% "")
  attempt(analysis_loss(formula, family, if (nzchar(term)) term))
}

# The choices of the ranking: the model first (the default) when there is
# one, the entropy metric always.
deidentify_metric_choices <- function(model) {
  entropy <- c("Entropy of the generalized keys (no model)" = "entropy")
  if (failed(model)) return(entropy)
  c(stats::setNames("analysis", sprintf("The collaborator's model: %s", model_phrase(model))),
    entropy)
}

# The console call that reproduces the step's release (for the report):
# deidentify() with the hierarchies, context, roles and model as given, the
# loaded data standing as `data`.
workbench_deidentify_call <- function(data, keys, widths, ctx, sensitive, ids, model, max_suppress,
                                      person = NULL, declare = NULL, synthesis = NULL) {
  h <- workbench_hierarchies(data, keys, widths)
  hcall <- as.call(c(as.name("list"), stats::setNames(lapply(keys, function(k) {
    if (inherits(data[[k]], "Date")) return(quote(hierarchy_date()))
    if (!is.numeric(data[[k]])) return(quote(hierarchy_flat()))
    w <- widths[[k]]
    if (is.null(w) || !nzchar(trimws(w))) w <- default_widths(data[[k]])
    call("hierarchy_numeric", sort(unique(parse_amounts(w, k))))
  }), keys)))
  stopifnot(length(h) == length(keys))
  fields <- unclass(ctx)[c("public", "pr_attempt", "pr_acquaintance", "pr_breach", "threshold",
                           "reasons")]
  fields <- fields[!vapply(fields, function(v) is.null(v) || !length(v), logical(1))]
  if (isTRUE(fields$public)) fields$pr_attempt <- fields$pr_acquaintance <- NULL
  if (!is.null(synthesis)) fields$criteria <- synthesis$criteria
  ccall <- as.call(c(as.name("release_context"), fields))
  mcall <- if (!is.null(model))
    as.call(list(as.name("analysis_loss"), model$formula, model$family$family,
                 term = model$term))
  control <- as.call(c(list(as.name("deidentify_control"), max_suppress = max_suppress),
                       if (!is.null(synthesis)) list(synthesis = synthesis$synthesis)))
  args <- list(as.name("data"), keys = keys, hierarchies = hcall, context = ccall,
               sensitive = if (length(sensitive)) sensitive, identifiers = if (length(ids)) ids,
               model = mcall, id = person, declare = declare, control = control)
  as.call(c(as.name("deidentify"), args[!vapply(args, is.null, logical(1))]))
}

# The certificate as the workbench shows it: which risk each number is.
certificate_display <- function(cert) {
  out <- data.frame(attack = cert$attack, pr_attack = cert$pr_attack,
                    pr_reid_given = cert$pr_reid_given, risk = cert$risk,
                    threshold = cert$threshold, within = ifelse(cert$pass, "pass", "FAIL"),
                    stringsAsFactors = FALSE)
  names(out) <- c("Attack", "Pr(attack)", "Pr(re-identification | attack)",
                  "Risk = Pr(attack) x Pr(re-id | attack)", "Threshold", "Verdict")
  out
}

certificate_verdict <- function(res) {
  failing <- res$certificate$attack[!res$certificate$pass]
  sprintf(paste("Verdict: the release %s. Overall risk %s (the largest attack's risk of",
                "re-identification, recounted on the released data by risk_release()%s) against",
                "the threshold %s.%s"),
          if (isTRUE(res$pass)) "passes every attack of the context" else "FAILS the context",
          format_num(res$overall_risk, 3),
          if (is.null(res$id)) "" else
            sprintf(", with classes counted in persons (person column '%s')", res$id),
          format_num(res$context$threshold, 3),
          if (length(failing)) paste0(" Failing: ", paste(failing, collapse = ", "), ".") else "")
}


# ---- the column review ------------------------------------------------------------

# The column review of the data 6 De-identify releases (review_columns() on
# the data without the direct identifiers of 2 Variables, which are dropped,
# with the keys, sensitive variables and person column of 2 Variables and the
# declarations typed in). A condition naming the column when it cannot be
# made.
workbench_review <- function(data, roles, declare = NULL) {
  keys <- intersect(roles$keys, names(data))
  if (!length(keys)) return(workbench_condition("Declare the quasi-identifiers on 2 Variables first."))
  ids <- setdiff(intersect(roles$identifiers, names(data)), c(keys, roles$person))
  d <- data[, setdiff(names(data), ids), drop = FALSE]
  sensitive <- setdiff(intersect(roles$sensitive, names(d)), keys)
  person <- roles$person
  if (!is.null(person) && !person %in% names(d)) person <- NULL
  attempt(review_columns(d, keys, sensitive = if (length(sensitive)) sensitive, id = person,
                         declare = if (length(declare)) declare))
}

# The columns the custodian may declare safe: those the review leaves
# pending, except the person column (dropped from every release).
declarable_columns <- function(review, person = NULL) setdiff(review$pending, person)

# The input id of a column's declaration: by the column's place in the data
# (names may hold characters an input id cannot).
declare_input_id <- function(column, data) paste0("declare_", match(column, names(data)))

# The declarations typed in: c(column = "reason") for each non-empty reason
# (NULL for none).
typed_declarations <- function(input, columns, data) {
  reasons <- vapply(columns, function(col) trimws(input[[declare_input_id(col, data)]] %||% ""), "")
  reasons <- reasons[nzchar(reasons)]
  if (length(reasons)) stats::setNames(unname(reasons), names(reasons)) else NULL
}

# The review as the app shows it: roles, status, flags and the evidence in
# words (counts and shares, never values), and the declaration.
review_display <- function(review) {
  tab <- review$columns
  out <- data.frame(Column = tab$column, Role = tab$role,
                    Status = ifelse(nzchar(tab$status), tab$status, "-"),
                    Flags = ifelse(nzchar(tab$flags), tab$flags, "-"),
                    Why = ifelse(nzchar(tab$evidence), tab$evidence, "-"),
                    Declared = ifelse(is.na(tab$declared), "", tab$declared),
                    stringsAsFactors = FALSE)
  out
}

review_summary <- function(review) {
  pending <- review$pending
  declared <- review$declared
  paste0(sprintf("%d columns reviewed (%s counted as %s). ", nrow(review$columns),
                 format(review$n_units), review$unit %||% "records"),
         if (length(pending))
           sprintf("Flagged and not handled: %s; the certificate counts %s as key%s unless declared safe.",
                   paste(pending, collapse = ", "), if (length(pending) > 1L) "them" else "it",
                   if (length(pending) > 1L) "s" else "")
         else "No flagged column is left unhandled.",
         if (length(declared))
           sprintf(" Declared safe: %s.", paste(names(declared), collapse = ", ")) else "")
}

# ---- the options of deidentify() -----------------------------------------------------

# The synthesis candidate of 6 De-identify as the calls that make it: the
# scheme (a hold-out of half the records, the attacks' control set; smoothed
# numbers, so that donors' exact values are not copied) and the criterion that
# judges its copies (replicated uniques on the keys). The criterion goes into
# the release context, not into `criteria`: the context's criteria are
# recounted on every candidate (a synthesis is held to the threshold) but do
# not steer the generalization's search.
workbench_synthesis_calls <- function(method, m, keys) {
  list(synthesis = call("mask_synth", method, m = as.integer(m), holdout = 0.5, smooth = TRUE),
       criteria = call("list", call("replicated_uniques", keys = keys)))
}

# The release's rows as a sentence (records, or persons and records).
released_phrase <- function(res, n_data, person) {
  n_rel <- if (is.null(res$data)) 0L else nrow(res$data)
  if (is.null(person)) sprintf("%d of %d records", n_rel, n_data)
  else sprintf("%d of %d persons (%d of %d records; person column '%s', every count by persons)",
               res$n_persons_released %||% 0L, res$n_persons, n_rel, n_data, person)
}

# What was released: the generalization or the synthetic copies.
released_text <- function(res) {
  if (is.null(res$released) || is.null(res$candidates)) return(NULL)
  if (identical(res$released, "synthesis"))
    sprintf("Released: the synthetic copies (%d). %s", length(synthetic_copies(res$synthetic)),
            res$synthetic_rule %||% "")
  else "Released: the generalization (no synthesis passed with a larger U)."
}

# The data file of a release: the generalized data, or the synthetic copies
# stacked with their copy number.
release_file_data <- function(res) {
  if (identical(res$released, "synthesis") && !is.null(res$synthetic)) synthetic_csv(res$synthetic)
  else res$data
}

wb_deidentify_server <- function(id, loaded, roles, context) {
  shiny::moduleServer(id, function(input, output, session) {
    ns <- session$ns
    rv <- shiny::reactiveValues(result = NULL, msg = NULL, notes = character(), call = NULL)
    shiny::observeEvent(loaded$stamp(), {
      rv$result <- NULL
      rv$msg <- NULL
      rv$notes <- character()
    })
    model <- shiny::reactive({
      d <- loaded$data()
      shiny::req(d)
      workbench_analysis_loss(roles(), d)
    })
    output$metric_ui <- shiny::renderUI({
      m <- model()
      choices <- deidentify_metric_choices(m)
      shiny::tagList(
        shiny::radioButtons(ns("metric"), "Rank the generalizations by", choices,
                            selected = choices[[1L]]),
        if (failed(m)) shiny::tags$p(class = "small text-muted",
                                     paste(conditionMessage(m), "Ranked by entropy."))
        else shiny::tags$p(class = "small text-muted",
                           paste("The model ranks each generalization by the analysis potential",
                                 "of its coefficient on the release (methods vignette, section",
                                 "20): the release that does the least damage to the analysis.")))
    })
    output$hierarchies <- shiny::renderUI({
      d <- loaded$data()
      shiny::req(d)
      keys <- intersect(roles()$keys, names(d))
      if (!length(keys))
        return(message_box("Declare the quasi-identifiers on 2 Variables first.", "warning"))
      lapply(keys, function(k) {
        if (is.numeric(d[[k]]))
          shiny::textInput(ns(paste0("widths_", k)),
                           sprintf("%s: interval widths, finest first", k), default_widths(d[[k]]))
        else if (inherits(d[[k]], "Date"))
          shiny::tags$p(class = "small", sprintf("%s: a date, generalized to month, year, decade or suppressed.", k))
        else shiny::tags$p(class = "small", sprintf("%s: categorical, kept or suppressed as a whole.", k))
      })
    })
    # the review of the data as 2 Variables defines them, then with the
    # declarations typed in (the statuses shown are those deidentify() sees)
    base_review <- shiny::reactive({
      d <- loaded$data()
      shiny::req(d)
      workbench_review(d, roles())
    })
    declarable <- shiny::reactive({
      rev <- base_review()
      if (failed(rev)) character() else declarable_columns(rev, roles()$person)
    })
    declared <- shiny::reactive({
      d <- loaded$data()
      shiny::req(d)
      typed_declarations(input, declarable(), d)
    })
    review <- shiny::reactive({
      rev <- base_review()
      if (failed(rev) || !length(declared())) return(rev)
      workbench_review(loaded$data(), roles(), declared())
    })
    output$review_status <- shiny::renderUI({
      rev <- review()
      if (failed(rev)) return(message_box(conditionMessage(rev), "warning", ns("review-message")))
      message_box(review_summary(rev), if (length(rev$pending)) "warning" else "info",
                  ns("review-message"))
    })
    output$review <- shiny::renderTable({
      rev <- review()
      if (failed(rev)) return(NULL)
      review_display(rev)
    }, striped = TRUE, spacing = "xs")
    output$declare_ui <- shiny::renderUI({
      cols <- declarable()
      if (!length(cols)) return(NULL)
      d <- loaded$data()
      shiny::tagList(
        shiny::tags$h6("Declarations (reason the column is safe; empty = not declared)"),
        lapply(cols, function(col) {
          id <- declare_input_id(col, d)
          shiny::textInput(ns(id), sprintf("%s (%s)", col, base_review()$columns$role[
            base_review()$columns$column == col]), shiny::isolate(input[[id]]) %||% "")
        }))
    })
    shiny::observeEvent(input$run, {
      d <- loaded$data()
      shiny::req(d)
      r <- roles()
      ctx <- context()
      rv$result <- NULL
      rv$notes <- character()
      if (failed(ctx)) {
        rv$msg <- list(text = paste("State the release context first (3 Context):",
                                    conditionMessage(ctx)), level = "error")
        return()
      }
      keys <- intersect(r$keys, names(d))
      if (!length(keys)) {
        rv$msg <- list(text = "Declare the quasi-identifiers on 2 Variables first.", level = "error")
        return()
      }
      sensitive <- setdiff(intersect(r$sensitive, names(d)), keys)
      person <- attempt(check_workbench_person(list(person = r$person, keys = keys,
                                                    sensitive = sensitive), d))
      if (failed(person)) {
        rv$msg <- list(text = conditionMessage(person), level = "error")
        return()
      }
      if (isTRUE(input$synthesis) && !is.null(person)) {
        rv$msg <- list(text = paste0("A synthesis candidate is not offered with a person column ('", person,
                                     "'): a person's records would be synthesised as unrelated records. ",
                                     "Untick the synthesis or clear the person column."), level = "error")
        return()
      }
      # the person column is dropped by deidentify(id = ) itself
      ids <- setdiff(intersect(r$identifiers, names(d)), c(keys, sensitive, person))
      widths <- stats::setNames(lapply(keys, function(k) input[[paste0("widths_", k)]]), keys)
      m <- model()
      by_model <- !failed(m) && !identical(input$metric, "entropy")
      declare <- declared()
      synthesis <- if (isTRUE(input$synthesis))
        workbench_synthesis_calls(input$synth_method %||% "cart", input$synth_m %||% 5, keys)
      max_suppress <- input$max_suppress %||% 0.05
      call <- attempt(workbench_deidentify_call(d, keys, widths, ctx, sensitive, ids,
                                                if (by_model) m, max_suppress, person,
                                                declare, synthesis))
      if (failed(call)) {
        rv$msg <- list(text = paste("De-identification failed:", conditionMessage(call)), level = "error")
        return()
      }
      notes <- character()
      # the step runs the call it records, so the report's call is the release's
      res <- attempt(withCallingHandlers(
        eval(call, list(data = d), asNamespace("epimask")),
        warning = function(w) {
          notes <<- c(notes, conditionMessage(w))
          invokeRestart("muffleWarning")
        }))
      if (failed(res)) {
        rv$msg <- list(text = paste("De-identification failed:", conditionMessage(res)),
                       level = "error")
        return()
      }
      rv$result <- res
      rv$call <- call
      rv$notes <- unique(notes)
      dropped <- c(ids, person)
      rv$msg <- if (is.null(res$data))
        list(text = sprintf("No release: %s. Nothing can be handed over; the report says why.",
                            res$reason %||% "the release fails the context"), level = "error")
      else list(text = sprintf("Done: %s released, %d columns (identifiers dropped: %s). Generalizations ranked by %s.",
                               released_phrase(res, nrow(d), person), ncol(res$data),
                               if (length(dropped)) paste(dropped, collapse = ", ") else "none",
                               deidentify_ranking(res)),
                level = "info")
    })
    output$status <- shiny::renderUI(shiny::tagList(
      message_box(rv$msg$text, rv$msg$level, ns("message")),
      lapply(rv$notes, message_box, level = "warning")))
    output$verdict <- shiny::renderUI({
      res <- rv$result
      shiny::req(res)
      message_box(certificate_verdict(res), if (isTRUE(res$pass)) "info" else "error", ns("verdict-message"))
    })
    output$certificate <- shiny::renderTable({
      shiny::req(rv$result)
      format_table(certificate_display(rv$result$certificate))
    }, caption = paste("Each attack's risk is Pr(attack) x Pr(re-identification | attack), counted",
                       "on the released data; the verdict is this table, not the search's targets"))
    output$steps <- shiny::renderTable({
      shiny::req(rv$result)
      st <- deidentify_steps_table(rv$result$steps)
      st$Verdict <- ifelse(rv$result$steps$pass, "pass", "FAIL")
      format_table(st)
    }, caption = "The steps taken, with the information loss and the overall release risk after each")
    output$steps_units <- shiny::renderUI({
      shiny::req(rv$result)
      shiny::tags$p(class = "small text-muted", id = ns("steps-units"),
                    deidentify_steps_units(rv$result))
    })
    output$model_steps <- shiny::renderTable({
      res <- rv$result
      shiny::req(res, res$model)
      st <- format_table(res$steps[c("step", "estimate", "se", "analysis_potential")], digits = 4)
      names(st) <- c("Step", sprintf("Estimate of %s", res$model$term), "SE",
                     "U (analysis potential)")
      st
    }, caption = paste("The collaborator's coefficient after each step (U = 1: as precise and",
                       "unbiased as on the original data)"))
    output$failure <- shiny::renderUI({
      res <- rv$result
      shiny::req(res)
      if (!is.null(res$data)) return(NULL)
      shiny::tagList(
        message_box(sprintf("No data are released: %s.", res$reason %||% "the release fails the context"),
                    "error", ns("failure-reason")),
        message_box(sprintf("What to try: %s.", res$advice %||% "a looser context or coarser hierarchies"),
                    "warning", ns("failure-advice")))
    })
    output$declared <- shiny::renderUI({
      res <- rv$result
      shiny::req(res)
      dec <- res$declared
      if (!length(dec)) return(shiny::tags$p(class = "small", id = ns("declared-list"),
                                             "Declared safe by the custodian: none."))
      shiny::tags$div(id = ns("declared-list"),
        shiny::tags$h6("Declared safe by the custodian (printed in the certificate)"),
        shiny::tags$ul(lapply(names(dec), function(col)
          shiny::tags$li(shiny::tags$code(col), ": ", unname(dec[[col]])))))
    })
    output$released <- shiny::renderUI({
      res <- rv$result
      shiny::req(res, res$released)
      message_box(released_text(res), "info", ns("released-message"))
    })
    output$candidates <- shiny::renderTable({
      res <- rv$result
      shiny::req(res, res$candidates)
      tab <- res$candidates[intersect(c("candidate", "pass", "U", "criteria", "chosen"), names(res$candidates))]
      tab$pass <- ifelse(tab$pass, "pass", "FAIL")
      tab$chosen <- ifelse(tab$chosen, "released", "")
      format_table(tab)
    }, caption = "The candidate releases, judged by the same threshold and model")
    output$risk_plot <- shiny::renderPlot({
      shiny::req(rv$result)
      plot(rv$result)
    })
    output$downloads <- shiny::renderUI({
      res <- rv$result
      if (is.null(res)) return(NULL)
      # a failing release hands nothing over: the report (which says why) only
      labels <- c(download_data = "De-identified data (CSV)",
                  download_report = "De-identification report (HTML)")
      if (is.null(res$data)) labels <- labels["download_report"]
      download_buttons(session$ns, labels)
    })
    output$download_data <- shiny::downloadHandler(
      filename = function() paste0("deidentified-", sanitize_name(loaded$name()), ".csv"),
      content = function(file) {
        res <- rv$result
        if (is.null(res) || is.null(res$data))
          return(writeLines("No release exists: de-identify first (a failing release hands no data over).", file))
        utils::write.csv(release_file_data(res), file, row.names = FALSE)
      })
    output$download_report <- shiny::downloadHandler(
      filename = function() paste0("deidentification-report-", sanitize_name(loaded$name()), ".html"),
      content = function(file) {
        if (is.null(rv$result)) return(writeLines("No de-identification was run yet.", file))
        release_report(rv$result, file, data = loaded$data(), data_name = loaded$name(),
                       call = if (!failed(rv$call)) rv$call)
      })
    list(result = shiny::reactive(rv$result), message = shiny::reactive(rv$msg),
         review = shiny::reactive({
           if (is.null(loaded$data())) return(NULL)
           rev <- attempt(review())
           if (failed(rev)) rev else list(review = rev, declared = declared())
         }))
  })
}
