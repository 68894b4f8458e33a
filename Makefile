# Two entry points (see README): `make run` and `make test`. Both set up what they need.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8080

.PHONY: run test lint golden bench system-run system-test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

system-run:
	@scripts/setup-system.sh run

system-test:
	@scripts/setup-system.sh test

run: $(STAMP) system-run
	$(BIN)/companion serve --port $(PORT)

test: $(STAMP) system-test
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 --dist loadgroup -q

lint: $(STAMP)
	$(BIN)/ruff check .

golden: $(STAMP)
	$(BIN)/python -m companion.transcript --write tests/golden

bench: $(STAMP)
	$(BIN)/python benchmarks/games.py
