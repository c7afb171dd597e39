# What the base-graphics and the ggplot2 versions of the profile plots share.
# Every panel is laid out here, once, in plot coordinates: logarithmic axes are
# drawn as linear axes over log10 of the values (so both back ends draw the
# same straight segments, and zero, which a log axis cannot show, sits at an
# axis floor marked "0" beyond an axis break). The back ends only draw what
# ru_panel_data() returns: points, intervals, series lines, the Pareto
# frontier, the risk budget, reference lines, the fitted curve and labels.

ru_plot_types <- c("ru", "estimate", "mse", "risk", "tradeoff")

# The panel asked for: one of ru_plot_types (the default vector: "ru"), or
# "utility" for a profile with a model-free measure (ru_profile(utility = )).
ru_check_type <- function(type, x) {
  if (identical(type, ru_plot_types)) return("ru")
  type <- check_choice(type, c(ru_plot_types, "utility"), "type")
  if (identical(type, "utility") && is.null(x$utility))
    abort_value("type", paste("one of", paste0('"', ru_plot_types, '"', collapse = ", "),
                              "(\"utility\" needs a profile with a model-free measure:",
                              "ru_profile(utility = ))"))
  type
}

# Okabe-Ito, ordered so the first colours are the most distinct on white and
# in greyscale; yellow last.
okabe_ito <- c("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
               "#56B4E9", "#000000", "#F0E442")
# No open circle: a ring marks the Pareto frontier.
ru_shapes <- c(16L, 17L, 15L, 18L, 8L, 2L, 0L, 4L)

# Drawing constants shared by both back ends.
ru_frontier_col <- "grey25"
ru_budget_col <- "#B2182B"
ru_budget_fill <- "#B2182B14"

# Series: the generator of each scheme (profile column `generator`), or, for
# profiles without it, the family column; "all schemes" when neither is known.
ru_groups <- function(x) {
  g <- ru_generator(x) %||% x[["mask_family"]] %||% rep(NA_character_, nrow(x))
  g[is.na(g)] <- "all schemes"
  factor(g, levels = unique(g))
}

ru_generator <- function(x) {
  g <- x$generator
  if (is.null(g) || all(is.na(g))) return(NULL)
  as.character(g)
}

# The rows that are the unmasked reference: the scheme ru_profile() recorded
# as the reference (the one with the `reference` trait). A table built by
# hand that names no reference scheme marks it by the values its builder
# documents (generator "no masking", family "none").
ru_is_reference <- function(x) {
  ref <- ru_reference(x)$scheme
  if (!is.null(ref) && !is.na(ref)) return(x$scheme == ref)
  g <- ru_generator(x)
  if (!is.null(g)) return(!is.na(g) & g == "no masking")
  k <- x[["mask_family"]] %||% rep(NA_character_, nrow(x))
  !is.na(k) & k == "none"
}

ru_palette <- function(levels, col = NULL) {
  n <- length(levels)
  if (!is.null(col)) check_colours(col, "col")
  if (is.null(col)) col <- rep_len(okabe_ito, n)
  col <- rep_len(col, n)
  stats::setNames(col, levels)
}

# Colours as R's graphics take them: names, "#RRGGBB" or palette numbers.
check_colours <- function(col, arg) {
  if (!(is.character(col) || is.numeric(col)) || is.object(col) || !length(col) || anyNA(col) ||
      (is.numeric(col) && any(!is.finite(col) | col < 0)))
    abort_type(arg, "colour names, \"#RRGGBB\" strings or palette numbers")
  check_utf8(col, arg)
  tryCatch(grDevices::col2rgb(col), error = function(e)
    abort_value(arg, sprintf("valid colours (%s)", conditionMessage(e))))
  col
}

# Label text in the series colour, darkened a little for contrast on white.
label_colours <- function(pal, idx) {
  rgb <- grDevices::col2rgb(pal[idx]) * 0.75
  grDevices::rgb(rgb[1, ], rgb[2, ], rgb[3, ], maxColorValue = 255)
}

# ---- axes ------------------------------------------------------------------
# An axis is a list: `tf` (values -> plot coordinates), `lim`, `at` (ticks, in
# plot coordinates), `labels`, `break_at` (where to draw "//", or NA),
# `title`, and `log`.

linear_axis <- function(v, title, include = NULL, pad = 0.05, lim = NULL) {
  v <- c(v, include)
  v <- v[is.finite(v)]
  if (is.null(lim)) lim <- pad_range(if (length(v)) range(v) else c(0, 1), pad)
  at <- pretty(lim, n = 6)
  at <- at[at >= lim[1] - 1e-12 * diff(lim) & at <= lim[2] + 1e-12 * diff(lim)]
  list(tf = function(z) z, lim = lim, at = at, labels = format_tick(at),
       break_at = NA_real_, title = title, log = FALSE, floor = NA_real_)
}

# A log10 axis. Zeros (and interval ends at or below zero) are drawn at a floor
# below the smallest positive value, labelled "0" and set off by an axis break.
log_axis <- function(v, title, pad = 0.05, zero = any(v <= 0, na.rm = TRUE),
                     lim_data = NULL) {
  v <- v[is.finite(v)]
  pos <- v[v > 0]
  decades <- log10(max(pos) / min(pos))
  gap <- max(0.5, 0.1 * decades)
  floor <- if (zero) min(pos) / 10^gap else NA_real_
  tf <- function(z) {
    out <- rep(NA_real_, length(z))
    ok <- is.finite(z)
    out[ok] <- log10(if (zero) pmax(z[ok], floor) else pmax(z[ok], min(pos) / 10^gap))
    out
  }
  rng <- log10(range(c(pos, if (zero) floor)))
  lim <- lim_data %||% pad_range(rng, pad)
  lo <- floor(log10(min(pos)) + 1e-9)
  hi <- ceiling(log10(max(pos)) - 1e-9)
  step <- max(1L, ceiling((hi - lo) / 6))
  at <- seq(lo, hi, by = step)
  if (hi - lo <= 3) at <- sort(unique(log10(c(outer(c(1, 2, 5), 10^(lo:hi))))))
  at <- at[at >= log10(min(pos)) - 0.02 & at <= lim[2] + 1e-9]
  if (length(at) < 2L) at <- log10(signif(range(pos), 2))
  labels <- format_log_tick(10^at)
  break_at <- NA_real_
  if (zero) {
    at <- c(log10(floor), at)
    labels <- c("0", labels)
    break_at <- (log10(floor) + log10(min(pos))) / 2
  }
  list(tf = tf, lim = lim, at = at, labels = labels, break_at = break_at,
       title = title, log = TRUE, floor = floor)
}

format_tick <- function(v) format(v, trim = TRUE, drop0trailing = TRUE)

format_log_tick <- function(v) {
  vapply(v, function(a) format(signif(a, 2), scientific = abs(log10(a)) >= 5, trim = TRUE,
                               drop0trailing = TRUE), "")
}

format_degree <- function(v) {
  vapply(v, function(a) format(a, scientific = abs(log10(abs(a))) >= 5, trim = TRUE,
                               drop0trailing = TRUE), "")
}

format_degree_label <- function(d) {
  out <- character(length(d))
  out[!is.na(d) & d == 0] <- "0"
  nz <- !is.na(d) & d != 0
  out[nz] <- format_degree(signif(d[nz], 3))
  out[is.na(d)] <- "NA"
  out
}

# Should values on a risk axis be drawn on a log scale? `log` is "auto", TRUE
# or FALSE. "auto": when the positive risks span two orders of magnitude, or,
# on an axis fixed to [0, 1] (`unit`), when every risk is below 0.05 so that a
# linear axis would squash them all onto its floor.
use_log_risk <- function(r, log, unit = FALSE) {
  r <- r[is.finite(r)]
  pos <- r[r > 0]
  if (!length(pos)) return(FALSE)
  if (!identical(log, "auto")) return(isTRUE(log))
  spread <- length(unique(pos)) >= 2L && max(pos) / min(pos) >= 100
  spread || (unit && max(pos) < 0.05 && length(unique(r)) >= 2L)
}

use_log_positive <- function(v, log) {
  v <- v[is.finite(v)]
  if (!length(v) || any(v <= 0)) return(FALSE)
  if (!identical(log, "auto")) return(isTRUE(log))
  max(v) / min(v) >= 100
}

# The x axis of the panels against the degree of masking.
#   With columns `generator` and `strength`: kernel (and matrix-mask) sweeps
#   keep lambda as their strength and share a lambda axis; any other mix is
#   drawn against the step of each generator's sweep from weak to strong
#   (1, 2, ... by increasing strength; 0 is no masking), since strengths of
#   different generators are not comparable.
#   Without them: the degree column (log when it spans >= 2 decades, lambda = 0
#   beyond an axis break), or one position per scheme when a degree is NA.
degree_axis <- function(x, log = "auto") {
  ref <- ru_is_reference(x)
  gen <- ru_generator(x)
  if (!is.null(gen) && !is.null(x$strength) && all(is.finite(x$strength[!ref]))) {
    if (all(ru_on_bandwidth(x)[!ref]) && all(x$strength >= 0))
      return(lambda_axis(ifelse(ref, 0, x$strength), log,
                         "Degree of masking (lambda)"))
    return(step_axis(x, ref))
  }
  lambda_axis(x$degree, log, "Degree of masking (lambda)", labels = short_scheme_labels(x))
}

# Schemes whose degree is a bandwidth on a shared scale (the `bandwidth`
# trait of their type, recorded by ru_profile(): kernels, matrix masks).
ru_on_bandwidth <- function(x) {
  b <- x[["bandwidth"]]
  if (is.null(b)) rep(FALSE, nrow(x)) else b %in% TRUE
}

lambda_axis <- function(degree, log, title, labels = NULL) {
  if (anyNA(degree) || length(degree) == 0L) {
    n <- length(degree)
    ax <- linear_axis(NULL, "", lim = c(0.5, n + 0.5))
    ax$at <- seq_len(n)
    ax$labels <- labels %||% as.character(seq_len(n))
    ax$kind <- "scheme"
    ax$x <- seq_len(n)
    return(ax)
  }
  pos <- degree[degree > 0]
  span <- if (length(pos)) max(pos) / min(pos) else 1
  use_log <- if (identical(log, "auto")) length(pos) >= 2L && span >= 100 else isTRUE(log)
  if (use_log && length(pos)) {
    ax <- log_axis(degree, "Degree of masking (lambda, log scale)", pad = 0.04)
  } else {
    ax <- linear_axis(degree, title, pad = 0.04)
  }
  ax$kind <- if (ax$log) "log" else "linear"
  ax$x <- ax$tf(degree)
  ax
}

# Position of each scheme in its generator's sweep: the rank of its strength
# among the distinct strengths of that generator; no masking at 0.
step_axis <- function(x, ref) {
  g <- as.character(ru_groups(x))
  pos <- numeric(nrow(x))
  for (lev in unique(g[!ref])) {
    sel <- !ref & g == lev
    s <- x$strength[sel]
    pos[sel] <- match(s, sort(unique(s)))
  }
  pos[ref] <- 0
  n <- max(pos, 1)
  ax <- linear_axis(NULL, "Strength of masking: step in each generator's sweep (weak to strong)",
                    lim = c(-0.4, n + 0.4))
  ax$at <- 0:n
  ax$labels <- c("none", as.character(seq_len(n)))
  ax$kind <- "step"
  ax$x <- pos
  ax
}

# ---- the panels -------------------------------------------------------------

# Everything a panel draws, in plot coordinates: the one data preparation of
# the base-graphics plot, the ggplot2 plot and the workbench's plot.
#   x: the profile; type: one of ru_plot_types; log: list(x =, y =) each
#   "auto", TRUE or FALSE; curve: NULL (draw if identified and fitting),
#   TRUE, FALSE; budget: NULL (the profile's) or a risk budget to draw.
# Returns list(data = points with x, y, intervals, group, pareto, label;
# xaxis, yaxis, hlines, budget, curve, frontier, join, labels, type).
ru_panel_data <- function(x, type, log = list(x = "auto", y = "auto"), curve = NULL,
                          budget = NULL) {
  if (!is.list(log)) log <- list(x = log, y = "auto")
  # a budget other than the profile's (the workbench's threshold)
  if (!is.null(budget)) attr(x, "meta")$budget <- budget
  groups <- ru_groups(x)
  meta <- ru_meta(x)
  base <- data.frame(scheme = x$scheme, group = groups, strength = ru_order_key(x),
                     reference = ru_is_reference(x),
                     pareto = if (is.null(x$pareto)) FALSE else x$pareto %in% TRUE,
                     stringsAsFactors = FALSE)
  pd <- switch(type,
               ru = ru_panel_security(x, base, log, curve),
               tradeoff = ru_panel_tradeoff(x, base, log),
               utility = ru_panel_utility(x, base, log),
               ru_panel_degree(x, base, type, log))
  pd$type <- type
  # what the estimates and U rest on, wherever they are drawn
  if (type != "risk") pd$records <- profile_records_caption(x)
  pd$has_generator <- !is.null(ru_generator(x))
  pd$has_pareto <- !is.null(x$pareto) && any(pd$data$pareto & is.finite(pd$data$x) &
                                               is.finite(pd$data$y))
  pd$frontier <- if (pd$has_pareto && type %in% c("ru", "tradeoff", "utility"))
    frontier_path(pd$data, vertical_first = type == "ru") else NULL
  if (!is.null(pd$frontier) && nrow(pd$frontier) < 2L) pd$frontier <- NULL
  pd
}

# Order of the schemes within a series, weak to strong.
ru_order_key <- function(x) {
  s <- x$strength %||% x$degree
  s[ru_is_reference(x)] <- -Inf
  s
}

ru_term_label <- function(x) {
  meta <- ru_meta(x)
  if (is.na(meta$term)) "the coefficient" else sprintf("'%s'", meta$term)
}

ru_risk_label <- function(x) {
  meta <- ru_meta(x)
  if (is.na(meta$risk)) "Disclosure risk" else sprintf("Disclosure risk (%s)", meta$risk)
}

ru_budget <- function(x) {
  b <- ru_meta(x)$budget
  if (is.null(b) || !is.numeric(b) || length(b) != 1L || !is.finite(b)) NULL else b
}

ru_se_col <- function(x, col) {
  v <- x[[col]]
  if (is.null(v)) rep(NA_real_, nrow(x)) else as.double(v)
}

# Interval ends value +- z SE, NA where the SE is.
se_interval <- function(v, se) {
  z <- ru_z()
  list(lo = v - z * se, hi = v + z * se)
}

# The Cologne security-utility panel: anonymity (or, when risks are small or
# span orders of magnitude, risk on a reversed log axis: safer upwards) against
# analysis potential U, clipped at 1.
ru_panel_security <- function(x, base, log, curve) {
  # The U of the profile's print(), summary(), recommend() and frontier
  # (ru_u(): capped, bias counted in full), with its Monte Carlo SE.
  uu <- ru_u(x)
  u <- uu$u
  u_se <- uu$se
  use_capped <- uu$capped
  risk <- x$risk
  d <- base
  d$clipped <- !is.na(u) & u > 1
  d$x <- pmin(u, 1)
  u_int <- se_interval(u, u_se)
  d$xlo <- pmax(pmin(u_int$lo, 1), 0)
  d$xhi <- pmin(u_int$hi, 1)
  r_int <- se_interval(risk, ru_se_col(x, "risk_se"))
  budget <- ru_budget(x)
  log_y <- use_log_risk(c(risk, budget), log$y, unit = TRUE)
  if (log_y) {
    ax <- log_axis(c(risk, budget), sprintf("%s, log scale (safer upwards)", ru_risk_label(x)),
                   zero = any(risk <= 0, r_int$lo <= 0, na.rm = TRUE))
    tf <- function(r) -ax$tf(r)
    yaxis <- ax
    yaxis$tf <- tf
    yaxis$lim <- rev(-ax$lim)
    ord <- order(-ax$at)
    yaxis$at <- -ax$at[ord]
    yaxis$labels <- ax$labels[ord]
    yaxis$break_at <- -ax$break_at
  } else {
    tf <- function(r) 1 - r
    yaxis <- linear_axis(NULL, "Anonymity score (1 - risk)", lim = pad_range(c(0, 1), 0.02))
    yaxis$at <- seq(0, 1, 0.2)
    yaxis$labels <- format_tick(yaxis$at)
  }
  d$y <- tf(risk)
  d$ylo <- tf(r_int$hi)
  d$yhi <- tf(r_int$lo)
  if (!log_y) {
    d$ylo <- pmax(d$ylo, 0)
    d$yhi <- pmin(d$yhi, 1)
  }
  lab <- short_scheme_labels(x)
  d$label <- ifelse(d$clipped, sprintf("%s (U = %s)", lab, format(round(u, 4), nsmall = 2)), lab)
  xaxis <- linear_axis(NULL, if (use_capped)
    "Analysis potential U (bias counted in full)" else
      "Analysis potential U = MSE(original) / MSE(masked)",
    lim = pad_range(c(0, 1), 0.02))
  xaxis$at <- seq(0, 1, 0.2)
  xaxis$labels <- format_tick(xaxis$at)
  list(data = d, xaxis = xaxis, yaxis = yaxis, hlines = NULL,
       budget = if (is.null(budget)) NULL else
         list(y = tf(budget), side = "below", value = budget),
       curve = ru_panel_curve(x, curve, tf), join = FALSE, labels = TRUE)
}

# The fitted curve in plot coordinates, with whether it is identified and
# fits the points (fit_ru_curve()'s goodness-of-fit rule).
#   curve: NULL draws it only when theta is identified and the curve fits;
#   TRUE draws it regardless (dashed, marked "not identified" or "does not
#   fit").
ru_panel_curve <- function(x, curve, tf) {
  if (isFALSE(curve)) return(NULL)
  fit <- ru_try_curve(x)
  if (is.null(fit)) return(NULL)
  identified <- ru_curve_identified(fit)
  fits <- !isFALSE(fit$fits)
  ok <- identified && fits
  if (!ok && is.null(curve))
    return(list(drawn = FALSE, theta = fit$theta, identified = identified, fits = fits,
                ok = FALSE))
  u <- ru_curve_grid()
  a <- ru_curve_value(u, fit$theta)
  list(drawn = TRUE, theta = fit$theta, identified = identified, fits = fits, ok = ok,
       data = data.frame(x = u, y = tf(1 - a)),
       label = sprintf("fitted curve, theta = %s%s", format_num(fit$theta, 3),
                       if (!identified) " (not identified)" else if (!fits) " (does not fit)" else ""))
}

# `$identified` from fit_ru_curve(); older fits only say whether theta hit the
# edge of its search range.
ru_curve_identified <- function(fit) {
  id <- fit$identified
  if (is.logical(id) && length(id) == 1L && !is.na(id)) return(id)
  !isTRUE(fit$boundary)
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
  tryCatch(suppressWarnings(fit_ru_curve(x)), epimask_error = function(e) NULL)
}

# Risk against MSE (Zhou et al.), one line per generator from weak to strong;
# with `value` (and its SE) another measure where lower is better in place of
# the MSE (the model-free utility of ru_profile(utility = )): the same panel,
# down and left better. A measure that is 0 (no masking) sits at the floor of
# a log axis, labelled "0" beyond an axis break.
ru_panel_tradeoff <- function(x, base, log, value = x$mse, value_se = ru_se_col(x, "mse_se"),
                              title = sprintf("MSE of %s", ru_term_label(x))) {
  d <- base
  v_int <- se_interval(value, value_se)
  r_int <- se_interval(x$risk, ru_se_col(x, "risk_se"))
  budget <- ru_budget(x)
  zero <- any(value <= 0, na.rm = TRUE)
  log_x <- if (zero) use_log_risk(value, log$x) else use_log_positive(value, log$x)
  xaxis <- if (log_x) log_axis(value, paste0(title, ", log scale"), pad = 0.06,
                               zero = zero) else
    linear_axis(c(value, v_int$lo, v_int$hi), title, pad = 0.06)
  d$x <- xaxis$tf(value)
  d$xlo <- xaxis$tf(if (log_x && is.na(xaxis$floor)) pmax(v_int$lo, min(value[value > 0]) / 100)
                    else v_int$lo)
  d$xhi <- xaxis$tf(v_int$hi)
  yaxis <- ru_risk_axis(x$risk, r_int, budget, log$y, ru_risk_label(x), pad = 0.06)
  d$y <- yaxis$tf(x$risk)
  d$ylo <- yaxis$tf(r_int$lo)
  d$yhi <- yaxis$tf(r_int$hi)
  d$label <- tradeoff_labels(x)
  list(data = d, xaxis = xaxis, yaxis = yaxis, hlines = NULL,
       budget = if (is.null(budget)) NULL else list(y = yaxis$tf(budget), side = "above",
                                                    value = budget),
       curve = NULL, join = TRUE, labels = TRUE)
}

# The model-free utility of ru_profile(utility = ) (lower is better) against
# the risk: the tradeoff panel with the measure in place of the MSE, the
# frontier of low risk and low measure (utility_pareto(), the table's rule).
# Without a risk (risk = "none"), the measure of each scheme, one row per
# scheme from the first at the top.
ru_panel_utility <- function(x, base, log) {
  meta <- ru_meta(x)
  title <- meta$utility_label %||% "Model-free utility (lower is better)"
  has_risk <- any(is.finite(x$risk))
  base$pareto <- has_risk & utility_pareto(x$risk, x$utility) %in% TRUE
  pd <- ru_panel_tradeoff(x, base, log, value = x$utility, value_se = ru_se_col(x, "utility_se"),
                          title = title)
  if (has_risk) {
    pd$lead <- "Down and to the left is better: closer to the original data, lower risk."
    return(pd)
  }
  n <- nrow(x)
  pd$lead <- "Left is better: closer to the original data (no risk was measured)."
  yaxis <- linear_axis(NULL, "", lim = c(0.5, n + 0.5))
  yaxis$at <- rev(seq_len(n))
  yaxis$labels <- short_scheme_labels(x)
  yaxis$kind <- "scheme"
  pd$data$y <- rev(seq_len(n))
  pd$data$ylo <- pd$data$yhi <- NA_real_
  pd$yaxis <- yaxis
  pd$budget <- NULL
  pd$join <- FALSE
  pd$labels <- FALSE
  pd
}

# Kernel sweeps are labelled by lambda (the line says which kernel), other
# schemes by name.
tradeoff_labels <- function(x) {
  ref <- ru_is_reference(x)
  lab <- short_scheme_labels(x)
  if (is.null(ru_generator(x)))
    return(if (anyNA(x$degree)) lab else format_degree_label(x$degree))
  if (!is.null(x$strength) && all(ru_on_bandwidth(x)[!ref]) && all(is.finite(x$strength[!ref])))
    return(ifelse(ref, lab, format_degree_label(x$strength)))
  lab
}

ru_risk_axis <- function(risk, r_int, budget, log, title, pad = 0.05) {
  if (use_log_risk(c(risk, budget), log)) {
    ax <- log_axis(c(risk, budget), paste0(title, ", log scale"), pad = pad,
                   zero = any(risk <= 0, r_int$lo <= 0, na.rm = TRUE))
    return(ax)
  }
  linear_axis(c(risk, pmax(r_int$lo, 0), pmin(r_int$hi, 1), budget), title, include = 0,
              pad = pad)
}

# Estimate, MSE or risk against the degree of masking.
ru_panel_degree <- function(x, base, type, log) {
  ref <- ru_reference(x)
  meta <- ru_meta(x)
  d <- base
  xaxis <- degree_axis(x, log$x)
  d$x <- xaxis$x
  d$xlo <- d$xhi <- NA_real_
  hlines <- NULL
  budget <- NULL
  if (type == "estimate") {
    lower <- x$ci_lower %||% (x$estimate - ru_z() * x$se)
    upper <- x$ci_upper %||% (x$estimate + ru_z() * x$se)
    hlines <- data.frame(
      y = ref$truth, lty = 2L,
      label = if (ref$type == "truth") "true value" else "original estimate",
      stringsAsFactors = FALSE)
    if (!is.null(meta$aggregate))
      hlines <- rbind(hlines, data.frame(y = meta$aggregate, lty = 3L,
                                         label = "aggregated-data estimate"))
    yaxis <- linear_axis(c(x$estimate, lower, upper, hlines$y),
                         sprintf("Estimate of %s (naive 95%% CI)", ru_term_label(x)))
    d$y <- x$estimate
    d$ylo <- lower
    d$yhi <- upper
  } else if (type == "mse") {
    int <- se_interval(x$mse, ru_se_col(x, "mse_se"))
    if (!is.na(ref$mse))
      hlines <- data.frame(y = ref$mse, lty = 2L, label = "MSE of the original",
                           stringsAsFactors = FALSE)
    title <- sprintf("MSE of %s", ru_term_label(x))
    log_y <- use_log_positive(c(x$mse, hlines$y), log$y)
    yaxis <- if (log_y) log_axis(c(x$mse, hlines$y), paste0(title, ", log scale"), zero = FALSE) else
      linear_axis(c(x$mse, pmax(int$lo, 0), int$hi, hlines$y), title)
    d$y <- yaxis$tf(x$mse)
    d$ylo <- yaxis$tf(if (log_y) pmax(int$lo, 10^yaxis$lim[1]) else int$lo)
    d$yhi <- yaxis$tf(int$hi)
    if (!is.null(hlines)) hlines$y <- yaxis$tf(hlines$y)
  } else {
    int <- se_interval(x$risk, ru_se_col(x, "risk_se"))
    budget <- ru_budget(x)
    yaxis <- ru_risk_axis(x$risk, int, budget, log$y, ru_risk_label(x))
    d$y <- yaxis$tf(x$risk)
    d$ylo <- yaxis$tf(int$lo)
    d$yhi <- yaxis$tf(int$hi)
    if (!is.null(budget)) budget <- list(y = yaxis$tf(budget), side = "above", value = budget)
  }
  if (type == "estimate" && xaxis$kind != "scheme") d$x <- dodge(d$x, d$group, xaxis$lim)
  d$label <- short_scheme_labels(x)
  list(data = d, xaxis = xaxis, yaxis = yaxis, hlines = hlines, budget = budget,
       curve = NULL, join = xaxis$kind != "scheme", labels = xaxis$kind == "step")
}

# Sideways offsets (a fraction of the axis range) so that the confidence
# intervals of different series at one degree do not overlap.
dodge <- function(x, group, lim) {
  n_g <- nlevels(group)
  if (n_g < 2L) return(x)
  x + (as.integer(group) - (n_g + 1) / 2) * 0.008 * diff(lim)
}

# The lines of a panel: each series from weak to strong; on a step or lambda
# axis each generator's sweep starts at the unmasked reference.
series_paths <- function(d, start_at_reference = TRUE) {
  ok <- is.finite(d$x) & is.finite(d$y)
  refs <- d[ok & d$reference, , drop = FALSE]
  out <- list()
  for (lev in levels(d$group)) {
    s <- d[ok & d$group == lev & !d$reference, , drop = FALSE]
    if (!nrow(s)) next
    s <- s[order(s$strength, s$x), , drop = FALSE]
    if (start_at_reference && nrow(refs) == 1L) {
      r <- refs
      r$group <- factor(lev, levels = levels(d$group))
      s <- rbind(r, s)
    }
    if (nrow(s) > 1L) out[[length(out) + 1L]] <- s[, c("group", "x", "y")]
  }
  if (!length(out)) return(NULL)
  paths <- do.call(rbind, out)
  rownames(paths) <- NULL
  paths
}

# The Pareto frontier as a staircase through the frontier schemes. "ru" (up
# and right are better): the edge of the region the frontier dominates drops
# first, then runs right; "tradeoff" (down and left are better): right first.
frontier_path <- function(d, vertical_first) {
  f <- d[d$pareto & is.finite(d$x) & is.finite(d$y), , drop = FALSE]
  if (!nrow(f)) return(NULL)
  f <- f[order(f$x, -f$y), , drop = FALSE]
  if (nrow(f) == 1L) return(data.frame(x = f$x, y = f$y))
  px <- f$x[1]
  py <- f$y[1]
  for (k in seq_len(nrow(f) - 1L)) {
    corner <- if (vertical_first) c(f$x[k], f$y[k + 1]) else c(f$x[k + 1], f$y[k])
    px <- c(px, corner[1], f$x[k + 1])
    py <- c(py, corner[2], f$y[k + 1])
  }
  data.frame(x = px, y = py)
}

pad_range <- function(r, frac = 0.04) {
  if (diff(r) == 0) r <- r + c(-1, 1) * max(abs(r[1]) * 0.1, 1e-3)
  r + c(-1, 1) * diff(r) * frac
}

# Legend entries (label, colour, symbol, line type, line width) for a panel.
ru_legend_keys <- function(pd, pal) {
  keys <- data.frame(label = character(0), col = character(0), pch = integer(0),
                     lty = integer(0), lwd = numeric(0), stringsAsFactors = FALSE)
  add <- function(label, col, pch = NA_integer_, lty = 0L, lwd = 1.5)
    keys <<- rbind(keys, data.frame(label = label, col = col, pch = pch, lty = lty,
                                    lwd = lwd, stringsAsFactors = FALSE))
  groups <- names(pal)
  if (length(groups) > 1L)
    add(groups, unname(pal), rep_len(ru_shapes, length(groups)),
        if (isTRUE(pd$join)) 1L else 0L)
  if (!is.null(pd$frontier)) add("Pareto frontier", ru_frontier_col, 1L, 1L, 2.2)
  cv <- pd$curve
  if (!is.null(cv) && isTRUE(cv$drawn))
    add(cv$label, "grey45", lty = if (isTRUE(cv$ok %||% cv$identified)) 1L else 2L)
  if (!is.null(pd$budget))
    add(sprintf("risk budget %s", format_num(pd$budget$value, 2)), ru_budget_col, lty = 2L)
  if (!is.null(pd$hlines))
    add(pd$hlines$label, rep("grey35", nrow(pd$hlines)), lty = pd$hlines$lty, lwd = 1.2)
  if (any(pd$data$clipped %in% TRUE)) add("U > 1, drawn at 1", "grey20", 5L)
  keys
}

# Notes under the panel: what is drawn (or left out) that no legend key says.
ru_panel_note <- function(pd) {
  notes <- pd$lead %||% character(0)
  cv <- pd$curve
  if (!is.null(cv) && !isTRUE(cv$drawn))
    notes <- c(notes, sprintf("Curve not drawn: %s (curve = TRUE draws it).",
                              if (!isTRUE(cv$identified)) "theta not identified" else
                                "it does not fit the points"))
  if (has_intervals(pd$data, pd$type))
    notes <- c(notes, if (pd$type == "estimate") "Bars: naive 95% CI." else
      "Bars: +-1.96 Monte Carlo SE.")
  if (!is.na(pd$yaxis$floor) || !is.na(pd$xaxis$floor %||% NA_real_))
    notes <- c(notes, "\"0\": zero, drawn at the axis floor.")
  if (any(pd$data$pareto) && is.null(pd$frontier)) notes <- c(notes, "Ringed: Pareto frontier.")
  notes <- c(notes, pd$records)
  if (length(notes)) paste(notes, collapse = " ") else NULL
}

has_intervals <- function(d, type) {
  any(is.finite(d$xlo) & is.finite(d$xhi) & d$xhi > d$xlo) ||
    any(is.finite(d$ylo) & is.finite(d$yhi) & d$yhi > d$ylo)
}

# ---- label placement -------------------------------------------------------

# Base graphics' simple placement (the ggplot2 version uses ggrepel, which is
# made for this). Each label (a box w x h, in inches) goes beside its point at
# the first of eight positions - right, left, above, below, then the four
# diagonals - first `gap` from the point, then `2.5 gap`, where the box stays
# inside `bounds` and overlaps neither a label placed before nor another point
# (a square of half-side `radius`); points are taken from left to right. When
# no position is free the label takes the one with the least overlap.
# Returns the centres of the boxes (x, y), the boxes (x0, x1, y0, y1) and
# whether each label found a free position.
simple_label_positions <- function(px, py, w, h, bounds, gap = 0.08, radius = 0.05) {
  n <- length(px)
  boxes <- matrix(NA_real_, n, 4L)
  free <- rep(FALSE, n)
  live <- is.finite(px) & is.finite(py)
  # direction (dx, dy): the box's near edge or corner `d` from the point
  dirs <- rbind(c(1, 0), c(-1, 0), c(0, 1), c(0, -1), c(1, 1), c(1, -1), c(-1, 1), c(-1, -1))
  cand_box <- function(i, dir, d) {
    cx <- px[i] + dir[1] * (d + w[i] / 2)
    cy <- py[i] + dir[2] * (d + h[i] / 2)
    if (dir[1] != 0 && dir[2] != 0) {      # diagonals: pulled in to the corner
      cx <- px[i] + dir[1] * (d / sqrt(2) + w[i] / 2)
      cy <- py[i] + dir[2] * (d / sqrt(2) + h[i] / 2)
    }
    c(cx - w[i] / 2, cx + w[i] / 2, cy - h[i] / 2, cy + h[i] / 2)
  }
  overlap <- function(b, others) {
    others <- others[!is.na(others[, 1L]), , drop = FALSE]
    if (!nrow(others)) return(0)
    ox <- pmax(0, pmin(b[2], others[, 2]) - pmax(b[1], others[, 1]))
    oy <- pmax(0, pmin(b[4], others[, 4]) - pmax(b[3], others[, 3]))
    sum(ox * oy)
  }
  point_box <- cbind(px - radius, px + radius, py - radius, py + radius)
  for (i in order(px, py)) {
    if (!live[i]) next
    others <- point_box[live & !(px == px[i] & py == py[i]), , drop = FALSE]
    cands <- do.call(rbind, lapply(c(gap, 2.5 * gap), function(d)
      t(apply(dirs, 1L, cand_box, i = i, d = d))))
    cost <- apply(cands, 1L, function(b) {
      outside <- max(0, bounds[1] - b[1]) + max(0, b[2] - bounds[2]) +
        max(0, bounds[3] - b[3]) + max(0, b[4] - bounds[4])
      overlap(b, boxes) + overlap(b, others) + 10 * outside
    })
    free[i] <- any(cost == 0)
    k <- if (free[i]) which(cost == 0)[1L] else which.min(cost)
    boxes[i, ] <- cands[k, ]
  }
  list(x = (boxes[, 1] + boxes[, 2]) / 2, y = (boxes[, 3] + boxes[, 4]) / 2, boxes = boxes,
       free = free)
}
