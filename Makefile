# make demo  : install what is missing, build and install epimask, run the main job
# make check : install what is missing, R CMD build, R CMD check --as-cran
PKG     := epimask
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
RSCRIPT := Rscript --vanilla

# The check runs offline: skip the parts of --as-cran that need the network
# (CRAN incoming lookups, URL checks, the clock check); README explains this.
# R_RD4PDF drops the inconsolata font, which only Debian's 500 MB
# texlive-fonts-extra provides; the manual is built with the default fonts.
CHECK_ENV := _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_CRAN_INCOMING_=false \
             _R_CHECK_SYSTEM_CLOCK_=false _R_CHECK_FORCE_SUGGESTS_=true \
             R_RD4PDF=times,hyper \
             R_MAKEVARS_USER=$(CURDIR)/tools/check.Makevars

.PHONY: all deps document build install check test demo bench sanitize clean

all: check

deps:
	bash tools/install-deps.sh

document:
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

$(TARBALL): deps
	R CMD build .

build: $(TARBALL)

install: build
	R CMD INSTALL $(TARBALL)

check: build
	$(CHECK_ENV) R CMD check --as-cran $(TARBALL)

test: install
	$(RSCRIPT) -e 'testthat::test_dir("tests/testthat", package = "$(PKG)", load_package = "installed")'

demo: install
	$(RSCRIPT) tools/demo.R

bench: install
	for f in inst/bench/bench-*.R; do echo "== $$f"; $(RSCRIPT) $$f; done

sanitize:
	bash tools/sanitize.sh

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz src/*.o src/*.so demo
