"""The runtime around the core: panics on pool workers (src/core/parallel.rs, Note [Panics in
parallel regions]), the panic hook (src/bindings/errors.rs, Note [The panic hook]) and the worker
pool after fork (Note [The pool after fork])."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import _C


@pytest.fixture
def two_threads():
    before = _C.get_num_threads()
    _C.set_num_threads(2)
    yield
    _C.set_num_threads(before)


def run_python(code, **env):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


# ---------------------------------------------------------------------------------------------
# panics on pool workers


def test_panic_on_a_worker_becomes_runtime_error(two_threads, live_tensors):
    with pytest.raises(RuntimeError) as info:
        _C._testing_panic_in_worker()
    msg = str(info.value)
    assert msg.startswith("tensorbind internal error (Rust panic at src/bindings/testing.rs:")
    assert msg.endswith("): _testing_panic_in_worker: a chunk panicked on a worker")
    # The process goes on, and so does the pool: a large parallel op gives the right result.
    n = 1 << 20
    x = _C.arange(n, dtype=_C.float64)
    assert (x + x).sum().item() == float(n * (n - 1))
    with pytest.raises(RuntimeError, match="a chunk panicked on a worker"):
        _C._testing_panic_in_worker()


@pytest.mark.no_refleak
def test_panic_hook_is_quiet_for_caught_panics_and_chains_for_others():
    # RUST_BACKTRACE=1 makes Rust's default hook print a backtrace for every panic it sees.
    p = run_python(
        """
        import _C
        _C.set_num_threads(2)
        try:
            _C._testing_panic_in_worker()
        except RuntimeError as e:
            print("caught:", e)
        print("thread died:", _C._testing_panic_in_thread())
        """,
        RUST_BACKTRACE="1",
    )
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0].startswith("caught: tensorbind internal error (Rust panic at ")
    assert out[1] == "thread died: True"
    # The caught panic printed nothing; the one outside any trampoline went to the hook that was
    # installed before ours (Rust's default), which printed it with its thread and location.
    assert "_testing_panic_in_worker" not in p.stderr
    assert "thread 'tensorbind-test'" in p.stderr and "panicked at src/bindings/testing.rs" in p.stderr
    assert "_testing_panic_in_thread: a panic outside the trampoline" in p.stderr


@pytest.mark.no_refleak
def test_gil_checks_of_debug_builds():
    if not _C._py_debug:
        # compiled out of release builds
        with pytest.raises(RuntimeError, match="only in builds for a Py_DEBUG interpreter"):
            _C._testing_touch_without_gil()
        return
    p = run_python("import _C; _C._testing_touch_without_gil()")
    assert p.returncode == -6  # SIGABRT
    assert "tensorbind: a Python object was touched without the GIL" in p.stderr


# ---------------------------------------------------------------------------------------------
# fork


def threads_of_this_process():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.no_refleak
@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or not hasattr(os, "fork"), reason="Linux fork")
def test_forked_child_gets_its_own_worker_pool(two_threads):
    n = 1 << 21
    x = _C.arange(n, dtype=_C.float64)
    want = float(n * (n - 1))
    assert (x + x).sum().item() == want  # the parent's pool exists now
    # A thread keeps the parent's pool busy, so a fork can come while its mutexes are held.
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            (x * 2).sum()

    t = threading.Thread(target=busy)
    t.start()
    try:
        for _ in range(8):
            pid = os.fork()
            if pid == 0:  # the child: only this thread exists
                code = 1
                try:
                    ok = (x + x).sum().item() == want and (x * 3).sum().item() == 1.5 * want
                    # the child made workers of its own (the parent's do not exist here)
                    code = 0 if ok and threads_of_this_process() >= 2 else 3
                finally:
                    os._exit(code)
            deadline = time.monotonic() + 60
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    pytest.fail("the forked child hung (deadlock in the worker pool)")
                time.sleep(0.01)
            assert os.waitstatus_to_exitcode(status) == 0
            time.sleep(0.003)
    finally:
        stop.set()
        t.join()
