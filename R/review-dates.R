# Dates and times more precise than the year (methods vignette, section 26):
# El Emam & Malin and HIPAA's Safe Harbor list treat every element of a date
# but the year as identifying. A column is a date when it is a Date or a
# date-time (POSIXct, POSIXlt), when its text values read as dates in one of
# the layouts below, or when it holds whole numbers that read as yyyymmdd.
# Its precision is the finest its values use: a time of day, the day, the
# month (every value on the 1st), or the year (every value on 1 January).

# Text layouts of dates, each a pattern the whole value must match and the
# reading of the matched value as a Date (NA where the day does not exist);
# `time` marks layouts that carry a time of day.
month_names <- c("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                 "nov", "dec")

date_from_parts <- function(y, m, d) {
  y <- as.integer(y)
  m <- rep_len(as.integer(m), length(y))
  d <- rep_len(as.integer(d), length(y))
  ok <- !is.na(y) & !is.na(m) & !is.na(d) & m >= 1L & m <= 12L & d >= 1L & d <= 31L
  out <- rep(as.Date(NA), length(y))
  if (any(ok)) {
    iso <- sprintf("%04d-%02d-%02d", y[ok], m[ok], d[ok])
    # as.Date() gives NA for a day the month does not have (2016-02-30)
    out[ok] <- as.Date(iso, format = "%Y-%m-%d")
  }
  out
}

capture_parts <- function(x, pattern) {
  m <- regmatches(x, regexec(pattern, x, perl = TRUE, ignore.case = TRUE))
  do.call(rbind, lapply(m, function(v) if (length(v)) v[-1L] else rep(NA_character_, 3L)))
}

month_number <- function(name) match(substr(tolower(name), 1L, 3L), month_names)

two_digit_year <- function(y) {
  y <- as.integer(y)
  # as strptime's %y: 00-68 are 2000-2068, 69-99 are 1969-1999
  ifelse(y <= 68L, 2000L + y, 1900L + y)
}

mon_re <- "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?"

date_layouts <- list(
  list(label = "yyyy-mm-dd hh:mm[:ss]", time = TRUE,
       pattern = "^(\\d{4})-(\\d{1,2})-(\\d{1,2})[T ]\\d{1,2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?$",
       read = function(p) date_from_parts(p[, 1L], p[, 2L], p[, 3L])),
  list(label = "yyyy-mm-dd", pattern = "^(\\d{4})-(\\d{1,2})-(\\d{1,2})$",
       read = function(p) date_from_parts(p[, 1L], p[, 2L], p[, 3L])),
  list(label = "yyyy/mm/dd", pattern = "^(\\d{4})/(\\d{1,2})/(\\d{1,2})$",
       read = function(p) date_from_parts(p[, 1L], p[, 2L], p[, 3L])),
  list(label = "dd.mm.yyyy", pattern = "^(\\d{1,2})\\.(\\d{1,2})\\.(\\d{4})( \\d{1,2}:\\d{2}(:\\d{2})?)?$",
       read = function(p) date_from_parts(p[, 3L], p[, 2L], p[, 1L])),
  list(label = "dd/mm/yyyy", pattern = "^(\\d{1,2})[/-](\\d{1,2})[/-](\\d{4})( \\d{1,2}:\\d{2}(:\\d{2})?)?$",
       read = function(p) date_from_parts(p[, 3L], p[, 2L], p[, 1L])),
  list(label = "mm/dd/yyyy", pattern = "^(\\d{1,2})[/-](\\d{1,2})[/-](\\d{4})( \\d{1,2}:\\d{2}(:\\d{2})?)?$",
       read = function(p) date_from_parts(p[, 3L], p[, 1L], p[, 2L])),
  list(label = "dd/mm/yy", pattern = "^(\\d{1,2})/(\\d{1,2})/(\\d{2})$",
       read = function(p) date_from_parts(two_digit_year(p[, 3L]), p[, 2L], p[, 1L])),
  list(label = "mm/dd/yy", pattern = "^(\\d{1,2})/(\\d{1,2})/(\\d{2})$",
       read = function(p) date_from_parts(two_digit_year(p[, 3L]), p[, 1L], p[, 2L])),
  list(label = "dd Mon yyyy", pattern = paste0("^(\\d{1,2})[ ./-]?", mon_re, "[ ./,-]*(\\d{4})$"),
       read = function(p) date_from_parts(p[, 3L], month_number(p[, 2L]), p[, 1L])),
  list(label = "Mon dd, yyyy", pattern = paste0("^", mon_re, " (\\d{1,2}),? (\\d{4})$"),
       read = function(p) date_from_parts(p[, 3L], month_number(p[, 1L]), p[, 2L])),
  list(label = "yyyymmdd", pattern = "^(\\d{4})(\\d{2})(\\d{2})$",
       read = function(p) {
         d <- date_from_parts(p[, 1L], p[, 2L], p[, 3L])
         y <- as.integer(p[, 1L])
         d[is.na(y) | y < 1800L | y > 2200L] <- NA
         d
       }),
  list(label = "yyyy-mm", month = TRUE, pattern = "^(\\d{4})[-/](\\d{1,2})()$",
       read = function(p) date_from_parts(p[, 1L], p[, 2L], 1L)),
  list(label = "mm/yyyy", month = TRUE, pattern = "^(\\d{1,2})/(\\d{4})()$",
       read = function(p) date_from_parts(p[, 2L], p[, 1L], 1L)),
  list(label = "Mon yyyy", month = TRUE, pattern = paste0("^", mon_re, "[ ./-]?(\\d{4})()$"),
       read = function(p) date_from_parts(p[, 2L], month_number(p[, 1L]), 1L))
)

# The precision of dates (a Date vector without NA): "day", "month" or
# "year" (the finest any value uses).
date_precision <- function(d) {
  if (!length(d)) return(NA_character_)
  lt <- as.POSIXlt(d)
  if (any(lt$mday != 1L)) return("day")
  if (any(lt$mon != 0L)) return("month")
  "year"
}

# The date review of one column: NULL when it is not a date, else a list
# with `kind` (how it was recognised), `layout`, `precision` ("time of day",
# "day", "month", "year"), `share` (of the values examined that read as
# dates) and `examined` (how many distinct values were read).
review_date <- function(x, values, control) {
  if (inherits(x, "Date") || inherits(x, "POSIXt")) return(review_date_class(x))
  if (is.numeric(x) && !is.object(x)) return(review_date_number(values, control))
  if (is.character(values)) return(review_date_text(values, control))
  NULL
}

review_date_class <- function(x) {
  if (inherits(x, "POSIXlt")) x <- as.POSIXct(x)
  ok <- !is.na(x) & is.finite(unclass(x))
  if (!any(ok)) return(NULL)
  kind <- if (inherits(x, "Date")) "Date" else "date-time"
  if (inherits(x, "POSIXct")) {
    lt <- as.POSIXlt(x[ok], tz = date_tz(x))
    if (any(lt$hour != 0L | lt$min != 0L | lt$sec != 0))
      return(list(kind = kind, layout = NA_character_, precision = "time of day", share = 1,
                  examined = sum(ok)))
    day <- as.Date(format(lt, "%Y-%m-%d"))
  } else {
    day <- x[ok]
    # a Date holding fractions of a day is still read by its day
    day <- structure(floor(unclass(day)), class = "Date")
  }
  list(kind = kind, layout = NA_character_, precision = date_precision(unique(day)),
       share = 1, examined = sum(ok))
}

# Whole numbers that read as yyyymmdd (20160117).
review_date_number <- function(values, control) {
  v <- values[is.finite(values)]
  if (!length(v)) return(NULL)
  whole <- v == trunc(v) & v >= 18000101 & v <= 22001231
  if (mean(whole) < control$pattern_share) return(NULL)
  text <- sprintf("%.0f", v[whole])
  layout <- date_layouts[[which(vapply(date_layouts, `[[`, "", "label") == "yyyymmdd")]]
  d <- layout$read(capture_parts(text, layout$pattern))
  share <- sum(!is.na(d)) / length(v)
  if (share < control$pattern_share) return(NULL)
  list(kind = "number", layout = "yyyymmdd", precision = date_precision(unique(d[!is.na(d)])),
       share = share, examined = length(v))
}

# Text values that read as dates in one layout. A first look at up to 1,000
# of the values keeps only the layouts that could reach the share, so a
# column of other text costs a few pattern matches.
review_date_text <- function(values, control) {
  if (!length(values)) return(NULL)
  # dates are short: longer values are counted as not dates, unread
  len <- nchar(values, type = "chars", allowNA = TRUE)
  # empty text is a missing value: not counted
  total <- sum(is.na(len) | len > 0L)
  short <- !is.na(len) & len > 0L & len <= 48L
  if (!total || sum(short) < control$pattern_share * total) return(NULL)
  at <- probe_index(length(values))
  probe <- trimws(values[at][short[at]])
  layouts <- Filter(function(layout)
    sum(grepl(layout$pattern, probe, perl = TRUE, ignore.case = TRUE)) >=
      control$pattern_share / 2 * length(at), date_layouts)
  if (!length(layouts)) return(NULL)
  v <- character(length(values))
  v[short] <- trimws(values[short])
  short <- short & nzchar(v)
  best <- NULL
  for (layout in layouts) {
    hit <- short & grepl(layout$pattern, v, perl = TRUE, ignore.case = TRUE)
    if (sum(hit) < control$pattern_share * total) next
    d <- layout$read(capture_parts(v[hit], layout$pattern))
    share <- sum(!is.na(d)) / total
    if (share >= control$pattern_share && (is.null(best) || share > best$share)) {
      precision <- if (isTRUE(layout$time)) "time of day" else date_precision(unique(d[!is.na(d)]))
      best <- list(kind = "text", layout = layout$label, precision = precision, share = share,
                   examined = total)
    }
  }
  best
}

# The evidence of a date column, in words.
date_evidence <- function(r) {
  what <- switch(r$kind,
                 Date = "Date", `date-time` = "date-time",
                 number = sprintf("whole numbers read as dates (%s, %s of values)", r$layout,
                                  format_share(r$share)),
                 text = sprintf("text read as dates (%s, %s of values)", r$layout,
                                format_share(r$share)))
  precision <- switch(r$precision,
                      `time of day` = "to the time of day", day = "daily precision",
                      month = "monthly precision", year = "yearly precision")
  sprintf("%s, %s", what, precision)
}

# Ages over 89 (HIPAA Safe Harbor: aggregated into one category of 90 or
# older): the records of a numeric column named like an age above 89.
ages_over_89 <- function(x, name) {
  if (!is.numeric(x) || is.object(x)) return(0L)
  if (!grepl("(^|_)age(_|$)", normalize_column_name(name))) return(0L)
  sum(x > 89 & x <= 150, na.rm = TRUE)
}
