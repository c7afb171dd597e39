# Argument checks shared by every exported function. Each check returns the
# (possibly coerced) value, so callers write `x <- check_numeric_matrix(x)`,
# and raises a classed epimask error naming the argument otherwise.

arg_name <- function(x) deparse1(x)

check_flag <- function(x, arg = arg_name(substitute(x))) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    abort_type(arg, "a single TRUE or FALSE")
  x
}

check_string <- function(x, arg = arg_name(substitute(x)), allow_null = FALSE) {
  if (is.null(x) && allow_null) return(x)
  if (!is.character(x) || length(x) != 1L || is.na(x))
    abort_type(arg, "a single non-empty character string")
  check_utf8(x, arg)
  if (!nzchar(x)) abort_type(arg, "a single non-empty character string")
  x
}

# Strings reach regular expressions, format() and the C core, which reject
# (or misread) bytes that are not UTF-8: say so, naming the argument.
check_utf8 <- function(x, arg = arg_name(substitute(x))) {
  if (is.factor(x)) x <- levels(x)
  if (!is.character(x)) return(invisible(x))
  # text declared latin1 is valid once translated; other bytes must be UTF-8
  ok <- validUTF8(x) | Encoding(x) == "latin1"
  if (!all(ok))
    epimask_abort(sprintf("`%s` must be valid text: it holds an invalid UTF-8 string (element %d).",
                          arg, which(!ok)[[1L]]),
                  "epimask_error_value", arg = arg)
  invisible(x)
}

# Every character or factor column of a data frame (and its names).
check_utf8_data <- function(data, arg = arg_name(substitute(data))) {
  check_utf8(colnames(data), sprintf("names(%s)", arg))
  if (is.data.frame(data)) {
    for (j in seq_along(data)) check_utf8(data[[j]], sprintf("%s$%s", arg, names(data)[j]))
  } else if (is.character(data)) check_utf8(data, arg)
  invisible(data)
}

# match.arg with a classed error; `choices` default taken from the caller's formals.
check_choice <- function(x, choices, arg = arg_name(substitute(x))) {
  if (identical(x, choices)) return(choices[[1L]])
  if (!is.character(x) || length(x) != 1L || is.na(x))
    abort_type(arg, sprintf("one of %s", paste0('"', choices, '"', collapse = ", ")))
  check_utf8(x, arg)
  hit <- pmatch(x, choices)
  if (is.na(hit))
    abort_value(arg, sprintf("one of %s, not \"%s\"",
                             paste0('"', choices, '"', collapse = ", "), shorten(x)))
  choices[[hit]]
}

check_number <- function(x, arg = arg_name(substitute(x)), lower = -Inf,
                         upper = Inf, lower_open = FALSE, upper_open = FALSE,
                         allow_null = FALSE, integer = FALSE) {
  if (is.null(x) && allow_null) return(x)
  if (!is.numeric(x) || length(x) != 1L || is.object(x))
    abort_type(arg, if (integer) "a single whole number" else "a single number")
  if (is.na(x) || !is.finite(x))
    abort_value(arg, "a finite number, not NA, NaN or Inf")
  if (integer && x != round(x))
    abort_value(arg, "a whole number")
  # as.integer() would turn a larger whole number into NA with a base warning
  if (integer && abs(x) > .Machine$integer.max)
    abort_value(arg, sprintf("a whole number between -%d and %d",
                             .Machine$integer.max, .Machine$integer.max))
  too_low <- if (lower_open) x <= lower else x < lower
  too_high <- if (upper_open) x >= upper else x > upper
  if (too_low || too_high)
    abort_value(arg, describe_range(lower, upper, lower_open, upper_open,
                                    integer))
  if (integer) as.integer(x) else as.double(x)
}

check_count <- function(x, arg = arg_name(substitute(x)), lower = 1L,
                        allow_null = FALSE) {
  check_number(x, arg, lower = lower, upper = .Machine$integer.max,
               allow_null = allow_null, integer = TRUE)
}

describe_range <- function(lower, upper, lower_open, upper_open, integer) {
  what <- if (integer) "a whole number" else "a number"
  lo <- if (is.finite(lower)) sprintf("%s %s", if (lower_open) ">" else ">=", format(lower))
  # a count's implicit upper bound (the largest integer) goes unsaid
  hi <- if (is.finite(upper) && !(integer && upper >= .Machine$integer.max))
    sprintf("%s %s", if (upper_open) "<" else "<=", format(upper))
  paste(c(what, paste(c(lo, hi), collapse = " and ")), collapse = " ")
}

check_numeric_vector <- function(x, arg = arg_name(substitute(x)), len = NULL,
                                 finite = TRUE, allow_null = FALSE,
                                 nonempty = TRUE) {
  if (is.null(x) && allow_null) return(x)
  if (is.data.frame(x) || is.list(x) || !(is.numeric(x) || is.logical(x)) ||
      is.factor(x))
    abort_type(arg, "a numeric vector")
  if (nonempty && length(x) == 0L) abort_empty(arg)
  if (!is.null(len) && length(x) != len)
    abort_length(arg, sprintf("have length %d, not %d", len, length(x)))
  if (finite && anyNA(x))
    abort_value(arg, "free of NA and NaN")
  if (finite && any(is.infinite(x)))
    abort_value(arg, "finite (no Inf)")
  storage.mode(x) <- "double"
  x
}

check_numeric_matrix <- function(x, arg = arg_name(substitute(x)), nrow = NULL,
                                 ncol = NULL, finite = TRUE) {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok))
      abort_type(arg, sprintf("numeric; column(s) %s are not",
                              paste0("'", names(x)[!ok], "'", collapse = ", ")))
    x <- as.matrix(x)
  }
  if (is.null(dim(x)) && (is.numeric(x) || is.logical(x)) && !is.object(x))
    x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x)))
    abort_type(arg, "a numeric matrix")
  if (length(x) == 0L) abort_empty(arg)
  if (!is.null(nrow) && nrow(x) != nrow)
    abort_length(arg, sprintf("have %d rows, not %d", nrow, nrow(x)))
  if (!is.null(ncol) && ncol(x) != ncol)
    abort_length(arg, sprintf("have %d columns, not %d", ncol, ncol(x)))
  if (finite && anyNA(x)) abort_value(arg, "free of NA and NaN")
  if (finite && any(is.infinite(x))) abort_value(arg, "finite (no Inf)")
  storage.mode(x) <- "double"
  x
}

check_data <- function(x, arg = arg_name(substitute(x))) {
  if (!(is.data.frame(x) || is.matrix(x)))
    abort_type(arg, "a data frame or a matrix")
  if (NROW(x) == 0L || NCOL(x) == 0L) abort_empty(arg)
  check_column_names(x, arg)
  x
}

# Columns are chosen by name everywhere (`vars`, `keys`, `known`, formulas): a
# data frame column without a name, or two with the same one, could not be
# chosen (or the first would be taken silently). Matrices without column
# names are addressed by position and pass.
check_column_names <- function(x, arg) {
  if (!is.data.frame(x)) return(invisible(x))
  nm <- names(x)
  bad <- is.na(nm) | !nzchar(nm)
  if (any(bad))
    abort_value(arg, sprintf("a data frame whose columns all have names (column %d has none)",
                             which(bad)[[1L]]))
  dup <- anyDuplicated(nm)
  if (dup)
    abort_value(arg, sprintf("a data frame with distinct column names ('%s' is used twice)",
                             shorten(nm[[dup]])))
  invisible(x)
}

check_columns <- function(cols, data, arg = arg_name(substitute(cols)),
                          data_arg = "data", allow_null = FALSE) {
  if (is.null(cols) && allow_null) return(cols)
  if (!is.character(cols) || length(cols) == 0L || anyNA(cols))
    abort_type(arg, "a character vector of column names")
  check_utf8(cols, arg)
  missing <- setdiff(cols, colnames(data))
  if (length(missing)) abort_name(arg, missing, sprintf("`%s`", data_arg))
  cols
}

# A file the function will write: opened (for appending, so nothing is lost)
# and closed at once, so a path that cannot be written (a directory that does
# not exist, a name too long for the file system, no permission) fails here,
# classed and naming the argument, before any work; `create_dir` first makes
# the missing directories, as the writer would.
check_writable <- function(file, arg = "file", create_dir = FALSE) {
  if (create_dir) suppressWarnings(dir.create(dirname(file), showWarnings = FALSE, recursive = TRUE))
  existed <- suppressWarnings(file.exists(file))
  reason <- NULL
  con <- tryCatch(withCallingHandlers(file(file, open = "a"), warning = function(w) {
    reason <<- conditionMessage(w)
    invokeRestart("muffleWarning")
  }), error = function(e) NULL)
  if (is.null(con))
    abort_value(arg, sprintf("a file path that can be written (\"%s\": %s)", shorten(file),
                             shorten(reason %||% "cannot be opened", 200L)))
  close(con)
  if (!existed) unlink(file)
  file
}

check_function <- function(x, arg = arg_name(substitute(x)), allow_null = FALSE) {
  if (is.null(x) && allow_null) return(x)
  if (!is.function(x)) abort_type(arg, "a function")
  x
}

check_formula <- function(x, arg = arg_name(substitute(x))) {
  if (!inherits(x, "formula")) abort_type(arg, "a formula such as y ~ x")
  x
}

# Resolve a family given as a family object, a family function or its name.
# `models`: the names of the caller's models beyond the GLM families
# ("cox", "err" where utility_glm() and ru_profile() take them), listed with
# the families when a name is not known.
check_family <- function(family, arg = "family", models = character()) {
  if (is.character(family) && length(family) == 1L) {
    check_utf8(family, arg)
    # looked up by string comparison among the family functions of stats, never
    # turned into a symbol (R refuses names over 10,000 bytes) nor searched for
    # beyond stats (a string naming any other function is not a family)
    if (is.na(family) || !family %in% stats_families) {
      valid <- c(names(supported_links), models)
      cased <- valid[!is.na(family) & tolower(valid) == tolower(family)]
      abort_value(arg, sprintf("%s (%s), not \"%s\"%s",
                               if (length(models)) "a known family or model" else "a known family",
                               paste0('"', valid, '"', collapse = ", "), shorten(family),
                               if (length(cased)) sprintf(": names are case-sensitive, did you mean \"%s\"?",
                                                          cased[[1L]]) else ""))
    }
    family <- getExportedValue("stats", family)
  }
  # a family function is called with its defaults; any other function fails
  # here with a classed error rather than with its own message
  if (is.function(family))
    family <- tryCatch(family(), error = function(e)
      abort_type(arg, sprintf("a family object such as binomial(); calling the function failed: %s",
                              conditionMessage(e))))
  if (!inherits(family, "family")) abort_type(arg, "a family object such as binomial()")
  check_family_parts(family, arg)
}

stats_families <- c("binomial", "gaussian", "Gamma", "inverse.gaussian", "poisson",
                    "quasi", "quasibinomial", "quasipoisson")

# A user's value echoed in a message: at most `width` characters, so a
# megabyte-long string does not make a megabyte-long error.
shorten <- function(x, width = 60L) {
  x <- as.character(x)
  long <- !is.na(x) & nchar(x, type = "chars", allowNA = TRUE) > width
  long[is.na(long)] <- FALSE
  x[long] <- paste0(substr(x[long], 1L, width - 3L), "...")
  x
}

# A family object is a list a user can build or edit by hand: every part the
# fitting code calls must be there.
family_functions <- c("linkfun", "linkinv", "variance", "dev.resids", "mu.eta")

check_family_parts <- function(family, arg) {
  for (nm in c("family", "link")) {
    v <- family[[nm]]
    if (!is.character(v) || length(v) != 1L || is.na(v))
      abort_type(sprintf("%s$%s", arg, nm), "a single character string")
  }
  missing_fun <- family_functions[!vapply(family_functions, function(nm)
    is.function(family[[nm]]), logical(1))]
  if (length(missing_fun))
    abort_type(arg, sprintf("a complete family object; %s %s not a function",
                            paste0("`$", missing_fun, "`", collapse = ", "),
                            if (length(missing_fun) == 1L) "is" else "are"))
  family
}

# The first argument unless it is NULL (base R has it from 4.4.0 on).
`%||%` <- function(a, b) if (is.null(a)) b else a

# A titled table in the summary printers of the risk measures: the numeric
# columns named in `round` are shown to `digits` significant digits.
print_titled_table <- function(title, table, digits, round = character()) {
  cat("\n", title, "\n", sep = "")
  for (col in intersect(round, names(table))) table[[col]] <- signif(table[[col]], digits)
  print(table, row.names = FALSE)
}

# print() of an object whose format() method gives its lines.
print_formatted <- function(x, ...) {
  cat(format(x, ...), sep = "\n")
  invisible(x)
}

# The display arguments of the print and format methods: significant digits
# from 1 to 22 (R's own limit), row counts from 0.
check_digits <- function(digits, arg = "digits") {
  check_number(digits, arg, lower = 1, upper = 22, integer = TRUE)
}

# The `row.names` and `optional` arguments of the as.data.frame() methods:
# NULL or one unique name per row; `optional` a flag (the column names are
# syntactic either way).
apply_row_names <- function(df, row.names, optional) {
  check_flag(optional, "optional")
  if (is.null(row.names)) return(df)
  if (!(is.character(row.names) || is.numeric(row.names)) || is.object(row.names) ||
      length(row.names) != nrow(df) || anyNA(row.names) || anyDuplicated(row.names) ||
      (is.character(row.names) && !all(validUTF8(row.names))))
    abort_value("row.names", sprintf(
      "NULL or %d unique names or numbers (valid UTF-8, no NA), one per row", nrow(df)))
  rownames(df) <- row.names
  df
}

# A control object completed by the options given by name in `...` (as
# glm() and coxph() take theirs); other names of `...` are an error unless
# `also` lists them.
control_with_dots <- function(control, dots, make, class, also = character()) {
  if (!inherits(control, class))
    abort_type("control", sprintf("a %s() object", class))
  if (length(dots) && (is.null(names(dots)) || any(!nzchar(names(dots)))))
    abort_name("...", "(unnamed)", paste(c(names(formals(make)), also), collapse = ", "))
  unknown <- setdiff(names(dots), c(names(formals(make)), also))
  if (length(unknown)) abort_name("...", unknown, paste(c(names(formals(make)), also),
                                                        collapse = ", "))
  given <- dots[intersect(names(dots), names(formals(make)))]
  if (!length(given)) return(control)
  base <- unclass(control)
  base[names(given)] <- given
  do.call(make, base[names(formals(make))])
}
