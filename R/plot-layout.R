# What the base-graphics and the ggplot2 versions of the profile plots share:
# the palette, the panel data (which column on which axis, one series per
# kernel), the axis for the degree of masking (log when it spans orders of
# magnitude, with lambda = 0 drawn left of a break), and a greedy label
# placement that keeps scheme labels from overplotting each other or points.

ru_plot_types <- c("ru", "estimate", "mse", "risk", "tradeoff")

# Okabe-Ito, ordered so the first colours are the most distinct on white and
# in greyscale; yellow last.
okabe_ito <- c("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
               "#56B4E9", "#000000", "#F0E442")
ru_shapes <- c(16L, 17L, 15L, 18L, 1L, 2L, 0L, 5L)

ru_groups <- function(x) {
  g <- x$kernel %||% rep(NA_character_, nrow(x))
  g[is.na(g)] <- "all schemes"
  factor(g, levels = unique(g))
}

ru_palette <- function(levels, col = NULL) {
  n <- length(levels)
  if (is.null(col)) col <- rep_len(okabe_ito, n)
  col <- rep_len(col, n)
  stats::setNames(col, levels)
}

# The x axis of the panels against the degree of masking.
#   log: "auto" (log when the positive degrees span >= 2 decades), TRUE/FALSE.
degree_axis <- function(degree, labels, log = "auto") {
  if (anyNA(degree) || length(degree) == 0L) {
    return(list(kind = "scheme", x = seq_along(labels), at = seq_along(labels),
                labels = labels, log = FALSE, lim = c(0.5, length(labels) + 0.5),
                zero = NA_real_, break_at = NA_real_, title = "Masking scheme"))
  }
  pos <- degree[degree > 0]
  span <- if (length(pos)) max(pos) / min(pos) else 1
  use_log <- if (identical(log, "auto")) length(pos) >= 2L && span >= 100 else isTRUE(log)
  if (use_log && !length(pos)) use_log <- FALSE
  if (!use_log) {
    return(list(kind = "linear", x = degree, at = pretty(degree), labels = NULL,
                log = FALSE, lim = range(degree), zero = NA_real_,
                break_at = NA_real_, title = "Degree of masking (lambda)"))
  }
  decades <- log10(span)
  gap <- max(0.5, 0.1 * decades)
  zero <- if (any(degree == 0)) min(pos) / 10^gap else NA_real_
  x <- degree
  x[degree == 0] <- zero
  lo <- floor(log10(min(pos)))
  hi <- ceiling(log10(max(pos)))
  step <- max(1L, ceiling((hi - lo) / 6))
  at <- 10^seq(lo, hi, by = step)
  at <- at[at >= min(pos) / 1.001 & at <= max(pos) * 1.001]
  if (length(at) < 2L) at <- signif(range(pos), 2)
  labs <- format_degree(at)
  if (!is.na(zero)) {
    at <- c(zero, at)
    labs <- c("0", labs)
  }
  list(kind = "log", x = x, at = at, labels = labs, log = TRUE,
       lim = range(c(x, at)), zero = zero,
       break_at = if (is.na(zero)) NA_real_ else sqrt(zero * min(pos)),
       title = "Degree of masking (lambda, log scale)")
}

format_degree <- function(v) {
  vapply(v, function(a) format(a, scientific = abs(log10(a)) >= 5, trim = TRUE,
                               drop0trailing = TRUE), "")
}

# The data a panel draws, for both back ends.
ru_panel_data <- function(x, type, log = "auto") {
  groups <- ru_groups(x)
  ref <- ru_reference(x)
  meta <- ru_meta(x)
  term <- if (is.na(meta$term)) "the coefficient" else sprintf("'%s'", meta$term)
  risk_name <- if (is.na(meta$risk)) "Disclosure risk" else
    sprintf("Disclosure risk (%s)", meta$risk)
  base <- data.frame(scheme = x$scheme, group = groups, degree = x$degree,
                     stringsAsFactors = FALSE)
  if (type == "ru") {
    u <- x$analysis_potential
    base$x <- pmin(u, 1)
    base$y <- x$anonymity
    base$clipped <- !is.na(u) & u > 1
    base$label <- ifelse(base$clipped, sprintf("%s (U = %s)", x$scheme,
                                               format(round(u, 4), nsmall = 2)), x$scheme)
    return(list(data = base, axis = NULL, type = type,
                xlab = "Analysis potential U = MSE(original) / MSE(masked)",
                ylab = "Anonymity score (1 - risk)", hlines = NULL))
  }
  if (type == "tradeoff") {
    base$x <- x$mse
    base$y <- x$risk
    base$label <- if (anyNA(x$degree)) x$scheme else format_degree_label(x$degree)
    return(list(data = base, axis = NULL, type = type,
                xlab = sprintf("MSE of %s", term), ylab = risk_name, hlines = NULL))
  }
  axis <- degree_axis(x$degree, x$scheme, log)
  base$x <- axis$x
  hlines <- NULL
  if (type == "estimate") {
    base$y <- x$estimate
    base$lower <- x$ci_lower %||% (x$estimate - ru_z() * x$se)
    base$upper <- x$ci_upper %||% (x$estimate + ru_z() * x$se)
    hlines <- data.frame(
      y = ref$truth, lty = 2L,
      label = if (ref$type == "truth") "true value" else "original estimate",
      stringsAsFactors = FALSE)
    if (!is.null(meta$aggregate))
      hlines <- rbind(hlines, data.frame(y = meta$aggregate, lty = 3L,
                                         label = "aggregated-data estimate"))
    ylab <- sprintf("Estimate of %s (naive 95%% CI)", term)
  } else if (type == "mse") {
    base$y <- x$mse
    if (!is.na(ref$mse))
      hlines <- data.frame(y = ref$mse, lty = 2L, label = "MSE of the original",
                           stringsAsFactors = FALSE)
    ylab <- sprintf("MSE of %s", term)
  } else {
    base$y <- x$risk
    ylab <- risk_name
  }
  list(data = base, axis = axis, type = type, xlab = axis$title, ylab = ylab,
       hlines = hlines)
}

format_degree_label <- function(d) {
  out <- character(length(d))
  out[d == 0] <- "0"
  nz <- !is.na(d) & d != 0
  out[nz] <- format_degree(signif(d[nz], 3))
  out[is.na(d)] <- "NA"
  out
}

# Greedy label placement, in a coordinate system with the same units on both
# axes (inches). Each label (box w x h) goes to the first of a ring of
# candidate positions around its point that stays inside `bounds` and overlaps
# neither a label already placed nor any point; rings grow outwards. Crowded
# points are served first. Returns label centres and whether a leader line is
# needed (the label sits away from its point).
place_labels <- function(px, py, w, h, bounds, radius = 0.05, gap = 0.03,
                         rings = 8L, obstacles = NULL, obstacle_radius = 0.015) {
  n <- length(px)
  cx <- cy <- rep(NA_real_, n)
  leader <- logical(n)
  if (n == 0L) return(data.frame(x = cx, y = cy, leader = leader))
  placed <- matrix(NA_real_, 0L, 4L)
  lines_box <- if (is.null(obstacles) || !nrow(obstacles)) matrix(NA_real_, 0L, 4L) else
    cbind(obstacles[, 1] - obstacle_radius, obstacles[, 1] + obstacle_radius,
          obstacles[, 2] - obstacle_radius, obstacles[, 2] + obstacle_radius)
  dirs <- rbind(c(1, 0), c(-1, 0), c(0, 1), c(0, -1),
                c(1, 1), c(-1, 1), c(1, -1), c(-1, -1))
  ok_pt <- is.finite(px) & is.finite(py)
  crowd <- vapply(seq_len(n), function(i) {
    if (!ok_pt[i]) return(-1)
    sum(abs(px[ok_pt] - px[i]) < 1 & abs(py[ok_pt] - py[i]) < 0.5)
  }, numeric(1))
  for (i in order(-crowd)) {
    if (!ok_pt[i]) next
    best <- NULL
    best_cost <- Inf
    for (ring in seq_len(rings)) {
      extra <- (ring - 1) * (h[i] * 1.1)
      for (d in seq_len(nrow(dirs))) {
        dx <- dirs[d, 1]
        dy <- dirs[d, 2]
        ccx <- px[i] + dx * (w[i] / 2 + gap + radius + extra)
        ccy <- py[i] + dy * (h[i] / 2 + gap / 2 + radius + extra)
        box <- c(ccx - w[i] / 2, ccx + w[i] / 2, ccy - h[i] / 2, ccy + h[i] / 2)
        if (box[1] < bounds[1] || box[2] > bounds[2] ||
            box[3] < bounds[3] || box[4] > bounds[4]) next
        leader_hits <- if (ring > 1L) leader_crossings(px[i], py[i], box, placed) else 0
        cost <- box_overlap(box, placed) + 0.02 * leader_hits +
          box_overlap(box, cbind(px[ok_pt] - radius, px[ok_pt] + radius,
                                 py[ok_pt] - radius, py[ok_pt] + radius)) +
          5 * box_overlap(box, lines_box) + 1e-6 * ring
        if (cost < best_cost) {
          best_cost <- cost
          best <- c(ccx, ccy, ring)
        }
        if (cost < 1e-3) break
      }
      if (best_cost < 1e-3) break
    }
    if (is.null(best)) best <- c(px[i] + w[i] / 2 + gap + radius, py[i], 1)
    cx[i] <- best[1]
    cy[i] <- best[2]
    leader[i] <- best[3] > 1
    placed <- rbind(placed, c(best[1] - w[i] / 2 - gap / 2, best[1] + w[i] / 2 + gap / 2,
                              best[2] - h[i] / 2 - gap / 4, best[2] + h[i] / 2 + gap / 4))
  }
  data.frame(x = cx, y = cy, leader = leader)
}

# How many of 12 points along the leader from (x, y) to a label box fall inside
# labels already placed: leaders should not cross other labels.
leader_crossings <- function(x, y, box, placed) {
  if (!nrow(placed)) return(0)
  ex <- min(max(x, box[1]), box[2])
  ey <- min(max(y, box[3]), box[4])
  t <- seq(0, 1, length.out = 12)
  sx <- x + t * (ex - x)
  sy <- y + t * (ey - y)
  hits <- 0
  for (k in seq_len(nrow(placed))) {
    hits <- hits + sum(sx > placed[k, 1] & sx < placed[k, 2] &
                         sy > placed[k, 3] & sy < placed[k, 4])
  }
  hits
}

# Total overlap area of one box (x0, x1, y0, y1) with the rows of `boxes`.
box_overlap <- function(box, boxes) {
  if (!length(boxes) || nrow(boxes) == 0L) return(0)
  ox <- pmax(0, pmin(box[2], boxes[, 2]) - pmax(box[1], boxes[, 1]))
  oy <- pmax(0, pmin(box[4], boxes[, 4]) - pmax(box[3], boxes[, 3]))
  sum(ox * oy)
}

# Points every `step` inches along the polylines (x, y) of each group, so that
# labels also keep off the lines and curves drawn.
polyline_samples <- function(x, y, group, step = 0.03) {
  out <- list()
  for (g in unique(group)) {
    sel <- which(group == g & is.finite(x) & is.finite(y))
    if (length(sel) < 2L) next
    xs <- x[sel]
    ys <- y[sel]
    for (k in seq_len(length(sel) - 1L)) {
      len <- sqrt((xs[k + 1] - xs[k])^2 + (ys[k + 1] - ys[k])^2)
      t <- seq(0, 1, length.out = max(2L, ceiling(len / step) + 1L))
      out[[length(out) + 1L]] <- cbind(xs[k] + t * (xs[k + 1] - xs[k]),
                                       ys[k] + t * (ys[k + 1] - ys[k]))
    }
  }
  if (!length(out)) return(matrix(NA_real_, 0L, 2L))
  do.call(rbind, out)
}

# End of a leader line: the point of the label box nearest to the data point.
leader_end <- function(px, py, cx, cy, w, h) {
  list(x = pmin(pmax(px, cx - w / 2), cx + w / 2),
       y = pmin(pmax(py, cy - h / 2), cy + h / 2))
}

# Points on which to draw the fitted security-utility curve: dense near U = 1
# where a large theta makes it fall steeply.
ru_curve_grid <- function() {
  sort(unique(c(seq(0, 1, length.out = 201), 1 - 10^seq(-8, -0.3, length.out = 200), 1)))
}

ru_try_curve <- function(x) {
  keep <- !is.na(x$analysis_potential) & !is.na(x$anonymity)
  u <- pmin(x$analysis_potential[keep], 1)
  if (sum(keep) < 2L || !any(u > 0 & u < 1)) return(NULL)
  fit <- tryCatch(suppressWarnings(fit_ru_curve(x)), epimask_error = function(e) NULL)
  # A theta at the edge of the search range is a step function, not a curve.
  if (is.null(fit) || fit$boundary) NULL else fit
}
