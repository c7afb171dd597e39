# Rows of the reports' risk tables for releases that are samples (issue 27;
# methods vignette sections 21-22): the criteria of the profile, of the
# report or of a deidentify() search that have rows of their own (population
# uniqueness, the log-linear risk, cluster risk: criterion_detail_rows() in
# each criterion's file). The numbers are the measures' own; the labels are
# stable (so that the original and the release line up) and the model chosen,
# whether it converged and the reason go to notes under the table.

# Plain names of the population models, for notes.
population_model_name <- function(m) {
  switch(m, dankar = "Dankar et al.'s rule", pitman = "the Pitman model",
         zayatz = "the Zayatz model", snb = "the SNB model", m)
}

# The rows of one data set: list(table = a data frame (measure, value) or
# NULL, notes = sentences), from each criterion
# among `criteria` that has rows of its own (criterion_detail_rows()):
# population uniqueness, the log-linear risk, cluster risk. `original`
# supplies a column the release dropped (same records in the same order);
# `id` the person column the criteria count by when they carry none.
sample_risk_rows <- function(data, criteria, context = NULL, original = NULL, what = "the data",
                             id = NULL) {
  rows <- list()
  notes <- character()
  for (cr in sample_risk_criteria(criteria)) {
    keys <- cr$keys
    if (!length(keys) || !all(keys %in% names(data))) next
    part <- criterion_detail_rows(cr, data, context = context, original = original, what = what,
                                  keys = keys, id = cr$id %||% id)
    if (is.null(part)) next
    rows <- c(rows, part$rows())
    notes <- c(notes, part$notes())
  }
  list(table = if (length(rows))
         data.frame(measure = vapply(rows, `[[`, "", 1L), value = vapply(rows, `[[`, 0, 2L),
                    stringsAsFactors = FALSE),
       notes = notes)
}

# What the rows of the criteria mean, for an ethics board: one paragraph per
# kind of measure (criterion_detail_explanations()).
sample_risk_explanations <- function(criteria, context = NULL) {
  out <- unique(unlist(lapply(sample_risk_criteria(criteria), criterion_detail_explanations,
                              context = context)))
  if (length(out)) out
}

# The criteria among `criteria` (a list; NULLs and other objects ignored),
# each once (the same one from the profile and the report).
sample_risk_criteria <- function(criteria) {
  criteria <- Filter(is_risk_criterion, criteria)
  criteria[!duplicated(lapply(criteria, unclass))]
}

# A collector of the rows and notes of one criterion.
detail_rows <- function() {
  rows <- list()
  notes <- character()
  list(add = function(label, value) rows[[length(rows) + 1L]] <<- list(label, as.numeric(value)),
       note = function(text) notes <<- c(notes, text),
       rows = function() rows, notes = function() notes)
}

# A measure, or NULL with a note saying why it is missing.
detail_attempt <- function(out, expr, label, what) {
  res <- tryCatch(expr, error = function(e) e)
  if (!inherits(res, "error")) return(res)
  out$note(sprintf("%s of %s could not be computed: %s", label, what, conditionMessage(res)))
  NULL
}
