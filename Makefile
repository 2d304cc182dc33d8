# The README's two commands:  make book   and   make test
# Both create .venv from requirements.txt on first use (again whenever requirements.txt changes).
# make book-only builds the same book in .venv-book from requirements-book.txt (jupyter-book and
# what the stored outputs need, no CuPy or test tools): the pages workflow uses it.
REQUIREMENTS ?= requirements.txt
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The stamp holds the requirements file it was made from (an empty one: requirements.txt), so a
# venv made from another file is brought up to date before use even when it is newer.
STAMPED := $(or $(shell cat $(STAMP) 2>/dev/null),requirements.txt)
BROWSERS := chromium chromium-browser google-chrome google-chrome-stable

.PHONY: book book-only test chromium notebooks gpu-matrix clean FORCE

$(STAMP): $(REQUIREMENTS) $(if $(filter-out $(REQUIREMENTS),$(STAMPED)),FORCE)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r $(REQUIREMENTS)
	echo $(REQUIREMENTS) > $@

FORCE:

# Both editions, from the outputs stored in the notebooks (nothing is executed): the English one
# in _build/html, the Korean one (ko/, built in _build/ko) copied into _build/html/ko, where the
# Pages site serves it under /ko/ and each page's language link expects it. --all: Sphinx copies
# book/_static only when some page is rebuilt (a change to reader.css alone would not show),
# and a whole build takes about 10 s.
book: $(STAMP)
	$(VENV)/bin/jupyter-book build . --all -W -n --keep-going
	$(VENV)/bin/jupyter-book build ko --all -W -n --keep-going --path-output _build/ko
	rm -rf _build/html/ko && cp -R _build/ko/_build/html _build/html/ko

book-only:
	$(MAKE) book REQUIREMENTS=requirements-book.txt VENV=.venv-book

# Every test: kernels (NVRTC compile, emulation, GPU tests where there is a GPU), the notebooks
# of both editions under nbval, the Korean edition's translation check, both built editions
# in headless Chromium.
test: book chromium
	$(PY) -m pytest

# A browser for the browser test: $BOOK_CHROMIUM, Chromium or Google Chrome (GitHub's runners
# have it); Debian's Chromium is installed only when none is found and we are root.
chromium:
	@for b in "$$BOOK_CHROMIUM" $(BROWSERS); do \
	  [ -n "$$b" ] && command -v "$$b" >/dev/null 2>&1 && exit 0; \
	done; \
	{ [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "warning: no chromium or google-chrome installed; outside CI the browser test is skipped"

# On a GPU: the generation matrix. nbval of every notebook (both editions) as a T4 (sm_75), as an
# A100 (sm_80) and as this GPU, then the GPU tests as sm_80 and natively (ASYNC_BOOK_ARCH,
# kernels/device.py).
gpu-matrix: $(STAMP)
	for arch in 75 80 ""; do echo "== notebooks as $${arch:-this GPU}"; \
	  ASYNC_BOOK_ARCH=$$arch $(PY) -m pytest notebooks/ ko/notebooks/ || exit 1; done
	for arch in 80 ""; do echo "== GPU tests as $${arch:-this GPU}"; \
	  ASYNC_BOOK_ARCH=$$arch $(PY) -m pytest -m gpu tests/ || exit 1; done

# Re-execute every notebook in place on a GPU, recording the device (refuses without a GPU), then
# carry the new outputs into the Korean notebooks (it names any markdown cell left to translate).
notebooks: $(STAMP)
	$(PY) -m kernels.publish.notebooks execute
	$(PY) -m kernels.publish.translate sync

clean:
	rm -rf _build
