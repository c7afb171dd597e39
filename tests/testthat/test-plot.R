# Base-graphics and ggplot2 plots of a profile, and the layout helpers.

plot_types <- c("ru", "estimate", "mse", "risk", "tradeoff")

with_null_device <- function(code) {
  grDevices::pdf(NULL, width = 7, height = 5.25)
  on.exit(grDevices::dev.off())
  force(code)
}

test_that("every base plot type renders for both profiles and returns x invisibly", {
  profiles <- list(cologne = cologne_like_profile(), zhou = zhou_like_profile())
  for (ru in profiles) {
    for (type in plot_types) {
      with_null_device({
        mar <- par("mar")
        expect_invisible(res <- plot(ru, type = type, main = "title"))
        expect_identical(res, ru)
        expect_identical(par("mar"), mar)
      })
    }
  }
  with_null_device(expect_no_warning(plot(zhou_like_profile(), "estimate", log = "",
                                          labels = FALSE, legend = FALSE)))
  with_null_device(expect_no_warning(plot(zhou_like_profile(), "mse", log = "xy")))
  with_null_device(expect_no_warning(plot(cologne_like_profile(), "ru", xlim = c(0.9, 1),
                                          curve = FALSE)))
})

test_that("a PNG of the security-utility plot is written", {
  skip_if_not(capabilities("png"))
  path <- tempfile(fileext = ".png")
  grDevices::png(path, width = 700, height = 520)
  plot(zhou_like_profile())
  grDevices::dev.off()
  expect_gt(file.size(path), 5000)
})

test_that("plot arguments are checked with classed errors", {
  ru <- zhou_like_profile()
  with_null_device({
    expect_error(plot(ru, type = "pie"), "`type`", class = "epimask_error_value")
    expect_error(plot(ru, type = 1), "`type`", class = "epimask_error_type")
    expect_error(plot(ru, log = "z"), "`log`", class = "epimask_error_value")
    expect_error(plot(ru, labels = NA), class = "epimask_error_type")
    no_risk <- ru
    no_risk$risk <- no_risk$anonymity <- NA_real_
    expect_error(plot(no_risk, "tradeoff"), class = "epimask_error_value")
    expect_error(plot(no_risk, "ru"), "risk", class = "epimask_error_value")
    expect_error(plot(no_risk, "risk"), class = "epimask_error_value")
  })
})

test_that("the degree axis is logarithmic when lambda spans orders of magnitude", {
  da <- epimask:::degree_axis
  ax <- da(c(0, 0.001, 0.01, 1), letters[1:4])
  expect_identical(ax$kind, "log")
  expect_lt(ax$zero, 0.001)                       # lambda = 0 drawn left of the break
  expect_gt(ax$break_at, ax$zero)
  expect_lt(ax$break_at, 0.001)
  expect_identical(ax$labels[1], "0")
  expect_identical(da(c(0, 0.5, 1), letters[1:3])$kind, "linear")
  expect_identical(da(c(0.001, 1), letters[1:2], log = FALSE)$kind, "linear")
  expect_identical(da(c(0.1, 0.2), letters[1:2], log = TRUE)$kind, "log")
  sch <- da(c(0, NA, 1), c("none", "group", "round"))
  expect_identical(sch$kind, "scheme")
  expect_identical(sch$labels, c("none", "group", "round"))
})

test_that("greedy label placement keeps labels apart and inside the panel", {
  set.seed(4)
  n <- 12
  px <- runif(n, 1, 5)
  py <- runif(n, 1, 3)
  w <- rep(0.8, n)
  h <- rep(0.15, n)
  bounds <- c(0, 6, 0, 4)
  pos <- epimask:::place_labels(px, py, w, h, bounds)
  boxes <- cbind(pos$x - w / 2, pos$x + w / 2, pos$y - h / 2, pos$y + h / 2)
  expect_true(all(boxes[, 1] >= 0 & boxes[, 2] <= 6 & boxes[, 3] >= 0 & boxes[, 4] <= 4))
  pairs <- which(upper.tri(diag(n)), arr.ind = TRUE)
  overlap_x <- pmin(boxes[pairs[, 1], 2], boxes[pairs[, 2], 2]) -
    pmax(boxes[pairs[, 1], 1], boxes[pairs[, 2], 1])
  overlap_y <- pmin(boxes[pairs[, 1], 4], boxes[pairs[, 2], 4]) -
    pmax(boxes[pairs[, 1], 3], boxes[pairs[, 2], 3])
  expect_false(any(overlap_x > 0 & overlap_y > 0))
  # No label covers a point (radius 0.05).
  covers <- outer(seq_len(n), seq_len(n), function(i, k)
    px[k] + 0.05 > boxes[i, 1] & px[k] - 0.05 < boxes[i, 2] &
      py[k] + 0.05 > boxes[i, 3] & py[k] - 0.05 < boxes[i, 4])
  expect_false(any(covers))
  # Ten labels on one crowded point still get distinct places, with leaders.
  crowd <- epimask:::place_labels(rep(3, 10), rep(2, 10), rep(0.6, 10), rep(0.15, 10),
                                  bounds)
  expect_identical(anyDuplicated(paste(crowd$x, crowd$y)), 0L)
  expect_true(any(crowd$leader))
})

test_that("the palette is Okabe-Ito, one colour per kernel", {
  ru <- zhou_like_profile()
  g <- epimask:::ru_groups(ru)
  expect_identical(levels(g), c("none", "ring", "exponential"))
  pal <- epimask:::ru_palette(levels(g))
  expect_identical(unname(pal), c("#0072B2", "#D55E00", "#009E73"))
  expect_identical(unname(epimask:::ru_palette("a", col = "red")), "red")
  expect_identical(levels(epimask:::ru_groups(data.frame(x = 1:2))), "all schemes")
})

test_that("ru panel data clip U > 1 to 1 and mark it", {
  reps <- data.frame(scheme = c("over", "under"), replicate = 1, estimate = 1,
                     se = c(0.09, 0.2), risk = c(0.1, 0.01))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  pd <- epimask:::ru_panel_data(ru, "ru")
  expect_equal(pd$data$x, c(1, ru$analysis_potential[2]))
  expect_identical(pd$data$clipped, c(TRUE, FALSE))
  expect_match(pd$data$label[1], "^over \\(U = 1\\.23")
  est <- epimask:::ru_panel_data(zhou_like_profile(), "estimate")
  expect_identical(est$hlines$label, c("true value", "aggregated-data estimate"))
  expect_equal(est$hlines$y, c(2, 1.8))
})

test_that("autoplot gives a ggplot for every type", {
  skip_if_not_installed("ggplot2")
  cases <- list(list(zhou_like_profile(), plot_types),
                list(cologne_like_profile(), c("ru", "estimate")))
  for (case in cases) {
    for (type in case[[2]]) {
      p <- ggplot2::autoplot(case[[1]], type = type)
      expect_s3_class(p, "ggplot")
      expect_no_warning(ggplot2::ggplot_build(p))
    }
  }
  p <- ggplot2::autoplot(zhou_like_profile(), "ru")
  # Full rendering (slow) once.
  with_null_device({
    expect_s3_class(ggplot2::ggplotGrob(p), "gtable")
  })
  texts <- Filter(function(l) inherits(l$geom, "GeomText"), p$layers)
  expect_length(texts, 1L)
  expect_setequal(texts[[1]]$data$label, zhou_like_profile()$scheme)
  expect_true(any(vapply(p$layers, function(l) inherits(l$geom, "GeomLine"), TRUE)))
  expect_error(ggplot2::autoplot(zhou_like_profile(), type = "pie"), "`type`",
               class = "epimask_error_value")
  expect_error(epimask:::autoplot.ru_profile(data.frame()), "`object`",
               class = "epimask_error_type")
})

test_that("scheme labels are wrapped when they fit, turned vertical otherwise", {
  with_null_device({
    sam <- epimask:::scheme_axis_margin
    ax <- epimask:::degree_axis(rep(NA, 6), cologne_table2$scheme)
    fit <- sam(ax)
    expect_false(fit$rotate)
    expect_match(fit$labels[2], "\n", fixed = TRUE)
    expect_identical(gsub("\n", " ", fit$labels, fixed = TRUE), cologne_table2$scheme)
    many <- epimask:::degree_axis(rep(NA, 30), sprintf("Randomized scheme number %d", 1:30))
    expect_true(sam(many)$rotate)
    expect_false(sam(epimask:::degree_axis(c(0, 1), c("a", "b")))$rotate)
  })
})
