# The report of a protected table: release_report() hands an
# epimask_protected_table here. The content is assembled as plain R objects
# (tested without pandoc); inst/report/table-report.Rmd lays it out. The
# audit (the intruder's interval of every suppressed cell) is the verdict.

release_report_table <- function(x, file, title = "Disclosure report of a protected table",
                                 quiet = TRUE, data_name = NULL) {
  file <- check_writable(check_string(file), create_dir = TRUE)
  quiet <- check_flag(quiet)
  title <- check_string(title)
  check_string(data_name, "data_name", allow_null = TRUE)
  for (nm in c("rmarkdown", "knitr"))
    if (!requireNamespace(nm, quietly = TRUE))
      epimask_abort(sprintf("release_report() needs the %s package.", nm), "epimask_error_dependency")
  if (!rmarkdown::pandoc_available())
    epimask_abort("release_report() needs pandoc (https://pandoc.org).", "epimask_error_dependency")
  content <- table_report_content(x, title = title, data_name = data_name)
  render_report(content, file, quiet = quiet, template = "table-report.Rmd")
}

# Everything the report shows. Never a suppressed value, never the true value
# of a sensitive cell or its protection interval (which would give the value):
# the intruder's intervals are what the release itself lets anyone compute.
table_report_content <- function(x, title = "Disclosure report of a protected table",
                                 data_name = NULL) {
  tab <- x$original
  audit <- as.data.frame(x$audit)
  prim <- audit$status == "primary"
  dims <- data.frame(
    Dimension = tab$dims,
    Codes = vapply(tab$nodes, function(nd) sum(nd$leaf), integer(1)),
    Groups = vapply(tab$nodes, function(nd) sum(!nd$leaf), integer(1)),
    Levels = vapply(tab$level_labels, paste, character(1), collapse = " -> "),
    stringsAsFactors = FALSE)
  lev <- table_cell_levels(tab)
  key <- apply(lev, 1L, paste, collapse = ", ")
  by_level <- do.call(rbind, lapply(split(seq_along(key), key), function(g) {
    data.frame(levels = key[[g[[1L]]]], cells = length(g), primary = sum(x$primary[g]),
               secondary = sum(x$suppressed[g] & !x$primary[g]), stringsAsFactors = FALSE)
  }))
  names(by_level)[[1L]] <- sprintf("Level of (%s)", paste(tab$dims, collapse = ", "))
  rownames(by_level) <- NULL
  cells <- audit[prim, c(tab$dims, "low", "high", "protected", "exact"), drop = FALSE]
  names(cells)[names(cells) %in% c("low", "high")] <- c("Intruder's lowest", "Intruder's highest")
  rules <- data.frame(Rule = vapply(x$rules, format, character(1)),
                      Sensitive = vapply(x$rules, function(r)
                        sum(criterion_cells(r, tab)$sensitive), integer(1)),
                      Meaning = vapply(x$rules, function(r) r$explanation %||% "", character(1)),
                      stringsAsFactors = FALSE)
  list(
    title = title, date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    data_name = data_name %||% "the table",
    n_cells = length(x$suppressed), n_interior = sum(table_interior(tab)),
    n_relations = tab$n_relations, n_records = tab$n_records, freq = tab$freq_name,
    value = tab$value_name, dims = dims, rules = rules,
    method = x$method, optimal = x$optimal, fallback = x$fallback, cost = x$cost,
    cost_type = x$cost_type, n_primary = x$n_primary, n_secondary = x$n_secondary,
    by_level = by_level, cells = cells, unprotected = length(x$unprotected),
    protected = length(x$unprotected) == 0L && all(audit$protected[prim]),
    solver = x$solver, audit_seconds = attr(x$audit, "seconds"),
    integer = isTRUE(attr(x$audit, "integer")), protected_table = x,
    version = as.character(utils::packageVersion("epimask")), r_version = R.version.string)
}
