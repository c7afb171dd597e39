# The singling-out attack (methods vignette section 28.4, after Giomi et al.
# 2023 and anonymeter's singling_out_evaluator.py): predicates built from the
# release that single out one of its records; success when a predicate
# matches exactly one original record (person); the same predicates on the
# control, and random predicates as the baseline. The attack and the control
# are compared on sets of equal size (28.4): a predicate singles out more
# easily in a smaller set.

#' Singling-out risk of a release
#'
#' The first of the three attacks the Article 29 Working Party names
#' (Opinion 05/2014), after Giomi et al. (2023, anonymeter): can an intruder
#' who holds the release state "exactly one person in the data has these
#' values"? The intruder builds predicates from the release that single out
#' one released record: in `mode = "univariate"` from rare values (a value
#' one released record holds, the smallest and largest value of a number when
#' one record holds it, a missing value one record has); in `mode =
#' "multivariate"` from a released record's values on `n_cols` columns drawn
#' at random (a number as "at least" the value when above the release's
#' median, else "at most"; a category or a missing value as equal). A
#' predicate succeeds when it matches exactly one of the original records
#' behind the release (one person with `id`). The same predicates are tried
#' on the control, records the release holds nothing of, and random
#' predicates (random columns, values and operators) are the baseline. The
#' risk is \eqn{(a - c) / (1 - c)} with \eqn{a} and \eqn{c} the shares of
#' successes on the original and the control: what the release gives beyond
#' what any data of the same population would (methods vignette, section
#' 28).
#'
#' A predicate singles out more easily in a smaller set of records, so the
#' attack and the control are compared at the same size: when the control is
#' larger, its success is the exact expectation over its subsets of the
#' attack's size (hypergeometric); when smaller and the release's rows are
#' the original's, the attack runs on a random subset of the targets of the
#' control's size with their released rows only; a release of new records
#' (synthetic) needs a control at least as large as the records behind it
#' (else a classed error says so). With the default control (half of a
#' masked release's records held out) both halves are equal.
#'
#' @section Releases and their control:
#' - **A masked release** (a data frame with as many rows as `original`, row i
#'   being the record of row i, as [apply_mask()] returns it; a
#'   [deidentify()] release that kept every record): with `control = NULL`,
#'   the share `attack_options(holdout = )` of the original's units is held
#'   out at random, their released rows dropped, and the rest attacked. The
#'   print says so.
#' - **A synthetic release** (class `epimask_synthetic`, from `mask_synth()`):
#'   its data frames `release$copies` are stacked and attacked together; the
#'   control is `original[release$holdout, ]`, `release$holdout` being the
#'   row numbers of `original` (the data given to [apply_mask()]) the
#'   synthesis held out (row numbers only, never values); the other rows are
#'   the targets.
#' - **Any other release** (records dropped, new records): give `control`,
#'   records held out before the release was made (a data frame), or their
#'   row numbers in `original`; without it a classed error says so.
#' - A release whose columns are coded otherwise than the original's (a
#'   generalized key is text where the original has a number) is compared
#'   with the original in the release's coding: recode `original` and
#'   `control` with [generalize()] at the release's levels (see
#'   `vignette("attacks")`).
#'
#' @param original The original data (a data frame): the records behind the
#'   release, and, unless `control` is given, the control too.
#' @param release The release: a data frame (a masked release whose rows are
#'   the original's rows, or any release of other records), a [deidentify()]
#'   release, or a synthetic release of `mask_synth()` (its copies are
#'   attacked together, the control is the rows it held out).
#' @param control `NULL` (a share `attack_options(holdout = )` of a masked
#'   release's records, held out at random and treated as never released;
#'   or a synthetic release's hold-out), the row numbers of `original` held
#'   out, or a data frame of records held out before the release was made.
#'   A control that overlaps the released records is a classed error.
#' @param n_attacks The most predicates to build (the attack's trials), at
#'   most 1e7.
#' @param mode `"univariate"` or `"multivariate"`.
#' @param n_cols Columns per predicate in the multivariate mode.
#' @param seed `NULL` or a number: the hold-out, the thinning and the
#'   predicates are drawn from it (the caller's generator is left as it was).
#' @param id `NULL`, or the person column of `original` (and `control`) when
#'   a person has several records: a predicate then succeeds when the records
#'   it matches are all one person's, and persons are held out whole.
#' @param columns `NULL` (every column of `original` the release has, the
#'   person column excepted) or the columns the intruder reads.
#' @param options [attack_options()].
#' @return An [epimask_attack] with, in addition, `mode`, `n_cols`,
#'   `n_found` (predicates found), and `details` (one row per predicate:
#'   `predicate`, `release_row`, `attack` (it matched one original record),
#'   `control` (it matched one control record, or its probability to in a
#'   subset of the attack's size)), and `predicates` (`attack`, `baseline`:
#'   one row per condition: `predicate`, `column`, `op`, `value`, `number`).
#' @references Giomi M, Boenisch F, Wehmeyer C, Tasnadi B (2023). A unified
#'   framework for quantifying privacy risk in synthetic data. Proceedings on
#'   Privacy Enhancing Technologies 2023(2):312-328. Article 29 Data
#'   Protection Working Party (2014). Opinion 05/2014 on anonymisation
#'   techniques (WP216).
#' @family attacks
#' @seealso [singling_out()] (the criterion), [risk_linkability()],
#'   [risk_inference()].
#' @examples
#' d <- dose_cohort[1:3000, c("sex", "city", "age_exp", "dose")]
#' # the release as it is: every rare value singles out its person
#' risk_singling_out(d, d, n_attacks = 200, seed = 1)
#' # the doses rounded to whole gray
#' rounded <- apply_mask(d, mask_round(0, type = "decimal"), "dose")
#' so <- risk_singling_out(d, rounded, n_attacks = 200, mode = "multivariate",
#'                         n_cols = 3, seed = 1)
#' so
#' plot(so)
#' @export
risk_singling_out <- function(original, release, control = NULL, n_attacks = 2000,
                              mode = c("univariate", "multivariate"), n_cols = 3,
                              seed = NULL, id = NULL, columns = NULL,
                              options = attack_options()) {
  mode <- check_choice(mode, c("univariate", "multivariate"))
  # the intervals are as narrow as anyone needs long before 1e7 predicates
  n_attacks <- check_number(n_attacks, "n_attacks", lower = 1, upper = 1e7, integer = TRUE)
  n_cols <- check_count(n_cols, "n_cols")
  options <- check_attack_options(options)
  if (!is.null(columns)) columns <- check_columns(columns, check_attack_original(original),
                                                  "columns", "original")
  streams <- rng_streams(5L, check_attack_seed(seed))
  setup <- attack_setup(original, release, control, id, columns, options, streams[[1L]])
  if (is.null(columns))
    columns <- setdiff(intersect(names(setup$target), names(setup$release)), setup$id)
  if (!length(columns))
    abort_value("columns", "columns that `original` and `release` share")
  check_attack_columns(columns, setup, "columns")
  k <- if (mode == "univariate") 1L else n_cols
  if (k > length(columns))
    abort_value("n_cols", sprintf("at most the number of columns the attack reads (%d)",
                                  length(columns)))
  setup <- equal_size_targets(setup, streams[[2L]])
  codes <- attack_code(columns, list(original = setup$target, release = setup$release,
                                     control = setup$control))
  check_not_all_na(codes, columns)
  threads <- options$threads %||% epimask_threads()
  preds <- if (mode == "univariate")
    univariate_predicates(codes, n_attacks, streams[[3L]])
  else multivariate_predicates(codes, n_attacks, n_cols,
                               options$max_attempts %||% (100 * n_attacks), threads,
                               streams[[3L]])
  base <- random_predicates(codes, n_predicates(preds), k, streams[[4L]])
  unit_t <- attack_units(setup$target, setup$id)
  unit_c <- attack_units(setup$control, setup$id)
  n_t <- max(unit_t)
  n_c <- max(unit_c)
  order_t <- column_orders(codes$coded$original, codes$type)
  hit_t <- predicate_counts(codes$coded$original, codes$type, preds, unit_t, 2L, threads,
                            order_t) == 1L
  ctrl <- control_singles(codes, preds, unit_c, n_t, threads)
  hit_b <- predicate_counts(codes$coded$original, codes$type, base, unit_t, 2L, threads,
                            order_t) == 1L
  n_found <- n_predicates(preds)
  counts <- list(attack = sum(hit_t), n_attack = n_found, control = sum(ctrl),
                 n_control = n_found, baseline = sum(hit_b), n_baseline = n_found,
                 pool_attack = n_t, pool_control = n_c)
  details <- data.frame(predicate = predicate_text(preds, codes),
                        release_row = preds$release_row, attack = hit_t, control = ctrl,
                        stringsAsFactors = FALSE)
  notes <- c(if (n_found < n_attacks)
    sprintf(paste0("%d predicate%s single%s out a released record (of %d asked): the rates ",
                   "count %s"), n_found, if (n_found == 1L) "" else "s",
            if (n_found == 1L) "s" else "", n_attacks, if (n_found) "those found" else "none"),
    if (setup$thinned) sprintf(paste0("the control is smaller than the %s behind the release: ",
                                      "the attack ran on %d of them at random (equal sizes)"),
                               unit_name(list(unit = if (is.null(setup$id)) "records" else "persons")),
                               n_t),
    if (n_c > n_t) sprintf(paste0("the control's successes are their expected number in a ",
                                  "random subset of %d of its %d %s (equal sizes)"),
                           n_t, n_c, if (is.null(setup$id)) "records" else "persons"))
  res <- new_attack("singling_out", setup, counts, options, details,
                    list(mode = mode, n_cols = k, n_found = n_found, columns = columns,
                         predicates = list(attack = predicate_table(preds, codes),
                                           baseline = predicate_table(base, codes)),
                         trial_name = "predicates", baseline_name = "random predicates",
                         detail_name = "predicates", notes = notes))
  if (!n_found) {
    # nothing singles out a released record: the attack cannot even start
    res$risk <- list(value = 0, interval = c(0, 0), estimate = 0)
    res$notes <- c(res$notes, paste("no predicate of this mode singles out a released record,",
                                    "so the attack finds nobody to single out"))
  }
  res
}

# Singling out compares the attack and the control on sets of equal size: a
# masked release whose control is smaller is attacked on a random subset of
# the targets of the control's size (with their released rows only).
equal_size_targets <- function(setup, stream) {
  unit_t <- attack_units(setup$target, setup$id)
  unit_c <- attack_units(setup$control, setup$id)
  n_t <- max(unit_t)
  n_c <- max(unit_c)
  setup$thinned <- FALSE
  if (n_c >= n_t) return(setup)
  if (!setup$aligned)
    epimask_abort(sprintf(paste0(
      "The control (%d %s) is smaller than the records behind the release (%d): a predicate ",
      "singles out more easily in a smaller set, and a release of new records cannot be cut ",
      "down to the control's size. Hold out at least as many records as the release is made ",
      "from (for mask_synth(), half), or use risk_linkability() / risk_inference(), which ",
      "compare any sizes."), n_c, if (is.null(setup$id)) "records" else "persons", n_t),
      "epimask_error_value", arg = "control")
  keep_units <- with_rng_stream(stream, sort(sample.int(n_t, n_c)))
  keep <- which(unit_t %in% keep_units)
  setup$target <- setup$target[keep, , drop = FALSE]
  setup$release <- setup$release[keep, , drop = FALSE]
  setup$target_rows <- setup$target_rows[keep]
  setup$release_rows <- setup$release_rows[keep]
  setup$thinned <- TRUE
  setup
}

# Predicates in long form, one element per condition: `pred` (the
# predicate's number, 1.., in order), `col`, `op`, `val`; and `release_row`,
# one per predicate (the released record it came from, NA for random ones).
new_predicates <- function(pred, col, op, val, release_row) {
  list(pred = as.integer(pred), col = as.integer(col), op = as.integer(op),
       val = as.double(val), release_row = as.integer(release_row))
}

n_predicates <- function(preds) length(preds$release_row)

no_predicates <- function() new_predicates(integer(), integer(), integer(), double(), integer())

# The predicates `which` (in that order), renumbered.
subset_predicates <- function(preds, which) {
  at <- match(preds$pred, which)
  keep <- which(!is.na(at))
  keep <- keep[order(at[keep])]
  new_predicates(at[keep], preds$col[keep], preds$op[keep], preds$val[keep],
                 preds$release_row[which])
}

# a's predicates, then b's.
join_predicates <- function(a, b) {
  new_predicates(c(a$pred, b$pred + n_predicates(a)), c(a$col, b$col), c(a$op, b$op),
                 c(a$val, b$val), c(a$release_row, b$release_row))
}

# Each column's rows sorted by value, NA first (category NA is code 0): the
# index the C count uses to scan only the records a condition allows.
column_orders <- function(x, type) {
  out <- matrix(0L, nrow(x), ncol(x))
  for (j in seq_len(ncol(x))) out[, j] <- order(x[, j], na.last = FALSE, method = "radix")
  out
}

# Number of units (records, or persons: `unit` of each row) of the coded
# data `x` each predicate matches, up to `cap` (0: no cap). `order` (from
# column_orders()) lets the C count scan only the narrowest block of sorted
# values a condition allows; NULL scans every record (the reference; the
# counts are the same).
predicate_counts <- function(x, type, preds, unit, cap, threads, order = NULL) {
  n <- n_predicates(preds)
  if (!n) return(integer())
  spec <- list(x = x, type = type, order = order,
               person = if (max(unit) < nrow(x)) as.integer(unit),
               n_person = as.integer(max(unit)),
               start = as.integer(c(0L, cumsum(tabulate(preds$pred, n)))),
               col = preds$col, op = preds$op, val = preds$val, cap = as.integer(cap),
               threads = as.integer(threads))
  call_c(C_predicate_count, spec, arg = "predicates")
}

# The control's successes: a predicate matching exactly one control unit;
# with a control larger than the attack's n_t units, the probability that a
# random subset of n_t control units holds exactly one of the c it matches.
control_singles <- function(codes, preds, unit_c, n_t, threads) {
  n_c <- max(unit_c)
  if (!n_predicates(preds)) return(numeric())
  order_c <- column_orders(codes$coded$control, codes$type)
  if (n_c == n_t)
    return(as.double(predicate_counts(codes$coded$control, codes$type, preds, unit_c, 2L,
                                      threads, order_c) == 1L))
  cnt <- predicate_counts(codes$coded$control, codes$type, preds, unit_c, 0L, threads, order_c)
  stats::dhyper(1, cnt, n_c - cnt, n_t)
}

op_code <- c(`==` = 1L, `!=` = 2L, `<` = 3L, `<=` = 4L, `>` = 5L, `>=` = 6L,
             `is NA` = 7L, `is not NA` = 8L)

# Univariate predicates: per column, a missing value one released record
# has, the smallest and largest number when one record holds it, and every
# value one record holds; each singles out its record by construction. In a
# random order, the first n.
univariate_predicates <- function(codes, n, stream) {
  r <- codes$coded$release
  cand <- list()
  add <- function(col, op, val, row) cand[[length(cand) + 1L]] <<-
    list(col = rep(col, length(row)), op = rep(op, length(row)), val = val, row = row)
  for (j in seq_along(codes$columns)) {
    v <- r[, j]
    is_num <- codes$type[[j]] == 0L
    na <- if (is_num) is.na(v) else v == 0
    if (sum(na) == 1L) add(j, 7L, 0, which(na))
    w <- v[!na]
    if (!length(w)) next
    rows_w <- which(!na)
    f <- match(w, unique(w))
    once <- tabulate(f)[f] == 1L
    if (is_num) {
      mn <- which(w == min(w))
      mx <- which(w == max(w))
      if (length(mn) == 1L) add(j, 4L, w[mn], rows_w[mn])
      if (length(mx) == 1L) add(j, 6L, w[mx], rows_w[mx])
    }
    if (any(once)) add(j, 1L, w[once], rows_w[once])
  }
  if (!length(cand)) return(no_predicates())
  col <- unlist(lapply(cand, `[[`, "col"))
  op <- unlist(lapply(cand, `[[`, "op"))
  val <- unlist(lapply(cand, `[[`, "val"))
  row <- unlist(lapply(cand, `[[`, "row"))
  take <- with_rng_stream(stream, sample.int(length(col)))
  take <- take[seq_len(min(n, length(take)))]
  new_predicates(seq_along(take), col[take], op[take], val[take], row[take])
}

# k distinct columns of p for each of b draws, each row sorted: the k
# smallest of p uniforms per row (a b x k matrix).
draw_columns <- function(b, p, k) {
  u <- matrix(stats::runif(b * p), b, p)
  o <- order(row(u), u)
  first <- matrix(col(u)[o], b, p, byrow = TRUE)[, seq_len(k), drop = FALSE]
  o2 <- order(row(first), first)
  matrix(first[o2], b, k, byrow = TRUE)
}

# Multivariate predicates: a released record drawn at random and n_cols of
# its columns drawn at random; kept when it singles out its record in the
# release and was not drawn before (the same record and columns give the
# same predicate), until n are kept or max_attempts drawn.
multivariate_predicates <- function(codes, n, n_cols, max_attempts, threads, stream) {
  r <- codes$coded$release
  m <- nrow(r)
  p <- ncol(r)
  medians <- vapply(seq_len(p), function(j)
    if (codes$type[[j]] == 0L) stats::median(r[, j], na.rm = TRUE) else NA_real_, numeric(1))
  order_r <- column_orders(r, codes$type)
  kept <- no_predicates()
  seen <- character()
  attempts <- 0
  # every (record, columns) drawn once: nothing new can be found
  possible <- m * choose(p, n_cols)
  with_rng_stream(stream, {
    while (n_predicates(kept) < n && attempts < max_attempts && length(seen) < possible) {
      # a batch of candidates: twice those still wanted, within 64 and 1e5
      b <- as.integer(min(max(2 * (n - n_predicates(kept)), 64), 1e5, max_attempts - attempts))
      attempts <- attempts + b
      rows <- sample.int(m, b, replace = TRUE)
      cols <- draw_columns(b, p, n_cols)
      key <- paste(rows, do.call(paste, c(as.data.frame(cols), sep = ",")))
      fresh <- !duplicated(key) & !key %in% seen
      if (!any(fresh)) next
      rows <- rows[fresh]
      cols <- cols[fresh, , drop = FALSE]
      seen <- c(seen, key[fresh])
      cand <- record_predicates(r, codes$type, medians, rows, cols)
      single <- predicate_counts(r, codes$type, cand, seq_len(m), 2L, threads, order_r) == 1L
      take <- which(single)
      take <- take[seq_len(min(n - n_predicates(kept), length(take)))]
      kept <- join_predicates(kept, subset_predicates(cand, take))
    }
  })
  kept
}

# The predicate of each released record `rows[i]` on its columns `cols[i, ]`:
# a number at least its value when above the median, else at most; a
# category equal; a missing value missing.
record_predicates <- function(r, type, medians, rows, cols) {
  k <- ncol(cols)
  pred <- rep(seq_along(rows), each = k)
  cj <- as.vector(t(cols))
  v <- r[cbind(rep(rows, each = k), cj)]
  num <- type[cj] == 0L
  na <- (num & is.na(v)) | (!num & v == 0)
  na[is.na(na)] <- TRUE
  op <- rep(1L, length(v))
  up <- num & !na & v > medians[cj]
  op[num & !na] <- 4L
  op[up] <- 6L
  op[na] <- 7L
  v[na] <- 0
  new_predicates(pred, cj, op, v, rows)
}

# The baseline: n random predicates of k columns each, a value drawn from the
# release's values of each column (missing included) and an operator drawn
# for its kind (==, != for a category; any comparison for a number; is / is
# not missing for a missing value).
random_predicates <- function(codes, n, k, stream) {
  if (!n) return(no_predicates())
  r <- codes$coded$release
  p <- ncol(r)
  values <- lapply(seq_len(p), function(j) unique(r[, j]))
  with_rng_stream(stream, {
    cols <- draw_columns(n, p, k)
    cj <- as.vector(t(cols))
    v <- numeric(length(cj))
    for (j in unique(cj)) {
      at <- which(cj == j)
      v[at] <- values[[j]][sample.int(length(values[[j]]), length(at), replace = TRUE)]
    }
    num <- codes$type[cj] == 0L
    na <- (num & is.na(v)) | (!num & v == 0)
    op <- ifelse(na, sample(7:8, length(v), replace = TRUE),
                 ifelse(num, sample(1:6, length(v), replace = TRUE),
                        sample(1:2, length(v), replace = TRUE)))
  })
  v[na] <- 0
  new_predicates(rep(seq_len(n), each = k), cj, op, v, rep(NA_integer_, n))
}

# The predicates as a table, one row per condition: `predicate` (its
# number), `column`, `op`, `value` (a category's value as text, a number's
# as text too) and `number` (a number's value; days for dates; NA for a
# category or a test of NA), so that they can be read back without the
# coding.
predicate_table <- function(preds, codes) {
  col <- preds$col
  op <- preds$op
  val <- preds$val
  is_cat <- codes$type[col] == 1L & op < 7L
  value <- ifelse(op >= 7L, NA_character_, sprintf("%.15g", val))
  value[is_cat] <- vapply(which(is_cat), function(i)
    as.character(codes$levels[[col[[i]]]][[val[[i]]]]), character(1))
  number <- ifelse(codes$type[col] == 0L & op < 7L, val, NA_real_)
  data.frame(predicate = preds$pred, column = codes$columns[col], op = names(op_code)[op],
             value = value, number = number, stringsAsFactors = FALSE)
}

# Each predicate as text: "age >= 39 & sex == 'Male'" (dates as dates).
predicate_text <- function(preds, codes) {
  if (!n_predicates(preds)) return(character())
  col <- preds$col
  op <- preds$op
  val <- preds$val
  shown <- character(length(col))
  for (j in unique(col)) {
    at <- which(col == j & op < 7L)
    if (!length(at)) next
    shown[at] <- if (codes$type[[j]] == 1L) sprintf("'%s'", codes$levels[[j]][val[at]]) else
      switch(codes$labels[[j]],
             date = format(as.Date(val[at], origin = "1970-01-01")),
             time = format(as.POSIXct(val[at] * 86400, origin = "1970-01-01", tz = "UTC")),
             sprintf("%.15g", val[at]))
  }
  part <- ifelse(op >= 7L, sprintf("%s %s", codes$columns[col], names(op_code)[op]),
                 sprintf("%s %s %s", codes$columns[col], names(op_code)[op], shown))
  unname(vapply(split(part, preds$pred), paste, character(1), collapse = " & "))
}
