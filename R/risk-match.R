# Record-matching disclosure risk of masked continuous data (methods vignette section 5):
# the matching probability of Zhou, Dominici and Louis (2010) after Reiter
# (2005). The O(n^2) pass over targets and candidates is in C
# (src/risk_match.c); the intruder's regression is fitted here.

#' Record-matching disclosure risk of masked data
#'
#' An intruder who knows the true values of the `known` variables for a
#' person (the target) looks for that person's record in the released masked
#' data, to learn the `unknown` variables (for example the health outcome).
#' `risk_match()` computes, for every target, the probability the intruder
#' gives each released record (Zhou, Dominici and Louis 2010, section 2.3,
#' after Reiter 2005; formulas in methods vignette, section 5) and counts how often
#' the most probable record(s) are the right one.
#'
#' For a target with true known values \eqn{t} and a candidate record \eqn{j}:
#' \itemize{
#'   \item each known variable \eqn{v} contributes
#'     \eqn{1 - |Z_{jv} - t_v| / \Delta_v(t)}, with
#'     \eqn{\Delta_v(t) = \max_j |Z_{jv} - t_v|} over the released records (the
#'     tail probability of a uniform distance);
#'   \item each unknown variable contributes
#'     \eqn{E[(1 - |Z_j - z| / \Delta)_+]} with \eqn{\Delta} the range of the
#'     released values and \eqn{z \sim N(\hat m(t), \hat\sigma^2)}, the
#'     prediction of a least-squares regression (with intercept) of the
#'     unknown on the known variables in the released data,
#'     \eqn{\hat\sigma^2 = RSS / (n - q)}, \eqn{q} the rank of the design.
#'     The expectation is computed in closed form (normal distribution and
#'     density functions), not by Monte Carlo.
#' }
#' With a uniform prior the matching probability is the product normalised
#' over the candidates. The intruder picks the record(s) with the largest
#' probability (ties within a relative \eqn{10^{-12}}): \eqn{c} is their number,
#' \eqn{I = 1} when the true record is among them.
#'
#' Conventions where the formulas are undefined: a factor whose candidates
#' are all at the same distance (\eqn{\Delta_v(t) = 0} included) or an unknown
#' variable whose released values are all equal carries no information and is
#' set to 1; a residual SD of 0 (exact fit) makes the predictive law a point
#' mass; known variables that are aliased in the regression (constant, or
#' collinear with others) are dropped from it; a target for which every
#' candidate has probability 0 leaves the intruder without preference, so all
#' \eqn{n} records tie.
#'
#' @section Methods and their cost:
#' All methods give the same `c` and `I` for every target, hence the same
#' `expected_match_risk`, `percent_correct`, `true_match_rate` and
#' `false_match_rate` (methods vignette, section 11); they differ in time.
#' \describe{
#'   \item{`"exhaustive"`}{the loop of methods vignette, section 5, the reference:
#'     every target against every released record, \eqn{O(n \times}
#'     targets \eqn{\times} variables\eqn{)} time (about 30 ns per pair on one
#'     core: 12 s for \eqn{n} = 20,000, 8 hours for \eqn{n = 10^6}).}
#'   \item{`"tree"`}{an exact branch-and-bound search over a k-d tree of the
#'     released records (identical records collapsed into one point with a
#'     count). Each factor of the score decreases with the distance to a
#'     per-target centre, so a node's box bounds the scores of all its
#'     records. One depth-first pass per target finds the best score and
#'     every record within the tie window of it: the window's floor starts at
#'     the true record's score and rises with the best found, nodes whose
#'     bound is below it are pruned, and the records that reach it are
#'     rescored with the exhaustive loop's own arithmetic. The unknown
#'     factor depends on the target only through the predicted mean, so its
#'     bounds come from one table shared by all targets. Building the index
#'     costs \eqn{O(n \log n)} time and \eqn{O(n\,2^k)} memory (\eqn{k} known
#'     variables; about 90 MB at \eqn{n = 10^6} distinct records with 2 known
#'     and 1 unknown, plus 20 MB of scratch per thread).
#'
#'   Cost of the rates (`c`, `I`), measured on the Zhou et al. example I
#'   scaled up (ring-kernel-masked, known x and s1, unknown y; see
#'   `inst/bench/README.md`): about 10, 17 and 22 microseconds of CPU per
#'   target at \eqn{n} = 20,000, \eqn{10^5} and \eqn{10^6} (70, 200 and
#'   1860 times less than the loop), so all \eqn{10^6} targets of a
#'   release of \eqn{10^6} take about 22 s of CPU, 12 s measured on 2 idle
#'   cores (41 s and 68 s with other jobs on the machine, load averages 3.3
#'   and 6.5).
#'
#'   The normaliser \eqn{S(t) = \sum_j p^A_j(t) p^U_j(t)} of `prob_true` and
#'   `prob_max` is certified to relative error `prob_tol` by lower and upper
#'   bounds (never by sampling), in one of two ways.
#'
#'   The sweep (with at most 4 known variables and at most 2 unknown, at
#'   most 1 unknown with 3 or 4 known, an unknown predicted exactly counting
#'   as a known variable (below), and
#'   `prob_tol` below 0.05) computes it for all targets at once. On each side
#'   of \eqn{t_v} the factor \eqn{1 - |z_v - t_v| / \Delta_v(t)} is linear in
#'   \eqn{z_v}, so in each orthant of \eqn{t} the product of the known
#'   factors is a multilinear polynomial of the coordinates. The released
#'   values of the unknown are cut into \eqn{B} bins of about 2 residual SDs
#'   that do not depend on the target (\eqn{B} = range of the unknown / (2
#'   SDs), at most \eqn{2^{20}}), and these into dyadic blocks of
#'   \eqn{2^L} consecutive bins. The unknown factor (the triangle averaged
#'   over the predictive normal law) has three smoothed kinks, at the
#'   predicted mean and at the mean plus or minus the triangle's half-width;
#'   more than 8 SDs from all three it is linear to far below the rounding.
#'   So for each target the bins within 8 SDs of a kink are used with the
#'   factor expanded to degree 12 about the bin's centre, and the rest of
#'   the range is covered by the largest dyadic blocks that fit, with the
#'   factor expanded to degree 1; every expansion carries its certified
#'   remainder. So \eqn{S(t)} is a sum, over blocks, orthants and monomials,
#'   of the target's coefficients times moment sums over the records of the
#'   block that lie in the orthant of \eqn{t}: offline orthogonal range sums.
#'   By inclusion-exclusion they follow from dominance sums (the records
#'   with \eqn{z_w \le t_w} for every \eqn{w} of a subset of the known
#'   variables), computed for all targets by sweeps over one known
#'   coordinate with a Fenwick tree over the rank of another and, with 3
#'   known variables, by a segment tree over the first coordinate with such
#'   a sweep in each node (with 4, the 4 triples so, and all four by a
#'   segment tree over the first coordinate whose nodes each run the
#'   three-dimensional structure); the moments are summed exactly in fixed
#'   point. A
#'   target uses about 9 bins per kink in the data and at most 8 blocks per
#'   level, so the time, \eqn{O((n + m) \log B \log n)} for \eqn{m} targets
#'   with 1 or 2 known variables and \eqn{O((n + m) \log B \log^2 n)} with 3
#'   (8 monomials instead of 4: about 3 times the cost of 2 at \eqn{10^6})
#'   and \eqn{O((n + m) \log B \log^3 n)} with 4 (16 parts of 16 monomials:
#'   about 5 times the cost of 3 at \eqn{10^5}),
#'   hardly grows with \eqn{B} (measured: the same 9 s of CPU at
#'   \eqn{n = 2 \times 10^5} for 67 to 4152 bins), memory \eqn{O(n + m)}.
#'   With two unknown variables the two factors multiply: the blocks are the
#'   products of the two unknowns' blocks (a target uses the products of its
#'   two decompositions), the expansion in a block is the product of the two
#'   expansions (each lowered in degree where its certified remainder
#'   allows), and the remainder of the product that of each factor times the
#'   bound of the other plus the product of the remainders. The bins
#'   multiply too (at most \eqn{2^{20}} in all), and the moments per record
#'   are up to 169 per subset of the known variables instead of 13, so this
#'   costs about 10 to 20 times the sweep with one unknown (see the cost
#'   section). Each target's interval (Taylor remainder, rounding of
#'   the normal integral and of every sum) is checked against `prob_tol`;
#'   a target whose interval is wider (a predicted mean far outside the
#'   released values, a `prob_tol` below about \eqn{10^{-8}}) goes to the
#'   per-target walk below, so every target is certified. The result of a
#'   target does not depend on the threads nor on how targets are split.
#'
#'   An unknown that the intruder's regression predicts exactly (an exact
#'   linear function of the known variables in the released data: residual
#'   SD 0, or so small that its range spans more than \eqn{2^{20}} bins of 2
#'   SDs, such as the residual SD of about \eqn{10^{-15}} of the scale that
#'   rounding leaves) is
#'   *sharp*: its factor is taken as the triangle
#'   \eqn{(1 - |y - \hat m(t)| / \Delta)_+} itself. The released values span
#'   exactly \eqn{\Delta}, so at most one of the triangle's kinks
#'   \eqn{\hat m(t) - \Delta}, \eqn{\hat m(t)}, \eqn{\hat m(t) + \Delta} lies
#'   inside them, and on either side of it the factor is linear in
#'   \eqn{y} (or 0): the unknown is one more coordinate of the sweep, like a
#'   known variable, with the kink as the target's value. The difference
#'   from the intruder's factor (the triangle averaged over the normal law
#'   of SD \eqn{\sigma}), at most \eqn{(\sigma / \Delta)} times
#'   \eqn{\phi(0) = 0.4} per record within 8 \eqn{\sigma} of a kink (twice
#'   for the middle one) plus \eqn{4 \phi(8)} per record (methods
#'   vignette, section 11), is added to the certified bound: 0 for a
#'   residual SD of 0, and a target it makes wider than `prob_tol` goes to
#'   the walk. So the sweep counts known variables plus sharp unknowns as
#'   its coordinates (at most 4; with 3 or 4, at most 1 other unknown; the
#'   other unknowns' bins at most \eqn{2^{20}}), and a sharp unknown costs
#'   what one more known variable costs.
#'
#'   The per-target walk (everything else: 5 or more known variables, 3
#'   or more unknown, 3 or 4 known with 2 unknown, known variables and
#'   sharp unknowns 5 or more, more than
#'   \eqn{2^{20}} bins of 2 SDs (the product over the other unknowns of their
#'   range over 2 SDs),
#'   `prob_tol` of 0.05 and more, or `options(epimask.match_sweep = FALSE)`)
#'   refines the nodes' moment bounds widest gap first (the unknown factor
#'   expanded to degree 5); when that does not converge quickly, every
#'   record is summed with the unknown factor read from a cubic Hermite
#'   table with a certified error (about \eqn{10^{-10}}), at about a quarter
#'   of the loop's cost per record. So the walk is quadratic at
#'   `prob_tol = 1e-6`: 10 to 19 ms of CPU per target at \eqn{n = 10^6},
#'   3.6 to 5.3 hours for all targets (measured at different loads). It converges within a few dozen nodes
#'   for tolerances of 5 per cent and more: `prob_tol = 1` costs little more
#'   than the rates and is what `ru_profile()` uses; `prob_tol = 0` sums
#'   every record with the loop's arithmetic (exact up to the order of the
#'   sum).
#'
#'   Slow inputs for the search (`inst/bench/bench-risk.R`, section
#'   "worst"): many records tied at the top (each distinct record is
#'   rescored: a top shared by \eqn{m} distinct records costs
#'   \eqn{O(m)}; identical records cost one), smooth data where many
#'   records score within a few per cent of the best, and best scores below
#'   about \eqn{10^{-10}}, where the rounding margins of the normal integral
#'   stop pruning (a target of which every record scores 0 costs
#'   \eqn{O(n)}). Measured at \eqn{n} = 20,000 (CPU per target, rates):
#'   unmasked, noisy or rounded data 33 to 35 times less than the loop,
#'   heavy ties 56 times, a very noisy unknown 35 times, a nearly exact
#'   regression of the unknown (\eqn{\sigma} = \eqn{10^{-9}}) 10 times;
#'   with `prob_tol = 1e-6` the last costs 1.4 times the loop.
#'   Limits: at most 6 known and 2 unknown variables.}
#'   \item{`"auto"`}{`"tree"` when \eqn{n \ge 2000}, `prob_tol > 0` and the
#'     variables are within its limits, else `"exhaustive"`.}
#' }
#' Targets run on `threads` OpenMP threads ([epimask_threads()]); the work is
#' handed out in small chunks inside one parallel region per fixed amount of
#' work, so a busy machine slows it in proportion and an interrupt is
#' honoured within a fraction of a second. Memory is \eqn{O(n)}: nothing
#' \eqn{n \times n} is formed.
#'
#' @section The default call at registry scale:
#' The rates (`c`, `I`, hence `expected_match_risk`, `percent_correct`,
#' `true_match_rate`, `false_match_rate`) are sub-quadratic, and so are
#' `prob_true` and `prob_max` where the sweep applies (at most 4 known and 2
#' unknown variables, 1 unknown with 3 or 4 known, an unknown predicted
#' exactly counting as a known variable, at most
#' \eqn{2^{20}} bins of 2 SDs; section above). With one unknown variable (or
#' none) and at most 3 known the default call then computes everything, for
#' any number of targets (with 4 known see below); so it does with
#' sharp unknowns when the known variables and the sharp unknowns are at
#' most 3 and at most one other unknown remains, and with 4 of them (or 4
#' known variables) and no other unknown (one block without bins: minutes at
#' \eqn{10^6}, below); with 4 and another unknown a default call past the
#' limit below gives the rates only. With two unknown
#' variables the sweep costs about 10 times more (measured on this machine
#' at load averages 2 to 3, 2 threads, \eqn{10^6} records and targets of a
#' simulated release with two known variables: 672 s of CPU against 80 s for
#' the rates alone; at \eqn{2 \times 10^5}, 93 to 98 s against 10 to 13 s;
#' the walk 16 to 20 ms per target at \eqn{2 \times 10^5}, 55 to 68 min for
#' all, and more at \eqn{10^6}), so a default call past the pair limit below computes the
#' rates only and its message gives the cost of asking; `prob_tol` given
#' runs the sweep. Where the sweep does not apply, the probabilities come
#' from the per-target walk, which is quadratic; so when `prob_tol` is not
#' given and the search runs, a call with more than \eqn{10^9} target-record
#' pairs (about 10 s of CPU for the probabilities; option
#' `epimask.match_prob_pairs`) computes the rates only: `prob_true` and
#' `prob_max` are `NA`, `prob_tol` of the result is `NA`, and a message
#' (class `epimask_message_probs_skipped`) says why the sweep did not apply
#' and how to ask for them: give `prob_tol` (even `1e-6`, its default
#' value), best with a sample of targets. Below the limit, and whenever
#' `prob_tol` is given or the loop runs, the probabilities are computed.
#'
#' Cost of each option, measured on this package's test machine (AMD EPYC,
#' 2 cores, R 4.2.2, 2 threads; `inst/bench/bench-risk-sweep.R`, load
#' averages 5 to 8 from other jobs), on \eqn{10^6} records of the Zhou et al.
#' example I, known x and s1, unknown y, CPU time for all \eqn{10^6} targets
#' (user + system):
#' \tabular{lrr}{
#'   option \tab ring kernel \tab noise \cr
#'   default call (= `prob_tol = 1e-6`: rates and probabilities, the sweep) \tab 59 s \tab 39 s \cr
#'   former default call (rates only, probabilities `NA`) \tab 25 s \tab 19 s \cr
#'   `prob_tol = 1e-6` by the walk (`options(epimask.match_sweep = FALSE)`) \tab 4.5 h \tab 5.3 h \cr
#'   `method = "exhaustive"` (the loop) \tab 10.9 h \tab 10.8 h \cr
#'   3 known (x, s1, s2), default call (the sweep) \tab 181 s \tab 141 s \cr
#'   3 known, former default call (rates only) \tab 36 s \tab 35 s \cr
#'   3 known, `prob_tol = 1e-6` by the walk \tab 6.8 h \tab 6.7 h \cr
#'   3 known, the loop \tab 12.3 h \tab 11.6 h \cr
#'   4 known (x, s1, s2, w), default call (rates only, past the limit) \tab 30 s at \eqn{10^5} \tab 31 s at \eqn{10^5} \cr
#'   4 known, `prob_tol = 1e-6` (the sweep) \tab 891 s \tab 808 s \cr
#'   4 known, `prob_tol = 1e-6` by the walk \tab 191 s at \eqn{10^5} \tab 208 s at \eqn{10^5} \cr
#'   4 known and no unknown, default call (the sweep) \tab 155 s \tab \cr
#'   4 known and no unknown, `prob_tol = 1e-6` by the walk \tab 6.5 h \tab
#' }
#' (the rows of the walk and the loop measured on 238 and 40 targets and
#' scaled; the 3 known rows in another run at load averages 2 to 3, the 4
#' known and no unknown rows in another at 1 to 1.4; the ring
#' kernel with about 100 neighbours within its cut-off, the noise correlated
#' normal of covariance \eqn{0.1\,\Sigma}{0.1 Sigma}). The default call gives
#' the same `c` and `I` as the loop and `prob_true` within \eqn{10^{-6}}
#' (measured: 2.4e-10 and 1.7e-10 on the loop's 40 targets at \eqn{10^6}, 1.5e-10 on all targets at 20,000) of the loop's.
#' The default call is 275 (ring) and 492 (noise) times cheaper than
#' `prob_tol = 1e-6` by the walk, and costs 2.3 and 2.1 times the former
#' default, which left the probabilities out. Its elapsed time was 174 s
#' and 66 s at load average 8 and 5 (other jobs on the 2 cores). Slow
#' inputs for the sweep (same script, section "worst"): targets far outside
#' the released values go to the walk. A small residual SD (many bins of 2
#' SDs over the unknown's range) costs little more (same script, section
#' "bins", load averages 2.4 to 2.7): at \eqn{2 \times 10^5} records the
#' default call took 8.5 to 9.4 s of CPU for all targets with 67 to 4152
#' bins, where the walk (the route before, with more than 128 bins) takes
#' about 600 s; at \eqn{10^6} records with 4163 bins, 61 s. Beyond
#' \eqn{2^{20}} bins (and for a residual SD of 0) the unknown is sharp
#' (below).
#'
#' A sharp unknown (the intruder's regression exact: the unknown a linear
#' function of the known variables in the released data, a derived column
#' such as an age in months or a sum of two known columns) costs what one
#' more known variable costs in the sweep, and less than an unknown with
#' bins (same script, section "sharp", load averages 2.1 to 2.7, about one
#' core free): on \eqn{10^6} records of the ring-masked example with y
#' replaced by \eqn{2x - 3 s_1 + 1} (known x and s1; residual SD
#' \eqn{5.6 \times 10^{-14}}) the default call took 36 s elapsed and 36 s of
#' CPU for all targets (the rates alone, the former default: 20 s; the walk
#' at `prob_tol = 1e-6` about 9.3 hours, the loop 4.1 hours, scaled from 238
#' and 40 targets), with y = 2x + 1 and x alone known 6.1 s (the walk about
#' 8.7 hours); `prob_true` within \eqn{7 \times 10^{-13}} of the loop's on its
#' targets at \eqn{10^6} and \eqn{3.5 \times 10^{-14}} on all targets at
#' 20,000. With a residual SD of 0 the sweep is exact up to rounding; with a
#' residual SD just below the limit (range / \eqn{2^{21}}) a target with many
#' records near a kink of its triangle and a small sum may go to the walk.
#' A default call computes the probabilities by the sweep when the known
#' variables and the sharp unknowns are at most 3 (and at most one other
#' unknown remains), or 4 without another unknown: with x, s1 and s2 known
#' and y = \eqn{2x - 3 s_1 + s_2 + 1} at \eqn{10^6} (same script, load 1 to
#' 1.6) 423 s elapsed, 695 s of CPU, of which the rates alone take 254 s
#' and 428 s here (the walk about 12 hours, the loop 5.8 hours; `prob_true`
#' within \eqn{10^{-12}} of the loop's); with 4 and another unknown it
#' gives the rates past \eqn{10^9} pairs and its message gives the cost of
#' asking (as for 4 known with an unknown); with 5 or more the walk (the
#' rates only past \eqn{10^9} pairs). On adult.csv (30,162 records, age, education-num and
#' hours-per-week noise-masked; the unknown derived after masking): age in
#' months with age and education-num known, 0.51 s against 20.9 s with
#' `options(epimask.match_sweep = FALSE)`; hours-per-week + education-num
#' with those three known (four coordinates, under the pair limit) 2.4 s
#' against 28.4 s.
#'
#' With 3 known variables the default call at \eqn{10^6} computes
#' everything too: 172 s and 124 s elapsed (load average 2 to 3), 135 and
#' 170 times less CPU than the walk, `prob_true` within 2.4e-10 and 1.7e-10
#' of the loop's (the 3 known rows of the table, section "three known" of
#' the same script); on adult.csv (30,162 records, known age, education-num
#' and fnlwgt, unknown hours-per-week, noise-masked) 1.4 s of CPU for all
#' targets against 9.5 s by the walk and 38 s by the loop.
#'
#' With 4 known variables (x, s1, s2 and w, a noisy function of x released
#' with noise; one unknown) the sweep costs about 5 times that of 3 (the 4-d
#' sums nest two trees): 47 s and 41 s of CPU for all targets at
#' \eqn{10^5} (ring and noise; the walk about 191 s and 208 s, the loop
#' 420 s and 537 s, scaled from samples) and 891 s and 808 s (15 and 13
#' min) at \eqn{10^6} (1033 s and 529 s elapsed at load averages 3 and 1.3,
#' peak memory 3.2 GB; the walk there would take hours). So a default call past \eqn{10^9} pairs with 4
#' known variables and an unknown computes the rates only and its message
#' gives the cost of asking; `prob_tol` given runs the sweep. Without an
#' unknown the sweep is one block without bins and the default call computes
#' everything: 153 s elapsed, 155 s of CPU at \eqn{10^6} (the rates alone 9 s,
#' the walk about 6.5 hours, the loop 4.4 hours; `prob_true` within
#' \eqn{1.1 \times 10^{-12}} of the loop's; section "four known, no
#' unknown", load 1 to 1.4). The block runs on one thread: its parts could
#' run in parallel, not done yet. At 20,000 records the sweep
#' is no faster than the walk (5.3 s against 5.0 s, ring); on adult.csv
#' (known age, education-num, fnlwgt and capital-gain, unknown
#' hours-per-week, noise-masked) 8.4 s against 10.6 s by the walk and 40 s
#' by the loop (section "four known" of the same script, load 2 to 4).
#'
#' @section Registry scale and clusters:
#' Targets are independent. With `parallel = TRUE` they are split into
#' chunks (four per worker) run by [future.apply::future_lapply()] on the
#' current [future::plan()]: `multisession` on one machine, `cluster` over
#' several, or \pkg{future.batchtools} on a Slurm or SGE queue, unchanged.
#' Each worker builds its own index and uses one thread unless `threads` is
#' given; the result is identical to the serial one. If a worker fails, the
#' call fails with an error of class `epimask_error_worker` and returns no
#' partial result. The job template for Slurm that the package ships,
#' `system.file("cluster", "slurm.tmpl", package = "epimask")`, takes the
#' resources `ncpus`, `memory`, `walltime`, `partition`, `rscript` (the
#' Rscript the job runs; default that of the session's R), `libpaths` (the
#' session's [.libPaths()], so that the jobs load the same epimask) and
#' `linger` (seconds a job stays on the queue after writing its result,
#' default 5: on a busy machine batchtools otherwise takes a job that has
#' just ended for a lost one). For a
#' release of \eqn{10^7} records, see the vignette
#' section "Matching risk of a registry on a cluster"
#' (`vignette("kernel-masking", package = "epimask")`).
#'
#' @param original The original data: a data frame or numeric matrix, one row
#'   per person. Only its `known` columns are used: they are what the intruder
#'   knows about each target.
#' @param masked The released masked data, with the same rows (row `i` is the
#'   same person as in `original`) and the `known` and `unknown` columns.
#' @param known Names of the variables the intruder knows (at least one).
#' @param unknown Names of the variables the intruder wants to learn, or `NULL`
#'   (then only the known variables enter the matching probability).
#' @param targets Row numbers of the persons the intruder looks for (default
#'   all). Every released record is always a candidate.
#' @param threads Number of OpenMP threads; `NULL` uses [epimask_threads()].
#' @param method `"auto"`, `"tree"` (the exact search) or `"exhaustive"` (the
#'   reference loop); see the section on methods.
#' @param prob_tol Relative error allowed in `prob_true` and `prob_max` with
#'   `method = "tree"` (certified bounds, never sampling); 0 sums every
#'   record. `c`, `I` and the rates never depend on it. When not given and
#'   the sweep of all targets does not apply, a call of more than
#'   \eqn{10^9} target-record pairs leaves `prob_true` and `prob_max` out
#'   (section "The default call at registry scale").
#' @param parallel Run chunks of targets on the current [future::plan()]
#'   (needs \pkg{future.apply}).
#' @param progress Show a progress bar over chunks of targets
#'   (\pkg{progressr}, when installed).
#' @param id `NULL` (one record per person) or the name of the person column
#'   of `original` when a person has several records. The scores are then of
#'   persons: a person is matched when any one of their target records is
#'   matched to its own released record, with probability
#'   \eqn{1 - \prod (1 - I/c)} over their target records (ties broken
#'   independently); `expected_match_risk` sums it over the persons,
#'   `percent_correct` is its mean in per cent, `true_match_rate` the share
#'   of persons with a unique correct match, `false_match_rate` the share of
#'   persons with a unique match none of whose unique matches is right;
#'   `per_person` holds the persons' probabilities and `per_target` gains the
#'   person column and `person_risk`. A record matched to another record of
#'   the same person is not counted, so the person-level risk is a lower
#'   bound when a person's records are close together.
#' @return An object of class `epimask_match`, a list with
#'   \describe{
#'     \item{`per_target`}{a data frame with one row per target: `target` (row
#'       number), `prob_true` (matching probability of the true record),
#'       `prob_max` (the largest matching probability), `c` and `I`.}
#'     \item{`expected_match_risk`}{\eqn{\sum I / c}, the expected number of
#'       correct matches.}
#'     \item{`percent_correct`}{`100 * expected_match_risk / n_targets`.}
#'     \item{`true_match_rate`}{share of targets with \eqn{c = 1} and \eqn{I = 1}.}
#'     \item{`false_match_rate`}{share of the unique matches (\eqn{c = 1}) that
#'       are wrong; `NA` when no target has a unique match.}
#'     \item{`n_records`, `n_targets`, `known`, `unknown`, `sigma`}{the numbers
#'       of released records and targets, the variables, and the residual SD
#'       of the intruder's regression for each unknown variable.}
#'     \item{`unknown_exact`}{for each unknown variable, `TRUE` when the
#'       released known variables predict it exactly (residual SD 0 or below
#'       \eqn{2^{-21}} of its released range): the intruder has it for free.}
#'     \item{`method`, `prob_tol`}{the method used and the relative error
#'       certified for `prob_true` and `prob_max` (0 when exact, `NA` when
#'       they were not computed).}
#'   }
#' @references Zhou Y, Dominici F, Louis TA (2010). Model-based estimation of
#'   disclosure risk and analysis validity for masked data.
#'   \emph{Annals of Applied Statistics} 4, 2126-2148.
#'   Reiter JP (2005). Estimating risks of identification disclosure in
#'   microdata. \emph{JASA} 100, 1103-1112.
#' @seealso [risk_identifiability()] for exact matching on keys.
#' @family risk measures
#' @export
#' @examples
#' set.seed(1)
#' n <- 200
#' original <- data.frame(x = runif(n), y = rnorm(n))
#' # a kernel mask: each value replaced by a weighted average of its neighbours
#' w <- exp(-as.matrix(dist(original$x)) / 0.01)
#' masked <- as.data.frame((w / rowSums(w)) %*% as.matrix(original))
#' risk <- risk_match(original, masked, known = "x", unknown = "y", threads = 1)
#' risk
#' # the exact search gives the same c and I as the reference loop
#' fast <- risk_match(original, masked, "x", "y", method = "tree", threads = 1)
#' identical(fast$per_target$c, risk$per_target$c)
#' summary(risk)
#' head(as.data.frame(risk))
risk_match <- function(original, masked, known, unknown = NULL,
                       targets = NULL, threads = NULL,
                       method = c("auto", "tree", "exhaustive"), prob_tol = 1e-6,
                       parallel = FALSE, progress = interactive(), id = NULL) {
  check_data(original)
  check_data(masked)
  if (!is.null(id)) {
    frame <- as.data.frame(original)
    id <- check_person_id(id, frame, exclude = c(known, unknown), data_arg = "original")
    res <- risk_match(original, masked, known, unknown, targets, threads, method, prob_tol,
                      parallel, progress)
    return(match_by_person(res, frame[[id]], id))
  }
  if (NROW(masked) != NROW(original))
    abort_length("masked", sprintf("have the same number of rows as `original` (%d), not %d",
                                   NROW(original), NROW(masked)))
  known <- check_columns(known, original, data_arg = "original")
  check_columns(known, masked, arg = "known", data_arg = "masked")
  unknown <- check_columns(unknown, original, data_arg = "original", allow_null = TRUE)
  if (!is.null(unknown))
    check_columns(unknown, masked, arg = "unknown", data_arg = "masked")
  known <- unique(known)
  unknown <- unique(unknown)
  both <- intersect(known, unknown)
  if (length(both))
    abort_value("unknown", sprintf("disjoint from `known`; both name %s",
                                   paste0("'", both, "'", collapse = ", ")))
  n <- NROW(masked)
  targets <- check_targets(targets, n)
  threads_given <- !is.null(threads)
  threads <- epimask_threads(threads)
  method <- check_choice(method, c("auto", "tree", "exhaustive"))
  prob_given <- !missing(prob_tol)
  prob_tol <- check_number(prob_tol, lower = 0, upper = 1)
  check_flag(parallel)
  check_flag(progress)
  if (parallel && !requireNamespace("future.apply", quietly = TRUE))
    abort_value("parallel", "FALSE unless the future.apply package is installed")
  method <- match_method(method, n, length(known), length(unknown), prob_tol)

  masked_known <- numeric_columns(masked, known, "masked")
  masked_unknown <- if (length(unknown)) numeric_columns(masked, unknown, "masked") else
    matrix(0, n, 0L)
  target_known <- numeric_columns(original, known, "original")[targets, , drop = FALSE]

  intruder <- intruder_regression(masked_known, masked_unknown, target_known)
  # a default call leaves out the quadratic part when it would be long: when
  # the sweep does not apply and there are many pairs
  sweep <- match_sweep_applies(length(known), intruder$sigma, intruder$range)
  # with two unknowns (or four known) the sweep serves a prob_tol given, but
  # a default call past the pair limit leaves it out: it costs minutes per
  # 1e5 targets
  shape <- match_sweep_shape(length(known), intruder$sigma, intruder$range)
  # (without another unknown, four coordinates cost minutes: computed)
  sweep_default <- sweep && shape[["smooth"]] < 2L &&
    (shape[["coordinates"]] < 4L || shape[["smooth"]] == 0L)
  probs <- method != "tree" || prob_given || sweep_default ||
    as.double(n) * length(targets) <= match_prob_pairs()
  spec <- list(masked_known = unname(masked_known), masked_unknown = unname(masked_unknown),
               unknown_sd = unname(intruder$sigma), unknown_range = intruder$range,
               threads = threads, method = if (method == "tree") 1L else 0L,
               prob_tol = if (probs) prob_tol else -1, index = NULL,
               sweep = as.integer(match_sweep_enabled()))
  res <- match_targets(spec, targets, target_known, intruder$mean, parallel = parallel,
                       progress = progress,
                       worker_threads = if (threads_given) threads else 1L)
  if (!probs) res$prob_true <- res$prob_max <- rep(NA_real_, length(targets))
  out <- new_epimask_match(res, targets, n, known, unknown, intruder$sigma)
  out$method <- method
  out$prob_tol <- if (!probs) NA_real_ else if (method == "tree") prob_tol else 0
  # unknowns the released known variables predict exactly (residual SD 0 or
  # below 1/2^21 of the range): worth saying, the intruder has them for free
  out$unknown_exact <- unname(match_sweep_sharp(intruder$sigma, intruder$range))
  if (!probs) inform_probs_skipped(n, length(targets), length(known), length(unknown),
                                   intruder$sigma, intruder$range, sweep)
  out
}

# A default call (prob_tol not given) certifies prob_true and prob_max only
# up to this many target-record pairs: their normaliser visits every record
# for every target (about 10 ns of CPU per pair measured here, so the
# default 1e9 is about 10 s of CPU), while c, I and the rates are
# sub-quadratic. Option epimask.match_prob_pairs changes the limit.
match_prob_pairs <- function() {
  limit <- getOption("epimask.match_prob_pairs", 1e9)
  if (!is.numeric(limit) || length(limit) != 1L || is.na(limit) || limit < 0)
    abort_value("options(epimask.match_prob_pairs)", "a non-negative number")
  limit
}

# The normaliser of prob_true and prob_max for all targets at once by the
# sweep (src/match_sweep.h): at most 2 unknowns; the known variables and the
# sharp unknowns (residual SD 0 or below 1/2^21 of the range: swept as the
# triangle itself, one more coordinate each) at most 4, with 3 or 4 of them
# at most 1 other (smooth) unknown, whose released ranges span at most 2^20
# bins of two residual SDs in all (or that carry no information: no spread).
# Elsewhere the per-target walk, which is quadratic. Must agree with
# ms_applies() in C.
match_sweep_max_known <- 4L
match_sweep_max_unknown <- 2L
match_sweep_max_bins <- 1048576
match_sweep_applies <- function(n_known, sigma, range) {
  if (!match_sweep_enabled() || length(sigma) > match_sweep_max_unknown) return(FALSE)
  shape <- match_sweep_shape(n_known, sigma, range)
  if (shape[["coordinates"]] > match_sweep_max_known ||
      (shape[["coordinates"]] >= 3L && shape[["smooth"]] > 1L))
    return(FALSE)
  sharp <- match_sweep_sharp(sigma, range)
  match_sweep_bins(sigma[!sharp], range[!sharp]) <= match_sweep_max_bins
}
# Sharp unknowns: active, with a residual SD of 0 or so small against the
# range that its fine bins would be more than 2^20.
match_sweep_sharp <- function(sigma, range) {
  range > 0 & (!(sigma > 0) | range / (2 * sigma) > match_sweep_max_bins)
}
# The sweep's coordinates (known variables and sharp unknowns) and its other
# (smooth) unknowns.
match_sweep_shape <- function(n_known, sigma, range) {
  sharp <- sum(match_sweep_sharp(sigma, range))
  c(coordinates = n_known + sharp, smooth = length(sigma) - sharp)
}
# The sweep's fine bins: the product over the unknowns (with spread) of their
# range over two residual SDs.
match_sweep_bins <- function(sigma, range) {
  active <- range > 0
  bins <- pmax(1, ceiling(range[active] / (2 * sigma[active])))
  if (!all(is.finite(bins))) return(Inf)
  prod(bins)
}

# options(epimask.match_sweep = FALSE) computes the normaliser by the
# per-target walk alone (the former method; for comparison).
match_sweep_enabled <- function() {
  opt <- getOption("epimask.match_sweep", TRUE)
  if (!is.logical(opt) || length(opt) != 1L || is.na(opt))
    abort_value("options(epimask.match_sweep)", "TRUE or FALSE")
  opt
}

# Said when a default call left prob_true and prob_max out.
inform_probs_skipped <- function(n, n_targets, n_known, n_unknown, sigma, range,
                                 sweep = FALSE) {
  pairs <- as.double(n) * n_targets
  shape <- match_sweep_shape(n_known, sigma, range)
  coords <- shape[["coordinates"]]
  exact <- coords - n_known
  if (sweep && coords >= 4L) return(inform_probs_skipped_four(n, n_targets, n_known))
  if (sweep) return(inform_probs_skipped_two(n, n_targets))
  sharp <- match_sweep_sharp(sigma, range)
  why <- if (!match_sweep_enabled()) {
    "options(epimask.match_sweep = FALSE) is set"
  } else if (n_unknown > match_sweep_max_unknown) {
    sprintf("%d unknown variables (at most %d)", n_unknown, match_sweep_max_unknown)
  } else if (coords > match_sweep_max_known && exact > 0L) {
    sprintf(paste0("%d known variables and %d unknown predicted exactly by the intruder's ",
                   "regression, each one more coordinate of the sum (at most %d in all)"),
            n_known, exact, match_sweep_max_known)
  } else if (coords > match_sweep_max_known) {
    sprintf("%d known variables (at most %d)", n_known, match_sweep_max_known)
  } else if (coords >= 3L && shape[["smooth"]] > 1L) {
    sprintf("%d known variables with 2 unknown (with 3 or 4 known, at most 1 unknown)", n_known)
  } else {
    sprintf("the unknowns' ranges over 2 residual SDs multiply to %s bins (at most %d)",
            format(signif(match_sweep_bins(sigma[!sharp], range[!sharp]), 3)),
            match_sweep_max_bins)
  }
  msg <- sprintf(paste0(
    "prob_true and prob_max were not computed (NA): the fast certified sum for all targets ",
    "does not apply here (%s), and certifying them target by target sums every one of ",
    "the %s released records for each of the %s targets (%s pairs, about %s of CPU at ",
    "10 ns per pair). c, I and the four rates are computed exactly. To have them, give ",
    "`prob_tol` (e.g. prob_tol = 1e-6), best with a sample of targets ",
    "(targets = sample(%s, 2000)), or raise options(epimask.match_prob_pairs)."),
    why, format(n, big.mark = ","), format(n_targets, big.mark = ","),
    format(signif(pairs, 2)), format_cpu_time(1e-8 * pairs), format(n, scientific = FALSE))
  message_probs_skipped(msg)
}
message_probs_skipped <- function(msg) {
  message(structure(class = c("epimask_message_probs_skipped", "message", "condition"),
                    list(message = paste0(msg, "\n"), call = NULL)))
}

# With two unknown variables the sweep applies but a default call leaves it
# out: its cost per target, measured (inst/bench/bench-risk-sweep.R, section
# "two", 2 threads): 93 s for 2e5 targets at 2e5 records, 672 s for 1e6 at
# 1e6 (the rates alone: 80 s).
match_sweep_two_cpu_per_target <- 6.7e-4
inform_probs_skipped_two <- function(n, n_targets) {
  msg <- sprintf(paste0(
    "prob_true and prob_max were not computed (NA): with two unknown variables their ",
    "certified sum for all targets (the sweep) costs about %s of CPU for the %s targets ",
    "(measured: 11 min for 1e6 targets at 1e6 records). c, I and the four rates are ",
    "computed exactly. To have them, give `prob_tol` (e.g. prob_tol = 1e-6), best with a ",
    "sample of targets (targets = sample(%s, 2000)), or raise ",
    "options(epimask.match_prob_pairs)."),
    format_cpu_time(match_sweep_two_cpu_per_target * n_targets),
    format(n_targets, big.mark = ","), format(n, scientific = FALSE))
  message_probs_skipped(msg)
}

# With four known variables likewise: the sweep's cost per target, measured
# (2 threads, load 3): 47 s for 1e5 targets at 1e5 records
# (inst/bench/bench-risk-sweep.R, section "four known"), 891 s for 1e6 at
# 1e6 (the same data, prob_tol = 1e-6; the rates alone about 30 s).
match_sweep_four_cpu_per_target <- 8.9e-4
inform_probs_skipped_four <- function(n, n_targets, n_known = 4L) {
  what <- if (n_known >= 4L) "four known variables and an unknown" else
    sprintf(paste0("%d known variables, %d unknown predicted exactly by the intruder's ",
                   "regression (four coordinates) and another unknown"), n_known, 4L - n_known)
  msg <- sprintf(paste0(
    "prob_true and prob_max were not computed (NA): with %s their ",
    "certified sum for all targets (the sweep) costs about %s of CPU for the %s targets ",
    "(measured: 15 min for 1e6 targets at 1e6 records). c, I and the four rates are ",
    "computed exactly. To have them, give `prob_tol` (e.g. prob_tol = 1e-6), best with a ",
    "sample of targets (targets = sample(%s, 2000)), or raise ",
    "options(epimask.match_prob_pairs)."),
    what, format_cpu_time(match_sweep_four_cpu_per_target * n_targets),
    format(n_targets, big.mark = ","), format(n, scientific = FALSE))
  message_probs_skipped(msg)
}

format_cpu_time <- function(seconds) {
  if (seconds < 120) return(sprintf("%.0f s", seconds))
  if (seconds < 7200) return(sprintf("%.0f min", seconds / 60))
  sprintf("%.1f hours", seconds / 3600)
}

# Variables the search handles: 2^k moments per node of the index, and a
# first-order expansion in one unknown (two are bounded more coarsely).
match_tree_limits <- c(known = 6L, unknown = 2L)

# "auto": the search when it pays (large n, a positive prob_tol, within its
# limits); "tree" on input outside its limits says why.
match_method <- function(method, n, n_known, n_unknown, prob_tol) {
  fits <- n_known <= match_tree_limits[["known"]] && n_unknown <= match_tree_limits[["unknown"]]
  if (method == "tree" && !fits)
    epimask_abort(sprintf(paste0(
      "`method = \"tree\"` handles at most %d known and %d unknown variables ",
      "(its index keeps 2^k moments per node); here %d known and %d unknown. ",
      "Use `method = \"exhaustive\"` (or \"auto\")."),
      match_tree_limits[["known"]], match_tree_limits[["unknown"]], n_known, n_unknown),
      "epimask_error_value", arg = "method")
  if (method != "auto") return(method)
  if (fits && n >= 2000L && prob_tol > 0) "tree" else "exhaustive"
}

# Targets in chunks: one .Call (one index) when serial without a progress
# bar; otherwise chunks of targets, serially with one shared index and a
# progressr tick per chunk, or over the current future::plan() (each worker
# builds its own index: an external pointer does not travel). Per-target
# results do not depend on the chunking, so every route gives the same object.
match_targets <- function(spec, targets, target_known, pred_mean, parallel, progress,
                          worker_threads) {
  n_targets <- length(targets)
  run_chunk <- function(rows, spec) {
    spec$target_record <- targets[rows] - 1L
    spec$target_known <- target_known[rows, , drop = FALSE]
    spec$pred_mean <- pred_mean[rows, , drop = FALSE]
    call_c(C_risk_match, spec, arg = "spec")
  }
  n_chunks <- if (parallel) {
    max(1L, min(n_targets, 4L * future::nbrOfWorkers()))
  } else if (progress) {
    max(1L, min(n_targets %/% 500L, 50L))
  } else 1L
  chunks <- unname(split(seq_len(n_targets),
                         ceiling(seq_len(n_targets) * n_chunks / n_targets)))
  use_bar <- progress && requireNamespace("progressr", quietly = TRUE)
  run <- function(tick) {
    if (parallel) {
      spec$threads <- worker_threads
      task <- function(rows) {
        out <- run_chunk(rows, spec)
        tick()
        out
      }
      parts <- tryCatch(
        future.apply::future_lapply(chunks, task, future.seed = NULL,
                                    future.packages = "epimask"),
        error = function(e) epimask_abort(sprintf(paste0(
          "A parallel worker failed, so risk_match() returns nothing (a partial ",
          "result would misstate the risk): %s"), conditionMessage(e)),
          "epimask_error_worker", arg = "parallel"))
    } else {
      if (spec$method == 1L && length(chunks) > 1L)
        spec$index <- call_c(C_risk_match_index, spec, arg = "spec")
      parts <- lapply(chunks, function(rows) {
        out <- run_chunk(rows, spec)
        tick()
        out
      })
    }
    list(prob_true = unlist(lapply(parts, `[[`, "prob_true"), use.names = FALSE),
         prob_max = unlist(lapply(parts, `[[`, "prob_max"), use.names = FALSE),
         c = unlist(lapply(parts, `[[`, "c"), use.names = FALSE),
         I = unlist(lapply(parts, `[[`, "I"), use.names = FALSE))
  }
  if (use_bar) {
    return(progressr::with_progress({
      step <- progressr::progressor(steps = length(chunks))
      run(function() step())
    }))
  }
  run(function() NULL)
}

check_targets <- function(targets, n) {
  if (is.null(targets)) return(seq_len(n))
  if (is.logical(targets) || !is.numeric(targets) || is.object(targets))
    abort_type("targets", "a vector of row numbers")
  if (length(targets) == 0L) abort_empty("targets")
  if (anyNA(targets) || any(targets != round(targets)) || any(targets < 1) ||
      any(targets > n))
    abort_value("targets", sprintf("row numbers between 1 and %d", n))
  as.integer(targets)
}

# The columns `cols` of `data` as a double matrix; a classed error naming
# `arg` and the offending columns otherwise.
numeric_columns <- function(data, cols, arg) {
  x <- lapply(cols, function(col)
    if (is.data.frame(data)) data[[col]] else data[, col])
  names(x) <- cols
  # each check: the columns failing it, the error, and what it says of them
  refuse <- function(hit, abort, expected, one, many) {
    if (any(hit))
      abort(arg, sprintf("%s; %s %s", expected, paste0("'", cols[hit], "'", collapse = ", "),
                         if (sum(hit) == 1L) one else many))
  }
  refuse(!vapply(x, function(col) (is.numeric(col) || is.logical(col)) && !is.factor(col),
                 logical(1)),
         abort_type, "numeric in the columns used", "is not", "are not")
  refuse(vapply(x, function(col) all(is.na(col)), logical(1)),
         abort_value, "observed", "is all NA", "are all NA")
  refuse(vapply(x, anyNA, logical(1)), abort_value, "free of NA in the columns used",
         "has NA", "have NA")
  refuse(vapply(x, function(col) any(is.infinite(col)), logical(1)), abort_value,
         "finite in the columns used", "has Inf", "have Inf")
  m <- matrix(as.double(unlist(x, use.names = FALSE)), ncol = length(cols))
  colnames(m) <- cols
  m
}

# What the intruder estimates from the released data: least squares of each
# unknown on the knowns (with intercept), aliased columns dropped by the
# pivoting QR; the predictive mean at each target's true known values, the
# residual SD sigma = sqrt(RSS / (n - q)) and the released range Delta^U.
intruder_regression <- function(masked_known, masked_unknown, target_known) {
  n_unknown <- ncol(masked_unknown)
  n_targets <- nrow(target_known)
  if (n_unknown == 0L)
    return(list(mean = matrix(0, n_targets, 0L), sigma = double(0),
                range = double(0)))
  n <- nrow(masked_known)
  design <- cbind(1, masked_known)
  fit <- tryCatch(qr(design), error = function(e) abort_intruder_overflow())
  q <- fit$rank
  if (n <= q)
    epimask_abort(sprintf(paste0(
      "The intruder's regression of `unknown` on `known` needs more records ",
      "than coefficients (n = %d, q = %d): sigma^2 = RSS / (n - q) is undefined."),
      n, q), "epimask_error_singular", arg = "masked")
  coef <- tryCatch(qr.coef(fit, masked_unknown), error = function(e) abort_intruder_overflow())
  coef <- matrix(coef, ncol = n_unknown)
  coef[is.na(coef)] <- 0
  resid <- tryCatch(qr.resid(fit, masked_unknown), error = function(e) abort_intruder_overflow())
  resid <- matrix(resid, ncol = n_unknown)
  sigma <- sqrt(colSums(resid^2) / (n - q))
  rng <- apply(masked_unknown, 2L, function(u) max(u) - min(u))
  mean <- cbind(1, target_known) %*% coef
  # values near the largest double overflow the squares and ranges; the match
  # probabilities would then be silently uniform
  if (!all(is.finite(sigma)) || !all(is.finite(rng)) || !all(is.finite(mean)))
    abort_intruder_overflow()
  list(mean = matrix(as.double(mean), n_targets, n_unknown),
       sigma = stats::setNames(as.double(sigma), colnames(masked_unknown)),
       range = as.double(rng))
}

abort_intruder_overflow <- function() {
  abort_value("masked", paste0("values small enough for the intruder's regression: ",
                               "its residual SD, range or predictions overflow (rescale the data)"))
}

# The matching risk of persons (several records each): a person is matched
# when any one of their target records is matched to its own released record,
# with probability 1 - prod(1 - I / c) over their targets.
match_by_person <- function(res, ids, id) {
  pt <- res$per_target
  person_all <- person_index(ids)
  person <- person_all[pt$target]
  # the persons among the targets, numbered 1..P in order of appearance
  person <- match(person, unique(person))
  P <- max(person)
  w <- pt$I / pt$c
  per_person <- person_any(w, person, P)
  unique_right <- group_sums(as.double(pt$c == 1L & pt$I == 1L), person, P) > 0
  unique_any <- group_sums(as.double(pt$c == 1L), person, P) > 0
  pt[[id]] <- ids[pt$target]
  pt$person_risk <- per_person[person]
  res$per_target <- pt
  res$per_person <- per_person
  res$expected_match_risk <- sum(per_person)
  res$percent_correct <- 100 * sum(per_person) / P
  res$true_match_rate <- sum(unique_right) / P
  res$false_match_rate <- if (any(unique_any)) sum(unique_any & !unique_right) / sum(unique_any) else NA_real_
  res$unit <- "persons"
  res$id <- id
  res$n_persons <- P
  res$n_target_records <- res$n_targets
  res
}

new_epimask_match <- function(res, targets, n, known, unknown, sigma) {
  per_target <- data.frame(target = targets, prob_true = res$prob_true,
                           prob_max = res$prob_max, c = res$c, I = res$I)
  n_targets <- length(targets)
  expected <- sum(res$I / res$c)
  unique_match <- res$c == 1L
  structure(list(
    per_target = per_target,
    expected_match_risk = expected,
    percent_correct = 100 * expected / n_targets,
    true_match_rate = sum(unique_match & res$I == 1L) / n_targets,
    false_match_rate = if (any(unique_match))
      sum(unique_match & res$I == 0L) / sum(unique_match) else NA_real_,
    n_records = n, n_targets = n_targets, known = known,
    unknown = if (is.null(unknown)) character(0) else unknown,
    sigma = sigma
  ), class = "epimask_match")
}

#' @export
format.epimask_match <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  if (identical(x$unit, "persons"))
    return(sprintf("%s%% of %d persons expected correctly matched (%d target records of %d; known: %s; unknown: %s)",
                   format(signif(x$percent_correct, digits)), x$n_persons, x$n_targets,
                   x$n_records, paste(x$known, collapse = ", "),
                   if (length(x$unknown)) paste(x$unknown, collapse = ", ") else "none"))
  sprintf("%s%% expected correct matches (%d of %d targets; known: %s; unknown: %s)",
          format(signif(x$percent_correct, digits)), x$n_targets, x$n_records,
          paste(x$known, collapse = ", "),
          if (length(x$unknown)) paste(x$unknown, collapse = ", ") else "none")
}

#' @export
print.epimask_match <- function(x, digits = 3, ...) {
  # the long view: a title and the summary's lines (format() is the one-line form)
  cat(c("Record-matching disclosure risk (Zhou et al. 2010, after Reiter 2005)",
        format(summary(x), digits = digits, header = FALSE, ...)), sep = "\n")
  invisible(x)
}

#' Summaries of the record-matching risk
#'
#' @param object,x An `epimask_match` object from [risk_match()], or its summary.
#' @param digits Significant digits to print.
#' @param header Print the title line.
#' @param row.names,optional Passed on to [as.data.frame()] conventions; unused.
#' @param ... Unused.
#' @return `summary()` returns an object of class `summary.epimask_match`: the
#'   scores and `ties`, a data frame counting the targets by the number of
#'   records that share the largest matching probability (`c`), with how many
#'   of them contain the true record. `as.data.frame()` returns the
#'   per-target table.
#' @name epimask_match-methods
#' @family risk measures
#' @examples
#' set.seed(2)
#' original <- data.frame(x = rnorm(100), y = rnorm(100))
#' masked <- original + rnorm(200, sd = 0.3)
#' summary(risk_match(original, masked, "x", "y", threads = 1))
NULL

#' @rdname epimask_match-methods
#' @export
summary.epimask_match <- function(object, ...) {
  pt <- object$per_target
  levels_c <- sort(unique(pt$c))
  ties <- data.frame(
    c = levels_c,
    targets = as.vector(table(factor(pt$c, levels = levels_c))),
    correct = as.vector(tapply(pt$I, factor(pt$c, levels = levels_c), sum)),
    row.names = NULL)
  ties$expected_correct <- ties$correct / ties$c
  structure(list(
    ties = ties, n_records = object$n_records, n_targets = object$n_targets,
    known = object$known, unknown = object$unknown, sigma = object$sigma,
    unknown_exact = object$unknown_exact,
    expected_match_risk = object$expected_match_risk,
    percent_correct = object$percent_correct,
    true_match_rate = object$true_match_rate,
    false_match_rate = object$false_match_rate,
    mean_prob_true = mean(pt$prob_true),
    unit = object$unit, n_persons = object$n_persons, id = object$id,
    probs_skipped = is.na(object$prob_tol)
  ), class = "summary.epimask_match")
}

#' @rdname epimask_match-methods
#' @export
format.summary.epimask_match <- function(x, digits = 3, header = TRUE, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    header <- check_flag(header)
    if (header) cat("Record-matching disclosure risk: summary\n")
    fmt <- function(v) format(signif(v, digits))
    # Counts of expected matches keep every integer digit (6451 printed as
    # 6450 beside a column of 6451 true records would misread).
    fmt_count <- function(v) vapply(v, function(e) {
      if (!is.finite(e) || abs(e) < 10^digits) format(signif(e, digits))
      else format(round(e, 1), scientific = FALSE)
    }, "")
    cat(sprintf("  Known: %s\n", paste(x$known, collapse = ", ")))
    if (length(x$unknown)) {
      # each SD formatted alone (format() of a vector pads to a common width)
      sds <- vapply(x$sigma, fmt, "")
      exact <- if (is.null(x$unknown_exact)) rep(FALSE, length(sds)) else x$unknown_exact
      if (length(sds) == 1L) {
        cat(sprintf("  Unknown: %s (intruder's regression on the known, residual SD %s%s)\n",
                    x$unknown, sds, if (exact) ": predicted exactly" else ""))
      } else {
        cat(sprintf("  Unknown: %s (intruder's regression on the known, residual SDs %s%s)\n",
                    paste(x$unknown, collapse = ", "), paste(sds, collapse = ", "),
                    if (any(exact)) sprintf("; %s predicted exactly",
                                            paste(x$unknown[exact], collapse = ", ")) else ""))
      }
    } else {
      cat("  Unknown: none\n")
    }
    cat(sprintf("  Targets: %d; released records (candidates): %d\n\n",
                x$n_targets, x$n_records))
    ties <- x$ties
    shown <- ties[seq_len(min(nrow(ties), 5L)), , drop = FALSE]
    tab <- data.frame(
      "Records at top probability (c)" = as.character(shown$c),
      "Targets" = shown$targets,
      "True record among them" = shown$correct,
      "Expected correct" = fmt_count(shown$expected_correct),
      check.names = FALSE)
    if (nrow(ties) > 5L) {
      rest <- ties[-seq_len(5L), , drop = FALSE]
      tab <- rbind(tab, data.frame(
        "Records at top probability (c)" = sprintf("%d-%d", min(rest$c), max(rest$c)),
        "Targets" = sum(rest$targets), "True record among them" = sum(rest$correct),
        "Expected correct" = fmt_count(sum(rest$expected_correct)), check.names = FALSE))
    }
    print(tab, row.names = FALSE, right = TRUE)
    if (identical(x$unit, "persons")) {
      cat(sprintf("\n  Persons (person column '%s'): %d; a person is matched when any of their records is\n",
                  x$id, x$n_persons))
      cat(sprintf("  Expected match risk: %s persons correctly matched of %d (%s%%)\n",
                  fmt_count(x$expected_match_risk), x$n_persons, fmt(x$percent_correct)))
    } else
    cat(sprintf("\n  Expected match risk: %s correct matches of %d (%s%%)\n",
                fmt_count(x$expected_match_risk), x$n_targets, fmt(x$percent_correct)))
    cat(sprintf("  True match rate: %s; false match rate: %s\n",
                fmt(x$true_match_rate),
                if (is.na(x$false_match_rate)) "NA (no unique match)" else
                  fmt(x$false_match_rate)))
    if (is.na(x$mean_prob_true) && isTRUE(x$probs_skipped)) {
      cat("  Mean probability of the true record: not computed (give `prob_tol` to compute it)\n")
    } else {
      cat(sprintf("  Mean probability of the true record: %s\n", fmt(x$mean_prob_true)))
    }
  })
}

#' @export
print.summary.epimask_match <- function(x, ...) print_formatted(x, ...)

#' @rdname epimask_match-methods
#' @export
as.data.frame.epimask_match <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$per_target
}

#' @rdname epimask_match-methods
#' @param y Unused.
#' @param what `"outcomes"`: a bar chart of the targets by the intruder's
#'   outcome (the true record alone at the top probability, the true record in
#'   a tie of \eqn{c} records, or a wrong record); `"probability"`: a histogram
#'   of the probability the intruder's model gives the true record
#'   (`prob_true`), with its mean.
#' @export
plot.epimask_match <- function(x, y = NULL, what = c("outcomes", "probability"), ...) {
  what <- check_choice(what, c("outcomes", "probability"))
  pt <- x$per_target
  if (what == "outcomes") {
    outcomes <- match_outcomes(pt)
    graphics::barplot(outcomes, col = c("firebrick", "orange", "grey60"), border = NA,
                      ylab = "targets", ylim = c(0, 1.05 * max(outcomes, 1)),
                      main = sprintf("Record matching: %s%% expected correct",
                                     format(signif(x$percent_correct, 3))), ...)
    # a target in a tie of c records is matched correctly with probability 1 / c
    in_tie <- pt$c > 1 & pt$I == 1
    graphics::mtext(sprintf("expected correct matches: %s alone + %s from ties (1 / c each)",
                            format(outcomes[[1L]]), format(signif(sum(1 / pt$c[in_tie]), 3))),
                    side = 3, line = 0.3, cex = 0.85)
    return(invisible(outcomes))
  }
  p <- pt$prob_true
  # at scale the probabilities are skipped unless asked for (prob_tol)
  if (all(is.na(p)))
    abort_value("what", "\"outcomes\": the probabilities were not computed (give `prob_tol` to risk_match())")
  p <- p[!is.na(p)]
  h <- graphics::hist(p, breaks = 30, col = "grey60", border = "white",
                      xlab = "probability of the true record (prob_true)", ylab = "targets",
                      main = "Record matching: the true record's probability", ...)
  graphics::abline(v = mean(p), col = "firebrick", lwd = 2)
  graphics::legend("topright", legend = sprintf("mean %s", format(signif(mean(p), 3))),
                   col = "firebrick", lwd = 2, bty = "n")
  invisible(h)
}

# The targets by outcome: the true record alone at the top probability, in a
# tie (c > 1: it is picked with probability 1 / c), or not at the top.
match_outcomes <- function(pt) {
  c(`true record alone` = sum(pt$c == 1 & pt$I == 1),
    `true record in a tie` = sum(pt$c > 1 & pt$I == 1),
    `wrong record` = sum(pt$I == 0))
}
