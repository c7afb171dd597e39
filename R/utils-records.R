# The records a model fit leaves out, counted so that no fit loses records
# silently (issue 36): missing values (NA in a variable the model uses, which
# is also how suppressed or withheld values arrive) and, for a (start, stop]
# survival response, intervals with stop <= start (Surv() makes them NA). The
# fits carry the count as `records`; ru_profile() carries it per scheme
# (`records_used`, `records_lost`) and every print of a U says it.

# The count of a fit: `total` records given, `used` by the fit, `lost` the
# difference, and the reasons (`stop_le_start`, `missing`).
fit_records <- function(total, used, stop_le_start = 0L) {
  total <- as.integer(total)
  used <- as.integer(used)
  lost <- total - used
  stop_le_start <- min(as.integer(stop_le_start), lost)
  c(total = total, used = used, lost = lost, stop_le_start = stop_le_start,
    missing = lost - stop_le_start)
}

# "76 of 203 records left out of the fit: 76 with stop <= start", or "".
format_records_lost <- function(records) {
  if (is.null(records) || !isTRUE(records[["lost"]] > 0)) return("")
  why <- c(if (records[["stop_le_start"]] > 0)
             sprintf("%s with stop <= start", format_count(records[["stop_le_start"]])),
           if (records[["missing"]] > 0)
             sprintf("%s with missing values", format_count(records[["missing"]])))
  sprintf("%s of %s records left out of the fit: %s", format_count(records[["lost"]]),
          format_count(records[["total"]]), paste(why, collapse = ", "))
}

format_count <- function(x) formatC(x, format = "d", big.mark = ",")

# The reason of a profile fit's lost records, as the profile stores it:
# "stop <= start", "missing values" or both.
records_lost_reason <- function(records) {
  if (is.null(records) || !isTRUE(records[["lost"]] > 0)) return(NA_character_)
  paste(c(if (records[["stop_le_start"]] > 0) "stop <= start",
          if (records[["missing"]] > 0) "missing values"), collapse = " or ")
}

# The line a fit's print gives its lost records: R's "n observations deleted
# due to missingness" when that is the only reason (as glm() and coxph()
# print it), else the count with its reasons (stop <= start).
records_note <- function(x) {
  rec <- x$records
  if (is.null(rec) || !isTRUE(rec[["stop_le_start"]] > 0)) return(stats::naprint(x$na.action))
  format_records_lost(rec)
}

# The schemes of a profile whose fits left records out, in one sentence (""
# when none did), for every place that shows their U: the profile's print,
# recommend(), the plots' caption and the report. `schemes` restricts it to
# some rows (the one recommended).
profile_records_note <- function(x, schemes = NULL) {
  lost <- x$records_lost
  if (is.null(lost)) return("")
  rows <- which(!is.na(lost) & lost > 0 & (is.null(schemes) | x$scheme %in% schemes))
  if (!length(rows)) return("")
  total <- x$records_used[rows] + lost[rows]
  interval <- x$records_lost_interval[rows] %||% rep(0, length(rows))
  interval[is.na(interval)] <- 0
  why <- c(if (any(interval > 0)) "stop <= start",
           if (any(lost[rows] - interval > 0)) "missing values")
  sprintf("The fits left records out (%s), so U is computed on the rest: %s.",
          paste(why, collapse = " or "),
          paste(sprintf("'%s' %s of %s", x$scheme[rows], format_record_count(lost[rows]),
                        format_record_count(total)),
                collapse = ", "))
}

# A count of records, a mean over replicates with one decimal when not whole.
format_record_count <- function(v) {
  ifelse(abs(v - round(v)) < 1e-9, format_count(round(v)),
         formatC(v, format = "f", digits = 1, big.mark = ","))
}

# The short form for a plot's caption: the schemes named when few, counted
# when many.
profile_records_caption <- function(x) {
  lost <- x$records_lost
  if (is.null(lost)) return(NULL)
  rows <- which(!is.na(lost) & lost > 0)
  if (!length(rows)) return(NULL)
  interval <- x$records_lost_interval[rows] %||% rep(0, length(rows))
  why <- paste(c(if (any(interval > 0, na.rm = TRUE)) "stop <= start",
                 if (any(lost[rows] - interval > 0, na.rm = TRUE)) "missing values"),
               collapse = " or ")
  who <- if (length(rows) <= 2L)
    paste(sprintf("'%s' (%s of %s)", short_scheme_labels(x)[rows], format_record_count(lost[rows]),
                  format_record_count(x$records_used[rows] + lost[rows])), collapse = ", ")
  else sprintf("%d schemes", length(rows))
  sprintf("Fits left records out (%s): %s.", why, who)
}
