# Random number streams shared by every randomized computation (profiles,
# risk chunks): one L'Ecuyer-CMRG stream per independent task, derived in the
# main process, so serial and parallel runs on any future backend agree.

# k L'Ecuyer-CMRG streams (.Random.seed vectors, as parallel::nextRNGStream
# gives them), the first one after set.seed(seed). Without a seed, one draw of
# the caller's generator picks it; the caller's generator is otherwise left as
# it was.
rng_streams <- function(k, seed) {
  if (is.null(seed)) seed <- sample.int(.Machine$integer.max, 1L)
  with_saved_rng({
    set.seed(seed, kind = "L'Ecuyer-CMRG", normal.kind = "Inversion",
             sample.kind = "Rejection")
    s <- get(".Random.seed", envir = globalenv())
    out <- vector("list", k)
    for (i in seq_len(k)) {
      s <- parallel::nextRNGStream(s)
      out[[i]] <- s
    }
    out
  })
}

with_saved_rng <- function(expr) {
  genv <- globalenv()
  old <- get0(".Random.seed", envir = genv, inherits = FALSE)
  # with no .Random.seed to put back, the generator kinds are put back
  # instead: R keeps the kind set by set.seed(kind = ) in its own state, and a
  # later set.seed() of the caller would use L'Ecuyer-CMRG
  old_kind <- if (is.null(old)) RNGkind()
  on.exit({
    if (is.null(old)) {
      suppressWarnings(RNGkind(old_kind[[1L]], old_kind[[2L]], old_kind[[3L]]))
      if (exists(".Random.seed", envir = genv, inherits = FALSE))
        rm(".Random.seed", envir = genv)
    } else {
      assign(".Random.seed", old, envir = genv)
    }
  }, add = TRUE)
  expr
}

# Run expr with .Random.seed set to a stream (its first element carries the
# generator kinds), putting the caller's state back afterwards.
with_rng_stream <- function(stream, expr) {
  with_saved_rng({
    assign(".Random.seed", stream, envir = globalenv())
    expr
  })
}
