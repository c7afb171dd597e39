# The workbench's server (the steps are modules: workbench-modules.R) and the
# helpers its steps share.

# Value of `expr`, or a condition object when it fails.
attempt <- function(expr) tryCatch(expr, error = function(e) e)
failed <- function(x) inherits(x, "error")

bundled_data <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "epimask", envir = env)
  as_plain_data(get(name, envir = env))
}

# The workbench's server: the modules of the six steps (workbench-modules.R)
# wired together. `roles` and `spec` are referred to before they are made
# (reactives are evaluated lazily, after this function has run).
workbench_server <- function(data, data_name, start_plan = function() invisible()) {
  function(input, output, session) {
    session$onFlushed(start_plan, once = TRUE)
    roles <- NULL
    spec <- NULL
    loaded <- wb_data_server("data", data, data_name, roles = function() {
      r <- roles()
      list(identifier = r$identifiers, `person (unit of risk)` = r$person,
           `quasi-identifier` = r$keys, sensitive = r$sensitive, masked = r$vars)
    })
    roles <- wb_variables_server("variables", loaded, spec = function() spec())
    context <- wb_context_server("context", loaded, roles)
    masking <- wb_masking_server("masking", loaded, spec = function() spec(),
                                 context = context$context, start_plan = start_plan)
    spec <- shiny::reactive(workbench_spec(c(roles(), context$fields(), masking$fields())))
    profile <- wb_profile_server("profile", loaded, masking$result, context$context, spec,
                                 go_release = function()
                                   bslib::nav_select("tabs", "release", session = session))
    deid <- wb_deidentify_server("deidentify", loaded, roles, context$context)
    wb_release_server("release", loaded, masking$result, profile, review = deid$review)
    table <- wb_table_server("table", loaded)

    shiny::exportTestValues(
      profile = if (is.null(masking$result())) NULL else profile_display_table(masking$result()$ru),
      selected = profile$selected(), picked = profile$picked(), data_name = loaded$name(),
      running = masking$running(), async = masking$async, plot_points = profile$points(),
      progress = masking$progress(),
      deidentified = if (is.null(deid$result())) NULL else deid$result()$certificate,
      table_counts = table$counts())
  }
}

sanitize_name <- function(x) {
  x <- gsub("[^A-Za-z0-9_-]+", "-", sub("\\.[[:alnum:]]+$", "", x %||% "data"))
  if (nzchar(x)) x else "data"
}

# The custodian's choices as one list (what the statistics functions take),
# from the fields the steps return (or any list with those names).
workbench_spec <- function(input) {
  num <- function(x) if (is.null(x) || length(x) != 1L || is.na(x)) NULL else as.numeric(x)
  person <- input$person
  if (!is.null(person) && (length(person) != 1L || is.na(person) || !nzchar(person))) person <- NULL
  list(identifiers = input$identifiers, person = person, keys = input$keys,
       sensitive = input$sensitive,
       vars = input$vars, formula = input$formula %||% "", family = input$family %||% "gaussian",
       term = input$term %||% "", risk = input$risk %||% "none", known = input$known,
       round_sig = input$round_sig, round_dec = input$round_dec, noise = input$noise %||% "",
       noise_dist = input$noise_dist %||% "uniform", nrep = num(input$nrep) %||% 1,
       seed = num(input$seed), secret = input$secret,
       synth_methods = as.character(input$synth_methods %||% character()),
       synth_m = num(input$synth_m), synth_holdout = num(input$synth_holdout),
       public = isTRUE(input$public),
       pr_attempt = num(input$pr_attempt), pr_acquaintance = num(input$pr_acquaintance),
       pr_breach = num(input$pr_breach), threshold = num(input$threshold),
       reasons = as.character(input$reasons %||% character()),
       sample_pi = num(input$sample_pi), sample_population = num(input$sample_population),
       sample_measures = as.character(input$sample_measures %||% character()),
       cluster = if (length(input$cluster) == 1L && nzchar(input$cluster)) input$cluster)
}
