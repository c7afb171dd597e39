# `make demo`: until the risk-utility profile exists, this shows the GLM core.
# It simulates a cohort, fits logistic and Poisson models with epimask's C
# IRLS (irls_fit, fit_glm) and with glm(), prints the agreement and the
# timings, and writes a plot of the coefficient agreement to demo/.
library(epimask)

set.seed(20240601)
n <- 200000
cohort <- data.frame(
  age = round(stats::runif(n, 20, 80)),
  sex = factor(sample(c("female", "male"), n, replace = TRUE)),
  dose = stats::rexp(n, 1 / 0.2),
  smoker = stats::rbinom(n, 1, 0.3),
  pyears = stats::runif(n, 1, 20)
)
lin <- with(cohort, -4 + 0.03 * (age - 50) + 0.2 * (sex == "male") + 0.5 * dose + 0.6 * smoker)
cohort$case <- stats::rbinom(n, 1, stats::plogis(lin))
cohort$deaths <- stats::rpois(n, cohort$pyears * exp(lin - 1))

timed <- function(expr) {
  t <- system.time(val <- expr)[["elapsed"]]
  list(value = val, seconds = t)
}

cat(sprintf("Simulated cohort: %d people, %d cases, %d deaths\n\n", n,
            sum(cohort$case), sum(cohort$deaths)))

models <- list(
  logistic = list(formula = case ~ age + sex + dose + smoker, family = quote(binomial()),
                  offset = NULL),
  poisson = list(formula = deaths ~ age + sex + dose + smoker, family = quote(poisson()),
                 offset = quote(log(pyears)))
)

agreement <- list()
for (name in names(models)) {
  m <- models[[name]]
  ours <- timed(eval(bquote(fit_glm(.(m$formula), cohort, .(m$family), offset = .(m$offset)))))
  ref <- timed(eval(bquote(stats::glm(.(m$formula), .(m$family), cohort, offset = .(m$offset)))))
  x <- stats::model.matrix(ref$value)
  off <- if (is.null(m$offset)) NULL else log(cohort$pyears)
  core <- timed(irls_fit(x, cohort[[all.vars(m$formula)[1]]], eval(m$family), offset = off))
  ref_se <- sqrt(diag(stats::vcov(ref$value)))
  cat(sprintf("== %s regression (%s)\n", name, deparse(m$formula)))
  print(summary(ours$value))
  cat(sprintf("glm(): %.2f s   fit_glm(): %.2f s   irls_fit() on the design: %.2f s\n",
              ref$seconds, ours$seconds, core$seconds))
  cat(sprintf("largest relative difference from glm(): coefficients %.1e, SEs %.1e, deviance %.1e\n\n",
              max(abs(coef(ours$value) / stats::coef(ref$value) - 1)),
              max(abs(ours$value$se / ref_se - 1)),
              abs(deviance(ours$value) / stats::deviance(ref$value) - 1)))
  agreement[[name]] <- data.frame(model = name, term = names(ref_se),
                                  glm = stats::coef(ref$value), epimask = coef(ours$value),
                                  se = ref_se)
}

dir.create("demo", showWarnings = FALSE)
out <- file.path("demo", "irls-agreement.png")
grDevices::png(out, width = 1000, height = 500, res = 110)
op <- graphics::par(mfrow = c(1, 2), mar = c(6, 7, 3, 1))
for (a in agreement) {
  a <- a[a$term != "(Intercept)", ]
  k <- nrow(a)
  lo <- a$glm - 1.96 * a$se
  hi <- a$glm + 1.96 * a$se
  graphics::plot(a$glm, seq_len(k), xlim = range(lo, hi), yaxt = "n", pch = 1, cex = 1.6,
                 xlab = "estimate (95% Wald interval from glm)", ylab = "",
                 main = sprintf("%s regression", a$model[1]),
                 sub = "circles: glm(); dots: epimask fit_glm()")
  graphics::segments(lo, seq_len(k), hi, seq_len(k), col = "grey50")
  graphics::points(a$epimask, seq_len(k), pch = 19, cex = 0.7, col = "firebrick")
  graphics::axis(2, at = seq_len(k), labels = a$term, las = 1)
  graphics::abline(v = 0, lty = 3)
}
graphics::par(op)
invisible(grDevices::dev.off())
cat(sprintf("Wrote %s\n", normalizePath(out)))
