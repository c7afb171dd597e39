#!/usr/bin/env bash
# Memory safety of the C core (`make sanitize`):
#   1. the test suite against an ASan + UBSan build of the package,
#   2. the test suite under valgrind memcheck (plain build),
#   3. every .Call entry point under gctorture (tools/gctorture.R).
# Each step prints its verdict; the script exits non-zero if any step reports an error.
# Set SANITIZE_STEPS="asan valgrind gctorture" to choose steps.
set -uo pipefail
cd "$(dirname "$0")/.."
steps=${SANITIZE_STEPS:-"asan valgrind gctorture"}
out=${SANITIZE_OUT:-sanitize-out}
mkdir -p "$out"
status=0
tests='testthat::test_dir("tests/testthat", package = "epimask", load_package = "installed", reporter = "summary", stop_on_failure = FALSE)'

clean_src() { rm -f src/*.o src/*.so; }

if [[ $steps == *asan* ]]; then
  lib=$(mktemp -d); clean_src
  R_MAKEVARS_USER=$PWD/tools/sanitize.Makevars R CMD INSTALL --no-test-load -l "$lib" . > "$out/asan-install.log" 2>&1 || { echo "sanitize: ASan build failed (see $out/asan-install.log)"; exit 1; }
  clean_src
  preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  # R itself is not built with ASan: leak checking would report R's own allocations.
  LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 R_LIBS="$lib" \
    Rscript --vanilla -e "$tests" > "$out/asan.log" 2>&1
  rc=$?
  n_err=$(grep -cE 'ERROR: AddressSanitizer|runtime error:' "$out/asan.log")
  echo "sanitize: ASan+UBSan test run exit $rc, $n_err sanitizer reports ($out/asan.log)"
  { [ "$rc" -ne 0 ] || [ "$n_err" -ne 0 ]; } && status=1
fi

if [[ $steps == *valgrind* ]]; then
  lib=$(mktemp -d); clean_src
  R CMD INSTALL --no-test-load -l "$lib" . > "$out/valgrind-install.log" 2>&1 || { echo "sanitize: build failed"; exit 1; }
  clean_src
  # OpenMP threads confuse memcheck's accounting of thread stacks; one thread suffices.
  OMP_NUM_THREADS=1 R_LIBS="$lib" R -d "valgrind --error-exitcode=42 --track-origins=yes" \
    --vanilla --slave -e "$tests" > "$out/valgrind.log" 2>&1
  rc=$?
  summary=$(grep 'ERROR SUMMARY' "$out/valgrind.log" | tail -n 1)
  echo "sanitize: valgrind memcheck exit $rc, $summary ($out/valgrind.log)"
  { [ "$rc" -ne 0 ] || ! echo "$summary" | grep -q 'ERROR SUMMARY: 0 errors'; } && status=1
fi

if [[ $steps == *gctorture* ]]; then
  lib=$(mktemp -d); clean_src
  R CMD INSTALL --no-test-load -l "$lib" . > "$out/gctorture-install.log" 2>&1 || { echo "sanitize: build failed"; exit 1; }
  clean_src
  R_LIBS="$lib" Rscript --vanilla tools/gctorture.R > "$out/gctorture.log" 2>&1
  rc=$?
  echo "sanitize: gctorture over the .Call entry points exit $rc ($out/gctorture.log)"
  tail -n 3 "$out/gctorture.log"
  [ "$rc" -ne 0 ] && status=1
fi
exit $status
