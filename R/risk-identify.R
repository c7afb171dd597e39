# Identifiability by exact matching of released records to a source database
# (Cologne et al. 2012; methods vignette section 6). The counting is the hashed O(n) match of
# R/freq.R (C core src/freq.c); the true person is found by matching ids.

#' Identifiability risk by exact matching
#'
#' Cologne et al. (2012) measure how identifiable the people in a released
#' data set are by looking each released record up in the source database
#' from which it was drawn: a record whose key values (for example a dose)
#' match exactly one source record identifies its person with probability 1,
#' one that matches \eqn{i} records with probability \eqn{1/i}.
#'
#' For each released record, \eqn{m} is the number of source records whose
#' values of all `keys` equal the released record's values exactly, as stored
#' (no tolerance: masking by rounding or noise is what breaks the match). With
#' \eqn{n_i} the number of released records that match exactly \eqn{i} source
#' records and whose own person is among those matches,
#' \deqn{\textrm{identifiability risk score} = \sum_i n_i / i / N, \qquad
#'   \textrm{anonymity score} = 1 - \textrm{identifiability risk score},}
#' \eqn{N} the number of released records. A released record whose person is
#' not among its matches (a chance match to someone else, as after rounding)
#' counts 0 there, but counts \eqn{1/m} in the *perceived* score, which is
#' what an intruder who cannot tell correct from erroneous matches sees:
#' perceived score \eqn{= \sum_{m \ge 1} 1/m / N}.
#'
#' Whether the person is among the matches needs `id`, a column present in
#' both data sets that identifies the person (unique in `source`). Without
#' `id` the function cannot tell, and assumes the worst case, that every
#' match contains the true person: the score is then the perceived score, an
#' upper bound on the identifiability score (exact when the released key
#' values are unmasked copies of source values, as in Cologne Table 1(a)).
#' The object records which case applies (`id_used`), and the print says so.
#'
#' Key columns may be numeric, integer, character, factor (compared by label),
#' logical or dates; `NA` is a value of its own that matches `NA`.
#'
#' @param released The released (distributed, possibly masked) data: a data
#'   frame or matrix, one row per person.
#' @param source The source database the released records were drawn from.
#' @param keys Names of the columns to match on, present in both.
#' @param id Name of a person identifier column present in both (unique in
#'   `source`), or `NULL` (see Details).
#' @return An object of class `epimask_identifiability`, a list with
#'   \describe{
#'     \item{`score`}{the identifiability risk score (eq. 1 of Cologne et al.).}
#'     \item{`anonymity`}{`1 - score` (eq. 2).}
#'     \item{`perceived`}{the perceived identification risk score.}
#'     \item{`counts`}{the \eqn{n_i} table: a data frame with one row per
#'       number of matches `matches` (0 = no match), the identification risk
#'       `risk` \eqn{= 1/i}, the number of released `records` with that many
#'       matches, and how many of them have their person among the matches
#'       (`true_match`, `NA` without `id`).}
#'     \item{`records`}{the per-record table: `row`, `matches` (\eqn{m}),
#'       `true_match` (logical, `NA` without `id`), `risk` and `perceived_risk`.}
#'     \item{`n_released`, `n_source`, `keys`, `id`, `id_used`}{sizes and
#'       arguments.}
#'   }
#' @references Cologne J, Grant EJ, Nakashima E, Chen Y, Funamoto S, Katayama
#'   H (2012). Protecting privacy of shared epidemiologic data without
#'   compromising analysis potential. \emph{Journal of Environmental and Public
#'   Health} 2012, 193680.
#' @seealso [risk_match()] for masked continuous data, where exact matches no
#'   longer occur.
#' @family risk measures
#' @export
#' @examples
#' set.seed(3)
#' source <- data.frame(id = 1:5000, dose = round(rexp(5000, 2), 3))
#' released <- source[sample(5000, 64), ]
#' risk_identifiability(released, source, keys = "dose", id = "id")
#' # rounding to 2 significant digits: fewer true identifications, chance matches
#' rounded <- transform(released, dose = signif(dose, 2))
#' risk_identifiability(rounded, source, keys = "dose", id = "id")
risk_identifiability <- function(released, source, keys, id = NULL) {
  check_data(released)
  check_data(source)
  keys <- unique(check_columns(keys, released, data_arg = "released"))
  check_columns(keys, source, arg = "keys", data_arg = "source")
  check_utf8_data(as.data.frame(released)[keys], "released")
  check_utf8_data(as.data.frame(source)[keys], "source")
  id_used <- !is.null(id)
  if (id_used) {
    id <- check_string(id)
    check_columns(id, released, arg = "id", data_arg = "released")
    check_columns(id, source, arg = "id", data_arg = "source")
    if (id %in% keys)
      abort_value("id", "a column that is not among `keys`")
  }
  released <- as_key_frame(released, c(keys, id), "released")
  source <- as_key_frame(source, c(keys, id), "source")
  if (id_used) check_id(released, source, id)

  codes <- key_codes(released, keys, source)
  matches <- call_c(C_freq_match, list(ref = codes[[2L]], qry = codes[[1L]]), arg = "keys")
  true_match <- if (id_used) person_among_matches(released, source, id, codes) else
    rep(NA, length(matches))
  perceived_risk <- ifelse(matches > 0L, 1 / matches, 0)
  risk <- if (id_used) ifelse(true_match, perceived_risk, 0) else perceived_risk

  n <- length(matches)
  records <- data.frame(row = seq_len(n), matches = matches,
                        true_match = true_match, risk = risk,
                        perceived_risk = perceived_risk)
  score <- sum(risk) / n
  structure(list(
    score = score, anonymity = 1 - score, perceived = sum(perceived_risk) / n,
    counts = match_counts(matches, true_match, id_used),
    records = records, n_released = n, n_source = NROW(source), keys = keys,
    id = id, id_used = id_used
  ), class = "epimask_identifiability")
}

# The key (and id) columns as a data frame, with a classed error for columns
# that cannot be matched on.
as_key_frame <- function(data, cols, arg) {
  out <- if (is.data.frame(data)) as.data.frame(data)[cols] else
    as.data.frame(data[, cols, drop = FALSE], stringsAsFactors = FALSE)
  names(out) <- cols
  bad <- !vapply(out, is.atomic, logical(1))
  if (any(bad))
    abort_type(arg, sprintf("atomic in the key columns; %s %s not",
                            paste0("'", cols[bad], "'", collapse = ", "),
                            if (sum(bad) == 1L) "is" else "are"))
  all_na <- vapply(out, function(col) all(is.na(col)), logical(1))
  if (any(all_na))
    abort_value(arg, sprintf("observed in the key columns; %s %s all NA",
                             paste0("'", cols[all_na], "'", collapse = ", "),
                             if (sum(all_na) == 1L) "is" else "are"))
  out
}

check_id <- function(released, source, id) {
  if (anyNA(released[[id]]) || anyNA(source[[id]]))
    abort_value("id", sprintf("free of NA in `released` and `source` (column '%s')", id))
  if (anyDuplicated(key_values(source[[id]])))
    abort_value("id", sprintf("unique in `source` (column '%s' has duplicates)", id))
}

# Whether each released record's own person (same id) is in the source with
# the same key codes, i.e. among the record's matches. `codes` are the key
# codes of both data sets in a shared code space (key_codes()).
person_among_matches <- function(released, source, id, codes) {
  a <- key_values(released[[id]])
  b <- key_values(source[[id]])
  if (typeof(a) != typeof(b)) {
    a <- as.character(a)
    b <- as.character(b)
  }
  row <- match(a, b)
  found <- !is.na(row)
  same <- rep(FALSE, length(a))
  if (any(found)) {
    own <- codes[[2L]][row[found], , drop = FALSE]
    same[found] <- rowSums(codes[[1L]][found, , drop = FALSE] != own) == 0L
  }
  same
}

# The n_i table: released records by their number of source matches.
match_counts <- function(matches, true_match, id_used) {
  levels_m <- sort(unique(matches))
  f <- factor(matches, levels = levels_m)
  records <- as.vector(table(f))
  true_n <- if (id_used) as.vector(tapply(true_match, f, sum)) else
    rep(NA_integer_, length(levels_m))
  data.frame(matches = levels_m,
             risk = ifelse(levels_m > 0L, 1 / levels_m, 0),
             records = records, true_match = as.integer(true_n))
}

#' @export
format.epimask_identifiability <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  sprintf("identifiability %s%s, anonymity %s, perceived %s (%d released records, keys: %s)",
          format(signif(x$score, digits)), if (x$id_used) "" else " (upper bound, no id)",
          format(signif(x$anonymity, digits)), format(signif(x$perceived, digits)),
          x$n_released, paste(x$keys, collapse = ", "))
}

#' @export
print.epimask_identifiability <- function(x, digits = 3, ...) {
  # the long view: a title and the summary's lines (format() is the one-line form)
  cat(c("Identifiability by exact matching (Cologne et al. 2012)",
        format(summary(x), digits = digits, header = FALSE, ...)), sep = "\n")
  invisible(x)
}

#' Summaries of the identifiability risk
#'
#' @param object,x An `epimask_identifiability` object from
#'   [risk_identifiability()], or its summary.
#' @param digits Significant digits to print.
#' @param header Print the title line.
#' @param max_rows Number of match counts shown one by one; larger counts are
#'   pooled in one row.
#' @param row.names,optional Unused; for compatibility with [as.data.frame()].
#' @param ... Unused.
#' @return `summary()` returns an object of class
#'   `summary.epimask_identifiability` with the scores and the \eqn{n_i} table
#'   (`counts`); `as.data.frame()` returns the per-record table.
#' @name epimask_identifiability-methods
#' @family risk measures
#' @examples
#' src <- data.frame(id = 1:8, dose = c(1, 2, 2, 3, 3, 3, 4, 5))
#' rel <- src[c(1, 2, 4, 8), ]
#' summary(risk_identifiability(rel, src, "dose", id = "id"))
NULL

#' @rdname epimask_identifiability-methods
#' @export
summary.epimask_identifiability <- function(object, ...) {
  structure(object[c("score", "anonymity", "perceived", "counts", "n_released",
                     "n_source", "keys", "id", "id_used")],
            class = "summary.epimask_identifiability")
}

#' @rdname epimask_identifiability-methods
#' @export
format.summary.epimask_identifiability <- function(x, digits = 3, header = TRUE,
                                                   max_rows = 5L, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    header <- check_flag(header)
    max_rows <- check_count(max_rows, "max_rows", lower = 0L)
    if (header) cat("Identifiability by exact matching: summary\n")
    fmt <- function(v) format(signif(v, digits))
    cat(sprintf("  Keys: %s; %d released records matched against %d source records\n",
                paste(x$keys, collapse = ", "), x$n_released, x$n_source))
    cat(if (x$id_used) sprintf("  True person known from id column '%s'\n\n", x$id) else
      "  No id: every match is assumed to contain the true person (upper bound)\n\n")
    counts <- x$counts
    matched <- counts[counts$matches > 0L, , drop = FALSE]
    shown <- matched[seq_len(min(nrow(matched), max_rows)), , drop = FALSE]
    tab <- data.frame(
      "Matches in source" = as.character(shown$matches),
      "Identification risk" = fmt(shown$risk),
      "Released records" = shown$records,
      "True person among them" = if (x$id_used) as.character(shown$true_match) else "-",
      check.names = FALSE)
    if (nrow(matched) > max_rows) {
      rest <- matched[-seq_len(max_rows), , drop = FALSE]
      tab <- rbind(tab, data.frame(
        "Matches in source" = sprintf("%d-%d", min(rest$matches), max(rest$matches)),
        "Identification risk" = sprintf("%s-%s", fmt(min(rest$risk)), fmt(max(rest$risk))),
        "Released records" = sum(rest$records),
        "True person among them" = if (x$id_used) as.character(sum(rest$true_match)) else "-",
        check.names = FALSE))
    }
    none <- sum(counts$records[counts$matches == 0L])
    tab <- rbind(tab, data.frame(
      "Matches in source" = "none", "Identification risk" = fmt(0),
      "Released records" = none, "True person among them" = "-", check.names = FALSE))
    print(tab, row.names = FALSE, right = TRUE)
    cat(sprintf("\n  Identifiability risk score: %s%s\n", fmt(x$score),
                if (x$id_used) "" else " (upper bound)"))
    cat(sprintf("  Anonymity score: %s\n", fmt(x$anonymity)))
    cat(sprintf("  Perceived identification risk score: %s\n", fmt(x$perceived)))
  })
}

#' @export
print.summary.epimask_identifiability <- function(x, ...) print_formatted(x, ...)

#' @rdname epimask_identifiability-methods
#' @export
as.data.frame.epimask_identifiability <- function(x, row.names = NULL,
                                                  optional = FALSE, ...) {
  x$records
}

#' @rdname epimask_identifiability-methods
#' @param y Unused.
#' @param threshold Identification risk above which a bar is drawn in red
#'   (the released records that match at most `1 / threshold` source records).
#' @export
plot.epimask_identifiability <- function(x, y = NULL, threshold = 1 / 5, ...) {
  threshold <- check_number(threshold, lower = 0, upper = 1)
  matches <- x$records$matches
  bins <- identifiability_bins(matches)
  # each bar split into the records above the threshold (red) and the others
  risky <- matches > 0 & 1 / pmax(matches, 1) > threshold
  heights <- table(factor(risky, levels = c(TRUE, FALSE)), bins)
  graphics::barplot(heights, col = c("firebrick", "grey60"), border = NA,
                    ylim = c(0, 1.15 * max(colSums(heights))),
                    xlab = "source records matching the released record (n_i)",
                    ylab = "released records",
                    main = sprintf("Identifiability: score %s, anonymity %s%s",
                                   format(signif(x$score, 3)), format(signif(x$anonymity, 3)),
                                   if (isTRUE(x$id_used)) "" else " (upper bound)"), ...)
  graphics::legend("topleft", fill = c("firebrick", "grey60"), border = NA, bty = "n",
                   legend = c(sprintf("risk 1 / n_i > %s", format(threshold)),
                              sprintf("risk <= %s or no match", format(threshold))))
  invisible(heights)
}

identifiability_bin_labels <- c("none", "1", "2", "3-5", "6-10", "11-20", "21-50", "51-100", ">100")

# Match counts grouped on a rough log scale, so that numeric keys with
# thousands of distinct counts still give a readable chart; empty bins dropped.
identifiability_bins <- function(matches) {
  cut_at <- c(-Inf, 0, 1, 2, 5, 10, 20, 50, 100, Inf)
  b <- cut(matches, cut_at, labels = identifiability_bin_labels, right = TRUE)
  droplevels(b)
}
