# A base plot against its vdiffr snapshot (_snaps/<test file>/<title>.svg);
# where vdiffr is missing (as on CRAN), the plot is at least drawn silently.
expect_plot_snapshot <- function(title, draw) {
  if (requireNamespace("vdiffr", quietly = TRUE)) return(vdiffr::expect_doppelganger(title, draw))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(draw())
}
