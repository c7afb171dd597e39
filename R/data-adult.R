#' An extract of the UCI Adult census data
#'
#' 4,000 records drawn at random from the Adult data of the UCI Machine
#' Learning Repository (Becker & Kohavi 1996; extracted from the 1994 US
#' Current Population Survey), the standard benchmark of k-anonymity tools
#' (ARX, and the OLA and Flash papers use its 30,162 complete training
#' records). These are real (public, census-weighted) records, not synthetic
#' ones: they are here so that the de-identification examples run where the
#' whole data set is not at hand.
#'
#' @details
#' Script `data-raw/adult_extract.R` in the package sources: the 30,162
#' records of the training file `adult.data` without a missing value, 4,000
#' of them drawn with `set.seed(29); sort(sample(30162, 4000))`, with the
#' columns below (renamed with underscores; `fnlwgt`, `education-num`,
#' `relationship`, `capital-gain` and `capital-loss` left out). With the
#' seven quasi-identifiers age, sex, race, marital status, education, native
#' country and work class, 1,873 of the 4,000 records are unique.
#'
#' @format A data frame with 4,000 rows and 10 columns:
#' \describe{
#'   \item{age}{Integer age in years, 17 to 90.}
#'   \item{sex}{Factor, `"Female"` or `"Male"`.}
#'   \item{race}{Factor with 5 levels.}
#'   \item{marital_status}{Factor with 7 levels.}
#'   \item{education}{Factor with 16 levels (highest degree).}
#'   \item{native_country}{Factor: country of birth (`"United-States"` for
#'     most).}
#'   \item{workclass}{Factor with the work classes of the data.}
#'   \item{occupation}{Factor with the occupations of the data.}
#'   \item{hours_per_week}{Integer hours worked per week.}
#'   \item{income}{Factor, `"<=50K"` or `">50K"` (annual income in US
#'     dollars).}
#' }
#' @source Becker B, Kohavi R (1996). Adult. UCI Machine Learning
#'   Repository. \doi{10.24432/C5XW20}. Licensed under the Creative Commons
#'   Attribution 4.0 International licence (CC BY 4.0,
#'   <https://creativecommons.org/licenses/by/4.0/>), which allows sharing
#'   and adapting with attribution; this extract is a random subset of rows
#'   and columns, as described above.
#' @seealso [ola()], [deidentify()], `vignette("deidentify-adult")`
#' @family data and simulation
#' @examples
#' keys <- c("age", "sex", "race", "marital_status", "education",
#'           "native_country", "workclass")
#' risk_kanon(adult_extract, keys)
"adult_extract"
