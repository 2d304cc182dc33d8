# The README's two commands:  make book   and   make test
# Both create .venv from requirements.txt on first use (again whenever requirements.txt changes).
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: book test clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

book: $(STAMP)
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf _build
