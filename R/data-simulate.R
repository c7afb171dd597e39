# The three simulation examples of Zhou, Dominici & Louis (2010), in the fixed
# version of the methods vignette, section 10: the paper's exact exposure surfaces were
# lost, so the package defines them here and every study built on them is
# reproducible from a seed.

zdl_beta <- c("(Intercept)" = 1, x = 2)
zdl_source <- c(0, 0)
zdl_direction <- c(1, 0)

#' Simulate the three spatial examples of Zhou, Dominici and Louis
#'
#' Draws one data set of the simulation study of Zhou et al. (2010) as fixed
#' in methods vignette, section 10: `n` locations uniform on the study area
#' \eqn{[-1, 1]^2}, a point source \eqn{c = (0, 0)}, distance
#' \eqn{d(s) = \|s - c\|}, an exposure surface \eqn{x(s)} that depends on the
#' example, and a Poisson outcome \eqn{y \sim \mathrm{Poisson}(\exp(1 + 2x))}.
#'
#' The exposure of the three examples:
#' \describe{
#'   \item{I (point source)}{\eqn{x = \exp(-2 d)}; prior-knowledge kernel `"ring"`.}
#'   \item{II (directional)}{\eqn{x = \exp(-2 d)(1 + \cos\alpha)/2}, where
#'     \eqn{\alpha(s) \in [0, \pi]} is the angle between \eqn{s - c} and the
#'     direction \eqn{(1, 0)}; prior-knowledge kernel `"ring_angle"`.}
#'   \item{III (blocked)}{\eqn{x = \exp(-2 d)} outside the blocked area
#'     \eqn{\{s_1 > 0.25, |s_2| < 0.5\}} and 0 inside it; prior-knowledge kernel
#'     `"ring_block"` with `groups = blocked`.}
#' }
#' The columns `d`, `alpha` and `blocked` are returned in every example (the
#' blocked-area indicator is the same region in all three, so the
#' `"ring_block"` kernel can be compared across examples), but only example III
#' sets the exposure to zero in the blocked area. At the source itself, where
#' the angle is undefined, `alpha` is 0.
#'
#' Random numbers are drawn in a fixed order: first the `n` first coordinates,
#' then the `n` second coordinates (both `runif(n, -1, 1)`), then the outcome
#' (`rpois`). [zdl_simulator()] redraws only the outcome, with the exposure
#' fixed, as in the paper's 500 outcome replicates.
#'
#' @param example The example: 1, 2 or 3 (or `"I"`, `"II"`, `"III"`). The
#'   default, like [match.arg()], chooses the first (example I).
#' @param n Number of locations (default 1000, as in the paper; at most 1e7).
#' @param seed `NULL` (default) to use the current state of R's random number
#'   generator, or a number: the data are then drawn after `set.seed(seed)`,
#'   and the caller's random number stream (`.Random.seed`) is restored
#'   afterwards, so a seeded call leaves the global RNG state untouched.
#' @return A data frame of class `zdl_sim` with `n` rows and columns `s1`,
#'   `s2` (coordinates), `d` (distance to the source), `alpha` (angle to the
#'   direction, in radians), `blocked` (logical, inside the blocked area), `x`
#'   (exposure) and `y` (count). The attribute `"zdl"` is a list with the
#'   `example` (1, 2 or 3), the true `beta` (`c("(Intercept)" = 1, x = 2)`),
#'   the `source` (0, 0), the `direction` (1, 0) and the name of the
#'   prior-knowledge `kernel`. Use [zdl_truth()] for the true coefficient and
#'   [zdl_simulator()] for the outcome-redrawing function of `ru_profile()`.
#' @references Zhou Y, Dominici F, Louis TA (2010). A smoothing approach for
#'   masking spatial data. *Annals of Applied Statistics* 4(3), 1451-1475.
#'   \doi{10.1214/09-AOAS325}
#' @seealso [zdl_truth()], [zdl_simulator()], [zdl_aggregate()]
#' @md
#' @family data and simulation
#' @export
#' @examples
#' sim <- simulate_zdl(2, n = 200, seed = 1)
#' sim
#' coef(glm(y ~ x, family = poisson(), data = sim))
#' zdl_truth(sim)
simulate_zdl <- function(example = 1:3, n = 1000, seed = NULL) {
  example <- check_zdl_example(example)
  # bounded before anything is allocated: 1e7 records take about 1 GB
  n <- check_number(n, "n", lower = 1, upper = 1e7, integer = TRUE)
  seed <- check_number(seed, allow_null = TRUE, lower = -.Machine$integer.max,
                       upper = .Machine$integer.max)
  with_local_seed(seed, draw_zdl(example, n))
}

draw_zdl <- function(example, n) {
  s1 <- stats::runif(n, -1, 1)
  s2 <- stats::runif(n, -1, 1)
  design <- zdl_design(s1, s2, example)
  design$y <- draw_zdl_outcome(design$x)
  new_zdl_sim(design, example)
}

# The exposure surface of methods vignette section 10 at the given locations.
zdl_design <- function(s1, s2, example) {
  d <- sqrt((s1 - zdl_source[1L])^2 + (s2 - zdl_source[2L])^2)
  alpha <- angle_to_direction(s1 - zdl_source[1L], s2 - zdl_source[2L],
                              zdl_direction)
  blocked <- s1 > 0.25 & abs(s2) < 0.5
  x <- switch(example,
    exp(-2 * d),
    exp(-2 * d) * (1 + cos(alpha)) / 2,
    exp(-2 * d) * !blocked
  )
  data.frame(s1 = s1, s2 = s2, d = d, alpha = alpha, blocked = blocked, x = x)
}

# Angle in [0, pi] between each vector (u1, u2) and `direction`; atan2 of the
# cross and dot products stays accurate near 0 and pi, where acos does not.
angle_to_direction <- function(u1, u2, direction) {
  cross <- direction[1L] * u2 - direction[2L] * u1
  dot <- direction[1L] * u1 + direction[2L] * u2
  atan2(abs(cross), dot)
}

draw_zdl_outcome <- function(x) {
  stats::rpois(length(x), exp(zdl_beta[[1L]] + zdl_beta[[2L]] * x))
}

new_zdl_sim <- function(data, example) {
  attr(data, "zdl") <- list(
    example = example,
    beta = zdl_beta,
    source = zdl_source,
    direction = zdl_direction,
    kernel = c("ring", "ring_angle", "ring_block")[example]
  )
  class(data) <- c("zdl_sim", "data.frame")
  data
}

check_zdl_example <- function(example) {
  if (identical(example, 1:3)) return(1L)
  roman <- c("I", "II", "III")
  if (is.character(example) && length(example) == 1L && !is.na(example)) {
    check_utf8(example, "example")
    hit <- match(toupper(example), roman)
    if (is.na(hit))
      abort_value("example", sprintf("1, 2, 3, \"I\", \"II\" or \"III\", not \"%s\"", example))
    return(hit)
  }
  if (!is.numeric(example) || length(example) != 1L || is.na(example) ||
      !example %in% 1:3)
    abort_value("example", "1, 2, 3, \"I\", \"II\" or \"III\"")
  as.integer(example)
}

# Run `expr` after set.seed(seed) and put the caller's RNG state back, so a
# seeded call neither depends on nor disturbs the user's random stream.
with_local_seed <- function(seed, expr) {
  if (is.null(seed)) return(expr)
  genv <- globalenv()
  had_seed <- exists(".Random.seed", envir = genv, inherits = FALSE)
  if (had_seed) old_seed <- get(".Random.seed", envir = genv, inherits = FALSE)
  on.exit({
    if (had_seed) assign(".Random.seed", old_seed, envir = genv)
    else if (exists(".Random.seed", envir = genv, inherits = FALSE))
      rm(".Random.seed", envir = genv)
  }, add = TRUE)
  set.seed(seed)
  expr
}

zdl_info <- function(sim, arg = "sim") {
  info <- attr(sim, "zdl", exact = TRUE)
  if (!is.data.frame(sim) || !is.list(info) || is.null(info$beta))
    abort_type(arg, "a simulated data set from simulate_zdl()")
  info
}

#' True coefficients of a simulated example
#'
#' @param sim A data set from [simulate_zdl()] (or one derived from it that
#'   kept its `"zdl"` attribute).
#' @param term The coefficient(s): `"x"` (the exposure coefficient
#'   \eqn{\beta_1 = 2}, the default) and/or `"(Intercept)"`
#'   (\eqn{\beta_0 = 1}).
#' @return The true value: a single unnamed number for one term (ready for
#'   `ru_profile(truth = )`), a named vector for several.
#' @md
#' @family data and simulation
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 100, seed = 1)
#' zdl_truth(sim)
#' zdl_truth(sim, c("(Intercept)", "x"))
zdl_truth <- function(sim, term = "x") {
  beta <- zdl_info(sim)$beta
  if (!is.character(term) || length(term) == 0L || anyNA(term))
    abort_type("term", "a character vector of coefficient names")
  unknown <- setdiff(term, names(beta))
  if (length(unknown)) abort_name("term", unknown, "the true coefficients")
  if (length(term) == 1L) unname(beta[[term]]) else beta[term]
}

#' Outcome simulator for the examples of Zhou, Dominici and Louis
#'
#' Returns the function that `ru_profile()` calls once per replicate
#' (`simulate = `): it redraws the outcome
#' \eqn{y \sim \mathrm{Poisson}(\exp(\beta_0 + \beta_1 x))} from the exposure
#' column `x` of the data it is given, with the true coefficients of `sim`, and
#' leaves every other column (locations, exposure) unchanged. It uses R's
#' random number generator, so `set.seed()` (or the `seed` of `ru_profile()`)
#' reproduces the replicates.
#'
#' @param sim A data set from [simulate_zdl()].
#' @return A function `function(data)` returning `data` with column `y`
#'   replaced by a fresh draw.
#' @md
#' @family data and simulation
#' @export
#' @examples
#' sim <- simulate_zdl(3, n = 200, seed = 2)
#' redraw <- zdl_simulator(sim)
#' set.seed(3)
#' sim2 <- redraw(sim)
#' identical(sim2$x, sim$x)
#' mean(sim2$y != sim$y)
zdl_simulator <- function(sim) {
  beta <- zdl_info(sim)$beta
  force(beta)
  function(data) {
    if (!is.data.frame(data) || !"x" %in% names(data))
      abort_type("data", "a data frame with the exposure column `x`")
    if (nrow(data) == 0L) abort_empty("data")
    check_numeric_vector(data$x, "data$x")
    mu <- exp(beta[[1L]] + beta[[2L]] * data$x)
    # rpois() gives NA (with a warning) for means it cannot draw from
    if (any(mu > 1e15))
      abort_value("data$x", sprintf("exposures giving Poisson means exp(%g + %g x) <= 1e15",
                                    beta[[1L]], beta[[2L]]))
    data$y <- stats::rpois(nrow(data), mu)
    data
  }
}

#' Aggregated-data reference estimate of the exposure coefficient
#'
#' The reference of the simulation study of Zhou et al. (2010): the study area
#' \eqn{[-1, 1]^2} is cut into `cells` x `cells` equal squares, and the
#' exposure coefficient is estimated from the cell means. With \eqn{n_j}
#' records in cell \eqn{j}, \eqn{\bar x_j} the mean exposure and \eqn{Y_j} the
#' total count, the fit is the Poisson log-linear model
#' \deqn{Y_j \sim \mathrm{Poisson}(n_j \exp(\beta_0 + \beta_1 \bar x_j)),}
#' i.e. `glm(Y ~ xbar + offset(log(n)), family = poisson)`. This is the model
#' of the paper for the cell-mean outcome, \eqn{E[\bar y_j] =
#' \exp(\beta_0 + \beta_1 \bar x_j)}, written for the totals: its estimates
#' equal those of a quasi-Poisson fit of \eqn{\bar y_j} on \eqn{\bar x_j} with
#' weights \eqn{n_j} and dispersion 1, and the total count is a genuine Poisson
#' variable, so the standard errors are the model-based ones. Empty cells are
#' dropped.
#'
#' The estimate is the *ecological* coefficient: because
#' \eqn{E[\bar y_j] = \mathrm{mean}_{i \in j} \exp(\beta_0 + \beta_1 x_i) \ge
#' \exp(\beta_0 + \beta_1 \bar x_j)}, it differs from the individual-level
#' \eqn{\beta_1 = 2} by the within-cell variation of the exposure (ecological
#' bias); it is the horizontal reference line of the paper's figures, not an
#' unbiased estimate of \eqn{\beta_1}. For the smooth surfaces of the three
#' examples, with 1000 locations and a 5 x 5 grid, that ecological target is
#' close to 2 (about 2.0 to 2.15, depending on the example and the locations).
#'
#' @param sim A data frame with the columns `s1`, `s2`, `x` and `y` (a data set
#'   from [simulate_zdl()] or a redraw of it).
#' @param cells Number of cells along each axis (default 5, a 5 x 5 grid), at
#'   most 1000.
#' @return An object of class `zdl_aggregate`: a list with `estimate` and `se`
#'   (of the exposure coefficient), `coefficients` and `vcov` (intercept and
#'   exposure), and `cells`, a data frame with one row per non-empty cell
#'   (`cell`, `n`, `x_mean`, `y_total`, `y_mean`).
#' @md
#' @family data and simulation
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 500, seed = 4)
#' zdl_aggregate(sim)
zdl_aggregate <- function(sim, cells = 5) {
  check_data(sim, "sim")
  if (!is.data.frame(sim)) sim <- as.data.frame(sim)
  missing <- setdiff(c("s1", "s2", "x", "y"), names(sim))
  if (length(missing))
    epimask_abort(sprintf("`sim` must have the columns s1, s2, x and y; missing: %s.",
                          paste(missing, collapse = ", ")),
                  "epimask_error_name", arg = "sim")
  # cells^2 counts are tabulated: bounded before they are allocated
  cells <- check_number(cells, "cells", lower = 1, upper = 1000, integer = TRUE)
  # the checked (numeric, so logical turned to 0/1) columns are the ones used
  for (col in c("s1", "s2", "x", "y"))
    sim[[col]] <- check_numeric_vector(sim[[col]], arg = sprintf("sim$%s", col))
  if (any(sim$y < 0) || any(sim$y != round(sim$y)))
    abort_value("sim$y", "counts (whole numbers >= 0)")
  table <- zdl_cell_means(sim, cells)
  # finite values can still sum past the largest double within a cell
  if (!all(is.finite(table$x_mean)) || !all(is.finite(table$y_total)))
    abort_value("sim", "columns x and y whose cell sums are finite (values too large to add)")
  fit <- zdl_cell_fit(table)
  coefs <- stats::coef(fit)
  if (anyNA(coefs))
    epimask_abort("`sim$x` has the same mean in every non-empty cell: the aggregated slope is not defined.",
                  "epimask_error_singular", arg = "sim")
  names(coefs) <- names(zdl_beta)
  vc <- stats::vcov(fit)
  dimnames(vc) <- list(names(zdl_beta), names(zdl_beta))
  structure(list(estimate = unname(coefs[["x"]]), se = sqrt(vc[["x", "x"]]),
                 coefficients = coefs, vcov = vc, cells = table,
                 grid = cells),
            class = "zdl_aggregate")
}

# The Poisson fit of the cell totals; glm()'s own errors and warnings (a fit
# that does not converge on extreme covariates) leave classed.
zdl_cell_fit <- function(table) {
  withCallingHandlers(
    with_classed_errors(
      stats::glm(y_total ~ x_mean + offset(log(n)), family = stats::poisson(), data = table),
      function(e) abort_value("sim", sprintf("data whose cell totals can be fitted (%s)",
                                             conditionMessage(e)))),
    warning = function(w) {
      if (inherits(w, "epimask_warning")) return()
      epimask_warn(sprintf("The aggregated fit of `sim`: %s", conditionMessage(w)),
                   "epimask_warning_convergence")
      invokeRestart("muffleWarning")
    })
}

# Cell j = (row, column) of an equal grid over [-1, 1]^2; points on the upper
# edge belong to the last cell.
zdl_cell_means <- function(sim, cells) {
  index <- function(s) pmin(pmax(floor((s + 1) / 2 * cells), 0), cells - 1)
  cell <- index(sim$s1) + cells * index(sim$s2) + 1
  n <- tabulate(cell, cells^2)
  used <- which(n > 0)
  y_total <- rowsum(sim$y, cell, reorder = TRUE)[, 1L]
  x_sum <- rowsum(sim$x, cell, reorder = TRUE)[, 1L]
  data.frame(cell = used, n = n[used], x_mean = x_sum / n[used],
             y_total = y_total, y_mean = y_total / n[used], row.names = NULL)
}

#' @md
#' @export
format.zdl_aggregate <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)
  c(sprintf("Aggregated-data reference (%d x %d grid, %d non-empty cells)",
            x$grid, x$grid, nrow(x$cells)),
    sprintf("exposure coefficient: %s (SE %s)",
            format(x$estimate, digits = digits), format(x$se, digits = digits)))
}

#' @md
#' @export
print.zdl_aggregate <- function(x, ...) print_formatted(x, ...)

#' @md
#' @export
format.zdl_sim <- function(x, n = 6, ...) {
  n <- check_count(n, "n", lower = 0L)
  info <- attr(x, "zdl", exact = TRUE)
  if (is.null(info)) return(NextMethod())
  c(sprintf("Zhou-Dominici-Louis example %s (%s kernel), %d locations, beta = (%s)",
            c("I", "II", "III")[info$example], info$kernel, nrow(x),
            paste(format(info$beta), collapse = ", ")),
    utils::capture.output(print(utils::head(as.data.frame(x), n), ...)),
    if (nrow(x) > n) sprintf("... %d more rows", nrow(x) - n))
}

#' @md
#' @export
print.zdl_sim <- function(x, n = 6, ...) {
  if (is.null(attr(x, "zdl", exact = TRUE))) return(NextMethod())
  print_formatted(x, n = n, ...)
}

#' @md
#' @export
as.data.frame.zdl_sim <- function(x, ...) {
  attr(x, "zdl") <- NULL
  class(x) <- "data.frame"
  x
}
