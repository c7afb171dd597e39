# The tolerances of the suite. A comparison uses one of these names, or a
# number with a comment saying why that value. "Measured" is the largest
# difference expect_equal() sees (mean relative difference) over the whole
# suite (R 4.2.2, x86-64); the margin above it absorbs other compilers, FMA
# contraction and BLAS/LAPACK builds, never a different answer.

# The same quantity computed twice by different arithmetic (a C loop and a
# plain-R reference, a closed form and its evaluation, sums in another
# order): only rounding differs. Measured <= 1e-15.
tol_exact <- 1e-12

# A fit against glm() / glm.fit() or a reference Newton solver, both iterated
# to convergence: IRLS and Newton converge quadratically, so the last step
# leaves ~1e-15 relative on coefficients, SEs and deviances; the worst
# measured is 1e-11 (a fitted value of the near-separated logistic fit in
# test-irls.R). 1e-10 is also the package's stated agreement with glm.
tol_glm <- 1e-10
