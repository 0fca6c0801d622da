"""Errors at the boundary: each failure raises the Python exception torch raises (IndexError for
dims and indices, RuntimeError for shape mismatches, ValueError for ragged data, MemoryError for
allocations the system refuses), never SystemError, never a crash; the interpreter stays usable
afterwards and Python exceptions raised by user code inside a call propagate unchanged."""

import os
import subprocess
import sys
import textwrap

import pytest

import _C

# ---------------------------------------------------------------------------------------------
# out-of-range dims -> IndexError


DIM_CALLS = {
    "sum": lambda t: _C.sum(t, 2),
    "sum_tuple": lambda t: _C.sum(t, (0, 2)),
    "mean": lambda t: _C.mean(t, -3),
    "amax": lambda t: _C.amax(t, 2),
    "amin": lambda t: t.amin(-3),
    "argmax": lambda t: _C.argmax(t, 2),
    "argmin": lambda t: t.argmin(-3),
    "transpose": lambda t: t.transpose(0, 2),
    "squeeze": lambda t: t.squeeze(2),
    "unsqueeze": lambda t: t.unsqueeze(4),
    "flatten": lambda t: t.flatten(0, 2),
    "select": lambda t: t.select(2, 0),
    "size": lambda t: t.size(2),
    "stride": lambda t: t.stride(-3),
    "cat": lambda t: _C.cat([t, t], 2),
    "stack": lambda t: _C.stack([t, t], 4),
    "permute": lambda t: t.permute(0, 2),
}


def test_dim_out_of_range_is_index_error():
    t = _C.ones(2, 3)
    for name, call in DIM_CALLS.items():
        with pytest.raises(IndexError, match="Dimension out of range"):
            call(t)
            pytest.fail(f"{name}: no error")


def test_dim_out_of_range_message():
    # torch: IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
    with pytest.raises(IndexError) as info:
        _C.ones(2, 3).sum(2)
    assert str(info.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    # a 0-dim tensor accepts dims -1 and 0 only: torch: [-1, 0]
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        _C.tensor(1.0).sum(1)


def test_index_out_of_range_is_index_error():
    t = _C.ones(2, 3)
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        t[2]
    with pytest.raises(IndexError):
        t[0, 3] = 1
    with pytest.raises(IndexError, match="out of range"):
        t.select(1, 3)


# ---------------------------------------------------------------------------------------------
# broadcasting / shape mismatches -> RuntimeError


BINARY_FUNCS = [_C.add, _C.sub, _C.mul, _C.div, _C.remainder, _C.floor_divide, _C.pow, _C.maximum,
                _C.minimum, _C.eq, _C.ne, _C.lt, _C.le, _C.gt, _C.ge]


def test_broadcast_mismatch_is_runtime_error():
    # torch: RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
    for fn in BINARY_FUNCS:
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 1"):
            fn(_C.ones(2, 3), _C.ones(2, 2))
            pytest.fail(f"{fn.__name__}: no error")


def test_matmul_shape_mismatch_is_runtime_error():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        _C.ones(2, 3) @ _C.ones(2, 3)
    with pytest.raises(RuntimeError):
        _C.matmul(_C.ones(2, 2, 3), _C.ones(2, 4, 2))


def test_ragged_is_value_error():
    with pytest.raises(ValueError, match=r"expected sequence of length 3 at dim 1 \(got 2\)"):
        _C.tensor([[1, 2, 3], [4, 5]])
    with pytest.raises(ValueError):
        _C.tensor([[1, 2], [3, [4]]])
    with pytest.raises(ValueError):
        _C.Tensor([[1.0], []])


# ---------------------------------------------------------------------------------------------
# allocation failures


def _still_alive():
    r = _C.ones(3) + 1
    assert r.tolist() == [2.0, 2.0, 2.0]


def test_huge_allocation_overflowing_size():
    # 2**62 float32 elements = 2**64 bytes: the byte count overflows
    with pytest.raises((MemoryError, RuntimeError)):
        _C.zeros(2**62)
    with pytest.raises((MemoryError, RuntimeError)):
        _C.ones(2**62, dtype=_C.int64)
    _still_alive()


def test_huge_allocation_is_memory_error():
    # 2**40 float32 elements = 4 TiB: the allocator refuses -> MemoryError, not an abort
    with pytest.raises(MemoryError):
        _C.zeros(2**40)
    with pytest.raises(MemoryError):
        _C.empty(2**40, dtype=_C.bool)
    with pytest.raises(MemoryError):
        _C.full((2**20, 2**20), 1.5)
    _still_alive()


def test_element_count_overflow_is_runtime_error():
    # torch: RuntimeError: Storage size calculation overflowed with sizes=[...]
    with pytest.raises(RuntimeError, match="overflow"):
        _C.zeros(2**31, 2**31, 2**31)
    _still_alive()


def test_huge_result_of_an_op_is_memory_error():
    big = _C.ones(1).expand(2**40)  # a view: no allocation
    assert big.shape == (2**40,)
    assert big.stride() == (0,)
    with pytest.raises(MemoryError):
        big + 1
    with pytest.raises(MemoryError):
        big.contiguous()
    with pytest.raises(MemoryError):
        _C.ones(2**20, 1).expand(2**20, 2**20).clone()
    _still_alive()


@pytest.mark.no_refleak  # a child process: nothing to leak-check here, and slow to repeat
def test_huge_allocation_in_subprocess_exits_cleanly():
    code = textwrap.dedent(
        """
        import _C
        for f in (lambda: _C.zeros(2**40), lambda: _C.zeros(2**62), lambda: _C.ones(2**20, 2**20)):
            try:
                f()
            except (MemoryError, RuntimeError):
                pass
            else:
                raise SystemExit("no error")
        print((_C.ones(2) * 3).tolist())
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ.copy())
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[3.0, 3.0]"


# ---------------------------------------------------------------------------------------------
# never SystemError, never a crash


FAILING_CALLS = [
    (lambda: _C.add(_C.ones(1), "x"), TypeError),
    (lambda: _C.zeros(-5), RuntimeError),
    (lambda: _C.arange(0, 1, 0), RuntimeError),
    (lambda: _C.ones(3).view(2, 2), RuntimeError),
    (lambda: _C.ones(3)[5], IndexError),
    (lambda: _C.ones(3)[::0], ValueError),
    (lambda: _C.tensor([[1], [2, 3]]), ValueError),
    (lambda: _C.tensor(["a"]), TypeError),
    (lambda: _C.ones(2).item(), RuntimeError),
    (lambda: bool(_C.ones(2)), RuntimeError),
    (lambda: int(_C.ones(2)), ValueError),
    (lambda: len(_C.tensor(1)), TypeError),
    (lambda: _C.mean(_C.tensor([1, 2])), NotImplementedError),  # torch 2.15
    (lambda: _C.tensor([1]) // 0, RuntimeError),
    (lambda: _C.dot(_C.ones(2), _C.ones(3)), RuntimeError),
    (lambda: _C.cat([]), ValueError),  # torch 2.15: ValueError
    (lambda: _C.ones(2).expand(3), RuntimeError),
    (lambda: _C.ones(2, 2).permute(0, 0), RuntimeError),
    (lambda: _C.zeros(1, dtype="x"), TypeError),
]


def test_errors_have_documented_types():
    bad = []
    for i, (call, exc) in enumerate(FAILING_CALLS):
        try:
            call()
        except Exception as e:  # noqa: BLE001 - checking the type below
            if isinstance(e, SystemError) or not isinstance(e, exc) or not str(e):
                bad.append(f"case {i}: expected {exc.__name__}, got {e!r}")
        else:
            bad.append(f"case {i}: no error")
    assert not bad, "\n".join(bad)


def test_exception_chain_is_clean():
    # a failed call leaves no pending error: the next call and a plain Python statement work
    try:
        _C.ones(2) + _C.ones(3)
    except RuntimeError as e:
        assert e.__cause__ is None
    assert sum([1, 2]) == 3
    _still_alive()


@pytest.mark.no_refleak  # a child process: nothing to leak-check here, and slow to repeat
def test_stress_edge_cases_in_subprocess_never_crash():
    # Run many edge-case calls in a child process: whatever each raises, the process must not die
    # from a signal (a Rust panic or abort would); a panic must surface as RuntimeError.
    code = textwrap.dedent(
        """
        import _C
        z = _C.zeros(0)
        s = _C.tensor(3)
        calls = [
            lambda: z.sum(), lambda: z.mean(), lambda: z.amax(), lambda: z.argmax(), lambda: z @ z,
            lambda: z.view(0, 5), lambda: z.reshape(-1, 0), lambda: _C.zeros(0, 3).amax(0),
            lambda: s.transpose(0, 0), lambda: s.squeeze(), lambda: s[None, ..., None],
            lambda: s.flatten(), lambda: s.expand(0), lambda: s @ s, lambda: _C.stack([s, s]),
            lambda: _C.cat([z, z]), lambda: _C.cat([s]), lambda: _C.arange(1e30),
            lambda: _C.arange(0, 1e-30, 1e-45), lambda: _C.arange(-2**63, 2**63 - 1, 2**62),
            lambda: _C.full((2,), float("nan"), dtype=_C.int64), lambda: _C.tensor([1e300]).float(),
            lambda: _C.tensor([float("inf")]).long(), lambda: _C.tensor([-2**63]) // -1,
            lambda: _C.tensor([-2**63]) % -1, lambda: _C.tensor([-2**63]).abs(),
            lambda: _C.tensor([2]) ** 64, lambda: _C.tensor([-2**63]).neg(),
            lambda: _C.ones(2, 3)[..., ..., 0], lambda: _C.ones(2)[10:-10:3],
            lambda: _C.ones(2)[-2**62], lambda: _C.ones(2)[2**62:], lambda: _C.ones(3)[2**63 - 1],
            lambda: _C.ones(2, 3).expand(-1, -1), lambda: _C.ones(1).expand(-2),
            lambda: _C.ones(2).view(-1, -1), lambda: _C.ones(6).view(0, -1),
            lambda: _C.ones(2, 3).flatten(1, 0), lambda: _C.ones(2).select(0, -2**63),
            lambda: _C.ones(2).unsqueeze(-2**63), lambda: _C.ones(2).sum(2**63 - 1),
            lambda: _C.ones(2).sum((0, 0, 0)), lambda: _C.zeros(2**63 - 1),
            lambda: _C.zeros(2**32, 2**32), lambda: _C.ones(3).permute(),
            lambda: _C.tensor([[[[[[[[[[1]]]]]]]]]]).sum((0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
            lambda: _C.tensor([1, 2]).div_(0, rounding_mode="floor"),
            lambda: _C.ones(3).fill_(_C.ones(3)), lambda: _C.where(_C.tensor(True), 1, 2.5),
            lambda: _C.ones(0, 0) @ _C.ones(0, 0), lambda: _C.dot(z, z),
        ]
        bad = []
        for i, f in enumerate(calls):
            try:
                f()
            except (TypeError, ValueError, IndexError, RuntimeError, MemoryError, OverflowError,
                    NotImplementedError) as e:
                # a caught Rust panic is not a crash, but it is a bug (e.g. unchecked arithmetic)
                if "panic" in str(e).lower():
                    bad.append((i, repr(e)))
            except BaseException as e:
                bad.append((i, repr(e)))
        print("ok" if not bad else "\\n".join(map(str, bad)))
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert p.returncode == 0, f"child died with {p.returncode}: {p.stderr[-2000:]}"
    assert p.stdout.strip() == "ok", p.stdout


# ---------------------------------------------------------------------------------------------
# Python errors raised inside a call propagate unchanged


class BadIndex:
    def __index__(self):
        raise ZeroDivisionError("from __index__")


def test_user_index_error_propagates_from_slice():
    t = _C.arange(5)
    with pytest.raises(ZeroDivisionError, match="from __index__"):
        t[BadIndex():]
    _still_alive()


class BadSeq(list):
    pass


def test_deeply_nested_and_self_referencing_data():
    deep = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ValueError):
        _C.tensor(deep)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError):
        _C.tensor(loop)
    _still_alive()


def test_subclasses_of_builtin_numbers_and_lists():
    class MyInt(int):
        pass

    class MyFloat(float):
        pass

    assert _C.zeros(MyInt(2)).shape == (2,)
    assert _C.tensor([MyInt(3), MyInt(4)]).tolist() == [3, 4]
    assert _C.tensor([MyFloat(1.5)]).dtype is _C.float32
    assert _C.tensor(BadSeq([1, 2])).tolist() == [1, 2]
    assert (_C.ones(1) + MyFloat(0.5)).tolist() == [1.5]


def test_errors_under_many_repetitions_do_not_accumulate():
    before = _C._live_tensors()
    for _ in range(200):
        with pytest.raises(RuntimeError):
            _C.ones(2) + _C.ones(3)
        with pytest.raises(TypeError):
            _C.add(_C.ones(1), "x")
    assert _C._live_tensors() <= before + 2


def test_str_argument_without_utf8_form_is_torchs_runtime_error():
    # torch 2.15: RuntimeError "error unpacking string as utf-8" for a str argument holding a lone
    # surrogate; ours names the function and the argument as well. No UnicodeEncodeError escapes.
    a = _C.ones(2)
    with pytest.raises(RuntimeError, match=r"div\(\): argument 'rounding_mode' .*error unpacking string as utf-8"):
        _C.div(a, a, rounding_mode="\ud800")
    with pytest.raises(RuntimeError, match="error unpacking string as utf-8"):
        _C.Generator(device="\ud800")
    # An unknown keyword with no UTF-8 form: a TypeError naming it '?' (README, deliberate
    # differences), and no
    # error indicator left behind by the failed conversion (the next call works).
    with pytest.raises(TypeError, match=r"sum\(\) received an invalid combination of arguments - got \(\?=int\)"):
        a.sum(**{"\ud800": 1})
    assert a.sum().item() == 2.0


def test_node_attribute_without_utf8_form_is_attribute_error():
    # torch 2.15: AttributeError "'MulBackward0' object has no attribute '\ud800'".
    y = _C.ones(2, requires_grad=True) * 2
    with pytest.raises(AttributeError, match="has no attribute"):
        getattr(y.grad_fn, "\ud800")
