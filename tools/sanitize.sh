#!/usr/bin/env bash
# Memory safety of the C core (`make sanitize`):
#   1. the test suite against an ASan + UBSan build of the package,
#   2. the test suite under valgrind memcheck (plain build),
#   3. every .Call entry point under gctorture (tools/gctorture.R).
# Each step prints its verdict; the script exits non-zero if any step reports
# an error or a test fails.
#
# Environment:
#   SANITIZE_STEPS  steps to run, default "asan valgrind gctorture"
#   SANITIZE_FILES  test files (names in tests/testthat, e.g. "test-freq.R
#                   test-risk-suda.R") run ONE AT A TIME by the asan and
#                   valgrind steps, one log and one verdict line per file;
#                   unset: the whole suite in one run
#   SANITIZE_OUT    log directory, default sanitize-out
#   SANITIZE_NICE   niceness of the test runs, default 10
# The property tests (skip_on_cran) run too: NOT_CRAN=true is set here.
set -uo pipefail
cd "$(dirname "$0")/.."
steps=${SANITIZE_STEPS:-"asan valgrind gctorture"}
files=${SANITIZE_FILES:-}
out=${SANITIZE_OUT:-sanitize-out}
nice_level=${SANITIZE_NICE:-10}
mkdir -p "$out"
status=0
export NOT_CRAN=true

# R code running the tests in $1 ("" = the whole suite), listing every failure,
# printing the counts and exiting 1 if any expectation failed or a test errored.
tests_expr() {
  local run
  if [ -z "$1" ]; then
    run='testthat::test_dir("tests/testthat", package = "epimask", load_package = "installed", reporter = "summary", stop_on_failure = FALSE)'
  else
    run="testthat::test_file(\"tests/testthat/$1\", package = \"epimask\", load_package = \"installed\", reporter = \"summary\")"
  fi
  echo "options(testthat.summary.max_reports = 1000L); r <- as.data.frame($run); cat(sprintf('tests: %d expectations, %d failed, %d skipped, %d errors\n', sum(r\$nb), sum(r\$failed), sum(r\$skipped), sum(r\$error))); if (sum(r\$failed) + sum(r\$error) > 0) quit(status = 1)"
}

# The units of one step: each file of SANITIZE_FILES, or the whole suite.
units() { if [ -z "$files" ]; then echo "suite"; else echo "$files"; fi; }
unit_file() { if [ "$1" = "suite" ]; then echo ""; else basename "$1"; fi; }

clean_src() { rm -f src/*.o src/*.so; }

install_into() {  # $1 library, $2 log, then optional env assignments for R CMD INSTALL
  local lib=$1 log=$2
  shift 2
  clean_src
  env "$@" R CMD INSTALL --no-test-load -l "$lib" . > "$log" 2>&1
  local rc=$?
  clean_src
  return $rc
}

if [[ $steps == *asan* ]]; then
  lib=$(mktemp -d)
  install_into "$lib" "$out/asan-install.log" R_MAKEVARS_USER="$PWD/tools/sanitize.Makevars" ||
    { echo "sanitize: ASan build failed (see $out/asan-install.log)"; exit 1; }
  preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  # The browser tests start Chromium from the test process; with libasan
  # preloaded Chromium does not start. It is not ours to check: the tests get
  # a wrapper that starts it without the preload (the app's R process keeps it).
  chrome=${CHROMOTE_CHROME:-$(command -v chromium || command -v chromium-browser || true)}
  if [ -n "$chrome" ]; then
    wrapper="$out/chromium-without-asan"
    printf '#!/bin/sh\nunset LD_PRELOAD\nexec %s "$@"\n' "$chrome" > "$wrapper"
    chmod +x "$wrapper"
    export CHROMOTE_CHROME="$PWD/$wrapper"
    [[ $wrapper == /* ]] && export CHROMOTE_CHROME="$wrapper"
  fi
  for unit in $(units); do
    f=$(unit_file "$unit")
    log="$out/asan${f:+-${f%.R}}.log"
    start=$(date +%s)
    # R itself is not built with ASan: leak checking would report R's own allocations.
    LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 R_LIBS="$lib" \
      nice -n "$nice_level" Rscript --vanilla -e "$(tests_expr "$f")" > "$log" 2>&1
    rc=$?
    n_err=$(grep -cE 'ERROR: AddressSanitizer|runtime error:' "$log")
    counts=$(grep '^tests:' "$log" | tail -n 1)
    echo "sanitize: ASan+UBSan ${f:-test suite} exit $rc, $n_err sanitizer reports; ${counts:-no test counts} ($(( $(date +%s) - start )) s, $log)"
    { [ "$rc" -ne 0 ] || [ "$n_err" -ne 0 ]; } && status=1
  done
fi

if [[ $steps == *valgrind* ]]; then
  lib=$(mktemp -d)
  install_into "$lib" "$out/valgrind-install.log" || { echo "sanitize: build failed"; exit 1; }
  for unit in $(units); do
    f=$(unit_file "$unit")
    log="$out/valgrind${f:+-${f%.R}}.log"
    start=$(date +%s)
    # OpenMP threads confuse memcheck's accounting of thread stacks; one thread suffices.
    OMP_NUM_THREADS=1 R_LIBS="$lib" nice -n "$nice_level" \
      R -d "valgrind --error-exitcode=42 --track-origins=yes" --vanilla --slave \
      -e "$(tests_expr "$f")" > "$log" 2>&1
    rc=$?
    summary=$(grep 'ERROR SUMMARY' "$log" | tail -n 1 | sed 's/^==[0-9]*== //')
    counts=$(grep '^tests:' "$log" | tail -n 1)
    echo "sanitize: valgrind memcheck ${f:-test suite} exit $rc, ${summary:-no ERROR SUMMARY}; ${counts:-no test counts} ($(( $(date +%s) - start )) s, $log)"
    { [ "$rc" -ne 0 ] || ! echo "$summary" | grep -q 'ERROR SUMMARY: 0 errors'; } && status=1
  done
fi

if [[ $steps == *gctorture* ]]; then
  lib=$(mktemp -d)
  install_into "$lib" "$out/gctorture-install.log" || { echo "sanitize: build failed"; exit 1; }
  start=$(date +%s)
  R_LIBS="$lib" nice -n "$nice_level" Rscript --vanilla tools/gctorture.R > "$out/gctorture.log" 2>&1
  rc=$?
  echo "sanitize: gctorture over the .Call entry points exit $rc ($(( $(date +%s) - start )) s, $out/gctorture.log)"
  grep '^gctorture:' "$out/gctorture.log" || tail -n 3 "$out/gctorture.log"
  [ "$rc" -ne 0 ] && status=1
fi
exit $status
