# Dates as maskable columns (methods vignette section 23): the calendar arithmetic shared by
# the mask types that accept `Date` and `POSIXct` columns (noise: shifting by
# whole days; round / truncate: to a week, month, quarter or year; topcode:
# bounds that are dates). Each type's own file decides what it does with a
# date column; these helpers only compute.

date_units <- c("week", "month", "quarter", "year")

# "Date", "POSIXct", or NULL for a column that is not a date.
date_kind <- function(x) {
  if (inherits(x, "Date")) return("Date")
  if (inherits(x, "POSIXct")) return("POSIXct")
  if (inherits(x, "POSIXlt")) return("POSIXlt")
  NULL
}

is_date_column <- function(x) !is.null(date_kind(x))

# The time zone a date-time column is read in ("" = the session's).
date_tz <- function(x) {
  tz <- attr(x, "tzone")
  if (is.null(tz) || !length(tz)) "" else tz[[1L]]
}

# A date column as a plain number (days since 1970-01-01 for a Date,
# seconds for a POSIXct) and back, keeping its class and time zone.
date_number <- function(x) as.double(unclass(x))
date_restore <- function(z, like) {
  if (inherits(like, "Date")) {
    # a Date released as whole days
    return(structure(round(as.double(z)), class = "Date"))
  }
  .POSIXct(as.double(z), tz = attr(like, "tzone"))
}

# One shift in whole days per person (per record without persons), uniform
# on the 2 * amount non-zero whole numbers in [-amount, amount], so that
# every date moves. With a `secret`, the shift of a person is the keyed hash
# (HMAC-SHA-256) of their identifier: the same person gets the same shift in
# every release made under that secret, and without it the shift cannot be
# recomputed; otherwise it is drawn from R's generator.
date_shifts <- function(amount, person, ids = NULL, secret = NULL) {
  amount <- as.integer(amount)
  n_units <- max(person)
  r <- if (is.null(secret)) {
    sample.int(2L * amount, n_units, replace = TRUE) - 1L
  } else {
    first <- match(seq_len(n_units), person)
    key <- as.character(ids[first])
    hex <- substr(as.character(openssl::sha256(key, key = secret)), 1L, 12L)
    # 48 bits, reduced modulo 2 * amount (bias below 2 * amount / 2^48)
    v <- strtoi(substr(hex, 1L, 6L), 16L) * 2^24 + strtoi(substr(hex, 7L, 12L), 16L)
    as.integer(v %% (2 * amount))
  }
  s <- r - amount
  s[s >= 0L] <- s[s >= 0L] + 1L
  s[person]
}

# Shift a date column by `days` whole days: a Date by days, a POSIXct by
# days * 86,400 seconds (every interval kept to the second; in a zone with
# daylight saving the clock time of a shifted instant can differ by an hour).
date_shift <- function(x, days) {
  if (inherits(x, "Date")) return(x + days)
  .POSIXct(unclass(x) + 86400 * days, tz = attr(x, "tzone"))
}

# The first day of the unit (ISO week from Monday, month, quarter, year)
# holding each date; for a POSIXct, midnight of that day in its time zone.
date_floor <- function(x, unit) {
  if (inherits(x, "POSIXct")) {
    tz <- date_tz(x)
    day <- as.Date(as.POSIXlt(x, tz = tz))
    return(date_midnight(date_floor(day, unit), tz))
  }
  d <- as.double(unclass(x))
  if (unit == "week") {
    # 1970-01-01 was a Thursday: days since the last Monday
    return(structure(d - (d + 3) %% 7, class = "Date"))
  }
  lt <- as.POSIXlt(structure(d, class = "Date"))
  lt$mday <- 1L
  if (unit == "quarter") lt$mon <- (lt$mon %/% 3L) * 3L
  if (unit == "year") lt$mon <- 0L
  out <- as.Date(lt)
  out[is.na(d)] <- NA
  out
}

# The first day of the next unit after `start` (a first day itself).
date_next <- function(start, unit) {
  if (inherits(start, "POSIXct")) {
    tz <- date_tz(start)
    return(date_midnight(date_next(as.Date(as.POSIXlt(start, tz = tz)), unit), tz))
  }
  if (unit == "week") return(start + 7)
  lt <- as.POSIXlt(start)
  lt$mon <- lt$mon + switch(unit, month = 1L, quarter = 3L, year = 12L)
  as.Date(lt)
}

date_midnight <- function(day, tz) {
  out <- as.POSIXct(format(day, "%Y-%m-%d"), tz = tz, format = "%Y-%m-%d")
  attr(out, "tzone") <- tz
  out
}

# Rounding to the nearer first day of a unit; a date exactly halfway goes to
# the later one.
date_round <- function(x, unit) {
  lower <- date_floor(x, unit)
  upper <- date_next(lower, unit)
  later <- !is.na(x) & (as.double(upper) - as.double(x) <= as.double(x) - as.double(lower))
  lower[later] <- upper[later]
  lower
}

# Dates a custodian should look at before a release: before 1900 or after
# today (placeholders such as 1800-01-01, typing errors, scheduled visits).
# Returns the count per column, named.
implausible_dates <- function(cols) {
  today <- Sys.Date()
  vapply(cols, function(x) {
    day <- if (inherits(x, "POSIXct")) as.Date(as.POSIXlt(x, tz = date_tz(x))) else x
    sum(!is.na(day) & (day < as.Date("1900-01-01") | day > today))
  }, numeric(1))
}
