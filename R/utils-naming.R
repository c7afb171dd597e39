# The naming rule of the package, stated once (issue 24): what a class and a
# column argument are called, so a new function follows it without asking.

#' How epimask names classes and column arguments
#'
#' One rule, in the terms of disclosure control, for every function.
#'
#' **Column arguments** name columns of the data by their role:
#' \describe{
#'   \item{`keys`}{the quasi-identifiers: categorical columns an intruder can
#'     link on, whose combinations form the equivalence classes
#'     ([risk_kanon()], [risk_individual()], [risk_suda()], [datafly()],
#'     [ola()], [risk_release()], [release_report()]).}
#'   \item{`vars`}{the masked columns: those a mask scheme changes
#'     ([apply_mask()], [ru_profile()], [bias_first_order()],
#'     [release_report()]).}
#'   \item{`known`, `unknown`}{the intruder's columns: the values the intruder
#'     holds for the target and links on, and those the intruder wants to
#'     learn ([risk_match()], [risk_linkage()], `risk_spec("match", known = )`,
#'     [ru_profile()]).}
#'   \item{`sensitive`}{the attributes whose disclosure l-diversity and
#'     t-closeness bound; `id` the column that identifies a person (several
#'     records per person) or a record.}
#' }
#' Data arguments are `data` (one data set), or `original` and `masked` (the
#' data before and after masking, in that order); `released` and `source` in
#' [risk_identifiability()], whose roles are not those of a mask.
#'
#' **Classes.** A result of an analysis is an S3 object of class
#' `epimask_<what>` (`epimask_kanon`, `epimask_match`, `epimask_glm`, ...) and
#' has `format()` (character lines) and `print()` (through `format()`), with
#' `summary()`, `plot()`, `as.data.frame()` and `tidy()` / `glance()` where
#' they make sense. The values of the package's small languages keep the names
#' the public API gave them: a mask scheme is `c("mask_<type>", "mask_scheme")`
#' (a list of schemes `mask_list`, its summary `mask_summary`), a risk-utility
#' profile `ru_profile` with its fitted curve `ru_curve`, a release setting
#' `release_context` assessed by [risk_release()] as `risk_release`, and the
#' simulation examples `zdl_sim` / `zdl_aggregate`. `summary()` of a class `X`
#' has class `summary.X`.
#'
#' **Renamed in version 0.3.0.** Names that broke the rule still work for one
#' release, with a warning of class `epimask_warning_deprecated`:
#' \itemize{
#'   \item `risk_linkage(vars = )` and `risk_spec("linkage", vars = )` are
#'     `known =` (the linked columns are the intruder's); the result's field
#'     `$vars` is `$known`.
#'   \item `bias_first_order(masked = )` and `bias_asymptotic(masked = )` are
#'     `vars =` (`masked` is the masked data set everywhere else).
#'   \item the result field `discernability` of [risk_kanon()], [datafly()]
#'     and [ola()] is spelled `discernibility`.
#' }
#'
#' @name epimask-naming
#' @family utilities
#' @examples
#' d <- dose_cohort[1:500, ]
#' noisy <- apply_mask(d, mask_noise(0.05), vars = "dose")
#' risk_linkage(d, noisy, known = "dose")
#' # the old name still works, with a classed warning
#' tryCatch(risk_linkage(d, noisy, vars = "dose"),
#'          epimask_warning_deprecated = function(w) conditionMessage(w))
NULL
