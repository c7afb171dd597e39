# Kernel-weighted matrix masking (methods vignette section 1.1). The scheme stores the
# coordinates and the kernel; the C core (src/kernel.c, src/spatial_index.c)
# computes A Z from a spatial index without ever forming A.

kernel_names <- c("exponential", "gaussian", "ring", "ring_angle",
                  "ring_block", "bvn", "shrink")
ring_kernels <- c("ring", "ring_angle", "ring_block")

#' Kernel-weighted matrix masking
#'
#' Builds a masking scheme that replaces every masked variable `Z` by `A Z`,
#' where `A` is the row-stochastic matrix of kernel weights of Zhou, Dominici
#' and Louis (2010): \eqn{a_{ik} = w_{ik} / \sum_l w_{il}} with
#' \eqn{w_{ik} = 1[g_i = g_k] \exp(-\delta(s_i, s_k) / \lambda)}. The
#' dissimilarity \eqn{\delta} depends on the kernel:
#' \describe{
#'   \item{`"exponential"`}{Euclidean distance \eqn{\|u - s\|}, any dimension.}
#'   \item{`"gaussian"`}{squared Euclidean distance, any dimension.}
#'   \item{`"ring"`}{\eqn{| \|u - c\| - \|s - c\| |}: records at a similar
#'     distance from the point `source` c share weight.}
#'   \item{`"ring_angle"`}{ring distance plus \eqn{|\alpha(u) - \alpha(s)|},
#'     \eqn{\alpha(s) \in [0, \pi]} the angle between \eqn{s - c} and
#'     `direction` (two-dimensional coordinates only; a record exactly at the
#'     source has angle 0).}
#'   \item{`"ring_block"`}{as `"ring"`, `groups` required (e.g. blocked and
#'     unblocked area).}
#'   \item{`"bvn"`}{\eqn{Q_\rho(u, s) / 2}, the exponent of a bivariate normal
#'     density with covariance \eqn{\lambda \Sigma}, \eqn{\Sigma} built from
#'     the sample standard deviations of the two coordinates and `rho`.}
#'   \item{`"shrink"`}{not of the exponential form:
#'     \eqn{a_{ik} = (1[i = k] + \lambda K_{ik}) / (1 + \lambda \sum_{l \ne i} K_{il})}
#'     with \eqn{K_{ik} = \exp(-\|s_i - s_k\| / h)}, `bandwidth` h.}
#' }
#' With `groups`, records in different groups never share weight (any kernel).
#' `lambda = 0` is exactly the identity (no masking). Distinct records at
#' dissimilarity 0 (ties) share weight, so for the exponential-form kernels
#' \eqn{A \to} the average over tied records as \eqn{\lambda \to 0^+}, and the
#' identity when there are no ties. Weights with \eqn{\delta / \lambda >}
#' `cutoff` (for `"shrink"`, \eqn{\|s_i - s_k\| / h >} `cutoff`) are set to 0;
#' the default 36 makes them smaller than 2.3e-16 relative to the self-weight,
#' so the result is exact to double precision while a spatial index only
#' visits the neighbours of each record.
#'
#' @param kernel One of `"exponential"`, `"gaussian"`, `"ring"`,
#'   `"ring_angle"`, `"ring_block"`, `"bvn"`, `"shrink"`.
#' @param lambda Degree of masking, a number `>= 0`.
#' @param coords Locations of the records: a numeric matrix or data frame with
#'   one row per record and any number of columns (coordinates or any feature
#'   vectors), a numeric vector (one dimension), or an `sf` object of POINT
#'   geometries (needs the sf package).
#' @param source Point source c for the ring kernels, a numeric vector of
#'   length `ncol(coords)`.
#' @param direction Direction v for `"ring_angle"`, a numeric vector of length 2.
#' @param groups Optional grouping, one value per record (records in different
#'   groups never share weight). Required for `"ring_block"`.
#' @param rho Correlation for `"bvn"`, in (-1, 1).
#' @param bandwidth Bandwidth h > 0 for `"shrink"`.
#' @param cutoff Truncation of the weights, a number > 0 (see Details).
#' @return A `mask_scheme`. Its fields `method` (the kernel name), `degree`
#'   (`lambda`) and `label` (e.g. `"ring 0.05"`) are used by profiles and plots.
#' @references Zhou, Y., Dominici, F. and Louis, T. A. (2010). A smoothing
#'   approach for masking spatial data. Annals of Applied Statistics 4,
#'   1451-1475.
#' @seealso [apply_mask()], [kernel_matrix()], [mask_grid()]
#' @family masking schemes
#' @examples
#' set.seed(1)
#' xy <- matrix(runif(200, -1, 1), ncol = 2)
#' sch <- mask_kernel("ring", 0.05, xy, source = c(0, 0))
#' sch
#' d <- data.frame(x = xy[, 1]^2, y = rpois(100, 3))
#' head(apply_mask(d, sch))
#' @export
mask_kernel <- function(kernel, lambda, coords, source = NULL, direction = NULL,
                        groups = NULL, rho = 0, bandwidth = NULL, cutoff = 36) {
  kernel_scheme(list(kernel = kernel, lambda = lambda, coords = coords, source = source,
                     direction = direction, groups = groups, rho = rho,
                     bandwidth = bandwidth, cutoff = cutoff))
}

# The constructor's checks on the fields `f` (a list named like the
# arguments of mask_kernel()). `space` is the spatial set-up of a scheme
# already validated (kernel_space()); it is reused, with the O(n) checks of
# the coordinates it was built from, when those fields are unchanged, so
# re-validating a scheme or changing its lambda (scheme_at()) costs no O(n)
# set-up.
kernel_scheme <- function(f, space = NULL) {
  kernel <- check_choice(f$kernel, kernel_names, arg = "kernel")
  lambda <- check_number(f$lambda, "lambda", lower = 0)
  source <- f$source
  direction <- f$direction
  rho <- f$rho
  bandwidth <- f$bandwidth
  cached <- !is.null(space) &&
    identical(space$from, list(kernel = kernel, coords = f$coords, source = source,
                               direction = direction, rho = rho))
  coords <- if (cached) f$coords else kernel_coords(f$coords)
  n <- nrow(coords)
  d <- ncol(coords)
  cutoff <- check_number(f$cutoff, "cutoff", lower = 0, lower_open = TRUE)
  if (kernel %in% ring_kernels) {
    if (is.null(source))
      epimask_abort(sprintf("`source` is required for the \"%s\" kernel.", kernel),
                    "epimask_error_value", arg = "source")
    source <- check_numeric_vector(source, "source", len = d)
  } else if (!is.null(source)) {
    source <- check_numeric_vector(source, "source", len = d)
  }
  if (kernel %in% c("ring_angle", "bvn") && d != 2L)
    abort_length("coords", sprintf("have 2 columns for the \"%s\" kernel, not %d", kernel, d))
  if (kernel == "ring_angle") {
    if (is.null(direction))
      epimask_abort("`direction` is required for the \"ring_angle\" kernel.",
                    "epimask_error_value", arg = "direction")
    direction <- check_numeric_vector(direction, "direction", len = 2L)
    if (all(direction == 0)) abort_value("direction", "a non-zero vector")
  }
  if (kernel == "ring_block" && is.null(f$groups))
    epimask_abort("`groups` is required for the \"ring_block\" kernel.",
                  "epimask_error_value", arg = "groups")
  groups <- kernel_groups(f$groups, n)
  rho <- check_number(rho, "rho", lower = -1, upper = 1, lower_open = TRUE,
                      upper_open = TRUE)
  if (kernel == "bvn" && !cached) {
    sds <- apply(coords, 2L, stats::sd)
    if (n < 2L || any(!(sds > 0)))
      abort_value("coords", "two columns with positive standard deviation for the \"bvn\" kernel")
  }
  if (kernel == "shrink" && is.null(bandwidth))
    epimask_abort("`bandwidth` is required for the \"shrink\" kernel.",
                  "epimask_error_value", arg = "bandwidth")
  # checked even where the kernel ignores it: the scheme stores it
  bandwidth <- check_number(bandwidth, "bandwidth", lower = 0, lower_open = TRUE,
                            allow_null = TRUE)
  if (kernel != "ring_angle" && !is.null(direction))
    direction <- check_numeric_vector(direction, "direction")
  scheme <- new_mask_scheme(
    "kernel", method = kernel, degree = lambda,
    label = sprintf("%s %s", kernel_family_name(kernel, rho), format(lambda, digits = 4)),
    kernel = kernel, lambda = lambda, coords = coords, source = source,
    direction = direction, groups = groups, rho = rho, bandwidth = bandwidth,
    cutoff = cutoff)
  attr(scheme, "kernel_space") <- if (cached) space else kernel_setup(scheme)
  scheme
}

# The spatial set-up of a scheme, checked: finite coordinates can still be so
# far apart (e.g. 1e200) that their distances overflow to Inf and the weights
# become NaN (Inf - Inf in the ring kernels): refuse them here rather than
# return NaN from apply_mask().
kernel_setup <- function(scheme) {
  spread <- function(x) apply(x, 2L, function(v) diff(range(v)))
  pts <- rbind(scheme$coords, scheme$source)
  space <- NULL
  if (is.finite(sum(spread(pts)^2) * nrow(pts)))
    space <- tryCatch(kernel_space_of(scheme), error = function(e) NULL)
  x <- space$x
  if (is.null(space) || !all(is.finite(x)) || !is.finite(sum(spread(x)^2) * nrow(x)))
    abort_value("coords", "coordinates whose pairwise distances are finite (rescale them)")
  space
}

# Coordinates as a finite double matrix, from a matrix, data frame, vector or sf.
# bvn kernels with different correlations are different kernels in a profile.
kernel_family_name <- function(kernel, rho) {
  if (identical(kernel, "bvn")) sprintf("bvn rho=%s", format(rho, digits = 3)) else kernel
}

kernel_coords <- function(coords) {
  if (inherits(coords, c("sf", "sfc"))) {
    if (!requireNamespace("sf", quietly = TRUE))
      abort_type("coords", "a numeric matrix (install the sf package to pass sf objects)")
    types <- as.character(sf::st_geometry_type(coords))
    if (!all(types == "POINT"))
      abort_type("coords", "an sf object of POINT geometries")
    xy <- sf::st_coordinates(coords)
    coords <- xy[, intersect(colnames(xy), c("X", "Y", "Z")), drop = FALSE]
  }
  if (is.null(coords)) abort_type("coords", "a numeric matrix")
  coords <- check_numeric_matrix(coords, "coords")
  dimnames(coords) <- NULL
  coords
}

kernel_groups <- function(groups, n) {
  if (is.null(groups)) return(NULL)
  if (is.factor(groups)) groups <- as.character(groups)
  if (!is.atomic(groups) || is.null(groups))
    abort_type("groups", "an atomic vector (one value per record)")
  if (length(groups) != n)
    abort_length("groups", sprintf("have one value per row of `coords` (%d), not %d",
                                   n, length(groups)))
  if (anyNA(groups)) abort_value("groups", "free of NA")
  match(groups, unique(groups))
}

# The coordinates mapped to a space where delta is a plain metric, with the
# numeric spec the C core expects: metric 0 = Euclidean, 1 = squared
# Euclidean, 2 = L1; form 0 = exp(-delta / lambda), 1 = shrink. The mapping
# (O(n): radii, angles, whitening) is made once per scheme and kept in its
# attribute "kernel_space" with the fields it was made from; the scale is
# lambda (bandwidth for "shrink").
kernel_space <- function(scheme) {
  sp <- attr(scheme, "kernel_space")
  if (is.null(sp) || !identical(sp$from, kernel_space_from(scheme))) sp <- kernel_space_of(scheme)
  list(x = sp$x, metric = sp$metric, form = sp$form,
       scale = if (sp$form == 1) scheme$bandwidth else scheme$lambda)
}

kernel_space_from <- function(scheme) {
  list(kernel = scheme$kernel, coords = scheme$coords, source = scheme$source,
       direction = scheme$direction, rho = scheme$rho)
}

kernel_space_of <- function(scheme) {
  x <- scheme$coords
  sp <- switch(scheme$kernel,
    exponential = list(x = x, metric = 0, form = 0),
    gaussian = list(x = x, metric = 1, form = 0),
    ring = ,
    ring_block = list(x = matrix(ring_radius(x, scheme$source)), metric = 0, form = 0),
    ring_angle = list(x = cbind(ring_radius(x, scheme$source),
                                ring_angle(x, scheme$source, scheme$direction)),
                      metric = 2, form = 0),
    bvn = list(x = bvn_whiten(x, scheme$rho), metric = 1, form = 0),
    shrink = list(x = x, metric = 0, form = 1))
  sp$from <- kernel_space_from(scheme)
  sp
}

ring_radius <- function(x, source) sqrt(rowSums(sweep(x, 2L, source)^2))

# Angle in [0, pi] between s - c and v; atan2 keeps full precision near 0 and pi.
ring_angle <- function(x, source, direction) {
  u1 <- x[, 1L] - source[1L]
  u2 <- x[, 2L] - source[2L]
  dot <- u1 * direction[1L] + u2 * direction[2L]
  cross <- u1 * direction[2L] - u2 * direction[1L]
  atan2(abs(cross), dot)
}

# Q_rho / 2 as a squared Euclidean distance: y = x L^-T / sqrt(2) with
# Sigma = L L' built from the sample SDs and rho, so ||y_u - y_s||^2 = Q / 2.
bvn_whiten <- function(x, rho) {
  sds <- apply(x, 2L, stats::sd)
  sigma <- diag(sds) %*% matrix(c(1, rho, rho, 1), 2L) %*% diag(sds)
  upper <- chol(sigma)
  t(backsolve(upper, t(x), transpose = TRUE)) / sqrt(2)
}

# One .Call with a named list (src/r_kernel.c); threads from epimask_threads().
kernel_call <- function(scheme, Z, mode) {
  sp <- kernel_space(scheme)
  x <- sp$x
  storage.mode(x) <- "double"
  spec <- list(coords = x,
               group = if (is.null(scheme$groups)) integer(0) else as.integer(scheme$groups),
               Z = if (is.null(Z)) matrix(0, 0L, 0L) else Z,
               metric = as.integer(sp$metric), form = as.integer(sp$form),
               lambda = as.double(scheme$lambda), scale = as.double(sp$scale),
               cutoff = as.double(scheme$cutoff), mode = as.integer(mode),
               threads = epimask_threads())
  call_c(C_kernel_smooth, spec, arg = "scheme")
}

check_kernel_scheme <- function(scheme, arg = "scheme") {
  if (!inherits(scheme, "mask_kernel"))
    abort_type(arg, "a kernel mask_scheme from mask_kernel()")
  scheme
}

check_rows_match <- function(Z, scheme, arg = "data") {
  n <- nrow(scheme$coords)
  if (nrow(Z) != n)
    abort_length(arg, sprintf("have one row per row of the scheme's `coords` (%d), not %d",
                              n, nrow(Z)))
  Z
}

# A Z for a kernel scheme, every column of Z in one pass of the C core (Z may
# have many columns, e.g. simulated outcome replicates). Internal.
kernel_smooth <- function(scheme, Z) {
  check_kernel_scheme(scheme)
  Z <- check_numeric_matrix(Z, "Z")
  check_rows_match(Z, scheme, "Z")
  if (scheme$lambda == 0) return(unname(Z))
  kernel_call(scheme, Z, 0L)
}

# A'(0) Z, the derivative of A with respect to lambda at 0, applied to Z
# (methods vignette section 4). Zero for the exp-form kernels; for "shrink" row i is
# sum_k K_ik Z_k - (sum_k K_ik) Z_i. Internal.
kernel_deriv0 <- function(scheme, Z) {
  check_kernel_scheme(scheme)
  Z <- check_numeric_matrix(Z, "Z")
  check_rows_match(Z, scheme, "Z")
  if (scheme$kernel != "shrink") return(matrix(0, nrow(Z), ncol(Z)))
  # the shrink derivative does not depend on lambda; any positive value runs the core
  if (scheme$lambda == 0) scheme$lambda <- 1
  kernel_call(scheme, Z, 1L)
}

#' Dense masking matrix of a scheme
#'
#' Returns the n x n matrix `A` of a kernel or matrix scheme (for a kernel
#' scheme row-stochastic: `A %*% rep(1, n)` is 1). Meant for inspection,
#' teaching and tests on small data; [apply_mask()] never forms it.
#'
#' @param scheme A `mask_scheme` from [mask_kernel()] or [mask_matrix()].
#' @param n_max Largest n for which the dense matrix is built.
#' @return A numeric n x n matrix.
#' @family masking schemes
#' @examples
#' xy <- cbind(1:5, 0)
#' round(kernel_matrix(mask_kernel("exponential", 0.5, xy)), 3)
#' @export
kernel_matrix <- function(scheme, n_max = 5000) {
  if (!inherits(scheme, "mask_scheme")) abort_type("scheme", "a kernel or matrix mask_scheme")
  dense_mask_matrix(scheme, n_max)
}

#' @export
dense_mask_matrix.mask_kernel <- function(scheme, n_max) {
  scheme <- revalidate_scheme(scheme)
  n_max <- check_count(n_max, "n_max")
  n <- nrow(scheme$coords)
  if (n > n_max)
    abort_value("n_max", sprintf("at least n = %d to build the dense matrix", n))
  if (scheme$lambda == 0) return(diag(n))
  kernel_call(scheme, NULL, 2L)
}

#' A list of masking schemes over a grid of degrees
#'
#' Builds one [mask_kernel()] scheme per kernel and lambda (kernels vary
#' slowest), for a risk-utility profile to sweep over.
#'
#' @param kernel Character vector of kernel names.
#' @param lambda Numeric vector of degrees (`>= 0`).
#' @param coords,... Passed to [mask_kernel()] (coordinates, `source`,
#'   `direction`, `groups`, ...).
#' @param none If `TRUE`, [mask_none()] is put first as the reference row.
#' @return A `mask_list`: a list of `mask_scheme` named by their labels.
#' @family masking schemes
#' @examples
#' xy <- matrix(runif(100), ncol = 2)
#' mask_grid(c("ring", "exponential"), c(0.01, 0.1), xy, source = c(0.5, 0.5))
#' @export
mask_grid <- function(kernel, lambda, coords, ..., none = FALSE) {
  if (!is.character(kernel) || length(kernel) == 0L || anyNA(kernel))
    abort_type("kernel", "a character vector of kernel names")
  lambda <- check_numeric_vector(lambda, "lambda")
  if (any(lambda < 0)) abort_value("lambda", "a vector of numbers >= 0")
  coords <- kernel_coords(coords)
  schemes <- unlist(lapply(kernel, function(k)
    lapply(lambda, function(l) mask_kernel(k, l, coords, ...))), recursive = FALSE)
  if (check_flag(none, "none")) schemes <- c(list(mask_none()), schemes)
  new_mask_list(schemes)
}

# ---- the methods of the kernel type -----------------------------------------------

kernel_fields <- function(scheme) {
  scheme[c("kernel", "lambda", "coords", "source", "direction", "groups", "rho",
           "bandwidth", "cutoff")]
}

#' @export
mask_validate.mask_kernel <- function(scheme, ...) {
  kernel_scheme(kernel_fields(scheme), attr(scheme, "kernel_space"))
}

# another lambda, the same spatial set-up
#' @export
scheme_at_degree.mask_kernel <- function(scheme, lambda) {
  f <- kernel_fields(scheme)
  f$lambda <- lambda
  kernel_scheme(f, attr(scheme, "kernel_space"))
}

# the coordinates (and groups) follow their records; the set-up is made
# anew (the bvn kernel's whitening uses the sample's SDs)
#' @export
mask_resample.mask_kernel <- function(scheme, rows, ...) {
  f <- kernel_fields(scheme)
  f$coords <- scheme$coords[rows, , drop = FALSE]
  if (!is.null(scheme$groups)) f$groups <- scheme$groups[rows]
  kernel_scheme(f)
}

#' @export
mask_values.mask_kernel <- function(scheme, x, data, ...) mask_kernel_values(scheme, x)

#' @export
format.mask_kernel <- function(x, ...) {
  revalidate_scheme(x, "x")
  paste0(sprintf("%s kernel, lambda = %s", x$kernel, format(x$lambda, digits = 4)),
         kernel_label_extras(x))
}

kernel_label_extras <- function(x) {
  num <- function(v) format(v, digits = 4)
  paste0(if (x$kernel == "shrink") sprintf(", bandwidth = %s", num(x$bandwidth)) else "",
         if (x$kernel == "bvn") sprintf(", rho = %s", num(x$rho)) else "",
         if (!is.null(x$groups)) sprintf(", %d groups", max(x$groups)) else "")
}

#' @export
scheme_label.mask_kernel <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  paste0(sprintf("%s %s", scheme$kernel, format(scheme$lambda, digits = 4)),
         kernel_label_extras(scheme))
}

#' @export
mask_generator.mask_kernel <- function(scheme, ...) {
  paste(kernel_family_name(scheme$kernel, scheme$rho), "kernel")
}

#' @export
mask_strength.mask_kernel <- function(scheme, ...) scheme$lambda

#' @export
mask_family.mask_kernel <- function(scheme, ...) kernel_family_name(scheme$kernel, scheme$rho)

# a report names a kernel scheme "smoothing scheme A", never its kernel and lambda
#' @export
mask_report_label.mask_kernel <- function(scheme, ...) "smoothing scheme"

# A Z: linear; at lambda = 0 the identity; at a positive lambda every record
# should change, and no ties are made for exact matching to find; the kernel
# and lambda are withheld from reports, and lambda is a bandwidth.
#' @export
mask_traits.mask_kernel <- function(scheme, ...) {
  list(promises_change = scheme$lambda > 0, exact_match_blind = TRUE,
       identity = scheme$lambda == 0, linear = TRUE, withheld = TRUE, bandwidth = TRUE)
}

#' @export
mask_linear.mask_kernel <- function(scheme, x, ...) kernel_smooth(scheme, x)

#' @export
mask_derivative.mask_kernel <- function(scheme, x, ...) kernel_deriv0(scheme, x)

#' @export
scheme_dense_matrix.mask_kernel <- function(scheme, n) {
  if (n <= dense_transpose_max()) kernel_matrix(scheme, n_max = n)
}

#' @export
unmasked_cause.mask_kernel <- function(scheme, Z, rows) {
  if (scheme$kernel == "shrink")
    sprintf("no other record is close enough for `bandwidth` = %s to give it weight",
            format(scheme$bandwidth, digits = 4))
  else if (scheme$cutoff < 36)
    sprintf("no other record lies within the weight `cutoff` = %s (relative weight exp(-%s); the default is 36)",
            format(scheme$cutoff, digits = 4), format(scheme$cutoff, digits = 4))
  else
    sprintf("no other record is within reach of `lambda` = %s (isolated records; a larger lambda smooths them)",
            format(scheme$lambda, digits = 4))
}

mask_kernel_values <- function(scheme, Z) {
  check_rows_match(Z, scheme, "data")
  if (anyNA(Z) || any(is.infinite(Z)))
    abort_value("data", "free of NA and Inf in the masked columns for a kernel mask")
  if (scheme$lambda == 0) return(Z)
  kernel_call(scheme, Z, 0L)
}
