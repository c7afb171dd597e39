# The release of a synthesis: class epimask_synthetic, the m synthetic copies
# (a list of data frames) with what an analyst needs to combine analyses of
# them (the rules, the sizes, which columns were synthesised) and what the
# custodian's attacks need (the row numbers of the holdout). Never the
# models, the seed, or an original value beyond the kept columns.

#' A synthetic release: m copies with the rules to combine them
#'
#' What [apply_mask()] returns for a [mask_synth()] scheme: a list of the
#' `m` synthetic data frames (`x[[j]]` is copy `j`, `length(x)` is `m`;
#' `lapply(x, ...)` runs an analysis on each) of class `epimask_synthetic`,
#' with the attribute `"synthesis"`, a list of:
#' \describe{
#'   \item{`scheme`, `method`, `minbucket`, `smooth`, `proper`}{how the copies
#'     were made (as [mask_synth()]'s arguments; `proper`: parameters drawn
#'     per copy, which the combining rules need).}
#'   \item{`m`, `n`, `k`}{the number of copies, the number of original
#'     records synthesised from (without the holdout) and the number of
#'     records of each copy (with persons, `k` may differ from `n`).}
#'   \item{`rules`}{the combining rules stated (`"auto"`, `"simple"`,
#'     `"partial"`, `"full"`; see [combine_synthetic()]).}
#'   \item{`partial`, `synthesised`, `kept`, `methods`}{whether columns were
#'     kept as they were (partially synthetic), the synthesised columns in
#'     visit order, the kept columns, and the model each synthesised column
#'     was drawn from (`"cart"`, `"parametric"`, `"sample"`, `"sample (first
#'     column)"`, or a fallback: `"constant"`, `"all NA"`, `"sample (too many
#'     levels)"`).}
#'   \item{`id`, `person_level`}{the person column (replaced by new labels in
#'     the copies) and the columns synthesised once per person.}
#'   \item{`holdout`}{the row numbers, in the original data, of the records
#'     left out of the synthesis (1-based, increasing; `integer(0)` without a
#'     holdout): the control set of an attack on the release. Indices only:
#'     no value of these records is in the release. [holdout_rows()] returns
#'     them.}
#'   \item{`original_records`, `redrawn`}{per copy, the records left equal to
#'     an original record (see [mask_synth()]) and the records drawn again
#'     so as not to be.}
#' }
#' The copies are what a custodian releases, with the rules (a data frame
#' carries nothing of the synthesis); the object itself is the custodian's.
#'
#' `x$copies` is the list of the copies and `x$holdout` (any field of the
#' record likewise) the field, as the attacks read a synthetic release.
#'
#' Methods: `print()`, `format()`, `summary()` (per column: its role and
#' model, and with `original` given, how far the copies' distributions are
#' from the original's), `as.data.frame()` (the copies stacked, with a first
#' column `.copy`), [tidy()][epimask-tidiers] (the summary table),
#' [glance()][epimask-tidiers] (one row), `plot()` (the distributions of the
#' copies beside the original's) and `[` (a subset of the copies).
#'
#' @param x,object An `epimask_synthetic` release.
#' @param original `NULL` or the original data, to compare with.
#' @param vars For `plot()`, the columns to show (default the synthesised
#'   ones, at most 12).
#' @param i Copies to keep.
#' @param n Rows of the first copy to print.
#' @param row.names,optional As for [as.data.frame()].
#' @param ... Unused (`plot()`: passed to [graphics::plot()]).
#' @return `summary()`: a data frame of class `summary.epimask_synthetic`,
#'   one row per column of the data: `variable`, `role` (`"synthesised"`,
#'   `"kept"`, `"person id"`), `method`, `type`, and with `original`:
#'   `distance` (for a number or date the Kolmogorov-Smirnov distance, for a
#'   category column the total variation distance \eqn{\frac12\sum|p_o -
#'   p_s|} of the category shares, NA counted as a category; averaged over
#'   the copies) and `missing_original`, `missing_synthetic` (shares of NA).
#' @seealso [mask_synth()], [combine_synthetic()], [fit_synthetic()].
#' @family masking schemes
#' @name epimask_synthetic
#' @examples
#' set.seed(2)
#' d <- data.frame(age = round(runif(200, 20, 80)),
#'                 sex = factor(sample(c("f", "m"), 200, TRUE)))
#' syn <- apply_mask(d, mask_synth(m = 2, holdout = 0.1))
#' syn
#' summary(syn, original = d)
#' holdout_rows(syn)
#' head(as.data.frame(syn))
#' glance(syn)
#' plot(syn, original = d)
NULL

new_synthetic <- function(copies, info) {
  structure(copies, class = "epimask_synthetic", synthesis = info)
}

is_synthetic <- function(x) inherits(x, "epimask_synthetic")

# The synthesis record of a release, checked.
synthetic_info <- function(x, arg = "x") {
  info <- attr(x, "synthesis", exact = TRUE)
  if (!is_synthetic(x) || !is.list(info) || is.null(info$m) || length(unclass(x)) != info$m)
    abort_type(arg, "a synthetic release from apply_mask(data, mask_synth())")
  info
}

#' The holdout of a synthetic release
#'
#' The row numbers, in the original data, of the records [mask_synth()] left
#' out of the synthesis (its `holdout` share): the control set an attack on
#' the release compares with. Indices only; `integer(0)` without a holdout.
#' @param x A synthetic release ([epimask_synthetic]).
#' @return An increasing integer vector of row numbers (1-based).
#' @family masking schemes
#' @examples
#' d <- data.frame(x = rnorm(50), g = factor(sample(letters[1:3], 50, TRUE)))
#' holdout_rows(apply_mask(d, mask_synth(m = 1, holdout = 0.2)))
#' @export
holdout_rows <- function(x) synthetic_info(x)$holdout

#' @rdname epimask_synthetic
#' @param name For `$`: `"copies"` (the list of the `m` data frames) or a
#'   field of the synthesis record (`holdout`, `m`, `rules`, ...), the
#'   convention the attacks (`risk_singling_out()` and its kin) read.
#' @export
`$.epimask_synthetic` <- function(x, name) {
  # a list of named fields made by hand (list(copies = , holdout = )): its field
  if (is.null(attr(x, "synthesis", exact = TRUE))) return(.subset2(x, name, exact = FALSE))
  if (identical(name, "copies")) {
    out <- unclass(x)
    attr(out, "synthesis") <- NULL
    return(out)
  }
  attr(x, "synthesis", exact = TRUE)[[name]]
}

#' @rdname epimask_synthetic
#' @export
`[.epimask_synthetic` <- function(x, i) {
  info <- synthetic_info(x)
  keep <- seq_len(info$m)[i]
  if (!length(keep) || anyNA(keep)) abort_value("i", sprintf("copies among the %d of the release", info$m))
  for (f in c("k", "original_records", "redrawn")) info[[f]] <- info[[f]][keep]
  info$m <- length(keep)
  new_synthetic(unclass(x)[keep], info)
}

# The rule an analysis of the release uses: "auto" is the simplified rules
# for a fully synthetic release, Reiter's for a partially synthetic one.
synthetic_rule <- function(info) {
  if (!identical(info$rules, "auto")) return(info$rules)
  if (isTRUE(info$partial)) "partial" else "simple"
}

rule_text <- function(rule, proper, m) {
  switch(rule,
         simple = sprintf(paste("simplified rules of Raab, Nowok & Dibben (2016): mean of the",
                                "copies' estimates, variance %s x mean variance"),
                          if (proper) "(k/n)(1 + (n/k + 1)/m)" else "(k/n)(1 + n/(k m))"),
         partial = "Reiter (2003) partially synthetic: mean, variance b/m + mean variance, t(df)",
         full = paste("Raghunathan, Reiter & Rubin (2003) fully synthetic: mean,",
                      "variance (1 + 1/m) b - mean variance, t(df)"))
}

#' @rdname epimask_synthetic
#' @export
format.epimask_synthetic <- function(x, n = 5L, ...) {
  info <- synthetic_info(x)
  n <- check_count(n, "n", lower = 0L)
  k <- info$k
  rule <- synthetic_rule(info)
  lines <- c(
    sprintf("<synthetic release> %d cop%s of %s records, %s synthetic, from %s original records",
            info$m, if (info$m == 1L) "y" else "ies",
            if (length(unique(k)) == 1L) format(k[[1L]], big.mark = ",")
            else paste(range(k), collapse = "-"),
            if (info$partial) "partially" else "fully", format(info$n, big.mark = ",")),
    sprintf("  %s", info$scheme),
    sprintf("  synthesised (in order): %s", paste(sprintf("%s [%s]", info$synthesised,
                                                          info$methods), collapse = ", ")),
    if (length(info$kept)) sprintf("  kept as they were: %s", paste(info$kept, collapse = ", ")),
    if (!is.null(info$id)) sprintf("  persons by '%s' (new labels); person-level: %s", info$id,
                                   if (length(info$person_level)) paste(info$person_level, collapse = ", ") else "none"),
    sprintf("  combine analyses by the %s", rule_text(rule, info$proper, info$m)),
    if (length(info$holdout)) sprintf("  holdout: %d original records left out (holdout_rows())",
                                      length(info$holdout)),
    if (any(info$original_records > 0))
      sprintf("  records equal to an original record, per copy: %s",
              paste(info$original_records, collapse = ", ")))
  if (n > 0L && info$m > 0L) {
    first <- utils::head(as.data.frame(unclass(x)[[1L]]), n)
    lines <- c(lines, "Copy 1:", utils::capture.output(print(first, row.names = FALSE)))
  }
  lines
}

#' @rdname epimask_synthetic
#' @export
print.epimask_synthetic <- function(x, ...) print_formatted(x, ...)

#' @rdname epimask_synthetic
#' @export
summary.epimask_synthetic <- function(object, original = NULL, ...) {
  info <- synthetic_info(object, "object")
  copies <- unclass(object)
  cols <- names(copies[[1L]])
  if (!is.null(original)) {
    original <- as_plain_data(check_data(original, "original"))
    check_columns(setdiff(cols, info$id), original, "the release's columns", "original")
  }
  rows <- lapply(cols, function(v) {
    role <- if (identical(v, info$id)) "person id" else if (v %in% info$synthesised) "synthesised" else "kept"
    method <- if (role == "synthesised") info$methods[[v]] else NA_character_
    x <- copies[[1L]][[v]]
    out <- data.frame(variable = v, role = role, method = method,
                      type = class(x)[[1L]], stringsAsFactors = FALSE)
    if (!is.null(original) && role != "person id") {
      o <- original[[v]]
      out$distance <- mean(vapply(copies, function(cp) column_distance(o, cp[[v]]), numeric(1)))
      out$missing_original <- mean(is.na(o))
      out$missing_synthetic <- mean(vapply(copies, function(cp) mean(is.na(cp[[v]])), numeric(1)))
    } else if (!is.null(original)) {
      out$distance <- out$missing_original <- out$missing_synthetic <- NA_real_
    }
    out
  })
  structure(do.call(rbind, rows), class = c("summary.epimask_synthetic", "data.frame"),
            header = format(object, n = 0L), compared = !is.null(original))
}

# How far a copy's column is from the original's: KS for numbers and dates,
# total variation of the category shares (NA a category) otherwise.
column_distance <- function(o, s) {
  if ((is.numeric(o) || inherits(o, c("Date", "POSIXct"))) && !is.factor(o))
    return(ks_distance(as.double(o), as.double(s)))
  a <- ifelse(is.na(o), "\u0001NA", as.character(o))
  b <- ifelse(is.na(s), "\u0001NA", as.character(s))
  lv <- union(a, b)
  0.5 * sum(abs(tabulate(match(a, lv), length(lv)) / length(a) -
                  tabulate(match(b, lv), length(lv)) / length(b)))
}

#' @export
format.summary.epimask_synthetic <- function(x, digits = 3, ...) {
  tab <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  attr(tab, "header") <- attr(tab, "compared") <- NULL
  for (col in intersect(c("distance", "missing_original", "missing_synthetic"), names(tab)))
    tab[[col]] <- format_num(tab[[col]], digits)
  tab$method[is.na(tab$method)] <- ""
  c(attr(x, "header"), utils::capture.output(print(tab, row.names = FALSE, right = FALSE)),
    if (isTRUE(attr(x, "compared")))
      "distance: KS (numbers, dates) or total variation of the shares (categories), mean over the copies")
}

#' @export
print.summary.epimask_synthetic <- function(x, ...) print_formatted(x, ...)

#' @rdname epimask_synthetic
#' @export
as.data.frame.epimask_synthetic <- function(x, row.names = NULL, optional = FALSE, ...) {
  synthetic_info(x)
  copies <- lapply(unclass(x), as.data.frame, stringsAsFactors = FALSE)
  out <- do.call(rbind, lapply(seq_along(copies), function(j)
    cbind(data.frame(.copy = rep(j, nrow(copies[[j]]))), copies[[j]])))
  apply_row_names(out, row.names, optional)
}

#' @rdname epimask-tidiers
#' @export
tidy.epimask_synthetic <- function(x, ...) {
  out <- summary(x, ...)
  attr(out, "header") <- attr(out, "compared") <- NULL
  class(out) <- "data.frame"
  out
}

#' @rdname epimask-tidiers
#' @export
glance.epimask_synthetic <- function(x, ...) {
  info <- synthetic_info(x)
  data.frame(m = info$m, n = info$n, k = mean(info$k), method = info$method,
             partial = info$partial, rules = synthetic_rule(info), proper = info$proper,
             synthesised = length(info$synthesised), kept = length(info$kept),
             holdout = length(info$holdout), original_records = sum(info$original_records),
             stringsAsFactors = FALSE)
}

#' @rdname epimask_synthetic
#' @export
plot.epimask_synthetic <- function(x, original = NULL, vars = NULL, ...) {
  info <- synthetic_info(x)
  copies <- unclass(x)
  vars <- if (is.null(vars)) utils::head(info$synthesised, 12L)
          else check_columns(vars, copies[[1L]], "vars", "the copies")
  if (!is.null(original)) original <- as_plain_data(check_data(original, "original"))
  k <- length(vars)
  cols <- ceiling(sqrt(k))
  old <- graphics::par(mfrow = c(ceiling(k / cols), cols), mar = c(3, 3, 2, 1), mgp = c(1.8, 0.6, 0))
  on.exit(graphics::par(old), add = TRUE)
  for (v in vars) plot_synthetic_column(v, lapply(copies, `[[`, v),
                                        if (!is.null(original)) original[[v]], ...)
  graphics::par(old)
  on.exit()
  invisible(x)
}

# One panel: densities (numbers, dates) or category shares, the copies in
# colour, the original in black.
plot_synthetic_column <- function(v, cols, o, ...) {
  syn_col <- grDevices::adjustcolor("#1f77b4", alpha.f = 0.6)
  first <- cols[[1L]]
  if ((is.numeric(first) || inherits(first, c("Date", "POSIXct"))) && !is.factor(first)) {
    dens <- lapply(c(list(o), cols), function(z) {
      z <- as.double(z)
      z <- z[!is.na(z)]
      if (length(unique(z)) > 1L) stats::density(z) else NULL
    })
    ok <- !vapply(dens, is.null, logical(1))
    if (!any(ok)) {
      graphics::plot.new()
      graphics::title(v)
      return(invisible())
    }
    xr <- range(unlist(lapply(dens[ok], `[[`, "x")))
    yr <- c(0, max(unlist(lapply(dens[ok], `[[`, "y"))))
    graphics::plot(NA, xlim = xr, ylim = yr, xlab = v, ylab = "density", main = v, ...)
    for (d in dens[-1L][ok[-1L]]) graphics::lines(d, col = syn_col)
    if (ok[[1L]]) graphics::lines(dens[[1L]], lwd = 2)
    return(invisible())
  }
  lab <- function(z) ifelse(is.na(z), "NA", as.character(z))
  lv <- unique(c(if (!is.null(o)) lab(o), unlist(lapply(cols, lab))))
  share <- function(z) tabulate(match(lab(z), lv), length(lv)) / length(z)
  syn <- rowMeans(vapply(cols, share, numeric(length(lv))))
  m <- rbind(original = if (!is.null(o)) share(o), synthetic = syn)
  colnames(m) <- lv
  graphics::barplot(m, beside = TRUE, col = c(if (!is.null(o)) "grey30", syn_col), main = v,
                    ylab = "share", las = 2, cex.names = 0.7, ylim = c(0, 1.35 * max(m)),
                    legend.text = if (!is.null(o)) c("original", "synthetic (mean)"),
                    args.legend = list(bty = "n", cex = 0.7))
  invisible()
}

# The copies of a release and the original records they were synthesised
# from (the holdout left out), for the risk criteria that compare them; a
# plain data frame is a release of one copy. A generalized release (the
# verbs pass `generalize` and `rows`; a deidentify() release carries them)
# is compared with the original at its levels, on the rows it holds: the
# intruder looks a person's keys up in the release's coding.
release_copies_and_original <- function(release, original, arg = "original", generalize = NULL,
                                        rows = NULL) {
  if (is.null(original)) abort_type(arg, "the original data the release was made from")
  if (inherits(release, "epimask_release")) {
    generalize <- generalize %||% release_generalizer(release)
    rows <- rows %||% release$released_rows
    release <- release$data
  }
  original <- as_plain_data(check_data(original, arg))
  if (!is_synthetic(release)) {
    release <- as_plain_data(check_data(release, "release"))
    if (!is.null(generalize)) original <- as_plain_data(generalize(original))
    if (!is.null(rows) && length(rows) == nrow(release)) original <- original[rows, , drop = FALSE]
    return(list(copies = list(release), original = original, holdout = 0L))
  }
  info <- synthetic_info(release, "release")
  expected <- info$n + length(info$holdout)
  if (nrow(original) != expected)
    abort_length(arg, sprintf("be the data the release was synthesised from (%d records, not %d)",
                              expected, nrow(original)))
  if (length(info$holdout)) original <- original[-info$holdout, , drop = FALSE]
  list(copies = lapply(unclass(release), as_plain_data), original = original,
       holdout = length(info$holdout))
}

# Group numbers of the key combinations of the original records and of a
# copy in one code space: `orig`, `copy` (1-based), `n` groups.
shared_key_groups <- function(original, copy, keys) {
  codes <- key_codes(original, keys, other = copy)
  g <- call_c(C_freq_group, list(codes = rbind(codes[[1L]], codes[[2L]])), arg = "keys")$group
  no <- nrow(original)
  list(orig = g[seq_len(no)], copy = g[no + seq_len(nrow(copy))], n = max(g))
}

check_criterion_keys <- function(keys, original, release_cols, what) {
  if (is.null(keys)) abort_value("keys", sprintf("the keys %s counts over", what))
  check_columns(keys, original, "keys", "original")
  missing <- setdiff(keys, release_cols)
  if (length(missing)) abort_name("keys", missing, "the release")
  keys
}
