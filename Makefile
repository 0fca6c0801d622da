# tensorbind — build, test and demo entry points. See README.md.
#
#   make demo     build the release wheel, install it into .venv, run the Iris demo
#   make digits   the same, then train the small CNN on the 8x8 digits (python/examples/digits_cnn.py)
#   make test     cargo test; pytest on the release wheel; the refleak run under python3.11-dbg
#   make refleak  only the debug build and the refleak run
#   make fuzz     generated calls over every public callable, random seeds, for SECONDS (default 300)
#                 (tests/python/fuzzing.py; `make fuzz SECONDS=3600` for a long run)
#   make test-memcheck  the whole pytest suite under valgrind memcheck (debug build; long)
#   make memcheck-ci    the bounded memcheck run of CI: MEMCHECK_TESTS (object model, indexing,
#                 parser, the in-process fuzz batch)
#   make wheel    release wheel into dist/
#   make lint     cargo fmt --check, cargo clippy -D warnings
#   make conformance  _C against torch on torch's OpInfo sample, reference and error inputs
#                 (its own venv .venv-conform with torch from PyPI; CONFORM_ARGS=--quick: the
#                 bounded run of CI; tests/conformance/conformance.py)
#   make bench    the benchmark script (python/bench/bench.py; BENCH_ARGS=--quick for < 1 min)
#   make bench-autograd  autograd overhead beside torch (python/bench/bench_autograd.py; torch
#                 from the conformance venv; BENCH_ARGS=--quick)
#   make stubs    regenerate python/_C/__init__.pyi, README.md's op list and
#                 src/bindings/generated_sample.rs from the schema
#   make clean    remove build outputs and the venvs
#
# Re-running is cheap: cargo and maturin build incrementally, the venvs are reused.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

CARGO       ?= cargo
PYTHON      ?= python3
PYTHON_DBG  ?= /usr/bin/python3.11-dbg
DBG_APT_PKGS := python3.11-dbg python3.11-dev python3.11-venv

VENV        := .venv
VENV_DBG    := .venv-dbg
VENV_BUILD  := .venv-build
VENV_CONFORM := .venv-conform
DIST        := dist
TARGET_DBG  := target-dbg
# maturin builds in its own target dir: plain `cargo build`/`cargo test` in target/ configure
# pyo3-ffi differently (no PYO3_BUILD_EXTENSION_MODULE) and would force full rebuilds each time.
TARGET_WHEEL := target-wheel
BUILD_DBG   := build-dbg

# Python packages installed into the test venvs (hypothesis: the generated-call tests).
TEST_DEPS   := pytest>=8 hypothesis>=6.100
# numpy: the interop tests (release venv only: its wheel drifts the debug interpreter's refcount
# total, so the debug venv does without it and those tests skip there).
RELEASE_TEST_DEPS := numpy
# mypy type-checks a sample script against the stub (release venv only: its compiled wheels are
# for the release interpreter).
TYPECHECK_DEPS := mypy
MATURIN_REQ := maturin>=1.9,<2
# maturin from PATH when present, else from the build venv (created on demand).
MATURIN     ?= $(or $(shell command -v maturin 2>/dev/null),$(VENV_BUILD)/bin/maturin)

PYTEST_ARGS ?=
# The conformance venv: torch pinned (the oracle's version is part of the expected differences);
# expecttest is imported by torch's OpInfo module.
CONFORM_DEPS := torch==2.15.0 numpy expecttest pytest>=8 hypothesis>=6.100
CONFORM_ARGS ?=
REFLEAK_RUNS ?= 3:3
DEMO        := python/examples/iris_demo.py
BENCH       := python/bench/bench.py
BENCH_ARGS  ?=
BENCH_AUTOGRAD := python/bench/bench_autograd.py

.PHONY: help wheel install demo digits test cargo-test pytest-release debug-build pytest-debug refleak autograd-expected \
        fuzz test-memcheck memcheck-ci conformance lint bench bench-autograd stubs clean

help:
	@sed -n '3,21p' Makefile | sed 's/^# \{0,1\}//'

# ---- release wheel ---------------------------------------------------------------------------

$(VENV_BUILD)/bin/maturin:
	$(PYTHON) -m venv $(VENV_BUILD)
	$(VENV_BUILD)/bin/python -m pip install -q '$(MATURIN_REQ)'

wheel: $(MATURIN)
	rm -f $(DIST)/tensorbind-*.whl
	CARGO_TARGET_DIR=$(TARGET_WHEEL) $(MATURIN) build --release --out $(DIST) -i $(PYTHON)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Rebuilt when the Makefile changes (TEST_DEPS may have grown); pip skips what is installed.
$(VENV)/.test-deps: Makefile | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install -q $(foreach d,$(TEST_DEPS) $(RELEASE_TEST_DEPS),'$(d)') '$(TYPECHECK_DEPS)'
	touch $@

# Install the freshly built wheel into .venv (force: same version, new build).
install: wheel | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install -q --force-reinstall --no-deps $(DIST)/tensorbind-*.whl

demo: install
	$(VENV)/bin/python $(DEMO)

digits: install
	$(VENV)/bin/python python/examples/digits_cnn.py

# ---- tests -----------------------------------------------------------------------------------

# The refleak run is also the debug-interpreter pytest run (unmeasured tests run once there), so
# `pytest-debug` is not repeated here.
test: cargo-test pytest-release refleak

cargo-test:
	$(CARGO) test

pytest-release: install $(VENV)/.test-deps
	$(VENV)/bin/python -m pytest tests/python $(PYTEST_ARGS)

# The debug interpreter: installed with apt when missing and running as root.
$(PYTHON_DBG):
	@if [ "$$(id -u)" = 0 ]; then \
	    echo "$(PYTHON_DBG) missing: installing $(DBG_APT_PKGS)"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(DBG_APT_PKGS); \
	    test -x $(PYTHON_DBG); \
	else \
	    echo "error: $(PYTHON_DBG) (the Py_DEBUG interpreter) is missing." >&2; \
	    echo "Install it as root:  apt-get install -y $(DBG_APT_PKGS)" >&2; \
	    exit 1; \
	fi

# The extension compiled for the debug interpreter, staged as a package in build-dbg/_C/.
debug-build: $(PYTHON_DBG)
	PYO3_PYTHON=$(PYTHON_DBG) PYO3_BUILD_EXTENSION_MODULE=1 CARGO_TARGET_DIR=$(TARGET_DBG) \
	    $(CARGO) build --release
	rm -rf $(BUILD_DBG)/_C && mkdir -p $(BUILD_DBG)/_C
	find python/_C -maxdepth 1 -type f ! -name '*.so' -exec cp {} $(BUILD_DBG)/_C/ \;
	# The subpackages (`_C.nn`), without bytecode caches.
	find python/_C -mindepth 1 -maxdepth 1 -type d ! -name __pycache__ -exec cp -r {} $(BUILD_DBG)/_C/ \;
	find $(BUILD_DBG)/_C -name __pycache__ -prune -exec rm -rf {} +
	suffix="$$($(PYTHON_DBG) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")"; \
	    cp $(TARGET_DBG)/release/lib_C.so "$(BUILD_DBG)/_C/_C$$suffix"
	PYTHONPATH=$(CURDIR)/$(BUILD_DBG) $(PYTHON_DBG) -c \
	    "import _C, sys; assert _C._py_debug is True, _C.__file__; print('debug _C:', _C.__file__)"

$(VENV_DBG)/.test-deps: Makefile | $(PYTHON_DBG)
	test -x $(VENV_DBG)/bin/python || $(PYTHON_DBG) -m venv $(VENV_DBG)
	$(VENV_DBG)/bin/python -m pip install -q $(foreach d,$(TEST_DEPS),'$(d)')
	touch $@

pytest-debug: debug-build $(VENV_DBG)/.test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD_DBG) $(VENV_DBG)/bin/python -m pytest tests/python $(PYTEST_ARGS)

# The gradients tests/python/test_autograd.py expects, recomputed with torch (the oracle; torch
# is never imported by `make test`). TORCH_PYTHON: a Python with torch installed.
TORCH_PYTHON ?= /work/torch-venv/bin/python
autograd-expected:
	$(TORCH_PYTHON) tests/gen_autograd_expected.py

refleak: debug-build $(VENV_DBG)/.test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD_DBG) TENSORBIND_REFLEAK=$(REFLEAK_RUNS) \
	    $(VENV_DBG)/bin/python -m pytest tests/python -p no:cacheprovider $(PYTEST_ARGS)

# ---- hunting for crashes and memory errors (issue 9) -------------------------------------------

SECONDS     ?= 300
# The bounded memcheck run of CI (a few minutes on 2 cores); `make test-memcheck` runs everything.
MEMCHECK_TESTS := tests/python/test_object_model.py tests/python/test_indexing.py \
                  tests/python/test_indexing_advanced.py tests/python/test_parser.py \
                  tests/python/test_fuzz_calls.py::test_generated_calls_leave_nothing_behind
MEMCHECK_LOG ?= memcheck.log

# Random seeds until SECONDS are up; each round runs in a child process (a crash prints the call).
fuzz: install $(VENV)/.test-deps
	$(VENV)/bin/python tests/python/fuzzing.py loop --seconds $(SECONDS)

# valgrind runs the debug-interpreter build: it keeps its symbols (the release wheel is stripped).
test-memcheck: debug-build $(VENV_DBG)/.test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD_DBG) $(VENV_DBG)/bin/python tests/memcheck.py --log $(MEMCHECK_LOG) -- \
	    tests/python -q $(PYTEST_ARGS)

memcheck-ci: debug-build $(VENV_DBG)/.test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD_DBG) $(VENV_DBG)/bin/python tests/memcheck.py --log $(MEMCHECK_LOG) -- \
	    $(MEMCHECK_TESTS) -q $(PYTEST_ARGS)

# ---- against torch (issue 13) -----------------------------------------------------------------

$(VENV_CONFORM)/.deps: Makefile
	test -x $(VENV_CONFORM)/bin/python || $(PYTHON) -m venv $(VENV_CONFORM)
	$(VENV_CONFORM)/bin/python -m pip install -q $(foreach d,$(CONFORM_DEPS),'$(d)')
	touch $@

# Exits non-zero on a difference from torch that tests/conformance/expected_differences.txt does
# not list, or on a failure of the hypothesis-generated cases (test_generated.py: elementwise and
# reduction ops on drawn shapes, strides, dtypes and broadcasts; CONFORM_EXAMPLES per test).
conformance: wheel $(VENV_CONFORM)/.deps
	$(VENV_CONFORM)/bin/python -m pip install -q --force-reinstall --no-deps $(DIST)/tensorbind-*.whl
	$(VENV_CONFORM)/bin/python tests/conformance/conformance.py $(CONFORM_ARGS)
	cd tests/conformance && ../../$(VENV_CONFORM)/bin/python -m pytest test_generated.py -q -p no:cacheprovider

# ---- other -----------------------------------------------------------------------------------

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

# build.rs generates the stub, op list and bindings sample into $$OUT_DIR; this test copies them
# into the tree.
stubs:
	UPDATE_GENERATED=1 $(CARGO) test --lib -- --exact bindings::generated::tests::committed_generated_files_are_current

# numpy is installed with the release test deps; BENCH_ARGS=--quick, --callgrind, ... (see the script).
bench: install
	$(VENV)/bin/python -c 'import numpy' 2>/dev/null || $(VENV)/bin/python -m pip install -q numpy || true
	$(VENV)/bin/python $(BENCH) $(BENCH_ARGS)

# The installed release wheel, imported by the conformance venv's interpreter (it has torch).
bench-autograd: install $(VENV_CONFORM)/.deps
	$(VENV_CONFORM)/bin/python $(BENCH_AUTOGRAD) $(BENCH_ARGS) --path \
	    "$$($(VENV)/bin/python -c 'import _C, os; print(os.path.dirname(os.path.dirname(_C.__file__)))')"

clean:
	$(CARGO) clean
	rm -rf $(TARGET_WHEEL) $(TARGET_DBG) $(BUILD_DBG) $(DIST) $(VENV) $(VENV_DBG) $(VENV_BUILD) $(VENV_CONFORM) .pytest_cache
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
