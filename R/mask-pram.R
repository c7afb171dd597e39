# PRAM, the post-randomisation method (Gouweleeuw et al. 1998; methods vignette section 15):
# each category is replaced by a random draw from its row of a transition
# matrix; invariant PRAM keeps the expected frequencies.

#' Post-randomisation (PRAM) of categorical variables
#'
#' A category \eqn{v} of a masked variable becomes \eqn{w} with probability
#' \eqn{P[v, w]}. By default \eqn{P} has `pd` on the diagonal and
#' \eqn{(1 - pd) / (m - 1)} elsewhere, \eqn{m} the number of categories (the
#' levels of a factor, the distinct values of a character column). With
#' `invariant = TRUE` (invariant PRAM) the matrix applied is \eqn{R = P Q},
#' \eqn{Q[w, v] = P[v, w] T_v / \sum_u P[u, w] T_u} with \eqn{T} the
#' observed frequencies, so that \eqn{T R = T}: the expected frequencies of
#' the release equal the observed ones (the diagonal of \eqn{R} is smaller
#' than `pd`: invariant PRAM changes more values than plain PRAM at the same
#' `pd`). With the default \eqn{P} the price falls on rare categories: their
#' few records are outnumbered by the records that \eqn{P} sends into them,
#' so \eqn{R} keeps them far less often than `pd` (on the Adult census data,
#' `pd = 0.8` keeps "Married-AF-spouse", 21 of 30,162 records, with
#' probability 0.013 and "Amer-Indian-Eskimo" with 0.11). Look at \eqn{R} with
#' [summary.mask_scheme()] before a release, and give a `matrix` built for
#' the data (e.g. smaller off-diagonal entries into rare categories) where
#' that matters.
#'
#' Masked variables are factor or character columns of a data frame (the
#' default `vars` are all of them); a factor stays a factor with the same
#' levels, a character column stays character, and missing values stay
#' missing. Categories are drawn with R's random number generator:
#' `set.seed()` reproduces them. The scheme's `print()` shows the rule or the
#' given matrix; [summary.mask_scheme()] shows the matrices \eqn{P} and
#' \eqn{R} applied to each variable of a data set.
#'
#' @param pd Probability that a category is kept by \eqn{P}, in (0, 1].
#' @param matrix `NULL` (the default \eqn{P} above), or a transition matrix
#'   \eqn{P}: square, non-negative, rows summing to 1, with the categories as
#'   both row and column names (covering every value of the masked
#'   variables), or a named list of such matrices, one per masked variable.
#' @param invariant Apply invariant PRAM (`TRUE`) or \eqn{P} itself.
#' @return A `mask_scheme` with `method` `"pram"`, `degree` `pd` (or the
#'   mean diagonal of the given matrices), `strength` `1 - degree`,
#'   `generator` `"PRAM"` or `"invariant PRAM"`, label `"pram <pd>"`.
#' @references Gouweleeuw, J. M., Kooiman, P., Willenborg, L. C. R. J. and
#'   de Wolf, P.-P. (1998). Post randomisation for statistical disclosure
#'   control: theory and implementation. Journal of Official Statistics 14,
#'   463-478.
#' @family masking schemes
#' @examples
#' d <- data.frame(race = factor(c("A", "B", "B", "C", "C", "C", "C", "C")),
#'                 age = c(31, 45, 52, 38, 61, 27, 49, 55))
#' scheme <- mask_pram(0.8)
#' scheme
#' set.seed(1)
#' apply_mask(d, scheme, "race")
#' summary(scheme, d, "race")
#' @export
mask_pram <- function(pd = 0.8, matrix = NULL, invariant = TRUE) {
  invariant <- check_flag(invariant, "invariant")
  pd <- check_number(pd, "pd", lower = 0, upper = 1, lower_open = TRUE)
  if (!is.null(matrix)) {
    matrix <- if (is.list(matrix)) check_pram_matrix_list(matrix)
              else check_pram_matrix(matrix, "matrix")
    diagonal <- if (is.list(matrix)) unlist(lapply(matrix, diag)) else diag(matrix)
    pd <- mean(diagonal)
  }
  new_mask_scheme("pram", method = "pram", degree = pd,
                  label = if (is.null(matrix)) sprintf("pram %s", format(pd, digits = 4)) else "pram matrix",
                  pd = pd, matrix = matrix, invariant = invariant,
                  generator = if (invariant) "invariant PRAM" else "PRAM",
                  strength = 1 - pd, random = TRUE)
}

check_pram_matrix <- function(P, arg) {
  if (!is.matrix(P) || !is.numeric(P) || nrow(P) != ncol(P) || !nrow(P))
    abort_type(arg, "a square numeric transition matrix")
  cats <- rownames(P)
  if (is.null(cats) || !identical(cats, colnames(P)) || anyDuplicated(cats) || anyNA(cats))
    abort_value(arg, "a matrix with the categories as identical, distinct row and column names")
  if (anyNA(P) || any(P < 0))
    abort_value(arg, "a matrix of non-negative probabilities")
  if (any(abs(rowSums(P) - 1) > 1e-8))
    abort_value(arg, "a matrix whose rows sum to 1")
  storage.mode(P) <- "double"
  P
}

check_pram_matrix_list <- function(matrix) {
  if (is.null(names(matrix)) || any(!nzchar(names(matrix))) || !length(matrix))
    abort_type("matrix", "a transition matrix or a named list of them (one per variable)")
  for (nm in names(matrix))
    matrix[[nm]] <- check_pram_matrix(matrix[[nm]], sprintf("matrix$%s", nm))
  matrix
}

# The categories of a masked column and the transition matrices P and R for
# it (R = P Q under invariant PRAM, else P).
pram_plan <- function(scheme, x, var) {
  given <- scheme$matrix
  if (is.list(given)) {
    if (!var %in% names(given)) abort_name("matrix", var, "the names of the list `matrix`")
    given <- given[[var]]
  }
  values <- as.character(x)
  if (is.null(given)) {
    cats <- if (is.factor(x)) levels(x) else sort(unique(values[!is.na(values)]))
    m <- length(cats)
    P <- base::matrix(if (m > 1L) (1 - scheme$pd) / (m - 1L) else 1, m, m,
                      dimnames = list(cats, cats))
    diag(P) <- if (m > 1L) scheme$pd else 1
  } else {
    cats <- rownames(given)
    unknown <- setdiff(unique(values[!is.na(values)]), cats)
    if (length(unknown))
      abort_value("matrix", sprintf("a matrix naming every category of '%s'; missing: %s",
                                    var, paste0("'", utils::head(unknown, 5L), "'", collapse = ", ")))
    P <- given
  }
  codes <- match(values, cats)
  counts <- tabulate(codes, length(cats))
  R <- if (scheme$invariant) P %*% pram_backward(P, counts) else P
  dimnames(R) <- dimnames(P)
  list(categories = cats, codes = codes, counts = counts, P = P, R = R)
}

# Q[w, v] = P[v, w] T_v / sum_u P[u, w] T_u; a category w that no observed
# value reaches keeps itself (its row of Q is never used by R's used rows).
pram_backward <- function(P, counts) {
  reach <- colSums(P * counts)
  Q <- t(P * counts) / ifelse(reach > 0, reach, 1)
  unreached <- which(reach <= 0)
  Q[cbind(unreached, unreached)] <- 1
  Q
}

mask_pram_column <- function(scheme, x, var) {
  plan <- pram_plan(scheme, x, var)
  m <- length(plan$categories)
  new <- plan$codes
  if (m > 1L) {
    rows <- split(seq_along(new), factor(new, levels = seq_len(m)))
    for (v in which(plan$counts > 0L))
      new[rows[[v]]] <- sample.int(m, length(rows[[v]]), replace = TRUE, prob = plan$R[v, ])
  }
  released <- plan$categories[new]
  if (!is.factor(x)) return(released)
  levels <- union(levels(x), plan$categories)
  factor(released, levels = levels, ordered = is.ordered(x))
}

# ---- the methods of the PRAM type --------------------------------------------------

#' @export
mask_validate.mask_pram <- function(scheme, ...) {
  mask_pram(scheme$pd, scheme$matrix, scheme$invariant)
}

# `x`: the named list of the factor or character columns masked
#' @export
mask_values.mask_pram <- function(scheme, x, data, ...) {
  lapply(names(x), function(v) mask_pram_column(scheme, x[[v]], v))
}

#' @export
format.mask_pram <- function(x, ...) {
  revalidate_scheme(x, "x")
  paste0(if (x$invariant) "invariant PRAM" else "PRAM",
         if (is.null(x$matrix)) sprintf(", pd = %s", format(x$pd, digits = 4))
         else ", given transition matrix")
}

#' @export
mask_details.mask_pram <- function(x) pram_details(x)

#' @export
scheme_label.mask_pram <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  paste0(if (scheme$invariant) "inv. " else "",
         if (is.null(scheme$matrix)) sprintf("pram %s", format(scheme$pd, digits = 4)) else "pram matrix")
}

#' @export
mask_generator.mask_pram <- function(scheme, ...) if (scheme$invariant) "invariant PRAM" else "PRAM"

#' @export
mask_strength.mask_pram <- function(scheme, ...) 1 - scheme$pd

#' @export
mask_traits.mask_pram <- function(scheme, ...) list(categorical = TRUE, random = TRUE)

# summary(): the transition matrices applied to each variable
#' @export
summary_extra.mask_pram <- function(scheme, data, vars) {
  list(transition = stats::setNames(lapply(vars, function(v) {
    plan <- pram_plan(scheme, data[[v]], v)
    list(P = plan$P, R = plan$R)
  }), vars))
}

# Lines print() adds under the scheme's one-line format.
pram_details <- function(x) {
  if (is.null(x$matrix)) {
    return(c(sprintf("  P[v, v] = %s, P[v, w] = (1 - %s) / (m - 1) for the m categories of each variable",
                     format(x$pd, digits = 4), format(x$pd, digits = 4)),
             if (x$invariant) "  applied as R = P Q (invariant: expected frequencies kept); summary(scheme, data) shows R"))
  }
  mats <- if (is.list(x$matrix)) x$matrix else list(x$matrix)
  out <- character()
  for (i in seq_along(mats)) {
    head <- if (is.list(x$matrix)) sprintf("  P for '%s':", names(mats)[i]) else "  P:"
    out <- c(out, head, paste0("    ", utils::capture.output(print(round(mats[[i]], 4)))))
  }
  c(out, if (x$invariant) "  applied as R = P Q (invariant: expected frequencies kept)")
}
