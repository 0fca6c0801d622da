"""_C.set_num_threads / _C.get_num_threads (torch.set_num_threads / get_num_threads)."""

import pytest

import _C
from tensor_asserts import same


@pytest.fixture
def restore_threads():
    before = _C.get_num_threads()
    yield
    _C.set_num_threads(before)


def test_get_is_positive_and_set_round_trips(restore_threads):
    assert isinstance(_C.get_num_threads(), int) and _C.get_num_threads() >= 1
    assert _C.set_num_threads(1) is None
    assert _C.get_num_threads() == 1
    _C.set_num_threads(3)
    assert _C.get_num_threads() == 3


def test_results_do_not_depend_on_the_thread_count(restore_threads):
    # large enough for the parallel kernels (>= 256K elements)
    a = _C.arange(300_000, dtype=_C.float32) / 7.0
    _C.set_num_threads(1)
    s1, p1 = _C.sum(a), a * 3.0 + a
    _C.set_num_threads(2)
    s2, p2 = _C.sum(a), a * 3.0 + a
    assert s1.item() == s2.item()
    assert _C.equal(p1, p2)
    same(p1[:3], [0.0, 4.0 / 7.0, 8.0 / 7.0], _C.float32)


def test_errors(restore_threads):
    before = _C.get_num_threads()
    for bad in ("2", 2.0, None, True):
        with pytest.raises(TypeError, match=r"set_num_threads expects an int, but got"):
            _C.set_num_threads(bad)
    for bad in (0, -1, -(2**70)):
        with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
            _C.set_num_threads(bad)
    with pytest.raises(RuntimeError, match="at most"):
        _C.set_num_threads(2**70)
    with pytest.raises(TypeError):
        _C.set_num_threads()
    with pytest.raises(TypeError):
        _C.get_num_threads(1)
    assert _C.get_num_threads() == before
