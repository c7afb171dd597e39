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
  args <- check_generalize_args(data, keys, hierarchies, k, max_suppress, id,
                                secret, drop_proxies)
  data <- args$data
  hierarchies <- args$hierarchies
  k <- args$k
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

  out <- finish_release(data, keys, hierarchies, level, k, id, args$secret,
                        proxies, drop_proxies, person = person)
  out$max_suppress <- max_suppress
  out$method <- "Datafly"
  out$steps <- if (length(steps)) do.call(rbind, steps) else
    data.frame(key = character(), level = integer(), distinct = integer(),
               in_small_classes = integer())
  structure(out, class = "epimask_datafly")
}

# Arguments shared by datafly() and ola(), checked and normalized.
check_generalize_args <- function(data, keys, hierarchies, k, max_suppress, id,
                                  secret, drop_proxies) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  # key values reach regular expressions and hashing as text
  check_utf8_data(as.data.frame(data)[keys], "data")
  k <- check_count(k)
  max_suppress <- check_number(max_suppress, lower = 0, upper = 1)
  id <- check_columns(id, data, allow_null = TRUE)
  if (length(intersect(id, keys)))
    abort_value("id", "identifier columns that are not also `keys`")
  check_flag(drop_proxies)
  list(data = data, k = k, max_suppress = max_suppress,
       hierarchies = check_hierarchies(hierarchies, keys, data),
       secret = check_secret(secret, id))
}

# The release at the chosen levels, shared by datafly() and ola(): keys
# generalized, records in classes smaller than k dropped, identifiers keyed
# pseudonyms, proxies of generalized keys flagged or dropped, and the four
# information losses (computed here because the release alone no longer
# holds the original values they need).
finish_release <- function(data, keys, hierarchies, level, k, id, secret,
                           proxies, drop_proxies, lat = NULL, model = NULL,
                           supp_records = NULL, current = NULL, person = NULL) {
  n <- nrow(data)
  # `current` (the released key values) and `supp_records` (the records the
  # search suppressed) come from ola() under the criteria of methods vignette section 20
  if (is.null(current))
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
  if (is.null(supp_records)) {
    suppressed <- which(record_size < k)
    kept <- record_size >= k
  } else {
    suppressed <- which(supp_records)
    kept <- !supp_records
  }
  if (!any(kept))
    epimask_warn(sprintf("Every one of the %d records was suppressed (k = %d).", n, k),
                 "epimask_warning_suppressed")
  undone <- proxies[level[proxies$key] > 0L, , drop = FALSE]
  dropped <- if (drop_proxies) unique(undone$column) else character()
  if (nrow(undone) && !drop_proxies)
    epimask_warn(sprintf(paste0(
      "Released column(s) determine generalized key(s) one-to-one and undo ",
      "their generalization: %s. Drop them (`drop_proxies = TRUE`) or ",
      "generalize them too."),
      paste0("'", undone$column, "' -> '", undone$key, "'", collapse = ", ")),
      "epimask_warning_proxy")
  release <- build_release(data, current, keys, id, kept, secret)
  release <- release[setdiff(names(release), dropped)]
  if (is.null(lat)) {
    # losses of the unit counted: persons when their keys allow one row each,
    # else the persons' key sets (ola()'s definition, generalize-ola-sets.R)
    rows <- if (!is.null(person)) person_rows(data, keys, person)
    lat <- if (!is.null(person) && is.null(rows)) set_lattice_build(data, keys, hierarchies, person)
           else lattice_build(if (is.null(rows)) data else rows, keys, hierarchies)
  }
  if (is.null(model)) model <- list(k = k, max_suppress = 1)
  h <- unname(level)
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(keys)))), h)
  losses <- lattice_evaluate(lat, tab, h, model, loss_metrics)$loss
  # with a person column, ec counts persons: the suppressed persons are those
  # whose records are suppressed (ola() suppresses persons whole)
  kept_unit <- if (is.null(person)) kept else kept[match(seq_len(max(person)), person)]
  kept_sizes <- if (is.null(supp_records)) ec$size[ec$size >= k] else {
    sizes <- tabulate(ec$group[kept_unit], length(ec$size))
    sizes[sizes > 0L]
  }
  unit_n <- if (is.null(person)) n else max(person)
  n_small <- if (is.null(person)) length(suppressed)
             else if (is.null(supp_records)) sum(ec$size[ec$size < k]) else sum(!kept_unit)
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
    # every level once on the key's distinct values, so that a hierarchy
    # that does not fit its key (a numeric hierarchy on a character column)
    # fails here, naming the key, not deep in the search
    values <- unique(data[[key]])
    for (lv in seq_len(top)) apply_level(h, values, lv, key)
    if (n_distinct(apply_level(h, data[[key]], top, key)) > 1L) {
      h$levels <- c(h$levels, list(suppress_all))
      h$labels <- c(h$labels, "*")
    }
    h
  })
  names(out) <- keys
  out
}

build_release <- function(data, current, keys, id, kept, secret) {
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  for (key in keys) out[[key]] <- current[[key]]
  for (col in id) out[[col]] <- pseudonymize(out[[col]], secret)
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

# The custodian's secret for the keyed pseudonyms: a string or raw vector, or
# (NULL) 32 bytes from the operating system's random source, never R's RNG,
# so that set.seed() cannot regenerate the pseudonyms.
check_secret <- function(secret, id) {
  if (is.null(secret)) {
    if (!length(id)) return(NULL)
    return(openssl::rand_bytes(32L))
  }
  if (is.raw(secret) && length(secret) > 0L) return(secret)
  if (is.character(secret) && length(secret) == 1L && !is.na(secret) &&
      nzchar(secret)) return(check_utf8(secret, "secret"))
  abort_type("secret", "NULL, a non-empty string or a raw vector")
}

# Keyed pseudonyms: HMAC-SHA-256 of each identifier value under the secret,
# the first 16 hexadecimal digits (64 bits; the full 64 digits if two values
# would share a pseudonym). The same value always gets the same pseudonym
# under one secret; NA stays NA.
pseudonymize <- function(x, secret) {
  values <- unique(x[!is.na(x)])
  hashes <- as.character(openssl::sha256(as.character(values), key = secret))
  short <- substr(hashes, 1L, 16L)
  codes <- if (anyDuplicated(short)) hashes else short
  out <- codes[match(x, values)]
  out[is.na(x)] <- NA_character_
  out
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
  crit <- x$criteria
  if (!is.null(crit)) {
    parts <- c(if (identical(crit$outliers, "failing")) "failing classes suppressed",
               if (!is.null(crit$avg_risk)) sprintf("average risk <= %s", format(crit$avg_risk)),
               if (!is.null(crit$k_map)) sprintf("k-map %d", crit$k_map),
               if (!is.null(crit$uniqueness))
                 sprintf("population uniqueness <= %s (%s, pi %s)", format(crit$uniqueness$max),
                         crit$uniqueness$model, format(crit$uniqueness$pi)),
               if (!is.null(crit$loglinear))
                 with(crit$loglinear, sprintf(
                   "log-linear risk %s share <= %s (%s; release %s)", measure, format(max),
                   if (!is.null(weights_column)) sprintf("weights '%s'", weights_column)
                   else if (!is.null(pi)) sprintf("pi %s", format(pi)) else "census",
                   format(signif(release, 4)))),
               if (!is.null(crit$cluster_risk))
                 with(crit$cluster_risk, sprintf(
                   "cluster risk share <= %s (clusters '%s'%s; release %s)", format(max), column,
                   if (!is.null(weights_column)) sprintf(", weights '%s'", weights_column) else "",
                   format(signif(release, 4)))),
               if (!is.null(crit$k_map_model))
                 with(crit$k_map_model, sprintf(
                   "k-map %d at sampling fraction %s (ARX's derived k = %d, %s, alpha %s)",
                   k_map, format(pi), derived_k,
                   if (estimator == "poisson") "Poisson" else "zero-truncated Poisson",
                   format(alpha))),
               if (identical(crit$suppressed_loss, "node")) "suppressed records charged at the node")
    if (length(parts)) out <- c(out, paste0("  criteria: ", paste(parts, collapse = "; ")))
  }
  if (!is.null(x$analysis))
    out <- c(out, sprintf("  analysis loss %s (%s: 1 - U of '%s', estimate %s on the original, %s on the release)",
                          format(signif(x$info_loss[["analysis"]], 4)),
                          x$analysis$metric$label, x$analysis$term,
                          format(signif(x$analysis$original$estimate, 5)),
                          format(signif(x$analysis$release$estimate, 5))))
  if (!is.null(x$local) && nrow(x$local))
    out <- c(out, if (is.null(x$local$persons))
      sprintf("  local recoding: %d round(s) recoded %d suppressed record(s)",
              nrow(x$local), sum(x$local$records))
    else sprintf("  local recoding: %d round(s) recoded %d suppressed person(s) (%d records)",
                 nrow(x$local), sum(x$local$persons), sum(x$local$records)))
  if (!is.null(x$nodes_total))
    out <- c(out, sprintf("  lattice: %s of %s nodes evaluated",
                          format(x$nodes_evaluated, big.mark = ","),
                          format(x$nodes_total, big.mark = ",")))
  if (length(x$dropped))
    out <- c(out, paste0("  proxies dropped: ", paste(x$dropped, collapse = ", ")))
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
    levels = data.frame(key = object$keys, level = unname(object$levels),
                        label = unname(object$level_labels),
                        stringsAsFactors = FALSE),
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
    if (identical(x$datafly$method, "OLA")) {
      cat("\nInformation loss of the release:\n")
      print(x$datafly$info_loss)
    } else {
      cat("\nGeneralization steps:\n")
      if (nrow(x$steps)) print(x$steps, row.names = FALSE) else cat("  none\n")
    }
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
  what <- check_choice(what, c("classes", "records"))
  main <- check_string(main, allow_null = TRUE)
  if (!length(x$class_sizes))
    epimask_abort("Nothing to plot: every record was suppressed.",
                  "epimask_error_empty", arg = "x")
  method <- if (is.null(x$method)) "Datafly" else x$method
  if (is.null(main)) main <- sprintf("Equivalence class sizes after %s", method)
  class_size_barplot(x$class_sizes, x$k, what, main = main, unit = unit_name(x), ...)
}
