"""The generated stub (python/_C/__init__.pyi) is usable: mypy type-checks a sample program
against it, and rejects a wrong call. Needs mypy (installed by the Makefile in the release test
venv); not run under the debug interpreter, whose venv does not get mypy."""

import os
import pytest

import _C

mypy_api = pytest.importorskip("mypy.api", reason="mypy is not installed")

pytestmark = pytest.mark.no_refleak

HERE = os.path.dirname(os.path.abspath(__file__))


def run_mypy(path):
    # mypy finds an installed `_C` in site-packages by itself; a staged build (PYTHONPATH) is
    # passed through MYPYPATH, which must not name site-packages.
    env_path = os.path.dirname(os.path.dirname(os.path.abspath(_C.__file__)))
    old = os.environ.get("MYPYPATH")
    if os.path.basename(env_path) != "site-packages":
        os.environ["MYPYPATH"] = env_path
    try:
        return mypy_api.run(["--no-incremental", "--cache-dir", os.devnull, "--strict", path])
    finally:
        if old is None:
            os.environ.pop("MYPYPATH", None)
        else:
            os.environ["MYPYPATH"] = old


def test_stub_is_installed_next_to_the_package():
    pkg = os.path.dirname(os.path.abspath(_C.__file__))
    assert os.path.exists(os.path.join(pkg, "__init__.pyi"))
    assert os.path.exists(os.path.join(pkg, "py.typed"))


def test_sample_program_type_checks():
    out, err, status = run_mypy(os.path.join(HERE, "typing", "sample.py"))
    assert status == 0, out + err


def test_wrong_call_is_a_type_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import _C\n_C.zeros_like('x')\nt: _C.Tensor = _C.tensor([1]).dim()\n")
    out, err, status = run_mypy(str(bad))
    assert status == 1
    assert "zeros_like" in out and "Incompatible types in assignment" in out
