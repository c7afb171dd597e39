# Fixtures and test-side references for the linear ERR model (test-err-model.R).
# Everything here is written from the model definition, independently of
# src/err.c: the explicit log-likelihood, a plain Newton iteration, and the
# profile deviance through glm() with offset log(1 + beta * dose).

# A cohort in the spirit of Cologne et al.: many unexposed, skewed doses up to
# 3 Gy, ERR 0.5 per Gy, sex and age effects, about 150 cases in 3000.
err_sim_cohort <- function(n = 3000, err = 0.5, b0 = -3.6, seed = 1) {
  set.seed(seed)
  sex <- rbinom(n, 1, 0.5)
  age <- round(runif(n, 0, 50))
  dose <- ifelse(runif(n) < 0.55, 0, pmin(rexp(n, 1.5), 3))
  dose[which.max(dose)] <- 3
  odds <- exp(b0 + 0.4 * sex + 0.015 * age) * (1 + err * dose)
  data.frame(case = rbinom(n, 1, odds / (1 + odds)), sex = sex, age = age,
             dose = dose)
}

# Minus the binomial log-likelihood (without the choose terms) at theta =
# (gamma, beta); Inf outside the admissible range.
err_ref_negll <- function(theta, z, d, y, m = 1, w = 1) {
  p <- ncol(z)
  u <- 1 + theta[p + 1] * d
  if (any(u <= 0)) return(Inf)
  eta <- drop(z %*% theta[seq_len(p)]) + log(u)
  -sum(w * (y * eta - m * log1p(exp(eta))))
}

# Score of the log-likelihood, written out from p = expit(eta), deta/dbeta = d / u.
err_ref_score <- function(theta, z, d, y, m = 1, w = 1) {
  p <- ncol(z)
  u <- 1 + theta[p + 1] * d
  pr <- plogis(drop(z %*% theta[seq_len(p)]) + log(u))
  colSums(cbind(z, d / u) * (w * (y - m * pr)))
}

# Plain Newton on the explicit log-likelihood (score and Hessian written out
# from p = expit(eta), deta/dbeta = d / u).
err_ref_newton <- function(theta, z, d, y, m = 1, w = 1, tol = 1e-13) {
  p <- ncol(z)
  for (it in 1:200) {
    u <- 1 + theta[p + 1] * d
    eta <- drop(z %*% theta[seq_len(p)]) + log(u)
    pr <- plogis(eta)
    x <- cbind(z, d / u)
    r <- w * (y - m * pr)
    score <- colSums(x * r)
    info <- crossprod(x * (w * m * pr * (1 - pr)), x)
    info[p + 1, p + 1] <- info[p + 1, p + 1] + sum(r * d^2 / u^2)
    step <- solve(info, score)
    theta <- theta + step
    if (max(abs(step)) < tol) break
  }
  theta
}

# Profile deviance at beta by glm (the log-linear part with an offset).
err_ref_profile <- function(beta, formula, data, dose, weights = NULL) {
  data$.err_offset <- log1p(beta * data[[dose]])
  f <- update(formula, . ~ . + offset(.err_offset))
  environment(f) <- environment()
  data$.w <- if (is.null(weights)) 1 else weights
  deviance(glm(f, binomial, data, weights = .w,
               control = glm.control(epsilon = 1e-14, maxit = 100)))
}
