# The R side of the R-to-C contract (src/r_util.h): .Call entries take named
# lists, and a field the C side refuses comes back as an R error
# "epimask-field: <field>: <expected>", turned here into a classed
# epimask_error naming the field, so that a hand-edited object fails like a
# bad argument.

call_c <- function(routine, ..., arg = "scheme") {
  # do.call: the registered routine is a value here, which R CMD check's
  # static look-up of .Call() symbols cannot follow
  tryCatch(do.call(.Call, list(routine, ...)), error = function(e) {
    msg <- conditionMessage(e)
    if (!startsWith(msg, "epimask-field: ")) stop(e)
    parts <- strsplit(sub("^epimask-field: ", "", msg), ": ", fixed = TRUE)[[1L]]
    field <- parts[[1L]]
    expected <- paste(parts[-1L], collapse = ": ")
    epimask_abort(sprintf("`%s$%s` must be %s.", arg, field, expected),
                  "epimask_error_value", arg = paste0(arg, "$", field))
  })
}
