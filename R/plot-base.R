# Base-graphics plots of a risk-utility profile: the Cologne et al. (2012)
# security-utility plot and the Zhou et al. (2010) panels against the degree of
# masking. What is drawn where is decided in plot-layout.R (shared with
# autoplot()); this file only draws it.

#' Plot a risk-utility profile
#'
#' Draws one of five panels in base graphics:
#' \describe{
#'   \item{`"ru"`}{the security-utility plot of Cologne et al. (2012):
#'     anonymity score (1 - risk) against analysis potential U, ideal at the
#'     top right, each point labelled by its scheme's short label (the
#'     profile's column `label`, built by [scheme_label()] from the scheme's
#'     fields; the full label where there is none), and the curve
#'     anonymity = \[1 - U^theta\]^(1/theta) fitted by [fit_ru_curve()]
#'     (methods vignette, section 6.1). When the risks are all small (below 0.05) or span two
#'     orders of magnitude the vertical axis shows the risk itself on a
#'     reversed log scale (safer upwards). Schemes with U > 1 are drawn at
#'     U = 1 with an open diamond and their U in the label. U is the
#'     profile's `analysis_potential` (the masked variance floored at the
#'     original's, bias counted in full), the number print(), summary(),
#'     [recommend()] and the frontier use.}
#'   \item{`"estimate"`}{the mean estimate with its naive 95% CI against the
#'     strength of masking, one line per masking generator, with reference
#'     lines at the original estimate or the true value and, when the profile
#'     has one, at the aggregated-data estimate.}
#'   \item{`"mse"`}{MSE against the strength of masking, with the MSE of the
#'     original as a reference line.}
#'   \item{`"risk"`}{risk against the strength of masking.}
#'   \item{`"tradeoff"`}{risk against MSE (Zhou et al. 2010), one line per
#'     generator from weak to strong masking.}
#'   \item{`"utility"`}{for a profile with a model-free measure
#'     (`ru_profile(utility = )`): risk against that measure, drawn as the
#'     `"tradeoff"` panel draws the MSE (see [plot.ru_utility_profile()]).}
#' }
#' **Strength axis.** Profiles with columns `generator` and `strength` draw
#' one line per generator (e.g. significant-digit and decimal rounding are
#' two), each starting at no masking and running from weak to strong. Kernel
#' sweeps share a lambda axis; any other mix is drawn against the step of each
#' sweep (1, 2, ...), since strengths of different generators are not
#' comparable. Older profiles without these columns are drawn against their
#' `degree` column (lambda) with one line per kernel, or with one position per
#' scheme when some degree is missing. An axis is logarithmic when its
#' positive values span two orders of magnitude or more (`log = "auto"`);
#' a zero that a log axis cannot show (no masking, a zero risk, an interval
#' reaching zero) is drawn at the axis floor, labelled "0" beyond an axis
#' break.
#'
#' **Uncertainty and the decision.** Where the profile has the Monte Carlo
#' standard errors `analysis_potential_se`, `mse_se` and `risk_se`, points
#' carry +-1.96 SE bars (the `"estimate"` panel keeps the naive CIs). Schemes
#' on the Pareto frontier (column `pareto`) are ringed and, on the `"ru"` and
#' `"tradeoff"` panels, joined by a staircase: the edge of what they dominate.
#' The risk budget of the profile (`attr(x, "meta")$budget`, from a release
#' context or `max_risk`) is a dashed line with the region over budget
#' shaded.
#'
#' Labels are placed beside their own point, to the right, left, above or
#' below, whichever side is free of other labels and points
#' ([autoplot.ru_profile()] lays them out with ggrepel). Colours
#' are the colour-blind-friendly Okabe-Ito palette, with a different symbol
#' for each series so that the plot also reads in greyscale.
#'
#' @param x an `ru_profile`.
#' @param type which panel, one of `"ru"`, `"estimate"`, `"mse"`, `"risk"`,
#'   `"tradeoff"`, or `"utility"` for a profile with a model-free measure.
#' @param log `"auto"`, or a string containing `"x"` and/or `"y"` for
#'   logarithmic axes (`""` for none). The y axis of `"estimate"` and the x
#'   axis of `"ru"` are never logarithmic; on `"ru"`, `"y"` is the risk axis.
#' @param labels label the points? (`"ru"`: scheme; `"tradeoff"`: scheme, or
#'   lambda for kernel profiles without generators; panels against the step
#'   of a sweep: scheme.)
#' @param curve the fitted curve on the `"ru"` plot: `NULL` (default) draws it
#'   when [fit_ru_curve()] finds theta identified and the curve fits the
#'   points (its goodness-of-fit rule), and otherwise says so under the plot;
#'   `TRUE` draws it anyway, dashed and marked "not identified" or "does not
#'   fit";
#'   `FALSE` never.
#' @param legend draw the legend (above the plotting region)?
#' @param col colours, one per series (default Okabe-Ito).
#' @param xlim,ylim axis limits in the units shown on the axis (for a log axis
#'   the values, not their logarithms; defaults: the data range).
#' @param main title.
#' @param cex.labels size of the point labels.
#' @param ... further graphical parameters passed to [graphics::par()] for
#'   the duration of the plot (e.g. `cex`).
#' @return `x`, invisibly.
#' @seealso [autoplot.ru_profile()] for the ggplot2 version.
#' @family profiles
#' @export
#' @examples
#' schemes <- list(mask_none(), mask_round(2), mask_round(1),
#'                 mask_group(c(0, 0.5, 1, 2, 5)), mask_noise(0.5))
#' ru <- ru_profile(dose_cohort, schemes, case ~ 1, family = "err", vars = "dose",
#'                  term = "dose", risk = identifiability("dose"),
#'                  progress = FALSE)
#' plot(ru)
#' plot(ru, type = "estimate")
#' plot(ru, type = "tradeoff")
plot.ru_profile <- function(x, type = c("ru", "estimate", "mse", "risk", "tradeoff"),
                            log = "auto", labels = TRUE, curve = NULL, legend = TRUE,
                            col = NULL, xlim = NULL, ylim = NULL, main = NULL,
                            cex.labels = 0.75, ...) {
  check_ru_profile(x, "x")
  type <- ru_check_type(type, x)
  log <- check_log(log)
  check_flag(labels)
  if (!is.null(curve)) check_flag(curve)
  check_flag(legend)
  main <- check_string(main, allow_null = TRUE)
  cex.labels <- check_number(cex.labels, "cex.labels", lower = 0, upper = 10, lower_open = TRUE)
  pd <- ru_panel_data(x, type, log_axes(log), curve)
  check_panel_points(pd, "x")
  base_draw_panel(pd, ru_palette(levels(pd$data$group), col), xlim = xlim, ylim = ylim,
                  labels = labels, legend = legend, main = main, cex_labels = cex.labels, ...)
  invisible(x)
}

# Draws a panel of ru_panel_data() with its legend, notes and title: what
# plot.ru_profile() and the workbench's plot share. `after(pd)` runs in the
# panel's coordinates before the margins are restored (the workbench rings
# the selected scheme and records where the points landed); its value is
# returned.
base_draw_panel <- function(pd, pal, xlim = NULL, ylim = NULL, labels = TRUE, legend = TRUE,
                            main = NULL, cex_labels = 0.75, after = NULL, ...) {
  keys <- ru_legend_keys(pd, pal)
  note <- ru_panel_note(pd)
  n_rows <- if (legend) legend_rows(keys$label) else 0L
  bottom <- scheme_axis_margin(pd$xaxis)
  note <- wrap_note(note)
  note_lines <- 0.95 * length(note)
  # Room for the widest y tick label, then the axis title.
  left <- 1.9 + 0.5 * max(nchar(pd$yaxis$labels), 3L)
  op <- graphics::par(mar = c(bottom$lines + note_lines, left,
                              0.8 + 1.25 * n_rows + if (is.null(main)) 0 else 1.6, 1.2),
                      mgp = c(2.7, 0.65, 0), tcl = -0.3, las = 1, ...)
  on.exit(graphics::par(op))
  pd$xaxis$rotate <- bottom$rotate
  if (!is.null(bottom$labels)) pd$xaxis$labels <- bottom$labels
  base_panel(pd, pal, axis_limits(pd$xaxis, xlim, "xlim"), axis_limits(pd$yaxis, ylim, "ylim"),
             labels && isTRUE(pd$labels), cex_labels)
  if (legend && nrow(keys)) base_legend(keys, n_rows)
  for (k in seq_along(note))
    graphics::mtext(note[k], side = 1, line = bottom$lines - 0.2 + 0.95 * (k - 1), adj = 0,
                    cex = 0.72, col = "grey30")
  if (!is.null(main))
    graphics::title(main = main, line = 0.4 + 1.25 * n_rows + 0.4, font.main = 1, cex.main = 1.1)
  if (is.function(after)) after(pd) else invisible(NULL)
}

# The note in lines that fit the figure width (character widths estimated,
# since the margin is set before anything is drawn).
wrap_note <- function(note, cex = 0.72) {
  if (is.null(note)) return(character(0))
  chars <- floor((graphics::par("fin")[1] - 0.6) / (graphics::par("cin")[2] * 0.5 * cex))
  strwrap(note, width = max(30L, chars))
}

check_log <- function(log) {
  if (isTRUE(log)) return("xy")
  if (isFALSE(log)) return("")
  if (!is.character(log) || length(log) != 1L || is.na(log) ||
      !(log == "auto" || grepl("^[xy]*$", log)))
    abort_value("log", "\"auto\", \"\", \"x\", \"y\" or \"xy\"")
  log
}

# "auto" for both axes, or TRUE / FALSE per axis.
log_axes <- function(log) {
  if (identical(log, "auto")) return(list(x = "auto", y = "auto"))
  list(x = grepl("x", log), y = grepl("y", log))
}

# User limits (in the units the axis shows) in plot coordinates.
axis_limits <- function(ax, lim, arg) {
  if (is.null(lim)) return(ax$lim)
  lim <- check_numeric_vector(lim, arg, len = 2L)
  if (ax$log) sort(ax$tf(lim)) else lim
}

check_panel_points <- function(pd, arg) {
  d <- pd$data
  if (any(is.finite(d$x) & is.finite(d$y))) return(invisible())
  msg <- switch(pd$type,
    ru = paste("The profile has no scheme with both an analysis potential and",
               "a risk to plot (was the risk computed?)."),
    tradeoff = "The profile has no scheme with both an MSE and a risk to plot.",
    utility = "The profile has no scheme with a value of its model-free measure to plot.",
    sprintf("The profile has no scheme with a value to plot for type \"%s\".", pd$type))
  epimask_abort(msg, "epimask_error_value", arg = arg)
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
  rows <- legend_layout(keys$label)
  old_usr <- graphics::par("usr")
  graphics::par(usr = c(0, 1, 0, 1))
  on.exit(graphics::par(usr = old_usr), add = TRUE)
  line_h <- graphics::grconvertY(1.25 * graphics::par("csi") * 0.85, "inches", "npc") -
    graphics::grconvertY(0, "inches", "npc")
  for (r in seq_along(rows)) {
    i <- rows[[r]]
    graphics::legend(
      x = 0.5, y = 1 + (length(rows) - r) * line_h, xjust = 0.5, yjust = 0,
      legend = paste0(keys$label[i], "   "), col = keys$col[i], pch = keys$pch[i],
      lty = keys$lty[i], lwd = ifelse(keys$lty[i] == 0L, NA, keys$lwd[i]), horiz = TRUE,
      bty = "n", xpd = NA, cex = 0.85, seg.len = 2.2, x.intersp = 0.6,
      text.width = NA, inset = 0, y.intersp = 0.6)
  }
}

# One position per scheme: horizontal labels when they fit between the ticks,
# otherwise vertical ones with the bottom margin grown to hold them.
scheme_axis_margin <- function(axis) {
  if (is.null(axis) || !identical(axis$kind, "scheme"))
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
    return(list(lines = 3.4 + 0.9 * n_lines, rotate = FALSE, labels = wrapped))
  label_w <- max(nchar(axis$labels)) * char_w
  list(lines = min(1.2 + 0.85 * label_w / graphics::par("csi"), 14), rotate = TRUE,
       labels = axis$labels)
}

# Everything inside the plot region, back to front.
base_panel <- function(pd, pal, xlim, ylim, labels, cex_labels) {
  d <- pd$data
  base_frame(pd$xaxis, pd$yaxis, xlim, ylim)
  usr <- graphics::par("usr")
  if (!is.null(pd$budget)) {
    b <- pd$budget
    y_edge <- if (b$side == "below") min(usr[3:4]) else max(usr[3:4])
    graphics::rect(usr[1], b$y, usr[2], y_edge, col = ru_budget_fill, border = NA)
    graphics::abline(h = b$y, col = ru_budget_col, lty = 2, lwd = 1.3)
  }
  if (!is.null(pd$hlines))
    graphics::abline(h = pd$hlines$y, lty = pd$hlines$lty, col = "grey35", lwd = 1.2)
  cv <- pd$curve
  if (!is.null(cv) && isTRUE(cv$drawn))
    graphics::lines(cv$data$x, cv$data$y, col = "grey45", lwd = 1.5,
                    lty = if (isTRUE(cv$ok)) 1 else 2)
  idx <- as.integer(d$group)
  if (isTRUE(pd$join)) {
    paths <- series_paths(d, pd$has_generator)
    for (lev in unique(paths$group)) {
      s <- paths[paths$group == lev, , drop = FALSE]
      graphics::lines(s$x, s$y, col = pal[[as.character(lev)]], lwd = 1.6)
    }
  }
  if (!is.null(pd$frontier) && nrow(pd$frontier) > 1L)
    graphics::lines(pd$frontier$x, pd$frontier$y, col = ru_frontier_col, lwd = 2.2)
  col_int <- grDevices::adjustcolor(pal[idx], alpha.f = 0.7)
  # bars shorter than the arrow heads are not drawn (a zero-length arrow warns)
  usr <- graphics::par("usr")
  yi <- is.finite(d$ylo) & is.finite(d$yhi) & d$yhi - d$ylo > 1e-3 * (usr[4] - usr[3]) &
    is.finite(d$x)
  if (any(yi))
    graphics::arrows(d$x[yi], d$ylo[yi], d$x[yi], d$yhi[yi], angle = 90, code = 3,
                     length = 0.025, col = col_int[yi], lwd = 1.1)
  xi <- is.finite(d$xlo) & is.finite(d$xhi) & d$xhi - d$xlo > 1e-3 * (usr[2] - usr[1]) &
    is.finite(d$y)
  if (any(xi))
    graphics::arrows(d$xlo[xi], d$y[xi], d$xhi[xi], d$y[xi], angle = 90, code = 3,
                     length = 0.025, col = col_int[xi], lwd = 1.1)
  ok <- is.finite(d$x) & is.finite(d$y)
  graphics::points(d$x[ok], d$y[ok], col = pal[idx[ok]],
                   pch = ru_shapes[(idx[ok] - 1L) %% 8L + 1L], cex = 1.15, bg = "white")
  fr <- ok & d$pareto
  if (any(fr))
    graphics::points(d$x[fr], d$y[fr], pch = 1, cex = 2.1, col = ru_frontier_col, lwd = 1.4)
  cl <- ok & d$clipped %in% TRUE
  if (any(cl)) graphics::points(d$x[cl], d$y[cl], pch = 5, cex = 2, col = "grey20")
  if (labels)
    base_point_labels(d$x, d$y, d$label, cex_labels, col = label_colours(pal, idx))
}

# Light background grid, axes at the panel's ticks, axis breaks and titles.
base_frame <- function(xa, ya, xlim, ylim) {
  graphics::plot.new()
  graphics::plot.window(xlim, ylim)
  graphics::abline(v = xa$at, h = ya$at, col = "grey92", lwd = 0.8)
  multi <- any(grepl("\n", xa$labels, fixed = TRUE))
  graphics::axis(1, at = xa$at, labels = xa$labels, las = if (isTRUE(xa$rotate)) 2 else 1,
                 padj = if (multi) 1 else NA, gap.axis = -1,
                 mgp = if (multi) c(2.7, 0.3, 0) else graphics::par("mgp"), cex.axis = 0.85)
  graphics::axis(2, at = ya$at, labels = ya$labels, cex.axis = 0.85)
  graphics::box(col = "grey30")
  if (!is.na(xa$break_at)) axis_break(1, xa$break_at)
  if (!is.na(ya$break_at)) axis_break(2, ya$break_at)
  graphics::title(xlab = xa$title, cex.lab = 0.95)
  graphics::title(ylab = ya$title, cex.lab = 0.95, line = graphics::par("mar")[2] - 1.3)
}

# A small "//" across an axis at `at`, where the axis jumps from its floor
# ("0") to the smallest positive value.
axis_break <- function(side, at) {
  usr <- graphics::par("usr")
  if (side == 1L) {
    cx <- graphics::grconvertX(at, "user", "inches")
    cy <- graphics::grconvertY(usr[3], "user", "inches")
  } else {
    cx <- graphics::grconvertX(usr[1], "user", "inches")
    cy <- graphics::grconvertY(at, "user", "inches")
  }
  for (off in c(-0.03, 0.03)) {
    if (side == 1L) {
      xs <- cx + off + c(-0.03, 0.03)
      ys <- cy + c(-0.06, 0.06)
    } else {
      xs <- cx + c(-0.06, 0.06)
      ys <- cy + off + c(-0.03, 0.03)
    }
    graphics::segments(graphics::grconvertX(xs[1], "inches", "user"),
                       graphics::grconvertY(ys[1], "inches", "user"),
                       graphics::grconvertX(xs[2], "inches", "user"),
                       graphics::grconvertY(ys[2], "inches", "user"), xpd = NA, lwd = 1.2)
  }
}

# Labels beside their points (simple_label_positions(): the first free one
# of eight positions around the point), in the series colours.
base_point_labels <- function(x, y, labels, cex, col = "grey15") {
  ok <- is.finite(x) & is.finite(y)
  if (!any(ok)) return(invisible())
  col <- rep_len(col, length(x))[ok]
  px <- graphics::grconvertX(x[ok], "user", "inches")
  py <- graphics::grconvertY(y[ok], "user", "inches")
  w <- graphics::strwidth(labels[ok], units = "inches", cex = cex) + 0.03
  h <- graphics::strheight(labels[ok], units = "inches", cex = cex) * 1.5
  usr <- graphics::par("usr")
  bounds <- c(sort(graphics::grconvertX(usr[1:2], "user", "inches")),
              sort(graphics::grconvertY(usr[3:4], "user", "inches")))
  # a point outside the region (a zoom by xlim, ylim) is clipped: so is its label
  inside <- px >= bounds[1] & px <= bounds[2] & py >= bounds[3] & py <= bounds[4]
  if (!any(inside)) return(invisible())
  ok[ok] <- inside
  col <- col[inside]
  px <- px[inside]
  py <- py[inside]
  w <- w[inside]
  h <- h[inside]
  # clear of the symbols and of the ring that marks the frontier
  radius <- 0.5 * graphics::par("cin")[2] * graphics::par("cex")
  place <- simple_label_positions(px, py, w, h, bounds, gap = 1.4 * radius, radius = radius)
  graphics::text(graphics::grconvertX(place$x, "inches", "user"),
                 graphics::grconvertY(place$y, "inches", "user"), labels[ok], cex = cex,
                 col = col, xpd = NA)
  invisible(place)
}

# Bar chart of the EC-size distribution; classes smaller than k in red.
class_size_barplot <- function(size, k, what = "classes", main = NULL, unit = "records", ...) {
  counts <- table(size)
  sizes <- as.integer(names(counts))
  heights <- if (what == "records") as.vector(counts) * sizes else as.vector(counts)
  cols <- ifelse(sizes < k, "firebrick", "grey60")
  if (is.null(main))
    main <- if (unit == "persons") "Equivalence class sizes (persons)" else "Equivalence class sizes"
  graphics::barplot(heights, names.arg = sizes, col = cols, border = NA,
                    xlab = if (unit == "persons") "equivalence class size (persons)" else "equivalence class size",
                    ylab = if (what == "records") unit else "classes",
                    main = main, ...)
  graphics::legend("topright", fill = c("firebrick", "grey60"), border = NA,
                   legend = c(sprintf("smaller than k = %d", k), "k or more"),
                   bty = "n")
  invisible(stats::setNames(heights, sizes))
}
