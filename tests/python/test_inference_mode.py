"""``inference_mode`` and inference tensors as torch's (issue 12, session 5).

Expected values and error texts are torch 2.15's (run by hand with torch 2.15 and written here;
torch is not imported).
"""

import threading

import pytest

import _C

ERR_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
ERR_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


def make_inference(*values):
    with _C.inference_mode():
        return _C.tensor(list(values))


def test_tensors_made_inside_are_inference_tensors():
    a = _C.ones(2, requires_grad=True)
    with _C.inference_mode():
        assert _C.is_inference_mode_enabled() and not _C.is_grad_enabled()
        x = _C.ones(2)
        y = a * 2
        small = _C.tensor(2.0)
        big = _C.zeros(100)
        assert x.is_inference() and y.is_inference() and small.is_inference()
        assert big.is_inference() and x[0:1].is_inference()
        # torch: nothing is recorded inside.
        assert not y.requires_grad and y.grad_fn is None
    assert not _C.is_inference_mode_enabled() and _C.is_grad_enabled()
    assert not a.is_inference() and _C.is_inference(x) and not _C.is_inference(a)


def test_views_and_copies():
    x = make_inference(1.0, 2.0, 3.0)
    # torch: x.clone() False; detach(), .data, x[0], view True; a result of an op outside False.
    assert not x.clone().is_inference()
    assert x.detach().is_inference() and x.data.is_inference() and x[0].is_inference()
    assert x.view(3).is_inference()
    assert not (x * 2).is_inference()
    # A view of a normal tensor made in inference mode is a normal tensor.
    t = _C.ones(2)
    with _C.inference_mode():
        v = t[0:1]
    assert not v.is_inference()
    v.add_(1)
    assert t.tolist() == [2.0, 1.0]


def test_in_place_outside_inference_mode_raises():
    x = make_inference(1.0, 2.0)
    for f in (
        lambda: x.add_(1),
        lambda: x.mul_(2),
        lambda: x.zero_(),
        lambda: x.copy_(_C.ones(2)),
        lambda: x.fill_(3.0),
        lambda: x.__setitem__(0, 5.0),
        lambda: _C.add(_C.ones(2), 1, out=x),
    ):
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == ERR_INPLACE
    assert x.tolist() == [1.0, 2.0]  # nothing was written
    with _C.inference_mode():
        x.add_(1)
    assert x.tolist() == [2.0, 3.0]


def test_version_counter():
    x = make_inference(1.0)
    with pytest.raises(RuntimeError, match="^Inference tensors do not track version counter.$"):
        x._version
    # A normal tensor written inside inference mode counts the write (torch: 1).
    t = _C.ones(2)
    with _C.inference_mode():
        t.add_(1)
    assert t._version == 1


def test_saved_for_backward_raises():
    a = _C.ones(2, requires_grad=True)
    x = make_inference(1.0, 2.0)
    with pytest.raises(RuntimeError) as e:
        a * x  # mul saves x for a's gradient
    assert str(e.value) == ERR_SAVED
    # add saves nothing: recorded as torch.
    assert (a + x).grad_fn.name() == "AddBackward0"

    class F(_C.autograd.Function):
        @staticmethod
        def forward(ctx, p, q):
            ctx.save_for_backward(q)
            return p * 1

        @staticmethod
        def backward(ctx, g):
            return g, None

    with pytest.raises(RuntimeError) as e:
        F.apply(a, x)
    assert str(e.value) == ERR_SAVED


def test_requires_grad_outside_inference_mode_raises():
    x = make_inference(1.0)
    with pytest.raises(RuntimeError) as e:
        x.requires_grad_()
    assert str(e.value) == (
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    )


def test_enable_grad_inside_records_nothing():
    a = _C.ones(2, requires_grad=True)
    with _C.inference_mode():
        with _C.enable_grad():
            assert _C.is_grad_enabled()
            z = a * 2
            assert not z.requires_grad and z.is_inference()
        with _C.inference_mode(False):
            w = _C.ones(2)
            assert not w.is_inference() and _C.is_grad_enabled()
            assert not _C.is_inference_mode_enabled()
        assert _C.is_inference_mode_enabled()


def test_mode_false_turns_grad_mode_on():
    # torch's InferenceMode(false): grad mode on whatever it was.
    with _C.no_grad():
        with _C.inference_mode(False):
            assert _C.is_grad_enabled()
        assert not _C.is_grad_enabled()
    with _C.inference_mode(mode=False):
        assert _C.is_grad_enabled() and not _C.is_inference_mode_enabled()


def test_decorator_forms():
    @_C.inference_mode()
    def f():
        return _C.is_inference_mode_enabled()

    @_C.inference_mode
    def g():
        return _C.is_inference_mode_enabled()

    @_C.inference_mode(mode=False)
    def h():
        return _C.is_inference_mode_enabled()

    assert f() is True and g() is True and h() is False
    assert g.__name__ == "g"
    with pytest.raises(TypeError):
        _C.is_inference(3)


def test_thread_local():
    seen = []
    with _C.inference_mode():
        th = threading.Thread(target=lambda: seen.append(_C.ones(2).is_inference()))
        th.start()
        th.join()
    assert seen == [False]


def test_training_after_inference_is_unaffected():
    w = _C.tensor([0.5, -1.0], requires_grad=True)
    with _C.inference_mode():
        pred = (w * 3).sum()
    assert pred.is_inference()
    loss = (w * w).sum()
    loss.backward()
    assert w.grad.tolist() == [1.0, -2.0]


def test_grad_mode_constructors_with_and_without_arguments():
    # no_grad() / enable_grad() take no argument (their fast constructor passes arguments on to
    # the normal one, which raises).
    for mode in (_C.no_grad, _C.enable_grad):
        assert type(mode()) is mode
        with pytest.raises(TypeError):
            mode(1)
        with pytest.raises(TypeError):
            mode(x=1)
    with _C.no_grad():
        assert not _C.is_grad_enabled()
        with _C.enable_grad():
            assert _C.is_grad_enabled()
    assert _C.is_grad_enabled()
