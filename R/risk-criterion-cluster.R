# Cluster (household) risk as a risk criterion (methods vignette, section
# 22; risk_individual(cluster = )): identifying one member of a cluster
# (family, household, care home) identifies all; a cluster's risk is
# 1 - prod(1 - r_i) over its released members, given to each, and the
# expected share of released units re-identified must be at most `max`.

#' Cluster (household) risk as a risk criterion
#'
#' When members of a cluster (a family, household or care home) are released
#' together, identifying one identifies the others (methods vignette,
#' section 22): each released unit's individual risk is [risk_individual()]'s
#' (\eqn{1/f}, or Benedetti-Franconi with the sampling `weights`), a
#' cluster's risk is \eqn{1 - \prod (1 - r_i)} over its released members,
#' given to each, and the value is the expected share of released units
#' re-identified, \eqn{\sum_i r_{h(i)} / n} (`measure = "global"`), or the
#' highest cluster risk (`"max"`).
#'
#' In the search of [ola()] it is release-wide and not monotone: with
#' population uniqueness it is met by one scan that suppresses the smallest
#' released classes first, the least number after which every scanned
#' criterion holds, within the suppression limit. With a person column a
#' person belongs to one cluster: the column must be equal on a person's
#' records, as must the weights. Not with local recoding.
#'
#' @param max The largest accepted value, in \[0, 1\] (or `NA`: reported only).
#' @param cluster The column naming each record's cluster (no `NA`).
#' @param weights `NULL` or the column of sampling weights (each >= 1).
#' @param measure `"global"` or `"max"`.
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_cluster_risk", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' d$household <- (seq_len(nrow(d)) - 1) %/% 3
#' criterion_evaluate(cluster_risk(0.2, "household"), d, keys = c("city", "sex", "age10"))
#' @export
cluster_risk <- function(max, cluster, weights = NULL, measure = c("global", "max"),
                         keys = NULL) {
  if (!(length(max) == 1L && is.na(max))) max <- check_number(max, lower = 0, upper = 1)
  if (missing(cluster) || is.null(cluster)) abort_value("cluster", "the column of the clusters")
  measure <- check_choice(measure, c("global", "max"))
  column <- if (is.character(cluster) && length(cluster) == 1L) cluster
  weights_column <- if (is.character(weights) && length(weights) == 1L) weights
  what <- if (measure == "global") "cluster risk share" else "highest cluster risk"
  where <- sprintf("clusters '%s'%s", column %||% "given",
                   if (!is.null(weights_column)) sprintf(", weights '%s'", weights_column) else "")
  new_risk_criterion("cluster_risk", cluster = cluster, weights = weights, measure = measure,
                     column = column, weights_column = weights_column, keys = keys,
                     columns = c(column, weights_column),
                     label = if (is.na(max)) sprintf("%s (%s)", what, where)
                             else sprintf("%s <= %s (%s)", what, format(max), where),
                     bound = as.double(max), monotone = FALSE,
                     explanation = paste("The expected share of released records re-identified",
                                         "when identifying one member of a cluster (household,",
                                         "family) identifies all."))
}

# The clusters and weights as one per unit of the search (a person belongs
# to one cluster).
#' @export
criterion_prepare.risk_cluster_risk <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- criterion_prepare.default(criterion, data, keys = keys, id = id)
  spec <- check_cluster_criterion(list(cluster = criterion$cluster, max = 0,
                                       weights = criterion$weights),
                                  data, generalize_persons(data, id))
  criterion$unit_cluster <- spec$cluster
  criterion$unit_weights <- spec$weights
  criterion
}

#' @export
criterion_evaluate.risk_cluster_risk <- function(criterion, release, original = NULL,
                                                 keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "the cluster risk")
  if (!is.null(na)) return(na)
  res <- cluster_measure(release, keys, criterion, id)
  if (inherits(res, "error"))
    return(new_criterion_result(criterion, NA_real_, unit = if (is.null(id)) "records" else "persons",
                                note = sprintf("not computed: %s", conditionMessage(res))))
  new_criterion_result(criterion, if (criterion$measure == "global") res$cluster_global
                                  else max(res$cluster_risk),
                       detail = res, unit = if (is.null(id)) "records" else "persons")
}

# risk_individual() with the clusters on a release; with a person column on
# one row per person (a person's key the set of their key tuples), each
# person in their cluster.
cluster_measure <- function(release, keys, criterion, id = NULL) {
  tryCatch({
    if (is.null(id)) {
      risk_individual(release, keys, weights = criterion$weights, cluster = criterion$cluster)
    } else {
      cols <- c(criterion$column, criterion$weights_column)
      p <- person_frame(release, keys, id, also = cols)
      risk_individual(p$data, keys, weights = criterion$weights_column,
                      cluster = if (!is.null(criterion$column)) criterion$column
                                else criterion$cluster[p$first])
    }
  }, epimask_error = function(e) e)
}

#' @export
criterion_release.risk_cluster_risk <- function(criterion, node, kept, ...) {
  r <- node_cache(node, "unit_risk", function()
    unit_risk(node$class_codes, node$unit_class(), node$lat$keys, criterion$unit_weights))
  share <- cluster_share(r, node$unit_class(), kept, criterion$unit_cluster)
  share <= criterion$bound * (1 + 1e-12)
}

#' @export
criterion_suppress.risk_cluster_risk <- function(criterion, node, kept, order, ...) {
  if (criterion$measure == "global") "scan" else NULL
}

#' @exportS3Method criterion_search_text risk_cluster_risk
criterion_search_text.risk_cluster_risk <- function(criterion, result = NULL) {
  sprintf("cluster risk share <= %s (clusters '%s'%s; release %s)", format(criterion$bound),
          criterion$column %||% "given",
          if (!is.null(criterion$weights_column)) sprintf(", weights '%s'", criterion$weights_column)
          else "", if (is.null(result)) "NA" else format(signif(result$value, 4)))
}

#' @exportS3Method criterion_legacy_field risk_cluster_risk
criterion_legacy_field.risk_cluster_risk <- function(criterion, result = NULL) {
  list(cluster_risk = list(max = criterion$bound, column = criterion$column,
                           weights_column = criterion$weights_column,
                           release = if (!is.null(result)) result$value))
}

#' @exportS3Method criterion_detail_rows risk_cluster_risk
criterion_detail_rows.risk_cluster_risk <- function(criterion, data, context = NULL,
                                                    original = NULL, what = "the data",
                                                    keys = NULL, id = NULL) {
  cluster_detail_rows(data, keys, criterion$cluster, criterion$weights, original, what, id)
}

# Each unit's individual risk at the node (risk_individual(): 1 / f without
# weights, Benedetti-Franconi with them). Suppression removes whole classes,
# so the risk of a released unit does not depend on which other classes are
# suppressed: computed once per node.
unit_risk <- function(class_codes, unit_class, keys, weights) {
  if (!is.null(attr(class_codes, "sets"))) {
    # key sets: the risk depends on the classes only (1 / f, or the sums of
    # the weights per class)
    frame <- data.frame(class = unit_class)
    return(risk_individual(frame, "class", weights = weights)$per_record)
  }
  frame <- class_frame(class_codes, unit_class, seq_along(unit_class), keys)
  risk_individual(frame, keys, weights = weights)$per_record
}

# The expected share of released units re-identified when identifying one
# member of a cluster identifies all: r_h = 1 - prod(1 - r_i) over the
# cluster's released members, summed over the released units, over their
# number. An empty release has no risk.
cluster_share <- function(r, unit_class, kept, cluster) {
  rows <- kept[unit_class]
  if (!any(rows)) return(0)
  sum(cluster_member_risk(r[rows], cluster[rows])) / sum(rows)
}

check_cluster_criterion <- function(cluster_risk, data, person) {
  if (is.null(cluster_risk)) return(NULL)
  allowed <- c("cluster", "max", "weights")
  if (!is.list(cluster_risk) || is.null(names(cluster_risk)) ||
      !all(c("cluster", "max") %in% names(cluster_risk)) ||
      length(setdiff(names(cluster_risk), allowed)))
    abort_type("cluster_risk", "a list(cluster = , max = , weights = ) (weights optional)")
  max <- check_number(cluster_risk$max, lower = 0, upper = 1, arg = "cluster_risk")
  column <- cluster_risk$cluster
  if (!is.character(column) || length(column) != 1L || is.na(column) ||
      !column %in% names(data))
    epimask_abort("`cluster_risk$cluster` must name a column of `data` (each record's cluster).",
                  "epimask_error_name", arg = "cluster_risk")
  cl <- data[[column]]
  if (anyNA(cl))
    epimask_abort(sprintf("`cluster_risk$cluster` ('%s') must name a cluster for every record; %d %s NA.",
                          column, sum(is.na(cl)), if (sum(is.na(cl)) == 1L) "is" else "are"),
                  c("epimask_error_missing", "epimask_error_value"), arg = "cluster_risk")
  cl <- key_values(cl)
  if (!is.null(person)) {
    first <- match(seq_len(max(person)), person)
    if (any(cl != cl[first][person]))
      abort_value("cluster_risk", sprintf(paste0(
        "a cluster column ('%s') equal on all the records of a person (a person belongs ",
        "to one cluster)"), column))
    cl <- cl[first]
  }
  list(cluster = cl, max = max, column = column,
       weights = unit_weights(cluster_risk$weights, data, person, "cluster_risk"),
       weights_column = if (is.character(cluster_risk$weights)) cluster_risk$weights)
}

# The rows of cluster risk in the reports' risk tables: the expected
# re-identifications when a cluster falls with any member, their share and
# the highest cluster risk. A cluster column the release drops is taken from
# `original` (same records in the same order).
cluster_detail_rows <- function(data, keys, cl, weights, original, what, id) {
  out <- detail_rows()
  if (is.character(cl) && length(cl) == 1L && !cl %in% names(data)) {
    if (!is.null(original) && cl %in% names(original) && nrow(original) == nrow(data)) {
      data[[cl]] <- original[[cl]]
    } else {
      out$note(sprintf(
        "Cluster risk of %s: the cluster column '%s' is not in it, so it was not computed.",
        what, cl))
      return(out)
    }
  }
  ind <- detail_attempt(out, risk_individual(data, keys = keys, weights = weights, cluster = cl,
                                             id = id), "The cluster risk", what)
  if (is.null(ind)) return(out)
  keys_text <- paste(keys, collapse = ", ")
  out$add(sprintf("Clusters on %s: expected re-identifications (a cluster falls with any member)",
                  keys_text), ind$cluster_expected)
  out$add(sprintf("Clusters on %s: share of records re-identified", keys_text), ind$cluster_global)
  out$add(sprintf("Clusters on %s: highest cluster risk", keys_text), max(ind$cluster_risk))
  out$note(sprintf(
    "Cluster risk of %s: %s clusters%s; without clusters the expected re-identifications are %s.",
    what, format(ind$n_clusters, big.mark = ","),
    if (is.character(cl) && length(cl) == 1L) sprintf(" (column '%s')", cl) else "",
    format(signif(ind$expected, 4), big.mark = ",")))
  out
}

#' @exportS3Method criterion_detail_explanations risk_cluster_risk
criterion_detail_explanations.risk_cluster_risk <- function(criterion, context = NULL) {
  paste(
    "Cluster risk: when members of a household, family or care home are in the file",
    "together, identifying one of them identifies the others. A cluster's risk is the",
    "chance that at least one member is re-identified, 1 - prod(1 - r), given to every",
    "member; the expected number of re-identifications counts every member of every",
    "cluster so exposed.")
}

#' @exportS3Method criterion_limit_note risk_cluster_risk
criterion_limit_note.risk_cluster_risk <- function(criterion) {
  sprintf("The search required the expected share of records re-identified, counting clusters ('%s'), to be at most %s.",
          criterion$column %||% "given", format(criterion$bound))
}

#' @exportS3Method criterion_whole_release risk_cluster_risk
criterion_whole_release.risk_cluster_risk <- function(criterion) TRUE
