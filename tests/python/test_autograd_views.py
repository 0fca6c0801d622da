"""In-place writes into views of tensors in an autograd graph, and `t[key] = value` on them
(core Note [CopySlices]): gradients, node names, versions and error texts as torch 2.15's,
recorded in copy_slices_expected.py by tests/gen_autograd_expected.py (`make autograd-expected`)."""

import math

import pytest

import _C
from copy_slices_cases import cases
from copy_slices_expected import EXPECTED

OBSERVED = None


def _observed():
    global OBSERVED
    if OBSERVED is None:
        OBSERVED = cases(_C)
    return OBSERVED


def _close(got, want):
    """Equal structure; floats within a few ULPs (libm's sin/exp may differ by one)."""
    if isinstance(want, float):
        return isinstance(got, float) and (
            got == want or math.isclose(got, want, rel_tol=1e-14, abs_tol=1e-300)
        )
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_close, got, want))
    return got == want


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_torch(name):
    got = cases(_C)[name]
    assert _close(got, EXPECTED[name]), (got, EXPECTED[name])


def test_every_case_recorded():
    assert sorted(_observed()) == sorted(EXPECTED)


def test_setitem_under_no_grad_records_nothing():
    x = _C.ones(3, requires_grad=True)
    y = x * 2
    with _C.no_grad():
        y[0] = 5.0
    # torch: y keeps MulBackward0; the write bumped the version.
    assert y.grad_fn.name() == "MulBackward0" and y._version == 1
    z = _C.zeros(3)
    with _C.no_grad():
        z[1] = x[1]
    assert z.is_leaf and not z.requires_grad


NO_GRAD_VIEW = (
    r"^A view was created in no_grad mode and is being modified inplace with grad mode enabled\. "
    r"Given that this use case is ambiguous and error-prone, it is forbidden\. You can clarify "
    r"your code by moving both the view and the inplace either both inside the no_grad block "
    r"\(if you don't want the inplace to be tracked\) or both outside \(if you want the inplace "
    r"to be tracked\)\.$"
)


def test_write_into_view_made_under_no_grad_is_refused():
    # torch 2.15's text, for a view of a non-leaf and of a leaf, by a method, an operator,
    # setitem, fill_, zero_ and copy_; under no_grad the same writes run.
    x = _C.ones(3, requires_grad=True)
    y = x * 1
    with _C.no_grad():
        v = y[:2]
        lv = x[:2]
    for t in (v, lv):
        for write in (lambda t: t.mul_(2), lambda t: t.__imul__(2), lambda t: t.__setitem__(0, 1.0),
                      lambda t: t.fill_(1.0), lambda t: t.zero_(), lambda t: t.copy_(_C.ones(2)),
                      lambda t: t.add_(x[:2])):
            with pytest.raises(RuntimeError, match=NO_GRAD_VIEW):
                write(t)
    assert y.tolist() == [1.0, 1.0, 1.0] and y._version == 0
    with _C.no_grad():
        v.mul_(3)
        lv.add_(1)
    assert y.tolist() == [3.0, 3.0, 1.0] and x.tolist() == [2.0, 2.0, 1.0]
    # Views of tensors that do not require grad, detach() and .data are not refused.
    b = _C.ones(3)
    with _C.no_grad():
        w = b[:2]
    w.mul_(2)
    x.detach()[:1].mul_(2)
    x.data[1:2].mul_(2)
    assert b.tolist() == [2.0, 2.0, 1.0] and x.tolist() == [4.0, 4.0, 1.0]


def test_graph_with_copyslices_dropped_without_backward(live_tensors):
    x = _C.ones(4, 4, requires_grad=True)
    y = x * 2
    y[1:3, 0] = x[0, :2] * 3
    v = y[0]
    v.mul_(2)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    del x, y, v
