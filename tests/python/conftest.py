"""tests/python/conftest.py: shared setup of the Python test suite of `_C`.

- Loads the refleak harness (tests/refleak.py): `--refleak` or TENSORBIND_REFLEAK=1 under the
  debug interpreter reruns every test and fails on reference or live-tensor leaks; the
  `no_refleak` marker keeps a test out of it (see that module's docstring).
- `report(line)`: a fixture that prints `line` in the terminal summary (the fuzz and soak tests
  report their call and iteration counts there, visible without `-s`).
- Reports which `_C` was imported, and stops the run when a debug interpreter has loaded a
  release `_C` (Debian's python3.11-dbg accepts release-suffixed modules: TOOLCHAIN.md trap 1).

`_C` is imported from wherever the interpreter finds it: the installed wheel (`make test`'s
release run) or PYTHONPATH=build-dbg (the debug runs). Never from python/ — that directory
holds the package's Python files but not the compiled extension.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The harness's hooks, registered as hooks of this conftest.
from refleak import (  # noqa: E402,F401
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_report_header as _refleak_report_header,
    pytest_runtest_call,
)
from refleak import pytest_terminal_summary as _refleak_terminal_summary  # noqa: E402
from refleak import pytest_configure as _refleak_configure  # noqa: E402


def pytest_configure(config):
    try:
        import _C
    except ImportError as e:
        raise pytest.UsageError(
            f"cannot import _C ({e}). Build and install it first: `make test` does it all, or "
            "`make wheel && pip install dist/*.whl`."
        ) from None
    debug_interpreter = hasattr(sys, "gettotalrefcount")
    if debug_interpreter and getattr(_C, "_py_debug", None) is not True:
        raise pytest.UsageError(
            f"{sys.executable} is a Py_DEBUG interpreter but _C at {_C.__file__} is a release "
            "build; build the debug one with `make refleak` and put build-dbg on PYTHONPATH."
        )
    _refleak_configure(config)


def pytest_report_header(config):
    import _C

    lines = [
        f"_C: {getattr(_C, '__file__', '?')} (version {getattr(_C, '__version__', '?')}, "
        f"_py_debug={getattr(_C, '_py_debug', '?')}, interpreter Py_DEBUG={hasattr(sys, 'gettotalrefcount')})"
    ]
    return lines + _refleak_report_header(config)


@pytest.fixture
def live_tensors():
    """Asserts that a test leaves no core tensor alive: yields the count before the test."""
    import gc

    import _C

    gc.collect()
    before = _C._live_tensors()
    yield before
    gc.collect()
    after = _C._live_tensors()
    assert after == before, f"{after - before} core tensor(s) leaked by this test"


_REPORT_KEY = pytest.StashKey[dict]()


@pytest.fixture
def report(request):
    """`report(line)` sets the test's line in the block printed at the end of the run (counts and
    measurements a test wants seen in CI logs). One line per test: a rerun (the refleak run calls
    a test several times) replaces it rather than growing a list the leak check would see."""
    lines = request.config.stash.setdefault(_REPORT_KEY, {})
    nodeid = request.node.nodeid

    def report(line: str) -> None:
        lines[nodeid] = line

    return report


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = config.stash.get(_REPORT_KEY, {})
    if lines:
        terminalreporter.write_sep("=", "measurements")
        for line in lines.values():
            terminalreporter.write_line(line)
    _refleak_terminal_summary(terminalreporter, exitstatus, config)
