"""tests/memcheck.py: the pytest suite of `_C` under valgrind memcheck (`make test-memcheck`, and a
bounded subset in CI).

Runs ``valgrind --tool=memcheck <python> -m pytest <pytest args>`` with ``PYTHONMALLOC=malloc``
(CPython's small-object allocator hides use-after-free and confuses memcheck; with the system
allocator every object is one malloc block valgrind tracks), then reads valgrind's log and fails
(exit status 1) when it shows

- any memory error — invalid read or write, use of uninitialised values, invalid free, overlapping
  copies — (valgrind's own error count, `--error-exitcode`), or
- a *definite* leak whose allocation stack passes through `_C` (the extension's `.so` or a Rust
  symbol of the crate). Leaks of the interpreter itself at exit, "still reachable" blocks (the
  module's statics, interned strings, the tensor free list) and "possibly lost" ones are reported
  by count only.

Known reports of CPython and of the libraries it loads are suppressed by
tests/valgrind-python.supp (each entry says why). The `_C` under test should keep its symbols: the
Makefile uses the debug-interpreter build (build-dbg/, plain `cargo build`, not stripped), so the
reports name Rust functions; the release wheel is stripped.

Usage (PYTHONPATH must find the `_C` to test):

    python tests/memcheck.py [--log FILE] [--valgrind-arg ARG ...] -- PYTEST_ARGS...

Prints the summary: tests run, valgrind errors, leak totals, wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPRESSIONS = os.path.join(HERE, "valgrind-python.supp")

# A frame of ours: the extension module's file, or a symbol of the crate (legacy Rust mangling
# demangles to `_C::module::function`, v0 to `<_C::...>`; the C probe's symbols start with
# `tensorbind_`).
_OUR_FRAME = re.compile(r"(_C\.cpython-[^ )]*\.so|\b_C::|<_C::|\btensorbind_)")
_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors from (\d+) contexts")
_LEAK_LINE = re.compile(r"(definitely|indirectly|possibly) lost: ([\d,]+) bytes in ([\d,]+) blocks")
_REACHABLE = re.compile(r"still reachable: ([\d,]+) bytes in ([\d,]+) blocks")


def valgrind_command(python: str, log: str, extra: list[str]) -> list[str]:
    """The valgrind command line for running `python` under memcheck, logging to `log`."""
    return [
        "valgrind",
        "--tool=memcheck",
        "--error-exitcode=99",
        "--leak-check=full",
        "--show-leak-kinds=definite",
        "--errors-for-leak-kinds=none",  # leaks are judged below, by where they were allocated
        "--num-callers=40",
        f"--suppressions={SUPPRESSIONS}",
        f"--log-file={log}",
        *extra,
        python,
    ]


def leak_records(text: str) -> list[str]:
    """The "definitely lost" loss records of a valgrind log, each as its block of lines."""
    records, cur = [], None
    for line in text.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if "are definitely lost in loss record" in body:
            cur = [body]
            records.append(cur)
        elif cur is not None:
            if not body.strip():
                cur = None
            else:
                cur.append(body)
    return ["\n".join(r) for r in records]


def error_records(text: str) -> list[str]:
    """The memory-error records (not leaks) of a valgrind log, each as its block of lines."""
    kinds = ("Invalid read", "Invalid write", "uninitialised", "Invalid free", "Mismatched free",
             "Source and destination overlap", "Syscall param", "Argument 'size' of function")
    records, cur = [], None
    for line in text.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if any(body.startswith(k) or (k == "uninitialised" and k in body and not body.startswith(" "))
               for k in kinds):
            cur = [body]
            records.append(cur)
        elif cur is not None:
            if not body.strip():
                cur = None
            else:
                cur.append(body)
    return ["\n".join(r) for r in records]


def summarize(text: str) -> dict:
    """Counts from a valgrind log: errors, contexts, leak totals by kind, our definite leaks."""
    out = {"errors": None, "contexts": None, "leaks": {}, "reachable": None}
    m = None
    for m in _ERROR_SUMMARY.finditer(text):
        pass
    if m:
        out["errors"], out["contexts"] = int(m.group(1)), int(m.group(2))
    for kind, nbytes, blocks in _LEAK_LINE.findall(text):
        out["leaks"][kind] = (int(nbytes.replace(",", "")), int(blocks.replace(",", "")))
    r = _REACHABLE.search(text)
    if r:
        out["reachable"] = (int(r.group(1).replace(",", "")), int(r.group(2).replace(",", "")))
    out["our_definite_leaks"] = [rec for rec in leak_records(text) if _OUR_FRAME.search(rec)]
    out["error_records"] = error_records(text)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="pytest under valgrind memcheck")
    ap.add_argument("--log", default=None, help="valgrind log file (default: a temporary file)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--valgrind-arg", action="append", default=[])
    ap.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    if shutil.which("valgrind") is None:
        print("memcheck: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    log = args.log or tempfile.mkstemp(prefix="memcheck-", suffix=".log")[1]
    env = {**os.environ, "PYTHONMALLOC": "malloc_debug", "TENSORBIND_MEMCHECK": "1"}
    cmd = valgrind_command(args.python, log, args.valgrind_arg) + ["-m", "pytest", "-p", "no:cacheprovider",
                                                                   *pytest_args]
    print("memcheck:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    rc = subprocess.call(cmd, env=env)
    wall = time.monotonic() - t0
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    s = summarize(text)
    failed = False
    for rec in s["error_records"]:
        print("\nMEMORY ERROR:\n" + rec)
    if s["errors"] is None:
        print("memcheck: valgrind wrote no error summary (did it start?); its log ends with:\n"
              + "\n".join(text.splitlines()[-15:]))
        failed = True
    elif s["errors"]:
        failed = True
    for rec in s["our_definite_leaks"]:
        print("\nDEFINITE LEAK THROUGH _C:\n" + rec)
        failed = True
    if rc not in (0, 99):
        print(f"memcheck: pytest under valgrind exited with {rc}")
        failed = True
    leaks = ", ".join(f"{k} lost {b} bytes in {n} blocks" for k, (b, n) in s["leaks"].items()) or "no leak lines"
    print(f"\nmemcheck: {wall:.0f} s wall; valgrind errors: {s['errors']} (from {s['contexts']} contexts); "
          f"{leaks}; definite leaks through _C: {len(s['our_definite_leaks'])}; log: {log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
