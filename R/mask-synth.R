# Synthetic releases as a mask type (methods vignette section 29): the scheme
# mask_synth() says how to synthesise (sequential conditional models in a
# visit order, m copies, the combining rules an analyst uses); apply_mask()
# with it returns the m synthetic copies (class epimask_synthetic,
# mask-synth-release.R), made by the engine of mask-synth-engine.R. Unlike the
# other types it replaces whole records, so it releases through
# mask_release() (mask-scheme.R) instead of mask_values().

#' Synthetic data: sequential conditional synthesis as a masking scheme
#'
#' A masking scheme whose release is not the data with some values changed
#' but `m` synthetic copies: new records drawn, column by column, from models
#' of each column given the columns before it, fitted to the original data
#' (sequential synthesis, Nowok, Raab & Dibben 2016; methods vignette,
#' section 29). [apply_mask()] with it returns an `epimask_synthetic` object
#' (a list of the `m` data frames with the rules to combine analyses of them;
#' see [epimask_synthetic]); [utility_glm()] and [ru_profile()] fit the
#' analyst's model to every copy and combine the fits by those rules, so a
#' synthetic release sits on the same risk-utility profile as rounding, noise
#' or generalization.
#'
#' **What is synthesised.** The columns `vars` (the scheme's own `vars`, else
#' those given to [apply_mask()] or [ru_profile()], else every column but
#' `id`) are synthesised in the order of `visit` (default: their order in the
#' data); every other column is kept as it is, record by record (a partially
#' synthetic release), and serves as a predictor of every synthesised
#' column. In a fully synthetic release the first column of the visit is
#' drawn from its marginal distribution; each later column from its model
#' given the kept columns and the columns visited before it, evaluated at the
#' synthetic values already drawn for the record.
#'
#' **Models** (`method`):
#' \describe{
#'   \item{`"cart"`}{a classification or regression tree of the column on
#'     its predictors ([rpart::rpart()], `minbucket` records at least in a
#'     leaf, grown until `minbucket` stops it unless `control$cp` says
#'     otherwise, no cross-validation, which the synthesis does not use). A synthetic record is sent down the tree and
#'     takes the value of a donor, an original record of its leaf. With
#'     `proper = TRUE` (default) the donors of each leaf are drawn with
#'     Bayesian-bootstrap weights (Rubin 1981; synthpop's former
#'     `"cart.bboot"`), one set of weights per leaf and copy, so that the
#'     copies vary as draws from the leaf's posterior would; with `proper =
#'     FALSE` uniformly (synthpop 1.9's `"cart"`). A factor predictor of more
#'     than 10 levels for a response of more than two classes enters the tree
#'     as the rank of its levels on the first principal component of their
#'     class profiles (Coppersmith, Hong & Hosking 1999), so that the tree
#'     searches \eqn{L - 1} splits instead of \eqn{2^{L-1} - 1}.}
#'   \item{`"parametric"`}{a normal linear model for numbers and dates,
#'     logistic regression for two categories ([irls_fit()]) and multinomial
#'     logistic regression for more ([nnet::multinom()]); with `proper =
#'     TRUE` the parameters of each copy are drawn from their posterior
#'     (normal model: \eqn{\sigma^2} scaled inverse chi-square, \eqn{\beta}
#'     normal; logistic: normal with the fit's covariance; multinomial: a
#'     bootstrap refit, as synthpop does), otherwise the fitted values are
#'     used. Draws outside the observed range of a column are set to its
#'     nearer end, and rounded to its precision.}
#'   \item{`"sample"`}{every synthesised column drawn from its own marginal
#'     distribution, independently of the others (with the Bayesian
#'     bootstrap when `proper`): the strongest synthesis, which keeps the
#'     margins and nothing else.}
#' }
#' With `smooth = TRUE`, numbers and dates drawn from donors (`"cart"`,
#' `"sample"`) get Gaussian kernel noise with the Sheather-Jones bandwidth of
#' the observed values (Silverman's rule where it fails), as synthpop's
#' `smoothing = "density"`: a value that holds more than 70% of a column (a
#' point mass such as 0) is not smoothed, results are kept within the
#' observed range and rounded to the column's precision.
#'
#' **Types and missing values.** Factors (and ordered factors) stay factors
#' with their levels, character and logical columns stay so, integers stay
#' integers, dates (Date, POSIXct with its time zone) stay dates. A missing
#' value of a factor, character or logical column is a category of its own;
#' in a number or date column, whether it is missing is synthesised first
#' (a model of the missingness indicator), then the value of the records
#' drawn as not missing. Fallbacks, recorded in the release's `methods`:
#' a column with one value (and no NA) is released as that value
#' (`"constant"`), a column of NA only as NA (`"all NA"`); a factor or
#' character column of more than `control$max_levels` categories (default
#' 60, as synthpop) is drawn from its marginal and is no predictor of
#' others (`"sample (too many levels)"`, with a warning of class
#' `epimask_warning_synth_levels`: such a column is often an identifier,
#' which belongs in `id` or out of the release).
#'
#' **Persons** (`id`). With a person column, a person's records are
#' synthesised together: the columns that are constant within every person
#' (sex, birth date, ...) are person-level and synthesised once per person,
#' in a table of one row per person that also holds the person's number of
#' records (drawn first, from its marginal, in a fully synthetic release);
#' each synthetic person is then given that many records, and the
#' record-level columns are synthesised record by record given the
#' person-level values, the record's position within the person (its rank
#' in the data's row order) and the record-level columns visited before.
#' So the number of records per person, the person-level values and their
#' relation to the records are kept; intervals between a person's dates are
#' not kept exactly (each record's date is its own draw). The person column
#' itself is never synthesised nor released: it is replaced by new labels
#' (1, 2, ... for a numeric column, `"s1"`, `"s2"`, ... otherwise) in the
#' order of the persons in the copy, which a seed cannot undo.
#'
#' **Original records.** The synthesis never copies a record: each value is
#' drawn by its own model. But donors give original values, so a synthetic
#' record can come out equal, on every released column, to an original
#' record that no other original record equals, which releases that
#' person's whole record (a combination several original records share is
#' a combination, not one person's record). Such records are counted in
#' every copy (the release's `original_records`) and released with a
#' warning of class `epimask_warning_synth_original` giving their number.
#' They are common when few columns are synthesised or numbers are exact:
#' when a number is visited after category columns, the leaves of its tree
#' hold records of one combination of the categories, so its donor is a
#' record with the synthetic record's categories and the whole record is
#' copied (measured: all 4,000 records of every copy, for a factor, a binary
#' factor and a normal number; the test suite has it). Smoothing (`smooth =
#' TRUE`) gives numbers and dates new values (fewer than 25 of 200 records
#' left, against over 50); more and coarser columns make them rare. `control$max_redraw` (default 0) draws them
#' again, whole, up to that many times, which removes most of them at a
#' price: a redraw is accepted only when the record differs from the
#' data's, so the synthesis avoids the data's own combinations (with a
#' continuous and a binary column, every accepted record takes the other
#' value of the binary one: the association is reversed). In a partially
#' synthetic release the kept columns are original by the custodian's
#' choice; records whose synthesised values all came out as their own are
#' counted, never redrawn.
#'
#' **Control set for attacks.** `holdout` is a share of the records (of the
#' persons, with `id`) drawn at random and left out of the synthesis: the
#' models never see them, so an attack on the release can compare how well
#' it does on the records synthesised from with how well it does on these
#' (the control set of the attacks of `risk_singling_out()` and its
#' kin, after anonymeter, Giomi et al. 2023). The release records their row
#' numbers in the original data (`attr(release, "synthesis")$holdout`,
#' 1-based and increasing; also `holdout_rows(release)`): indices only,
#' never values. The copies then have the size of the records synthesised
#' from, and the combining rules use that size as the original's.
#'
#' **Combining rules** (`rules`; see [combine_synthetic()]): `"auto"` takes
#' the simplified rules of Raab, Nowok & Dibben (2016) for a fully synthetic
#' release (`"simple"`) and Reiter's (2003) rules for a partially synthetic
#' one (`"partial"`); `"full"` asks for Raghunathan, Reiter & Rubin's (2003)
#' rules for fully synthetic data.
#'
#' **Degree.** For `"cart"` the degree (and the strength of
#' [mask_sweep()]) is `minbucket`: larger leaves pool more original records
#' and the synthetic records follow the data less closely, from weak to
#' strong, e.g. `mask_sweep(mask_synth, minbucket = c(5, 25, 100, 500))`.
#'
#' **Speed.** Each model is fitted once to the original data (a tree or a
#' regression does not depend on the copy; with `proper = TRUE` the copies
#' differ by their draws, not their fits), then the `m` copies are drawn;
#' the donor sampling and the Bayesian bootstrap run in C. With
#' `control$parallel = TRUE` the copies are drawn on the current
#' [future::plan()], with the serial result.
#'
#' @param method `"cart"`, `"parametric"` or `"sample"` (see Details).
#' @param visit `NULL` or the synthesised columns in the order they are
#'   synthesised (each once; with `vars` not given, the columns to
#'   synthesise).
#' @param m Number of synthetic copies, from 1 to 1000.
#' @param minbucket For `"cart"`, the least number of original records in a
#'   leaf (at least 1).
#' @param smooth Smooth numbers and dates drawn from donors by Gaussian
#'   kernel noise (see Details).
#' @param proper Draw each copy's parameters (leaf weights, regression
#'   coefficients) from their posterior (`TRUE`), or use the fitted ones.
#' @param id `NULL` or the person column: a person's records are synthesised
#'   together (see Details).
#' @param holdout Share of the records (persons) left out of the synthesis
#'   as the attacks' control set, in \[0, 0.9\].
#' @param rules `"auto"`, `"simple"`, `"partial"` or `"full"`: the combining
#'   rules recorded with the release (see [combine_synthetic()]).
#' @param vars `NULL` or the columns to synthesise, overriding those of the
#'   call (so that a profile can hold a fully synthetic release beside
#'   schemes that mask a few columns).
#' @param control Options from [synth_control()].
#' @return A `mask_scheme` of class `c("mask_synth", "mask_scheme")` with
#'   `degree` `minbucket` (`"cart"`; 0 otherwise), a random scheme.
#' @references Nowok B, Raab GM, Dibben C (2016). synthpop: bespoke creation
#'   of synthetic data in R. \emph{Journal of Statistical Software} 74(11).
#'   \doi{10.18637/jss.v074.i11}
#'
#'   Reiter JP (2005). Using CART to generate partially synthetic public use
#'   microdata. \emph{Journal of Official Statistics} 21(3), 441-462.
#'
#'   Rubin DB (1981). The Bayesian bootstrap. \emph{Annals of Statistics}
#'   9(1), 130-134.
#'
#'   Coppersmith D, Hong SJ, Hosking JRM (1999). Partitioning nominal
#'   attributes in decision trees. \emph{Data Mining and Knowledge Discovery}
#'   3, 197-217.
#' @seealso [epimask_synthetic] (the release), [combine_synthetic()],
#'   [fit_synthetic()], [replicated_uniques()], [disco()].
#' @family masking schemes
#' @examples
#' set.seed(1)
#' d <- data.frame(age = round(runif(300, 20, 80)),
#'                 sex = factor(sample(c("f", "m"), 300, TRUE)))
#' d$sbp <- round(100 + 0.5 * d$age + 5 * (d$sex == "m") + rnorm(300, 0, 8))
#' scheme <- mask_synth(m = 3)
#' scheme
#' syn <- apply_mask(d, scheme)
#' syn
#' utility_glm(d, syn, sbp ~ age + sex)
#' # partially synthetic: only sbp is synthesised, age and sex kept
#' apply_mask(d, mask_synth(m = 2, method = "parametric"), vars = "sbp")
#' mask_sweep(mask_synth, minbucket = c(5, 50))
#' @export
mask_synth <- function(method = c("cart", "parametric", "sample"), visit = NULL, m = 5,
                       minbucket = 5, smooth = FALSE, proper = TRUE, id = NULL, holdout = 0,
                       rules = c("auto", "simple", "partial", "full"), vars = NULL,
                       control = synth_control()) {
  method <- check_choice(method, c("cart", "parametric", "sample"), arg = "method")
  rules <- check_choice(rules, c("auto", "simple", "partial", "full"), arg = "rules")
  if (!is.null(visit) && (!is.character(visit) || !length(visit) || anyNA(visit)))
    abort_type("visit", "NULL or a character vector of column names")
  if (!is.null(visit) && anyDuplicated(visit))
    abort_value("visit", sprintf("columns named once each ('%s' is repeated)",
                                 visit[anyDuplicated(visit)]))
  if (!is.null(vars) && (!is.character(vars) || !length(vars) || anyNA(vars)))
    abort_type("vars", "NULL or a character vector of column names")
  m <- check_number(m, "m", lower = 1, upper = 1000, integer = TRUE)
  minbucket <- check_number(minbucket, "minbucket", lower = 1, upper = .Machine$integer.max,
                            integer = TRUE)
  smooth <- check_flag(smooth, "smooth")
  proper <- check_flag(proper, "proper")
  id <- check_string(id, "id", allow_null = TRUE)
  holdout <- check_number(holdout, "holdout", lower = 0, upper = 0.9)
  if (!inherits(control, "epimask_synth_control"))
    abort_type("control", "a synth_control() object")
  control <- do.call(synth_control, unclass(control))
  if (!is.null(id) && id %in% c(visit, vars))
    abort_value("id", sprintf("a person column that is not synthesised ('%s' is in %s)", id,
                              if (id %in% visit) "`visit`" else "`vars`"))
  new_mask_scheme("synth", method = method,
                  degree = if (method == "cart") minbucket else 0,
                  label = synth_label(method, m, minbucket, smooth),
                  visit = visit, m = as.integer(m), minbucket = as.integer(minbucket),
                  smooth = smooth, proper = proper, id = id, holdout = holdout, rules = rules,
                  vars = vars, control = control, random = TRUE)
}

synth_label <- function(method, m, minbucket, smooth) {
  paste0("synth ", method, if (method == "cart") sprintf(" mb %d", as.integer(minbucket)),
         if (smooth) " smooth", sprintf(" m %d", as.integer(m)))
}

#' Options of a synthesis
#'
#' @param cp Complexity parameter of the trees ([rpart::rpart.control()]):
#'   a split must lower the tree's risk by this share. The default 0 grows
#'   each tree until `minbucket` stops it (passed to rpart as a negative
#'   `cp`). rpart measures the risk of a classification tree by its
#'   misclassification, which a split that leaves the majority class of both
#'   children unchanged does not lower; with synthpop's `cp = 1e-8` such
#'   splits are pruned, and a tree of a binary `y` on a factor `x` can pool
#'   categories with \eqn{P(y = 1)} of 0.1 and 0.4 in one leaf, which the
#'   synthetic data then share (the test suite shows it).
#' @param max_levels Factor and character columns of more categories are
#'   drawn from their marginal and predict nothing (see [mask_synth()]).
#' @param max_redraw Times a synthetic record equal to a unique original
#'   record is drawn again before it is released with a warning (default 0:
#'   counted and reported only; redraws bias the synthesis, see
#'   [mask_synth()]).
#' @param maxit Iterations of the multinomial fits ([nnet::multinom()]).
#' @param parallel Draw the copies on the current [future::plan()] (needs
#'   \pkg{future.apply}); the result is that of the serial run.
#' @return An object of class `epimask_synth_control`.
#' @family masking schemes
#' @examples
#' synth_control(cp = 1e-4)
#' mask_synth(control = synth_control(max_levels = 100))
#' @export
synth_control <- function(cp = 0, max_levels = 60, max_redraw = 0, maxit = 1000,
                          parallel = FALSE) {
  structure(list(cp = check_number(cp, "cp", lower = 0, upper = 1),
                 max_levels = as.integer(check_number(max_levels, "max_levels", lower = 2,
                                                      upper = 1e6, integer = TRUE)),
                 max_redraw = as.integer(check_number(max_redraw, "max_redraw", lower = 0,
                                                      upper = 1000, integer = TRUE)),
                 maxit = as.integer(check_number(maxit, "maxit", lower = 1, upper = 1e6,
                                                 integer = TRUE)),
                 parallel = check_flag(parallel, "parallel")),
            class = "epimask_synth_control")
}

#' @export
format.epimask_synth_control <- function(x, ...) {
  sprintf("<synth_control> cp %s, max_levels %d, max_redraw %d, maxit %d%s",
          format(x$cp), x$max_levels, x$max_redraw, x$maxit,
          if (x$parallel) ", copies on the future plan" else "")
}

#' @export
print.epimask_synth_control <- function(x, ...) print_formatted(x, ...)

# ---- the methods of the synthesis type -------------------------------------------------

#' @export
mask_validate.mask_synth <- function(scheme, ...) {
  mask_synth(scheme$method, scheme$visit, scheme$m, scheme$minbucket, scheme$smooth,
             scheme$proper, scheme$id, scheme$holdout, scheme$rules, scheme$vars,
             scheme$control)
}

# Synthesis replaces whole records: there are no masked values of given
# columns to return.
#' @export
mask_values.mask_synth <- function(scheme, x, data, ...) {
  abort_type("scheme", paste("a scheme that masks values; mask_synth() releases synthetic copies",
                             "of whole records: use apply_mask(data, scheme)"))
}

#' @export
mask_release.mask_synth <- function(scheme, data, vars, ...) synthesise(data, scheme, vars)

#' @export
format.mask_synth <- function(x, ...) {
  revalidate_scheme(x, "x")
  what <- switch(x$method,
                 cart = sprintf("CART, minbucket %d%s", x$minbucket,
                                if (x$proper) ", Bayesian bootstrap of leaves" else ""),
                 parametric = sprintf("parametric models%s",
                                      if (x$proper) ", parameters drawn" else ""),
                 sample = sprintf("sampling from the margins%s",
                                  if (x$proper) ", Bayesian bootstrap" else ""))
  paste0(sprintf("synthesis (%s%s), m = %d", what, if (x$smooth) ", smoothed" else "", x$m),
         if (!is.null(x$id)) sprintf(", persons by '%s'", x$id) else "",
         if (x$holdout > 0) sprintf(", holdout %s", format(x$holdout, digits = 3)) else "")
}

#' @export
mask_details.mask_synth <- function(x) {
  c(if (!is.null(x$visit)) sprintf("  visit: %s", paste(x$visit, collapse = " > ")),
    if (!is.null(x$vars)) sprintf("  synthesises: %s", paste(x$vars, collapse = ", ")),
    sprintf("  combining rules: %s", x$rules))
}

#' @export
scheme_label.mask_synth <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  synth_label(scheme$method, scheme$m, scheme$minbucket, scheme$smooth)
}

#' @export
mask_generator.mask_synth <- function(scheme, ...) {
  sprintf("synthesis (%s%s)", scheme$method, if (scheme$smooth) ", smoothed" else "")
}

#' @export
mask_strength.mask_synth <- function(scheme, ...) {
  if (scheme$method == "cart") as.double(scheme$minbucket) else NA_real_
}

#' @export
mask_traits.mask_synth <- function(scheme, ...) list(random = TRUE, dates = TRUE)

#' @export
summary.mask_synth <- function(object, data, vars = NULL, ...) {
  revalidate_scheme(object, "object")
  if (missing(data)) abort_type("data", "a data frame to summarise the synthesis on")
  summary(apply_mask(data, object, vars))
}
