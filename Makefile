# Autograd in Depth: the two commands are `make lab` and `make test`.
#
#   make lab       set up if needed, then open JupyterLab on notebooks/
#   make test      set up if needed, then the library tests and nbval on every notebook
#   make execute   re-run every notebook in a fresh kernel and store its outputs
#   make bench     speed and memory benchmarks, as ratios to a baseline run alongside
#                  (against PyTorch too: make bench BENCH_PYTHON=<a python with torch>)
#   make clean     remove the environment and caches
#   make lab-check run every notebook in JupyterLab in headless Chromium (tests/browser/README.md)
#
# Setup makes .venv with pip.  With conda or mamba on PATH, `make ENV=conda ...`
# builds .conda-env from environment.yml instead.

SHELL := /bin/bash
PYTHON ?= python3
ENV ?= pip

ifeq ($(ENV),conda)
  CONDA := $(shell command -v mamba 2>/dev/null || command -v conda 2>/dev/null)
  PREFIX := .conda-env
  BIN := $(PREFIX)/bin
  STAMP := $(PREFIX)/.minigrad-installed
else
  PREFIX := .venv
  BIN := $(PREFIX)/bin
  STAMP := $(PREFIX)/.minigrad-installed
endif

NOTEBOOKS := $(shell find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | sort)
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
TIMEOUT ?= 600

.PHONY: setup lab test execute bench clean dot lab-check

setup: $(STAMP) dot

$(STAMP): pyproject.toml environment.yml
ifeq ($(ENV),conda)
	@test -n "$(CONDA)" || { echo "ENV=conda needs conda or mamba on PATH (or use the default: make setup)"; exit 1; }
	$(CONDA) env create --yes -p $(PREFIX) -f environment.yml
else
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.10 or newer, or name one, e.g. make test PYTHON=python3.12"; exit 1; }
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed (found " + sys.version.split()[0] + "); name another, e.g. make test PYTHON=python3.12")'
	$(PYTHON) -m venv $(PREFIX)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[lessons,test]'
endif
	@# JupyterLab in this environment: no "get notified about news?" prompt for students
	@mkdir -p $(PREFIX)/share/jupyter/lab/settings
	@echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' > $(PREFIX)/share/jupyter/lab/settings/overrides.json
	@touch $(STAMP)

dot:
	@PATH="$(abspath $(BIN)):$$PATH" bash tests/tools/ensure_dot.sh

lab: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks --ip=127.0.0.1 --no-browser $(ROOT_FLAG)

test: setup
	$(BIN)/python -m pytest -q tests notebooks --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg

execute: setup
	$(BIN)/python tests/tools/execute_notebooks.py --timeout $(TIMEOUT) $(NOTEBOOKS)

lab-check: setup
	@bash tests/browser/ensure_chromium.sh
	@$(BIN)/python -c 'import playwright' 2>/dev/null || { echo "installing playwright (the browser extra) ..."; $(BIN)/python -m pip install --quiet -e '.[browser]'; }
	$(BIN)/python tests/browser/check_lab.py $(if $(CHROMIUM),--chromium $(CHROMIUM)) $(CHECK_ARGS)

bench: setup
	$(or $(BENCH_PYTHON),$(BIN)/python) tests/bench/run.py $(BENCH_ARGS)

clean:
	rm -rf .venv .conda-env .pytest_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find notebooks -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
