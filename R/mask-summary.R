# What a scheme does to a given data set, for the custodian: how many values
# it changes (top coding: how many it codes; PRAM: the transition matrices
# applied). A scheme is a rule without data, so this is a separate summary,
# never attached to a release.

#' What a masking scheme changes in a data set
#'
#' Applies `object` to `data` once and reports, per masked variable, the
#' number of non-missing values and how many (and what share) the release
#' changes. Top and bottom coding add the number of values above `upper` and
#' below `lower` (the coded share); PRAM adds the transition matrices
#' \eqn{P} and (invariant PRAM) \eqn{R = P Q} applied to each variable. For a
#' randomized scheme the counts are those of one draw (from R's random
#' number generator). The summary is for the custodian: it describes the
#' original data and the masking parameters, so it is not part of a
#' release.
#'
#' @param object A `mask_scheme`.
#' @param data,vars As in [apply_mask()].
#' @param ... Unused.
#' @return A `mask_summary`: a list with `scheme` (its format), `table` (a
#'   data frame with columns `variable`, `n`, `changed`, `share`, and for
#'   top coding `above`, `below`) and, for PRAM, `transition` (per variable a
#'   list of `P` and `R`).
#' @family masking schemes
#' @examples
#' d <- data.frame(age = c(34, 67, 88, 90, 93, 101))
#' summary(mask_topcode(upper = 90), d)
#' @export
summary.mask_scheme <- function(object, data, vars = NULL, ...) {
  revalidate_scheme(object, "object")
  if (missing(data)) abort_type("data", "a data frame or matrix to summarise the scheme on")
  data <- check_data(data, "data")
  vars <- mask_vars(data, vars, is_categorical_scheme(object), scheme_traits(object)$dates)
  released <- apply_mask(data, object, vars)
  column <- function(d, v) if (is.matrix(d)) d[, v] else d[[v]]
  table <- do.call(rbind, lapply(vars, function(v) {
    before <- column(data, v)
    after <- column(released, v)
    present <- !is.na(before)
    changed <- sum(present & as.character(before) != as.character(after), na.rm = TRUE)
    if (is.numeric(before) || inherits(before, c("Date", "POSIXct")))
      changed <- sum(present & as.double(before) != as.double(after), na.rm = TRUE)
    row <- data.frame(variable = if (is.character(v)) v else colnames(data)[v] %||% as.character(v),
                      n = sum(present), changed = changed,
                      share = if (any(present)) changed / sum(present) else NA_real_,
                      stringsAsFactors = FALSE)
    for (nm in names(extra <- summary_columns(object, before, present))) row[[nm]] <- extra[[nm]]
    row
  }))
  out <- c(list(scheme = format(object), table = table), summary_extra(object, data, vars))
  structure(out, class = "mask_summary")
}

# A type's own columns of the summary table (top coding: values above and
# below the bounds), from one variable's original values; and its own parts
# of the summary (PRAM: the transition matrices).
summary_columns <- function(scheme, before, present) UseMethod("summary_columns")

#' @export
summary_columns.default <- function(scheme, before, present) list()

summary_extra <- function(scheme, data, vars) UseMethod("summary_extra")

#' @export
summary_extra.default <- function(scheme, data, vars) list()

#' @export
format.mask_summary <- function(x, ...) {
  utils::capture.output({
    cat("<mask_summary> ", x$scheme, "\n", sep = "")
    tab <- x$table
    tab$share <- sprintf("%.2f%%", 100 * tab$share)
    print(tab, row.names = FALSE)
    for (v in names(x$transition)) {
      tr <- x$transition[[v]]
      cat(sprintf("\ntransition matrix applied to '%s'%s:\n", v,
                  if (identical(tr$P, tr$R)) "" else " (R = P Q, invariant)"))
      print(round(tr$R, 4))
    }
  })
}

#' @export
print.mask_summary <- function(x, ...) print_formatted(x, ...)
