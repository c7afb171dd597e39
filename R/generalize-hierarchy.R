# Generalization hierarchies for Datafly (methods vignette section 8): per key, a sequence of
# recodings from level 0 (the original values) up to full suppression ("*").
# Every level is computed from the original values, so levels need not be
# chained, and a hierarchy is a plain value independent of the data.

new_hierarchy <- function(levels, labels, type) {
  structure(list(levels = levels, labels = labels, type = type),
            class = "epimask_hierarchy")
}

suppress_all <- function(x) rep("*", length(x))

#' Generalization hierarchies
#'
#' Ready hierarchies for [datafly()] and [generalize()]. Each goes from level
#' 0, the original values, to a top level where every value is replaced by
#' `"*"`. `NA` stays `NA` (a category of its own) below the top level.
#'
#' * `hierarchy_date()`: day -> month (`"1965-09"`) -> year (`"1965"`) ->
#'   decade (`"1960-1969"`) -> `*`. The key may be a `Date`, a date-time, or
#'   character dates read with `format`.
#' * `hierarchy_zip()`: ZIP or postal codes; level \eqn{i} replaces the last
#'   \eqn{i} characters by `fill` (`02138` -> `02130` -> `02100` -> ...), the
#'   top level (`digits`) is `*`. Numeric codes are zero-padded to `digits`.
#' * `hierarchy_numeric()`: numbers in intervals of growing `widths` starting
#'   at `origin`. Whole numbers with whole widths are labelled `"20-24"`,
#'   others `"[20,25)"`. Widths that are multiples of each other keep the
#'   levels nested.
#' * `hierarchy_category()`: a user lookup table; its first column holds the
#'   original values, each further column one level up. A value absent from
#'   the table is an error (class `epimask_error_value`). Given a file path,
#'   it reads a hierarchy file made for ARX unchanged; [write_hierarchy()]
#'   writes one.
#'
#' A hierarchy can also be given to [datafly()] as a plain list from level 0
#' up, each element a function of the original values or a lookup table (a
#' named vector mapping original values to generalized ones, or a data frame
#' with the original values in its first column and the generalized ones in
#' its second); see [as_hierarchy()].
#'
#' @param steps The levels above the original, a subset of
#'   `c("month", "year", "decade")` in this order.
#' @param format `NULL`, or the [strptime()] format of character dates.
#' @param digits Length of the codes (the number of levels below `*`), from 1
#'   to 20.
#' @param fill Character that replaces dropped digits, `"0"` or `"*"`.
#' @param widths Increasing positive interval widths, one level each.
#' @param origin Left end of one interval at every level.
#' @param x For `hierarchy_category()`: a data frame (or character matrix):
#'   original values, then one column per level; or the path of a hierarchy
#'   CSV file in the layout of the ARX tool (no header, one row per original
#'   value, one column per level, `;` or `,` separated; a last column of `*`
#'   is the top level).
#' @param table Deprecated: the name of `x` of `hierarchy_category()` up to
#'   version 0.2.0 (the design names it `x`); still read, with a warning of
#'   class `epimask_warning_deprecated`.
#' @param sep `NULL` (guess from the file's first line), `";"` or `","`.
#' @return An object of class `epimask_hierarchy`.
#' @examples
#' h <- hierarchy_date()
#' h
#' generalize(as.Date("1965-09-20"), h, 3)
#' generalize("02138", hierarchy_zip(), 1)
#' generalize(c(1959, 1962), hierarchy_numeric(c(5, 10)), 2)
#' tab <- data.frame(code = c("I21", "I22", "J45"), group = c("I2", "I2", "J4"),
#'                   chapter = c("I", "I", "J"))
#' generalize(c("J45", "I22"), hierarchy_category(tab), 1)
#' generalize(c("f", "m"), hierarchy_flat(), 1)
#' dx <- c(rep("I21", 6), rep("J45", 5), "K50", "Q21")
#' generalize(dx, hierarchy_rare(dx, min_count = 5), 1)
#' @family generalization
#' @name hierarchies
NULL

#' @rdname hierarchies
#' @export
hierarchy_date <- function(steps = c("month", "year", "decade"), format = NULL) {
  all_steps <- c("month", "year", "decade")
  if (!is.character(steps) || !length(steps) || anyNA(steps) ||
      !all(steps %in% all_steps) || anyDuplicated(steps) ||
      is.unsorted(match(steps, all_steps)))
    abort_value("steps", "a subset of \"month\", \"year\", \"decade\", in that order")
  format <- check_string(format, allow_null = TRUE)
  to_date <- function(x) {
    if (inherits(x, "Date")) return(check_date_range(x))
    if (inherits(x, "POSIXt")) return(check_date_range(as.Date(x)))
    if (is.character(x) && !is.null(format)) {
      check_utf8(x, "the dates")
      d <- as.Date(x, format = format)
      if (any(is.na(d) & !is.na(x)))
        abort_value("hierarchies", sprintf("dates in the format \"%s\"", format))
      return(d)
    }
    abort_type("hierarchies", paste0(
      "a date hierarchy applied to Date or date-time keys ",
      "(or character dates with `format` given)"))
  }
  year <- function(x) as.integer(format(to_date(x), "%Y"))
  recode <- list(
    month = function(x) format(to_date(x), "%Y-%m"),
    year = function(x) as.character(year(x)),
    decade = function(x) {
      y <- year(x)
      lo <- y - y %% 10L
      ifelse(is.na(y), NA_character_, paste0(lo, "-", lo + 9L))
    })
  new_hierarchy(c(list(identity), recode[steps], list(suppress_all)),
                c("day", steps, "*"), "date")
}

# Dates a calendar recodes: Inf, -Inf and days beyond the four-digit years
# would become the text "Inf" at the month level and NA (with base R's
# coercion warning) at the year level; NaN is a missing date.
check_date_range <- function(d) {
  v <- unclass(d)
  bad <- !is.na(v) & (v < date_lowest | v > date_highest)
  if (any(bad))
    abort_value("the dates", sprintf(
      "finite dates from 0000-01-01 to 9999-12-31 (element %d is %s)",
      which(bad)[[1L]], format(v[bad][[1L]])))
  d[is.nan(v)] <- NA
  d
}
date_lowest <- -719528   # as.Date("0000-01-01")
date_highest <- 2932896  # as.Date("9999-12-31")

#' @rdname hierarchies
#' @export
hierarchy_zip <- function(digits = 5, fill = c("0", "*")) {
  # one level per digit: bounded before the levels are built
  digits <- check_number(digits, "digits", lower = 1, upper = 20, integer = TRUE)
  fill <- check_choice(fill, c("0", "*"))
  as_code <- function(x) {
    if (is.factor(x)) x <- as.character(x)
    if (is.numeric(x)) {
      v <- x[!is.na(x)]
      if (any(!is.finite(v) | v < 0 | v != round(v)))
        abort_value("hierarchies", "a ZIP hierarchy applied to codes that are whole numbers >= 0")
      out <- formatC(x, width = digits, flag = "0", format = "f", digits = 0)
      out[is.na(x)] <- NA_character_
      return(out)
    }
    if (!is.character(x))
      abort_type("hierarchies", "a ZIP hierarchy applied to character or numeric codes")
    check_utf8(x, "the ZIP codes")
    x
  }
  drop_digits <- function(i) {
    force(i)
    function(x) {
      code <- as_code(x)
      keep <- pmax(nchar(code) - i, 0L)
      out <- paste0(substr(code, 1L, keep),
                    strrep(fill, pmin(i, nchar(code))))
      out[is.na(code)] <- NA_character_
      out
    }
  }
  middle <- lapply(seq_len(digits - 1L), drop_digits)
  new_hierarchy(c(list(identity), middle, list(suppress_all)),
                c("code", sprintf("last %d replaced", seq_len(digits - 1L)), "*"),
                "zip")
}

#' @rdname hierarchies
#' @export
hierarchy_numeric <- function(widths = c(5, 10, 20, 50, 100), origin = 0) {
  widths <- check_numeric_vector(widths, "widths")
  if (any(widths <= 0) || is.unsorted(widths, strictly = TRUE))
    abort_value("widths", "increasing positive interval widths")
  origin <- check_number(origin)
  interval <- function(w) {
    force(w)
    function(x) {
      if (!is.numeric(x) || is.object(x))
        abort_type("hierarchies", paste("a numeric hierarchy applied to numeric keys (convert the",
                                        "key with as.numeric(), or give it hierarchy_category())"))
      lo <- origin + floor((x - origin) / w) * w
      whole <- all(x == round(x), na.rm = TRUE) && w == round(w) &&
        origin == round(origin)
      out <- if (whole) paste0(format_bound(lo), "-", format_bound(lo + w - 1))
             else paste0("[", format_bound(lo), ",", format_bound(lo + w), ")")
      out[is.na(x)] <- NA_character_
      out
    }
  }
  new_hierarchy(c(list(identity), lapply(widths, interval), list(suppress_all)),
                c("value", sprintf("width %s", format_bound(widths)), "*"), "numeric")
}

format_bound <- function(x) format(x, scientific = FALSE, trim = TRUE, digits = 15)

#' @rdname hierarchies
#' @export
hierarchy_category <- function(x, sep = NULL, table = NULL) {
  table <- renamed_argument(if (!missing(x)) x, table, "x", "table")
  if (is.null(table)) abort_type("x", "a data frame or the path of a hierarchy CSV file")
  if (is.character(table) && length(table) == 1L) table <- read_arx_hierarchy(table, sep)
  if (is.matrix(table)) table <- as.data.frame(table, stringsAsFactors = FALSE)
  if (!is.data.frame(table) || ncol(table) < 2L)
    abort_type("x", paste0("a data frame (original values, then one column per level) ",
                               "or the path of a hierarchy CSV file"))
  if (nrow(table) == 0L) abort_empty("x")
  check_utf8_data(table, "x")
  table[] <- lapply(table, as.character)
  from <- table[[1L]]
  if (anyDuplicated(from))
    abort_value("x", "a table listing each original value once")
  if (length(unique(table[[ncol(table)]])) > 1L) table[["*"]] <- "*"
  level_of <- function(j) lookup_recode(from, table[[j]])
  levels <- lapply(seq(2L, ncol(table)), level_of)
  h <- new_hierarchy(c(list(identity), levels), names(table), "category")
  h$table <- table
  h
}

# An ARX hierarchy file: no header, one row per original value, one column
# per level, separated by `;` (ARX's default) or `,` (whichever the first line
# holds more of). Values are read as text, exactly as written.
read_arx_hierarchy <- function(file, sep = NULL) {
  check_utf8(file, "x")
  if (!file.exists(file))
    abort_value("x", sprintf("a data frame or an existing file; '%s' does not exist", shorten(file)))
  # a directory, a file without read permission: refused by name, not by
  # the connection's own error
  if (dir.exists(file) || file.access(file, 4L) != 0L)
    abort_value("x", sprintf("a data frame or a readable file; '%s' is a directory or cannot be read",
                                 shorten(file)))
  first <- readLines(file, n = 1L, warn = FALSE)
  if (!length(first)) abort_empty("x")
  if (is.null(sep)) {
    count <- function(ch) lengths(regmatches(first, gregexpr(ch, first, fixed = TRUE)))
    sep <- if (count(",") > count(";")) "," else ";"
  }
  sep <- check_choice(sep, c(";", ","))
  tab <- utils::read.table(file, sep = sep, header = FALSE, quote = "\"",
                           colClasses = "character", na.strings = character(),
                           comment.char = "", strip.white = FALSE,
                           blank.lines.skip = TRUE, check.names = FALSE)
  names(tab) <- c("value", sprintf("level %d", seq_len(ncol(tab) - 1L)))
  if (all(tab[[ncol(tab)]] == "*")) names(tab)[ncol(tab)] <- "*"
  tab
}

#' @rdname hierarchies
#' @details `hierarchy_flat()` is the one-step hierarchy of a categorical key
#'   (the value, then `*`); `hierarchy_rare(x, min_count)` a two-step one built
#'   from the key's values `x`: values held by fewer than `min_count` records
#'   are grouped into `other`, then `*`.
#' @export
hierarchy_flat <- function() {
  new_hierarchy(list(identity, suppress_all), c("value", "*"), "category")
}

#' @rdname hierarchies
#' @param x The values of a categorical key.
#' @param min_count Values held by fewer records are grouped.
#' @param other Label of the group of rare values.
#' @export
hierarchy_rare <- function(x, min_count = 5, other = "other") {
  if (!is.atomic(x) || is.null(x) || is.object(x) && !is.factor(x))
    abort_type("x", "a vector of category values")
  min_count <- check_count(min_count)
  other <- check_string(other)
  check_utf8(x, "x")
  values <- as.character(x[!is.na(x)])
  if (!length(values)) abort_empty("x")
  counts <- table(values)
  rare <- names(counts)[counts < min_count]
  if (other %in% setdiff(names(counts), rare))
    abort_value("other", "a label that is not already a common value")
  tab <- data.frame(value = names(counts), stringsAsFactors = FALSE)
  tab$grouped <- ifelse(tab$value %in% rare, other, tab$value)
  hierarchy_category(tab)
}

#' Write a hierarchy in ARX's file layout
#'
#' Writes a generalization hierarchy as a CSV file in the layout of the ARX
#' anonymization tool, which [hierarchy_category()] reads back: no header, one
#' row per original value, one column per level from the original value up to
#' the top `*`, separated by `sep`.
#'
#' @param h A hierarchy (see [hierarchies]); category hierarchies carry their
#'   values, other hierarchies need `values`.
#' @param file Path of the file to write.
#' @param values The original values to list (all those of the key to be
#'   generalized); `NULL` takes a category hierarchy's own table.
#' @param sep Field separator, `";"` (ARX's default) or `","`.
#' @return `file`, invisibly.
#' @family generalization
#' @examples
#' f <- tempfile(fileext = ".csv")
#' write_hierarchy(hierarchy_numeric(c(5, 10)), f, values = 20:29)
#' readLines(f, n = 3)
#' h <- hierarchy_category(f)
#' generalize("27", h, 2)
#' @export
write_hierarchy <- function(h, file, values = NULL, sep = ";") {
  h <- as_hierarchy(h)
  file <- check_writable(check_string(file))
  sep <- check_choice(sep, c(";", ","))
  if (is.null(values)) {
    if (is.null(h$table))
      abort_value("values", "given for a hierarchy that is not a lookup table")
    tab <- h$table
  } else {
    if (!is.atomic(values) || !is.null(dim(values)))
      abort_type("values", "a vector of original values")
    check_utf8(values, "values")
    values <- unique(values[!is.na(values)])
    if (!length(values)) abort_empty("values")
    top <- length(h$levels) - 1L
    tab <- as.data.frame(lapply(0:top, function(lv)
      as.character(apply_level(h, values, lv))), stringsAsFactors = FALSE)
    if (length(unique(tab[[ncol(tab)]])) > 1L) tab[[ncol(tab) + 1L]] <- "*"
  }
  cells <- unlist(tab, use.names = FALSE)
  if (anyNA(cells) || any(grepl(sep, cells, fixed = TRUE) | grepl("\n", cells, fixed = TRUE)))
    abort_value("h", sprintf("values and labels free of NA, newlines and the separator '%s'", sep))
  lines <- do.call(paste, c(unname(as.list(tab)), sep = sep))
  writeLines(lines, file)
  invisible(file)
}

# A recoding function from a lookup of original values to generalized ones.
lookup_recode <- function(from, to) {
  force(from)
  force(to)
  function(x) {
    values <- if (is.factor(x)) as.character(x) else x
    idx <- match(as.character(values), from)
    unknown <- is.na(idx) & !is.na(values)
    if (any(unknown))
      abort_value("hierarchies", sprintf(
        "a lookup table covering every value of the key; missing: %s",
        paste0("'", utils::head(unique(values[unknown]), 5L), "'", collapse = ", ")))
    to[idx]
  }
}

#' Convert a user hierarchy to a hierarchy object
#'
#' `as_hierarchy()` turns a list of levels, from level 0 (the original values)
#' up, into an `epimask_hierarchy`. Each element is a function of the original
#' values returning the generalized values, or a lookup table: a named vector
#' (names the original values) or a data frame with the original values in its
#' first column and the generalized values in its second. [datafly()] appends a
#' level replacing everything by `"*"` when the top level given does not
#' already reduce the key to one value.
#'
#' @param x A list of levels or an `epimask_hierarchy`.
#' @return An `epimask_hierarchy`.
#' @family generalization
#' @examples
#' h <- as_hierarchy(list(identity, function(x) substr(x, 1, 3),
#'                        c(I21 = "I", I22 = "I", J45 = "J")))
#' generalize(c("I21", "J45"), h, 2)
#' @export
as_hierarchy <- function(x) {
  if (inherits(x, "epimask_hierarchy")) return(x)
  if (is.function(x) || !is.list(x) || is.data.frame(x) || length(x) == 0L)
    abort_type("hierarchies", paste0(
      "a hierarchy object or a list of functions / lookup tables from level 0 up"))
  levels <- lapply(x, function(level) {
    if (is.function(level)) return(level)
    if (is.data.frame(level) && ncol(level) >= 2L)
      return(lookup_recode(as.character(level[[1L]]), as.character(level[[2L]])))
    if (is.atomic(level) && !is.null(names(level)))
      return(lookup_recode(names(level), unname(as.character(level))))
    abort_type("hierarchies", paste0(
      "levels that are functions, named vectors or two-column lookup data frames"))
  })
  new_hierarchy(levels, sprintf("level %d", seq_along(levels) - 1L), "user")
}

#' Generalize values to a level of a hierarchy
#'
#' @param x A vector of original values.
#' @param hierarchy An `epimask_hierarchy` (see [hierarchies]) or a list of
#'   levels accepted by [as_hierarchy()].
#' @param level Level from 0 (original) to the top of the hierarchy.
#' @return The generalized values, the same length as `x`.
#' @family generalization
#' @examples
#' generalize(as.Date(c("1965-09-20", "1964-11-07")), hierarchy_date(), 2)
#' @export
generalize <- function(x, hierarchy, level) {
  check_utf8(x, "x")
  hierarchy <- as_hierarchy(hierarchy)
  level <- check_count(level, lower = 0L)
  top <- length(hierarchy$levels) - 1L
  if (level > top)
    abort_value("level", sprintf("a level from 0 to %d", top))
  apply_level(hierarchy, x, level)
}

apply_level <- function(hierarchy, x, level, key = NULL) {
  # a level function of the user's (substr(), a regex) that fails on the
  # values fails with a classed error naming the hierarchy, and the key when
  # the caller knows it (`hierarchies$age`)
  arg <- if (is.null(key)) "hierarchies" else sprintf("hierarchies$%s", key)
  out <- tryCatch(hierarchy$levels[[level + 1L]](x), error = function(e) {
    if (inherits(e, "epimask_error")) {
      if (is.null(key) || !identical(e$arg, "hierarchies")) stop(e)
      msg <- sub("\\.$", "", sub("`hierarchies`", sprintf("`%s`", arg), conditionMessage(e),
                                  fixed = TRUE))
      epimask_abort(sprintf("%s; key '%s' holds %s values (level %d of its hierarchy).", msg,
                            key, describe_class(x), level),
                    class(e)[[1L]], arg = arg)
    }
    abort_value(arg, sprintf("levels that work on the values%s (level %d failed: %s)",
                             if (is.null(key)) "" else sprintf(" of key '%s'", key), level,
                             conditionMessage(e)))
  })
  if (length(out) != length(x))
    abort_length(arg, sprintf(
      "have levels returning one value per record (level %d returned %d for %d)",
      level, length(out), length(x)))
  out
}

# A column's kind in words, for messages ("character", "factor", "Date").
describe_class <- function(x) {
  if (is.factor(x)) return("factor")
  if (inherits(x, "Date")) return("Date")
  if (inherits(x, "POSIXt")) return("date-time")
  class(x)[[1L]]
}

#' @export
format.epimask_hierarchy <- function(x, ...) {
  sprintf("%s hierarchy: %s", x$type, paste(x$labels, collapse = " -> "))
}

#' @export
print.epimask_hierarchy <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

check_hierarchies <- function(hierarchies, keys, data) {
  if (!is.list(hierarchies) || inherits(hierarchies, "epimask_hierarchy") ||
      is.data.frame(hierarchies) || is.null(names(hierarchies)))
    abort_type("hierarchies", "a named list with one hierarchy per key")
  missing <- setdiff(keys, names(hierarchies))
  if (length(missing))
    epimask_abort(sprintf("`hierarchies` has no hierarchy for the key(s) %s.",
                          paste0("'", missing, "'", collapse = ", ")),
                  "epimask_error_name", arg = "hierarchies")
  extra <- setdiff(names(hierarchies), keys)
  if (length(extra))
    abort_name("hierarchies", extra, "`keys`")
  out <- lapply(keys, function(key) {
    h <- as_hierarchy(hierarchies[[key]])
    top <- length(h$levels) - 1L
    # every level once on the key's distinct values, so that a hierarchy
    # that does not fit its key (a numeric hierarchy on a character column)
    # fails here, naming the key, not deep in the search
    values <- unique(data[[key]])
    for (lv in seq_len(top)) apply_level(h, values, lv, key)
    if (n_distinct(apply_level(h, data[[key]], top, key)) > 1L) {
      h$levels <- c(h$levels, list(suppress_all))
      h$labels <- c(h$labels, "*")
    }
    h
  })
  names(out) <- keys
  out
}

#' Keep some levels of a hierarchy
#'
#' A hierarchy with level 0 (the original values), the levels `levels` and
#' the top of `h`, the others left out: zip codes within 3-digit areas
#' within the total is `hierarchy_levels(hierarchy_zip(), 2)`. A count table
#' ([table_counts()]) has one sub-total per group of every level, so the
#' levels kept are the sub-totals it publishes.
#'
#' @param h A hierarchy (see [hierarchies]) or a list of levels for
#'   [as_hierarchy()].
#' @param levels The levels to keep between 0 and the top (whole numbers,
#'   increasing).
#' @return An `epimask_hierarchy`.
#' @family generalization
#' @examples
#' h <- hierarchy_levels(hierarchy_zip(), 2)
#' h
#' generalize("02138", h, 1)
#' @export
hierarchy_levels <- function(h, levels) {
  h <- as_hierarchy(h)
  top <- length(h$levels) - 1L
  if (!is.numeric(levels) || !length(levels) || anyNA(levels) || any(levels != round(levels)) ||
      any(levels < 1) || any(levels >= top) || is.unsorted(levels, strictly = TRUE))
    abort_value("levels", sprintf("increasing whole numbers from 1 to %d (the levels between 0 and the top)",
                                  top - 1L))
  keep <- c(0L, as.integer(levels), top) + 1L
  out <- new_hierarchy(h$levels[keep], h$labels[keep], h$type)
  if (!is.null(h$table)) out$table <- h$table[, intersect(keep, seq_len(ncol(h$table))), drop = FALSE]
  out
}
