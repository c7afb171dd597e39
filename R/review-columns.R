# The column review (issue 36, methods vignette section 26): before a
# release, every column of the data gets a role (key, direct identifier,
# date more precise than the year, free text, proxy of a key,
# quasi-identifier, sensitive, other) with the figures it rests on, and the
# columns outside the keys that the review flags must be generalized,
# shifted, dropped or declared safe by the custodian before a certificate
# can speak for the release. review_columns() measures; review_pending()
# says what is left to handle, so that deidentify(), release_report() and
# the workbench need nothing but its result.

#' Thresholds of the column review
#'
#' The figures [review_columns()] flags a column by. The defaults are stated
#' and argued in the methods vignette, section 26.
#'
#' @param distinction A column (or combination of columns) is near-unique
#'   when its alpha-distinction (distinct values / records, ARX's measure)
#'   is at least this; default 0.5 (at least half as many distinct values
#'   as records).
#' @param combinations The largest number of columns combined when looking
#'   for near-unique combinations: 1 (single columns only), 2 (pairs; the
#'   default) or 3 (triples: the number of combinations grows with the cube
#'   of the columns, opt in on wide data).
#' @param purity A group of records with equal values of a column determines
#'   a key when one key value holds at least this share of the group; in
#'   (0.5, 1], default 0.99 (a coding error in 1 record of 100 does not hide
#'   a proxy; 1 asks for every record).
#' @param proxy_share A column is a proxy of a key when it determines the
#'   key for at least this share of the records beyond what its group sizes
#'   give by chance; default 0.05.
#' @param pattern_share The share of a column's distinct values that must
#'   match a pattern (e-mail addresses, telephone numbers, dates, ...) for
#'   the column to be flagged by it; default 0.5, ARX's.
#' @param text_words,text_chars Free text: at least `pattern_share` of the
#'   values have `text_words` words or more (default 5), or the median value
#'   has `text_chars` characters or more (default 100).
#' @param max_values The patterns read at most this many distinct values of
#'   a column, taken evenly over them (default 100,000); counts and
#'   measures use every record.
#' @param code_levels A column named like an identifier ("site_id") that
#'   holds at most this many distinct values, each on 5 records or more on
#'   average, is read as a code of a category, not as an identifier
#'   (default 20).
#' @return An object of class `epimask_review_control`.
#' @family de-identification
#' @examples
#' review_control()
#' review_control(purity = 1, combinations = 1)
#' @export
review_control <- function(distinction = 0.5, combinations = 2L, purity = 0.99,
                           proxy_share = 0.05, pattern_share = 0.5, text_words = 5L,
                           text_chars = 100L, max_values = 1e5, code_levels = 20L) {
  out <- list(
    distinction = check_number(distinction, lower = 0, upper = 1, lower_open = TRUE),
    combinations = check_number(combinations, lower = 1, upper = 3, integer = TRUE),
    purity = check_number(purity, lower = 0.5, upper = 1, lower_open = TRUE),
    proxy_share = check_number(proxy_share, lower = 0, upper = 1, lower_open = TRUE),
    pattern_share = check_number(pattern_share, lower = 0, upper = 1, lower_open = TRUE),
    text_words = check_count(text_words),
    text_chars = check_count(text_chars),
    max_values = check_count(max_values, lower = 10L),
    code_levels = check_count(code_levels))
  structure(out, class = "epimask_review_control")
}

#' @rdname review_control
#' @param x An `epimask_review_control` object.
#' @param ... Unused.
#' @export
format.epimask_review_control <- function(x, ...) {
  c("Column review thresholds:",
    sprintf("  near-unique: alpha-distinction >= %s, combinations of up to %d columns",
            format(x$distinction), x$combinations),
    sprintf("  proxy: determines a key for >= %s of records beyond chance (a group determines when one value holds >= %s of it)",
            format_share(x$proxy_share), format_share(x$purity)),
    sprintf("  patterns: >= %s of distinct values (at most %s read); free text: %d+ words or %d+ characters",
            format_share(x$pattern_share), format(x$max_values, big.mark = ","),
            x$text_words, x$text_chars),
    sprintf("  an identifier's name on <= %d codes (5+ records each): a category code",
            x$code_levels))
}

#' @rdname review_control
#' @export
print.epimask_review_control <- function(x, ...) print_formatted(x, ...)

#' Review every column of the data before a release
#'
#' Gives every column of `data` a role, with the figures it rests on, so that
#' nothing is released in a role the custodian has not seen (methods
#' vignette, section 26):
#'
#' - **key**: the quasi-identifiers named in `keys` (counted by the
#'   certificate).
#' - **direct identifier**: the person column (`id`); a column named like a
#'   name, an e-mail address, a telephone or fax number, an address, a
#'   national, social security, medical record or account number, a vehicle
#'   or device identifier, a URL or IP address (HIPAA's Safe Harbor list), or
#'   like an identifier ("id", "pid", "subject_id"; unless it holds a few
#'   codes each on many records, such as a site code); a column whose values
#'   look like e-mail addresses, URLs, IP addresses, social security or
#'   national insurance numbers, telephone numbers or street addresses; a
#'   text column distinct on every record; a near-unique column whose values
#'   look like record numbers or personal names.
#' - **date**: a date or time more precise than the year: `Date` and
#'   date-time columns, text that reads as dates (ISO, European and US
#'   layouts, month names) and whole numbers that read as yyyymmdd; the
#'   precision is the finest the values use (a date on the 1st of every
#'   month has monthly precision, one on every 1 January yearly precision,
#'   which is not flagged).
#' - **free text**: most values have several words, or are long.
#' - **proxy**: a column from which a key's value is predicted: the share of
#'   records whose key value the column determines (the records in groups
#'   of equal column values where one key value holds at least `purity` of
#'   the group), beyond the share its group sizes would give by chance;
#'   *exact* when every group holds one key value (education-num for
#'   education), *partial* otherwise (relationship for sex).
#' - **quasi-identifier**: a column named like a demographic, geographic or
#'   date variable, or near-unique on its own or in a small combination with
#'   other columns (ARX's alpha-distinction, with its alpha-separation).
#' - **sensitive**: a column named in `sensitive` with no other flag.
#' - **other**: nothing flagged.
#'
#' A column outside the keys that the review flags is **pending** until it
#' is generalized, shifted, dropped or declared safe in `declare`; the
#' certificate counts pending columns as keys ([review_pending()]).
#'
#' With several records per person (`id`) the measures count persons: a
#' person's value of a column is their value when it is the same on all
#' their records, else the set of their values.
#'
#' On a release (`original` given), the proxies are measured against the
#' original keys: the records of `data` (the release) and `original` are
#' the same records in the same order, `keys` are generalized or suppressed
#' in `data` (a key may be missing from it: withheld), and a column is a
#' proxy when, together with the released key, it determines the original
#' key for more records than the released key does.
#'
#' @param data A data frame (or matrix): the data to release, or the
#'   release itself (with `original`). Not modified.
#' @param keys The quasi-identifiers (a character vector; may be empty).
#' @param sensitive `NULL` or the sensitive columns (not keys).
#' @param id `NULL`, or the person column when persons have several records.
#' @param declare `NULL`, or the columns the custodian declares safe, with
#'   the reason: a named character vector such as `c(visit_date = "shifted
#'   upstream by up to 7 days")`. A key cannot be declared.
#' @param original `NULL`, or the original data of the records of a release
#'   `data` (same rows, same order), holding the keys.
#' @param control A [review_control()] object: the thresholds.
#' @return An object of class `epimask_column_review`: `columns` (one row
#'   per column of `data`: `column`, `type`, `role`, `status` ("key",
#'   "pending", "declared", or "" when nothing is to be done), `flags` (the
#'   codes of the findings, comma-separated), `evidence` (the findings and
#'   notes in words), `declared` (the reason, or NA), `sensitive`, `missing`
#'   (records NA), `distinct`, `distinction`, `separation`, `unique` (the
#'   share of units with a value of their own)), `findings` (one row per
#'   finding: `column`, `flag`, `role`, `evidence`), `proxies` (every
#'   column-key pair measured: `determined`, `expected` (by chance),
#'   `excess`, `units`, `exact`, `alone` (the released key alone, on a
#'   release), `proxy` ("exact", "partial" or "")), `combinations` (the
#'   near-unique combinations), `dates`, `pending` (the pending columns),
#'   `keys`, `withheld` (keys not in a release), `sensitive`, `id`,
#'   `declared`, `n` (records), `n_units`, `unit`, `on_release`, `control`.
#' @seealso [review_pending()] for what is left to handle; [deidentify()].
#' @family de-identification
#' @examples
#' d <- adult_extract[1:1500, ]
#' # a numeric code of education and a column restoring sex in part
#' d$education_num <- as.integer(d$education)
#' d$spouse <- ifelse(d$marital_status == "Married-civ-spouse",
#'                    ifelse(d$sex == "Male", "Husband", "Wife"), "none")
#' d$visit <- as.Date("2020-01-01") + seq_len(nrow(d))
#' rev <- review_columns(d, keys = c("age", "sex", "race", "education"),
#'                       sensitive = "income")
#' rev
#' review_pending(rev)
#' # declared safe, with the reason
#' rev2 <- review_columns(d, keys = c("age", "sex", "race", "education"),
#'                        declare = c(visit = "shifted upstream by up to 7 days"))
#' summary(rev2)
#' plot(rev)
#'
#' # on a release: sex withheld, education generalized
#' rel <- d
#' rel$sex <- NULL
#' rel$education <- "*"
#' on_rel <- review_columns(rel, keys = c("age", "sex", "race", "education"), original = d)
#' subset(on_rel$proxies, nzchar(proxy))
#' @export
review_columns <- function(data, keys, sensitive = NULL, id = NULL, declare = NULL,
                           original = NULL, control = review_control()) {
  data <- check_key_data(data, "data")
  frame <- as_plain_data(as.data.frame(data))
  check_atomic_columns(frame, "data")
  if (!inherits(control, "epimask_review_control"))
    abort_type("control", "a review_control() object")
  original <- check_review_original(original, frame)
  keys <- check_review_keys(keys, frame, original)
  withheld <- setdiff(keys, names(frame))
  sensitive <- check_columns(sensitive, frame, allow_null = TRUE)
  if (length(intersect(sensitive, keys)))
    abort_value("sensitive", sprintf("columns that are not `keys` ('%s' is both)",
                                     intersect(sensitive, keys)[[1L]]))
  id <- check_person_id(id, frame, exclude = c(keys, sensitive))
  declared <- check_declare(declare, frame, keys)
  units <- review_units(frame, id)

  cols <- names(frame)
  info <- stats::setNames(lapply(cols, function(col)
    review_column(frame[[col]], col, units, control, is_key = col %in% keys,
                  is_id = identical(col, id))), cols)
  findings <- do.call(rbind, c(list(empty_findings()), lapply(info, `[[`, "findings")))
  notes <- lapply(info, `[[`, "notes")

  # near-unique combinations of the keys and the columns nothing else flags
  open <- cols[vapply(cols, function(col) {
    i <- info[[col]]
    !i$degenerate && !identical(col, id) && (col %in% keys || !nrow(i$findings))
  }, logical(1))]
  combos <- near_unique_combinations(
    lapply(info[open], `[[`, "unit"), lapply(info[open], `[[`, "record"),
    intersect(keys, open), vapply(info[open], function(i) i$measures[["distinction"]], 1),
    control$distinction, control$combinations, units)
  findings <- rbind(findings, combination_findings(combos, keys, units))

  # proxies: every column outside the keys that is neither an identifier
  # nor free text, against every key (the original key on a release)
  measured <- cols[vapply(cols, function(col) {
    i <- info[[col]]
    !col %in% keys && !identical(col, id) && !i$degenerate &&
      !any(i$findings$role %in% c("direct identifier", "free text"))
  }, logical(1))]
  present_keys <- setdiff(keys, withheld)
  key_units <- if (is.null(original)) lapply(info[present_keys], `[[`, "unit") else
    stats::setNames(lapply(keys, function(k) unit_codes(dense_codes(original[[k]]), units)),
                    keys)
  strata <- if (!is.null(original)) stats::setNames(lapply(keys, function(k)
    if (k %in% withheld) list(code = rep(1L, units$n), d = 1L) else info[[k]]$unit), keys)
  proxies <- review_proxies(lapply(info[measured], `[[`, "unit"), key_units, strata, control)
  findings <- rbind(findings, proxy_findings(proxies, units, !is.null(original)))

  columns <- review_table(frame, cols, info, findings, notes, keys, sensitive, declared)
  structure(list(
    columns = columns, findings = findings, proxies = proxies, combinations = combos,
    dates = review_dates_table(info), pending = columns$column[columns$status == "pending"],
    keys = keys, withheld = withheld, sensitive = sensitive, id = id, declared = declared,
    n = nrow(frame), n_units = units$n, unit = units$name, on_release = !is.null(original),
    control = control), class = "epimask_column_review")
}

# ---- one column ------------------------------------------------------------------

empty_findings <- function() {
  data.frame(column = character(), flag = character(), role = character(),
             evidence = character(), stringsAsFactors = FALSE)
}

finding <- function(column, flag, role, evidence) {
  data.frame(column = column, flag = flag, role = role, evidence = evidence,
             stringsAsFactors = FALSE)
}

# What one column shows on its own: its codes, ARX's measures, and the
# findings (flags with a role) and notes (figures that flag nothing) of its
# name and values.
review_column <- function(x, name, units, control, is_key, is_id) {
  record <- dense_codes(x)
  unit <- unit_codes(record, units)
  m <- distinction_measures(unit)
  out <- list(record = record, unit = unit, measures = m, type = column_type(x),
              missing = sum(is.na(x)), findings = empty_findings(), notes = character(),
              date = NULL, degenerate = FALSE)
  add <- function(flag, role, evidence)
    out$findings <<- rbind(out$findings, finding(name, flag, role, evidence))
  note <- function(text) out$notes <<- c(out$notes, text)
  unit_word <- if (units$name == "records") "record" else "person"
  if (out$missing == length(x)) {
    note("every value missing")
    out$degenerate <- TRUE
    return(out)
  }
  if (record$d == 1L) {
    note(if (out$missing) "one value and missing values" else "one value on every record")
    out$degenerate <- TRUE
    return(out)
  }
  if (is_id) {
    add("person_column", "direct identifier",
        sprintf("the person column (`id`): %s persons", format_count(units$n)))
    return(out)
  }

  # the name
  named <- match_name(name, identifier_name_patterns)
  if (!is.null(named)) {
    add("identifier_name", "direct identifier", sprintf("named like %s", named))
  } else if (is_generic_identifier_name(name)) {
    if (generic_code(m[["distinct"]], units$n, control))
      note(sprintf("named like an identifier, but %d codes of %s %ss each on average: read as a category code",
                   m[["distinct"]], format_num(units$n / m[["distinct"]]), unit_word))
    else
      add("identifier_name", "direct identifier",
          sprintf("named like an identifier (%s distinct values)", format_count(m[["distinct"]])))
  }
  if (!is.null(named) || (is_generic_identifier_name(name) &&
                          !generic_code(m[["distinct"]], units$n, control))) {
    if (is.null(units$person) && record$d < length(x))
      note(sprintf("repeats (%s values on %s records): if it names persons with several records, give it as `id`",
                   format_count(record$d), format_count(length(x))))
  }

  # the values
  values <- examined_values(x, control$max_values, record)
  date <- review_date(x, values, control)
  text_like <- is.character(x) || is.factor(x)
  if (!is.null(date)) {
    out$date <- date
    if (date$precision == "year") note(paste0(date_evidence(date), " (the year is allowed)"))
    else add("date", "date", date_evidence(date))
  } else if (text_like) {
    text <- review_free_text(values, control)
    if (!is.null(text)) {
      add("free_text", "free text", sprintf(
        "free text: %s of values with %d or more words, median %s characters",
        format_share(text$words), control$text_words, format_count(round(text$median_chars))))
    } else {
      strong <- match_values(values, identifier_value_patterns, control$pattern_share)
      if (!is.null(strong))
        add("identifier_value", "direct identifier",
            sprintf("%s of distinct values look like %s", format_share(strong$share), strong$what))
      if (record$d == length(x)) {
        add("identifier_unique", "direct identifier",
            "a text column distinct on every record")
      } else if (!is.null(units$person) && isTRUE(unit$constant) && m[["distinction"]] == 1) {
        add("identifier_unique", "direct identifier",
            "a text column distinct for every person (the same on all their records)")
      } else if (is.null(strong) && m[["distinction"]] >= control$distinction) {
        weak <- match_values(values, weak_value_patterns, control$pattern_share)
        if (!is.null(weak))
          add("identifier_value", "direct identifier", sprintf(
            "%s of distinct values look like %s, and near-unique", format_share(weak$share),
            weak$what))
      }
    }
  }
  if (!is_key) {
    qi <- match_name(name, qi_name_patterns)
    # a date named column that is a date is flagged as such; one with two
    # values (an indicator: death 0/1) holds no date
    if (!is.null(qi) && qi == "a date of an event" &&
        ((!is.null(date) && date$precision != "year") ||
         record$d - (out$missing > 0L) <= 2L)) qi <- NULL
    if (!is.null(qi))
      add("qi_name", "quasi-identifier", sprintf("named like %s", qi))
    if (m[["distinction"]] >= control$distinction &&
        !any(out$findings$flag %in% c("identifier_unique", "free_text")))
      add("near_unique", "quasi-identifier", sprintf(
        "near-unique: alpha-distinction %s, alpha-separation %s, %s of %ss with a value of their own",
        format_num(m[["distinction"]]), format_num(m[["separation"]], 4),
        format_share(m[["unique"]]), unit_word))
  }
  old <- ages_over_89(x, name)
  if (old) note(sprintf("%s with an age over 89 (Safe Harbor: one category, 90 or older)",
                        count_text(old, "record")))
  out
}

# A short description of a column's type.
column_type <- function(x) {
  if (is.factor(x)) return(sprintf("factor (%d levels)", nlevels(x)))
  if (inherits(x, "Date")) return("Date")
  if (inherits(x, "POSIXt")) return("date-time")
  if (is.logical(x)) return("logical")
  if (is.object(x)) return(class(x)[[1L]])
  if (is.integer(x)) return("integer")
  if (is.double(x)) return("numeric")
  if (is.character(x)) return("character")
  typeof(x)
}

# ---- findings of the combinations and the proxies -------------------------------

combination_findings <- function(combos, keys, units) {
  out <- empty_findings()
  sets <- attr(combos, "sets")
  for (i in seq_len(nrow(combos))) {
    set <- sets[[i]]
    for (col in setdiff(set, keys)) {
      with <- setdiff(set, col)
      out <- rbind(out, finding(col, "near_unique_combination", "quasi-identifier", sprintf(
        "near-unique with %s: alpha-distinction %s, alpha-separation %s, %s of %s with a combination of their own",
        paste0("'", with, "'", if (length(with) && all(with %in% keys)) " (key)" else "",
               collapse = " and "),
        format_num(combos$distinction[[i]]), format_num(combos$separation[[i]], 4),
        format_share(combos$unique[[i]]), units$name)))
    }
  }
  out
}

proxy_findings <- function(proxies, units, on_release) {
  out <- empty_findings()
  hit <- proxies[nzchar(proxies$proxy), , drop = FALSE]
  for (i in seq_len(nrow(hit))) {
    p <- hit[i, ]
    with <- if (on_release) " with the released key" else ""
    alone <- if (on_release) sprintf(", the released key alone %s", format_share(p$alone)) else ""
    text <- if (p$proxy == "exact")
      sprintf("determines %s exactly%s, for every %s (by chance %s%s)", p$key, with,
              sub("s$", "", units$name), format_share(p$expected), alone)
    else
      sprintf("determines %s for %s of %s%s (%s), by chance %s%s", p$key,
              format_share(p$determined), units$name, with, format_count(p$units),
              format_share(p$expected), alone)
    out <- rbind(out, finding(p$column, paste0(p$proxy, "_proxy"), "proxy", text))
  }
  out
}

# ---- the table ---------------------------------------------------------------------

review_roles <- c("direct identifier", "date", "free text", "proxy", "quasi-identifier")

# The flags in the order they set a column's role: a near-unique column is a
# quasi-identifier before it is a proxy (its groups are small), a proxy
# before a column that is near-unique only with another or named like a
# quasi-identifier.
review_flag_order <- c("person_column", "identifier_name", "identifier_value",
                       "identifier_unique", "date", "free_text", "near_unique", "exact_proxy",
                       "partial_proxy", "near_unique_combination", "qi_name")

review_table <- function(frame, cols, info, findings, notes, keys, sensitive, declared) {
  rows <- lapply(cols, function(col) {
    f <- findings[findings$column == col, , drop = FALSE]
    # the finding that sets the role first
    f <- f[order(match(f$flag, review_flag_order)), , drop = FALSE]
    i <- info[[col]]
    role <- if (col %in% keys) "key"
            else if (nrow(f)) f$role[[1L]]
            else if (col %in% sensitive) "sensitive" else "other"
    status <- if (col %in% keys) "key" else if (col %in% names(declared)) "declared"
              else if (nrow(f)) "pending" else ""
    evidence <- c(f$evidence, notes[[col]])
    data.frame(column = col, type = i$type, role = role, status = status,
               flags = paste(unique(f$flag), collapse = ","),
               evidence = paste(evidence, collapse = "; "),
               declared = if (col %in% names(declared)) declared[[col]] else NA_character_,
               sensitive = col %in% sensitive, missing = i$missing,
               distinct = as.integer(i$measures[["distinct"]]),
               distinction = i$measures[["distinction"]],
               separation = i$measures[["separation"]], unique = i$measures[["unique"]],
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

review_dates_table <- function(info) {
  rows <- lapply(names(info), function(col) {
    d <- info[[col]]$date
    if (is.null(d)) return(NULL)
    data.frame(column = col, kind = d$kind, layout = d$layout, precision = d$precision,
               share = d$share, stringsAsFactors = FALSE)
  })
  rows <- rows[!vapply(rows, is.null, logical(1))]
  if (!length(rows))
    return(data.frame(column = character(), kind = character(), layout = character(),
                      precision = character(), share = numeric(), stringsAsFactors = FALSE))
  do.call(rbind, rows)
}

# ---- argument checks ------------------------------------------------------------------

check_atomic_columns <- function(frame, arg) {
  bad <- names(frame)[vapply(frame, function(x) is.list(x) && !inherits(x, "POSIXlt"),
                             logical(1))]
  if (length(bad))
    abort_type(sprintf("%s$%s", arg, bad[[1L]]), "an atomic column (not a list)")
  invisible(frame)
}

check_review_original <- function(original, frame) {
  if (is.null(original)) return(NULL)
  original <- check_key_data(original, "original")
  original <- as_plain_data(as.data.frame(original))
  check_atomic_columns(original, "original")
  if (nrow(original) != nrow(frame))
    abort_length("original", sprintf(
      "have the records of `data` in the same order (%d rows, not %d)", nrow(frame),
      nrow(original)))
  original
}

check_review_keys <- function(keys, frame, original) {
  if (is.null(keys) || (is.character(keys) && !length(keys))) return(character())
  if (!is.character(keys) || anyNA(keys) || any(!nzchar(keys)))
    abort_type("keys", "a character vector of column names (may be empty)")
  check_utf8(keys, "keys")
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  if (is.null(original)) {
    missing <- setdiff(keys, names(frame))
    if (length(missing)) abort_name("keys", missing, "`data`")
  } else {
    missing <- setdiff(keys, names(original))
    if (length(missing)) abort_name("keys", missing, "`original`")
  }
  keys
}

# `declare`: a named character vector, column = the custodian's reason.
check_declare <- function(declare, frame, keys) {
  if (is.null(declare)) return(stats::setNames(character(), character()))
  if (!is.character(declare) || is.null(names(declare)) || anyNA(names(declare)) ||
      any(!nzchar(names(declare))))
    abort_type("declare", paste("a named character vector, column = the reason it is safe,",
                                "e.g. c(visit_date = \"shifted upstream\")"))
  check_utf8(declare, "declare")
  check_utf8(names(declare), "declare")
  if (anyNA(declare) || any(!nzchar(trimws(declare))))
    abort_value("declare", "a reason for every column declared (not NA or empty)")
  if (anyDuplicated(names(declare)))
    abort_value("declare", sprintf("one reason per column ('%s' is declared twice)",
                                   shorten(names(declare)[anyDuplicated(names(declare))])))
  missing <- setdiff(names(declare), names(frame))
  if (length(missing)) abort_name("declare", missing, "`data`")
  both <- intersect(names(declare), keys)
  if (length(both))
    abort_value("declare", sprintf(paste0(
      "columns that are not keys: '%s' is a key and declared safe; a key is counted by the ",
      "certificate, so leave it out of `declare` (or out of `keys`)"), shorten(both[[1L]])))
  declare
}

# ---- what is left to handle -------------------------------------------------------------

#' The flagged columns a release has not yet handled
#'
#' The columns a [review_columns()] flagged (direct identifiers, dates more
#' precise than the year, free text, proxies, quasi-identifiers) that are
#' not keys and not declared safe, less those a release has dropped and
#' those a step has handled (pseudonymised, shifted, generalized). A
#' certificate counts the columns left as keys.
#'
#' @param x An `epimask_column_review`.
#' @param release `NULL`, or the release as delivered (a data frame) or its
#'   column names: flagged columns not in it were dropped.
#' @param handled `NULL`, or a named character vector of columns a step
#'   handled and how, e.g. `c(pid = "pseudonymised", visit_date = "shifted")`.
#' @return A data frame, one row per column left: `column`, `role`, `flags`,
#'   `evidence` (zero rows when every flagged column is accounted for).
#' @family de-identification
#' @examples
#' d <- trial_visits
#' rev <- review_columns(d, keys = c("site", "sex", "birth"), id = "pid")
#' review_pending(rev)
#' review_pending(rev, release = setdiff(names(d), "exit_date"),
#'                handled = c(pid = "pseudonymised", visit_date = "shifted by up to 7 days"))
#' @export
review_pending <- function(x, release = NULL, handled = NULL) {
  if (!inherits(x, "epimask_column_review")) abort_type("x", "a review_columns() result")
  cols <- x$pending
  if (!is.null(release)) {
    released <- if (is.character(release)) release
                else if (is.data.frame(release) || is.matrix(release)) colnames(release)
                else abort_type("release", "NULL, a data frame or a character vector of column names")
    cols <- intersect(cols, released)
  }
  if (!is.null(handled)) {
    if (!is.character(handled) || is.null(names(handled)) || anyNA(names(handled)))
      abort_type("handled", "a named character vector, column = how it was handled")
    unknown <- setdiff(names(handled), x$columns$column)
    if (length(unknown)) abort_name("handled", unknown, "the review")
    cols <- setdiff(cols, names(handled))
  }
  out <- x$columns[match(cols, x$columns$column), c("column", "role", "flags", "evidence"),
                   drop = FALSE]
  rownames(out) <- NULL
  out
}

# ---- methods ---------------------------------------------------------------------------

#' @rdname review_columns
#' @param x,object An `epimask_column_review`.
#' @param width The width of the printed table (characters).
#' @param ... Unused.
#' @details `print()` shows one line per column (its type, role, status and
#'   the first of its findings, shortened to the width); `summary()` every
#'   finding in full, the proxies, the near-unique combinations, the
#'   declarations and the thresholds; `plot()` each column's
#'   alpha-distinction and the largest share of records whose key value it
#'   determines beyond chance, coloured by role.
#' @export
format.epimask_column_review <- function(x, width = getOption("width"), ...) {
  width <- check_count(width, "width", lower = 40L)
  tab <- x$columns
  shown <- data.frame(column = tab$column, type = tab$type, role = tab$role,
                      status = ifelse(tab$status == "pending", "PENDING", tab$status),
                      distinction = format_num(tab$distinction),
                      stringsAsFactors = FALSE)
  names(shown)[names(shown) == "distinction"] <- "alpha-dist."
  shown <- format_table(shown, left = c("column", "type", "role", "status"))
  lines <- utils::capture.output(print(shown, row.names = FALSE, right = TRUE))
  room <- max(30L, width - max(nchar(lines)) - 2L)
  first <- vapply(strsplit(tab$evidence, "; ", fixed = TRUE),
                  function(e) if (length(e)) e[[1L]] else "", "")
  more <- lengths(strsplit(tab$evidence, "; ", fixed = TRUE)) > 1L
  ev <- ifelse(more, paste0(first, " (+)"), first)
  ev <- ifelse(nchar(ev) > room, paste0(substr(ev, 1L, room - 3L), "..."), ev)
  lines <- paste0(lines, "  ", c("evidence", ev))
  wrap <- function(text) unlist(lapply(text, strwrap, width = width, exdent = 2L))
  c(wrap(review_header(x)), lines, wrap(review_footer(x)))
}

review_header <- function(x) {
  unit <- if (x$unit == "persons")
    sprintf("%s records of %s persons (person column '%s')", format_count(x$n),
            format_count(x$n_units), x$id)
  else sprintf("%s records", format_count(x$n))
  c(sprintf("Column review%s: %s, %d columns; keys: %s", if (x$on_release) " of a release" else "",
            unit, nrow(x$columns), if (length(x$keys)) paste(x$keys, collapse = ", ") else "none"),
    if (length(x$withheld))
      sprintf("  keys not in the release (withheld): %s", paste(x$withheld, collapse = ", ")))
}

review_footer <- function(x) {
  tab <- x$columns
  outside <- tab[tab$role != "key", , drop = FALSE]
  flagged <- sum(outside$role %in% review_roles)
  out <- sprintf("%d of %d columns outside the keys flagged; %d declared safe; %d pending%s",
                 flagged, nrow(outside), length(x$declared), length(x$pending),
                 if (length(x$pending)) paste0(": ", paste(x$pending, collapse = ", ")) else "")
  if (length(x$declared))
    out <- c(out, paste0("Declared safe: ", paste(sprintf("%s (\"%s\")", names(x$declared),
                                                          shorten(x$declared, 80L)),
                                                  collapse = "; ")))
  if (length(x$pending))
    out <- c(out, paste("A certificate counts the pending columns as keys until they are",
                        "generalized, shifted, dropped or declared safe (`declare =`)."))
  out
}

#' @rdname review_columns
#' @export
print.epimask_column_review <- function(x, ...) print_formatted(x, ...)

#' @rdname review_columns
#' @export
summary.epimask_column_review <- function(object, ...) {
  structure(list(review = object), class = "summary.epimask_column_review")
}

#' @rdname review_columns
#' @export
format.summary.epimask_column_review <- function(x, ...) {
  r <- x$review
  tab <- r$columns
  out <- c(review_header(r), "", "Roles:")
  counts <- table(factor(tab$role, levels = c("key", review_roles, "sensitive", "other")))
  counts <- counts[counts > 0]
  out <- c(out, paste0("  ", paste(sprintf("%s %d", names(counts), as.integer(counts)),
                                   collapse = ", ")))
  out <- c(out, "", "Columns:")
  for (i in seq_len(nrow(tab))) {
    status <- switch(tab$status[[i]], pending = ", PENDING", declared = ", declared safe",
                     key = "", "")
    out <- c(out, sprintf("  %s (%s; %s%s)", tab$column[[i]], tab$type[[i]], tab$role[[i]], status))
    ev <- strsplit(tab$evidence[[i]], "; ", fixed = TRUE)[[1L]]
    if (length(ev)) out <- c(out, paste0("      ", ev))
    if (!is.na(tab$declared[[i]])) out <- c(out, paste0("      declared: ", tab$declared[[i]]))
    out <- c(out, sprintf("      %s distinct; alpha-distinction %s, alpha-separation %s%s",
                          format_count(tab$distinct[[i]]), format_num(tab$distinction[[i]]),
                          format_num(tab$separation[[i]], 4),
                          if (tab$missing[[i]]) sprintf("; %s missing", format_count(tab$missing[[i]]))
                          else ""))
  }
  p <- r$proxies[nzchar(r$proxies$proxy), , drop = FALSE]
  if (nrow(p)) {
    out <- c(out, "", sprintf("Proxies (share of %s whose key value the column determines%s):",
                              r$unit, if (r$on_release) " with the released key" else ""))
    shown <- data.frame(column = p$column, key = p$key, proxy = p$proxy,
                        determined = format_share(p$determined),
                        by_chance = format_share(p$expected), excess = format_share(p$excess),
                        stringsAsFactors = FALSE)
    if (r$on_release) shown$key_alone <- format_share(p$alone)
    out <- c(out, paste0("  ", utils::capture.output(print(shown, row.names = FALSE))))
  }
  if (nrow(r$combinations)) {
    out <- c(out, "", "Near-unique combinations:")
    shown <- data.frame(columns = r$combinations$columns,
                        distinction = format_num(r$combinations$distinction),
                        separation = format_num(r$combinations$separation, 4),
                        unique = format_share(r$combinations$unique), stringsAsFactors = FALSE)
    out <- c(out, paste0("  ", utils::capture.output(print(shown, row.names = FALSE))))
  }
  c(out, "", review_footer(r), "", format(r$control))
}

#' @rdname review_columns
#' @export
print.summary.epimask_column_review <- function(x, ...) print_formatted(x, ...)

#' @rdname review_columns
#' @param row.names,optional As for [as.data.frame()].
#' @export
as.data.frame.epimask_column_review <- function(x, row.names = NULL, optional = FALSE, ...) {
  apply_row_names(x$columns, row.names, optional)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_column_review
#' @export
tidy.epimask_column_review <- function(x, ...) {
  x$columns[c("column", "type", "role", "status", "flags", "declared", "sensitive",
              "missing", "distinct", "distinction", "separation", "unique")]
}

#' @rdname epimask-tidiers
#' @method glance epimask_column_review
#' @export
glance.epimask_column_review <- function(x, ...) {
  tab <- x$columns
  data.frame(records = x$n, units = x$n_units, unit = x$unit, columns = nrow(tab),
             keys = length(x$keys),
             flagged = sum(tab$role != "key" & tab$role %in% review_roles),
             declared = length(x$declared), pending = length(x$pending),
             on_release = x$on_release, stringsAsFactors = FALSE)
}

#' @rdname review_columns
#' @param y Unused.
#' @param main Plot title (`NULL`: a default).
#' @export
plot.epimask_column_review <- function(x, y = NULL, main = NULL, ...) {
  main <- check_string(main, allow_null = TRUE)
  tab <- x$columns
  roles <- c("key", review_roles, "sensitive", "other")
  colours <- stats::setNames(c("grey30", "#D55E00", "#CC79A7", "#E69F00", "#0072B2",
                               "#009E73", "#56B4E9", "grey70"), roles)
  excess <- vapply(tab$column, function(col) {
    e <- x$proxies$excess[x$proxies$column == col]
    if (length(e)) max(0, e) else 0
  }, numeric(1))
  n <- nrow(tab)
  ord <- rev(seq_len(n))
  labels <- ifelse(tab$status == "pending", paste0(tab$column, " *"), tab$column)
  margin <- max(5, min(18, max(nchar(labels)) * 0.5 + 1))
  old <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(old))
  graphics::layout(matrix(c(1L, 2L, 3L, 3L), 2L, byrow = TRUE), heights = c(1, 0.16))
  graphics::par(oma = c(0, 0, 2.2, 0))
  panel <- function(values, xlab, title, line_at, left) {
    graphics::par(mar = c(3.6, if (left) margin else 1, 2, 1))
    mid <- graphics::barplot(values[ord], horiz = TRUE, xlim = c(0, 1),
                             col = colours[tab$role][ord], border = NA, axisnames = FALSE,
                             xlab = "", main = title, cex.main = 0.95, font.main = 1)
    graphics::mtext(xlab, side = 1, line = 2.3, cex = 0.8)
    graphics::abline(v = line_at, lty = 2, col = "grey30")
    if (left)
      graphics::mtext(labels[ord], side = 2, at = mid, las = 1, line = 0.4, adj = 1,
                      cex = 0.75, col = colours[tab$role][ord])
  }
  panel(tab$distinction, "alpha-distinction (distinct values / units)",
        "Near-unique columns", x$control$distinction, TRUE)
  panel(excess, sprintf("share of %s beyond chance", x$unit), "Key value determined (proxies)",
        x$control$proxy_share, FALSE)
  present <- roles[roles %in% tab$role]
  graphics::par(mar = c(0, 0, 0, 0))
  graphics::plot.new()
  graphics::legend("center", legend = present, fill = colours[present], border = NA,
                   horiz = TRUE, bty = "n", cex = 0.8,
                   title = if (length(x$pending)) "role (* pending: not a key, not declared)"
                           else "role")
  graphics::mtext(main %||% sprintf("Column review: %d of %d columns pending", length(x$pending),
                                    n), side = 3, line = 0.6, outer = TRUE, font = 2)
  invisible(x)
}

# ---- formatting helpers -------------------------------------------------------------------

format_share <- function(x) {
  out <- ifelse(is.na(x), "NA", paste0(formatC(100 * x, format = "f", digits = 1), "%"))
  # a share that is not 0 or 1 never shows as 0.0% or 100.0%
  tiny <- !is.na(x) & x > 0 & x < 0.0005
  out[tiny] <- "<0.1%"
  near <- !is.na(x) & x < 1 & x > 0.9995
  out[near] <- ">99.9%"
  out
}

# "1 record", "35 records"
count_text <- function(x, what) sprintf("%s %s%s", format_count(x), what, if (x == 1) "" else "s")
