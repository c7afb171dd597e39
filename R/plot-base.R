# Base-graphics plots of a risk-utility profile: the Cologne et al. (2012)
# security-utility plot and the Zhou et al. (2010) panels against the degree of
# masking. Layout decisions shared with autoplot() live in plot-layout.R.

#' Plot a risk-utility profile
#'
#' Draws one of five panels in base graphics:
#' \describe{
#'   \item{`"ru"`}{the security-utility plot of Cologne et al. (2012):
#'     anonymity score (1 - risk) against analysis potential U, both on
#'     \[0, 1\], ideal at the top right, points labelled by scheme without
#'     overplotted labels, and the curve anonymity = \[1 - U^theta\]^(1/theta)
#'     fitted by [fit_ru_curve()] (METHODS 6.1). Schemes with U > 1 are drawn
#'     at U = 1 with an open diamond around the point and their U in the
#'     label.}
#'   \item{`"estimate"`}{the mean estimate with its naive 95% CI against the
#'     degree of masking (lambda), one line per kernel (column `kernel`), with
#'     reference lines at the original estimate or the true value and, when
#'     the profile has one, at the aggregated-data estimate.}
#'   \item{`"mse"`}{MSE against lambda, with the MSE of the original as a
#'     reference line.}
#'   \item{`"risk"`}{risk against lambda.}
#'   \item{`"tradeoff"`}{risk against MSE, one line per kernel, points
#'     labelled by lambda.}
#' }
#' Against lambda the x axis is logarithmic when the positive degrees span two
#' orders of magnitude or more (`log = "auto"`), with lambda = 0 drawn left of
#' an axis break. When some scheme has no degree (classical masks), the
#' panels use one position per scheme instead. Colours are the
#' colour-blind-friendly Okabe-Ito palette, with a different symbol for each
#' kernel so that the plot also reads in greyscale.
#'
#' @param x an `ru_profile`.
#' @param type which panel, one of `"ru"`, `"estimate"`, `"mse"`, `"risk"`,
#'   `"tradeoff"`.
#' @param log `"auto"`, or a string containing `"x"` and/or `"y"` for
#'   logarithmic axes (`""` for none). The y axis of `"estimate"` and of
#'   `"ru"` is never logarithmic.
#' @param labels label the points (`"ru"`: scheme; `"tradeoff"`: lambda)?
#' @param curve draw the fitted curve on the `"ru"` plot?
#' @param legend draw the legend (above the plotting region)?
#' @param col colours, one per kernel (default Okabe-Ito).
#' @param xlim,ylim axis limits (defaults: \[0, 1\] for `"ru"`, the data
#'   range otherwise).
#' @param main title.
#' @param cex.labels size of the point labels.
#' @param ... further graphical parameters passed to [graphics::par()] for
#'   the duration of the plot (e.g. `cex`).
#' @return `x`, invisibly.
#' @seealso [autoplot.ru_profile()] for the ggplot2 version.
#' @export
#' @examples
#' ru <- epimask:::example_ru_profile()
#' plot(ru)
#' plot(ru, type = "estimate")
#' plot(ru, type = "tradeoff")
plot.ru_profile <- function(x, type = c("ru", "estimate", "mse", "risk", "tradeoff"),
                            log = "auto", labels = TRUE, curve = TRUE, legend = TRUE,
                            col = NULL, xlim = NULL, ylim = NULL, main = NULL,
                            cex.labels = 0.75, ...) {
  type <- check_choice(type, ru_plot_types, "type")
  log <- check_log(log)
  check_flag(labels)
  check_flag(curve)
  check_flag(legend)
  pd <- ru_panel_data(x, type, log_degree(log))
  pal <- ru_palette(levels(pd$data$group), col)
  keys <- ru_legend_keys(pd, pal, x, curve)
  n_rows <- if (legend) legend_rows(keys$legend) else 0L
  bottom <- scheme_axis_margin(pd$axis)
  op <- graphics::par(mar = c(bottom$lines, 4.6, 0.8 + 1.25 * n_rows + if (is.null(main)) 0 else 1.6, 1.2),
                      mgp = c(2.7, 0.65, 0), tcl = -0.3, las = 1, ...)
  if (!is.null(pd$axis)) pd$axis$rotate <- bottom$rotate
  if (!is.null(bottom$labels)) pd$axis$labels <- bottom$labels
  if (!is.null(pd$axis) && pd$axis$kind == "scheme") pd$xlab <- ""
  on.exit(graphics::par(op))
  switch(type,
         ru = base_ru_plot(pd, pal, keys, xlim, ylim, labels, cex.labels),
         tradeoff = base_tradeoff_plot(pd, pal, log, xlim, ylim, labels, cex.labels),
         base_degree_plot(pd, pal, log, xlim, ylim))
  if (legend && length(keys$legend)) base_legend(keys, n_rows)
  if (!is.null(main))
    graphics::title(main = main, line = 0.4 + 1.25 * n_rows + 0.4, font.main = 1, cex.main = 1.1)
  invisible(x)
}

check_log <- function(log) {
  if (isTRUE(log)) return("xy")
  if (isFALSE(log)) return("")
  if (!is.character(log) || length(log) != 1L || is.na(log) ||
      !(log == "auto" || grepl("^[xy]*$", log)))
    abort_value("log", "\"auto\", \"\", \"x\", \"y\" or \"xy\"")
  log
}

log_degree <- function(log) if (identical(log, "auto")) "auto" else grepl("x", log)

# Which y (or x for the trade-off's MSE) axes are logarithmic.
use_log_scale <- function(v, log, axis) {
  v <- v[is.finite(v)]
  if (!length(v) || any(v <= 0)) return(FALSE)
  if (identical(log, "auto")) return(axis == "x_mse" && max(v) / min(v) >= 100)
  grepl(if (axis == "y") "y" else "x", log)
}

# Legend entries (label, colour, symbol, line type) for a panel.
ru_legend_keys <- function(pd, pal, x, curve) {
  groups <- names(pal)
  show_groups <- length(groups) > 1L
  leg <- character(0); col <- character(0); pch <- integer(0); lty <- integer(0)
  if (show_groups) {
    leg <- groups
    col <- unname(pal)
    pch <- rep_len(ru_shapes, length(groups))
    lty <- rep(if (pd$type == "ru" || identical(pd$axis$kind, "scheme")) 0L else 1L,
               length(groups))
  }
  fit <- NULL
  if (pd$type == "ru") {
    if (curve) fit <- ru_try_curve(x)
    if (!is.null(fit)) {
      leg <- c(leg, sprintf("fitted curve, theta = %s", format_num(fit$theta, 3)))
      col <- c(col, "grey45"); pch <- c(pch, NA_integer_); lty <- c(lty, 1L)
    }
    if (any(pd$data$clipped)) {
      leg <- c(leg, "U > 1, drawn at 1")
      col <- c(col, "grey20"); pch <- c(pch, 5L); lty <- c(lty, 0L)
    }
  }
  if (!is.null(pd$hlines)) {
    leg <- c(leg, pd$hlines$label)
    col <- c(col, rep("grey35", nrow(pd$hlines)))
    pch <- c(pch, rep(NA_integer_, nrow(pd$hlines)))
    lty <- c(lty, pd$hlines$lty)
  }
  list(legend = leg, col = col, pch = pch, lty = lty, fit = fit)
}

# The legend sits above the plot region, its entries packed greedily into rows
# as wide as the figure (widths estimated from the character size, since the
# margin must be set before anything is drawn).
legend_layout <- function(leg, cex = 0.85) {
  if (!length(leg)) return(list())
  char_w <- graphics::par("cin")[2] * 0.5 * cex
  entry_w <- (nchar(leg) + 8) * char_w
  avail <- graphics::par("fin")[1] - 0.4
  rows <- list()
  current <- integer(0)
  used <- 0
  for (i in seq_along(leg)) {
    if (length(current) && used + entry_w[i] > avail) {
      rows[[length(rows) + 1L]] <- current
      current <- integer(0)
      used <- 0
    }
    current <- c(current, i)
    used <- used + entry_w[i]
  }
  rows[[length(rows) + 1L]] <- current
  rows
}

legend_rows <- function(leg) length(legend_layout(leg))

base_legend <- function(keys, n_rows) {
  rows <- legend_layout(keys$legend)
  # Draw in linear [0, 1] coordinates over the plot region: legend() widths
  # are unreliable on log axes.
  old_usr <- graphics::par("usr")
  old <- graphics::par(xlog = FALSE, ylog = FALSE)
  graphics::par(usr = c(0, 1, 0, 1))
  on.exit({
    graphics::par(old)
    graphics::par(usr = old_usr)
  }, add = TRUE)
  line_h <- graphics::grconvertY(1.25 * graphics::par("csi") * 0.85, "inches", "npc") -
    graphics::grconvertY(0, "inches", "npc")
  for (r in seq_along(rows)) {
    i <- rows[[r]]
    graphics::legend(
      x = 0.5, y = 1 + (length(rows) - r) * line_h, xjust = 0.5, yjust = 0,
      legend = paste0(keys$legend[i], "   "), col = keys$col[i], pch = keys$pch[i],
      lty = keys$lty[i], lwd = ifelse(keys$lty[i] == 0L, NA, 1.5), horiz = TRUE,
      bty = "n", xpd = NA, cex = 0.85, seg.len = 2.2, x.intersp = 0.6,
      text.width = NA, inset = 0, y.intersp = 0.6)
  }
}

# One position per scheme: horizontal labels when they fit between the ticks,
# otherwise vertical ones with the bottom margin grown to hold them.
scheme_axis_margin <- function(axis) {
  if (is.null(axis) || axis$kind != "scheme")
    return(list(lines = 4.2, rotate = FALSE, labels = NULL))
  char_w <- graphics::par("cin")[2] * 0.42 * 0.85
  slot <- (graphics::par("fin")[1] - 1.4) / length(axis$labels)
  slot_chars <- max(6L, floor(0.95 * slot / char_w))
  wrapped <- vapply(axis$labels, function(l)
    paste(strwrap(l, width = slot_chars), collapse = "\n"), "", USE.NAMES = FALSE)
  parts <- strsplit(wrapped, "\n", fixed = TRUE)
  n_lines <- max(lengths(parts))
  widest <- max(nchar(unlist(parts)))
  if (widest <= slot_chars && n_lines <= 4L)
    return(list(lines = 3.4 + 0.9 * n_lines, rotate = FALSE, labels = wrapped,
                padj = 1))
  label_w <- max(nchar(axis$labels)) * char_w
  list(lines = min(1.2 + 0.85 * label_w / graphics::par("csi"), 14), rotate = TRUE,
       labels = axis$labels)
}

# Light background grid, axes and box.
base_frame <- function(xlim, ylim, log, xlab, ylab, x_at = NULL, x_labels = NULL,
                       zero_break = NA_real_, rotate = FALSE) {
  graphics::plot.new()
  graphics::plot.window(xlim, ylim, log = log)
  usr <- graphics::par("usr")
  xt <- if (is.null(x_at)) graphics::axTicks(1) else x_at
  yt <- graphics::axTicks(2)
  graphics::abline(v = xt, h = yt, col = "grey92", lwd = 0.8)
  multi <- !is.null(x_labels) && any(grepl("\n", x_labels, fixed = TRUE))
  graphics::axis(1, at = xt, labels = if (is.null(x_labels)) TRUE else x_labels,
                 las = if (rotate) 2 else 1, padj = if (multi) 1 else NA,
                 gap.axis = if (is.null(x_labels)) NA else -1,
                 mgp = if (multi) c(2.7, 0.3, 0) else graphics::par("mgp"),
                 cex.axis = 0.85)
  graphics::axis(2, at = yt, cex.axis = 0.85)
  graphics::box(col = "grey30")
  if (!is.na(zero_break)) axis_break(zero_break)
  graphics::title(xlab = xlab, ylab = ylab, cex.lab = 0.95)
}

# A small "//" on the x axis between lambda = 0 and the smallest positive
# lambda, since the log axis cannot show 0 at its true place.
axis_break <- function(at) {
  usr_y <- graphics::par("usr")[3]
  y0 <- if (graphics::par("ylog")) 10^usr_y else usr_y
  dx <- graphics::grconvertX(at, "user", "inches")
  dy <- graphics::grconvertY(y0, "user", "inches")
  for (off in c(-0.03, 0.03)) {
    xs <- graphics::grconvertX(dx + off + c(-0.03, 0.03), "inches", "user")
    ys <- graphics::grconvertY(dy + c(-0.06, 0.06), "inches", "user")
    graphics::segments(xs[1], ys[1], xs[2], ys[2], xpd = NA, lwd = 1.2)
  }
}

pad_range <- function(r, frac = 0.04, log = FALSE) {
  if (log) return(10^pad_range(log10(r), frac))
  if (diff(r) == 0) r <- r + c(-1, 1) * max(abs(r[1]) * 0.1, 1e-3)
  r + c(-1, 1) * diff(r) * frac
}

base_ru_plot <- function(pd, pal, keys, xlim, ylim, labels, cex_labels) {
  d <- pd$data
  check_ru_points(d, "x")
  xlim <- xlim %||% c(0, 1)
  ylim <- ylim %||% c(0, 1)
  base_frame(pad_range(xlim, 0.02), pad_range(ylim, 0.02), "", pd$xlab, pd$ylab)
  if (!is.null(keys$fit)) {
    u <- ru_curve_grid()
    graphics::lines(u, ru_curve_value(u, keys$fit$theta), col = "grey45", lwd = 1.5)
  }
  idx <- as.integer(d$group)
  graphics::points(d$x, d$y, col = pal[idx], pch = ru_shapes[(idx - 1L) %% 8L + 1L],
                   cex = 1.2)
  if (any(d$clipped))
    graphics::points(d$x[d$clipped], d$y[d$clipped], pch = 5, cex = 2, col = "grey20")
  obstacles <- NULL
  if (!is.null(keys$fit)) {
    u <- ru_curve_grid()
    obstacles <- cbind(u, ru_curve_value(u, keys$fit$theta))
  }
  if (labels) base_point_labels(d$x, d$y, d$label, cex_labels, col = label_colours(pal, idx),
                                lines = obstacles)
}

# Label text in the series colour, darkened a little for contrast on white.
label_colours <- function(pal, idx) {
  rgb <- grDevices::col2rgb(pal[idx]) * 0.75
  grDevices::rgb(rgb[1, ], rgb[2, ], rgb[3, ], maxColorValue = 255)
}

check_ru_points <- function(d, arg) {
  if (!any(is.finite(d$x) & is.finite(d$y)))
    epimask_abort(paste("The profile has no scheme with both an analysis potential and",
                        "a risk to plot (was the risk computed?)."),
                  "epimask_error_value", arg = arg)
}

base_tradeoff_plot <- function(pd, pal, log, xlim, ylim, labels, cex_labels) {
  d <- pd$data
  ok <- is.finite(d$x) & is.finite(d$y)
  if (!any(ok))
    epimask_abort("The profile has no scheme with both an MSE and a risk to plot.",
                  "epimask_error_value", arg = "x")
  log_x <- use_log_scale(d$x[ok], log, "x_mse")
  log_y <- use_log_scale(d$y[ok], log, "y")
  xlim <- xlim %||% pad_range(range(d$x[ok]), 0.06, log_x)
  ylim <- ylim %||% pad_range(range(d$y[ok]), 0.06, log_y)
  base_frame(xlim, ylim, paste0(if (log_x) "x" else "", if (log_y) "y" else ""),
             pd$xlab, pd$ylab)
  d <- d[ok, , drop = FALSE]
  d <- d[order(d$group, d$degree), , drop = FALSE]
  base_series(d, pal, order_by = "degree")
  if (labels) base_point_labels(d$x, d$y, d$label, cex_labels,
                                col = label_colours(pal, as.integer(d$group)),
                                lines = cbind(d$x, d$y), line_group = d$group)
}

base_degree_plot <- function(pd, pal, log, xlim, ylim) {
  d <- pd$data
  ax <- pd$axis
  ok <- is.finite(d$x) & is.finite(d$y)
  if (!any(ok))
    epimask_abort(sprintf("The profile has no scheme with a value to plot for type \"%s\".",
                          pd$type), "epimask_error_value", arg = "x")
  yvals <- c(d$y[ok], d$lower[ok], d$upper[ok], pd$hlines$y)
  yvals <- yvals[is.finite(yvals)]
  log_y <- pd$type != "estimate" && use_log_scale(yvals, log, "y")
  if (pd$type == "risk" && !log_y) yvals <- c(yvals, 0)
  ylim <- ylim %||% pad_range(range(yvals), 0.05, log_y)
  xlim <- xlim %||% pad_range(ax$lim, if (ax$kind == "scheme") 0 else 0.04, ax$log)
  base_frame(xlim, ylim, paste0(if (ax$log) "x" else "", if (log_y) "y" else ""),
             pd$xlab, pd$ylab, x_at = if (ax$kind == "linear") NULL else ax$at,
             x_labels = ax$labels, zero_break = ax$break_at,
             rotate = isTRUE(ax$rotate))
  if (!is.null(pd$hlines))
    graphics::abline(h = pd$hlines$y, lty = pd$hlines$lty, col = "grey35", lwd = 1.2)
  d <- d[ok, , drop = FALSE]
  if (pd$type == "estimate" && ax$kind != "scheme") d$x <- dodge_x(d$x, d$group, ax$log)
  if (pd$type == "estimate")
    graphics::arrows(d$x, d$lower, d$x, d$upper, angle = 90, code = 3, length = 0.025,
                     col = pal[as.integer(d$group)], lwd = 1.1)
  base_series(d, pal, order_by = "x", join = ax$kind != "scheme")
}

# Shift the series of the estimate panel sideways (in inches) so that the
# confidence intervals of different kernels at the same lambda do not overlap.
dodge_x <- function(x, group, log) {
  g <- as.integer(group)
  n_g <- nlevels(group)
  if (n_g < 2L) return(x)
  offset <- (g - (n_g + 1) / 2) * 0.05
  xi <- graphics::grconvertX(x, "user", "inches") + offset
  graphics::grconvertX(xi, "inches", "user")
}

base_series <- function(d, pal, order_by, join = TRUE) {
  for (lev in levels(d$group)) {
    s <- d[d$group == lev, , drop = FALSE]
    if (!nrow(s)) next
    s <- s[order(s[[order_by]], s$x), , drop = FALSE]
    k <- match(lev, names(pal))
    if (join && nrow(s) > 1L) graphics::lines(s$x, s$y, col = pal[k], lwd = 1.6)
    graphics::points(s$x, s$y, col = pal[k], pch = ru_shapes[(k - 1L) %% 8L + 1L],
                     cex = 1.1, bg = "white")
  }
}

# Labels placed by place_labels() in inches, with thin leader lines for labels
# pushed away from their point.
base_point_labels <- function(x, y, labels, cex, col = "grey15", lines = NULL,
                              line_group = NULL) {
  ok <- is.finite(x) & is.finite(y)
  if (!any(ok)) return(invisible())
  col <- rep_len(col, length(x))[ok]
  px <- graphics::grconvertX(x[ok], "user", "inches")
  py <- graphics::grconvertY(y[ok], "user", "inches")
  obstacles <- NULL
  if (!is.null(lines)) {
    lx <- graphics::grconvertX(lines[, 1], "user", "inches")
    ly <- graphics::grconvertY(lines[, 2], "user", "inches")
    obstacles <- polyline_samples(lx, ly, line_group %||% rep(1L, length(lx)))
  }
  w <- graphics::strwidth(labels[ok], units = "inches", cex = cex)
  h <- graphics::strheight(labels[ok], units = "inches", cex = cex) * 1.5
  fig <- c(graphics::grconvertX(c(0, 1), "npc", "inches"),
           graphics::grconvertY(c(0, 1), "npc", "inches"))
  fig <- fig + c(0.03, -0.03, 0.03, -0.03)
  pos <- place_labels(px, py, w, h, fig, obstacles = obstacles)
  ends <- leader_end(px, py, pos$x, pos$y, w, h)
  to_x <- function(v) graphics::grconvertX(v, "inches", "user")
  to_y <- function(v) graphics::grconvertY(v, "inches", "user")
  if (any(pos$leader))
    graphics::segments(to_x(px[pos$leader]), to_y(py[pos$leader]),
                       to_x(ends$x[pos$leader]), to_y(ends$y[pos$leader]),
                       col = "grey55", lwd = 0.7)
  graphics::text(to_x(pos$x), to_y(pos$y), labels[ok], cex = cex, col = col)
  invisible(pos)
}
