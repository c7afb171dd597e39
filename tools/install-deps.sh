#!/usr/bin/env bash
# Install what building, checking and demonstrating epimask needs, on a fresh
# machine: Debian's prebuilt r-cran-* packages and system tools where we are
# root (fast), then CRAN from source for anything still missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every package of DESCRIPTION's Imports and Suggests (the check forces
# Suggests), plus roxygen2 for `make document`; base packages come with R.
r_pkgs=$(Rscript --vanilla -e '
  d <- read.dcf("DESCRIPTION", fields = c("Imports", "Suggests"))
  p <- trimws(sub("\\(.*", "", unlist(strsplit(paste(d[!is.na(d)], collapse = ","), ","))))
  base <- rownames(installed.packages(priority = "base"))
  cat(setdiff(unique(c(p[nzchar(p)], "roxygen2")), base))')
# Version minima of DESCRIPTION ("ggplot2 (>= 4.0.0)": the plot snapshots
# were recorded under it): a package installed below its minimum counts as
# missing, so that CRAN brings it forward past Debian's older build.
r_minima=$(Rscript --vanilla -e '
  d <- read.dcf("DESCRIPTION", fields = c("Imports", "Suggests"))
  e <- trimws(unlist(strsplit(paste(d[!is.na(d)], collapse = ","), ",")))
  e <- e[grepl(">=", e, fixed = TRUE)]
  cat(paste0(trimws(sub("\\(.*", "", e)), ":", trimws(sub(".*>=\\s*([^)]*)\\).*", "\\1", e))))')
# command:Debian packages providing it (cmake builds HiGHS for highs;
# pdflatex builds the PDF manual;
# chromium runs the workbench's browser tests; slurm-wlm and munge the
# single-node Slurm cluster of tools/start-slurm.sh for the cluster tests).
sys_tools="cmake:cmake pandoc:pandoc qpdf:qpdf tidy:tidy pdflatex:texlive-latex-base,texlive-latex-recommended,texlive-fonts-recommended chromium:chromium slurmctld:slurm-wlm,slurm-client munged:munge"
# Headers that CRAN source builds of shinytest2's dependencies (curl,
# websocket, openssl) need.
dev_libs="libcurl4-openssl-dev libssl-dev libxml2-dev libglpk-dev"

missing_r() {
  Rscript --vanilla -e "
    p <- strsplit('$r_pkgs', ' ')[[1]]
    m <- strsplit(strsplit('$r_minima', ' ')[[1]], ':')
    minimum <- setNames(vapply(m, '[', '', 2), vapply(m, '[', '', 1))
    ok <- function(x) requireNamespace(x, quietly = TRUE) &&
      (is.na(minimum[x]) || utils::packageVersion(x) >= minimum[x])
    cat(p[!vapply(p, ok, logical(1))])"
}
missing=$(missing_r)
missing_sys=""
for pair in $sys_tools; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing_sys="$missing_sys $(echo "${pair#*:}" | tr , ' ')"
done

if [ -z "$missing" ] && [ -z "$missing_sys" ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: missing R packages: ${missing:-none}; tools: ${missing_sys:-none}"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  debs="$missing_sys $dev_libs"
  for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
  # highs is not packaged by Debian; what its source build needs is
  case " $missing " in *" highs "*) debs="$debs cmake r-cran-rcpp" ;; esac
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  # One package at a time would be slow; try all, then fall back to each
  # (shinytest2 and chromote are not packaged by Debian).
  if ! apt-get install -y -qq --no-install-recommends $debs >/dev/null 2>&1; then
    for d in $debs; do apt-get install -y -qq --no-install-recommends "$d" >/dev/null 2>&1 || echo "install-deps: apt could not install $d"; done
  fi
fi

lib=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
cran() {
  Rscript --vanilla -e "install.packages(strsplit('$1', ' ')[[1]], lib = '$lib', repos = 'https://cloud.r-project.org', Ncpus = 2, quiet = ${2:-FALSE})"
}
still=$(missing_r)
# highs (HiGHS, which the table verbs' audits use; Debian does not package
# it) compiles its C++ solver from source: on its own, with both cores and
# without debug information (tools/highs.Makevars), 5 minutes on the 2-core
# machine of inst/bench/README.md against 18 as one of the CRAN batch.
case " $still " in
  *" highs "*)
    # (quietly: its cmake build prints every compiler line, 600 kB)
    echo "install-deps: building highs (HiGHS) from CRAN's source, about 5 minutes"
    MAKEFLAGS="-j$(nproc 2>/dev/null || echo 2)" R_MAKEVARS_USER="$PWD/tools/highs.Makevars" cran highs TRUE
    still=$(missing_r) ;;
esac
if [ -n "$still" ]; then
  echo "install-deps: installing from CRAN: $still"
  cran "$still"
fi
# CRAN builds can bring a newer xfun than Debian's knitr and rmarkdown were
# built against; bring those forward too when they no longer load.
if ! Rscript --vanilla -e 'library(knitr); library(rmarkdown); invisible(knitr::knit)' >/dev/null 2>&1; then
  echo "install-deps: knitr / rmarkdown no longer load with the CRAN upgrades; updating them"
  cran "xfun knitr rmarkdown"
fi
still=$(missing_r)
[ -z "$still" ] || echo "install-deps: warning: still missing: $still"
for t in pandoc qpdf pdflatex chromium slurmctld munged; do
  command -v "$t" >/dev/null 2>&1 || echo "install-deps: warning: $t not found; vignettes, PDF, browser or cluster checks may fail"
done
