# Population uniqueness of a sample release (methods vignette section 21): the number of people
# in the population who are unique on the keys, estimated from the sample's
# class-size histogram by Pitman's model (maximum likelihood of the
# Ewens-Pitman partition), Zayatz's hypergeometric estimator, the SNB model
# (Chen & Keller-McNulty 1998) and Dankar et al.'s rule choosing among them.
# The estimators work on the histogram (a few hundred numbers); the classes
# come from the hashed counts in C (key_groups()).

#' A population model for sample releases
#'
#' `population_model()` names the sampling fraction of a release and the
#' estimator of population uniqueness, once, for [risk_population()],
#' [risk_spec()] (`"population"`), [risk_release()] and `ola()`.
#'
#' @param pi The sampling fraction: the release is a simple random sample of
#'   `pi` of the population (`0 < pi <= 1`; 1 is a census). The population
#'   size is taken as `N = round(n / pi)`.
#' @param model The estimator: `"dankar"` (Dankar et al.'s rule, default),
#'   `"pitman"`, `"zayatz"` or `"snb"`. See [risk_population()].
#' @param arx `FALSE` (default) uses the SNB equations as published; `TRUE`
#'   uses ARX's code as released (two operator-precedence slips in its
#'   `ModelSNB.java`), to reproduce ARX's figures.
#' @return An object of class `epimask_population_model`: `$pi`, `$model`,
#'   `$arx`.
#' @family risk measures
#' @examples
#' pm <- population_model(0.05)
#' pm
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' risk_population(d, c("city", "sex", "age10"), pm)
#' @export
population_model <- function(pi, model = c("dankar", "pitman", "zayatz", "snb"), arx = FALSE) {
  pi <- check_sampling_fraction(pi)
  if (identical(model, population_models)) model <- population_models[[1L]]
  model <- check_choice(model, population_models, arg = "model")
  arx <- check_flag(arx, "arx")
  structure(list(pi = pi, model = model, arx = arx), class = "epimask_population_model")
}

population_models <- c("dankar", "pitman", "zayatz", "snb")

check_sampling_fraction <- function(pi, arg = "pi") {
  if (!is.numeric(pi) || length(pi) != 1L || is.object(pi))
    abort_type(arg, "a single number, the sampling fraction")
  if (is.na(pi) || !is.finite(pi) || pi <= 0 || pi > 1)
    epimask_abort(sprintf("`%s` must be a sampling fraction in (0, 1], not %s.", arg, format(pi)),
                  c("epimask_error_fraction", "epimask_error_value"), arg = arg)
  as.double(pi)
}

#' @rdname population_model
#' @param x An `epimask_population_model`.
#' @param ... Unused.
#' @export
print.epimask_population_model <- function(x, ...) print_formatted(x)

#' @rdname population_model
#' @export
format.epimask_population_model <- function(x, ...) {
  sprintf("population model: sampling fraction %s, estimator %s%s", format(x$pi),
          x$model, if (isTRUE(x$arx)) " (ARX's SNB code)" else "")
}

#' Population uniqueness of a sample release
#'
#' A release that is a sample of `pi` of a population: how many people in the
#' population are unique on the `keys`? Sample uniques are not population
#' uniques (most of them have look-alikes outside the sample), so the count of
#' sample uniques overstates the risk of a small sample; the estimators below
#' infer the population's uniques from the sample's class-size histogram
#' (\eqn{c_j}, the number of classes of size \eqn{j}; \eqn{u} classes,
#' \eqn{n} records, \eqn{N = round(n / \pi)}, \eqn{q = n / N}).
#'
#' \describe{
#'   \item{`"pitman"`}{The Ewens-Pitman partition model with parameters
#'     \eqn{\theta \ge 0}, \eqn{\alpha < 1}, fitted by maximum likelihood
#'     (the likelihood summed directly, Newton's method with a line search
#'     from ARX's starting values, in the interior of the region
#'     \eqn{\theta + i\alpha > 0} for every \eqn{i < u}, so that a fitted
#'     \eqn{\alpha < 0} gives the interior root rather than a degenerate one);
#'     \eqn{U = \Gamma(\theta + 1) / \Gamma(\theta + \alpha) N^\alpha}.
#'     Assumes the population's partition is exchangeable (the sample is a
#'     simple random sample) and follows the two-parameter law; invalid when
#'     \eqn{\alpha = 0} or \eqn{U} falls outside \eqn{[0, N]}. When the
#'     likelihood increases towards \eqn{\theta = 0} (samples that are
#'     nearly all uniques) the maximum on that boundary is used (reason
#'     "on the boundary"); it overestimates. Dankar et al.
#'     found it the most accurate at small sampling fractions; it misleads
#'     when the keys' distribution is far from the Pitman law (a few very
#'     large classes beside many uniques).}
#'   \item{`"zayatz"`}{\eqn{U = c_1^2 / \sum_j c_j P_j}, \eqn{P_j} the
#'     hypergeometric probability that a population class of size \eqn{j} is
#'     seen once in the sample (Zayatz 1991). Assumes the population classes
#'     have the sizes seen in the sample, which holds only for large
#'     fractions; at small fractions it overestimates heavily (at \eqn{\pi =
#'     1} it returns \eqn{c_1}, exactly right).}
#'   \item{`"snb"`}{Population class sizes \eqn{1 + }NegBin(\eqn{\alpha,
#'     \beta}) (Chen & Keller-McNulty 1998); \eqn{\alpha, \beta} solve the
#'     moment equations of \eqn{c_1} and \eqn{c_2} with the number of
#'     population classes \eqn{K} estimated from the histogram; \eqn{U = K
#'     \beta^\alpha}. It converges when the equations have a root with
#'     \eqn{\alpha > 0}, \eqn{0 < \beta < 1} (found from a grid by Newton's
#'     method), else it is NA. Assumes one smooth law of class sizes; unstable
#'     at small fractions and undefined at \eqn{\pi = 1}.}
#'   \item{`"dankar"`}{Dankar et al. (2012)'s rule: 0 when there is no
#'     sample unique; at \eqn{q \le 0.1} Pitman (Zayatz if Pitman is invalid);
#'     above, the smaller of Zayatz and SNB when SNB converges, else Zayatz.}
#' }
#' All four are computed; `model` picks the one reported as `$uniques`. A
#' model that does not converge gives NA with the reason, and a warning of
#' class `epimask_warning_convergence` when it is the one asked for.
#'
#' ARX (arx-deidentifier/arx, `risk/ModelSNB.java`, since 2015) computes the
#' SNB estimate of \eqn{K} with `val2 * pow(1 + f, j) - 1` for `val2 * (pow(1
#' + f, j) - 1)` and multiplies by \eqn{(1 - D)^{\alpha + 2}} in the second
#' moment equation where the published equation divides. Its equations then
#' have no valid root on Adult and in the simulations (so its Dankar rule is
#' in practice Zayatz above \eqn{q = 0.1}, which overestimates). `arx = TRUE`
#' uses ARX's equations to reproduce its figures: on Adult with 9 keys ARX's
#' unit tests give 0.1446083531 at \eqn{\pi = 0.01} (Pitman), 0.2768499388
#' at 0.1 (Pitman), 0.3577099235 at 0.2 (Zayatz, SNB failing) and
#' 0.5142895033 at 1 (Zayatz); with the published SNB equations the figure at
#' 0.2 is the SNB estimate 0.3195. Pitman and Zayatz agree with ARX wherever
#' ARX's Newton reaches the interior root.
#'
#' Every estimator assumes a simple random sample of the population and that
#' the intruder's population register carries the same keys coded the same
#' way; with a stratified or clustered design (see [risk_loglinear()] with
#' weights) or a fraction that is only guessed, treat the figure as rough.
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the quasi-identifier columns (`NA` is a
#'   category of its own).
#' @param pi The sampling fraction in (0, 1], or a [population_model()]
#'   (whose `model` and `arx` then apply).
#' @param model,arx As in [population_model()].
#' @param compare `TRUE` (default) fits every model for the table of
#'   `$estimates`; `FALSE` only those the answer needs (the others are NA,
#'   "not computed").
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records: classes and uniques are counted in
#'   persons, a person's key being the set of their records' key tuples (as
#'   in [risk_kanon()]), and `pi` is the sampling fraction of persons.
#' @return An object of class `epimask_population`: `uniques` (the estimated
#'   number of population uniques by `model`), `share` (`uniques / N`),
#'   `model`, `used` (the model the Dankar rule picked, else `model`),
#'   `converged`, `reason`, `estimates` (a data frame: `model`, `uniques`,
#'   `share`, `converged`, `reason`, one row per model), `params` (Pitman's
#'   `theta`, `alpha`; SNB's `alpha`, `beta`, `K`), `histogram` (`size`,
#'   `count`), and `n`, `N`, `pi`, `q`, `classes`, `sample_uniques`, `keys`,
#'   `arx`. With `id`, the unit is the person: `n`, `N`, the classes and the
#'   uniques count persons, and `unit` is `"persons"` with `id`,
#'   `n_persons`, `n_records`.
#' @references Pitman J (1996). Some developments of the Blackwell-MacQueen
#'   urn scheme. Zayatz LV (1991). Estimation of the percent of unique
#'   population elements on a microdata file using the sample. US Census
#'   Bureau SRD Report 91/08. Chen G, Keller-McNulty S (1998). Estimation of
#'   identification disclosure risk in microdata. J Off Stat 14(1):79-95.
#'   Dankar FK, El Emam K, Neisa A, Roffey T (2012). Estimating the
#'   re-identification risk of clinical data sets. BMC Med Inform Decis Mak
#'   12:66. Prasser F, Kohlmayer F et al., ARX (risk/ModelPitman.java,
#'   ModelZayatz.java, ModelSNB.java).
#' @family risk measures
#' @seealso [risk_individual()] for per-record risks with sampling weights,
#'   [risk_loglinear()] for the model-based risk of Skinner & Shlomo.
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' r <- risk_population(d, c("city", "sex", "age10"), pi = 0.05)
#' r
#' summary(r)
#' as.data.frame(r)
#' @export
risk_population <- function(data, keys, pi, model = c("dankar", "pitman", "zayatz", "snb"),
                            arx = FALSE, compare = TRUE, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  id <- check_person_id(id, data, exclude = keys)
  if (!is.null(id)) {
    # persons are the unit (methods vignette section 23): one row each
    p <- person_frame(data, keys, id)
    res <- risk_population(p$data, keys, pi, model = model, arx = arx, compare = compare)
    return(person_result(res, p))
  }
  if (inherits(pi, "epimask_population_model")) {
    spec <- pi
  } else {
    spec <- population_model(pi, model, arx)
  }
  ec <- key_groups(data, keys)
  hist <- class_histogram(ec$size)
  compare <- check_flag(compare, "compare")
  out <- population_uniques(hist$size, hist$count, spec$pi, spec$model, spec$arx, compare = compare)
  out$keys <- keys
  out
}

class_histogram <- function(size) {
  tab <- tabulate(size)
  j <- which(tab > 0L)
  list(size = as.double(j), count = as.double(tab[j]))
}

# All four estimates from a histogram (size j, count c_j).
population_uniques <- function(j, cj, pi, model = "dankar", arx = FALSE, warn = TRUE,
                               compare = TRUE) {
  n <- sum(j * cj)
  N <- round(n / pi)
  q <- n / N
  u <- sum(cj)
  c1 <- sum(cj[j == 1])
  c2 <- sum(cj[j == 2])
  est <- list()
  params <- list()
  if (c1 == 0) {
    zero <- list(uniques = 0, converged = TRUE, reason = "no sample uniques")
    est <- list(pitman = zero, zayatz = zero, snb = zero, dankar = zero)
    used <- "none"
  } else {
    # with compare = FALSE only the models the answer needs are fitted
    need <- if (compare) population_models[-1L] else switch(model,
      dankar = if (q <= 0.1) c("pitman", "zayatz") else c("zayatz", "snb"), model)
    skipped <- list(uniques = NA_real_, converged = FALSE, reason = "not computed (compare = FALSE)",
                    theta = NA_real_, alpha = NA_real_, beta = NA_real_, K = NA_real_)
    pit <- if ("pitman" %in% need) pitman_fit(j, cj, n, u, N) else skipped
    if ("pitman" %in% need) params$pitman <- c(theta = pit$theta, alpha = pit$alpha)
    zay <- if ("zayatz" %in% need) zayatz_estimate(j, cj, n, N, c1) else skipped[1:3]
    snb <- if ("snb" %in% need) snb_fit(j, cj, q, u, c1, c2, arx) else skipped
    if ("snb" %in% need) params$snb <- c(alpha = snb$alpha, beta = snb$beta, K = snb$K)
    est <- list(pitman = pit[c("uniques", "converged", "reason")],
                zayatz = zay, snb = snb[c("uniques", "converged", "reason")])
    if (q <= 0.1) {
      if (pit$converged) {
        used <- "pitman"
      } else {
        used <- "zayatz"
      }
    } else if (snb$converged && zay$converged) {
      used <- if (zay$uniques < snb$uniques) "zayatz" else "snb"
    } else {
      used <- "zayatz"
    }
    if (compare || model == "dankar") {
      d <- est[[used]]
      est$dankar <- list(uniques = d$uniques, converged = d$converged,
                         reason = if (d$converged) sprintf("rule picked %s", used) else d$reason)
    } else {
      est$dankar <- skipped[1:3]
    }
  }
  tab <- data.frame(model = population_models,
                    uniques = vapply(population_models, function(m) est[[m]]$uniques, 1),
                    converged = vapply(population_models, function(m) est[[m]]$converged, TRUE),
                    reason = vapply(population_models, function(m) est[[m]]$reason, ""),
                    stringsAsFactors = FALSE)
  tab$share <- tab$uniques / N
  tab <- tab[c("model", "uniques", "share", "converged", "reason")]
  rownames(tab) <- NULL
  pick <- est[[model]]
  if (!pick$converged && warn)
    epimask_warn(sprintf("The %s estimate of population uniqueness is NA: %s.", model, pick$reason),
                 "epimask_warning_convergence")
  structure(list(
    uniques = pick$uniques, share = pick$uniques / N, model = model,
    used = if (model == "dankar") used else model, converged = pick$converged,
    reason = pick$reason, estimates = tab, params = params,
    histogram = data.frame(size = j, count = cj),
    n = n, N = N, pi = pi, q = q, classes = u, sample_uniques = c1, arx = arx
  ), class = "epimask_population")
}

# --- Zayatz -----------------------------------------------------------------

zayatz_estimate <- function(j, cj, n, N, c1) {
  P <- stats::dhyper(1, j, N - j, n)
  den <- sum(cj * P)
  U <- c1^2 / den
  if (!is.finite(U) || U < 0 || U > N)
    return(list(uniques = NA_real_, converged = FALSE,
                reason = "the hypergeometric probabilities underflow"))
  list(uniques = U, converged = TRUE, reason = "closed form")
}

# --- Pitman -----------------------------------------------------------------

# Log-likelihood, gradient and Hessian of the Ewens-Pitman model, by direct
# sums (the digamma closed forms lose digits when theta / alpha is large).
pitman_terms <- function(j, cj, n, u) {
  big <- j > 1
  l <- sequence(j[big] - 1)
  w <- rep(cj[big], j[big] - 1)
  list(i = seq_len(u - 1), m = seq_len(n - 1), l = l, w = w)
}

pitman_loglik <- function(p, tt) {
  s <- p[[1L]] + tt$i * p[[2L]]
  if (any(s <= 0) || p[[2L]] >= 1) return(-Inf)
  sum(log(s)) - sum(log(p[[1L]] + tt$m)) + sum(tt$w * log(tt$l - p[[2L]]))
}

pitman_derivs <- function(p, tt) {
  t <- p[[1L]]; a <- p[[2L]]
  s <- t + tt$i * a
  s2 <- s^2
  tm2 <- (t + tt$m)^2
  la <- tt$l - a
  g <- c(sum(1 / s) - sum(1 / (t + tt$m)), sum(tt$i / s) - sum(tt$w / la))
  h12 <- -sum(tt$i / s2)
  H <- matrix(c(-sum(1 / s2) + sum(1 / tm2), h12, h12, -sum(tt$i^2 / s2) - sum(tt$w / la^2)), 2L)
  list(g = g, H = H)
}

pitman_in_domain <- function(p, u) {
  t <- p[[1L]]; a <- p[[2L]]
  is.finite(t) && is.finite(a) && a < 1 && t >= 0 && t + a > 0 && t + (u - 1) * a > 0
}

pitman_fit <- function(j, cj, n, u, N) {
  fail <- function(reason, p = c(NA_real_, NA_real_))
    list(uniques = NA_real_, converged = FALSE, reason = reason, theta = p[[1L]], alpha = p[[2L]])
  if (u < 2) return(fail("fewer than two classes"))
  if (n < 3) return(fail("fewer than three records"))
  if (all(j == 1)) return(fail("every record is a sample unique (the likelihood has no maximum)"))
  tt <- pitman_terms(j, cj, n, u)
  c1 <- sum(cj[j == 1]); c2 <- sum(cj[j == 2])
  # 1. Newton from ARX's starting values (moment-type estimates)
  c2s <- if (c2 != 0) c2 else 1
  cc <- c1 * (c1 - 1) / c2s
  t0 <- (n * u * cc - c1 * (n - 1) * (2 * u + cc)) / (2 * c1 * u + c1 * cc - n * cc)
  a0 <- (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
  p <- c(t0, a0)
  st <- if (pitman_in_domain(p, u) && is.finite(pitman_loglik(p, tt))) pitman_newton(p, tt, u) else NULL
  # 2. else the profile likelihood over alpha (fast closed forms), polished
  if (is.null(st) || !st$stationary) {
    pr <- pitman_profile(j, cj, n, u)
    if (is.null(pr)) return(fail("the likelihood could not be evaluated", st$p %||% p))
    if (pr$at_bound)
      return(fail(paste("no finite maximum: the likelihood increases as alpha -> -Inf (the sample",
                        "looks like uniform draws from a finite table, as when nearly every record",
                        "is a sample unique)"), pr$p))
    st2 <- pitman_newton(pr$p, tt, u)
    if (is.null(st) || st2$L >= st$L) st <- st2
  }
  p <- st$p
  d <- pitman_derivs(p, tt)
  ev <- eigen(d$H, symmetric = TRUE, only.values = TRUE)$values
  boundary <- FALSE
  if (!st$stationary && p[[1L]] < 1e-6 && d$g[[1L]] < 0) {
    # the maximum is on the boundary theta = 0: there dL/dalpha = (u - 1) /
    # alpha - sum w / (l - alpha) decreases strictly from +Inf, one root
    da <- function(a) (u - 1) / a - sum(tt$w / (tt$l - a))
    hi <- 1 - 1e-12
    if (da(hi) < 0) {
      a <- stats::uniroot(da, c(1e-12, hi), tol = 1e-14)$root
      p <- c(0, a)
      d <- pitman_derivs(p, tt)
      boundary <- d$g[[1L]] <= 0 && d$H[2L, 2L] < 0
      ev <- d$H[2L, 2L]
    }
  }
  if (!st$stationary && !boundary)
    return(fail("Newton's method found no stationary point of the likelihood", p))
  if (any(ev >= 0)) return(fail("the stationary point is not a maximum", p))
  if (p[[2L]] == 0) return(fail("alpha = 0 (the estimator is undefined)", p))
  U <- exp(lgamma(p[[1L]] + 1) - lgamma(p[[1L]] + p[[2L]]) + p[[2L]] * log(N))
  if (!is.finite(U) || U < 0 || U > N)
    return(fail("the estimate falls outside [0, N]", p))
  list(uniques = U, converged = TRUE,
       reason = if (boundary) "maximum likelihood on the boundary theta = 0" else "maximum likelihood",
       theta = p[[1L]], alpha = p[[2L]])
}

# Newton's method with a backtracking line search on the likelihood (direct
# sums), inside the domain; a scaled gradient step where the surface is not
# concave. Returns the last point, its likelihood and whether the gradient
# vanishes there (relative to the size of its terms).
pitman_newton <- function(p, tt, u, max_iter = 100L) {
  L <- pitman_loglik(p, tt)
  for (iter in seq_len(max_iter)) {
    d <- pitman_derivs(p, tt)
    step <- tryCatch(solve(d$H, d$g), error = function(e) NULL)
    ev <- eigen(d$H, symmetric = TRUE, only.values = TRUE)$values
    if (is.null(step) || any(!is.finite(step)) || any(ev >= 0))
      step <- -d$g / pmax(abs(diag(d$H)), 1e-12)
    moved <- FALSE
    for (half in 0:40) {
      cand <- p - step / 2^half
      if (pitman_in_domain(cand, u)) {
        Lc <- pitman_loglik(cand, tt)
        if (is.finite(Lc) && Lc >= L - 1e-12 * abs(L)) {
          moved <- TRUE
          break
        }
      }
    }
    if (!moved) break
    rel <- max(abs(cand - p) / pmax(abs(p), 1))
    p <- cand
    L <- Lc
    if (rel < 1e-12) break
  }
  d <- pitman_derivs(p, tt)
  scale <- c(sum(1 / (p[[1L]] + tt$m)), sum(tt$i / (p[[1L]] + tt$i * p[[2L]])))
  list(p = p, L = L, stationary = all(abs(d$g) <= 1e-8 * pmax(scale, 1)))
}

# The log-likelihood by closed forms (lgamma differences, O(number of
# distinct class sizes)), for the search; Newton then polishes on the direct
# sums. theta = theta_min(alpha) + exp(r).
pitman_loglik_fast <- function(theta, alpha, j, cj, n, u) {
  if (alpha > 0) {
    x <- theta / alpha
    A <- if (x < 1e7) (u - 1) * log(alpha) + lgamma(x + u) - lgamma(x + 1)
         else (u - 1) * log(theta) + sum(log1p(seq_len(u - 1) / x))
  } else if (alpha < 0) {
    m <- theta / -alpha
    if (m <= u - 1) return(-Inf)
    A <- (u - 1) * log(-alpha) + lgamma(m) - lgamma(m - u + 1)
  } else {
    A <- (u - 1) * log(theta)
  }
  B <- lgamma(theta + n) - lgamma(theta + 1)
  C <- sum(cj * (lgamma(j - alpha) - lgamma(1 - alpha)))
  A - B + C
}

pitman_profile <- function(j, cj, n, u) {
  theta_min <- function(a) if (a < 0) -(u - 1) * a else 0
  inner <- function(a) {
    tm <- theta_min(a)
    f <- function(r) pitman_loglik_fast(tm + exp(r), a, j, cj, n, u)
    lo <- if (tm > 0) log(tm) - 40 else -30
    o <- stats::optimize(f, c(lo, log(tm + 1e12)), maximum = TRUE, tol = 1e-10)
    list(theta = tm + exp(o$maximum), L = o$objective)
  }
  # alpha = 1 - exp(s): s in (log 1e-8, log(1 + 1e5))
  s_grid <- seq(log(1e-8), log(1 + 1e5), length.out = 60L)
  Ls <- vapply(s_grid, function(s) inner(1 - exp(s))$L, 1)
  if (!any(is.finite(Ls))) return(NULL)
  k <- which.max(Ls)
  if (k == length(s_grid)) {
    a <- 1 - exp(s_grid[[k]])
    return(list(p = c(inner(a)$theta, a), at_bound = TRUE))
  }
  br <- s_grid[c(max(1L, k - 1L), min(length(s_grid), k + 1L))]
  o <- stats::optimize(function(s) inner(1 - exp(s))$L, br, maximum = TRUE, tol = 1e-10)
  a <- 1 - exp(o$maximum)
  list(p = c(inner(a)$theta, a), at_bound = FALSE)
}

# --- SNB --------------------------------------------------------------------

snb_K <- function(j, cj, q, u, c1, arx = FALSE) {
  v1 <- sum(j * q^2 * (1 - q^2)^(j - 1) * cj)
  # ARX: var2 += val2 * pow(1 + f, j) - 1 (the - 1 outside the weight)
  v2 <- if (arx) sum((1 - q)^j * cj * (1 + q)^j - 1) else sum((1 - q)^j * ((1 + q)^j - 1) * cj)
  v3 <- sum((1 - q)^j * cj)
  v4 <- sum(j * q * (1 - q)^(j - 1) * cj)
  u + c1 * (v1 / v2) * (v3 / v4)^2
}

# Relative residuals E c1 / c1 - 1, E c2 / c2 - 1 (vectorised over a, b).
snb_resid <- function(a, b, K, q, c1, c2, arx = FALSE) {
  D <- (1 - q) * (1 - b)
  e1 <- K * q * (b / (1 - D))^a * (1 + a * D / (1 - D))
  e2 <- if (arx) {
    # ARX multiplies by (1 - D)^(alpha + 2) where the equation divides
    K * a * b^a * q^2 * (1 - b) / 2 * (1 - D)^(a + 2) * (2 - (1 - a) * D)
  } else {
    K * q^2 * a * b^a * (1 - b) * (2 - (1 - a) * D) / (2 * (1 - D)^(a + 2))
  }
  cbind(e1 / c1 - 1, e2 / c2 - 1)
}

# Roots of the moment equations in alpha > 0, 0 < beta < 1: a grid over
# (log alpha, logit beta), then Newton (numerical Jacobian, backtracking) from
# the best grid points.
snb_fit <- function(j, cj, q, u, c1, c2, arx = FALSE) {
  fail <- function(reason, K = NA_real_)
    list(uniques = NA_real_, converged = FALSE, reason = reason, alpha = NA_real_,
         beta = NA_real_, K = K, roots = 0L)
  if (q >= 1) return(fail("undefined for a census (sampling fraction 1)"))
  if (c2 == 0) return(fail("no classes of size 2 (c2 = 0)"))
  K <- snb_K(j, cj, q, u, c1, arx)
  if (!is.finite(K) || K <= 0) return(fail("the estimated number of population classes is not finite", K))
  F <- function(x) snb_resid(exp(x[[1L]]), stats::plogis(x[[2L]]), K, q, c1, c2, arx)[1L, ]
  la <- seq(-8, 6, length.out = 57)
  lb <- seq(-15, 15, length.out = 61)
  g <- expand.grid(la = la, lb = lb)
  r <- snb_resid(exp(g$la), stats::plogis(g$lb), K, q, c1, c2, arx)
  obj <- rowSums(r^2)
  obj[!is.finite(obj)] <- Inf
  starts <- order(obj)[seq_len(min(8L, sum(is.finite(obj))))]
  roots <- NULL
  for (s in starts) {
    x <- c(g$la[[s]], g$lb[[s]])
    fx <- F(x)
    ok <- FALSE
    for (iter in 1:100) {
      if (!all(is.finite(fx))) break
      if (max(abs(fx)) < 1e-12) { ok <- TRUE; break }
      h <- 1e-7 * pmax(abs(x), 1)
      J <- cbind((F(x + c(h[1L], 0)) - F(x - c(h[1L], 0))) / (2 * h[1L]),
                 (F(x + c(0, h[2L])) - F(x - c(0, h[2L]))) / (2 * h[2L]))
      step <- tryCatch(solve(J, fx), error = function(e) NULL)
      if (is.null(step) || any(!is.finite(step))) break
      moved <- FALSE
      for (half in 0:40) {
        xn <- x - step / 2^half
        fn <- F(xn)
        if (all(is.finite(fn)) && sum(fn^2) < sum(fx^2)) { moved <- TRUE; break }
      }
      if (!moved) break
      x <- xn
      fx <- fn
    }
    if (!ok && all(is.finite(fx)) && max(abs(fx)) < 1e-9) ok <- TRUE
    if (ok) roots <- rbind(roots, c(exp(x[[1L]]), stats::plogis(x[[2L]]), max(abs(fx))))
  }
  if (is.null(roots))
    return(fail("the moment equations have no root with alpha > 0 and 0 < beta < 1", K))
  roots <- roots[roots[, 1L] > 0 & roots[, 2L] > 0 & roots[, 2L] < 1, , drop = FALSE]
  if (!nrow(roots))
    return(fail("the moment equations have no root with alpha > 0 and 0 < beta < 1", K))
  # distinct roots (Newton from several grid points lands on the same one)
  key <- paste(signif(roots[, 1L], 6), signif(roots[, 2L], 6))
  roots <- roots[!duplicated(key), , drop = FALSE]
  best <- roots[which.min(roots[, 3L]), ]
  U <- K * best[[2L]]^best[[1L]]
  reason <- if (nrow(roots) > 1L)
    sprintf("moment equations (%d roots; the one with the smallest residual)", nrow(roots))
  else "moment equations"
  list(uniques = U, converged = TRUE, reason = reason, alpha = best[[1L]], beta = best[[2L]],
       K = K, roots = nrow(roots))
}

# --- methods ----------------------------------------------------------------

#' @rdname risk_population
#' @param x,object An `epimask_population` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` adds the class-size histogram and the fitted
#'   parameters; `plot()` draws the share of population uniques by each model
#'   beside the share of sample uniques.
#' @export
print.epimask_population <- function(x, digits = 4, ...) print_formatted(x, digits = digits)

#' @rdname risk_population
#' @export
format.epimask_population <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)
  fmt <- function(v) ifelse(is.na(v), "NA", format(signif(v, digits)))
  # numbers of uniques as whole numbers: an estimate at pi = 1 equal to the
  # sample uniques prints as that count, not rounded to `digits`
  count <- function(v) ifelse(is.na(v), "NA", formatC(round(v), format = "d", big.mark = ","))
  head <- sprintf("population uniqueness: %s, keys %s", unit_count(x),
                  paste(x$keys %||% "?", collapse = ", "))
  frac <- sprintf("  sampling fraction %s (population N = %s)%s", format(x$pi), format(x$N),
                  if (isTRUE(x$arx)) "; ARX's SNB code" else "")
  samp <- sprintf("  sample: %s classes, %s sample uniques (%s of %s)", format(x$classes),
                  format(x$sample_uniques), fmt(x$sample_uniques / x$n), unit_name(x))
  pick <- sprintf("  %s%s: %s population uniques, share %s%s", x$model,
                  if (x$model == "dankar" && x$used != "none") sprintf(" (rule picked %s)", x$used) else "",
                  count(x$uniques), fmt(x$share),
                  if (!isTRUE(x$converged)) sprintf(" [%s]", x$reason) else "")
  e <- x$estimates
  rows <- sub(" +$", "", sprintf("    %-7s %12s  %-10s %s", e$model, count(e$uniques), fmt(e$share),
                                 ifelse(e$converged, "", paste("NA:", e$reason))))
  c(head, frac, samp, pick, "  every model:", rows)
}

#' @rdname risk_population
#' @export
summary.epimask_population <- function(object, ...) {
  structure(list(population = object, histogram = object$histogram, params = object$params),
            class = "summary.epimask_population")
}

#' @rdname risk_population
#' @export
format.summary.epimask_population <- function(x, digits = 4, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$population, digits = digits)
    h <- x$histogram
    print_titled_table("Class-size histogram (size j, number of classes c_j), first rows:",
                       utils::head(h, 10L), digits)
    if (length(x$params)) {
      cat("\nFitted parameters:\n")
      for (m in names(x$params))
        cat(sprintf("  %s: %s\n", m, paste(names(x$params[[m]]),
                                            vapply(x$params[[m]], function(v) format(signif(v, digits)), ""),
                                            sep = " = ", collapse = ", ")))
    }
  })
}

#' @export
print.summary.epimask_population <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_population
#' @param row.names,optional As in [as.data.frame()].
#' @export
as.data.frame.epimask_population <- function(x, row.names = NULL, optional = FALSE, ...) {
  apply_row_names(x$estimates, row.names, optional)
}

#' @rdname risk_population
#' @param y Unused.
#' @export
plot.epimask_population <- function(x, y = NULL, ...) {
  e <- x$estimates
  vals <- c(sample = x$sample_uniques / x$n, stats::setNames(e$share, e$model))
  cols <- c("grey80", ifelse(e$model == x$model, "grey30", "grey60"))
  graphics::barplot(vals, col = cols, ylim = c(0, max(c(vals, 1e-12), na.rm = TRUE) * 1.15),
                    ylab = "share unique", main = sprintf("Population uniqueness at pi = %s", format(x$pi)),
                    ...)
  graphics::mtext("sample: share of records that are sample unique; models: population uniques / N",
                  side = 3, line = 0.2, cex = 0.75)
  invisible(x)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_population
#' @export
tidy.epimask_population <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance epimask_population
#' @export
glance.epimask_population <- function(x, ...) {
  data.frame(model = x$model, used = x$used, uniques = x$uniques, share = x$share,
             converged = x$converged, n = x$n, N = x$N, pi = x$pi,
             sample_uniques = x$sample_uniques, stringsAsFactors = FALSE)
}
