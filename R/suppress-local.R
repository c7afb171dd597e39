# Cell-level local suppression (methods vignette section 19): a greedy over distinct key
# patterns in C (src/suppress.c, glue src/r_suppress.c), recounted on the
# output before it is returned.

#' Local suppression of key values to k-anonymity
#'
#' Blanks (sets to `NA`) single key values of the records whose equivalence
#' class is smaller than `k`, so that every record's class reaches `k`, while
#' blanking as few cells as it can. The records are kept; every value that is
#' not blanked is returned untouched.
#'
#' **Two readings of a blank** (`na`), which also apply to the `NA`s already
#' in the keys:
#' * `"category"` (the default; ARX's reading of a suppressed `*`): `NA` is
#'   one more value. The class of a record is the set of records with
#'   identical keys, `NA` equal to `NA`. This is what an intruder who cannot
#'   see the value gets, and what [risk_kanon()] counts.
#' * `"wildcard"` (sdcMicro's `alpha = 1`): an `NA` in key \eqn{v} matches
#'   every value of \eqn{v}. The class size of record \eqn{i} is the number
#'   of records compatible with it,
#'   \deqn{f_i = \#\{r : x_{rv} = x_{iv} \textrm{ or } x_{rv} = NA
#'   \textrm{ or } x_{iv} = NA \textrm{ for every key } v\},}{f_i = #{r :
#'   x[r, v] = x[i, v] or x[r, v] is NA or x[i, v] is NA, for every key v},}
#'   classes overlap, and the counts are made by compatibility, not by
#'   grouping. Fewer cells are needed.
#'
#' **The goal**: the fewest blanked cells, each weighted by its key's
#' `importance`, such that \eqn{f_i \ge k} for every record (with
#' `max_risk`, \eqn{1/f_i \le}{1/f_i <=} `max_risk`, i.e. \eqn{k = \lceil 1 /
#' max\_risk \rceil}{k = ceiling(1 / max_risk)}). Finding the minimum is NP-hard (Meyerson &
#' Williams 2004; Aggarwal et al. 2005), so a greedy heuristic is used, in C,
#' on the distinct key patterns (not on records):
#' * `"category"`: first, level by level over the key subsets in order of
#'   cost, the classes smaller than `k` that become one class of at least
#'   `k` (with the class already there) when those keys are blanked move
#'   together. Then each class still smaller than `k`, smallest first, takes
#'   the cheapest of: blanking a subset of its keys (possibly none) and
#'   bringing into the class it joins the records it still lacks, taken from
#'   other classes that reach that pattern by blanking keys (records of
#'   classes smaller than `k`, the surplus over `k` of larger ones, or one
#'   whole class). Blanking every key and filling the stratum's class of
#'   blanks is always possible.
#' * `"wildcard"`: each record with \eqn{f < k}, smallest first, blanks the
#'   cheapest set of its keys that brings its own \eqn{f} to `k`; among
#'   equally cheap sets, the one that also reaches most records still below
#'   `k`. Blanking only adds compatible records, so a safe record stays
#'   safe, and blanking all its keys makes a record compatible with its
#'   whole stratum. The pass runs twice (smallest \eqn{f} first, largest
#'   first) and the cheaper result is kept.
#' * both end by putting back every blanked value that can return without
#'   leaving any record below `k`.
#'
#' With more than 14 keys only subsets of one to three keys (and all keys)
#' are tried. Identical records are blanked alike in the wildcard reading,
#' where the optimum sometimes treats them differently.
#'
#' **What is guaranteed**: every returned record in a stratum of at least `k`
#' records has \eqn{f \ge k} under the chosen reading. This is not assumed:
#' the class sizes are recounted from the returned data (`$class_size`,
#' `$min_class`). The loops always end (each step blanks at least one more
#' cell, and blanking every key of a record makes it safe). Records whose
#' stratum is smaller than `k` cannot be made safe: they are left as they
#' are, listed in `$unsafe_records` and announced by a warning of class
#' `epimask_warning_stratum`. **What is not guaranteed**: the minimum number
#' of cells. On small tables the heuristic is compared with an exhaustive
#' search over all cell subsets in the package's tests. The result is
#' deterministic: the same number of cells whatever the order of the rows
#' (which records of a group of identical records are chosen may change).
#'
#' **Several records per person** (`id`, methods vignette sections 19 and 23):
#' the person is the unit. A person's key is the set of the distinct key
#' tuples of their records; a class is the persons with the same set, and
#' its size counts persons, so a person with five visits in a class counts
#' once. `k` (or `max_risk`) is in persons. The blanking unit is a person's
#' key: when the search blanks key \eqn{v} for a person, \eqn{v} is blanked
#' in every record of that person (whatever value each record holds), so
#' no record of the person can restore the value. With `na = "wildcard"` a
#' key blank in every record of a person matches every value; two persons
#' are compatible when their sets of tuples agree on the keys that neither
#' has so blanked (an `NA` in only some of a person's records is a value).
#' The search is the same greedy, run on one row of codes per person: with
#' one key tuple per person this is exactly the suppression of one row per
#' person; when keys vary within persons, a person is coded by their sets of
#' values per key when their tuples are all combinations of those (e.g. one
#' key varies), otherwise by their tuples in canonical order. Persons equal
#' in that coding are equal as sets, so the search never counts a class as
#' larger than it is; it may miss some merges (blanked keys can make two
#' persons' sets equal that the coding still tells apart), which costs cells,
#' not safety. The class sizes are recounted in persons on the returned data
#' (`$person_class_size`, `$min_class`). `strata` must be constant within
#' each person. The objective (`$n_person_cells`) counts person-keys,
#' weighted by `importance`; `$n_cells` counts the record cells set to `NA`.
#'
#' Input `NA`s count under the same reading but are never reported as
#' suppressed (`$suppressed` is `FALSE` there). Keys may be character,
#' factor, logical, numeric, Date or date-time columns; values are compared
#' as in [risk_kanon()].
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#'   It is not modified.
#' @param keys Character vector: the quasi-identifier columns (at most 64).
#' @param k Minimum class size, a whole number between 1 and `nrow(data)`.
#' @param max_risk `NULL`, or the largest record risk \eqn{1/f} allowed, in
#'   (0, 1]: an alternative to `k` (give one of them).
#' @param importance `NULL` (every key weighs 1: the fewest cells), or a
#'   numeric vector named by the keys (or unnamed, in the order of `keys`)
#'   of positive weights: a blanked cell of key \eqn{v} costs
#'   `importance[v]`, so a key of higher importance is blanked later. A
#'   ranking works as weights (1 = blanked first). Note that sdcMicro's
#'   `importance` runs the other way.
#' @param na `"category"` or `"wildcard"`: the reading of a blank (Details).
#' @param strata `NULL` or names of columns of `data` (not keys): records
#'   are counted, and suppressed, within each stratum only.
#' @param id `NULL`, or the person column (no `NA`; neither a key nor a
#'   stratum): with several records per person, the person is the unit
#'   (Details).
#' @return An object of class `epimask_suppression`, a list with
#'   \item{data}{`data` with the suppressed cells set to `NA` (same class,
#'     columns and row order).}
#'   \item{suppressed}{logical matrix, records by keys: `TRUE` where this call
#'     blanked a cell (input `NA`s stay `FALSE`).}
#'   \item{n_cells, n_records}{the number of blanked cells and of records
#'     with at least one.}
#'   \item{by_key}{named integer: blanked cells per key.}
#'   \item{min_class}{the smallest class size recounted on the output under
#'     `na`.}
#'   \item{class_size, class_size_before}{the recounted class size of each
#'     record after and before.}
#'   \item{unsafe_records}{rows still below `k` (only records of strata
#'     smaller than `k`).}
#'   \item{input_na}{named integer: `NA`s per key in the input.}
#'   and the arguments `keys`, `k`, `max_risk`, `na`, `strata`, `importance`
#'   (the weights used), `n`. With `id`, `min_class`, `class_size` and
#'   `class_size_before` count persons (each record carries its person's),
#'   `unsafe_records` lists every record of an unsafe person, and the list
#'   adds `unit = "persons"`, `id`, `n_persons`, `person` (each record's
#'   person, 1, 2, ... in order of first appearance), `person_ids`,
#'   `person_class_size`, `person_class_size_before` (per person),
#'   `person_suppressed` (persons with each key blanked), `n_person_cells`,
#'   `n_persons_blanked` and `unsafe_persons`.
#' @references El Emam K, Malin B (2014). Concepts and methods for
#'   de-identifying clinical trial data. Meyerson A, Williams R (2004). On
#'   the complexity of optimal k-anonymity. PODS. Aggarwal G et al. (2005).
#'   Anonymizing tables. ICDT. Templ M, Kowarik A, Meindl B (2015).
#'   Statistical disclosure control for micro-data using the R package
#'   sdcMicro. J Stat Softw 67(4).
#' @seealso [risk_kanon()] for the class sizes, [ola()] and [datafly()] to
#'   generalize whole columns first.
#' @family de-identification
#' @examples
#' # three quasi-identifiers of the simulated cohort
#' keys <- c("city", "sex", "age_exp")
#' s <- suppress_local(dose_cohort, keys, k = 3)
#' s
#' summary(s)
#' tidy(s)
#' plot(s)
#' # blanks read as wildcards need fewer cells
#' suppress_local(dose_cohort, keys, k = 3, na = "wildcard")$n_cells
#' # several visits per participant: the participant is the unit
#' tv <- trial_visits
#' tv$birth_year <- as.integer(format(tv$birth, "%Y"))
#' suppress_local(tv, c("site", "sex", "birth_year"), k = 5, id = "pid")
#' # keep sex longest
#' suppress_local(dose_cohort, keys, k = 3,
#'                importance = c(city = 1, sex = 10, age_exp = 1))$by_key
#' @export
suppress_local <- function(data, keys, k = 5, max_risk = NULL, importance = NULL,
                           na = c("category", "wildcard"), strata = NULL, id = NULL) {
  check_data(data)
  frame <- if (is.data.frame(data)) data else as.data.frame(data, stringsAsFactors = FALSE)
  keys <- check_columns(keys, frame)
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  if (length(keys) > 64L) abort_length("keys", "name at most 64 columns")
  for (key in keys) check_utf8(frame[[key]], sprintf("data$%s", key))
  na <- check_choice(na, c("category", "wildcard"))
  n <- nrow(frame)
  id <- check_person_id(id, frame, exclude = keys)
  if (!is.null(id)) {
    if (!is.null(strata) && id %in% strata)
      abort_value("id", sprintf("a person column that is not also a stratum ('%s' is)", id))
    return(suppress_local_persons(data, frame, keys, k, max_risk, importance, na, strata, id,
                                  k_given = !missing(k)))
  }
  target <- suppress_target(k, max_risk, !missing(k), n, "nrow(data)", "records",
                            sprintf("nrow(data) = %d", n))
  k <- target$k
  max_risk <- target$max_risk
  cost <- suppress_importance(importance, keys)
  strata <- check_strata(strata, frame, keys)

  codes <- suppress_codes(frame, keys)
  strata_codes <- if (is.null(strata)) NULL else suppress_codes(frame, strata) + 1L
  stratum_size <- if (is.null(strata)) rep(n, n) else {
    g <- call_c(C_freq_group, list(codes = strata_codes), arg = "strata")
    g$size[g$group]
  }
  small <- stratum_size < k
  suppressed <- matrix(FALSE, n, length(keys), dimnames = list(NULL, keys))
  run <- which(!small)
  if (length(run)) {
    spec <- list(codes = cbind(codes[run, , drop = FALSE], strata_codes[run, , drop = FALSE]),
                 n_free = length(keys), cost = unname(cost), k = as.integer(k),
                 wildcard = as.integer(na == "wildcard"))
    supp <- call_c(C_suppress_run, spec, arg = "data")
    suppressed[run, ] <- supp == 1L
  }

  out <- blank_cells(data, keys, suppressed)

  # recount from the returned data, not from the codes the search used
  out_frame <- if (is.data.frame(out)) out else as.data.frame(out, stringsAsFactors = FALSE)
  size_after <- suppress_class_sizes(out_frame, keys, na, strata)
  size_before <- suppress_class_sizes(frame, keys, na, strata)
  unsafe <- which(size_after < k)
  if (any(small)) {
    rows <- which(small)
    epimask_warn(sprintf(paste0(
      "%d record(s) lie in strata smaller than k = %d and cannot be made safe; ",
      "they are left unsuppressed (see `$unsafe_records`): rows %s"),
      length(rows), k, paste(c(utils::head(rows, 20L), if (length(rows) > 20L) "..."),
                             collapse = ", ")),
      "epimask_warning_stratum")
  }
  suppression_result(out, suppressed, size_after, size_before, unsafe,
                     stats::setNames(vapply(keys, function(key) sum(codes[, key] == 0L), 1L), keys),
                     keys, k, max_risk, na, strata, cost)
}

# The epimask_suppression object (record-level fields; suppress_local(id = )
# adds its persons' fields).
suppression_result <- function(out, suppressed, size_after, size_before, unsafe, input_na,
                               keys, k, max_risk, na, strata, cost) {
  by_key <- stats::setNames(as.integer(colSums(suppressed)), keys)
  structure(list(
    data = out,
    suppressed = suppressed,
    n_cells = sum(by_key),
    n_records = sum(rowSums(suppressed) > 0),
    by_key = by_key,
    min_class = min(size_after),
    class_size = size_after,
    class_size_before = size_before,
    unsafe_records = unsafe,
    input_na = input_na,
    keys = keys, k = as.integer(k), max_risk = max_risk, na = na, strata = strata,
    importance = cost, n = nrow(suppressed)
  ), class = "epimask_suppression")
}

# k from `k` or `max_risk` (one of them), checked against the number of
# units (records, or persons): list(k, max_risk).
suppress_target <- function(k, max_risk, k_given, n, n_name, unit, range) {
  if (!is.null(max_risk)) {
    if (k_given) abort_value("max_risk", "NULL when `k` is given (give one of them)")
    max_risk <- check_number(max_risk, lower = 0, upper = 1, lower_open = TRUE)
    k <- risk_to_k(max_risk)
    if (k > n)
      abort_value("max_risk", sprintf(
        "at least 1 / %s = %s: a risk of %s needs classes of %s %s and `data` has %d",
        n_name, format(1 / n), format(max_risk), format(k), unit, n))
  } else {
    k <- check_count(k)
    if (k > n) abort_value("k", sprintf("a whole number between 1 and %s", range))
  }
  list(k = k, max_risk = max_risk)
}

# `data` (copied if a data.table) with the cells of `suppressed` (records by
# keys) set to NA.
blank_cells <- function(data, keys, suppressed) {
  out <- data
  if (inherits(out, "data.table")) out <- data.table::copy(out)
  for (j in seq_along(keys)) {
    rows <- which(suppressed[, j])
    if (length(rows)) out <- set_cells_na(out, keys[[j]], rows)
  }
  out
}

# The smallest class size f with 1 / f <= max_risk.
risk_to_k <- function(max_risk) {
  k <- max(1, ceiling(1 / max_risk))
  while (k > 1 && 1 / (k - 1) <= max_risk) k <- k - 1
  while (1 / k > max_risk) k <- k + 1
  k
}

suppress_importance <- function(importance, keys) {
  if (is.null(importance)) return(stats::setNames(rep(1, length(keys)), keys))
  if (!is.numeric(importance) || is.object(importance) || is.matrix(importance))
    abort_type("importance", "a numeric vector of weights named by the keys")
  nm <- names(importance)
  if (is.null(nm)) {
    if (length(importance) != length(keys))
      abort_length("importance", sprintf(
        "have one weight per key (%d), not %d, or be named by the keys",
        length(keys), length(importance)))
    names(importance) <- keys
  } else if (anyNA(nm) || anyDuplicated(nm) || !setequal(nm, keys) ||
             length(nm) != length(keys)) {
    abort_value("importance", sprintf(
      "named by the keys, each once (%s); got %s",
      paste0("'", keys, "'", collapse = ", "), paste0("'", nm, "'", collapse = ", ")))
  }
  if (anyNA(importance) || any(!is.finite(importance)) || any(importance <= 0))
    abort_value("importance", "positive finite weights")
  stats::setNames(as.double(importance[keys]), keys)
}

check_strata <- function(strata, frame, keys) {
  if (is.null(strata)) return(NULL)
  strata <- check_columns(strata, frame, "strata")
  clash <- intersect(strata, keys)
  if (length(clash))
    abort_value("strata", sprintf("columns that are not keys; %s %s both",
                                  paste0("'", clash, "'", collapse = ", "),
                                  if (length(clash) == 1L) "is" else "are"))
  for (s in strata) check_utf8(frame[[s]], sprintf("data$%s", s))
  unique(strata)
}

# Integer codes of the key columns: 1.. for the values in sorted order (so
# that the codes, and with them every decision of the search, do not depend
# on the order of the rows), 0 for NA.
suppress_codes <- function(frame, cols) {
  one <- function(x) {
    if (is.factor(x) && !anyDuplicated(levels(x))) {
      codes <- as.integer(x)
    } else {
      v <- key_values(x)
      u <- sort(unique(v[!is.na(v)]), method = "radix")
      codes <- match(v, u)
    }
    codes[is.na(codes)] <- 0L
    codes
  }
  m <- vapply(cols, function(col) one(frame[[col]]), integer(nrow(frame)))
  dim(m) <- c(nrow(frame), length(cols))
  colnames(m) <- cols
  m
}

# Class size of every record under the reading `na`, within strata.
suppress_class_sizes <- function(frame, keys, na, strata = NULL) {
  codes <- suppress_codes(frame, keys)
  if (!is.null(strata)) codes <- cbind(codes, suppress_codes(frame, strata) + 1L)
  call_c(C_suppress_class_sizes,
         list(codes = codes, n_free = length(keys),
              wildcard = as.integer(na == "wildcard")), arg = "data")
}

set_cells_na <- function(x, col, rows) {
  if (is.matrix(x)) {
    x[rows, col] <- NA
  } else if (inherits(x, "data.table")) {
    data.table::set(x, i = rows, j = col, value = NA)
  } else {
    x[[col]][rows] <- NA
  }
  x
}

#' @rdname suppress_local
#' @param x,object An `epimask_suppression` object.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused
#'   otherwise.
#' @details `format()` returns the lines `print()` shows; `summary()` adds
#'   the cells per key and the class-size distributions before and after.
#'   `plot()` draws the blanked cells per key and the number of records by
#'   class size before and after, records below `k` in red.
#' @export
format.epimask_suppression <- function(x, ...) {
  big <- function(v) format(v, big.mark = ",", scientific = FALSE, trim = TRUE)
  reading <- if (x$na == "category") "a blank is a value of its own"
             else "a blank matches every value"
  target <- if (is.null(x$max_risk)) sprintf("k = %d", x$k)
            else sprintf("max_risk = %s (k = %d)", format(x$max_risk), x$k)
  n_key_cells <- x$n * length(x$keys)
  if (identical(x$unit, "persons")) return(format_suppression_persons(x, target, reading, big))
  lines <- c(
    sprintf("Local suppression to %s (%s): %s records, keys %s%s", target, reading,
            big(x$n), paste(x$keys, collapse = ", "),
            if (is.null(x$strata)) "" else sprintf(", within strata of %s",
                                                   paste(x$strata, collapse = ", "))),
    sprintf("  %s cells blanked (%s%% of the key cells) in %s records", big(x$n_cells),
            format(signif(100 * x$n_cells / n_key_cells, 3)), big(x$n_records)),
    sprintf("  by key: %s", paste(sprintf("%s %s", names(x$by_key), big(x$by_key)),
                                  collapse = ", ")),
    if (sum(x$input_na) > 0)
      sprintf("  NAs already in the input (not counted as suppressed): %s", big(sum(x$input_na))),
    sprintf("  recounted on the output: smallest class %s, %s records below k (before: smallest %s, %s below k)",
            big(x$min_class), big(sum(x$class_size < x$k)),
            big(min(x$class_size_before)), big(sum(x$class_size_before < x$k))),
    if (length(x$unsafe_records))
      sprintf("  NOT SAFE: %s record(s) in strata smaller than k (see $unsafe_records)",
              big(length(x$unsafe_records)))
    else sprintf("  every record is in a class of at least %d", x$k)
  )
  lines
}

#' @rdname suppress_local
#' @export
print.epimask_suppression <- function(x, ...) {
  cat(format(x), sep = "\n")
  invisible(x)
}

#' @rdname suppress_local
#' @export
summary.epimask_suppression <- function(object, ...) {
  structure(list(suppression = object, by_key = tidy.epimask_suppression(object),
                 sizes = suppression_size_table(object)),
            class = "summary.epimask_suppression")
}

#' @rdname suppress_local
#' @export
format.summary.epimask_suppression <- function(x, ...) {
  utils::capture.output({
    print(x$suppression)
    cat("\nBlanked cells per key:\n")
    print(x$by_key, row.names = FALSE)
    cat(if (identical(x$suppression$unit, "persons"))
      "\nPersons by class size in persons (recounted), before and after:\n"
      else "\nRecords by class size (recounted), before and after:\n")
    print(x$sizes, row.names = FALSE)
  })
}

#' @rdname suppress_local
#' @export
print.summary.epimask_suppression <- function(x, ...) print_formatted(x, ...)

# Records by class size, before and after; sizes of k * 4 and more pooled.
suppression_size_table <- function(x) {
  top <- max(4L * x$k, 10L)
  bucket <- function(f) factor(ifelse(f >= top, top, f), levels = seq_len(top))
  lab <- as.character(seq_len(top))
  lab[top] <- paste0(top, "+")
  persons <- identical(x$unit, "persons")
  before <- as.vector(table(bucket(if (persons) x$person_class_size_before
                                   else x$class_size_before)))
  after <- as.vector(table(bucket(if (persons) x$person_class_size else x$class_size)))
  if (persons)
    return(data.frame(class_size = lab[keep <- before > 0 | after > 0 | seq_len(top) == top],
                      below_k = seq_len(top)[keep] < x$k,
                      persons_before = before[keep], persons_after = after[keep],
                      stringsAsFactors = FALSE))
  keep <- before > 0 | after > 0
  keep[top] <- TRUE  # the pooled row stays last, even when empty
  data.frame(class_size = lab[keep], below_k = seq_len(top)[keep] < x$k,
             records_before = before[keep], records_after = after[keep],
             stringsAsFactors = FALSE)
}

#' @rdname suppress_local
#' @param y Unused.
#' @export
plot.epimask_suppression <- function(x, y = NULL, ...) {
  persons <- identical(x$unit, "persons")
  # by persons: the persons who lost each key (each in all their records)
  cells <- if (persons) x$person_suppressed else x$by_key
  long <- max(nchar(names(cells)))
  old <- graphics::par(mfrow = c(1L, 2L),
                       mar = c(if (length(cells) > 4L) 2 + 0.6 * long else 5, 5.5, 3, 1),
                       mgp = c(4, 1, 0))
  on.exit(graphics::par(old))
  graphics::barplot(cells, names.arg = names(cells), col = "grey40", border = NA,
                    las = if (length(cells) > 4L) 2L else 1L,
                    ylab = if (persons) "persons with the key blanked" else "blanked cells",
                    main = if (persons) sprintf("%s key values blanked for persons (%s cells)",
                                                format(x$n_person_cells, big.mark = ","),
                                                format(x$n_cells, big.mark = ","))
                           else sprintf("%s cells blanked", format(x$n_cells, big.mark = ",")),
                    ...)
  graphics::par(mgp = c(3, 1, 0))
  # the classes of 4k and more hold most records: left out of the bars, said
  sizes <- suppression_size_table(x)
  top <- nrow(sizes)
  shown <- sizes[-top, , drop = FALSE]
  unit <- if (identical(x$unit, "persons")) "persons" else "records"
  heights <- rbind(before = shown[[paste0(unit, "_before")]],
                   after = shown[[paste0(unit, "_after")]])
  cols <- ifelse(shown$below_k, "firebrick", "grey40")
  graphics::par(mar = c(5, 4.5, 3, 1))
  graphics::barplot(heights, beside = TRUE, names.arg = shown$class_size,
                    col = rbind(grDevices::adjustcolor(cols, 0.3), cols), border = NA,
                    xlab = sprintf("class size (blank as %s)",
                                   if (x$na == "category") "a value" else "a wildcard"),
                    ylab = unit, main = sprintf("%s by class size (in %s), before and after",
                                                 if (unit == "persons") "Persons" else "Records",
                                                 unit))
  graphics::mtext(sprintf("classes of %s: %s %s before, %s after (not drawn)",
                          sizes$class_size[top],
                          format(sizes[[paste0(unit, "_before")]][top], big.mark = ","), unit,
                          format(sizes[[paste0(unit, "_after")]][top], big.mark = ",")),
                  side = 3, line = 0.2, cex = 0.8)
  graphics::legend("topright", bty = "n", border = NA,
                   fill = c(grDevices::adjustcolor("grey40", 0.3), "grey40", "firebrick"),
                   legend = c("before", "after", sprintf("below k = %d", x$k)))
  invisible(x)
}

#' @rdname suppress_local
#' @param row.names,optional Ignored.
#' @export
as.data.frame.epimask_suppression <- function(x, row.names = NULL, optional = FALSE, ...) {
  keys_blanked <- apply(x$suppressed, 1L, function(r) paste(x$keys[r], collapse = ", "))
  out <- data.frame(record = seq_len(x$n), cells = as.integer(rowSums(x$suppressed)),
                    keys_blanked = keys_blanked, class_size_before = x$class_size_before,
                    class_size = x$class_size, safe = x$class_size >= x$k,
                    stringsAsFactors = FALSE)
  add_person_column(out, x)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_suppression
#' @export
tidy.epimask_suppression <- function(x, ...) {
  out <- data.frame(key = x$keys, cells = unname(x$by_key),
                    share = unname(x$by_key) / x$n, input_na = unname(x$input_na),
                    importance = unname(x$importance), stringsAsFactors = FALSE)
  if (identical(x$unit, "persons")) out$persons <- unname(x$person_suppressed)
  out
}

#' @rdname epimask-tidiers
#' @method glance epimask_suppression
#' @export
glance.epimask_suppression <- function(x, ...) {
  data.frame(n = x$n, k = x$k, na = x$na, n_cells = x$n_cells, n_records = x$n_records,
             min_class = x$min_class, min_class_before = min(x$class_size_before),
             n_unsafe = length(x$unsafe_records), safe = length(x$unsafe_records) == 0L,
             unit = if (identical(x$unit, "persons")) "persons" else "records",
             n_persons = if (is.null(x$n_persons)) NA_integer_ else x$n_persons,
             n_person_cells = if (is.null(x$n_person_cells)) NA_integer_ else x$n_person_cells,
             stringsAsFactors = FALSE)
}
