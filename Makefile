# The README's two commands:  make book   and   make test
# Both create .venv from requirements.txt on first use (again whenever requirements.txt changes).
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: book test chromium notebooks clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

# The book, from the outputs stored in the notebooks (nothing is executed): _build/html
book: $(STAMP)
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

# Every test: kernels (NVRTC compile, emulation, GPU tests where there is a GPU), the notebooks
# under nbval, and the built book in headless Chromium.
test: book chromium
	$(PY) -m pytest

# Debian's Chromium for the browser test (installed when missing and we are root).
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "warning: chromium not installed; outside CI the browser test is skipped"

# Re-execute every notebook in place on a GPU, recording the device (refuses without a GPU).
notebooks: $(STAMP)
	$(PY) -m kernels.notebooks execute

clean:
	rm -rf _build
