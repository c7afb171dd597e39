# Profile plots: the panel layout (axes, intervals, frontier, budget, curve),
# the label placer, and vdiffr snapshots of every panel in both back ends.

plot_types <- c("ru", "estimate", "mse", "risk", "tradeoff")

with_null_device <- function(code, width = 7, height = 5) {
  grDevices::pdf(NULL, width = width, height = height)
  on.exit(grDevices::dev.off())
  force(code)
}

# The contract's decision columns, computed here from the replicates (a
# stand-in for ru_profile()'s own, so the plots are tested with and without).
with_decision <- function(ru, generator, strength, budget = NULL, risk_se = NULL) {
  ru$generator <- generator
  ru$strength <- strength
  reps <- replicates(ru)
  truth <- attr(ru, "reference")$truth
  per <- split(reps, factor(reps$scheme, levels = ru$scheme))
  mc_se <- function(v) if (length(v) > 1L) stats::sd(v) / sqrt(length(v)) else NA_real_
  ru$mse_se <- vapply(per, function(r) mc_se(r$se^2 + (r$estimate - truth)^2), 0,
                      USE.NAMES = FALSE)
  ru$analysis_potential_se <- ru$analysis_potential * ru$mse_se / ru$mse
  ru$risk_se <- risk_se %||% vapply(per, function(r) mc_se(r$risk), 0, USE.NAMES = FALSE)
  # the frontier on the axis the ru panel draws: the capped U and its SE
  capped <- capped_by_hand(ru)
  ru$pareto <- brute_frontier(ru$risk, capped$u, ru$risk_se, capped$se)
  meta <- attr(ru, "meta")
  meta$budget <- budget
  attr(ru, "meta") <- meta
  ru
}

`%||%` <- function(a, b) if (is.null(a)) b else a

zhou_decision <- function() {
  ru <- zhou_like_profile()
  gen <- ifelse(ru$mask_family == "none", "no masking", paste(ru$mask_family, "kernel"))
  # what ru_profile() records of a kernel scheme (its type's bandwidth trait)
  ru$bandwidth <- ru$mask_family != "none"
  with_decision(ru, gen, ru$degree, budget = 0.05, risk_se = 0.15 * ru$risk)
}

cologne_decision <- function() {
  ru <- cologne_like_profile()
  gen <- c("no masking", "rounding (significant digits)", "rounding (decimal places)",
           "grouping", "noise (uniform)")
  with_decision(ru, gen, c(0, -3, -1, 1, 0.1), budget = 0.1,
                risk_se = c(NA, NA, NA, NA, 0.004))
}

# The eight Adult schemes of issue 14 (logistic model of income on age, sex,
# education-num, hours; age rounded, grouped or noised): U and identifiability
# risk as ru_profile() gave them. One replicate each: estimate at the truth,
# SE chosen so that U = MSE(original) / SE^2 is the one printed.
adult_u <- c(1, 0.2696, 1, 0.2696, 0.9466, 0.6705, 0.9907, 0.2063)
adult_risk <- c(0.002387, 0.0002652, 0.002387, 0.0002652, 3.315e-05, 3.315e-05, 0, 0)
adult_schemes <- c("no masking", "rounding to 1 significant digit",
                   "rounding to 2 significant digits", "rounding to the nearest 10",
                   "grouping into 16 intervals (interval means)",
                   "grouping into 9 intervals (interval means)",
                   "uniform noise, amount = 1", "uniform noise, amount = 5")
adult_profile <- function() {
  reps <- data.frame(scheme = adult_schemes, replicate = 1L, estimate = 0.05,
                     se = 0.001 / sqrt(adult_u), risk = adult_risk,
                     kernel = c("none", "round", "round", "round", "group", "group",
                                "noise", "noise"), stringsAsFactors = FALSE)
  reps$degree <- c(0, 1, 2, -1, 5, 10, 1, 5)
  epimask:::ru_profile_from_replicates(reps, list(truth = 0.05, se = 0.001),
                                       list(term = "age", family = "binomial",
                                            risk = "identifiability"))
}

# ---- the label placer ----------------------------------------------------

boxes_overlap <- function(a, b) a[1] < b[2] && a[2] > b[1] && a[3] < b[4] && a[4] > b[3]

test_that("base labels sit beside their own point, apart, inside the panel", {
  set.seed(4)
  n <- 10
  # points on a coarse grid (apart by more than a label), labels of 0.3-0.8 in
  cells <- sample(0:19, n)
  px <- 0.6 + (cells %% 5) * 1.1
  py <- 0.5 + (cells %/% 5) * 0.9
  w <- runif(n, 0.3, 0.8)
  h <- rep(0.15, n)
  bounds <- c(0, 6, 0, 4)
  out <- epimask:::simple_label_positions(px, py, w, h, bounds, gap = 0.08, radius = 0.05)
  expect_true(all(out$free))
  b <- out$boxes
  # each box is w x h, centred on (x, y), inside the panel
  expect_equal(b[, 2] - b[, 1], w)
  expect_equal(b[, 4] - b[, 3], h)
  expect_equal(out$x, (b[, 1] + b[, 2]) / 2)
  expect_true(all(b[, 1] >= 0 & b[, 2] <= 6 & b[, 3] >= 0 & b[, 4] <= 4))
  for (i in seq_len(n)) {
    # beside its own point: the box's nearest edge is 0.08 (or 0.2) away
    dx <- max(b[i, 1] - px[i], 0, px[i] - b[i, 2])
    dy <- max(b[i, 3] - py[i], 0, py[i] - b[i, 4])
    expect_lte(max(dx, dy), 0.2 + 1e-12)
    expect_gte(sqrt(dx^2 + dy^2), 0.08 / sqrt(2) - 1e-12)
    for (k in seq_len(n)) {
      if (k > i) expect_false(boxes_overlap(b[i, ], b[k, ]))
      if (k != i) expect_false(boxes_overlap(b[i, ], c(px[k] + c(-1, 1) * 0.05,
                                                        py[k] + c(-1, 1) * 0.05)))
    }
  }
  # right first; a point at the right edge gets its label on the left
  edge <- epimask:::simple_label_positions(c(1, 5.9), c(2, 2), c(0.5, 0.5), c(0.15, 0.15),
                                           bounds, gap = 0.08)
  expect_equal(edge$x, c(1 + 0.08 + 0.25, 5.9 - 0.08 - 0.25))
  expect_equal(edge$y, c(2, 2))
})

test_that("labels of points on one spot go to different sides, apart", {
  out <- epimask:::simple_label_positions(rep(3, 4), rep(2, 4), rep(0.6, 4), rep(0.15, 4),
                                          c(0, 6, 0, 4), gap = 0.08)
  expect_true(all(out$free))
  for (i in 1:3) for (k in (i + 1):4) expect_false(boxes_overlap(out$boxes[i, ], out$boxes[k, ]))
})

# ---- panel layout -----------------------------------------------------------

test_that("sweeps run weak to strong, one line per generator, none left of no masking", {
  ru <- cologne_decision()
  pd <- epimask:::ru_panel_data(ru, "risk")
  expect_identical(pd$xaxis$kind, "step")
  expect_identical(levels(pd$data$group), ru$generator)
  expect_identical(pd$data$x, c(0, 1, 1, 1, 1))
  expect_true(all(pd$data$x[-1] > pd$data$x[1]))
  # A sweep of rounding by decimal places: digits 2, 1, 0, -1 (tens) has
  # strength -digits; weakest first, tens last.
  reps <- data.frame(scheme = c("none", "dec 2", "dec 1", "dec 0", "tens", "sig 2", "sig 1"),
                     replicate = 1, estimate = 1, se = c(1, 1.01, 1.02, 1.05, 1.1, 1.01, 1.2),
                     risk = c(0.5, 0.4, 0.3, 0.2, 0.1, 0.45, 0.05))
  ru2 <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 1))
  ru2 <- with_decision(ru2, c("no masking", rep("rounding (decimal places)", 4),
                              rep("rounding (significant digits)", 2)),
                       c(0, -2, -1, 0, 1, -2, -1))
  pd2 <- epimask:::ru_panel_data(ru2, "mse")
  expect_identical(pd2$data$x, c(0, 1, 2, 3, 4, 1, 2))
  paths <- epimask:::series_paths(pd2$data, TRUE)
  dec <- paths[paths$group == "rounding (decimal places)", ]
  expect_identical(dec$x, c(0, 1, 2, 3, 4))          # starts at no masking
  expect_equal(dec$y, pd2$yaxis$tf(ru2$mse[1:5]))
  sig <- paths[paths$group == "rounding (significant digits)", ]
  expect_identical(sig$x, c(0, 1, 2))                # a line of its own
})

test_that("kernel sweeps keep lambda as their axis; old profiles their degree", {
  pd <- epimask:::ru_panel_data(zhou_decision(), "mse")
  expect_identical(pd$xaxis$kind, "log")
  expect_equal(pd$data$x[-1], log10(zhou_like_profile()$degree[-1]))
  expect_lt(pd$data$x[1], log10(0.001))             # lambda = 0 at the floor
  expect_identical(pd$xaxis$labels[1], "0")
  expect_gt(pd$xaxis$break_at, pd$data$x[1])
  expect_lt(pd$xaxis$break_at, log10(0.001))
  old <- epimask:::ru_panel_data(strip_decision_columns(zhou_like_profile()), "mse")
  expect_identical(old$xaxis$kind, "log")
  expect_identical(levels(old$data$group), c("none", "ring", "exponential"))
  cl <- epimask:::ru_panel_data(cologne_like_profile(), "risk")
  expect_identical(cl$xaxis$kind, "scheme")
  expect_identical(cl$xaxis$labels, cologne_like_profile()$scheme)
  lin <- epimask:::lambda_axis(c(0, 0.5, 1), "auto", "t")
  expect_identical(lin$kind, "linear")
  expect_identical(epimask:::lambda_axis(c(0.001, 1), FALSE, "t")$kind, "linear")
})

test_that("intervals are +-1.96 Monte Carlo SE; the estimate keeps its naive CI", {
  ru <- zhou_decision()
  z <- stats::qnorm(0.975)
  pd <- epimask:::ru_panel_data(ru, "tradeoff", list(x = FALSE, y = FALSE))
  expect_equal(pd$data$xlo, ru$mse - z * ru$mse_se)
  expect_equal(pd$data$xhi, ru$mse + z * ru$mse_se)
  expect_equal(pd$data$ylo, ru$risk - z * ru$risk_se)
  ru_pd <- epimask:::ru_panel_data(ru, "ru", list(x = FALSE, y = FALSE))
  # the ru panel draws the capped U, +- z times its SE (the SE of U scaled by
  # capped / U), the same U and SE the frontier and recommend() use
  capped <- capped_by_hand(ru)
  expect_equal(ru_pd$data$x, capped$u)
  expect_equal(ru_pd$data$xhi, pmin(capped$u + z * capped$se, 1))
  expect_equal(ru_pd$data$xlo, pmax(capped$u - z * capped$se, 0))
  expect_equal(ru_pd$data$yhi, pmin(1 - (ru$risk - z * ru$risk_se), 1))
  est <- epimask:::ru_panel_data(ru, "estimate")
  expect_equal(est$data$ylo, ru$ci_lower)
  expect_equal(est$data$yhi, ru$ci_upper)
  expect_identical(est$hlines$label, c("true value", "aggregated-data estimate"))
  # Without the SE columns there are no bars.
  old <- epimask:::ru_panel_data(strip_decision_columns(zhou_like_profile()), "tradeoff")
  expect_true(all(is.na(old$data$xlo)))
  expect_true(all(is.na(old$data$ylo)))
})

test_that("the plot draws the profile's U, also for a profile saved with a capped column", {
  ru <- cologne_decision()
  pd <- epimask:::ru_panel_data(ru, "ru")
  expect_equal(pd$data$x, pmin(ru$analysis_potential, 1))
  expect_match(pd$xaxis$title, "bias counted in full")
  # a profile saved before U was reported capped: raw `analysis_potential`
  # beside `analysis_potential_capped`
  old <- ru
  old$analysis_potential_raw <- old$analysis_potential_raw_se <- NULL
  old$analysis_potential <- c(1, 1.2, 0.7, 0.95, 1.05)
  old$analysis_potential_se <- rep(0.02, 5)
  capped <- c(1, 0.98, 0.6, 0.9, 0.95)
  old$analysis_potential_capped <- capped
  pd <- epimask:::ru_panel_data(old, "ru")
  expect_equal(pd$data$x, capped)
  expect_false(any(pd$data$clipped))
  z <- stats::qnorm(0.975)
  se <- old$analysis_potential_se * capped / old$analysis_potential
  expect_equal(pd$data$xhi, pmin(capped + z * se, 1))
  expect_match(pd$xaxis$title, "bias counted in full")
})

test_that("the risk axis is logarithmic for small risks, zero at its floor", {
  ur <- epimask:::use_log_risk
  expect_true(ur(c(0.8, 0.002), "auto"))
  expect_false(ur(c(0.575, 0.4, 0.02, 0), "auto"))
  expect_true(ur(c(0.0024, 0.00027, 0), "auto", unit = TRUE))
  expect_false(ur(c(0.0024, 0.00027, 0), "auto"))
  expect_false(ur(c(0, 0), "auto", unit = TRUE))
  expect_false(ur(c(0.8, 0.002), FALSE))
  pd <- epimask:::ru_panel_data(adult_profile(), "ru")
  ax <- pd$yaxis
  expect_true(ax$log)
  # Safer upwards: y = -log10(risk); zero risks at the floor, above every
  # positive risk, labelled "0" beyond an axis break.
  pos <- adult_risk > 0
  expect_equal(pd$data$y[pos], -log10(adult_risk[pos]))
  expect_true(all(pd$data$y[!pos] == -log10(ax$floor)))
  expect_gt(-log10(ax$floor), max(pd$data$y[pos]))
  expect_identical(ax$labels[which.max(ax$at)], "0")
  expect_lt(ax$break_at, -log10(ax$floor))
  expect_gt(ax$break_at, max(pd$data$y[pos]))
  lin <- epimask:::ru_panel_data(adult_profile(), "ru", list(x = "auto", y = FALSE))
  expect_equal(lin$data$y, 1 - adult_risk)
})

test_that("the frontier is a staircase through the Pareto schemes", {
  ru <- zhou_decision()
  capped <- capped_by_hand(ru)
  expect_identical(ru$pareto, brute_frontier(ru$risk, capped$u, ru$risk_se, capped$se))
  pd <- epimask:::ru_panel_data(ru, "ru")
  fr <- pd$frontier
  f <- pd$data[pd$data$pareto, ]
  f <- f[order(f$x), ]
  # Every frontier scheme is a vertex; between two, the corner (x_k, y_k+1).
  expect_equal(fr$x[seq(1, nrow(fr), 2)], f$x)
  expect_equal(fr$y[seq(1, nrow(fr), 2)], f$y)
  expect_equal(fr$x[seq(2, nrow(fr), 2)], f$x[-nrow(f)])
  expect_equal(fr$y[seq(2, nrow(fr), 2)], f$y[-1])
  tr <- epimask:::ru_panel_data(ru, "tradeoff")$frontier
  expect_equal(tr$y[seq(2, nrow(tr), 2)], tr$y[seq(1, nrow(tr) - 2, 2)])
  expect_null(epimask:::ru_panel_data(strip_decision_columns(zhou_like_profile()), "ru")$frontier)
})

test_that("the risk budget is drawn where the profile has one", {
  ru <- zhou_decision()
  pd <- epimask:::ru_panel_data(ru, "risk")
  expect_equal(pd$budget$y, pd$yaxis$tf(0.05))
  expect_identical(pd$budget$side, "above")
  keys <- epimask:::ru_legend_keys(pd, epimask:::ru_palette(levels(pd$data$group)))
  expect_true("risk budget 0.050" %in% keys$label)
  expect_null(epimask:::ru_panel_data(zhou_like_profile(), "risk")$budget)
  ru_pd <- epimask:::ru_panel_data(cologne_decision(), "ru")
  expect_equal(ru_pd$budget$y, 0.9)                  # anonymity 1 - budget
  expect_identical(ru_pd$budget$side, "below")
})

test_that("an unidentified curve is left out unless forced, and then marked", {
  ru <- adult_profile()
  expect_warning(fit <- fit_ru_curve(ru), class = "epimask_warning")
  expect_false(epimask:::ru_curve_identified(fit))
  pd <- epimask:::ru_panel_data(ru, "ru")
  expect_false(pd$curve$drawn)
  expect_match(epimask:::ru_panel_note(pd), "Curve not drawn")
  forced <- epimask:::ru_panel_data(ru, "ru", curve = TRUE)
  expect_true(forced$curve$drawn)
  expect_match(forced$curve$label, "not identified")
  expect_null(epimask:::ru_panel_data(ru, "ru", curve = FALSE)$curve)
  expect_false(epimask:::ru_curve_identified(list(identified = FALSE, boundary = FALSE)))
  expect_true(epimask:::ru_curve_identified(list(identified = TRUE, boundary = TRUE)))
  # the exponential kernel alone: one shape, which the curve fits
  zl <- zhou_like_profile()
  ok <- epimask:::ru_panel_data(zl[zl$mask_family != "ring", ], "ru")
  expect_true(ok$curve$drawn && ok$curve$identified && ok$curve$fits)
  # both kernels: theta is identified but one curve misses the ring series
  mixed <- epimask:::ru_panel_data(zl, "ru")
  expect_false(mixed$curve$drawn)
  expect_true(mixed$curve$identified)
  expect_match(epimask:::ru_panel_note(mixed), "does not fit the points")
})

test_that("plot arguments and empty panels give classed errors; par is restored", {
  ru <- zhou_like_profile()
  with_null_device({
    mar <- par("mar")
    expect_invisible(res <- plot(ru, "mse", main = "t"))
    expect_identical(res, ru)
    expect_identical(par("mar"), mar)
    expect_error(plot(ru, type = "pie"), "`type`", class = "epimask_error_value")
    expect_error(plot(ru, type = 1), "`type`", class = "epimask_error_type")
    expect_error(plot(ru, log = "z"), "`log`", class = "epimask_error_value")
    expect_error(plot(ru, labels = NA), class = "epimask_error_type")
    expect_error(plot(ru, curve = "yes"), class = "epimask_error_type")
    expect_error(plot(ru, xlim = 1), "`xlim`", class = "epimask_error_length")
    no_risk <- ru
    no_risk$risk <- no_risk$anonymity <- NA_real_
    expect_error(plot(no_risk, "tradeoff"), class = "epimask_error_value")
    expect_error(plot(no_risk, "ru"), "risk", class = "epimask_error_value")
    expect_error(plot(no_risk, "risk"), class = "epimask_error_value")
  })
  expect_error(plot.ru_profile <- epimask:::plot.ru_profile(data.frame()), "`x`",
               class = "epimask_error_type")
  skip_if_not_installed("ggplot2")
  expect_error(ggplot2::autoplot(ru, type = "pie"), "`type`", class = "epimask_error_value")
  expect_error(epimask:::autoplot.ru_profile(data.frame()), "`object`",
               class = "epimask_error_type")
})

test_that("scheme labels are wrapped when they fit, turned vertical otherwise", {
  with_null_device({
    sam <- epimask:::scheme_axis_margin
    ax <- epimask:::lambda_axis(rep(NA, 6), "auto", "t", labels = cologne_table2$scheme)
    fit <- sam(ax)
    expect_false(fit$rotate)
    expect_match(fit$labels[2], "\n", fixed = TRUE)
    expect_identical(gsub("\n", " ", fit$labels, fixed = TRUE), cologne_table2$scheme)
    many <- epimask:::lambda_axis(rep(NA, 30), "auto", "t",
                                  labels = sprintf("Randomized scheme number %d", 1:30))
    expect_true(sam(many)$rotate)
  })
})

test_that("the palette is Okabe-Ito, one colour per series", {
  g <- epimask:::ru_groups(zhou_like_profile())
  expect_identical(levels(g), c("none", "ring", "exponential"))
  expect_identical(levels(epimask:::ru_groups(zhou_decision())),
                   c("no masking", "ring kernel", "exponential kernel"))
  pal <- epimask:::ru_palette(levels(g))
  expect_identical(unname(pal), c("#0072B2", "#D55E00", "#009E73"))
  expect_identical(unname(epimask:::ru_palette("a", col = "red")), "red")
  expect_identical(levels(epimask:::ru_groups(data.frame(x = 1:2))), "all schemes")
})

# ---- snapshots ---------------------------------------------------------------

test_that("base plots match their snapshots", {
  skip_if_not_installed("vdiffr")
  fixtures <- list(zhou = zhou_decision(), cologne = cologne_decision(),
                   adult = adult_profile())
  for (name in names(fixtures)) {
    for (type in plot_types) {
      ru <- fixtures[[name]]
      vdiffr::expect_doppelganger(sprintf("base %s %s", type, name),
                                  function() plot(ru, type = type))
    }
  }
  old <- strip_decision_columns(zhou_like_profile())
  vdiffr::expect_doppelganger("base tradeoff old profile", function() plot(old, "tradeoff"))
  vdiffr::expect_doppelganger("base estimate old profile", function() plot(old, "estimate"))
  adult <- adult_profile()
  vdiffr::expect_doppelganger("base ru forced curve",
                              function() plot(adult, curve = TRUE, log = ""))
})

test_that("ggplot2 plots match their snapshots", {
  skip_if_not_installed("vdiffr")
  # the snapshots were drawn by ggplot2 4.0 (one merged legend); 3.x lays the
  # legend out differently, so they would fail on layout, not on content.
  # Announced first, so that a skip does not delete them.
  gg_names <- c(outer(plot_types, c("zhou", "cologne"), function(t, f) paste("gg", t, f)),
                "gg ru adult", "gg mse old profile")
  for (nm in gg_names) announce_snapshot_file(name = paste0(gsub(" ", "-", nm), ".svg"))
  skip_if_not_installed("ggplot2", "4.0.0")
  skip_if_not_installed("ggrepel")      # the labels are laid out by ggrepel
  fixtures <- list(zhou = zhou_decision(), cologne = cologne_decision())
  for (name in names(fixtures)) {
    for (type in plot_types) {
      p <- ggplot2::autoplot(fixtures[[name]], type = type)
      expect_s3_class(p, "ggplot")
      vdiffr::expect_doppelganger(sprintf("gg %s %s", type, name), p)
    }
  }
  vdiffr::expect_doppelganger("gg ru adult", ggplot2::autoplot(adult_profile()))
  vdiffr::expect_doppelganger("gg mse old profile",
                              ggplot2::autoplot(strip_decision_columns(zhou_like_profile()),
                                                "mse"))
})

test_that("a zoom labels only the points inside the plot region", {
  # the label of a point clipped by xlim / ylim used to be drawn in the margin
  # (xpd = NA): the getting-started vignette's zoom showed "none" under the axis
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, 1), ylim = c(0, 1))
  usr <- graphics::par("usr")
  place <- epimask:::base_point_labels(c(0.5, 0.2, 1.5, 0.5), c(0.5, 0.8, 0.5, -3),
                                       c("in", "in too", "right of it", "below it"), 0.8)
  expect_length(place$x, 2L)
  # each placed label beside its own (inside) point: within a few label widths
  px <- graphics::grconvertX(place$x, "inches", "user")
  py <- graphics::grconvertY(place$y, "inches", "user")
  expect_true(all(px > usr[1] & px < usr[2] & py > usr[3] & py < usr[4]))
  expect_null(epimask:::base_point_labels(2, 2, "out", 0.8))
})
