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
#' @param original The original data (a data frame): the records behind the
#'   release, and, unless `control` is given, the control too.
#' @param release The release: a data frame (a masked release whose rows are
#'   the original's rows, or any release of other records), a [deidentify()]
#'   release, or a synthetic release of [mask_synth()] (its copies are
#'   attacked together, the control is the rows it held out).
#' @param control `NULL` (a share `attack_options(holdout = )` of a masked
#'   release's records, held out at random and treated as never released;
#'   or a synthetic release's hold-out), the row numbers of `original` held
#'   out, or a data frame of records held out before the release was made.
#'   A control that overlaps the released records is a classed error.
#' @param n_attacks The most predicates to build (the attack's trials).
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
#' @references Giomi M, Boenisch F, Wehmeyer C, Tasnádi B (2023). A unified
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
  n_attacks <- check_count(n_attacks, "n_attacks")
  n_cols <- check_count(n_cols, "n_cols")
  options <- check_attack_options(options)
  if (!is.null(columns)) columns <- check_columns(columns, check_attack_original(original),
                                                  "columns", "original")
  streams <- rng_streams(5L, seed)
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
                               options$max_attempts %||% (100L * n_attacks), threads,
                               streams[[3L]])
  base <- random_predicates(codes, length(preds$col_list), k, streams[[4L]])
  unit_t <- attack_units(setup$target, setup$id)
  unit_c <- attack_units(setup$control, setup$id)
  n_t <- max(unit_t)
  n_c <- max(unit_c)
  hit_t <- predicate_counts(codes$coded$original, codes$type, preds, unit_t, 2L, threads) == 1L
  ctrl <- control_singles(codes, preds, unit_c, n_t, threads)
  hit_b <- predicate_counts(codes$coded$original, codes$type, base, unit_t, 2L, threads) == 1L
  n_found <- length(preds$col_list)
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

# Predicates as the C core reads them: `col_list`, `op_list`, `val_list`
# (one vector per predicate) and the released record each came from.
new_predicates <- function(col_list, op_list, val_list, release_row) {
  list(col_list = col_list, op_list = op_list, val_list = val_list,
       release_row = as.integer(release_row))
}

# Number of units (records, or persons: `unit` of each row) of the coded
# data `x` each predicate matches, up to `cap` (0: no cap).
predicate_counts <- function(x, type, preds, unit, cap, threads) {
  if (!length(preds$col_list)) return(integer())
  lens <- lengths(preds$col_list)
  spec <- list(x = x, type = type, rows = seq_len(nrow(x)),
               person = if (max(unit) < nrow(x)) as.integer(unit),
               n_person = as.integer(max(unit)),
               start = as.integer(c(0L, cumsum(lens))),
               col = as.integer(unlist(preds$col_list)), op = as.integer(unlist(preds$op_list)),
               val = as.double(unlist(preds$val_list)), cap = as.integer(cap),
               threads = as.integer(threads))
  call_c(C_predicate_count, spec, arg = "predicates")
}

# The control's successes: a predicate matching exactly one control unit;
# with a control larger than the attack's n_t units, the probability that a
# random subset of n_t control units holds exactly one of the c it matches.
control_singles <- function(codes, preds, unit_c, n_t, threads) {
  n_c <- max(unit_c)
  if (!length(preds$col_list)) return(numeric())
  if (n_c == n_t)
    return(as.double(predicate_counts(codes$coded$control, codes$type, preds, unit_c, 2L,
                                      threads) == 1L))
  cnt <- predicate_counts(codes$coded$control, codes$type, preds, unit_c, 0L, threads)
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
  for (j in seq_along(codes$columns)) {
    v <- r[, j]
    is_num <- codes$type[[j]] == 0L
    na <- if (is_num) is.na(v) else v == 0
    if (sum(na) == 1L) cand[[length(cand) + 1L]] <- data.frame(col = j, op = 7L, val = 0,
                                                                 row = which(na))
    w <- v[!na]
    if (!length(w)) next
    rows_w <- which(!na)
    f <- match(w, unique(w))
    once <- tabulate(f)[f] == 1L
    if (is_num) {
      mn <- which(w == min(w))
      mx <- which(w == max(w))
      if (length(mn) == 1L) cand[[length(cand) + 1L]] <- data.frame(col = j, op = 4L,
                                                                     val = w[mn], row = rows_w[mn])
      if (length(mx) == 1L) cand[[length(cand) + 1L]] <- data.frame(col = j, op = 6L,
                                                                     val = w[mx], row = rows_w[mx])
    }
    if (any(once)) cand[[length(cand) + 1L]] <- data.frame(col = j, op = 1L, val = w[once],
                                                           row = rows_w[once])
  }
  if (!length(cand)) return(new_predicates(list(), list(), list(), integer()))
  cand <- do.call(rbind, cand)
  take <- with_rng_stream(stream, sample.int(nrow(cand)))
  take <- take[seq_len(min(n, length(take)))]
  cand <- cand[take, , drop = FALSE]
  new_predicates(as.list(cand$col), as.list(cand$op), as.list(cand$val), cand$row)
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
  one_unit <- seq_len(m)
  kept <- new_predicates(list(), list(), list(), integer())
  seen <- character()
  attempts <- 0
  with_rng_stream(stream, {
    while (length(kept$col_list) < n && attempts < max_attempts) {
      b <- min(max(2L * (n - length(kept$col_list)), 64L), max_attempts - attempts)
      attempts <- attempts + b
      rows <- sample.int(m, b, replace = TRUE)
      cols <- t(vapply(seq_len(b), function(i) sort(sample.int(p, n_cols)), integer(n_cols)))
      if (n_cols == 1L) cols <- matrix(cols, ncol = 1L)
      key <- paste(rows, apply(cols, 1L, paste, collapse = ","))
      fresh <- !duplicated(key) & !key %in% seen
      if (!any(fresh)) next
      rows <- rows[fresh]
      cols <- cols[fresh, , drop = FALSE]
      seen <- c(seen, key[fresh])
      cand <- record_predicates(r, codes$type, medians, rows, cols)
      single <- predicate_counts(r, codes$type, cand, one_unit, 2L, threads) == 1L
      room <- n - length(kept$col_list)
      take <- which(single)[seq_len(min(room, sum(single)))]
      kept <- new_predicates(c(kept$col_list, cand$col_list[take]),
                             c(kept$op_list, cand$op_list[take]),
                             c(kept$val_list, cand$val_list[take]),
                             c(kept$release_row, cand$release_row[take]))
    }
  })
  kept
}

# The predicate of each released record `rows[i]` on its columns `cols[i, ]`:
# a number at least its value when above the median, else at most; a
# category equal; a missing value missing.
record_predicates <- function(r, type, medians, rows, cols) {
  b <- length(rows)
  col_list <- op_list <- val_list <- vector("list", b)
  for (i in seq_len(b)) {
    cj <- cols[i, ]
    v <- r[cbind(rows[[i]], cj)]
    num <- type[cj] == 0L
    na <- ifelse(num, is.na(v), v == 0)
    op <- ifelse(na, 7L, ifelse(num, ifelse(v > medians[cj], 6L, 4L), 1L))
    v[na] <- 0
    col_list[[i]] <- cj
    op_list[[i]] <- op
    val_list[[i]] <- v
  }
  new_predicates(col_list, op_list, val_list, rows)
}

# The baseline: n random predicates of k columns each, a value drawn from the
# release's values of each column (missing included) and an operator drawn
# for its kind (==, != for a category; any comparison for a number; is / is
# not missing for a missing value).
random_predicates <- function(codes, n, k, stream) {
  r <- codes$coded$release
  p <- ncol(r)
  values <- lapply(seq_len(p), function(j) unique(r[, j]))
  col_list <- op_list <- val_list <- vector("list", n)
  with_rng_stream(stream, {
    for (i in seq_len(n)) {
      cj <- sort(sample.int(p, k))
      ops <- vals <- numeric(k)
      for (a in seq_len(k)) {
        j <- cj[[a]]
        vv <- values[[j]]
        v <- vv[[sample.int(length(vv), 1L)]]
        na <- if (codes$type[[j]] == 0L) is.na(v) else v == 0
        ops[[a]] <- if (na) sample(c(7L, 8L), 1L) else if (codes$type[[j]] == 1L)
          sample(c(1L, 2L), 1L) else sample(1:6, 1L)
        vals[[a]] <- if (na) 0 else v
      }
      col_list[[i]] <- cj
      op_list[[i]] <- as.integer(ops)
      val_list[[i]] <- vals
    }
  })
  new_predicates(col_list, op_list, val_list, rep(NA_integer_, n))
}

# The predicates as a table, one row per condition: `predicate` (its
# number), `column`, `op`, `value` (a category's value as text, a number's
# as text too) and `number` (a number's value; days for dates; NA for a
# category or a test of NA), so that they can be read back without the
# coding.
predicate_table <- function(preds, codes) {
  lens <- lengths(preds$col_list)
  if (!sum(lens))
    return(data.frame(predicate = integer(), column = character(), op = character(),
                      value = character(), number = numeric(), stringsAsFactors = FALSE))
  col <- unlist(preds$col_list)
  op <- unlist(preds$op_list)
  val <- unlist(preds$val_list)
  is_cat <- codes$type[col] == 1L & op < 7L
  value <- ifelse(op >= 7L, NA_character_, sprintf("%.15g", val))
  value[is_cat] <- vapply(which(is_cat), function(i) as.character(codes$levels[[col[[i]]]][[val[[i]]]]),
                          character(1))
  number <- ifelse(codes$type[col] == 0L & op < 7L, val, NA_real_)
  data.frame(predicate = rep(seq_along(lens), lens), column = codes$columns[col],
             op = names(op_code)[op], value = value, number = number,
             stringsAsFactors = FALSE)
}

# A predicate as text: "age >= 39 & sex == 'Male'" (dates as dates).
predicate_text <- function(preds, codes) {
  ops <- names(op_code)
  vapply(seq_along(preds$col_list), function(i) {
    parts <- mapply(function(j, op, v) {
      name <- codes$columns[[j]]
      if (op >= 7L) return(sprintf("%s %s", name, ops[[op]]))
      shown <- if (codes$type[[j]] == 1L) sprintf("'%s'", codes$levels[[j]][[v]]) else
        switch(codes$labels[[j]],
               date = format(as.Date(v, origin = "1970-01-01")),
               time = format(as.POSIXct(v * 86400, origin = "1970-01-01", tz = "UTC")),
               format(v, digits = 15))
      sprintf("%s %s %s", name, ops[[op]], shown)
    }, preds$col_list[[i]], preds$op_list[[i]], preds$val_list[[i]])
    paste(parts, collapse = " & ")
  }, character(1))
}
