# ggplot2 versions of the profile plots (ggplot2 is in Suggests). The panel
# data (axes, intervals, frontier, budget, curve, labels) are those of
# plot.ru_profile() from plot-layout.R; labels are laid out by ggrepel.

utils::globalVariables(c(".data"))

#' ggplot2 plots of a risk-utility profile
#'
#' The ggplot2 counterpart of [plot.ru_profile()], with the same five panels
#' (`"ru"`, `"estimate"`, `"mse"`, `"risk"`, `"tradeoff"`), axes, palette,
#' uncertainty bars, Pareto frontier, risk budget and fitted curve. Needs the
#' ggplot2 package; the method is registered for `ggplot2::autoplot()` when
#' ggplot2 is loaded.
#'
#' Point labels are laid out by [ggrepel::geom_text_repel()] (seeded, so the
#' layout is reproducible; a thin segment joins a label pushed away from its
#' point) when ggrepel is installed, and set to the right of their points
#' otherwise.
#'
#' @param object an `ru_profile`.
#' @inheritParams plot.ru_profile
#' @param labels `TRUE` (labels by ggrepel when installed), `"ggrepel"`
#'   (the same, an error without ggrepel), `"simple"` (to the right of the
#'   points) or `FALSE`.
#' @param ... unused.
#' @return A ggplot object.
#' @family profiles
#' @exportS3Method ggplot2::autoplot
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' schemes <- list(mask_none(), mask_round(2), mask_round(1),
#'                 mask_group(c(0, 0.5, 1, 2, 5)), mask_noise(0.5))
#' ru <- ru_profile(dose_cohort, schemes, case ~ 1, family = "err", vars = "dose",
#'                  term = "dose", risk = identifiability("dose"),
#'                  progress = FALSE)
#' ggplot2::autoplot(ru)
#' ggplot2::autoplot(ru, type = "estimate")
autoplot.ru_profile <- function(object, type = c("ru", "estimate", "mse", "risk", "tradeoff"),
                                log = "auto", labels = TRUE, curve = NULL, col = NULL, ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE))
    epimask_abort("autoplot() needs the ggplot2 package; install it or use plot().",
                  "epimask_error_dependency")
  check_ru_profile(object, "object")
  type <- ru_check_type(type, object)
  log <- check_log(log)
  if (!(identical(labels, "ggrepel") || identical(labels, "simple"))) check_flag(labels)
  if (identical(labels, "ggrepel") && !requireNamespace("ggrepel", quietly = TRUE))
    epimask_abort("labels = \"ggrepel\" needs the ggrepel package.", "epimask_error_dependency")
  if (!is.null(curve)) check_flag(curve)
  pd <- ru_panel_data(object, type, log_axes(log), curve)
  check_panel_points(pd, "object")
  pal <- ru_palette(levels(pd$data$group), col)
  gg_panel(pd, pal, if (isTRUE(pd$labels)) labels else FALSE) + gg_theme()
}

gg_theme <- function() {
  ggplot2::theme_bw(base_size = 11) +
    ggplot2::theme(
      legend.position = "top",
      legend.title = ggplot2::element_blank(),
      legend.box = "vertical",
      legend.spacing.y = ggplot2::unit(0, "pt"),
      legend.margin = ggplot2::margin(0, 0, 0, 0),
      panel.grid.minor = ggplot2::element_blank(),
      panel.grid.major = ggplot2::element_line(colour = "grey92"),
      axis.title = ggplot2::element_text(size = 10.5),
      plot.caption = ggplot2::element_text(hjust = 0, colour = "grey30", size = 8.5)
    )
}

gg_group_scales <- function(pal) {
  shapes <- stats::setNames(rep_len(ru_shapes, length(pal)), names(pal))
  # Explicit guide order: otherwise ggplot2 orders the legends by a hash.
  rows <- ceiling(sum(nchar(names(pal)) + 6L) / 95)
  guide <- if (length(pal) > 1L) ggplot2::guide_legend(order = 1L, nrow = rows) else "none"
  # The same breaks and limits on both scales, so that ggplot2 merges them
  # into one legend in the order of the series.
  list(ggplot2::scale_colour_manual(values = pal, breaks = names(pal), limits = names(pal),
                                    guide = guide, name = NULL),
       ggplot2::scale_shape_manual(values = shapes, breaks = names(pal), limits = names(pal),
                                   guide = guide, name = NULL))
}

gg_panel <- function(pd, pal, labels) {
  d <- pd$data
  d <- d[is.finite(d$x) & is.finite(d$y), , drop = FALSE]
  xa <- pd$xaxis
  ya <- pd$yaxis
  keys <- ru_legend_keys(pd, pal)
  line_keys <- keys[!(keys$label %in% names(pal)) & keys$lty > 0L, , drop = FALSE]
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$x, y = .data$y))
  if (!is.null(pd$budget)) {
    b <- pd$budget
    p <- p + ggplot2::annotate("rect", xmin = -Inf, xmax = Inf,
                               ymin = if (b$side == "below") -Inf else b$y,
                               ymax = if (b$side == "below") b$y else Inf,
                               fill = ru_budget_col, alpha = 0.08) +
      ggplot2::geom_hline(data = data.frame(y = b$y, what = gg_key(line_keys, "risk budget")),
                          ggplot2::aes(yintercept = .data$y, linetype = .data$what),
                          colour = ru_budget_col, linewidth = 0.5)
  }
  if (!is.null(pd$hlines)) {
    h <- pd$hlines
    h$what <- h$label
    p <- p + ggplot2::geom_hline(data = h, ggplot2::aes(yintercept = .data$y,
                                                        linetype = .data$what),
                                 colour = "grey35", linewidth = 0.5)
  }
  cv <- pd$curve
  if (!is.null(cv) && isTRUE(cv$drawn)) {
    cd <- cv$data
    cd$what <- cv$label
    p <- p + ggplot2::geom_line(data = cd, ggplot2::aes(x = .data$x, y = .data$y,
                                                        linetype = .data$what),
                                colour = "grey45", linewidth = 0.6)
  }
  if (isTRUE(pd$join)) {
    paths <- series_paths(d, pd$has_generator)
    if (!is.null(paths))
      p <- p + ggplot2::geom_path(data = paths, ggplot2::aes(x = .data$x, y = .data$y,
                                                             colour = .data$group,
                                                             group = .data$group),
                                  linewidth = 0.7)
  }
  if (!is.null(pd$frontier) && nrow(pd$frontier) > 1L) {
    fr <- pd$frontier
    fr$what <- "Pareto frontier"
    p <- p + ggplot2::geom_path(data = fr, ggplot2::aes(x = .data$x, y = .data$y,
                                                        linetype = .data$what),
                                colour = ru_frontier_col, linewidth = 1)
  }
  p <- p + gg_interval_layers(d, pd$xaxis, pd$yaxis)
  p <- p + ggplot2::geom_point(ggplot2::aes(colour = .data$group, shape = .data$group),
                               size = 2.4)
  if (any(d$pareto))
    p <- p + ggplot2::geom_point(data = d[d$pareto, , drop = FALSE], shape = 1, size = 4.6,
                                 stroke = 0.8, colour = ru_frontier_col)
  if (any(d$clipped %in% TRUE))
    p <- p + ggplot2::geom_point(data = d[d$clipped %in% TRUE, , drop = FALSE], shape = 5,
                                 size = 5, colour = "grey20")
  if (!isFALSE(labels) && nrow(d)) p <- p + gg_label_layers(d, pal, pd, labels)
  if (nrow(line_keys)) {
    lt <- stats::setNames(c("solid", "dashed", "dotted")[pmin(line_keys$lty, 3L)],
                          line_keys$label)
    p <- p + ggplot2::scale_linetype_manual(
      values = lt, breaks = line_keys$label, name = NULL,
      guide = ggplot2::guide_legend(order = 2L, override.aes = list(colour = line_keys$col,
                                                        linewidth = 0.6 * line_keys$lwd / 1.5)))
  }
  caption <- c(if (any(d$clipped %in% TRUE)) "Diamonds: U > 1, drawn at U = 1.",
               ru_panel_note(pd))
  p + gg_group_scales(pal) + gg_x_scale(xa) +
    ggplot2::scale_y_continuous(breaks = ya$at, labels = ya$labels) +
    gg_axis_breaks(xa, ya) +
    ggplot2::coord_cartesian(xlim = xa$lim, ylim = ya$lim, expand = FALSE) +
    ggplot2::labs(x = if (identical(xa$kind, "scheme")) NULL else xa$title, y = ya$title,
                  caption = if (length(caption))
                    paste(strwrap(paste(caption, collapse = " "), 110), collapse = "\n"))
}

# The legend label of the key that starts with `prefix`.
gg_key <- function(keys, prefix) keys$label[startsWith(keys$label, prefix)][1]

gg_x_scale <- function(xa) {
  labs <- xa$labels
  if (identical(xa$kind, "scheme")) labs <- wrap_labels(labs, 12L)
  list(ggplot2::scale_x_continuous(breaks = xa$at, labels = labs),
       if (identical(xa$kind, "scheme") && length(labs) > 8L)
         ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 90, hjust = 1, vjust = 0.5)))
}

# "//" on an axis where it jumps from its floor ("0") to the smallest value.
gg_axis_breaks <- function(xa, ya) {
  out <- list()
  if (!is.na(xa$break_at))
    out[[1L]] <- ggplot2::annotate("text", x = xa$break_at, y = -Inf, label = "//",
                                   vjust = 0.1, size = 3.5, fontface = "bold")
  if (!is.na(ya$break_at))
    out[[length(out) + 1L]] <- ggplot2::annotate("text", x = -Inf, y = ya$break_at,
                                                 label = "//", hjust = 0.2, angle = 90,
                                                 size = 3.5, fontface = "bold")
  out
}

gg_interval_layers <- function(d, xa, ya) {
  out <- list()
  yi <- d[is.finite(d$ylo) & is.finite(d$yhi) & d$yhi > d$ylo, , drop = FALSE]
  if (nrow(yi))
    out[[1L]] <- ggplot2::geom_errorbar(
      data = yi, ggplot2::aes(x = .data$x, ymin = .data$ylo, ymax = .data$yhi,
                              colour = .data$group),
      width = 0.012 * abs(diff(xa$lim)), linewidth = 0.45, alpha = 0.75, inherit.aes = FALSE,
      show.legend = FALSE)
  xi <- d[is.finite(d$xlo) & is.finite(d$xhi) & d$xhi > d$xlo, , drop = FALSE]
  if (nrow(xi))
    out[[length(out) + 1L]] <- ggplot2::geom_errorbar(
      data = xi, ggplot2::aes(y = .data$y, xmin = .data$xlo, xmax = .data$xhi,
                              colour = .data$group),
      orientation = "y", width = 0.016 * abs(diff(ya$lim)), linewidth = 0.45, alpha = 0.75,
      inherit.aes = FALSE, show.legend = FALSE)
  out
}

# Labels: laid out by ggrepel (seeded, so the layout is reproducible) when it
# is installed; otherwise set to the right of their points.
gg_label_layers <- function(d, pal, pd, method) {
  colours <- label_colours(pal, as.integer(d$group))
  if (gg_use_ggrepel(method)) {
    return(ggrepel::geom_text_repel(
      data = d, ggplot2::aes(x = .data$x, y = .data$y, label = .data$label),
      colour = colours, size = 3, seed = 1L, max.overlaps = Inf, box.padding = 0.35,
      point.padding = 0.35, min.segment.length = 0.3, max.time = Inf, max.iter = 20000,
      segment.colour = "grey55", segment.size = 0.3, inherit.aes = FALSE))
  }
  ggplot2::geom_text(data = d, ggplot2::aes(x = .data$x, y = .data$y, label = .data$label),
                     colour = colours, size = 3, hjust = -0.15, inherit.aes = FALSE)
}

gg_use_ggrepel <- function(method) {
  !identical(method, "simple") && requireNamespace("ggrepel", quietly = TRUE)
}

wrap_labels <- function(labels, width) {
  vapply(labels, function(l) paste(strwrap(l, width = width), collapse = "\n"), "",
         USE.NAMES = FALSE)
}
