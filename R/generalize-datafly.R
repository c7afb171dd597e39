# Datafly generalization (Sweeney 1997; methods vignette section 8): generalize the key with the
# most distinct values one level at a time until few enough records sit in
# equivalence classes smaller than k, then suppress those records.

#' Datafly generalization to k-anonymity
#'
#' Sweeney's Datafly algorithm. While some combination of the keys occurs fewer
#' than `k` times and more than `max_suppress` of the records are in such
#' combinations, the key with the most distinct values (in the current,
#' generalized data) is generalized one level up its hierarchy; ties go to the
#' key whose step leaves the smaller discernibility, then to the later key in
#' `keys`. The records still in classes smaller than `k` are then suppressed
#' (dropped). Keys at the top of their hierarchy are not generalized further.
#'
#' One-to-one identifiers named in `id` (e.g. a record number or social
#' security number) are replaced by keyed pseudonyms: the first 16 hexadecimal
#' digits of the HMAC-SHA-256 of the value under the custodian's `secret`
#' (RFC 2104), the same pseudonym for every record sharing an identifier value;
#' `NA` stays `NA`. Under one secret the pseudonyms are the same in every
#' release (so releases can be linked by the custodian); without a secret a
#' fresh one is drawn from the operating system's random source, not from R's
#' random number generator, so that nobody can regenerate them with
#' `set.seed()`. The secret is never stored in the result. There is no silent
#' automatic detection of identifiers, since measurements are often all
#' distinct too, but a warning of class `epimask_warning_identifier` names
#' every character or factor column outside `keys` and `id` whose values are
#' all distinct.
#'
#' A released column whose values map one-to-one onto those of a key (in the
#' Adult census, `education-num` and `education`) undoes the key's
#' generalization: a warning of class `epimask_warning_proxy` names both when
#' the key was generalized, and `drop_proxies = TRUE` drops such columns from
#' the release instead.
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
#' @param id `NULL` or the names of identifier columns to replace by
#'   pseudonyms. When their values repeat (several records per person: name
#'   the person column), the person is the unit: a person's key is the set of
#'   the key tuples of their records (methods vignette section 23), the classes, `k`,
#'   `max_suppress` (a share of the persons), `class_sizes` and the
#'   discernibility count persons, and a person in a class smaller than `k`
#'   is suppressed with all their records (`suppressed` lists the records;
#'   `n_persons`, `n_persons_suppressed` count persons). The person column
#'   must then have no `NA`. The information losses are those of [ola()]:
#'   of the persons when each person has one combination of key values, else
#'   precision and entropy over the distinct (person, key tuple) pairs (a
#'   suppressed person charged with all of theirs). [ola()] takes persons
#'   with key sets too, with every criterion counting persons (see its
#'   section "Several records per person").
#' @param secret `NULL`, or the custodian's secret key for the pseudonyms (a
#'   string or a raw vector); keep it apart from the release.
#' @param drop_proxies `TRUE` to drop released columns that determine a
#'   generalized key one-to-one (see Details) instead of warning.
#' @section Progress:
#' Each generalization step is signalled through \pkg{progressr} when it is
#' installed: wrap the call in `progressr::with_progress()` to see it.
#' @return An object of class `epimask_datafly`, a list with
#'   \item{data}{the release: the records kept, in their original order, with
#'     the keys generalized and the `id` columns pseudonymized; same class as
#'     `data`.}
#'   \item{levels}{named integer: the level chosen for each key.}
#'   \item{level_labels}{named character: the label of that level.}
#'   \item{suppressed}{row numbers (in `data`) of the suppressed records.}
#'   \item{class_sizes}{sizes of the equivalence classes of the release.}
#'   \item{discernibility}{\eqn{\sum f_j^2} over released classes plus
#'     \eqn{n} per suppressed record. Called `discernability` up to version
#'     0.2.0; that name still works for one more release, with a warning of
#'     class `epimask_warning_deprecated`.}
#'   \item{steps}{one row per generalization step: the key, its new level, its
#'     number of distinct values before the step and the number of records in
#'     classes smaller than `k` before the step.}
#'   \item{info_loss}{the information loss of the release under the four
#'     metrics of [info_loss()].}
#'   \item{proxies}{the column-key pairs flagged as proxies; `dropped` the
#'     columns dropped.}
#'   and `n`, `n_suppressed`, `keys`, `k`, `max_suppress`, `method`.
#' @references Sweeney L (1997). Computational disclosure control for medical
#'   microdata: the Datafly system. Sweeney L (2002). Achieving k-anonymity
#'   privacy protection using generalization and suppression.
#' @seealso [risk_kanon()] to measure the risk of the release; [ola()] for the
#'   generalization of least information loss.
#' @family generalization
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
#'                k = 5, id = "record", secret = "custodian key")
#' rel
#' head(rel$data)
#' plot(rel)
#' @export
datafly <- function(data, keys, hierarchies, k = 5, max_suppress = 0.05,
                    id = NULL, secret = NULL, drop_proxies = FALSE) {
  args <- check_generalize_args(data, keys, hierarchies, max_suppress, id,
                                secret, drop_proxies)
  data <- args$data
  hierarchies <- args$hierarchies
  k <- check_count(k)
  max_suppress <- args$max_suppress
  warn_possible_identifiers(data, c(keys, id))
  proxies <- find_proxies(data, keys, id)

  person <- generalize_persons(data, id)
  # the unit counted: records, or persons when a person has several records
  n <- if (is.null(person)) nrow(data) else max(person)
  class_sizes <- function(cur) {
    if (is.null(person)) key_groups(cur, keys)$size else person_groups(cur, keys, person)$size
  }
  top <- vapply(hierarchies, function(h) length(h$levels) - 1L, integer(1))
  level <- stats::setNames(integer(length(keys)), keys)
  current <- stats::setNames(lapply(keys, function(key) data[[key]]), keys)
  steps <- list()
  # at most one generalization step per level of each key: one tick each
  tick <- search_progressor(max(1L, sum(top)))

  repeat {
    tick()
    size <- class_sizes(current)
    in_small <- sum(size[size < k])
    if (in_small <= max_suppress * n) break
    open <- keys[level < top]
    if (!length(open)) break
    chosen <- choose_key(open, current, keys, hierarchies, level, data, k, n, class_sizes)
    steps[[length(steps) + 1L]] <- data.frame(
      key = chosen, level = level[[chosen]] + 1L,
      distinct = n_distinct(current[[chosen]]), in_small_classes = in_small,
      stringsAsFactors = FALSE)
    level[[chosen]] <- level[[chosen]] + 1L
    current[[chosen]] <- apply_level(hierarchies[[chosen]], data[[chosen]],
                                     level[[chosen]])
  }

  out <- datafly_release(data, keys, hierarchies, level, k, id, args$secret,
                         proxies, drop_proxies, person = person)
  out$max_suppress <- max_suppress
  out$method <- "Datafly"
  out$steps <- if (length(steps)) do.call(rbind, steps) else
    data.frame(key = character(), level = integer(), distinct = integer(),
               in_small_classes = integer())
  structure(out, class = "epimask_datafly")
}

# Datafly's release at the chosen levels: keys generalized, records in
# classes smaller than k dropped, identifiers keyed pseudonyms, proxies of
# generalized keys flagged or dropped, and the four information losses
# (computed here because the release alone no longer holds the original
# values they need; over the persons' key sets with a person column, as
# ola() counts them, generalize-ola-sets.R).
datafly_release <- function(data, keys, hierarchies, level, k, id, secret,
                            proxies, drop_proxies, person = NULL) {
  n <- nrow(data)
  current <- stats::setNames(lapply(keys, function(key)
    apply_level(hierarchies[[key]], data[[key]], level[[key]])), keys)
  if (is.null(person)) {
    ec <- key_groups(current, keys)
    record_size <- ec$size[ec$group]
  } else {
    # classes of persons; a person in a small class is suppressed whole
    ec <- person_groups(current, keys, person)
    record_size <- ec$size[ec$group][person]
  }
  suppressed <- which(record_size < k)
  kept <- record_size >= k
  if (!any(kept))
    epimask_warn(sprintf("Every one of the %d records was suppressed (k = %d).", n, k),
                 "epimask_warning_suppressed")
  undone <- proxies[level[proxies$key] > 0L, , drop = FALSE]
  dropped <- if (drop_proxies) unique(undone$column) else character()
  warn_proxies(undone, drop_proxies)
  release <- build_release(data, current, keys, id, kept, secret)
  release <- release[setdiff(names(release), dropped)]
  rows <- if (!is.null(person)) person_rows(data, keys, person)
  lat <- if (!is.null(person) && is.null(rows)) set_lattice_build(data, keys, hierarchies, person)
         else lattice_build(if (is.null(rows)) data else rows, keys, hierarchies)
  h <- unname(level)
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(keys)))), h)
  losses <- lattice_evaluate(lat, tab, h, search_model(list(k_anonymity(k)), 1),
                             loss_metrics)$loss
  kept_sizes <- ec$size[ec$size >= k]
  unit_n <- if (is.null(person)) n else max(person)
  n_small <- if (is.null(person)) length(suppressed) else sum(ec$size[ec$size < k])
  out <- list(
    data = release,
    levels = level,
    level_labels = vapply(keys, function(key)
      hierarchies[[key]]$labels[[level[[key]] + 1L]], ""),
    suppressed = suppressed,
    n_suppressed = length(suppressed),
    class_sizes = kept_sizes,
    discernibility = sum(as.double(kept_sizes)^2) + as.double(unit_n) * n_small,
    info_loss = losses,
    proxies = undone,
    dropped = dropped,
    n = n, keys = keys, k = k)
  if (!is.null(person)) {
    out$unit <- "persons"
    out$n_persons <- unit_n
    out$n_records <- n
    out$n_persons_suppressed <- n_small
    out$id <- id
  }
  out
}

n_distinct <- function(x) length(unique(x))

# The key to generalize: most distinct values; ties to the smaller
# discernibility after the step, then to the later key.
choose_key <- function(open, current, keys, hierarchies, level, data, k, n,
                       class_sizes = function(cur) key_groups(cur, keys)$size) {
  distinct <- vapply(open, function(key) n_distinct(current[[key]]), integer(1))
  tied <- open[distinct == max(distinct)]
  if (length(tied) > 1L) {
    dm <- vapply(tied, function(key) {
      trial <- current
      trial[[key]] <- apply_level(hierarchies[[key]], data[[key]], level[[key]] + 1L)
      discernibility(class_sizes(trial), k, n)
    }, numeric(1))
    tied <- tied[dm == min(dm)]
  }
  tied[[length(tied)]]
}

#' @rdname datafly
#' @param x,object An `epimask_datafly` object.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` lists the level chosen per key, the generalization
#'   steps and the distribution of EC sizes; `plot()` draws a bar chart of the
#'   EC sizes of the release, counting classes or records (`what`).
#' @export
print.epimask_datafly <- function(x, ...) print_formatted(x, ...)

#' @rdname datafly
#' @export
format.epimask_datafly <- function(x, ...) {
  out <- generalization_lines(x)
  if (length(x$dropped))
    out <- c(out, paste0("  proxies dropped: ", paste(x$dropped, collapse = ", ")))
  out
}

# The lines a Datafly and an OLA release share: records kept and suppressed
# (persons with a person column), the levels, the classes, the losses.
generalization_lines <- function(x) {
  method <- if (is.null(x$method)) "Datafly" else x$method
  out <- sprintf("%s release (k = %d, at most %s%% suppressed): %d of %d records kept, %d suppressed",
                 method, x$k, format(100 * x$max_suppress), x$n - x$n_suppressed,
                 x$n, x$n_suppressed)
  if (identical(x$unit, "persons"))
    out <- c(out, sprintf("  persons (person column '%s'): %d of %d kept, %d suppressed with all their records; classes count persons",
                          paste(x$id, collapse = ", "), x$n_persons - x$n_persons_suppressed,
                          x$n_persons, x$n_persons_suppressed))
  out <- c(out, paste0("  levels: ", paste(sprintf("%s %d (%s)", x$keys, x$levels,
                                                  x$level_labels), collapse = ", ")))
  if (length(x$class_sizes))
    out <- c(out, sprintf("  %d equivalence classes, sizes %d to %d; discernibility %s",
                          length(x$class_sizes), min(x$class_sizes), max(x$class_sizes),
                          format(x$discernibility, big.mark = ",")))
  if (!is.null(x$info_loss))
    out <- c(out, sprintf("  information loss: entropy %s, precision %s, avg class size %s%s",
                          format(signif(x$info_loss[["entropy"]], 6), big.mark = ","),
                          format(signif(x$info_loss[["precision"]], 4)),
                          format(signif(x$info_loss[["avg_class_size"]], 4)),
                          if (!is.null(x$metric)) sprintf(" (%s minimized)", x$metric) else ""))
  out
}

#' @rdname datafly
#' @param row.names,optional Unused (for the generic).
#' @details `as.data.frame()` returns the release (`x$data`) as a plain data
#'   frame.
#' @export
as.data.frame.epimask_datafly <- function(x, row.names = NULL, optional = FALSE, ...) {
  as.data.frame(x$data, stringsAsFactors = FALSE)
}

#' @rdname datafly
#' @export
summary.epimask_datafly <- function(object, ...) {
  structure(list(
    datafly = object,
    levels = generalization_levels(object),
    steps = object$steps,
    class_sizes = table(size = object$class_sizes)),
    class = "summary.epimask_datafly")
}

#' @rdname datafly
#' @export
format.summary.epimask_datafly <- function(x, ...) {
  utils::capture.output({
    print(x$datafly)
    cat("\nLevels chosen:\n")
    print(x$levels, row.names = FALSE)
    cat("\nGeneralization steps:\n")
    if (nrow(x$steps)) print(x$steps, row.names = FALSE) else cat("  none\n")
    cat("\nEquivalence class sizes (number of classes):\n")
    print(x$class_sizes)
  })
}

#' @export
print.summary.epimask_datafly <- function(x, ...) print_formatted(x, ...)

#' @rdname datafly
#' @param y Unused.
#' @param what Bar heights: number of `"classes"` or of `"records"` per EC size.
#' @param main Plot title (default names the method).
#' @export
plot.epimask_datafly <- function(x, y = NULL, what = c("classes", "records"),
                                 main = NULL, ...) {
  generalization_plot(x, what, main, if (is.null(x$method)) "Datafly" else x$method, ...)
}

# The levels chosen, one row per key, for the summaries of datafly() and ola().
generalization_levels <- function(x) {
  data.frame(key = x$keys, level = unname(x$levels), label = unname(x$level_labels),
             stringsAsFactors = FALSE)
}

# The bar chart of the class sizes of a datafly() or ola() release.
generalization_plot <- function(x, what, main, method, ...) {
  what <- check_choice(what, c("classes", "records"))
  main <- check_string(main, allow_null = TRUE)
  if (!length(x$class_sizes))
    epimask_abort("Nothing to plot: every record was suppressed.",
                  "epimask_error_empty", arg = "x")
  if (is.null(main)) main <- sprintf("Equivalence class sizes after %s", method)
  class_size_barplot(x$class_sizes, x$k, what, main = main, unit = unit_name(x), ...)
}
