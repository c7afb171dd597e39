#!/usr/bin/env bash
# Install what building, checking and demonstrating epimask needs, on a fresh
# machine: Debian's prebuilt r-cran-* packages and system tools where we are
# root (fast), then CRAN from source for anything still missing.
set -euo pipefail

r_pkgs="roxygen2 knitr rmarkdown ggplot2 future future.apply progressr data.table tibble sf testthat"
# The workbench (shiny app) and its browser tests: shinytest2 drives Chromium
# through chromote; neither is packaged by Debian, so they come from CRAN.
r_pkgs="$r_pkgs shiny bslib promises shinytest2 chromote"
# command:Debian packages providing it (pdflatex builds the PDF manual).
sys_tools="pandoc:pandoc qpdf:qpdf tidy:tidy pdflatex:texlive-latex-base,texlive-latex-recommended,texlive-fonts-recommended"
# Headless browser for the workbench's tests (Debian's chromium).
sys_tools="$sys_tools chromium:chromium"

missing_r=$(Rscript --vanilla -e "p <- strsplit('$r_pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])")
missing_sys=""
for pair in $sys_tools; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing_sys="$missing_sys $(echo "${pair#*:}" | tr , ' ')"
done

if [ -z "$missing_r" ] && [ -z "$missing_sys" ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: missing R packages: ${missing_r:-none}; tools: ${missing_sys:-none}"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  debs="$missing_sys"
  for p in $missing_r; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  # One package at a time would be slow; try all, then fall back to each.
  if ! apt-get install -y -qq --no-install-recommends $debs >/dev/null 2>&1; then
    for d in $debs; do apt-get install -y -qq --no-install-recommends "$d" >/dev/null 2>&1 || echo "install-deps: apt could not install $d"; done
  fi
fi

still=$(Rscript --vanilla -e "p <- strsplit('$r_pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])")
if [ -n "$still" ]; then
  echo "install-deps: installing from CRAN: $still"
  lib=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
  Rscript --vanilla -e "install.packages(strsplit('$still', ' ')[[1]], lib = '$lib', repos = 'https://cloud.r-project.org', Ncpus = 2)"
fi
for t in pandoc qpdf pdflatex chromium; do
  command -v "$t" >/dev/null 2>&1 || echo "install-deps: warning: $t not found; vignettes or PDF checks may be skipped"
done
