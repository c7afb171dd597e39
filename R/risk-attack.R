# The regulator's three attacks (methods vignette section 28, after Giomi et
# al. 2023 and the anonymeter code): what the three attacks share. Each
# attack (R/risk-singling-out.R, R/risk-linkability.R, R/risk-inference.R)
# counts its successes on three sets of targets: the original records behind
# the release (the attack), original records the release holds nothing of
# (the control) and a random guesser's (the baseline). The share of
# successes of each, with a Wilson score interval, and the risk
# (attack - control) / (1 - control) with its interval make the result, an
# `epimask_attack`. This file holds the settings, the set-up of the three
# target sets from the release and the control, the column coding, the
# nearest-neighbour search (C, src/gower.c), the interval arithmetic and
# the result's methods.

#' Settings of the three attacks
#'
#' Options shared by [risk_singling_out()], [risk_linkability()] and
#' [risk_inference()] (and their criteria [singling_out()], [linkability()],
#' [inference()]).
#'
#' @param holdout The share of the original's units (records, or persons with
#'   `id`) held out at random as the control when `control = NULL` and the
#'   release's rows are the original's rows (a masked release): the attack
#'   drops their released rows and treats them as never released. Default
#'   one half: [risk_singling_out()] compares the attack and the control on
#'   sets of equal size, and one half makes both as large as they can be.
#' @param conf_level The level of the intervals (Wilson score for the rates,
#'   the method of variance estimates recovery for the risk).
#' @param na How Gower's distance treats a missing value: `"category"` (the
#'   default: a value of its own, at distance 0 from a missing value and 1
#'   from any other, as the release shows it) or `"ignore"` (the column is
#'   left out of that pair's mean, as [cluster::daisy()] does; the search is
#'   then the exhaustive scan).
#' @param search The nearest-neighbour search: `"auto"` (the k-d tree over
#'   the distinct released records, unless `na = "ignore"`), `"tree"` or
#'   `"exhaustive"` (every pair, the reference). All give the same neighbours.
#' @param max_attempts For the multivariate singling-out attack: the most
#'   candidate predicates drawn (default 100 per attack asked).
#' @param threads Threads of the C search, `NULL` for [epimask_threads()].
#' @param parallel Split the targets of the nearest-neighbour search over
#'   the current [future::plan()] (needs \pkg{future.apply}); the result is
#'   the serial one.
#' @return A list of class `epimask_attack_options`.
#' @family attacks
#' @examples
#' attack_options()
#' attack_options(holdout = 0.3, na = "ignore")
#' @export
attack_options <- function(holdout = 0.5, conf_level = 0.95, na = c("category", "ignore"),
                           search = c("auto", "tree", "exhaustive"), max_attempts = NULL,
                           threads = NULL, parallel = FALSE) {
  holdout <- check_number(holdout, "holdout", lower = 0, upper = 1, lower_open = TRUE,
                          upper_open = TRUE)
  conf_level <- check_number(conf_level, "conf_level", lower = 0, upper = 1,
                             lower_open = TRUE, upper_open = TRUE)
  na <- check_choice(na, c("category", "ignore"))
  search <- check_choice(search, c("auto", "tree", "exhaustive"))
  max_attempts <- check_count(max_attempts, "max_attempts", allow_null = TRUE)
  if (!is.null(threads)) threads <- epimask_threads(threads)
  check_flag(parallel)
  if (parallel && !requireNamespace("future.apply", quietly = TRUE))
    abort_value("parallel", "FALSE unless the future.apply package is installed")
  structure(list(holdout = holdout, conf_level = conf_level, na = na, search = search,
                 max_attempts = max_attempts, threads = threads, parallel = parallel),
            class = "epimask_attack_options")
}

#' @export
format.epimask_attack_options <- function(x, ...) {
  sprintf("<attack options: hold out %s as control, %s%% intervals, NA as %s, %s search%s>",
          format(x$holdout), format(100 * x$conf_level), x$na, x$search,
          if (x$parallel) ", parallel" else "")
}

#' @export
print.epimask_attack_options <- function(x, ...) print_formatted(x, ...)

# A seed as set.seed() takes it (NULL: drawn from the caller's generator).
check_attack_seed <- function(seed) {
  check_number(seed, "seed", allow_null = TRUE, lower = -.Machine$integer.max,
               upper = .Machine$integer.max)
}

check_attack_options <- function(options) {
  if (is.null(options)) return(attack_options())
  if (!inherits(options, "epimask_attack_options"))
    abort_type("options", "the result of attack_options()")
  options
}

# ---- intervals ------------------------------------------------------------------

# Wilson's score interval for `k` successes in `n` trials (k may be a sum of
# probabilities: the control of singling out thinned to the attack's size).
wilson_interval <- function(k, n, level) {
  if (n <= 0) return(c(NA_real_, NA_real_))
  z <- stats::qnorm(1 - (1 - level) / 2)
  z2 <- z * z
  centre <- (k + z2 / 2) / (n + z2)
  half <- z / (n + z2) * sqrt(max(k * (n - k) / n, 0) + z2 / 4)
  # 0 and 1 exactly at no and all successes (the roots are 0 and 1 there)
  c(if (k <= 0) 0 else max(centre - half, 0), if (k >= n) 1 else min(centre + half, 1))
}

# A rate as the result reports it: the share, its interval, the trials and
# the successes.
attack_rate <- function(k, n, level) {
  list(rate = if (n > 0) k / n else NA_real_, interval = wilson_interval(k, n, level),
       n = as.integer(n), successes = k)
}

# The risk (a - c) / (1 - c) = 1 - f_a / f_c, with f the failure shares,
# and its interval by the method of variance estimates recovery for a ratio
# (Zou & Donner 2008; Newcombe 1998 for Wilson limits): the ratio's limits
# from the Wilson limits of the two failure shares (methods vignette, 28.3).
attack_risk <- function(attack, control) {
  a <- attack$rate
  c0 <- control$rate
  if (is.na(a) || is.na(c0) || c0 >= 1)
    return(list(value = NA_real_, interval = c(NA_real_, NA_real_), estimate = NA_real_))
  p1 <- 1 - a
  p2 <- 1 - c0
  l1 <- 1 - attack$interval[[2L]]
  u1 <- 1 - attack$interval[[1L]]
  l2 <- 1 - control$interval[[2L]]
  u2 <- 1 - control$interval[[1L]]
  ratio <- mover_ratio(p1, l1, u1, p2, l2, u2)
  estimate <- 1 - p1 / p2
  list(value = min(max(estimate, 0), 1),
       interval = c(min(max(1 - ratio[[2L]], 0), 1), min(max(1 - ratio[[1L]], 0), 1)),
       estimate = estimate)
}

# Limits of p1 / p2 from the limits (l, u) of each (p2 > 0): the roots of
# (p1 - r p2)^2 = (p1 - l1)^2 + r^2 (u2 - p2)^2 (lower) and of
# (p1 - r p2)^2 = (u1 - p1)^2 + r^2 (p2 - l2)^2 (upper).
mover_ratio <- function(p1, l1, u1, p2, l2, u2) {
  lower <- (p1 * p2 - sqrt(max((p1 * p2)^2 - l1 * (2 * p1 - l1) * u2 * (2 * p2 - u2), 0))) /
    (u2 * (2 * p2 - u2))
  upper <- if (l2 > 0)
    (p1 * p2 + sqrt(max((p1 * p2)^2 - u1 * (2 * p1 - u1) * l2 * (2 * p2 - l2), 0))) /
      (l2 * (2 * p2 - l2))
  else Inf
  if (!is.finite(lower) || u2 * (2 * p2 - u2) <= 0) lower <- 0
  c(max(lower, 0), upper)
}

# ---- the release and the three sets of targets ---------------------------------------

# The records of a release as the attacks read them: one data frame (the
# copies of a synthetic release stacked: the intruder has them all), whether
# its rows are the original's rows in order (a masked release), and the rows
# of the original a synthetic release says it held out.
attack_release <- function(release, original) {
  kind <- "masked"
  holdout <- NULL
  m <- 1L
  if (inherits(release, "epimask_synthetic")) {
    copies <- synthetic_copies(release)
    m <- length(copies)
    # a synthesis that held nothing out records no rows (integer(0))
    if (length(release$holdout)) holdout <- release$holdout
    data <- do.call(rbind, lapply(copies, as.data.frame, stringsAsFactors = FALSE))
    kind <- "synthetic"
  } else if (inherits(release, "epimask_release")) {
    data <- release$data
    kind <- "deidentified"
  } else {
    data <- release
  }
  if (is.matrix(data)) data <- as.data.frame(data, stringsAsFactors = FALSE)
  if (!is.data.frame(data))
    abort_type("release", paste("a data frame, a deidentify() release or a synthetic release",
                                "(mask_synth())"))
  check_column_names(data, "release")
  if (nrow(data) < 2L)
    epimask_abort(sprintf(paste0("`release` has %d record%s: the attacks need at least two ",
                                 "released records to measure anything."),
                          nrow(data), if (nrow(data) == 1L) "" else "s"),
                  "epimask_error_empty", arg = "release")
  aligned <- kind != "synthetic" && nrow(data) == nrow(original)
  list(data = as_plain_frame(data), kind = kind, aligned = aligned, holdout = holdout, m = m)
}

# The data frames of a synthetic release (mask_synth()): `$copies`, or the
# object's own elements that are data frames.
synthetic_copies <- function(release) {
  copies <- release$copies
  if (is.data.frame(copies)) copies <- list(copies)
  if (is.null(copies)) copies <- Filter(is.data.frame, unclass(release))
  if (!length(copies))
    abort_value("release", "a synthetic release holding its copies (`$copies`)")
  copies
}

# A data frame without the tibble / data.table classes (plain column access).
as_plain_frame <- function(x) {
  x <- as.data.frame(x, stringsAsFactors = FALSE, optional = TRUE)
  class(x) <- "data.frame"
  x
}

check_attack_original <- function(original) {
  if (is.matrix(original)) original <- as.data.frame(original, stringsAsFactors = FALSE)
  if (!is.data.frame(original)) abort_type("original", "a data frame")
  check_column_names(original, "original")
  if (nrow(original) < 2L)
    epimask_abort("`original` must have at least two records.", "epimask_error_empty",
                  arg = "original")
  as_plain_frame(original)
}

# The attack's units: persons of several records (`id`), else records.
attack_units <- function(data, id) {
  if (is.null(id)) return(seq_len(nrow(data)))
  person_index(data[[id]])
}

# Targets, control and the release attacked, from what the caller gave
# (methods vignette 28.1):
# - control = NULL: a synthetic release's recorded hold-out, or, when the
#   release's rows are the original's rows, a random share `holdout` of the
#   original's units held out (their released rows dropped); otherwise there
#   is no control to be had and the caller must give one;
# - control = row numbers of the original: those rows are the control;
# - control = a data frame: records held out before the release was made.
# `stream` is the random stream of the hold-out.
attack_setup <- function(original, release, control, id, columns, options, stream) {
  original <- check_attack_original(original)
  rel <- attack_release(release, original)
  n <- nrow(original)
  if (!is.null(id)) id <- check_person_id(id, original, exclude = columns, data_arg = "original")
  unit <- attack_units(original, id)
  if (max(unit) < 2L)
    epimask_abort("`original` must hold at least two persons (one to attack, one to hold out).",
                  "epimask_error_empty", arg = "original")
  source <- NULL
  control_rows <- NULL
  if (is.null(control)) {
    if (!is.null(rel$holdout)) {
      control_rows <- check_control_rows(rel$holdout, n, unit, "release$holdout")
      source <- "synthetic"
    } else if (rel$aligned) {
      held <- with_rng_stream(stream, sample.int(max(unit), max(1L, floor(options$holdout * max(unit)))))
      control_rows <- which(unit %in% held)
      source <- "random"
    } else {
      epimask_abort(paste0(
        "No control can be held out: the release's records are not the original's rows (",
        if (rel$kind == "synthetic") "a synthetic release that recorded no hold-out" else
          sprintf("%d released records for %d original", nrow(rel$data), n),
        "). Hold records out BEFORE making the release and give them as `control` (a data ",
        "frame, or their row numbers in `original`); for mask_synth(), set its hold-out."),
        c("epimask_error_attack_control", "epimask_error_value"), arg = "control")
    }
  } else if (is.numeric(control) && is.null(dim(control))) {
    control_rows <- check_control_rows(control, n, unit, "control")
    source <- "rows"
  } else if (is.data.frame(control) || is.matrix(control)) {
    source <- "data"
  } else {
    abort_type("control", "NULL, row numbers of `original`, or a data frame of held-out records")
  }
  if (source == "data") {
    control <- as_plain_frame(control)
    check_column_names(control, "control")
    if (nrow(control) < 1L) abort_empty("control")
    # a synthetic release's own hold-out was not synthesised from: not a target
    target_rows <- if (is.null(rel$holdout)) seq_len(n) else
      setdiff(seq_len(n), check_control_rows(rel$holdout, n, unit, "release$holdout"))
    target <- original[target_rows, , drop = FALSE]
    ctrl <- control
    check_control_overlap(target, ctrl, id)
  } else {
    target_rows <- setdiff(seq_len(n), control_rows)
    target <- original[target_rows, , drop = FALSE]
    ctrl <- original[control_rows, , drop = FALSE]
  }
  released <- rel$data
  release_rows <- NULL
  if (rel$aligned) {
    # the release attacked: the released rows of the targets only
    released <- released[target_rows, , drop = FALSE]
    release_rows <- target_rows
  }
  if (!is.null(id)) {
    if (!id %in% names(ctrl)) abort_name("control", id, "`control` (the person column `id`)")
    if (source == "data") check_person_id(id, ctrl, data_arg = "control", arg = "id")
  }
  structure(list(
    target = target, target_rows = target_rows, control = ctrl, control_rows = control_rows,
    release = released, release_rows = release_rows, aligned = rel$aligned, kind = rel$kind,
    m = rel$m, source = source, id = id, n_original = n,
    n_delivered = nrow(rel$data)), class = "epimask_attack_setup")
}

check_control_rows <- function(rows, n, unit, arg) {
  if (!is.numeric(rows) || !length(rows) || anyNA(rows) || any(rows != round(rows)) ||
      any(rows < 1 | rows > n) || anyDuplicated(rows))
    abort_value(arg, sprintf("distinct row numbers of `original` (from 1 to %d)", n))
  rows <- sort(as.integer(rows))
  if (length(rows) >= n)
    abort_value(arg, "row numbers of part of `original` (some records must be the release's)")
  # a person is held out with all their records
  split_persons <- unique(unit[rows])
  if (length(which(unit %in% split_persons)) != length(rows))
    abort_value(arg, "row numbers holding every record of their persons (`id`)")
  rows
}

# A control given as records must be records the release holds nothing of:
# with a person column, no control person may be an original person; without
# one, control records equal (on every shared column) to an original record
# must be no more frequent than records equal to another original record are
# (distinct persons with equal values), else the control overlaps the
# release and its success rate is the attack's (methods vignette, 28.1).
check_control_overlap <- function(original, control, id) {
  if (!is.null(id)) {
    if (!id %in% names(control)) return(invisible())
    shared <- sum(key_text(control[[id]]) %in% key_text(original[[id]]))
    if (shared)
      epimask_abort(sprintf(paste0(
        "`control` shares %d person%s (column '%s') with `original`: the control must be ",
        "persons the release holds nothing of, or its success rate is the attack's."),
        shared, if (shared == 1L) "" else "s", id), "epimask_error_value", arg = "control")
    return(invisible())
  }
  cols <- intersect(names(original), names(control))
  if (!length(cols))
    abort_name("control", names(original)[[1L]], "`control` (it shares no column with `original`)")
  key_o <- row_text(original, cols)
  key_c <- row_text(control, cols)
  in_orig <- key_c %in% key_o
  twins <- duplicated(key_o) | duplicated(key_o, fromLast = TRUE)
  base <- mean(twins)
  m <- length(key_c)
  # more control records equal to original records than chance twins explain
  allowed <- stats::qbinom(1 - 1e-6, m, base)
  if (sum(in_orig) > allowed)
    epimask_abort(sprintf(paste0(
      "`control` overlaps the released records: %d of its %d records equal an original ",
      "record on every shared column (chance alone gives at most %d, as %s of the original ",
      "records equal another one). The control must be records held out before the release, ",
      "or its success rate is the attack's; give `id` to check by person."),
      sum(in_orig), m, allowed, format(signif(base, 2))), "epimask_error_value", arg = "control")
  invisible()
}

# Each row of `cols` as one unambiguous text.
row_text <- function(data, cols) {
  do.call(paste, c(lapply(cols, function(col) key_text(data[[col]])), sep = "|"))
}

# ---- the columns, coded for the C core --------------------------------------------

# The columns the attack reads, checked in each frame it reads them from.
check_attack_columns <- function(columns, setup, arg) {
  check_utf8(columns, arg)
  for (what in c("original", "release", "control")) {
    frame <- switch(what, original = setup$target, release = setup$release,
                    control = setup$control)
    missing <- setdiff(columns, names(frame))
    if (length(missing)) abort_name(arg, missing, sprintf("`%s`", what))
  }
  columns
}

# The attack's columns coded alike in the targets, the control and the
# release: a number (integer, double, Date and POSIXct as days, an ordered
# factor as its level's rank) or a category (factor, character, logical;
# codes 1.. over the values of all three, 0 for NA). `range` scales the
# numbers for Gower's distance (the range over all three; 1 for a constant).
attack_code <- function(columns, frames) {
  kinds <- lapply(columns, function(col) column_kind(col, frames))
  type <- vapply(kinds, function(k) if (k$kind == "number") 0L else 1L, integer(1))
  coded <- lapply(frames, function(f) matrix(0, nrow(f), length(columns)))
  range <- numeric(length(columns))
  levels <- vector("list", length(columns))
  for (j in seq_along(columns)) {
    values <- lapply(frames, function(f) kinds[[j]]$as(f[[columns[[j]]]]))
    if (type[[j]] == 0L) {
      all <- unlist(values, use.names = FALSE)
      if (all(is.na(all))) range[[j]] <- 1 else {
        r <- diff(range(all, na.rm = TRUE))
        range[[j]] <- if (is.finite(r) && r > 0) r else 1
      }
      for (f in seq_along(frames)) coded[[f]][, j] <- values[[f]]
    } else {
      lv <- sort(unique(unlist(values, use.names = FALSE)), method = "radix", na.last = NA)
      levels[[j]] <- lv
      for (f in seq_along(frames)) {
        code <- match(values[[f]], lv)
        code[is.na(code)] <- 0L
        coded[[f]][, j] <- code
      }
      range[[j]] <- NA_real_
    }
  }
  for (f in seq_along(frames)) colnames(coded[[f]]) <- columns
  list(type = type, range = range, coded = coded, columns = columns, levels = levels,
       labels = vapply(kinds, `[[`, character(1), "label"))
}

# What a column is in every frame (all must agree), and how to read it.
column_kind <- function(col, frames) {
  kinds <- vapply(frames, function(f) value_kind(f[[col]]), character(1))
  if (length(unique(kinds)) > 1L)
    epimask_abort(sprintf(paste0(
      "Column '%s' is %s: the attacks compare values of one kind. A generalized release ",
      "codes a number as intervals: give `original` (and `control`) in the release's coding ",
      "(generalize() with the release's levels)."), col,
      paste(sprintf("%s in `%s`", kinds, names(frames)), collapse = ", ")),
      c("epimask_error_attack_coding", "epimask_error_type"), arg = "release")
  kind <- kinds[[1L]]
  if (kind == "ordered") {
    lv <- lapply(frames, function(f) levels(f[[col]]))
    if (!all(vapply(lv, identical, logical(1), lv[[1L]])))
      epimask_abort(sprintf("Ordered factor '%s' has different levels in the data sets.", col),
                    c("epimask_error_attack_coding", "epimask_error_value"), arg = "release")
  }
  as <- switch(kind,
    number = function(x) as.double(x),
    date = function(x) as.double(x),
    time = function(x) as.double(x) / 86400,
    ordered = function(x) as.double(as.integer(x)),
    category = function(x) key_values(x))
  list(kind = if (kind %in% c("date", "time", "ordered")) "number" else
         if (kind == "number") "number" else "category",
       label = kind, as = as)
}

value_kind <- function(x) {
  if (is.null(x)) return("absent")
  if (is.list(x)) abort_type("original", "a data frame of atomic columns")
  if (inherits(x, "Date")) return("date")
  if (inherits(x, "POSIXt")) return("time")
  if (is.ordered(x)) return("ordered")
  if (is.factor(x) || is.character(x) || is.logical(x)) return("category")
  if (is.numeric(x)) return("number")
  "category"
}

# A column the attack reads must hold a value somewhere, in the original and
# in the release.
check_not_all_na <- function(codes, columns) {
  for (nm in names(codes$coded)) {
    m <- codes$coded[[nm]]
    if (!nrow(m)) next
    for (j in seq_along(columns)) {
      v <- m[, j]
      empty <- if (codes$type[[j]] == 0L) all(is.na(v)) else all(v == 0)
      if (empty && nm != "control")
        epimask_abort(sprintf("Column '%s' is missing (NA) in every record of `%s`: it tells the attack nothing; leave it out.",
                              columns[[j]], nm), "epimask_error_value", arg = nm)
    }
  }
  invisible()
}

# ---- nearest released records (src/gower.c) ---------------------------------------------

# The k nearest released records (rows of `release`, a coded matrix, records
# by row) of each target (rows of `targets`) on the columns `cols`, by
# Gower's distance: list(idx = k x n_targets rows, dist).
gower_nearest <- function(release, targets, codes, cols, k, options) {
  j <- match(cols, codes$columns)
  scale <- ifelse(codes$type[j] == 0L, codes$range[j], 1)
  y <- t(release[, j, drop = FALSE]) / scale
  q <- t(targets[, j, drop = FALSE]) / scale
  storage.mode(y) <- "double"
  storage.mode(q) <- "double"
  na <- if (options$na == "category") 0L else 1L
  method <- switch(options$search, tree = 1L, exhaustive = 0L,
                   auto = if (na == 0L && ncol(y) >= 64L) 1L else 0L)
  threads <- options$threads %||% (if (ncol(q) * ncol(y) < 1e7) 1L else epimask_threads())
  spec <- list(y = y, q = q, type = codes$type[j], na = na, k = as.integer(k),
               method = method, threads = as.integer(threads))
  if (!options$parallel || ncol(q) < 2L)
    return(call_c(C_gower_knn, spec, arg = "options"))
  workers <- future::nbrOfWorkers()
  chunks <- unname(split(seq_len(ncol(q)), ceiling(seq_len(ncol(q)) * min(ncol(q), 4L * workers) /
                                                      ncol(q))))
  spec$threads <- 1L
  parts <- tryCatch(
    future.apply::future_lapply(chunks, function(cols_q) {
      s <- spec
      s$q <- spec$q[, cols_q, drop = FALSE]
      call_c(C_gower_knn, s, arg = "options")
    }, future.seed = NULL, future.packages = "epimask"),
    error = function(e) epimask_abort(sprintf(paste0(
      "A parallel worker failed, so the attack returns nothing (a partial result would ",
      "misstate the risk): %s"), conditionMessage(e)), "epimask_error_worker", arg = "parallel"))
  list(idx = do.call(cbind, lapply(parts, `[[`, "idx")),
       dist = do.call(cbind, lapply(parts, `[[`, "dist")))
}

# The targets to attack: n of the units (at random), or all when there are
# fewer or n is NULL; returns the rows of the chosen units' records and their unit.
# The targets (and control records) an attack tries, from its `n_attacks`:
# NULL (the default) every one when there are at most 2,000, else a seeded
# sample of 2,000; Inf every one; a count at most that many. NULL returned
# means every one.
attack_default_n <- 2000L
attack_count <- function(n_attacks) {
  if (is.null(n_attacks)) return(attack_default_n)
  if (is.numeric(n_attacks) && length(n_attacks) == 1L && identical(as.double(n_attacks), Inf))
    return(NULL)
  check_count(n_attacks, "n_attacks")
}

sample_units <- function(unit, n, stream) {
  units <- unique(unit)
  chosen <- if (is.null(n) || length(units) <= n) units else
    with_rng_stream(stream, units[sort(sample.int(length(units), n))])
  rows <- which(unit %in% chosen)
  list(rows = rows, unit = match(unit[rows], chosen), n = length(chosen))
}

# Rows of the details tables as the caller knows them: a target's row in
# `original`, a control record's row in `original` (or in `control` when
# given as data), a released record's row in the release as delivered.
original_row <- function(setup, rows, set) {
  if (set == "attack") return(setup$target_rows[rows])
  if (is.null(setup$control_rows)) rows else setup$control_rows[rows]
}

delivered_row <- function(setup, rows) {
  if (is.null(setup$release_rows)) rows else setup$release_rows[rows]
}

# The counts of a nearest-neighbour attack (linkability, inference): the
# successes of the targets' and the control's sampled records (`tgt`, `ctl`
# from sample_units()) and of the baseline's, by unit.
unit_counts <- function(success_t, success_c, success_b, tgt, ctl, unit_t, unit_c) {
  list(attack = sum(unit_success(success_t, tgt$unit, tgt$n)), n_attack = tgt$n,
       control = sum(unit_success(success_c, ctl$unit, ctl$n)), n_control = ctl$n,
       baseline = sum(unit_success(success_b, tgt$unit, tgt$n)), n_baseline = tgt$n,
       pool_attack = max(unit_t), pool_control = max(unit_c))
}

# The details table of a nearest-neighbour attack: one row per record tried,
# `set` and `row` (as the caller knows it), then the columns of `attack` and
# `control` (lists of equal-length vectors).
attack_details <- function(setup, tgt, ctl, attack, control) {
  part <- function(set, sel, cols)
    data.frame(c(list(set = set, row = original_row(setup, sel$rows, set)), cols),
               stringsAsFactors = FALSE)
  rbind(part("attack", tgt, attack), part("control", ctl, control))
}

# A unit succeeds when one of its records does.
unit_success <- function(success, unit, n_units) {
  as.logical(tabulate(unit[success], n_units))
}

# ---- the result ------------------------------------------------------------------------

#' The result of an attack
#'
#' What [risk_singling_out()], [risk_linkability()] and [risk_inference()]
#' return: an object of class `epimask_attack`, a list with
#' \describe{
#'   \item{`attack`, `control`, `baseline`}{each a list: `rate` (the share of
#'     successes), `interval` (its Wilson score interval at `conf_level`),
#'     `n` (the attempts) and `successes`: the attack on the original
#'     records behind the release, the same attack on the control records
#'     (never released), and a random guesser's attempts.}
#'   \item{`risk`}{a list: `value` (the risk \eqn{(a - c) / (1 - c)} clipped to
#'     \[0, 1\]), `interval` (its interval, clipped likewise) and `estimate`
#'     (the unclipped value: negative when the control was attacked more
#'     successfully than the release's own records).}
#'   \item{`type`, `unit`, `conf_level`, `control_source`, `n_targets`,
#'     `n_control_pool`, `n_release`, `n_delivered`, `rows`, `details`,
#'     `notes`}{what was attacked and how: `control_source` is `"random"`
#'     (held out by the attack), `"rows"` or `"data"` (given), `"synthetic"`
#'     (the synthetic release's hold-out); `rows$target` and `rows$control`
#'     the row numbers in `original` of the records attacked and held out
#'     (`NULL` for a control given as data; row numbers only, never values);
#'     `details` a data frame per predicate or target.}
#' }
#' `print()` shows the three rates and the risk with their intervals and where
#' the control came from; `summary()` adds the first predicates or targets;
#' `plot()` draws the three rates and the risk with their intervals;
#' `as.data.frame()` and `tidy()` give one row per rate and the risk,
#' `glance()` one row per attack.
#'
#' @param x,object An `epimask_attack`.
#' @param digits Significant digits shown.
#' @param y Unused.
#' @param ... Passed on to [graphics::plot()] by `plot()`; unused otherwise.
#' @param row.names,optional As for [as.data.frame()].
#' @name epimask_attack
#' @family attacks
#' @examples
#' d <- dose_cohort[1:2000, c("sex", "city", "age_exp", "dose")]
#' noisy <- apply_mask(d, mask_noise(2), "dose")
#' a <- risk_linkability(d, noisy, aux = list(c("sex", "age_exp"), c("city", "dose")),
#'                       n_attacks = 300, seed = 1)
#' a
#' summary(a)
#' tidy(a)
#' plot(a)
NULL

# An attack's result from the success counts of the three attacks.
new_attack <- function(attack, setup, counts, options, details, extra = list()) {
  level <- options$conf_level
  rates <- list(attack = attack_rate(counts$attack, counts$n_attack, level),
                control = attack_rate(counts$control, counts$n_control, level),
                baseline = attack_rate(counts$baseline, counts$n_baseline, level))
  risk <- attack_risk(rates$attack, rates$control)
  structure(c(list(
    type = attack, attack = rates$attack, control = rates$control, baseline = rates$baseline,
    risk = risk, conf_level = level, unit = if (is.null(setup$id)) "records" else "persons",
    id = setup$id, control_source = setup$source, release_kind = setup$kind,
    copies = setup$m, n_original = setup$n_original, n_targets = counts$pool_attack,
    n_control_pool = counts$pool_control, n_release = nrow(setup$release),
    n_delivered = setup$n_delivered, na = options$na,
    rows = list(target = setup$target_rows, control = setup$control_rows),
    details = details), extra),
    class = "epimask_attack")
}

attack_title <- function(x) {
  switch(x$type,
         singling_out = sprintf("singling out (%s%s)", x$mode,
                                if (x$mode == "multivariate") sprintf(", %d columns", x$n_cols) else ""),
         linkability = sprintf("linkability (%s | %s; %d nearest)",
                               paste(x$aux[[1L]], collapse = ", "),
                               paste(x$aux[[2L]], collapse = ", "), x$n_neighbors),
         inference = sprintf("inference of '%s' from %s%s", x$secret,
                             paste(x$aux, collapse = ", "),
                             if (x$numeric_secret) sprintf(" (within %s)", x$tolerance_text) else ""))
}

# What the control is, in words (the print says where it came from and that
# the release is attacked without it).
control_text <- function(x) {
  units <- unit_name(x)
  switch(x$control_source,
    random = sprintf(paste0("control: %s original %s held out at random and treated as never ",
                            "released (their released rows were dropped: the attack measures a ",
                            "release of the other %s %s, masked the same way)"),
                     format(x$n_control_pool, big.mark = ","), units,
                     format(x$n_targets, big.mark = ","), units),
    rows = sprintf(paste0("control: the %s original %s given as `control` (their released ",
                          "rows were dropped from the release attacked)"),
                   format(x$n_control_pool, big.mark = ","), units),
    synthetic = sprintf("control: the %s original %s the synthetic release held out",
                        format(x$n_control_pool, big.mark = ","), units),
    data = sprintf("control: %s %s held out before the release (given as `control`)",
                   format(x$n_control_pool, big.mark = ","), units))
}

rate_text <- function(r, digits) {
  if (is.na(r$rate)) return("NA")
  sprintf("%s [%s, %s]", format_num(r$rate, digits), format_num(r$interval[[1L]], digits),
          format_num(r$interval[[2L]], digits))
}

#' @rdname epimask_attack
#' @export
format.epimask_attack <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  succ <- function(r) format_num(r$successes, digits, integers = TRUE)
  pct <- format(100 * x$conf_level)
  lines <- c(
    sprintf("%s: %s attacked, %s released records (%s)", attack_title(x),
            unit_count_text(x), format(x$n_release, big.mark = ","),
            if (x$release_kind == "synthetic") sprintf("%d synthetic cop%s", x$copies,
                                                       if (x$copies == 1L) "y" else "ies")
            else x$release_kind),
    sprintf("  attack   %s  (%s of %d %s)", rate_text(x$attack, digits), succ(x$attack),
            x$attack$n, x$trial_name),
    sprintf("  control  %s  (%s of %d)", rate_text(x$control, digits), succ(x$control),
            x$control$n),
    sprintf("  baseline %s  (%s of %d, %s)", rate_text(x$baseline, digits),
            succ(x$baseline), x$baseline$n, x$baseline_name),
    if (is.na(x$risk$value)) "  risk     NA (the control attack always succeeds: no room to measure a leak)"
    else sprintf("  risk     %s [%s, %s]  = (attack - control) / (1 - control), %s%% interval",
                 format_num(x$risk$value, digits), format_num(x$risk$interval[[1L]], digits),
                 format_num(x$risk$interval[[2L]], digits), pct),
    attack_note_lines(control_text(x)))
  if (!is.na(x$attack$rate) && !is.na(x$baseline$rate) && x$attack$rate <= x$baseline$rate)
    lines <- c(lines, attack_note_lines(paste("note: the attack does no better than the random baseline,",
                                      "so its rates say little about this release")))
  c(lines, unlist(lapply(x$notes, function(n) attack_note_lines(paste("note:", n)))))
}

# A sentence of the print, wrapped and indented.
attack_note_lines <- function(text) strwrap(text, width = 92L, indent = 2L, exdent = 4L)

unit_count_text <- function(x) {
  sprintf("%s original %s", format(x$n_targets, big.mark = ","), unit_name(x))
}

#' @rdname epimask_attack
#' @export
print.epimask_attack <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname epimask_attack
#' @export
summary.epimask_attack <- function(object, ...) {
  structure(list(attack = object, rates = attack_rates_table(object),
                 details = object$details), class = "summary.epimask_attack")
}

#' @export
format.summary.epimask_attack <- function(x, digits = 3, ...) {
  utils::capture.output({
    print(x$attack, digits = digits)
    print_titled_table("Rates and risk:", format_table(x$rates, digits, left = "term"), digits)
    d <- x$details
    if (is.data.frame(d) && nrow(d)) {
      print_titled_table(sprintf("First %s:", x$attack$detail_name),
                         format_table(utils::head(d, 10L), digits), digits)
    }
  })
}

#' @export
print.summary.epimask_attack <- function(x, ...) print_formatted(x, ...)

# One row per rate and the risk.
attack_rates_table <- function(x) {
  rows <- lapply(c("attack", "control", "baseline"), function(nm) {
    r <- x[[nm]]
    data.frame(term = nm, estimate = r$rate, conf.low = r$interval[[1L]],
               conf.high = r$interval[[2L]], successes = r$successes, n = r$n,
               stringsAsFactors = FALSE)
  })
  rows[[4L]] <- data.frame(term = "risk", estimate = x$risk$value,
                           conf.low = x$risk$interval[[1L]], conf.high = x$risk$interval[[2L]],
                           successes = NA_real_, n = NA_integer_, stringsAsFactors = FALSE)
  do.call(rbind, rows)
}

#' @rdname epimask_attack
#' @export
as.data.frame.epimask_attack <- function(x, row.names = NULL, optional = FALSE, ...) {
  apply_row_names(attack_rates_table(x), row.names, optional)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_attack
#' @export
tidy.epimask_attack <- function(x, ...) attack_rates_table(x)

#' @rdname epimask-tidiers
#' @method glance epimask_attack
#' @export
glance.epimask_attack <- function(x, ...) {
  data.frame(attack = x$type, risk = x$risk$value, risk.low = x$risk$interval[[1L]],
             risk.high = x$risk$interval[[2L]], attack_rate = x$attack$rate,
             control_rate = x$control$rate, baseline_rate = x$baseline$rate,
             n_attacks = x$attack$n, n_control = x$control$n, unit = x$unit,
             conf_level = x$conf_level, stringsAsFactors = FALSE)
}

#' @rdname epimask_attack
#' @export
plot.epimask_attack <- function(x, y = NULL, ...) {
  tab <- attack_rates_table(x)
  est <- tab$estimate
  lo <- tab$conf.low
  hi <- tab$conf.high
  at <- 4:1
  cols <- c("firebrick", "steelblue", "grey45", "black")
  old <- graphics::par(mar = c(4.5, 6.5, 3, 1))
  on.exit(graphics::par(old))
  graphics::plot(NA, xlim = c(0, 1), ylim = c(0.5, 4.5), yaxt = "n", xlab = "share of successes / risk",
                 ylab = "", main = sprintf("%s\nrisk %s", attack_title(x),
                                           if (is.na(x$risk$value)) "NA" else
                                             format_num(x$risk$value, 3)),
                 cex.main = 0.9, ...)
  graphics::axis(2, at = at, labels = c("attack", "control", "baseline", "risk"), las = 1)
  graphics::abline(h = 1.5, col = "grey80", lty = 2)
  ok <- !is.na(est)
  graphics::segments(lo[ok], at[ok], hi[ok], at[ok], col = cols[ok], lwd = 2)
  graphics::points(est[ok], at[ok], pch = c(19, 19, 1, 18)[ok], col = cols[ok], cex = 1.4)
  # the figures above each interval (rates near 0 are otherwise hard to read)
  right <- est[ok] > 0.6
  labels <- sprintf("%s [%s, %s]", format_num(est[ok]), format_num(lo[ok]), format_num(hi[ok]))
  for (side in c(FALSE, TRUE)) {
    at_side <- right == side
    if (any(at_side))
      graphics::text(est[ok][at_side], at[ok][at_side] + 0.28, labels[at_side], cex = 0.75,
                     col = cols[ok][at_side], adj = if (side) 1 else 0)
  }
  invisible(tab)
}

# ---- the attacks as risk criteria ----------------------------------------------------
# singling_out(), linkability() and inference() (R/risk-criterion-*.R) share
# their fields and their evaluation: the attack run on the release as
# delivered against the original, its risk the value, its interval the
# interval, and the bound compared with the interval's upper end (the
# default: "risk upper bound under X") or with the point.

new_attack_criterion <- function(name, ..., what, max, against, control, seed, options,
                                 columns, explanation) {
  max <- if (is.null(max) || (is.atomic(max) && length(max) == 1L && is.na(max))) NA_real_ else
    check_number(max, "max", lower = 0, upper = 1)
  against <- check_choice(against, c("upper", "point"))
  options <- check_attack_options(options)
  seed <- check_attack_seed(seed)
  # fixed now, so that every release the criterion judges is attacked alike
  if (is.null(seed)) seed <- sample.int(.Machine$integer.max, 1L)
  if (!is.null(control) && !(is.data.frame(control) || (is.numeric(control) && is.null(dim(control)))))
    abort_type("control", "NULL, row numbers of the original, or a data frame of held-out records")
  label <- if (is.na(max)) what else
    sprintf("%s, risk %s <= %s", what, if (against == "upper") "upper bound" else "estimate",
            format(max))
  new_risk_criterion(name, ..., against = against, control = control, seed = seed,
                     options = options, label = label, bound = max, monotone = FALSE,
                     columns = columns, explanation = explanation)
}

# Run the attack `run(original, release, control, id)` for a criterion; a
# release the attack cannot judge (no control to be had, columns coded
# otherwise than in the original) does not apply, with the reason. A
# generalized release (the verbs pass `generalize`, the release's coding of
# the keys, and `rows`, the original rows it holds, in order; a deidentify()
# release carries both) is judged against the original at the release's
# levels, restricted to the released rows (methods vignette, 28.7).
attack_criterion_result <- function(criterion, release, original, id, run, generalize = NULL,
                                    rows = NULL) {
  if (is.null(original))
    abort_value("original", "the original data (the attacks compare the release with it)")
  judged <- attack_judged(release, original, criterion$control, generalize, rows, id)
  res <- tryCatch(run(judged$original, judged$release, judged$control, id),
                  epimask_error_attack_control = function(e) e,
                  epimask_error_attack_coding = function(e) e)
  if (inherits(res, "error"))
    # the condition kept: a caller can tell a missing control from the rest
    return(criterion_not_applicable(criterion, conditionMessage(res), detail = res))
  unit <- res$unit
  result <- new_criterion_result(
    criterion, res$risk$value, detail = res,
    interval = if (!anyNA(res$risk$interval)) res$risk$interval,
    note = paste0(sprintf("attack %s, control %s, baseline %s (%d %s); %s",
                   format_num(res$attack$rate), format_num(res$control$rate),
                   format_num(res$baseline$rate), res$attack$n, res$trial_name,
                   if (is.na(res$risk$value)) "the control always succeeds: no leak measurable"
                   else if (is.na(criterion$bound)) "reported, no bound"
                   else if (criterion$against == "upper") "the bound is compared with the upper end"
                   else "the bound is compared with the estimate"),
                  judged$note),
    unit = unit)
  if (criterion$against == "upper" && !is.na(result$value))
    result$pass <- criterion_passes(criterion, res$risk$interval[[2L]])
  result
}

# What an attack criterion compares (methods vignette, 28.7): the release's
# records, and the original (and a control given as records) in the coding
# the intruder reads the release with. An intruder who knows a person's
# values recodes them to the release's levels (age 37 is looked up as
# "35-39"), so the original is generalized as the release is; the records
# a generalized release withholds are not attacked (`rows`: the original
# rows the release holds, in order; a control given as row numbers of the
# original must be released rows).
attack_judged <- function(release, original, control, generalize, rows, id = NULL) {
  if (inherits(release, "epimask_release")) {
    generalize <- generalize %||% release_generalizer(release)
    rows <- rows %||% release$released_rows
    release <- release$data
  }
  note <- NULL
  if (!is.null(generalize) && is.data.frame(original)) {
    original <- generalize(original)
    if (is.data.frame(control)) control <- generalize(control)
    note <- "; the original in the release's coding (keys at the release's levels)"
  }
  if (!is.null(rows) && is.data.frame(original) && !is_synthetic(release)) {
    n <- nrow(original)
    if (!is.numeric(rows) || anyNA(rows) || any(rows < 1 | rows > n) ||
        length(rows) != NROW(release))
      abort_value("rows", sprintf("the rows of `original` the release holds (%d of 1 to %d)",
                                  NROW(release), n))
    withheld <- n - length(rows)
    # the person column the verb counts by, on the released rows only (the
    # certificate of deidentify(): the persons' original ids, not released)
    person_of_release <- !is.null(id) && !id %in% names(original) && id %in% names(release)
    if (withheld > 0L || person_of_release) {
      original <- original[rows, , drop = FALSE]
      if (person_of_release) original[[id]] <- release[[id]]
      if (is.numeric(control) && is.null(dim(control))) {
        at <- match(control, rows)
        if (anyNA(at))
          abort_value("control", "row numbers of released records (the release withholds others)")
        control <- at
      }
      if (withheld > 0L)
        note <- paste0(note, sprintf("; the %d withheld record%s not attacked (not released)",
                                     withheld, if (withheld == 1L) "" else "s"))
    }
  }
  list(original = original, release = release, control = control, note = note)
}

# The coding of a deidentify() release's keys, as a function of a data frame
# (the keys at the levels of its generalization).
release_generalizer <- function(release) {
  gen <- release$generalization
  if (is.null(gen$levels) || is.null(gen$structure$hierarchies)) return(NULL)
  keys <- names(gen$levels)
  function(df) generalize_frame(df, keys, gen$structure$hierarchies, gen$levels)
}
