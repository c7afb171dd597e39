# Rounding a count table to a base (methods vignette section 30).
# Controlled rounding: with x_i = b q_i + r_i (0 <= r_i < b) for the interior
# cells, choose d_i in {0, 1} (0 when r_i = 0: a multiple stays) and publish
# b (q_i + d_i); a cell m of the margins then shows b (Q_m + S_m), S_m the
# sum of d_i over its interior cells, which is a controlled rounding of its
# value x_m = b Q_m + R_m exactly when floor(R_m / b) <= S_m <= ceil(R_m / b).
# Among those patterns the mixed-integer program takes the one of least total
# absolute change over all cells, which is linear in d (see the vignette).

controlled_round_table <- function(table, v, base, solver, time_limit) {
  mem <- interior_membership(table)
  interior <- which(table_interior(table))
  n <- length(v)
  q <- floor(v / base + 1e-12)
  r <- v - base * q
  r[abs(r) < 1e-9 * base | abs(r - base) < 1e-9 * base] <- 0
  r_int <- r[interior]
  # the margins (cells that are not interior) and their interior cells
  margin <- !table_interior(table)
  col <- match(mem$interior, interior)
  R <- as.vector(rowsum(r_int[col], mem$cell, reorder = TRUE))
  lower <- floor(R / base + 1e-9)
  upper <- ceiling(R / base - 1e-9)
  rows <- which(margin)
  keep <- margin[mem$cell]
  i <- match(mem$cell[keep], rows)
  j <- col[keep]
  rho <- R - base * lower
  # objective: interior change r + d (b - 2r), margin change rho + (S - lower)(b - 2 rho)
  obj <- base - 2 * r_int
  if (length(rows)) {
    agg <- rowsum((base - 2 * rho[rows])[i], j, reorder = TRUE)
    obj[as.integer(rownames(agg))] <- obj[as.integer(rownames(agg))] + agg[, 1L]
  }
  fixed <- r_int == 0
  m <- length(rows)
  # two row blocks over the same cells: S_m >= floor(R_m / b), S_m <= ceil(R_m / b)
  p <- new_program(obj, c(i, i + m), c(j, j), rep(1, 2L * length(i)), 2L * m,
                   c(rep(">=", m), rep("<=", m)), c(lower[rows], upper[rows]),
                   lower = rep(0, length(interior)), upper = ifelse(fixed, 0, 1),
                   types = rep("I", length(interior)))
  res <- solve_program(p, solver, time_limit)
  if (res$status != "optimal")
    epimask_abort(sprintf(paste0("No controlled rounding to base %s was found (%s: %s): a table of three ",
                                 "or more dimensions may have none. Use random rounding ",
                                 "(mask_round(base = , rounding = \"random\")) or another base."),
                          format_num(base), res$status, shorten(res$message %||% "", 200L)),
                  c(if (res$status == "time_limit") "epimask_error_time_limit",
                    "epimask_error_solver", "epimask_error_value"), arg = "scheme")
  d <- round(res$x)
  shown_int <- base * (q[interior] + d)
  sum_up_interior(table, interior, shown_int)
}

random_round_table <- function(table, v, base) {
  interior <- which(table_interior(table))
  shown_int <- round_to_base(v[interior], base, "random")
  sum_up_interior(table, interior, shown_int)
}
