# The workbench's Table step (a module, as the other steps): a count table
# of the loaded data over one to three categorical dimensions
# (table_counts()), optionally with the sums of a response; the primary
# rules (a frequency threshold, and for sums (n, k)-dominance and the p%
# rule); the protection: secondary suppression audited by the intruder's
# LPs (suppress_table(), audit_table()), controlled rounding or noise with a
# privacy budget (mask_count_table()). The table is the release here: its
# cells are counts (and sums), never a record's value.

# The most cells the app tabulates (the codes' product, margins excluded):
# the optimal suppression solves a mixed-integer model over every cell.
workbench_table_max_cells <- 5000L

# The most codes a dimension may have to be offered (a continuous column is
# no dimension of a count table).
workbench_table_max_codes <- 100L

# The columns offered as dimensions: few distinct values, no other test.
table_dimension_choices <- function(data) {
  if (is.null(data)) return(character())
  ok <- vapply(data, function(x) {
    (is.factor(x) || is.character(x) || is.logical(x) || is.numeric(x)) &&
      length(unique(x)) <= workbench_table_max_codes
  }, logical(1))
  names(data)[ok]
}

# The columns offered as the response summed in each cell: numeric ones.
table_response_choices <- function(data) {
  if (is.null(data)) return(c("(none: counts only)" = ""))
  num <- names(data)[vapply(data, is.numeric, logical(1))]
  c("(none: counts only)" = "", stats::setNames(num, num))
}

# The custodian's table choices (a list: dims, value, threshold, zeros,
# dominance, p_percent, protection, method, base, epsilon) checked against
# the data; every problem is a workbench condition naming the column.
check_table_spec <- function(data, spec) {
  dims <- as.character(spec$dims %||% character())
  if (!length(dims) || length(dims) > 3L)
    stop(workbench_condition(sprintf("Choose one to three dimensions for the table (got %d).", length(dims))))
  missing <- setdiff(dims, names(data))
  if (length(missing))
    stop(workbench_condition(sprintf("The dimension '%s' is not a column of the data.", missing[[1L]])))
  for (d in dims) {
    if (anyNA(data[[d]]))
      stop(workbench_condition(sprintf(
        "The dimension '%s' has %d missing values: recode them as a category of their own, or choose another column.",
        d, sum(is.na(data[[d]])))))
    if (length(unique(data[[d]])) > workbench_table_max_codes)
      stop(workbench_condition(sprintf("The dimension '%s' has %d codes (at most %d in the app): group it first.",
                                       d, length(unique(data[[d]])), workbench_table_max_codes)))
  }
  cells <- prod(vapply(dims, function(d) length(unique(data[[d]])), numeric(1)))
  if (cells > workbench_table_max_cells)
    stop(workbench_condition(sprintf("The table over %s has %s cells (at most %s in the app): choose fewer or coarser dimensions.",
                                     paste(dims, collapse = " x "), format(cells, big.mark = ","),
                                     format(workbench_table_max_cells, big.mark = ","))))
  value <- spec$value
  if (!is.null(value) && nzchar(value)) {
    if (!value %in% names(data))
      stop(workbench_condition(sprintf("The response '%s' is not a column of the data.", value)))
    if (value %in% dims)
      stop(workbench_condition(sprintf("The response '%s' is also a dimension of the table.", value)))
    x <- data[[value]]
    if (!is.numeric(x)) stop(workbench_condition(sprintf("The response '%s' is not numeric: it cannot be summed.", value)))
    if (anyNA(x)) stop(workbench_condition(sprintf("The response '%s' has %d missing values: its sums would be wrong.",
                                                   value, sum(is.na(x)))))
    if (any(x < 0)) stop(workbench_condition(sprintf(
      "The response '%s' has %d negative values: the magnitude rules need contributions of 0 or more.",
      value, sum(x < 0))))
  } else value <- NULL
  n <- spec$threshold
  if (is.null(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n))
    stop(workbench_condition("The frequency threshold must be a whole number of 1 or more."))
  list(dims = dims, value = value)
}

# The primary rules as calls (the report and the tests see what was run).
table_rule_calls <- function(spec, value) {
  rules <- list(call("cell_threshold", as.integer(spec$threshold), zeros = isTRUE(spec$zeros)))
  if (!is.null(value)) {
    if (isTRUE(spec$dominance)) rules <- c(rules, list(call("dominance", 2, 85)))
    if (isTRUE(spec$p_percent)) rules <- c(rules, list(call("p_percent", 10)))
  }
  if (length(rules) == 1L) rules[[1L]] else as.call(c(as.name("list"), rules))
}

# The protection as a call on the table `tab`.
table_protection_call <- function(spec, rules) {
  switch(spec$protection %||% "suppression",
    suppression = call("suppress_table", quote(tab), rules, method = spec$method %||% "optimal",
                       cost = spec$cost %||% "cells"),
    rounding = {
      b <- spec$base
      if (is.null(b) || is.na(b) || b < 2 || b != round(b))
        stop(workbench_condition("The rounding base must be a whole number of 2 or more."))
      call("mask_count_table", quote(tab), call("mask_round", base = as.integer(b)))
    },
    noise = {
      e <- spec$epsilon
      if (is.null(e) || is.na(e) || e <= 0)
        stop(workbench_condition("The privacy budget epsilon must be a number above 0."))
      call("mask_count_table", quote(tab), call("mask_dp_counts", e))
    },
    stop(workbench_condition(sprintf("Unknown protection '%s'.", spec$protection))))
}

# The whole step at the console: the table, its rules, the protection, each
# as the call run. Returns list(table, rules, protected, calls, seconds).
workbench_protect_table <- function(data, spec) {
  chk <- check_table_spec(data, spec)
  tcall <- as.call(c(list(as.name("table_counts"), quote(data), chk$dims),
                     if (!is.null(chk$value)) list(value = chk$value)))
  rcall <- table_rule_calls(spec, chk$value)
  pcall <- table_protection_call(spec, rcall)
  env <- list2env(list(data = data), parent = asNamespace("epimask"))
  started <- proc.time()[["elapsed"]]
  tab <- eval(tcall, env)
  env$tab <- tab
  protected <- eval(pcall, env)
  list(table = tab, rules = eval(rcall, env), protected = protected,
       calls = list(table = tcall, protection = pcall),
       seconds = proc.time()[["elapsed"]] - started)
}

# The counts the step reports: cells, sensitive (primary) and secondary
# suppressions, and the audit's verdict.
table_counts_summary <- function(res) {
  prot <- res$protected
  if (inherits(prot, "epimask_protected_table"))
    return(list(cells = length(prot$suppressed), primary = sum(prot$primary),
                secondary = as.integer(prot$n_secondary), suppressed = sum(prot$suppressed),
                unprotected = NROW(prot$unprotected), form = "suppression"))
  sens <- sensitive_cells(res$table, res$rules)
  list(cells = length(res$table$count), primary = nrow(sens), secondary = 0L, suppressed = 0L,
       unprotected = NA_integer_, form = prot$form)
}

# One sentence on the protected table.
table_status_text <- function(res) {
  n <- table_counts_summary(res)
  if (identical(n$form, "suppression"))
    return(sprintf(paste("Protected table: %d cells (margins included), %d sensitive under the rules",
                         "(primary suppressions), %d secondary suppressions (%s); the audit (the intruder's",
                         "LPs for every sensitive cell) finds %s."),
                   n$cells, n$primary, n$secondary,
                   if (isTRUE(res$protected$optimal)) "optimal pattern" else "heuristic pattern",
                   if (n$unprotected == 0L) "every sensitive cell protected"
                   else sprintf("%d cells that could not be protected", n$unprotected)))
  ev <- attempt(criterion_evaluate(res$rules, res$protected))
  sprintf("Protected table by %s: %d cells, %d sensitive under the rules; %s", n$form, n$cells, n$primary,
          if (failed(ev)) "the share of sensitive cells disclosed could not be computed."
          else sprintf("share of sensitive cells disclosed: %s.", format_num(ev$value, 3)))
}

# The published table as the app shows it: the codes, the published value
# and its status (a suppressed cell shows no value).
table_display <- function(prot) {
  out <- as.data.frame(prot)
  out <- out[, setdiff(names(out), c("interior", grep("_level$", names(out), value = TRUE))), drop = FALSE]
  if ("value" %in% names(out)) out$value <- ifelse(is.na(out$value), "(suppressed)", format_num(out$value, 4, integers = TRUE))
  out
}

# The audit of the suppressed sensitive cells: the interval an intruder
# derives and whether it reaches the protection required.
audit_display <- function(prot) {
  if (!inherits(prot, "epimask_protected_table") || is.null(prot$audit)) return(NULL)
  a <- as.data.frame(prot$audit)
  keep <- c(setdiff(names(a), c("cell", "value", "lower", "upper", "exact", grep("_level$", names(a), value = TRUE))))
  a <- a[, keep, drop = FALSE]
  names(a)[names(a) == "low"] <- "intruder's lowest"
  names(a)[names(a) == "high"] <- "intruder's highest"
  a$protected <- ifelse(a$protected, "yes", "NO")
  a
}

wb_table_ui <- function(id) {
  ns <- shiny::NS(id)
  shiny::fluidRow(
    shiny::column(4, wb_card("Count table",
      shiny::selectizeInput(ns("dims"), "Dimensions (1 to 3 categorical columns)", NULL, multiple = TRUE,
                            options = list(maxItems = 3)),
      shiny::selectInput(ns("value"), "Response summed in each cell (optional)", c("(none: counts only)" = "")),
      shiny::tags$h6("Primary rule"),
      shiny::numericInput(ns("threshold"), "Frequency threshold n (counts 1 to n-1 are sensitive)", 5, 1, 1000, 1),
      shiny::checkboxInput(ns("zeros"), "Zeros are sensitive too", FALSE),
      shiny::checkboxInput(ns("dominance"), "(2, 85)-dominance of the response", FALSE),
      shiny::checkboxInput(ns("p_percent"), "p% rule of the response (p = 10)", FALSE),
      shiny::tags$h6("Protection"),
      shiny::radioButtons(ns("protection"), NULL,
                          c("Cell suppression (primary and secondary, audited)" = "suppression",
                            "Controlled rounding (margins consistent)" = "rounding",
                            "Noise with a privacy budget (geometric mechanism)" = "noise")),
      # only the settings of the protection chosen are shown
      shiny::conditionalPanel("input.protection == 'suppression'", ns = ns,
        shiny::selectInput(ns("method"), "Secondary suppression", c("Optimal (MILP)" = "optimal",
                                                                   "Heuristic (large tables)" = "heuristic")),
        shiny::selectInput(ns("cost"), "Cost of a suppression", c("Cells" = "cells", "Value" = "value"))),
      shiny::conditionalPanel("input.protection == 'rounding'", ns = ns,
        shiny::numericInput(ns("base"), "Rounding base", 5, 2, 1000, 1)),
      shiny::conditionalPanel("input.protection == 'noise'", ns = ns,
        shiny::numericInput(ns("epsilon"), "Privacy budget epsilon", 1, 0.01, 100, 0.1)),
      shiny::tags$p(class = "small text-muted",
        "Kernel smoothing of counts needs the coordinates of a dimension's codes (zip codes): it is",
        "available at the console (mask_count_table(tab, mask_kernel(...), dim = )), not here."),
      shiny::actionButton(ns("run"), "Protect the table", class = "btn-primary"),
      shiny::uiOutput(ns("status")))),
    shiny::column(8, wb_card("The protected table (counts; a suppressed cell shows no value)",
      shiny::uiOutput(ns("summary")),
      shiny::uiOutput(ns("downloads")),
      shiny::tags$div(style = "max-height:420px;overflow-y:auto", shiny::tableOutput(ns("table"))),
      shiny::tags$h6(class = "mt-3", "Audit: the interval an intruder derives for each sensitive cell"),
      shiny::tags$div(style = "max-height:320px;overflow-y:auto", shiny::tableOutput(ns("audit"))))))
}

wb_table_server <- function(id, loaded) {
  shiny::moduleServer(id, function(input, output, session) {
    ns <- session$ns
    rv <- shiny::reactiveValues(result = NULL, msg = NULL)
    shiny::observeEvent(loaded$stamp(), {
      d <- loaded$data()
      rv$result <- NULL
      rv$msg <- NULL
      shiny::updateSelectizeInput(session, "dims", choices = table_dimension_choices(d), selected = character())
      shiny::updateSelectInput(session, "value", choices = table_response_choices(d), selected = "")
    })
    shiny::observeEvent(input$run, {
      d <- loaded$data()
      shiny::req(d)
      rv$result <- NULL
      spec <- list(dims = input$dims, value = input$value, threshold = input$threshold,
                   zeros = input$zeros, dominance = input$dominance, p_percent = input$p_percent,
                   protection = input$protection, method = input$method, cost = input$cost,
                   base = input$base, epsilon = input$epsilon)
      notes <- character()
      res <- attempt(withCallingHandlers(workbench_protect_table(d, spec), warning = function(w) {
        notes <<- c(notes, conditionMessage(w))
        invokeRestart("muffleWarning")
      }))
      if (failed(res)) {
        rv$msg <- list(text = paste("The table could not be protected:", conditionMessage(res)), level = "error")
        return()
      }
      rv$result <- res
      rv$msg <- list(text = paste(c(sprintf("Done in %.1f s.", res$seconds), unique(notes)), collapse = " "),
                     level = if (length(notes)) "warning" else "info")
    })
    output$status <- shiny::renderUI(message_box(rv$msg$text, rv$msg$level, ns("message")))
    output$summary <- shiny::renderUI({
      shiny::req(rv$result)
      message_box(table_status_text(rv$result), "info", ns("summary-message"))
    })
    output$table <- shiny::renderTable({
      shiny::req(rv$result)
      table_display(rv$result$protected)
    }, striped = TRUE, spacing = "xs")
    output$audit <- shiny::renderTable({
      shiny::req(rv$result)
      a <- audit_display(rv$result$protected)
      if (is.null(a)) data.frame(note = "Rounding and noise publish every cell: no suppressed cell to audit.")
      else format_table(a)
    }, striped = TRUE, spacing = "xs")
    output$downloads <- shiny::renderUI({
      res <- rv$result
      if (is.null(res)) return(NULL)
      # the table report covers suppression patterns (release_report())
      labels <- c(download_table = "Protected table (CSV)", download_report = "Table report (HTML)")
      if (!inherits(res$protected, "epimask_protected_table")) labels <- labels["download_table"]
      download_buttons(ns, labels)
    })
    output$download_table <- shiny::downloadHandler(
      filename = function() paste0("table-", sanitize_name(loaded$name()), ".csv"),
      content = function(file) {
        res <- rv$result
        if (is.null(res)) return(writeLines("No protected table yet: press 'Protect the table' first.", file))
        utils::write.csv(as.data.frame(res$protected), file, row.names = FALSE)
      })
    output$download_report <- shiny::downloadHandler(
      filename = function() paste0("table-report-", sanitize_name(loaded$name()), ".html"),
      content = function(file) {
        res <- rv$result
        if (is.null(res) || !inherits(res$protected, "epimask_protected_table"))
          return(writeLines("No suppressed table yet: the report is of a suppression pattern.", file))
        release_report(res$protected, file, data_name = loaded$name())
      })
    list(result = shiny::reactive(rv$result), message = shiny::reactive(rv$msg),
         counts = shiny::reactive(if (!is.null(rv$result)) table_counts_summary(rv$result)))
  })
}
