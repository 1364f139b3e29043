# `make repro` and `make test` each set up .venv on a fresh machine (Python 3.11 and git only).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
export PATH := $(BIN):$(PATH)

.PHONY: setup repro test test-all bench lock clean exp metrics pipeline docs

setup: $(STAMP)

# constraints.txt pins every installed package, so a fresh clone gets the bytes the repository commits
# (Parquet footers and dvc.lock depend on library versions).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

# the relevance study reads its evidence from $ASSAY_EVIDENCE_ROOT (the demo's is synthetic and committed);
# `assay study intake` first locks what people handed in there, so `dvc repro` sees edited evidence
repro: $(STAMP)
	ASSAY_EVIDENCE_ROOT="$${ASSAY_EVIDENCE_ROOT:-$(CURDIR)/data/relevance/evidence.synthetic}" $(BIN)/assay study intake
	ASSAY_EVIDENCE_ROOT="$${ASSAY_EVIDENCE_ROOT:-$(CURDIR)/data/relevance/evidence.synthetic}" $(BIN)/dvc repro
	$(BIN)/assay summary

# DVC's tables in 80 columns: every declared metric is a column, so these show the headline only
# (metrics/headline.json: holdout pass rates before and after, change, cases gained and lost; the gate's verdict).
# `dvc metrics diff` and `dvc exp diff` list every other figure, one row each.
exp: $(STAMP)
	$(BIN)/dvc exp show --md --no-pager --drop '.*' --keep '^(Experiment|after|change|lost|passed)$$'

metrics: $(STAMP)
	$(BIN)/dvc metrics show --md metrics/headline.json

# `make test` (what CI runs): ruff, mypy, import-linter (the layering contracts in pyproject.toml), then pytest,
# leaving out the tests marked slow (pyproject's addopts: -m 'not slow'); `make test-all` runs them too (among
# them a verify of the whole demo, minutes long). pytest spreads the test files over TEST_WORKERS processes
# (pytest-xdist; CI has 2 cores). A file stays in one process, so a module's shared fixture is built once; the
# session's reproduced demo and small project (conftest.built_once) are built once for all processes.
# TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= 2
PYTEST_XDIST := -n $(TEST_WORKERS) --dist loadfile

test: $(STAMP)
	$(BIN)/ruff check src stages tests benchmarks examples
	$(BIN)/mypy src/assay
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_XDIST)

test-all: $(STAMP)
	$(BIN)/ruff check src stages tests benchmarks examples
	$(BIN)/mypy src/assay
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_XDIST) -m ''

# docs/commands.md's command tables are written from the argparse parsers (cog; tests/test_commands_doc.py
# fails while they differ)
docs: $(STAMP)
	$(BIN)/cog -r -I tests docs/commands.md

# dvc.yaml, params.yaml and examples/ci/assay.yml are generated from the templates `assay init` uses
# (src/assay/pipeline/templates, src/assay/project/templates); tests/test_pipeline.py checks them
pipeline: $(STAMP)
	$(BIN)/python -m assay.project.source

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# after changing dependencies in pyproject.toml: install the newest allowed versions, then pin them
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade -e '.[test]'
	(echo "# Pinned versions of everything make installs (pip constraints). Refresh with: make lock"; \
	 $(BIN)/python -m pip freeze --exclude-editable) > constraints.txt
	touch $(STAMP)

clean:
	rm -rf $(VENV)
