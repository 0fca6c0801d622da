"""Proves the refleak harness (tests/refleak.py) catches leaks: runs a small test file that leaks
on purpose, in a subprocess under the refleak mode, and checks which of its tests the harness
fails. Runs only under the debug interpreter (the harness needs sys.gettotalrefcount), and is
itself never measured (it spawns interpreters)."""

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

pytestmark = [
    pytest.mark.skipif(
        not hasattr(sys, "gettotalrefcount"),
        reason="needs a Py_DEBUG interpreter (python3.11-dbg): run `make test` or `make refleak`",
    ),
    pytest.mark.no_refleak,
]

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SAMPLE = textwrap.dedent(
    '''
    import ctypes

    import pytest

    import _C

    _cache = []
    _sink = []


    def _leak_ref(obj):
        """Take one reference that is never given back."""
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


    def test_leaks_a_reference():
        _leak_ref(object())


    def test_leaks_a_tensor():
        _leak_ref(_C.zeros(3))


    def test_leaks_into_a_list():
        _sink.append(object())


    def test_clean():
        a = _C.ones(2, 3)
        b = (a + a) * 2
        assert b.sum().item() == 24


    def test_clean_with_raise():
        with pytest.raises(ZeroDivisionError):
            1 / 0


    def test_fills_a_cache_once():
        if not _cache:
            _cache.append(_C.zeros(2))


    def test_clean_with_fixture(tmp_path):
        assert tmp_path.is_dir()


    @pytest.mark.no_refleak
    def test_marked():
        _leak_ref(object())


    def test_plain_failure():
        assert 1 == 2
    '''
)

EXPECTED = {
    "test_leaks_a_reference": "failed",
    "test_leaks_a_tensor": "failed",
    "test_leaks_into_a_list": "failed",
    "test_clean": "passed",
    "test_clean_with_raise": "passed",
    "test_fills_a_cache_once": "passed",
    "test_clean_with_fixture": "passed",
    "test_marked": "passed",  # run once, not measured
    "test_plain_failure": "failed",
}


def _run_sample(tmp_path, *args, env_extra=None):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    junit = tmp_path / "junit.xml"
    env = dict(os.environ)
    # The same _C as this process (PYTHONPATH may be relative; the child runs in tmp_path).
    import _C

    c_root = os.path.dirname(os.path.dirname(os.path.abspath(_C.__file__)))
    inherited = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([TESTS_DIR, c_root, *inherited])
    env.pop("TENSORBIND_REFLEAK", None)
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "refleak", "-p", "no:cacheprovider",
         f"--junitxml={junit}", "-q", *args, "test_sample.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    outcomes, messages = {}, {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        outcomes[name] = "passed"
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcomes[name] = "failed" if tag != "skipped" else "skipped"
                messages[name] = (el.get("message") or "") + (el.text or "")
    return proc, outcomes, messages


def test_harness_fails_leaks_and_passes_clean_tests(tmp_path):
    proc, outcomes, messages = _run_sample(tmp_path, "--refleak")
    detail = f"\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    assert outcomes == EXPECTED, detail
    assert proc.returncode == 1, detail
    for name in ("test_leaks_a_reference", "test_leaks_into_a_list"):
        assert "refcount total grew on every run: deltas [1, 1, 1]" in messages[name], detail
    # A leaked tensor is one leaked reference, plus whatever the tensor object itself holds.
    assert "refcount total grew on every run" in messages["test_leaks_a_tensor"], detail
    assert "live tensors grew: deltas [1, 1, 1]" in messages["test_leaks_a_tensor"], detail
    assert "live tensors" not in messages["test_leaks_a_reference"], detail
    assert "reference leak" not in messages["test_plain_failure"], detail
    assert "refleak: 7 tests measured, 3 leaked, 1 run once, not measured" in proc.stdout, detail
    assert "noisy deltas" not in proc.stderr, detail


def test_harness_env_var_and_run_counts(tmp_path):
    proc, outcomes, messages = _run_sample(
        tmp_path, "-k", "leaks_a_reference or test_clean", env_extra={"TENSORBIND_REFLEAK": "1:3"}
    )
    detail = f"\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    assert outcomes == {
        "test_leaks_a_reference": "failed",
        "test_clean": "passed",
        "test_clean_with_raise": "passed",
        "test_clean_with_fixture": "passed",
    }, detail
    assert "deltas [1, 1, 1]" in messages["test_leaks_a_reference"], detail
    assert "1 warm-ups + 3 measured runs" in messages["test_leaks_a_reference"], detail


def test_harness_off_by_default(tmp_path):
    proc, outcomes, _ = _run_sample(tmp_path)
    detail = f"\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    expected = {name: "passed" for name in EXPECTED}
    expected["test_plain_failure"] = "failed"
    assert outcomes == expected, detail
