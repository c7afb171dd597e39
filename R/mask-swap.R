# Rank swapping (Moore 1996; methods vignette section 15): values exchanged between records
# whose ranks are close, each variable on its own, so every variable keeps
# exactly its multiset of values. The pairing runs in C (src/microagg.c) with
# R's random number generator.

#' Rank swapping
#'
#' Each masked variable on its own: sort the values (ties in row order); in
#' increasing rank, each value not yet swapped is exchanged with a value
#' drawn uniformly among the values not yet swapped whose rank is above it by
#' at most \eqn{w = \lfloor p n / 100 \rfloor}{w = floor(p n / 100)}, where
#' \eqn{n} is the number of non-missing values (a value with no such partner
#' stays). The released variable has exactly the original values (the same
#' multiset: every marginal distribution, mean and quantile is kept), each
#' moved by at most \eqn{w} ranks; relations between variables are what
#' swapping blurs. Missing values stay in place. Uses R's random number
#' generator: `set.seed()` reproduces it. The pairing runs in
#' \eqn{O(n \log n)} time (a Fenwick tree over the ranks not yet swapped).
#'
#' `p` is a percentage, as in Moore (1996): `mask_swap(5)` is the window
#' that `sdcMicro::rankSwap(P = 0.05)` draws from (sdcMicro 5.8.2 documents
#' its `P` as a percentage but multiplies n by it, so its `P = 5` swaps across
#' the whole file).
#'
#' @param p Window as a percentage of the number of records, in (0, 100].
#' @return A `mask_scheme` with `method` `"swap"`, `degree` and `strength`
#'   `p`, `generator` `"rank swapping"`, label `"swap <p>"`.
#' @references Moore, R. A. (1996). Controlled data-swapping techniques for
#'   masking public use microdata sets. Research report RR96/04, U.S. Census
#'   Bureau.
#' @family masking schemes
#' @examples
#' d <- data.frame(age = c(23, 25, 31, 35, 36, 52, 58, 61, 64, 70))
#' set.seed(1)
#' out <- apply_mask(d, mask_swap(20))
#' out
#' identical(sort(out$age), sort(d$age))
#' @export
mask_swap <- function(p = 5) {
  p <- check_number(p, "p", lower = 0, upper = 100, lower_open = TRUE)
  new_mask_scheme("swap", method = "swap", degree = p,
                  label = sprintf("swap %s", format(p, digits = 4)),
                  p = p, generator = "rank swapping", strength = p, random = TRUE)
}

#' @export
mask_validate.mask_swap <- function(scheme, ...) mask_swap(scheme$p)

#' @export
mask_values.mask_swap <- function(scheme, x, data, ...) mask_swap_values(scheme, x)

#' @export
format.mask_swap <- function(x, ...) {
  revalidate_scheme(x, "x")
  sprintf("rank swapping within %s%% of n", format(x$p, digits = 4))
}

#' @export
scheme_label.mask_swap <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("swap %s%%", format(scheme$p, digits = 4))
}

#' @export
mask_generator.mask_swap <- function(scheme, ...) "rank swapping"

#' @export
mask_strength.mask_swap <- function(scheme, ...) scheme$p

#' @export
mask_traits.mask_swap <- function(scheme, ...) list(random = TRUE)

mask_swap_values <- function(scheme, Z) {
  for (j in seq_len(ncol(Z))) Z[, j] <- rank_swap_values(Z[, j], scheme$p)
  Z
}

rank_swap_values <- function(z, p) {
  ok <- which(!is.na(z))
  m <- length(ok)
  if (m < 2L) return(z)
  o <- ok[order(z[ok])]
  window <- floor(p * m / 100)
  partner <- call_c(C_rank_swap, list(n = as.integer(m), w = as.integer(window)))
  z[o] <- z[o][partner]
  z
}
