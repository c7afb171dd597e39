# Small spatial Poisson data for the ru_profile() tests: locations in the unit
# square around a point source, exposure decaying with distance.
profile_fixture <- function(n = 150, seed = 3) {
  set.seed(seed)
  s1 <- runif(n, -1, 1)
  s2 <- runif(n, -1, 1)
  x <- exp(-2 * sqrt(s1^2 + s2^2))
  data.frame(s1 = s1, s2 = s2, x = x, z = rnorm(n), y = rpois(n, exp(1 + 2 * x)))
}

# ru_profile() fits to convergence 1e-12 (so that warm starts do not move
# the naive SE); the reference glm() fit converges as tightly.
glm_term <- function(formula, data, family, term) {
  fit <- glm(formula, data = data, family = family,
             control = glm.control(epsilon = 1e-12, maxit = 50))
  c(estimate = unname(coef(fit)[term]),
    se = unname(sqrt(diag(vcov(fit)))[term]))
}
