# Autograd in Depth: the two commands are `make lab` and `make test`.
#
#   make lab             set up if needed, then JupyterLab on the repository, opened on the lessons
#   make test            set up if needed, then the library tests, nbval on every notebook, and
#                        the browser check (lab-check; LAB_CHECK=0 leaves it out)
#   make execute         re-run every notebook in a fresh kernel and store its outputs (a run that
#                        changes only timings keeps the stored ones; EXECUTE_FLAGS=--store-timings
#                        stores this run's: for a final run on an idle machine)
#   make restore-lessons put the stored lessons back as they are in git (close their tabs first)
#   make lab-check       every notebook in headless Chromium: as a static page (nbconvert's HTML, no
#                        kernel), then in JupyterLab (tests/browser/README.md)
#   make test-torch      every lesson run on real PyTorch 2.13 (CPU), compared with its stored outputs,
#                        and a short fixed run of the differential fuzzer (tests/fuzz/differential.py)
#   make fuzz            the differential fuzzer on more seeds: make fuzz SEEDS=0:20000 (FATAL=kinds)
#   make record-torch-timings  PyTorch's numbers for researcher lesson 3 (Inductor, guards, torch.cond),
#                        measured on this machine into notebooks/researcher/data/torch_timings_03.json
#   make record-minigrad-timings  minigrad's side of lesson 3's timing claims, ten separate processes,
#                        then ten with glibc's thresholds pinned, into notebooks/researcher/data/minigrad_timings_03.json
#   make record-torch-memory  PyTorch's numbers for researcher lesson 2 (the checkpointed chain's memory
#                        timeline at s = 1, 2, 4, 8, 16, both variants; the cost per segment) into
#                        notebooks/researcher/data/torch_memory_02.json
#   make record-torch-01  PyTorch's numbers for researcher lesson 1 (the transpose walk's nodes, the
#                        H u sweep) into notebooks/researcher/data/torch_01.json
#   make bench           speed and memory benchmarks, as ratios to a baseline run alongside
#                        (and to PyTorch: with .venv-torch from make torch-setup, or BENCH_PYTHON=...)
#   make clean           remove the environments and caches
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

# make test-torch: a second environment with PyTorch's CPU build.  Its CPU index is offered
# as well as the usual one: there 2.13.0+cpu outranks PyPI's (CUDA) 2.13.0.
TORCH_PREFIX := .venv-torch
TORCH_BIN := $(TORCH_PREFIX)/bin
TORCH_STAMP := $(TORCH_PREFIX)/.minigrad-installed
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

NOTEBOOKS := $(shell find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | sort)
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
TIMEOUT ?= 600
LAB_CHECK ?= 1

# JupyterLab settings for the lessons' environment: no "get notified about news?" prompt,
# Markdown files (the lessons' README) open rendered.
LAB_OVERRIDES := {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}, "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Markdown Preview"}}}

.PHONY: setup lab test test-library execute restore-lessons bench clean dot lab-check \
        browser-setup test-torch torch-setup fuzz record-torch-timings record-torch-memory \
        record-torch-01 record-minigrad-timings

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
	@mkdir -p $(PREFIX)/share/jupyter/lab/settings
	@echo '$(LAB_OVERRIDES)' > $(PREFIX)/share/jupyter/lab/settings/overrides.json
	@touch $(STAMP)

dot:
	@PATH="$(abspath $(BIN)):$$PATH" bash tests/tools/ensure_dot.sh

# The repository root is served, so every file a lesson names (minigrad/autograd/engine.py)
# opens in the same JupyterLab; it opens on the lessons' README (rendered).  The open tabs
# (JupyterLab's workspace) are this checkout's own, kept in the environment: not the tabs
# another project left in ~/.jupyter.
lab: setup
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/README.md \
	  --LabApp.workspaces_dir=$(PREFIX)/share/jupyter/lab/workspaces \
	  --ip=127.0.0.1 --no-browser $(ROOT_FLAG)

# with the browser check, its setup comes first, so the static-page test runs (not skips) every time
test: setup $(if $(filter 0,$(LAB_CHECK)),,browser-setup)
	$(BIN)/python -m pytest -q tests notebooks --nbval
	$(GENERAL_PATHS_TESTS)
ifneq ($(LAB_CHECK),0)
	@$(MAKE) --no-print-directory lab-check
endif

# the library tests and nbval only (no browser)
test-library: setup
	$(BIN)/python -m pytest -q tests notebooks --nbval
	$(GENERAL_PATHS_TESTS)

# the core's tests again with its general paths only (minigrad/autograd/paths.py), the
# paths a learner's debugger follows with MINIGRAD_GENERAL_PATHS=1 (about 10 s)
GENERAL_PATHS_TESTS = MINIGRAD_GENERAL_PATHS=1 $(BIN)/python -m pytest -q -p no:cacheprovider \
	tests/test_engine.py tests/test_gradients.py tests/test_freeing.py tests/test_hooks.py \
	tests/test_saved_values.py tests/test_inplace.py tests/test_custom_function.py \
	tests/test_autograd_grad.py tests/test_ops_gradcheck.py tests/test_tour.py

execute: setup
	$(BIN)/python tests/tools/execute_notebooks.py --timeout $(TIMEOUT) $(EXECUTE_FLAGS) $(NOTEBOOKS)

# `git checkout` of the lessons.  A lesson open in JupyterLab would be written back by its
# next save (autosave included): close its tab first, or answer "Revert" when JupyterLab
# says the file changed on disk.
restore-lessons:
	git checkout -- notebooks/
	@echo "Restored the stored lessons. If one was open in JupyterLab, close its tab without saving"
	@echo "(or choose File > Reload Notebook from Disk), or its next save undoes this."

browser-setup: setup
	@bash tests/browser/ensure_chromium.sh
	@$(BIN)/python -c 'import playwright' 2>/dev/null || { echo "installing playwright (the browser extra) ..."; $(BIN)/python -m pip install --quiet -e '.[browser]'; }

lab-check: browser-setup
	$(BIN)/python tests/browser/check_lab.py $(if $(CHROMIUM),--chromium $(CHROMIUM)) $(CHECK_ARGS)

torch-setup: $(TORCH_STAMP) dot

$(TORCH_STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.10 or newer"; exit 1; }
	$(PYTHON) -m venv $(TORCH_PREFIX)
	$(TORCH_BIN)/python -m pip install --quiet --upgrade pip
	@echo "installing PyTorch 2.13.0 (CPU) into $(TORCH_PREFIX) ..."
	$(TORCH_BIN)/python -m pip install --quiet --retries 1 --extra-index-url $(TORCH_INDEX) \
	  -e '.[test,torch]'
	@$(TORCH_BIN)/python -c 'import torch, sys; v = torch.__version__; print("torch", v); sys.exit(0 if v.split("+")[0] == "2.13.0" and not torch.version.cuda else "expected PyTorch 2.13.0 built for CPU, got " + v)'
	@touch $(TORCH_STAMP)

# Every lesson with `import minigrad as torch` replaced by `import torch`, run by nbval on
# real PyTorch, compared with the outputs stored from minigrad (tests/tools/test_torch.py);
# then random autograd programs run in both, step by step (tests/fuzz/differential.py): a
# fixed range of seeds that passes (about 10 s), failing on any value, gradient, graph,
# internal or error difference.
FUZZ_CI_SEEDS := 1700:2100
FUZZ_FATAL := value,internal,error,graph
test-torch: torch-setup
	$(TORCH_BIN)/python tests/tools/test_torch.py $(NOTEBOOKS)
	$(TORCH_BIN)/python tests/fuzz/differential.py --seeds $(FUZZ_CI_SEEDS) --fatal $(FUZZ_FATAL)

# The fuzzer for contributors: make fuzz SEEDS=0:20000 (FATAL= the kinds that fail the run)
SEEDS ?= 0:2000
FATAL ?= $(FUZZ_FATAL)
fuzz: torch-setup
	$(TORCH_BIN)/python tests/fuzz/differential.py --seeds $(SEEDS) --fatal $(FATAL)

# Researcher lesson 3 reads PyTorch's side of its measurements from a data file (Inductor's fused
# kernels and first call, Dynamo's guard tree, torch.cond, torch.export, size sweeps); this
# re-measures them on this machine with the machine, versions and date (a few minutes).
record-torch-timings: torch-setup
	$(TORCH_BIN)/python tests/tools/record_torch_timings.py

# minigrad's side of lesson 3's timing claims, in ten separate processes as PyTorch's (about five minutes).
record-minigrad-timings: $(STAMP)
	PYTHONPATH=. $(BIN)/python tests/tools/record_minigrad_timings.py
	PYTHONPATH=. $(BIN)/python tests/tools/record_minigrad_timings.py --fixed-allocator

record-torch-memory: torch-setup
	PYTHONPATH=. $(TORCH_BIN)/python tests/tools/record_torch_memory.py

# Researcher lesson 1 prints PyTorch's transpose-walk nodes and its H u sweep from a data file.
record-torch-01: torch-setup
	PYTHONPATH=. $(TORCH_BIN)/python tests/tools/record_torch_01.py

# The bench compares with PyTorch when its Python has it: BENCH_PYTHON, else .venv-torch if made.
bench: setup
	$(or $(BENCH_PYTHON),$(if $(wildcard $(TORCH_BIN)/python),$(TORCH_BIN)/python,$(BIN)/python)) tests/bench/run.py $(BENCH_ARGS)

clean:
	rm -rf .venv .venv-torch .conda-env .pytest_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find notebooks -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
