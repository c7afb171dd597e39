# Plots of count tables and their releases (base graphics): two dimensions
# as a grid of every code and group (the other dimensions at their total),
# the shade the count, suppressed cells marked; one dimension as the counts
# of its cells in the table's order.

#' Plot a count table or a protected table
#'
#' Two or more dimensions: a grid of the cells of two dimensions (`dims`),
#' every code and group in the table's order, the other dimensions at their
#' total (said under the title, with how many of the suppressed cells the
#' view shows); the shade is the count (log scale), small
#' counts (1 to 10) are outlined. One dimension: the count of every cell in
#' the table's order. For a protected table ([suppress_table()]) the
#' suppressed cells are marked (primary: filled, secondary: hatched).
#'
#' @param x A table from [table_counts()] or [suppress_table()].
#' @param dims The two dimensions to show; by default the pair whose view
#'   shows the most suppressed cells (the first two for a table not
#'   protected, and on ties).
#' @param main The title.
#' @param ... Passed to [graphics::image()] (two dimensions) or
#'   [graphics::plot()] (one).
#' @return `x`, invisibly.
#' @family count tables
#' @examples
#' tab <- table_counts(dose_cohort, c("city", "age_exp"),
#'                     hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#' plot(tab, dims = c("age_exp", "city"))
#' @export
plot.epimask_table <- function(x, dims = NULL, main = NULL, ...) {
  check_table(x, "x")
  plot_table_cells(x, x$count, rep("published", length(x$count)), dims,
                   main %||% "Counts of the table's cells", ...)
  invisible(x)
}

#' @rdname plot.epimask_table
#' @export
plot.epimask_protected_table <- function(x, dims = NULL, main = NULL, ...) {
  status <- ifelse(x$primary, "primary", ifelse(x$suppressed, "secondary", "published"))
  plot_table_cells(x$original, table_protected_value(x$original), status, dims,
                   main %||% sprintf("Suppression pattern: %d primary, %d secondary",
                                     x$n_primary, x$n_secondary), ...)
  invisible(x)
}

# The cells of the view of two dimensions: the other dimensions at their
# total.
view_cells <- function(table, j) {
  keep <- rep(TRUE, nrow(table$index))
  for (o in setdiff(seq_along(table$dims), j)) keep <- keep &
    table$nodes[[o]]$level[table$index[, o]] == max(table$nodes[[o]]$level)
  keep
}

# The default view of three or more dimensions: the pair whose view shows
# the most suppressed cells (the first pair on ties, and for a table not
# protected), so that a pattern is not plotted as an empty grid.
default_view <- function(table, status) {
  pairs <- utils::combn(length(table$dims), 2L)
  shown <- apply(pairs, 2L, function(j) sum(status[view_cells(table, j)] != "published"))
  table$dims[pairs[, which.max(shown)]]
}

plot_table_cells <- function(table, value, status, dims, main, ...) {
  if (length(table$dims) == 1L) return(plot_table_line(table, value, status, main, ...))
  dims <- dims %||% default_view(table, status)
  if (!is.character(dims) || length(dims) != 2L || !all(dims %in% table$dims) ||
      dims[[1L]] == dims[[2L]])
    abort_value("dims", sprintf("two of the table's dimensions (%s)", paste(table$dims, collapse = ", ")))
  j <- match(dims, table$dims)
  others <- setdiff(seq_along(table$dims), j)
  keep <- view_cells(table, j)
  rows <- table$index[keep, j[[1L]]]
  cols <- table$index[keep, j[[2L]]]
  nr <- nrow(table$nodes[[j[[1L]]]])
  nc <- nrow(table$nodes[[j[[2L]]]])
  z <- matrix(NA_real_, nr, nc)
  z[cbind(rows, cols)] <- log10(1 + value[keep])
  st <- matrix("published", nr, nc)
  st[cbind(rows, cols)] <- status[keep]
  small <- matrix(FALSE, nr, nc)
  small[cbind(rows, cols)] <- table$count[keep] >= 1 & table$count[keep] < 11
  pal <- grDevices::hcl.colors(64, "Blues 3", rev = TRUE)
  longest <- function(nd) max(nchar(nd$code))
  old <- graphics::par(mar = c(2 + 0.45 * min(longest(table$nodes[[j[[1L]]]]), 14), 
                               2 + 0.45 * min(longest(table$nodes[[j[[2L]]]]), 14), 4.5, 1))
  on.exit(graphics::par(old), add = TRUE)
  graphics::image(seq_len(nr), seq_len(nc), z, col = pal, axes = FALSE, xlab = "", ylab = "", ...)
  graphics::title(main = main, line = 2.5)
  if (length(others)) {
    n_supp <- sum(status != "published")
    graphics::mtext(sprintf("%s at %s total%s", paste(table$dims[others], collapse = ", "),
                            if (length(others) > 1L) "their" else "its",
                            if (n_supp) sprintf("; %d of the %d suppressed cells in this view",
                                                sum(status[keep] != "published"), n_supp) else ""),
                    side = 3, line = 1.6, cex = 0.75)
  }
  graphics::mtext(dims[[1L]], side = 1, line = 0.5, adj = 1, cex = 0.8)
  # above the grid, clear of the row labels
  graphics::mtext(dims[[2L]], side = 3, line = 0.3, adj = 0, cex = 0.8)
  label_axis <- function(side, nodes, n) {
    at <- if (n > 40) unique(round(seq(1, n, length.out = 40))) else seq_len(n)
    lab <- nodes$code[at]
    graphics::axis(side, at = at, labels = lab, las = 2, cex.axis = if (n > 12) 0.6 else 0.8,
                   tick = FALSE)
  }
  label_axis(1, table$nodes[[j[[1L]]]], nr)
  label_axis(2, table$nodes[[j[[2L]]]], nc)
  sm <- which(small & st == "published", arr.ind = TRUE)
  if (nrow(sm)) graphics::rect(sm[, 1] - 0.45, sm[, 2] - 0.45, sm[, 1] + 0.45, sm[, 2] + 0.45,
                               border = "darkorange", lwd = 1)
  pr <- which(st == "primary", arr.ind = TRUE)
  if (nrow(pr)) graphics::rect(pr[, 1] - 0.45, pr[, 2] - 0.45, pr[, 1] + 0.45, pr[, 2] + 0.45,
                               col = "firebrick", border = NA)
  se <- which(st == "secondary", arr.ind = TRUE)
  if (nrow(se)) graphics::rect(se[, 1] - 0.45, se[, 2] - 0.45, se[, 1] + 0.45, se[, 2] + 0.45,
                               col = "goldenrod", border = "goldenrod4", density = 30)
  graphics::legend("bottom", inset = c(0, 1.005), xpd = NA, horiz = TRUE, bty = "n", cex = 0.75,
                   legend = c("count 1-10", "primary", "secondary"),
                   fill = c(NA, "firebrick", "goldenrod"), border = c("darkorange", NA, "goldenrod4"),
                   density = c(0, NA, 30))
  invisible()
}

plot_table_line <- function(table, value, status, main, ...) {
  n <- length(value)
  col <- ifelse(status == "primary", "firebrick", ifelse(status == "secondary", "goldenrod",
                ifelse(table$count >= 1 & table$count < 11, "darkorange", "steelblue")))
  pch <- ifelse(status == "published", 16, 4)
  level <- table$nodes[[1L]]$level[table$index[, 1L]]
  cex <- 0.6 + 0.3 * level
  cex[col != "steelblue"] <- 1.2
  graphics::plot(seq_len(n), 1 + value, log = "y", col = col, pch = pch, cex = cex,
                 xlab = sprintf("cells of '%s' in the table's order (larger points: groups)",
                                table$dims[[1L]]),
                 ylab = "1 + count", main = main, ...)
  graphics::legend("topright", bty = "n", cex = 0.75, pch = c(16, 16, 4, 4),
                   col = c("steelblue", "darkorange", "firebrick", "goldenrod"),
                   legend = c("published", "count 1-10", "primary", "secondary"))
  invisible()
}
