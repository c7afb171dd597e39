# Risk criteria as values (issue 37): one S3 class per criterion,
# c("risk_<name>", "risk_criterion"), made by new_risk_criterion(), as a mask
# type is made by new_mask_scheme(). A criterion states a disclosure-risk
# measure and (optionally) the largest value the custodian accepts. The
# package's verbs take criteria: ola() and deidentify() search for a release
# that meets them, risk_release() and the certificate recount them on the
# release, ru_profile() plots their value for every scheme, release_report()
# prints their rows. Each criterion lives in one file, risk-criterion-<name>.R,
# with its constructor and methods; nothing outside that file branches on its
# class. This file holds the generics and their defaults.
#
# The contract of a criterion (what a method must do):
# - criterion_evaluate(criterion, release, original, ...) -> a criterion_result:
#   the measure on the release as delivered (value on the risk scale [0, 1],
#   larger = riskier), whether it meets the bound, and the detailed result.
#   Every criterion must define it.
# - criterion_prepare(criterion, data, keys, id): checks the criterion against
#   the data before a search or a recount (columns exist, types fit) and
#   precomputes what the search needs; the default checks `columns`.
# - For the lattice search of ola() (optional; a criterion without them is
#   evaluated on each candidate node's release by criterion_evaluate()):
#   criterion_classes(criterion, node) -> one logical per class of the node,
#   TRUE where the class fails (class-local criteria: k-anonymity,
#   l-diversity, k-map, ...); criterion_release(criterion, node, kept) -> TRUE
#   when the release of the kept classes meets the criterion (release-wide
#   criteria: average risk, population uniqueness, ...).
# - criterion_monotone(criterion): TRUE when a node that meets the criterion
#   implies every more general node meets it (predictive tagging is valid).
# - format() (one line, the label) and criterion_report_row() (its row in the
#   certificate and the report).

#' Risk criteria: a disclosure-risk measure and its bound, as a value
#'
#' A risk criterion states one disclosure-risk measure and, optionally, the
#' largest value of it the custodian accepts. It is a value, as a
#' [mask_scheme] is: made once, it is used by every verb that weighs risk:
#' [ola()] and [deidentify()] search for a release that meets it,
#' [risk_release()] and the certificate of [deidentify()] recount it on the
#' release as delivered, [ru_profile()] shows its value for every masking
#' scheme, [release_report()] prints its row.
#'
#' Every criterion is an object of class `c("risk_<name>", "risk_criterion")`
#' made by `new_risk_criterion()`. Its value is on the risk scale: a number
#' in \[0, 1\], larger meaning riskier (for k-anonymity the maximum risk
#' \eqn{1 / \min f}, for l-diversity \eqn{1 / l}), so that one axis of an R-U
#' profile holds any of them, and the criterion is met when the value is at
#' most its `bound`.
#'
#' **Writing a criterion** (as an extension package would, in one file):
#' call `new_risk_criterion()` in a constructor and define a
#' [criterion_evaluate()] method for the class; the rest has defaults. Give
#' [criterion_classes()] (class-local criteria) or [criterion_release()]
#' (release-wide criteria) methods to let the lattice search of [ola()]
#' evaluate a node without building its release, and [criterion_monotone()]
#' to let it prune.
#'
#' @param name The criterion's name: lower case letters, digits and `_`; the
#'   class is `paste0("risk_", name)`.
#' @param ... Named fields of the criterion (its parameters), stored in the
#'   object. A field may not be named as a prefix of `name` (`n`, `na`):
#'   R would take it for `name`.
#' @param label A one-line description for print and reports, e.g.
#'   `"k-anonymity, k = 5"`.
#' @param bound The largest accepted value on the risk scale, in \[0, 1\], or
#'   `NA` for a criterion that is reported but not enforced.
#' @param monotone `TRUE` when meeting the criterion at a lattice node implies
#'   meeting it at every more general node (with the same suppression rule):
#'   the search may then tag (prune) nodes by it.
#' @param columns Columns of the data the criterion needs beyond the keys
#'   (sensitive variables, a cluster column, the intruder's known columns), so
#'   that [criterion_prepare()] can check them.
#' @param keys `NULL` (the keys of the call it is used in) or the keys it
#'   counts over.
#' @param explanation One or two sentences for the report: what the measure
#'   is and what its value means.
#' @param id `NULL` (the person column of the call, if any) or the person
#'   column the criterion counts by.
#' @return An object of class `c("risk_<name>", "risk_criterion")`.
#' @family risk criteria
#' @seealso [criterion_evaluate()], [k_anonymity()].
#' @examples
#' # a criterion of one's own: the share of records unique on the keys
#' share_unique <- function(max) {
#'   new_risk_criterion("share_unique", label = sprintf("share of unique records <= %g", max),
#'                      bound = max, monotone = TRUE,
#'                      explanation = "The share of records whose keys no other record shares.")
#' }
#' criterion_evaluate.risk_share_unique <- function(criterion, release, original = NULL,
#'                                                  keys = NULL, id = NULL, ...) {
#'   key <- do.call(paste, c(unclass(release[keys]), sep = "\r"))
#'   new_criterion_result(criterion, mean(!key %in% key[duplicated(key)]))
#' }
#' # register the method (an extension package does this in its NAMESPACE)
#' registerS3method("criterion_evaluate", "risk_share_unique",
#'                  criterion_evaluate.risk_share_unique)
#' crit <- share_unique(0.05)
#' crit
#' criterion_evaluate(crit, dose_cohort, keys = c("city", "sex", "age_exp"))
#' @export
new_risk_criterion <- function(name, ..., label, bound = NA_real_, monotone = FALSE,
                               columns = character(), keys = NULL, explanation = NULL,
                               id = NULL) {
  # a field named as a prefix of `name` (`n = `) would have been taken for it
  given <- names(sys.call())
  partial <- given[nzchar(given) & startsWith("name", given) & given != "name"]
  if (length(partial))
    abort_value("...", sprintf(paste0("fields not named as a prefix of `name` (`%s = ` is taken ",
                                      "for `name`); call the field otherwise"), partial[[1L]]))
  if (!is.character(name) || length(name) != 1L || is.na(name) ||
      !grepl("^[a-z][a-z0-9_]*$", name))
    abort_type("name", "one name of lower case letters, digits and '_' (e.g. \"k_anonymity\")")
  label <- check_string(label)
  if (length(bound) == 1L && is.logical(bound) && is.na(bound)) bound <- NA_real_
  if (!is.numeric(bound) || length(bound) != 1L || (!is.na(bound) && (bound < 0 || bound > 1)))
    abort_value("bound", "NA or one number in [0, 1] (the largest accepted risk)")
  check_flag(monotone)
  if (!is.character(columns) || anyNA(columns))
    abort_type("columns", "a character vector of column names")
  if (!is.null(keys) && (!is.character(keys) || !length(keys) || anyNA(keys)))
    abort_type("keys", "NULL or a character vector of key columns")
  explanation <- check_string(explanation, allow_null = TRUE)
  if (!is.null(id) && (!is.character(id) || length(id) != 1L || is.na(id)))
    abort_type("id", "NULL or the name of the person column")
  fields <- list(...)
  if (length(fields) && (is.null(names(fields)) || any(!nzchar(names(fields)))))
    abort_type("...", "named fields of the criterion")
  reserved <- c("name", "label", "bound", "monotone", "columns", "keys", "explanation", "id")
  clash <- intersect(names(fields), reserved)
  if (length(clash))
    abort_value("...", sprintf("fields other than %s", paste(reserved, collapse = ", ")))
  structure(c(list(name = name, label = label, bound = as.double(bound), monotone = monotone,
                   columns = columns, keys = keys, explanation = explanation, id = id), fields),
            class = c(paste0("risk_", name), "risk_criterion"))
}

#' Is an object a risk criterion?
#' @param x Any object.
#' @return `TRUE` or `FALSE`.
#' @family risk criteria
#' @examples
#' is_risk_criterion(k_anonymity(5))
#' is_risk_criterion(mask_none())
#' @export
is_risk_criterion <- function(x) inherits(x, "risk_criterion")

# ---- the generics --------------------------------------------------------------

#' Evaluate a risk criterion on a release
#'
#' The measure of a [risk criterion][new_risk_criterion()] on the release as
#' delivered: its value on the risk scale and whether it meets the bound.
#' This is the one method every criterion must define.
#'
#' @param criterion A risk criterion.
#' @param release The released data: a data frame, or a release object a
#'   criterion knows (a [deidentify()] release, synthetic copies, a table).
#' @param original `NULL`, or the original data, for criteria that compare
#'   the release with the data it came from (record matching, linkage, the
#'   attacks).
#' @param keys The quasi-identifiers, when the criterion counts classes and
#'   does not carry its own.
#' @param id `NULL`, or the person column when a person has several records:
#'   the person is then the unit.
#' @param ... Further arguments for methods. The verbs may pass
#'   `generalize`, a function that generalizes a data frame with the keys
#'   to the release's levels (a generalized release: [ola()], the
#'   certificate of [deidentify()]; k-map generalizes its population table
#'   with it), and `rows`, the rows of `original` the release holds, in
#'   order (the certificate of [deidentify()], whose release withholds
#'   records: the record-matching criteria compare each released record with
#'   its own original). A method ignores what it does not need.
#' @return A `criterion_result` (see [new_criterion_result()]).
#' @family risk criteria
#' @examples
#' criterion_evaluate(k_anonymity(5), dose_cohort, keys = c("city", "sex"))
#' @export
criterion_evaluate <- function(criterion, release, original = NULL, keys = NULL, id = NULL,
                               ...) {
  UseMethod("criterion_evaluate")
}

#' @export
criterion_evaluate.default <- function(criterion, release, original = NULL, keys = NULL,
                                       id = NULL, ...) {
  missing_criterion_method(criterion, "criterion_evaluate")
}

#' A criterion's result on one release
#'
#' What [criterion_evaluate()] returns: the criterion, its value on the risk
#' scale, whether it meets the bound, and the detailed result of the measure.
#'
#' @param criterion The risk criterion evaluated.
#' @param value One number in \[0, 1\] (the risk; `NA` when it does not apply
#'   or cannot be computed).
#' @param detail `NULL` or the measure's own result object (a [risk_kanon()]
#'   result, an attack, ...).
#' @param interval `NULL` or a confidence interval of the value (two numbers).
#' @param applies `FALSE` when the measure does not apply to this release
#'   (k-anonymity of synthetic records, say); `note` says why.
#' @param note `NULL` or a sentence for the print and the report.
#' @param unit What the value counts: `"records"`, `"persons"`, `"cells"`,
#'   `"attacks"`, ...
#' @return An object of class `criterion_result`: `criterion`, `label`,
#'   `value`, `bound`, `pass` (`NA` when the criterion has no bound or the
#'   value is `NA`: an `NA` never passes a bound, see [criterion_passes()]),
#'   `interval`, `applies`, `note`, `unit`, `detail`.
#' @family risk criteria
#' @examples
#' new_criterion_result(k_anonymity(5), 0.5, note = "two records share the rarest keys")
#' @export
new_criterion_result <- function(criterion, value, detail = NULL, interval = NULL,
                                 applies = TRUE, note = NULL, unit = "records") {
  if (!is_risk_criterion(criterion)) abort_type("criterion", "a risk criterion")
  if (!is.numeric(value) && !(length(value) == 1L && is.na(value)))
    abort_type("value", "one number in [0, 1] or NA")
  value <- as.double(value)
  if (length(value) != 1L || (!is.na(value) && (value < -1e-12 || value > 1 + 1e-12)))
    abort_value("value", sprintf("one number in [0, 1] or NA (the %s criterion gave %s)",
                                 criterion$name, paste(format(value), collapse = ", ")))
  if (!is.na(value)) value <- min(max(value, 0), 1)
  if (!is.null(interval) && (!is.numeric(interval) || length(interval) != 2L))
    abort_type("interval", "NULL or two numbers")
  check_flag(applies)
  note <- check_string(note, allow_null = TRUE)
  unit <- check_string(unit)
  structure(list(criterion = criterion, label = format(criterion), value = value,
                 bound = criterion$bound, pass = criterion_passes(criterion, value),
                 interval = if (!is.null(interval)) as.double(interval), applies = applies,
                 note = note, unit = unit, detail = detail),
            class = "criterion_result")
}

#' Does a value meet a criterion's bound?
#'
#' `TRUE` when `value` is at most the criterion's `bound` (with a relative
#' allowance of 1e-12 for rounding), `FALSE` when above it or when the value
#' is `NA` (a risk that cannot be computed does not pass), and `NA` when the
#' criterion has no bound (reported only).
#' @param criterion A risk criterion.
#' @param value The value on the risk scale.
#' @return `TRUE`, `FALSE` or `NA`.
#' @family risk criteria
#' @examples
#' criterion_passes(k_anonymity(5), 0.2)
#' criterion_passes(k_anonymity(5), 0.25)
#' @export
criterion_passes <- function(criterion, value) {
  bound <- criterion$bound
  if (is.null(bound) || is.na(bound)) return(NA)
  if (is.na(value)) return(FALSE)
  value <= bound * (1 + 1e-12) + 1e-15
}

#' Prepare a criterion for a data set
#'
#' Checks a criterion against the data it will be evaluated on (the columns
#' it names exist, its keys agree with the call's) and returns it, possibly
#' with precomputed parts. Called by [ola()], [deidentify()],
#' [risk_release()] and [ru_profile()] before any search or recount, so that
#' bad input fails early with a classed error naming the argument.
#' @param criterion A risk criterion.
#' @param data The data frame.
#' @param keys The keys of the call.
#' @param id `NULL` or the person column.
#' @param ... Further arguments for methods.
#' @return The criterion, checked.
#' @family risk criteria
#' @examples
#' criterion_prepare(k_anonymity(5), dose_cohort, keys = c("city", "sex"))
#' @export
criterion_prepare <- function(criterion, data, keys = NULL, id = NULL, ...) {
  UseMethod("criterion_prepare")
}

#' @export
criterion_prepare.default <- function(criterion, data, keys = NULL, id = NULL, ...) {
  if (!is_risk_criterion(criterion)) abort_type("criteria", "risk criteria (k_anonymity(), ...)")
  cols <- c(criterion$columns, criterion$keys)
  missing <- setdiff(cols, names(data))
  if (length(missing))
    epimask_abort(sprintf("The criterion '%s' names column(s) not in the data: %s.",
                          format(criterion), paste0("'", missing, "'", collapse = ", ")),
                  "epimask_error_name", arg = "criteria")
  if (!is.null(criterion$keys) && !is.null(keys) && !setequal(criterion$keys, keys))
    epimask_abort(sprintf(paste0("The criterion '%s' counts over the keys %s, the call over %s: ",
                                 "give every criterion of one search or release the same keys."),
                          format(criterion), paste(criterion$keys, collapse = ", "),
                          paste(keys, collapse = ", ")),
                  "epimask_error_value", arg = "criteria")
  criterion
}

#' What the lattice search asks of a criterion
#'
#' For the search of [ola()] (and [deidentify()]) over generalizations. A
#' criterion is either *class-local* (its verdict on a class depends on that
#' class alone, as k-anonymity's: `criterion_classes()` gives one logical per
#' class) or *release-wide* (its verdict is on the release made of the kept
#' classes: `criterion_release()`). A criterion with neither method is
#' release-wide through the default `criterion_release()`, which builds the
#' node's release and calls [criterion_evaluate()] on it.
#'
#' **How the search uses them** at each node it evaluates (methods vignette,
#' sections 16, 20 and 27):
#' 1. The classes failing a *monotone* class-local criterion
#'    (`criterion_monotone()` `TRUE`: k-anonymity) are suppressed; the node
#'    is acceptable only if their units fit within `max_suppress`. This part
#'    is monotone along generalization, so predictive tagging prunes the
#'    lattice by it.
#' 2. The other class-local criteria (l-diversity, t-closeness, k-map
#'    against a population table): with `outliers = "small"` every released
#'    class must meet them; with `"failing"` (ARX) their failing classes are
#'    suppressed too, within the limit.
#' 3. Release-wide criteria: the smallest released classes are suppressed
#'    one at a time (ties by the classes' generalized values) until every
#'    release-wide criterion that takes part in the scan holds, within the
#'    limit; `criterion_suppress()` says how a criterion takes part: `NULL`
#'    (the default) means it suppresses nothing of its own and is checked
#'    once on the release the others leave (so an outside criterion costs
#'    one evaluation per node); `"scan"` means it is tried count by count
#'    with `criterion_release()` (population uniqueness, cluster risk: not
#'    monotone in the count); a number is the least count of the smallest
#'    classes whose suppression meets it, valid when every larger count meets
#'    it too (average risk: a closed form).
#'
#' `criterion_min_size()` is the smallest class size a criterion enforces
#' (k for k-anonymity, 1 for most others): the average-class-size loss is
#' divided by the largest of them, and [deidentify()] suppresses locally the
#' records in classes below it.
#'
#' **The node** passed to `criterion_classes()`, `criterion_release()` and
#' `criterion_suppress()` is an environment with
#' \describe{
#'   \item{`levels`}{the node's level of each key (named integer);}
#'   \item{`size`}{units (records, or persons with a person column) per class;}
#'   \item{`classes()`}{a data frame of the classes' generalized key values,
#'     one row per class (with key sets of persons, a key's values over the
#'     class's tuples joined by `"|"`);}
#'   \item{`unit_class()`}{the class of each unit of the data;}
#'   \item{`release(kept)`}{the released records of the kept classes (a
#'     logical per class): the data with the keys generalized to the node's
#'     levels;}
#'   \item{`generalize(df)`}{any data frame with the key columns (a
#'     population table, say) generalized to the node's levels;}
#'   \item{`n`, `unit`}{the number of units of the data and what they are
#'     (`"records"` or `"persons"`);}
#'   \item{`keys`, `id`, `original`}{the keys, the person column (or
#'     `NULL`) and the data searched (records, original values).}
#' }
#' The package's own criteria also read internal parts of the node (its
#' class codes and the lattice), which an extension should not rely on.
#'
#' @param criterion A risk criterion.
#' @param node The lattice node (see Details).
#' @param kept Logical, one per class: the classes released.
#' @param order The kept classes (indices into `node$size`), smallest first
#'   (ties by their generalized values): the order in which the search
#'   suppresses them.
#' @param ... Further arguments for methods.
#' @return `criterion_classes()`: `NULL` (not class-local) or a logical
#'   vector, one per class, `TRUE` where the class fails;
#'   `criterion_release()`: `TRUE` or `FALSE`; `criterion_suppress()`:
#'   `NULL`, `"scan"`, or a count (`NA` when no count of `order` meets the
#'   criterion); `criterion_monotone()`: `TRUE` or `FALSE`;
#'   `criterion_min_size()`: a count.
#' @family risk criteria
#' @examples
#' criterion_monotone(k_anonymity(5))
#' criterion_min_size(k_anonymity(5))
#' # a class-local criterion of one's own, used by the search without a release:
#' # every class holds at least `n` records whose `sex` is "Female"
#' min_women <- function(n) {
#'   new_risk_criterion("min_women", women = n, bound = 0, columns = "sex",
#'                      label = sprintf("at least %d women per class", n))
#' }
#' registerS3method("criterion_classes", "risk_min_women", function(criterion, node, ...) {
#'   women <- tabulate(node$unit_class()[node$original$sex == "Female"], length(node$size))
#'   women < criterion$women
#' })
#' registerS3method("criterion_evaluate", "risk_min_women",
#'                  function(criterion, release, original = NULL, keys = NULL, id = NULL, ...) {
#'   key <- do.call(paste, c(unclass(release[keys]), sep = "\r"))
#'   women <- tapply(release$sex == "Female", key, sum)
#'   new_criterion_result(criterion, as.numeric(any(women < criterion$women)))
#' })
#' h <- list(age = hierarchy_numeric(c(5, 10, 20)), race = hierarchy_flat())
#' d <- adult_extract[1:800, ]
#' res <- ola(d, c("age", "race"), h, criteria = list(k_anonymity(5), min_women(2)))
#' res$levels
#' @export
criterion_classes <- function(criterion, node, ...) UseMethod("criterion_classes")

#' @export
criterion_classes.default <- function(criterion, node, ...) NULL

#' @rdname criterion_classes
#' @export
criterion_release <- function(criterion, node, kept, ...) UseMethod("criterion_release")

#' @export
criterion_release.default <- function(criterion, node, kept, ...) {
  res <- run_criterion(criterion, node$release(kept), original = node$original,
                       keys = node$keys, id = node$id, generalize = node$generalize,
                       rows = node$release_rows(kept))
  isTRUE(res$pass)
}

#' @rdname criterion_classes
#' @export
criterion_suppress <- function(criterion, node, kept, order, ...) UseMethod("criterion_suppress")

#' @export
criterion_suppress.default <- function(criterion, node, kept, order, ...) NULL

#' @rdname criterion_classes
#' @export
criterion_monotone <- function(criterion) UseMethod("criterion_monotone")

#' @export
criterion_monotone.default <- function(criterion) isTRUE(criterion$monotone)

#' @rdname criterion_classes
#' @export
criterion_min_size <- function(criterion) UseMethod("criterion_min_size")

#' @export
criterion_min_size.default <- function(criterion) 1L

#' A criterion's row in a certificate or report
#'
#' One row per criterion evaluated on a release, as the certificate of
#' [deidentify()], [risk_release()] and [release_report()] show it.
#' @param result A `criterion_result`.
#' @param ... Further arguments for methods.
#' @return A one-row data frame: `criterion` (the label), `value`, `low`,
#'   `high` (its interval, or NA), `bound`, `pass`, `unit`, `note`,
#'   `explanation`.
#' @family risk criteria
#' @examples
#' res <- criterion_evaluate(k_anonymity(5), dose_cohort, keys = c("city", "sex"))
#' criterion_report_row(res)
#' @export
criterion_report_row <- function(result, ...) UseMethod("criterion_report_row")

#' @export
criterion_report_row.criterion_result <- function(result, ...) {
  crit <- result$criterion
  data.frame(criterion = result$label, value = result$value,
             low = if (!is.null(result$interval)) result$interval[[1L]] else NA_real_,
             high = if (!is.null(result$interval)) result$interval[[2L]] else NA_real_,
             bound = result$bound, pass = result$pass, unit = result$unit,
             note = result$note %||% NA_character_,
             explanation = crit$explanation %||% NA_character_, stringsAsFactors = FALSE)
}

# ---- printing ----------------------------------------------------------------

#' @rdname new_risk_criterion
#' @param x A risk criterion, or a `criterion_result`.
#' @export
format.risk_criterion <- function(x, ...) x$label

#' @rdname new_risk_criterion
#' @export
print.risk_criterion <- function(x, ...) {
  cat("<risk criterion: ", format(x), ">\n", sep = "")
  invisible(x)
}

#' @rdname new_criterion_result
#' @param x A `criterion_result`.
#' @param ... Unused.
#' @export
format.criterion_result <- function(x, ...) {
  value <- if (is.na(x$value)) "NA" else format(signif(x$value, 3))
  ci <- if (!is.null(x$interval))
    sprintf(" [%s, %s]", format(signif(x$interval[[1L]], 3)), format(signif(x$interval[[2L]], 3)))
  else ""
  verdict <- if (!x$applies) "does not apply" else if (is.na(x$pass)) "reported" else
    if (x$pass) sprintf("pass (<= %s)", format(signif(x$bound, 3))) else
    sprintf("FAIL (> %s)", format(signif(x$bound, 3)))
  c(sprintf("%s: risk %s%s, %s", x$label, value, ci, verdict),
    if (!is.null(x$note)) paste0("  ", x$note))
}

#' @rdname new_criterion_result
#' @export
print.criterion_result <- function(x, ...) print_formatted(x, ...)

#' @rdname new_criterion_result
#' @param row.names,optional Unused (for the generic).
#' @export
as.data.frame.criterion_result <- function(x, row.names = NULL, optional = FALSE, ...) {
  criterion_report_row(x)
}

#' @rdname epimask-tidiers
#' @method tidy criterion_result
#' @export
tidy.criterion_result <- function(x, ...) criterion_report_row(x)

#' @rdname epimask-tidiers
#' @method glance criterion_result
#' @export
glance.criterion_result <- function(x, ...) {
  data.frame(criterion = x$label, value = x$value, bound = x$bound, pass = x$pass,
             applies = x$applies, stringsAsFactors = FALSE)
}

# ---- helpers for criterion files -------------------------------------------------

# A criterion whose class has no method for a generic it needs.
missing_criterion_method <- function(criterion, generic) {
  cls <- class(criterion)[[1L]]
  epimask_abort(sprintf(paste0("The criterion of class '%s' has no %s() method: define %s.%s() ",
                               "(see ?new_risk_criterion)."), cls, generic, generic, cls),
                c("epimask_error_criterion", "epimask_error_type"), arg = "criteria")
}

# The result of a measure that does not apply to a release (k-anonymity of
# synthetic records, say): NA with the reason.
criterion_not_applicable <- function(criterion, why, unit = "records", detail = NULL) {
  new_criterion_result(criterion, NA_real_, detail = detail, applies = FALSE, note = why,
                       unit = unit)
}

# What a criterion of the classes of keys checks first: the keys are known,
# and the release is of persons of the data (synthetic records are not: the
# measure does not apply, and the result says why). NULL when it applies.
classes_not_counted <- function(criterion, release, keys, what) {
  if (is.null(keys))
    abort_value("keys", sprintf("the keys %s counts over (the call's, or the criterion's `keys = `)",
                                what))
  if (inherits(release, "epimask_synthetic"))
    return(criterion_not_applicable(criterion, sprintf(paste(
      "%s counts classes of released records that are persons of the data; synthetic",
      "records are not"), what)))
  NULL
}

# A list of criteria from what the verbs accept: one criterion or a list of
# them; `arg` names the argument in errors.
as_criteria <- function(criteria, arg = "criteria") {
  if (is.null(criteria)) return(list())
  if (is_risk_criterion(criteria)) return(list(criteria))
  if (!is.list(criteria) || !all(vapply(criteria, is_risk_criterion, logical(1))))
    abort_type(arg, "a risk criterion or a list of them (k_anonymity(), l_diversity(), ...)")
  unname(criteria)
}

# A criterion evaluated by a verb: the keys and person column it carries
# (else the call's), its result checked. `...` reaches the method (e.g.
# `generalize`, the release's generalization of a data frame with the keys,
# for criteria that count a population or match the original).
run_criterion <- function(criterion, release, original = NULL, keys = NULL, id = NULL, ...) {
  keys <- criterion$keys %||% keys
  id <- criterion$id %||% id
  res <- criterion_evaluate(criterion, release, original = original, keys = keys, id = id, ...)
  if (!inherits(res, "criterion_result"))
    epimask_abort(sprintf(paste0("criterion_evaluate() of the criterion '%s' (class '%s') ",
                                 "returned %s, not a criterion_result (see ",
                                 "?new_criterion_result)."),
                          format(criterion), class(criterion)[[1L]], class(res)[[1L]]),
                  c("epimask_error_criterion", "epimask_error_type"), arg = "criteria")
  res
}

# Criteria checked against the data of a verb: each prepared (columns,
# keys), and all of them counting over the call's keys.
prepare_criteria <- function(criteria, data, keys = NULL, id = NULL, arg = "criteria", ...) {
  criteria <- as_criteria(criteria, arg)
  lapply(criteria, function(cr) {
    if (!is_risk_criterion(cr)) abort_type(arg, "risk criteria")
    out <- criterion_prepare(cr, data, keys = keys, id = id, ...)
    if (!is_risk_criterion(out))
      epimask_abort(sprintf("criterion_prepare() of the criterion '%s' did not return a criterion.",
                            format(cr)), c("epimask_error_criterion", "epimask_error_type"),
                    arg = arg)
    out
  })
}

# The rows of a list of criterion results, one per criterion.
criterion_rows <- function(results) {
  if (!length(results))
    return(data.frame(criterion = character(), value = numeric(), low = numeric(),
                      high = numeric(), bound = numeric(), pass = logical(), unit = character(),
                      note = character(), explanation = character(), stringsAsFactors = FALSE))
  rows <- lapply(results, criterion_report_row)
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

# Every bounded criterion passes (a criterion without a bound is reported
# only; one that does not apply does not count).
criteria_pass <- function(results) {
  all(vapply(results, function(r) !r$applies || is.na(r$bound) || isTRUE(r$pass), logical(1)))
}

# ---- internal generics: what the verbs ask of the package's own criteria ------
# (an outside criterion gets the defaults; each method lives in its
# criterion's file)

# Sensitive columns the lattice must code for the criterion (l-diversity,
# t-closeness): list(sensitive = , ordered = ).
criterion_sensitive <- function(criterion) UseMethod("criterion_sensitive")
#' @exportS3Method criterion_sensitive default
criterion_sensitive.default <- function(criterion) list(sensitive = character(),
                                                        ordered = character())

# The criterion bound to one lattice (a search or a local recoding round):
# parts that depend on the lattice's codes (k-map's population table).
criterion_bind <- function(criterion, lat) UseMethod("criterion_bind")
#' @exportS3Method criterion_bind default
criterion_bind.default <- function(criterion, lat) criterion

# Does the criterion need the search on persons' key sets (a population of
# persons with several key tuples)?
criterion_key_sets <- function(criterion) UseMethod("criterion_key_sets")
#' @exportS3Method criterion_key_sets default
criterion_key_sets.default <- function(criterion) FALSE

# Does blanking key cells (deidentify()'s local suppression, which makes
# every class reach the search's smallest class size) keep the criterion
# met? Only for criteria of class sizes; others drop the records instead.
criterion_blanks_ok <- function(criterion) UseMethod("criterion_blanks_ok")
#' @exportS3Method criterion_blanks_ok default
criterion_blanks_ok.default <- function(criterion) FALSE

# Is the criterion blind to a masking scheme (exact matching cannot see
# values changed without ties: noise, kernels)?
criterion_blind_to <- function(criterion, scheme) UseMethod("criterion_blind_to")
#' @exportS3Method criterion_blind_to default
criterion_blind_to.default <- function(criterion, scheme) FALSE

# The short name a profile records for its risk (the name the criterion was
# asked by: a deprecated risk_spec() name, else the criterion's name).
criterion_short_name <- function(criterion) criterion$spec %||% criterion$name

# ola()'s print: the criterion's part of the "criteria:" line, with its value
# on the release (`result`, a criterion_result or NULL).
criterion_search_text <- function(criterion, result = NULL) UseMethod("criterion_search_text")
#' @exportS3Method criterion_search_text default
criterion_search_text.default <- function(criterion, result = NULL) {
  if (is.null(result) || is.na(result$value)) return(format(criterion))
  sprintf("%s (release %s)", format(criterion), format(signif(result$value, 4)))
}

# The field of ola()'s `criteria` list of epimask 0.3 (kept for one release):
# NULL, or list(<name> = <value>) for the criterion.
criterion_legacy_field <- function(criterion, result = NULL) UseMethod("criterion_legacy_field")
#' @exportS3Method criterion_legacy_field default
criterion_legacy_field.default <- function(criterion, result = NULL) NULL

# Rows for the reports' risk tables (list(table = data.frame(measure, value),
# notes = , explanations = )), for measures of sample releases with several
# numbers (population uniques, log-linear, clusters); NULL when none.
criterion_detail_rows <- function(criterion, data, context = NULL, original = NULL,
                                  what = "the data", keys = NULL, id = NULL) {
  UseMethod("criterion_detail_rows")
}
#' @exportS3Method criterion_detail_rows default
criterion_detail_rows.default <- function(criterion, data, context = NULL, original = NULL,
                                          what = "the data", keys = NULL, id = NULL) NULL

# The paragraphs of the reports explaining those rows, for an ethics board.
criterion_detail_explanations <- function(criterion, context = NULL) {
  UseMethod("criterion_detail_explanations")
}
#' @exportS3Method criterion_detail_explanations default
criterion_detail_explanations.default <- function(criterion, context = NULL) NULL

# The sentence of a deidentify() report on what the search required of the
# criterion.
criterion_limit_note <- function(criterion) UseMethod("criterion_limit_note")
#' @exportS3Method criterion_limit_note default
criterion_limit_note.default <- function(criterion) {
  sprintf("The search required %s.", format(criterion))
}

# Is the criterion's value of the whole release (population uniqueness,
# log-linear and cluster risk), so that local recoding, which searches a
# subset, cannot serve it?
criterion_whole_release <- function(criterion) UseMethod("criterion_whole_release")
#' @exportS3Method criterion_whole_release default
criterion_whole_release.default <- function(criterion) FALSE
