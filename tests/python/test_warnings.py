"""Warnings (torch's TORCH_WARN): the core records them and the trampoline raises them as Python
warnings with the GIL held when the call returns (src/core/warnings.rs, Note [Warnings from the
core]; src/bindings/errors.rs), so `warnings.catch_warnings`, filters and `-W error` apply. Every
case where torch warns among our ops warns here with torch's category and text:

- std/var whose divisor N - correction is <= 0 (UserWarning, every call; ReduceOps.cpp)
- `tensor(a_tensor)`: copy construction (UserWarning, every call; tensor_new.cpp)
- `t.T` on a tensor of neither 0 nor 2 dims, and on a 0-dim tensor (UserWarning, once per
  process each; TensorShape.cpp `numpy_T`)
- indexing with a uint8 mask (UserWarning, every use; IndexingUtils.h)

(`out=` resizing warns too; test_factories/test_arithmetic cover it.)
"""

import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import _C

DOF = "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel divided by output numel)."
COPY = "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
T_ND = "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor."
T_0D = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
UINT8 = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."


def caught(call):
    """(result, [(category, message, filename)]) of `call` with every warning recorded."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category, str(w.message), w.filename) for w in ws]


def is_nan(t):
    return t.isnan().all().item()


# ---------------------------------------------------------------------------------------------
# std and var


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _C.ones(1).std(), "std"),  # N = 1, correction 1
        (lambda: _C.std(_C.ones(1)), "std"),
        (lambda: _C.ones(1).var(), "var"),
        (lambda: _C.var(_C.ones(3), correction=3), "var"),
        (lambda: _C.std(_C.ones(3), correction=5), "std"),
        (lambda: _C.ones(4, 1).std(1), "std"),  # one element per output
        (lambda: _C.ones(2, 3).var(dim=(0, 1), correction=6), "var"),
        (lambda: _C.tensor(2.5).std(), "std"),  # 0-dim: N = 1
        (lambda: _C.zeros(0).std(), "std"),  # empty: N = 0
        (lambda: _C.zeros(0).var(correction=0), "var"),  # 0 - 0 <= 0 still warns, as torch
        (lambda: _C.zeros(3, 0).var(1), "var"),
    ],
)
def test_std_var_without_degrees_of_freedom_warn(call, name, live_tensors):
    result, ws = caught(call)
    assert ws == [(UserWarning, DOF.format(name), __file__)]
    assert is_nan(result) or result.numel() == 0


def test_std_var_with_degrees_of_freedom_do_not_warn():
    for call in (
        lambda: _C.ones(2).std(),
        lambda: _C.ones(1).std(unbiased=False),
        lambda: _C.ones(3).var(correction=2),
        lambda: _C.ones(4, 3).std(0),
        lambda: _C.ones(1).var(correction=0),
        lambda: _C.arange(6.0).view(2, 3).var(dim=1, keepdim=True),
    ):
        result, ws = caught(call)
        assert ws == []
        assert not is_nan(result)


def test_std_var_warning_comes_with_the_result():
    x = _C.tensor([3.0])
    out = _C.zeros(0)
    result, ws = caught(lambda: _C.std(x, 0, out=out))
    assert result is out and is_nan(out)
    assert [w[1] for w in ws] == [DOF.format("std")]


# ---------------------------------------------------------------------------------------------
# filters and -W error


def test_error_filter_raises_and_discards_the_result(live_tensors):
    x = _C.ones(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=r"^std\(\): degrees of freedom is <= 0"):
            x.std()
        with pytest.raises(UserWarning, match="^To copy construct"):
            _C.tensor(x)
        with pytest.raises(UserWarning, match="^indexing with dtype torch.uint8"):
            _C.arange(3)[_C.tensor([1, 0, 1], dtype=_C.uint8)]
    # the fixture checks that no result stayed alive; x is untouched
    assert x.tolist() == [1.0]


def test_ignore_filter_silences_and_keeps_the_result():
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("ignore")
        r = _C.ones(1).var()
    assert ws == [] and is_nan(r)


def test_default_filter_reports_once_per_line():
    def twice():
        out = []
        for _ in range(2):
            out.append(_C.ones(1).std())  # one source line
        return out

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("default")
        twice()
    assert [str(w.message) for w in ws] == [DOF.format("std")]


def test_warning_and_error_of_one_call_are_both_raised():
    # torch emits a call's warnings even when the call then fails: a uint8 mask of the wrong
    # shape warns, then raises IndexError.
    x = _C.arange(4)
    mask = _C.tensor([1, 0, 1], dtype=_C.uint8)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(IndexError, match="The shape of the mask"):
            x[mask]
    assert [str(w.message) for w in ws] == [UINT8]


def test_error_filter_on_a_failing_call_keeps_the_error():
    # The warning cannot replace the call's own exception: it is reported as unraisable and the
    # IndexError propagates (torch prints it instead).
    x = _C.arange(4)
    mask = _C.tensor([1, 0, 1], dtype=_C.uint8)
    seen = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_type)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(IndexError):
                x[mask]
    finally:
        sys.unraisablehook = old_hook
    assert seen == [UserWarning]


def run_python(code, *flags):
    p = subprocess.run(
        [sys.executable, *flags, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    return p


@pytest.mark.no_refleak
def test_dash_w_error_in_a_fresh_interpreter():
    p = run_python(
        """
        import _C
        x = _C.ones(1)
        try:
            x.std()
        except UserWarning as e:
            print("raised:", e)
        print(_C.tensor([1.0, 3.0]).var().item())
        """,
        "-W",
        "error",
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["raised: " + DOF.format("std"), "2.0"]


# ---------------------------------------------------------------------------------------------
# tensor(a_tensor)


def test_tensor_of_a_tensor_warns_and_copies(live_tensors):
    a = _C.arange(3)
    b, ws = caught(lambda: _C.tensor(a))
    assert ws == [(UserWarning, COPY, __file__)]
    b.add_(10)
    assert a.tolist() == [0, 1, 2] and b.tolist() == [10, 11, 12]
    c, ws = caught(lambda: _C.tensor(a, dtype=_C.float64))
    assert len(ws) == 1 and c.dtype == _C.float64
    # no warning for data that is not a tensor
    _, ws = caught(lambda: _C.tensor([1, 2]))
    assert ws == []


# ---------------------------------------------------------------------------------------------
# T (once per process: checked in a fresh interpreter)


@pytest.mark.no_refleak
def test_T_warns_once_per_process_for_other_than_2_dims():
    p = run_python(
        """
        import warnings
        import _C
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            m = _C.ones(2, 3).T
            assert m.shape == (3, 2)
            print(len(ws))
            a = _C.ones(2, 3, 4).T
            b = _C.ones(5).T
            assert a.shape == (4, 3, 2) and b.shape == (5,)
            print(len(ws))
            s = _C.tensor(7.0).T
            s2 = _C.tensor(8.0).T
            assert s.item() == 7.0 and s2.item() == 8.0
            for w in ws:
                print(w.category.__name__, w.message)
        """
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["0", "1", "UserWarning " + T_ND, "UserWarning " + T_0D]


# ---------------------------------------------------------------------------------------------
# uint8 masks


def test_uint8_mask_warns_on_each_use(live_tensors):
    x = _C.arange(6).view(2, 3)
    m8 = _C.tensor([[1, 0, 1], [0, 0, 1]], dtype=_C.uint8)
    r, ws = caught(lambda: x[m8])
    assert r.tolist() == [0, 2, 5]
    assert ws == [(UserWarning, UINT8, __file__)]
    _, ws = caught(lambda: x.__setitem__(m8, -1))
    assert [w[1] for w in ws] == [UINT8]
    assert x.tolist() == [[-1, 1, -1], [3, 4, -1]]
    # two uint8 masks in one index: two warnings, as torch
    y = _C.arange(9).view(3, 3)
    r1 = _C.tensor([1, 0, 1], dtype=_C.uint8)
    r, ws = caught(lambda: y[r1, r1])
    assert r.tolist() == [0, 8] and len(ws) == 2


def test_bool_and_0_dim_masks_do_not_warn():
    x = _C.arange(3)
    for index in (
        _C.tensor([True, False, True]),
        _C.tensor(1, dtype=_C.uint8),  # a 0-dim uint8 tensor acts as True
        _C.tensor(True),
    ):
        _, ws = caught(lambda: x[index])
        assert ws == []
