# l-diversity as a risk criterion (methods vignette, section 12;
# Machanavajjhala et al. 2007): every class of the keys holds at least l
# distinct values (or an entropy l, or recursive (c, l)) of every sensitive
# variable. On the risk scale 1 / l, the smallest l over the classes and the
# sensitive variables: an intruder who finds a person's class is that sure of
# the sensitive value.

#' l-diversity as a risk criterion
#'
#' Every equivalence class of the keys holds diverse values of every
#' `sensitive` variable (methods vignette, section 12): at least `l` distinct
#' values (`measure = "distinct"`), an entropy l \eqn{\exp(-\sum_s p_s \log
#' p_s)} of at least `l` (`"entropy"`), or recursive (c, l)-diversity
#' (`"recursive"`: \eqn{r_1 < c (r_l + \dots + r_m)}). On the risk scale the
#' value is \eqn{1 / l_{min}}, \eqn{l_{min}} the data's l of the measure (the
#' smallest over the classes and the sensitive variables), met when at most
#' \eqn{1 / l}. `NA` is a value of its own, as in [risk_ldiversity()].
#'
#' In the search of [ola()] the criterion is class-local: with `outliers =
#' "small"` every released class must meet it, with `"failing"` its failing
#' classes are suppressed. It is not used for predictive tagging (with the
#' classes smaller than k suppressed, meeting it at a node does not imply
#' meeting it at a coarser one). With a person column a class holds persons,
#' and a variable that varies within a person takes the person's set of
#' values.
#'
#' @param l The l required (a number >= 1), or `NA` (reported only: a
#'   profile's risk axis).
#' @param sensitive The sensitive columns (neither keys nor the person column).
#' @param measure `"distinct"`, `"entropy"` or `"recursive"`.
#' @param c The constant of recursive (c, l)-diversity.
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @return A risk criterion of class `c("risk_l_diversity", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' criterion_evaluate(l_diversity(2, "case"), d, keys = c("city", "sex", "age10"))
#' set.seed(1)
#' people <- data.frame(sex = sample(c("f", "m"), 300, TRUE),
#'                      age = sample(20:69, 300, TRUE),
#'                      dx = sample(c("flu", "asthma", "diabetes"), 300, TRUE))
#' h <- list(sex = hierarchy_flat(), age = hierarchy_numeric(c(5, 10, 20)))
#' ola(people, c("sex", "age"), h, criteria = list(k_anonymity(5), l_diversity(2, "dx")))
#' @export
l_diversity <- function(l, sensitive, measure = c("distinct", "entropy", "recursive"), c = 2,
                        keys = NULL) {
  if (!(length(l) == 1L && is.na(l))) l <- check_number(l, lower = 1)
  if (!is.character(sensitive) || !length(sensitive) || anyNA(sensitive))
    abort_type("sensitive", "the names of the sensitive columns")
  measure <- check_choice(measure, c("distinct", "entropy", "recursive"))
  c <- check_number(c, lower = 0, lower_open = TRUE)
  label <- switch(measure, distinct = "distinct l-diversity", entropy = "entropy l-diversity",
                  recursive = sprintf("recursive (c, l)-diversity, c = %s", format(c)))
  if (!is.na(l)) label <- sprintf("%s, l = %s", label, format(l))
  new_risk_criterion("l_diversity", l = l, sensitive = sensitive, measure = measure, c = c,
                     keys = keys, columns = sensitive,
                     label = sprintf("%s on %s", label, paste(sensitive, collapse = ", ")),
                     bound = 1 / as.double(l), monotone = FALSE,
                     explanation = paste("One over the smallest l of the classes: an intruder",
                                         "who finds a person's class is that sure of their",
                                         "sensitive value."))
}

#' @export
criterion_prepare.risk_l_diversity <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- criterion_prepare.default(criterion, data, keys = keys, id = id)
  if (length(intersect(criterion$sensitive, c(criterion$keys %||% keys, id))))
    abort_value("criteria", sprintf(
      "an l-diversity criterion whose sensitive columns (%s) are neither keys nor `id`",
      paste(criterion$sensitive, collapse = ", ")))
  criterion
}

#' @export
criterion_evaluate.risk_l_diversity <- function(criterion, release, original = NULL,
                                                keys = NULL, id = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "l-diversity")
  if (!is.null(na)) return(na)
  res <- risk_ldiversity(release, keys, criterion$sensitive, c = criterion$c, id = id)
  new_criterion_result(criterion, 1 / min(res[[paste0(criterion$measure, "_l")]]),
                       detail = res, unit = if (is.null(id)) "records" else "persons")
}

# Classes whose l of the measure is below l on any sensitive variable; 1e-9
# absorbs the rounding of exp(entropy).
#' @export
criterion_classes.risk_l_diversity <- function(criterion, node, ...) {
  fails <- rep(FALSE, length(node$size))
  for (s in criterion$sensitive) {
    d <- node_diversity(node, s, c = criterion$c)
    value <- switch(criterion$measure, distinct = d$distinct, entropy = d$entropy_l,
                    recursive = d$recursive)
    fails <- fails | value < criterion$l - 1e-9
  }
  fails
}

#' @exportS3Method criterion_sensitive risk_l_diversity
criterion_sensitive.risk_l_diversity <- function(criterion) {
  list(sensitive = criterion$sensitive, ordered = character())
}

#' @exportS3Method criterion_search_text risk_l_diversity
criterion_search_text.risk_l_diversity <- function(criterion, result = NULL) format(criterion)

# The per-class diversity of the sensitive variable `s` at a lattice node
# (src/diversity.c over the node's class table); with `q` the earth mover's
# distance to the overall distribution too.
node_diversity <- function(node, s, t = FALSE, c = 0) {
  lat <- node$lat
  j <- match(s, lat$sensitive)
  part <- lat$sens[[j]]
  table <- node$table
  class_diversity(node$cls$group, table$codes[, length(lat$keys) + j], length(node$size),
                  length(part$q), count = table$count, q = if (t) part$q,
                  ordered = part$ordered, c = c)
}

# risk_spec("ldiversity", keys, sensitive, measure, c) of epimask 0.3 (its
# measure was the entropy l by default).
risk_spec_as_ldiversity <- function(args) {
  as.call(c(list(as.name("l_diversity"), NA, args[["sensitive"]],
                 measure = args[["measure"]] %||% "entropy"), compact(list(c = args[["c"]], keys = args[["keys"]]))))
}
attr(risk_spec_as_ldiversity, "required") <- c("keys", "sensitive")
