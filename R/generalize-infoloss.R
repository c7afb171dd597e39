# Information loss of a generalized release (methods vignette section 16), so that Datafly's
# greedy release and the optimal one can be compared on the same scale.

#' Information loss of a generalized release
#'
#' The information lost by a [datafly()] or [ola()] release, \eqn{n} records
#' and \eqn{A} keys, suppressed records counting as fully generalized (methods vignette,
#' section 16):
#'
#' * `"entropy"`: non-uniform entropy (Gionis & Tassa 2009),
#'   \eqn{\sum_i \sum_v -\log_2 P(x_{iv} \mid g_{iv})}, with \eqn{P} the share,
#'   among the original records in the generalized value's group, of those
#'   with the record's original value (for a suppressed record the group is
#'   every record). In bits; 0 when nothing is generalized.
#' * `"precision"`: Sweeney's precision loss,
#'   \eqn{\frac{1}{nA} \sum_i \sum_v h_{iv} / H_v}, with \eqn{h_{iv}} the
#'   level of key \eqn{v} (its top \eqn{H_v} for a suppressed record); from 0
#'   to 1 (precision is one minus it). A key with a single level (one value
#'   in the data) counts 0 for a released record, 1 for a suppressed one.
#' * `"discernibility"`: \eqn{\sum f_j^2} over released classes plus \eqn{n}
#'   per suppressed record (Bayardo & Agrawal 2005).
#' * `"avg_class_size"`: the normalized average class size,
#'   (released records / released classes) / k; \eqn{n/k} when every record is
#'   suppressed.
#'
#' The losses are computed when the release is made (they need the original
#' values, which the release no longer holds) and stored in it.
#'
#' @param x A [datafly()] or [ola()] result.
#' @param metric One of the four metrics, or `"all"` for a named vector of the
#'   four; `"analysis"` for the analysis loss of an [ola()] release made with
#'   `metric = analysis_loss(...)` ([analysis_loss()]).
#' @return A number (or the named vector).
#' @references Gionis A, Tassa T (2009). k-Anonymization with minimal loss of
#'   information. IEEE TKDE 21, 206-219. Sweeney L (2002). Achieving
#'   k-anonymity privacy protection using generalization and suppression.
#'   Bayardo RJ, Agrawal R (2005). Data privacy through optimal
#'   k-anonymization. ICDE.
#' @family generalization
#' @examples
#' d <- data.frame(age = c(23, 25, 27, 31, 33, 38, 41, 44),
#'                 sex = c("f", "m", "f", "m", "f", "m", "f", "m"))
#' h <- list(age = hierarchy_numeric(c(10, 20)), sex = hierarchy_flat())
#' rel <- ola(d, c("age", "sex"), h, criteria = k_anonymity(2), max_suppress = 0)
#' info_loss(rel, "precision")
#' info_loss(datafly(d, c("age", "sex"), h, k = 2, max_suppress = 0), "all")
#' @export
info_loss <- function(x, metric = c(loss_metrics, "analysis", "all")) {
  if (!inherits(x, c("epimask_datafly", "epimask_ola")) || is.null(x$info_loss))
    abort_type("x", "a datafly() or ola() result")
  metric <- check_choice(metric, c(loss_metrics, "analysis", "all"))
  if (metric == "all") return(x$info_loss[loss_metrics])
  if (metric == "analysis" && is.na(x$info_loss["analysis"]))
    abort_value("metric", "\"analysis\" only for an ola() release made with metric = analysis_loss()")
  x$info_loss[[metric]]
}
