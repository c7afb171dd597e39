# The R side of the R-to-C contract (src/r_util.h): every .Call of the
# package goes through call_c(), with one named list. The glue raises three
# kinds of error, classed here and nowhere else:
# - a field the C side refuses, "epimask-field: <field>: <expected>": an
#   epimask_error_value naming the field (a hand-edited object fails like a
#   bad argument);
# - scratch memory the C core could not get, "epimask-memory: <what>": an
#   epimask_error_memory;
# - a C loop that polled an interrupt (and so consumed it),
#   "epimask-interrupt: ...": given back as the user interrupt it was.

call_c <- function(routine, ..., arg = "scheme") {
  # do.call: the registered routine is a value here, which R CMD check's
  # static look-up of .Call() symbols cannot follow
  tryCatch(do.call(.Call, list(routine, ...)), error = function(e) {
    msg <- conditionMessage(e)
    if (startsWith(msg, "epimask-memory: "))
      epimask_abort(paste0(sub("^epimask-memory: ", "", msg), "."), "epimask_error_memory",
                    arg = arg)
    if (startsWith(msg, "epimask-interrupt: ")) user_interrupt()
    if (!startsWith(msg, "epimask-field: ")) stop(e)
    parts <- strsplit(sub("^epimask-field: ", "", msg), ": ", fixed = TRUE)[[1L]]
    field <- parts[[1L]]
    expected <- paste(parts[-1L], collapse = ": ")
    epimask_abort(sprintf("`%s$%s` must be %s.", arg, field, expected),
                  "epimask_error_value", arg = paste0(arg, "$", field))
  })
}

# What R itself does on an interrupt: signal an "interrupt" condition (caught
# by tryCatch(interrupt = )), then, when nothing handles it, return to the top
# level.
user_interrupt <- function() {
  signalCondition(structure(class = c("interrupt", "condition"),
                            list(message = "", call = NULL)))
  invokeRestart("abort")
}

# A list without its NULL elements (the arguments of a call that were not given).
compact <- function(x) x[!vapply(x, is.null, logical(1))]

# A call as one line of text for a message; an argument too long to read (a
# data frame, a long vector) is shown as `<...>`.
call_text <- function(call) {
  parts <- as.list(call)
  shown <- lapply(parts[-1L], function(a) {
    # whole numbers as typed (5, not 5L)
    if (is.integer(a) && !is.factor(a)) a <- as.double(a)
    text <- paste(deparse(a, width.cutoff = 500L), collapse = " ")
    if (nchar(text) > 60L) as.name("<...>") else a
  })
  paste(deparse(as.call(c(parts[1L], shown)), width.cutoff = 500L), collapse = " ")
}
