# Masking a count table (methods vignette section 30): the alternatives to
# suppression on the same table. Every form publishes a value for every cell
# and keeps the additive relations: controlled rounding (its margins rounded
# with it), random rounding and kernel smoothing of the interior cells (the
# margins their sums), and the geometric mechanism on every cell (repaired
# to a consistent non-negative table afterwards). The result is a release of
# the table, judged by the same rules as a suppression pattern.

#' Mask a count table
#'
#' What [apply_mask()] does when its data are a count table
#' ([table_counts()]): every cell gets a published value, and the published
#' cells still satisfy the table's additive relations.
#' \describe{
#'   \item{[mask_round()]`(base = b)`}{controlled rounding: every cell,
#'     margins included, to one of the two multiples of b next to its value
#'     (a cell that is a multiple stays), the rounded cells adding up; found
#'     by a mixed-integer program that also keeps the total absolute change
#'     smallest (the table verbs' solver, [table_control()]). A table with no
#'     controlled rounding (possible from three dimensions on) is an error of
#'     class `epimask_error_solver`. `rounding = "random"`: each interior cell
#'     up with probability (value - lower multiple) / b, margins their sums.}
#'   \item{[mask_kernel()]}{smoothing of the counts along one dimension
#'     (`dim`, e.g. zip codes) over the coordinates of its codes (one row of
#'     `coords` per code, in the order of [table_codes()]), the same for each
#'     combination of the other dimensions' codes; margins their sums (the
#'     zip-code smoothing of Zhou, Dominici and Louis, applied to a table).}
#'   \item{[mask_dp_counts()]}{the geometric mechanism with privacy budget
#'     epsilon on every cell, then the consistent non-negative table nearest
#'     to the noisy one.}
#'   \item{[mask_none()]}{the table as it is.}
#' }
#' The intruder is assumed to know the form and its public parameters (the
#' base, epsilon) but not the secret ones (a kernel's bandwidth): a rounded
#' cell is known to within base - 1 of its published value (its interval
#' then narrowed by the relations, [audit_table()]'s LPs), a smoothed or
#' noisy cell is bounded by nothing but 0.
#'
#' @param table A table from [table_counts()].
#' @param scheme A masking scheme (above).
#' @param dim For [mask_kernel()]: the dimension smoothed over.
#' @param control Options of the solver, for controlled rounding and the
#'   repair after noise ([table_control()]).
#' @return An object of class `c("epimask_masked_table",
#'   "epimask_table_release")`: `shown` (the published value of every cell),
#'   `form` (`"rounding"`, `"random rounding"`, `"smoothing"`, `"noise"`,
#'   `"none"`), `scheme`, `epsilon` (noise), `base` (rounding) and the
#'   custodian-side `original`. `as.data.frame()` is the release (codes and
#'   published `value`); `print()`, `format()`, `glance()`;
#'   [criterion_evaluate()] of a table rule gives the share of sensitive
#'   cells it discloses.
#' @family count tables
#' @examples
#' tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                     hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#' \donttest{
#' if (requireNamespace("Rglpk", quietly = TRUE) || requireNamespace("highs", quietly = TRUE)) {
#'   noisy <- apply_mask(tab, mask_dp_counts(1))
#'   head(as.data.frame(noisy))
#'   rounded <- mask_count_table(tab, mask_round(base = 5))
#'   criterion_evaluate(cell_threshold(5), rounded)
#' }
#' }
#' @export
mask_count_table <- function(table, scheme, dim = NULL, control = table_control()) {
  check_table(table)
  scheme <- revalidate_scheme(scheme)
  control <- check_table_control(control)
  mask_table(scheme, table, dim = dim, control = control)
}

# The method of a scheme type on a count table (methods below and in
# mask-dp-counts.R); a type without one is refused.
mask_table <- function(scheme, table, ...) UseMethod("mask_table")

#' @export
mask_table.default <- function(scheme, table, ...) {
  abort_value("scheme", sprintf(paste0("a scheme that applies to a count table (mask_round(base = ), ",
                                       "mask_kernel(), mask_dp_counts(), mask_none()), not '%s'"),
                                format(scheme)))
}

#' @export
mask_table.mask_none <- function(scheme, table, ...) {
  new_masked_table(table, table_protected_value(table), "none", scheme)
}

#' @export
mask_table.mask_round <- function(scheme, table, dim = NULL, control = table_control(), ...) {
  if (is.null(scheme$base))
    abort_value("scheme", "mask_round(base = ) on a count table (rounding to multiples of a base)")
  v <- table_protected_value(table)
  if (scheme$rounding == "random") {
    shown <- random_round_table(table, v, scheme$base)
    return(new_masked_table(table, shown, "random rounding", scheme, base = scheme$base))
  }
  solver <- pick_solver(control$solver)
  shown <- controlled_round_table(table, v, scheme$base, solver, control$time_limit)
  new_masked_table(table, shown, "rounding", scheme, base = scheme$base)
}

#' @export
mask_table.mask_kernel <- function(scheme, table, dim = NULL, ...) {
  if (is.null(dim)) {
    if (length(table$dims) > 1L)
      abort_value("dim", "the dimension the kernel smooths over (the one whose codes the coordinates locate)")
    dim <- table$dims[[1L]]
  }
  dim <- check_choice(dim, table$dims, arg = "dim")
  j <- match(dim, table$dims)
  nodes <- table$nodes[[j]]
  codes <- which(nodes$leaf)
  if (nrow(scheme$coords) != length(codes))
    abort_length("scheme", sprintf(paste0("have one row of coordinates per code of '%s' (%d, in the order ",
                                          "of table_codes()), not %d"), dim, length(codes),
                                   nrow(scheme$coords)))
  v <- table_protected_value(table)
  interior <- which(table_interior(table))
  # one column per combination of the other dimensions' codes, rows the codes of dim
  other <- table$index[interior, -j, drop = FALSE]
  slice <- if (ncol(other)) do.call(paste, c(as.data.frame(other), sep = ":")) else rep("all", length(interior))
  row <- match(table$index[interior, j], codes)
  slices <- unique(slice)
  Z <- matrix(0, length(codes), length(slices))
  Z[cbind(row, match(slice, slices))] <- v[interior]
  colnames(Z) <- paste0("s", seq_along(slices))
  smoothed <- as.matrix(withCallingHandlers(
    apply_mask(as.data.frame(Z), scheme),
    epimask_warning_unmasked = function(w) invokeRestart("muffleWarning")))
  shown_interior <- smoothed[cbind(row, match(slice, slices))]
  shown <- sum_up_interior(table, interior, shown_interior)
  new_masked_table(table, shown, "smoothing", scheme)
}

# Every cell as the sum of the interior cells in it (consistent margins).
sum_up_interior <- function(table, interior, values) {
  mem <- interior_membership(table)
  # every cell holds at least one interior cell, so the sorted sums are all cells
  as.vector(rowsum(values[match(mem$interior, interior)], mem$cell, reorder = TRUE))
}

# The cells each interior cell counts in: (interior, cell) pairs, one per
# choice of a level in each dimension.
interior_membership <- function(table) {
  interior <- which(table_interior(table))
  d <- length(table$dims)
  n_nodes <- vapply(table$nodes, nrow, integer(1))
  stride <- cumprod(c(1, n_nodes))[seq_len(d)]
  # the ancestor of every node at every level above it (node itself at its level)
  anc <- lapply(table$nodes, function(nd) {
    top <- max(nd$level)
    out <- matrix(NA_integer_, nrow(nd), top + 1L)
    out[cbind(seq_len(nrow(nd)), nd$level + 1L)] <- seq_len(nrow(nd))
    for (l in seq_len(top)) {
      below <- !is.na(out[, l])
      out[below, l + 1L] <- nd$parent[out[below, l]]
    }
    out
  })
  combos <- as.matrix(expand.grid(lapply(anc, function(a) seq_len(ncol(a)))))
  cells <- lapply(seq_len(nrow(combos)), function(r) {
    cell <- rep(0, length(interior))
    for (j in seq_len(d)) {
      node <- anc[[j]][table$index[interior, j], combos[r, j]]
      cell <- cell + (node - 1) * stride[[j]]
    }
    cell + 1
  })
  list(interior = rep(interior, nrow(combos)), cell = as.integer(unlist(cells)))
}

new_masked_table <- function(table, shown, form, scheme, base = NULL, epsilon = NULL) {
  structure(list(original = table, shown = as.double(shown), form = form,
                 scheme = format(scheme), label = scheme_label(scheme), base = base,
                 epsilon = epsilon),
            class = c("epimask_masked_table", "epimask_table_release"))
}

#' @export
release_intervals.epimask_masked_table <- function(release, cells) {
  v <- table_protected_value(release$original)
  n <- length(v)
  lo <- rep(0, n)
  hi <- rep(Inf, n)
  if (release$form == "none") return(list(lo = v, hi = v))
  if (release$form %in% c("rounding", "random rounding")) {
    b <- release$base
    y <- release$shown
    counts <- is.null(release$original$value)
    slack <- if (counts && b == round(b)) b - 1 else b
    lo <- pmax(0, y - slack)
    hi <- y + slack
    if (release$form == "random rounding") {
      margins <- !table_interior(release$original)
      lo[margins] <- 0
      hi[margins] <- Inf
    }
    solver <- pick_solver(NULL)
    iv <- intruder_intervals(release$original, lo, hi, cells, solver)
    lo[cells] <- iv$low
    hi[cells] <- iv$high
  }
  list(lo = lo, hi = hi)
}

#' @rdname mask_count_table
#' @param x A masked table.
#' @param ... Ignored.
#' @param row.names,optional As for [as.data.frame()].
#' @export
as.data.frame.epimask_masked_table <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- table_cells_frame(x$original, list(value = x$shown))
  apply_row_names(out, row.names, optional)
}

#' @rdname mask_count_table
#' @export
format.epimask_masked_table <- function(x, ...) {
  c(sprintf("<masked table> %s, %s cells; the published cells add up", x$scheme,
            format_num(length(x$shown), integers = TRUE)),
    if (!is.null(x$epsilon))
      sprintf("  epsilon-differentially private: epsilon = %s", format_num(x$epsilon)))
}

#' @rdname mask_count_table
#' @param n Number of cells to print.
#' @export
print.epimask_masked_table <- function(x, n = 10L, ...) {
  cat(format(x), sep = "\n")
  print(format_table(utils::head(as.data.frame(x), n)), row.names = FALSE)
  invisible(x)
}

#' @rdname epimask-tidiers
#' @method glance epimask_masked_table
#' @export
glance.epimask_masked_table <- function(x, ...) {
  data.frame(scheme = x$scheme, form = x$form, cells = length(x$shown),
             epsilon = x$epsilon %||% NA_real_, base = x$base %||% NA_real_,
             stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_masked_table
#' @export
tidy.epimask_masked_table <- function(x, ...) as.data.frame(x)

#' The codes of a table's dimension
#'
#' The level-0 codes of dimension `dim` in the order of the table: the order
#' the rows of a kernel scheme's coordinates must follow to smooth a table
#' over that dimension ([mask_count_table()]).
#' @param table A table from [table_counts()].
#' @param dim The dimension.
#' @return A character vector.
#' @family count tables
#' @examples
#' tab <- table_counts(zip_mortality, "zip", freq = "deaths")
#' head(table_codes(tab, "zip"))
#' @export
table_codes <- function(table, dim) {
  check_table(table)
  dim <- check_choice(dim, table$dims, arg = "dim")
  nd <- table$nodes[[match(dim, table$dims)]]
  nd$code[nd$leaf]
}
