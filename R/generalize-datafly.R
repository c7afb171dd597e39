# Datafly generalization (Sweeney 1997; METHODS 8): generalize the key with the
# most distinct values one level at a time until few enough records sit in
# equivalence classes smaller than k, then suppress those records.

#' Datafly generalization to k-anonymity
#'
#' Sweeney's Datafly algorithm. While some combination of the keys occurs fewer
#' than `k` times and more than `max_suppress` of the records are in such
#' combinations, the key with the most distinct values (in the current,
#' generalized data) is generalized one level up its hierarchy; ties go to the
#' key whose step leaves the smaller discernability, then to the later key in
#' `keys`. The records still in classes smaller than `k` are then suppressed
#' (dropped). Keys at the top of their hierarchy are not generalized further.
#'
#' One-to-one identifiers named in `id` (e.g. a record number or social
#' security number) are replaced by random 9-digit pseudonyms, the same
#' pseudonym for every record sharing an identifier value, never equal to an
#' original value; `NA` stays `NA`. There is no silent automatic detection of
#' identifiers, since measurements are often all distinct too, but a warning of
#' class `epimask_warning_identifier` names every character or factor column
#' outside `keys` and `id` whose values are all distinct.
#'
#' @param data A data frame (tibble and data.table accepted).
#' @param keys Character vector: the quasi-identifier columns.
#' @param hierarchies A named list with one element per key: a hierarchy from
#'   [hierarchy_date()], [hierarchy_zip()], [hierarchy_numeric()],
#'   [hierarchy_category()], or a list of functions / lookup tables from level
#'   0 (the original values) up, as accepted by [as_hierarchy()]. A final level
#'   replacing every value by `"*"` is appended when the top level given does
#'   not reduce the key to a single value.
#' @param k Minimum equivalence-class size (minimum bin size), a whole number
#'   of at least 1.
#' @param max_suppress Largest share of the records that may be suppressed, in
#'   the interval from 0 to 1.
#' @param id `NULL` or the names of one-to-one identifier columns to replace by
#'   pseudonyms.
#' @return An object of class `epimask_datafly`, a list with
#'   \item{data}{the release: the records kept, in their original order, with
#'     the keys generalized and the `id` columns pseudonymized; same class as
#'     `data`.}
#'   \item{levels}{named integer: the level chosen for each key.}
#'   \item{level_labels}{named character: the label of that level.}
#'   \item{suppressed}{row numbers (in `data`) of the suppressed records.}
#'   \item{class_sizes}{sizes of the equivalence classes of the release.}
#'   \item{discernability}{\eqn{\sum f_j^2} over released classes plus
#'     \eqn{n} per suppressed record.}
#'   \item{steps}{one row per generalization step: the key, its new level, its
#'     number of distinct values before the step and the number of records in
#'     classes smaller than `k` before the step.}
#'   and `n`, `n_suppressed`, `keys`, `k`, `max_suppress`.
#' @references Sweeney L (1997). Computational disclosure control for medical
#'   microdata: the Datafly system. Sweeney L (2002). Achieving k-anonymity
#'   privacy protection using generalization and suppression.
#' @seealso [risk_kanon()] to measure the risk of the release.
#' @examples
#' set.seed(1)
#' people <- data.frame(
#'   record = sprintf("R%03d", 1:200),
#'   birth = as.Date("1950-01-01") + sample(0:9000, 200, TRUE),
#'   sex = sample(c("f", "m"), 200, TRUE),
#'   zip = sample(c("02138", "02139", "02141", "02142"), 200, TRUE))
#' rel <- datafly(people, c("birth", "sex", "zip"),
#'                list(birth = hierarchy_date(), sex = list(identity),
#'                     zip = hierarchy_zip()),
#'                k = 5, id = "record")
#' rel
#' head(rel$data)
#' plot(rel)
#' @export
datafly <- function(data, keys, hierarchies, k = 5, max_suppress = 0.05,
                    id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  k <- check_count(k)
  max_suppress <- check_number(max_suppress, lower = 0, upper = 1)
  id <- check_columns(id, data, allow_null = TRUE)
  if (length(intersect(id, keys)))
    abort_value("id", "identifier columns that are not also `keys`")
  hierarchies <- check_hierarchies(hierarchies, keys, data)
  warn_possible_identifiers(data, c(keys, id))

  n <- nrow(data)
  top <- vapply(hierarchies, function(h) length(h$levels) - 1L, integer(1))
  level <- stats::setNames(integer(length(keys)), keys)
  current <- stats::setNames(lapply(keys, function(key) data[[key]]), keys)
  steps <- list()

  repeat {
    size <- key_groups(current, keys)$size
    in_small <- sum(size[size < k])
    if (in_small <= max_suppress * n) break
    open <- keys[level < top]
    if (!length(open)) break
    chosen <- choose_key(open, current, keys, hierarchies, level, data, k, n)
    steps[[length(steps) + 1L]] <- data.frame(
      key = chosen, level = level[[chosen]] + 1L,
      distinct = n_distinct(current[[chosen]]), in_small_classes = in_small,
      stringsAsFactors = FALSE)
    level[[chosen]] <- level[[chosen]] + 1L
    current[[chosen]] <- apply_level(hierarchies[[chosen]], data[[chosen]],
                                     level[[chosen]])
  }

  ec <- key_groups(current, keys)
  record_size <- ec$size[ec$group]
  suppressed <- which(record_size < k)
  kept <- record_size >= k
  if (!any(kept))
    epimask_warn(sprintf("Datafly suppressed all %d records (k = %d).", n, k),
                 "epimask_warning_suppressed")
  release <- build_release(data, current, keys, id, kept)
  kept_sizes <- ec$size[ec$size >= k]

  structure(list(
    data = release,
    levels = level,
    level_labels = vapply(keys, function(key)
      hierarchies[[key]]$labels[[level[[key]] + 1L]], ""),
    suppressed = suppressed,
    n_suppressed = length(suppressed),
    class_sizes = kept_sizes,
    discernability = sum(as.double(kept_sizes)^2) + as.double(n) * length(suppressed),
    steps = if (length(steps)) do.call(rbind, steps) else
      data.frame(key = character(), level = integer(), distinct = integer(),
                 in_small_classes = integer()),
    n = n, keys = keys, k = k, max_suppress = max_suppress
  ), class = "epimask_datafly")
}

n_distinct <- function(x) length(unique(x))

# The key to generalize: most distinct values; ties to the smaller
# discernability after the step, then to the later key.
choose_key <- function(open, current, keys, hierarchies, level, data, k, n) {
  distinct <- vapply(open, function(key) n_distinct(current[[key]]), integer(1))
  tied <- open[distinct == max(distinct)]
  if (length(tied) > 1L) {
    dm <- vapply(tied, function(key) {
      trial <- current
      trial[[key]] <- apply_level(hierarchies[[key]], data[[key]], level[[key]] + 1L)
      discernability(key_groups(trial, keys)$size, k, n)
    }, numeric(1))
    tied <- tied[dm == min(dm)]
  }
  tied[[length(tied)]]
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
    if (n_distinct(apply_level(h, data[[key]], top)) > 1L) {
      h$levels <- c(h$levels, list(suppress_all))
      h$labels <- c(h$labels, "*")
    }
    h
  })
  names(out) <- keys
  out
}

warn_possible_identifiers <- function(data, known) {
  others <- setdiff(names(data), known)
  if (nrow(data) < 2L) return(invisible())
  looks_like_id <- vapply(others, function(col) {
    x <- data[[col]]
    (is.character(x) || is.factor(x)) && !anyDuplicated(x)
  }, logical(1))
  if (any(looks_like_id))
    epimask_warn(sprintf(paste0(
      "Column(s) %s have a distinct value on every record and may identify ",
      "people; name them in `id` to replace them by pseudonyms."),
      paste0("'", others[looks_like_id], "'", collapse = ", ")),
      "epimask_warning_identifier")
  invisible()
}

build_release <- function(data, current, keys, id, kept) {
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  for (key in keys) out[[key]] <- current[[key]]
  for (col in id) out[[col]] <- pseudonymize(out[[col]])
  out <- out[kept, , drop = FALSE]
  rownames(out) <- NULL
  restore_frame_class(out, data)
}

restore_frame_class <- function(out, like) {
  if (inherits(like, "data.table") && requireNamespace("data.table", quietly = TRUE))
    return(data.table::as.data.table(out))
  if (inherits(like, "tbl_df") && requireNamespace("tibble", quietly = TRUE))
    return(tibble::as_tibble(out))
  out
}

# One random 9-digit pseudonym per distinct identifier value; none equals an
# original value.
pseudonymize <- function(x) {
  values <- unique(x[!is.na(x)])
  codes <- random_codes(length(values), avoid = as.character(values))
  out <- codes[match(x, values)]
  out[is.na(x)] <- NA_character_
  out
}

random_codes <- function(m, avoid) {
  codes <- sprintf("%09d", sample.int(900000000L, m) + 99999999L)
  clash <- codes %in% avoid
  while (any(clash)) {
    fresh <- sprintf("%09d", sample.int(900000000L, sum(clash)) + 99999999L)
    codes[clash] <- fresh
    clash <- codes %in% avoid | duplicated(codes)
  }
  codes
}

#' @rdname datafly
#' @param x,object An `epimask_datafly` object.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` lists the level chosen per key, the generalization
#'   steps and the distribution of EC sizes; `plot()` draws a bar chart of the
#'   EC sizes of the release, counting classes or records (`what`).
#' @export
print.epimask_datafly <- function(x, ...) {
  cat(sprintf("Datafly release (k = %d, at most %s%% suppressed): %d of %d records kept, %d suppressed\n",
              x$k, format(100 * x$max_suppress), x$n - x$n_suppressed, x$n,
              x$n_suppressed))
  cat("  levels: ", paste(sprintf("%s %d (%s)", x$keys, x$levels, x$level_labels),
                          collapse = ", "), "\n", sep = "")
  if (length(x$class_sizes))
    cat(sprintf("  %d equivalence classes, sizes %d to %d; discernability %s\n",
                length(x$class_sizes), min(x$class_sizes), max(x$class_sizes),
                format(x$discernability, big.mark = ",")))
  invisible(x)
}

#' @rdname datafly
#' @export
summary.epimask_datafly <- function(object, ...) {
  structure(list(
    datafly = object,
    levels = data.frame(key = object$keys, level = unname(object$levels),
                        label = unname(object$level_labels),
                        stringsAsFactors = FALSE),
    steps = object$steps,
    class_sizes = table(size = object$class_sizes)),
    class = "summary.epimask_datafly")
}

#' @rdname datafly
#' @export
print.summary.epimask_datafly <- function(x, ...) {
  print(x$datafly)
  cat("\nLevels chosen:\n")
  print(x$levels, row.names = FALSE)
  cat("\nGeneralization steps:\n")
  if (nrow(x$steps)) print(x$steps, row.names = FALSE) else cat("  none\n")
  cat("\nEquivalence class sizes (number of classes):\n")
  print(x$class_sizes)
  invisible(x)
}

#' @rdname datafly
#' @param y Unused.
#' @param what Bar heights: number of `"classes"` or of `"records"` per EC size.
#' @export
plot.epimask_datafly <- function(x, y = NULL, what = c("classes", "records"), ...) {
  what <- check_choice(what, c("classes", "records"))
  if (!length(x$class_sizes))
    epimask_abort("Nothing to plot: every record was suppressed.",
                  "epimask_error_empty", arg = "x")
  class_size_barplot(x$class_sizes, x$k, what,
                     main = "Equivalence class sizes after Datafly", ...)
}
