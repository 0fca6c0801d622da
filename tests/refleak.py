"""tests/refleak.py: the refleak harness, a pytest plugin in the manner of CPython's ``-R``
(``Lib/test/libregrtest/refleak.py``).

Active with ``--refleak`` or the environment variable ``TENSORBIND_REFLEAK`` (``1``, or
``WARMUPS:RUNS``, e.g. ``3:3``; ``--refleak-runs`` overrides it). Each test runs once the normal
way; if it passed, its function is called again ``WARMUPS`` times, then ``RUNS`` times more
while the harness reads ``sys.gettotalrefcount()`` and ``_C._live_tensors()`` after each call
(after ``gc.collect()``). The test fails when

- the refcount total grew by 1 or more on every measured run (CPython's rule), or
- the number of live core tensors grew over the measured runs (a Rust-side leak, which
  ``gettotalrefcount`` cannot see),

with the per-run deltas in the message. A leak-free test reads 0 on every run.

It needs a ``Py_DEBUG`` interpreter (``python3.11-dbg``) and an ``_C`` built for it: a release
``_C`` loaded by the debug interpreter (which Debian allows) gives nonsense totals, so the run
stops with a usage error unless ``sys.gettotalrefcount`` exists and ``_C._py_debug`` is True.

Not measured (run once, the normal way, and not repeated): tests marked
``@pytest.mark.no_refleak``, and tests whose module has numpy in its globals (numpy's release
wheel drifts the debug refcount total). So the refleak run is also the plain pytest run under the
debug interpreter: ``make test`` needs no separate one.

The default, 3 warm-ups and 3 measured runs, is CPython's own (``python -m test -R 3:3``);
``make refleak REFLEAK_RUNS=3:8`` hunts longer.

Design notes:
- The reruns call the test function directly with the fixture values of the first run, inside
  the ``pytest_runtest_call`` wrapper: no pytest hook, report, capture or log machinery runs
  between two readings, so pytest's own bookkeeping adds nothing.
- Readings go into lists allocated before the loop. Storing a reading (a new int) into a slot
  releases the ``0`` that was there, so the harness's own bookkeeping nets to 0 per run.
- Function-scoped fixtures are shared by the reruns; a test that mutates its fixture value on
  every call will be reported (mark it ``no_refleak``).

Used by tests/python/conftest.py; tests/python/test_refleak_harness.py proves it catches a leak.
"""

from __future__ import annotations

import gc
import os
import sys

import pytest

ENV_VAR = "TENSORBIND_REFLEAK"
DEFAULT_WARMUPS = 3
DEFAULT_RUNS = 3

_STATE_KEY = pytest.StashKey[dict]()


def _parse_runs(text: str) -> tuple[int, int]:
    """``"1"``/``"yes"`` → the defaults; ``"W:N"`` → (W, N)."""
    text = text.strip()
    if ":" not in text:
        return DEFAULT_WARMUPS, DEFAULT_RUNS
    w, n = text.split(":", 1)
    warmups, runs = int(w), int(n)
    if warmups < 0 or runs < 2:
        raise ValueError(f"refleak runs must be WARMUPS>=0:RUNS>=2, got {text!r}")
    return warmups, runs


def _env_active() -> bool:
    return os.environ.get(ENV_VAR, "").strip().lower() not in ("", "0", "no", "false", "off")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("refleak", "reference-leak hunting (debug interpreter only)")
    group.addoption(
        "--refleak",
        action="store_true",
        default=False,
        help=f"rerun each test and fail on refcount or live-tensor growth (also: {ENV_VAR}=1)",
    )
    group.addoption(
        "--refleak-runs",
        metavar="WARMUPS:RUNS",
        default=None,
        help=f"warm-up and measured reruns per test (default {DEFAULT_WARMUPS}:{DEFAULT_RUNS}; "
        f"also {ENV_VAR}=W:N)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "no_refleak: run once but not measured by the refleak run, e.g. tests that spawn processes",
    )
    active = config.getoption("refleak") or _env_active() or config.getoption("refleak_runs")
    if not active:
        config.stash[_STATE_KEY] = {"active": False}
        return
    spec = config.getoption("refleak_runs") or os.environ.get(ENV_VAR, "1")
    try:
        warmups, runs = _parse_runs(spec)
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None
    if not hasattr(sys, "gettotalrefcount"):
        raise pytest.UsageError(
            f"refleak run needs a Py_DEBUG interpreter (sys.gettotalrefcount); {sys.executable} "
            "is a release build. Use python3.11-dbg (apt-get install python3.11-dbg) or `make refleak`."
        )
    try:
        import _C
    except ImportError as e:
        raise pytest.UsageError(f"refleak run: cannot import _C: {e}") from None
    if getattr(_C, "_py_debug", None) is not True:
        raise pytest.UsageError(
            f"refleak run: _C at {getattr(_C, '__file__', '?')} was not built for a Py_DEBUG "
            f"interpreter (_C._py_debug = {getattr(_C, '_py_debug', 'missing')!r}); its refcount "
            "totals would be meaningless. Build with PYO3_PYTHON=/usr/bin/python3.11-dbg (`make refleak`)."
        )
    config.stash[_STATE_KEY] = {
        "active": True,
        "warmups": warmups,
        "runs": runs,
        "live_tensors": _C._live_tensors,
        "checked": 0,
        "leaked": [],
        "unmeasured": set(),
    }


def _state(config: pytest.Config) -> dict:
    return config.stash.get(_STATE_KEY, {"active": False})


def _uses_numpy(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    if module is None:
        return False
    np = sys.modules.get("numpy")
    return np is not None and any(value is np for value in vars(module).values())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = _state(config)
    if not state["active"]:
        return
    for item in items:
        if item.get_closest_marker("no_refleak") or _uses_numpy(item):
            state["unmeasured"].add(item.nodeid)


def _cleanup() -> None:
    """Drop what a run may leave in caches and cycles before a reading (as CPython's
    ``dash_R_cleanup``, minus the stdlib caches that a warm-up fills for good)."""
    sys._clear_type_cache()
    gc.collect()


def _caller(item: pytest.Item):
    """A zero-argument callable that runs the test body once more, with the first run's fixture
    values; for non-function items, the item's own ``runtest``."""
    func = getattr(item, "obj", None)
    funcargs = getattr(item, "funcargs", None)
    fixtureinfo = getattr(item, "_fixtureinfo", None)
    if func is None or funcargs is None or fixtureinfo is None:
        return item.runtest
    kwargs = {name: funcargs[name] for name in fixtureinfo.argnames}
    return lambda: func(**kwargs)


def hunt(call, live_tensors, warmups: int, runs: int) -> tuple[list[int], list[int]]:
    """Call ``call`` ``warmups`` times, then ``runs`` times measuring; returns the per-run deltas
    of ``sys.gettotalrefcount()`` and of ``live_tensors()`` for the measured runs."""
    gettotal = sys.gettotalrefcount
    for _ in range(warmups):
        call()
    # Preallocate: see the module docstring, "Design notes".
    totals = [0] * (runs + 1)
    lives = [0] * (runs + 1)
    i = 0  # bound before the first reading; `i += 1` then nets 0 (small ints are shared)
    _cleanup()
    # Everything alive now (pytest's session, the test's fixtures, the module) moves to the
    # permanent generation, so each measured run's collection traverses only what the runs
    # allocate: 2 ms instead of 13 per collection under the debug interpreter, 12x faster
    # overall. Frozen objects still count in gettotalrefcount(), and garbage cycles made before
    # this point were collected just above; unfrozen afterwards so that later garbage among them
    # is collected again.
    gc.freeze()
    try:
        lives[0] = live_tensors()
        totals[0] = gettotal()
        while i < runs:
            i += 1
            call()
            _cleanup()
            lives[i] = live_tensors()
            totals[i] = gettotal()
    finally:
        gc.unfreeze()
    rc_deltas = [totals[i] - totals[i - 1] for i in range(1, runs + 1)]
    live_deltas = [lives[i] - lives[i - 1] for i in range(1, runs + 1)]
    return rc_deltas, live_deltas


def verdict(rc_deltas: list[int], live_deltas: list[int]) -> str | None:
    """The failure message, or None when the deltas show no leak."""
    problems = []
    if all(d >= 1 for d in rc_deltas):
        problems.append(f"refcount total grew on every run: deltas {rc_deltas} (sum {sum(rc_deltas)})")
    if sum(live_deltas) > 0:
        problems.append(f"live tensors grew: deltas {live_deltas} (sum {sum(live_deltas)})")
    if not problems:
        return None
    return "reference leak: " + "; ".join(problems)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    result = yield  # the normal run; a failure propagates from here untouched
    state = _state(item.config)
    if not state["active"] or item.nodeid in state["unmeasured"]:
        return result
    rc_deltas, live_deltas = hunt(_caller(item), state["live_tensors"], state["warmups"], state["runs"])
    state["checked"] += 1
    message = verdict(rc_deltas, live_deltas)
    if message is not None:
        state["leaked"].append(item.nodeid)
        pytest.fail(
            f"{message} [{state['warmups']} warm-ups + {state['runs']} measured runs; "
            f"refcount deltas {rc_deltas}, live-tensor deltas {live_deltas}]",
            pytrace=False,
        )
    elif any(rc_deltas) or any(live_deltas):
        # Not a consistent leak, but worth seeing with -rP / -s.
        sys.stderr.write(f"refleak: {item.nodeid}: noisy deltas {rc_deltas} / {live_deltas}\n")
    return result


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = _state(config)
    if not state["active"]:
        return []
    import _C

    return [
        f"refleak: on ({state['warmups']} warm-ups + {state['runs']} measured runs per test), "
        f"_C from {getattr(_C, '__file__', '?')}, _py_debug={_C._py_debug}"
    ]


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    state = _state(config)
    if not state["active"]:
        return
    leaked = state["leaked"]
    terminalreporter.write_sep(
        "=",
        f"refleak: {state['checked']} tests measured, {len(leaked)} leaked, "
        f"{len(state['unmeasured'])} run once, not measured (no_refleak / numpy)",
    )
    for nodeid in leaked:
        terminalreporter.write_line(f"LEAK {nodeid}")
