# ggplot2 versions of the profile plots (ggplot2 is in Suggests). The panel
# data, palette, degree axis and label placement are those of plot.ru_profile().

utils::globalVariables(c(".data"))

#' ggplot2 plots of a risk-utility profile
#'
#' The ggplot2 counterpart of [plot.ru_profile()], with the same five panels
#' (`"ru"`, `"estimate"`, `"mse"`, `"risk"`, `"tradeoff"`), palette, axes and
#' non-overlapping point labels. Needs the ggplot2 package; the method is
#' registered for `ggplot2::autoplot()` when ggplot2 is loaded.
#'
#' Point labels are placed for a panel of about `label_panel` inches (width,
#' height); on much smaller devices they may touch.
#'
#' @param object an `ru_profile`.
#' @inheritParams plot.ru_profile
#' @param label_panel the panel size (inches) the labels are laid out for.
#' @param ... unused.
#' @return A ggplot object.
#' @exportS3Method ggplot2::autoplot
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' ru <- epimask:::example_ru_profile()
#' ggplot2::autoplot(ru)
#' ggplot2::autoplot(ru, type = "estimate")
autoplot.ru_profile <- function(object, type = c("ru", "estimate", "mse", "risk", "tradeoff"),
                                log = "auto", labels = TRUE, curve = TRUE, col = NULL,
                                label_panel = c(6, 4), ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE))
    epimask_abort("autoplot() needs the ggplot2 package; install it or use plot().",
                  "epimask_error_dependency")
  check_ru_profile(object, "object")
  type <- check_choice(type, ru_plot_types, "type")
  log <- check_log(log)
  check_flag(labels)
  check_flag(curve)
  label_panel <- check_numeric_vector(label_panel, "label_panel", len = 2L)
  pd <- ru_panel_data(object, type, log_degree(log))
  pal <- ru_palette(levels(pd$data$group), col)
  p <- switch(type,
              ru = gg_ru_plot(pd, pal, object, curve, labels, label_panel),
              tradeoff = gg_tradeoff_plot(pd, pal, log, labels, label_panel),
              gg_degree_plot(pd, pal, log))
  p + gg_theme(length(pal) > 1L)
}

gg_theme <- function(show_groups) {
  ggplot2::theme_bw(base_size = 11) +
    ggplot2::theme(
      legend.position = "top",
      legend.title = ggplot2::element_blank(),
      legend.box = "vertical",
      legend.spacing.y = ggplot2::unit(0, "pt"),
      legend.margin = ggplot2::margin(0, 0, 0, 0),
      panel.grid.minor = ggplot2::element_blank(),
      panel.grid.major = ggplot2::element_line(colour = "grey92"),
      axis.title = ggplot2::element_text(size = 10.5)
    )
}

gg_group_scales <- function(pal, show = TRUE) {
  shapes <- stats::setNames(rep_len(ru_shapes, length(pal)), names(pal))
  guide <- if (show && length(pal) > 1L) "legend" else "none"
  list(ggplot2::scale_colour_manual(values = pal, guide = guide, name = NULL),
       ggplot2::scale_shape_manual(values = shapes, guide = guide, name = NULL))
}

# Label positions for a ggplot panel with limits xlim, ylim (on the
# transformed scale), laid out for a panel of `panel` inches.
gg_label_positions <- function(x, y, labels, xlim, ylim, panel, lines = NULL,
                               line_group = NULL, size_pt = 8.5) {
  to_in_x <- function(v) (v - xlim[1]) / diff(xlim) * panel[1]
  to_in_y <- function(v) (v - ylim[1]) / diff(ylim) * panel[2]
  px <- to_in_x(x)
  py <- to_in_y(y)
  w <- nchar(labels) * 0.55 * size_pt / 72
  h <- size_pt / 72 * 1.2
  h <- rep(h, length(labels))
  obstacles <- NULL
  if (!is.null(lines))
    obstacles <- polyline_samples(to_in_x(lines[, 1]), to_in_y(lines[, 2]),
                                  line_group %||% rep(1L, nrow(lines)))
  pos <- place_labels(px, py, w, h, c(0.05, panel[1] - 0.05, 0.05, panel[2] - 0.05),
                      obstacles = obstacles, radius = 0.07)
  ends <- leader_end(px, py, pos$x, pos$y, w, h)
  back_x <- function(v) xlim[1] + v / panel[1] * diff(xlim)
  back_y <- function(v) ylim[1] + v / panel[2] * diff(ylim)
  data.frame(lx = back_x(pos$x), ly = back_y(pos$y), leader = pos$leader,
             ex = back_x(ends$x), ey = back_y(ends$y), px = x, py = y,
             label = labels, stringsAsFactors = FALSE)
}

gg_label_layers <- function(lab, colours) {
  lab$colour <- colours
  lead <- lab[lab$leader, , drop = FALSE]
  layers <- list()
  if (nrow(lead))
    layers[[1L]] <- ggplot2::geom_segment(
      data = lead, ggplot2::aes(x = .data$px, y = .data$py, xend = .data$ex, yend = .data$ey),
      inherit.aes = FALSE, colour = "grey55", linewidth = 0.3)
  layers[[length(layers) + 1L]] <- ggplot2::geom_text(
    data = lab, ggplot2::aes(x = .data$lx, y = .data$ly, label = .data$label),
    inherit.aes = FALSE, colour = lab$colour, size = 3)
  layers
}

gg_ru_plot <- function(pd, pal, object, curve, labels, panel) {
  d <- pd$data
  check_ru_points(d, "object")
  d <- d[is.finite(d$x) & is.finite(d$y), , drop = FALSE]
  lim <- c(-0.02, 1.02)
  fit <- if (curve) ru_try_curve(object) else NULL
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$x, y = .data$y))
  curve_df <- NULL
  if (!is.null(fit)) {
    u <- ru_curve_grid()
    curve_df <- data.frame(x = u, y = ru_curve_value(u, fit$theta),
                           what = sprintf("fitted curve, theta = %s", format_num(fit$theta, 3)))
    p <- p + ggplot2::geom_line(data = curve_df,
                                ggplot2::aes(x = .data$x, y = .data$y, linetype = .data$what),
                                colour = "grey45", linewidth = 0.6) +
      ggplot2::scale_linetype_manual(values = stats::setNames("solid", curve_df$what[1]),
                                     name = NULL)
  }
  p <- p + ggplot2::geom_point(ggplot2::aes(colour = .data$group, shape = .data$group), size = 2.6)
  if (any(d$clipped))
    p <- p + ggplot2::geom_point(data = d[d$clipped, , drop = FALSE], shape = 5, size = 5,
                                 colour = "grey20")
  if (labels && nrow(d)) {
    lab <- gg_label_positions(d$x, d$y, d$label, lim, lim, panel,
                              lines = if (is.null(curve_df)) NULL else as.matrix(curve_df[, 1:2]))
    p <- p + gg_label_layers(lab, label_colours(pal, as.integer(d$group)))
  }
  caption <- if (any(d$clipped)) "Diamonds: U > 1, drawn at U = 1." else NULL
  p + gg_group_scales(pal) +
    ggplot2::scale_x_continuous(breaks = seq(0, 1, 0.2)) +
    ggplot2::scale_y_continuous(breaks = seq(0, 1, 0.2)) +
    ggplot2::coord_cartesian(xlim = lim, ylim = lim, expand = FALSE) +
    ggplot2::labs(x = pd$xlab, y = pd$ylab, caption = caption)
}

gg_tradeoff_plot <- function(pd, pal, log, labels, panel) {
  d <- pd$data
  d <- d[is.finite(d$x) & is.finite(d$y), , drop = FALSE]
  if (!nrow(d))
    epimask_abort("The profile has no scheme with both an MSE and a risk to plot.",
                  "epimask_error_value", arg = "object")
  d <- d[order(d$group, d$degree), , drop = FALSE]
  log_x <- use_log_scale(d$x, log, "x_mse")
  log_y <- use_log_scale(d$y, log, "y")
  tx <- if (log_x) log10(d$x) else d$x
  ty <- if (log_y) log10(d$y) else d$y
  xlim <- pad_range(range(tx), 0.06)
  ylim <- pad_range(range(ty), 0.06)
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$x, y = .data$y, colour = .data$group)) +
    ggplot2::geom_path(ggplot2::aes(group = .data$group), linewidth = 0.7) +
    ggplot2::geom_point(ggplot2::aes(shape = .data$group), size = 2.4)
  if (labels) {
    lab <- gg_label_positions(tx, ty, d$label, xlim, ylim, panel,
                              lines = cbind(tx, ty), line_group = d$group)
    if (log_x) lab[c("lx", "ex", "px")] <- lapply(lab[c("lx", "ex", "px")], function(v) 10^v)
    if (log_y) lab[c("ly", "ey", "py")] <- lapply(lab[c("ly", "ey", "py")], function(v) 10^v)
    p <- p + gg_label_layers(lab, label_colours(pal, as.integer(d$group)))
  }
  xlim_out <- if (log_x) 10^xlim else xlim
  ylim_out <- if (log_y) 10^ylim else ylim
  p + gg_group_scales(pal) +
    (if (log_x) ggplot2::scale_x_log10() else ggplot2::scale_x_continuous()) +
    (if (log_y) ggplot2::scale_y_log10() else ggplot2::scale_y_continuous()) +
    ggplot2::coord_cartesian(xlim = xlim_out, ylim = ylim_out, expand = FALSE) +
    ggplot2::labs(x = pd$xlab, y = pd$ylab)
}

gg_degree_plot <- function(pd, pal, log) {
  d <- pd$data
  ax <- pd$axis
  d <- d[is.finite(d$x) & is.finite(d$y), , drop = FALSE]
  if (!nrow(d))
    epimask_abort(sprintf("The profile has no scheme with a value to plot for type \"%s\".",
                          pd$type), "epimask_error_value", arg = "object")
  yvals <- c(d$y, d$lower, d$upper, pd$hlines$y)
  log_y <- pd$type != "estimate" && use_log_scale(yvals[is.finite(yvals)], log, "y")
  if (pd$type == "estimate" && ax$kind != "scheme") d$x <- gg_dodge(d$x, d$group, ax)
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$x, y = .data$y, colour = .data$group))
  if (!is.null(pd$hlines)) {
    types <- stats::setNames(c("dashed", "dotted")[seq_len(nrow(pd$hlines))], pd$hlines$label)
    p <- p + ggplot2::geom_hline(data = pd$hlines,
                                 ggplot2::aes(yintercept = .data$y, linetype = .data$label),
                                 colour = "grey35", linewidth = 0.5) +
      ggplot2::scale_linetype_manual(values = types, name = NULL,
                                     breaks = pd$hlines$label)
  }
  if (pd$type == "estimate")
    p <- p + ggplot2::geom_errorbar(ggplot2::aes(ymin = .data$lower, ymax = .data$upper),
                                    width = 0, linewidth = 0.5)
  if (ax$kind != "scheme")
    p <- p + ggplot2::geom_line(ggplot2::aes(group = .data$group), linewidth = 0.7)
  p <- p + ggplot2::geom_point(ggplot2::aes(shape = .data$group), size = 2.4) +
    gg_group_scales(pal)
  p <- p + switch(ax$kind,
    scheme = ggplot2::scale_x_continuous(breaks = ax$at, labels = wrap_labels(ax$labels, 12L),
                                         expand = ggplot2::expansion(add = 0.6)),
    log = ggplot2::scale_x_log10(breaks = ax$at, labels = ax$labels),
    linear = ggplot2::scale_x_continuous())
  if (log_y) p <- p + ggplot2::scale_y_log10()
  if (!is.na(ax$break_at))
    p <- p + ggplot2::annotate("text", x = ax$break_at, y = -Inf, label = "//",
                               vjust = 0.1, size = 3.5, fontface = "bold")
  if (ax$kind == "scheme" && length(ax$labels) > 8L)
    p <- p + ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 90, hjust = 1, vjust = 0.5))
  p + ggplot2::labs(x = if (ax$kind == "scheme") NULL else pd$xlab, y = pd$ylab)
}

wrap_labels <- function(labels, width) {
  vapply(labels, function(l) paste(strwrap(l, width = width), collapse = "\n"), "",
         USE.NAMES = FALSE)
}

# Sideways offsets for the estimate panel, as a fraction of the axis range.
gg_dodge <- function(x, group, ax) {
  n_g <- nlevels(group)
  if (n_g < 2L) return(x)
  offset <- (as.integer(group) - (n_g + 1) / 2) * 0.008
  if (ax$log) 10^(log10(x) + offset * diff(log10(ax$lim))) else
    x + offset * diff(ax$lim)
}
