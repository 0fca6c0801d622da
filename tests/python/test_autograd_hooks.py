"""Autograd hooks, custom Functions, gradcheck and anomaly mode (issue 12, session 2).

Expected values, orders and error texts are torch 2.15's (run by hand with torch 2.15 and written
here; torch is not imported). The leak tests build the cycles torch never frees (research §2.1)
and check with weak references and the live-tensor counter that every one is freed.
"""

import gc
import warnings
import weakref

import pytest

import _C
from _C.autograd import Function


def ones(*shape, **kw):
    return _C.ones(*shape, requires_grad=True, **kw)


# ---- tensor hooks ----------------------------------------------------------------------------


def test_register_hook_replaces_the_gradient_and_order_is_torchs():
    # torch 2.15: [('t1', [1, 1]), ('pre', [2, 2]), ('post', [6, 6], [2, 2]), ('leaf', [6, 6]),
    # ('postacc', [6, 6])]; y.grad [2, 2]; a.grad [6, 6].
    log = []
    a = ones(2)
    y = a * 3
    y.retain_grad()
    y.register_hook(lambda g: log.append(("t1", g.tolist())) or g * 2)
    y.grad_fn.register_prehook(lambda go: log.append(("pre", go[0].tolist())))
    y.grad_fn.register_hook(
        lambda gi, go: log.append(("post", gi[0].tolist(), go[0].tolist()))
    )
    a.register_hook(lambda g: log.append(("leaf", g.tolist())))
    a.register_post_accumulate_grad_hook(lambda p: log.append(("postacc", p.grad.tolist())))
    y.sum().backward()
    assert log == [
        ("t1", [1.0, 1.0]),
        ("pre", [2.0, 2.0]),
        ("post", [6.0, 6.0], [2.0, 2.0]),
        ("leaf", [6.0, 6.0]),
        ("postacc", [6.0, 6.0]),
    ]
    assert y.grad.tolist() == [2.0, 2.0]
    assert a.grad.tolist() == [6.0, 6.0]


def test_leaf_hook_returning_a_tensor_changes_grad():
    a = ones(3)
    a.register_hook(lambda g: g * 10)
    (a * 2).sum().backward()
    assert a.grad.tolist() == [20.0, 20.0, 20.0]


def test_hooks_run_in_registration_order_and_chain():
    a = ones(2)
    y = a * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    assert a.grad.tolist() == [6.0, 6.0]


def test_handle_remove_and_id():
    a = ones(2)
    calls = []
    h1 = a.register_hook(lambda g: calls.append(1))
    h2 = a.register_hook(lambda g: calls.append(2))
    assert isinstance(h1.id, int) and h2.id == h1.id + 1
    h1.remove()
    h1.remove()  # idempotent, as torch
    (a * 2).sum().backward()
    assert calls == [2]
    with a.register_hook(lambda g: calls.append(3)):
        pass  # removed on exit
    (a * 2).sum().backward()
    assert calls == [2, 2]


def test_hook_on_autograd_grad_inputs():
    a = ones(2)
    y = a * 2
    y.register_hook(lambda g: g * 5)
    (g,) = _C.autograd.grad(y.sum(), a)
    assert g.tolist() == [10.0, 10.0]


@pytest.mark.parametrize(
    "setup, exc, text",
    [
        (lambda: _C.ones(3).register_hook(lambda g: g), RuntimeError,
         "cannot register a hook on a tensor that doesn't require gradient"),
        (lambda: _C.ones(3).register_post_accumulate_grad_hook(lambda g: g), RuntimeError,
         "cannot register a hook on a tensor that doesn't require gradient"),
        (lambda: (ones(3) * 2).register_post_accumulate_grad_hook(lambda g: g), RuntimeError,
         "post accumulate grad hooks cannot be registered on non-leaf tensors"),
    ],
)
def test_registration_errors(setup, exc, text):
    with pytest.raises(exc) as e:
        setup()
    assert str(e.value) == text


def _backward_with(register):
    a = ones(3)
    y = a * 2
    register(y)
    y.sum().backward()


@pytest.mark.parametrize(
    "register, exc, text",
    [
        (lambda y: y.register_hook(lambda g: _C.ones(4)), RuntimeError,
         "hook '<lambda>' has changed the size of value"),
        (lambda y: y.register_hook(lambda g: g.double()), RuntimeError,
         "hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)"),
        (lambda y: y.register_hook(lambda g: 5), TypeError,
         "expected Variable, but hook returned 'int'"),
        (lambda y: y.register_hook(5), TypeError, "'int' object is not callable"),
        (lambda y: y.grad_fn.register_prehook(lambda go: (go[0], go[0])), RuntimeError,
         "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
        (lambda y: y.grad_fn.register_prehook(lambda go: 5), TypeError,
         "expected tuple, but hook returned 'int'"),
        (lambda y: y.grad_fn.register_hook(lambda gi, go: 5), TypeError,
         "expected tuple, but hook returned 'int'"),
    ],
)
def test_hook_result_errors(register, exc, text):
    with pytest.raises(exc) as e:
        _backward_with(register)
    assert str(e.value) == text


def test_exception_from_a_hook_is_the_original_one():
    class Boom(Exception):
        pass

    def hook(g):
        raise Boom("boom")

    a = ones(2)
    y = a * 3
    y.register_hook(hook)
    with pytest.raises(Boom, match="boom") as e:
        y.sum().backward()
    # the traceback reaches into the hook
    assert any(tb.name == "hook" for tb in e.traceback)
    # the failed run leaves nothing behind: a new backward works
    z = a * 3
    z.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_node_prehook_replaces_grad_outputs():
    a = ones(2)
    y = a * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.sum().backward()
    assert a.grad.tolist() == [6.0, 6.0]


def test_node_hook_replaces_grad_inputs_and_remove():
    a = ones(2)
    y = a * 3
    # MulBackward0 of `a * 3` has two inputs (torch: the number is an input without an edge)
    assert len(y.grad_fn.next_functions) == 2
    h = y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    y.sum().backward(retain_graph=True)
    assert a.grad.tolist() == [4.0, 4.0]
    h.remove()
    a.grad = None
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


# ---- custom Functions ------------------------------------------------------------------------


class Scale(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        ctx.seen_needs = ctx.needs_input_grad
        return x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        assert x.tolist() == [1.0, 1.0]
        return g * ctx.k, None


def test_function_apply_backward_and_name():
    x = ones(2)
    y = Scale.apply(x, 3.0)
    assert y.grad_fn.name() == "ScaleBackward"
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_function_needs_input_grad_and_no_grad():
    x = ones(2)
    seen = []

    class F(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            seen.append(_C.is_grad_enabled())
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    F.apply(x, _C.ones(2), 2)
    assert seen == [(True, False, False), False]
    with _C.no_grad():
        assert not F.apply(x, _C.ones(2), 2).requires_grad
    y = F.apply(_C.ones(2), _C.ones(2), 2)
    assert not y.requires_grad and y.grad_fn is None


def _err(f):
    with pytest.raises(Exception) as e:
        f()
    return type(e.value).__name__ + ": " + str(e.value)


def test_function_gradient_count_errors():
    x = ones(2)

    class G(Scale):
        @staticmethod
        def backward(ctx, g):
            return g

    class H(Scale):
        @staticmethod
        def backward(ctx, g):
            return g, g, None

    class H3(Scale):
        @staticmethod
        def backward(ctx, g):
            return g * 3, None, None

    assert _err(lambda: G.apply(x, 3.0).sum().backward()) == (
        "RuntimeError: function GBackward returned an incorrect number of gradients (expected 2, got 1)"
    )
    assert _err(lambda: H.apply(x, 3.0).sum().backward()) == (
        "RuntimeError: function HBackward returned a gradient different than None at position 2, "
        "but the corresponding forward input was not a Variable"
    )
    H3.apply(x, 3.0).sum().backward()  # trailing Nones are trimmed
    assert x.grad.tolist() == [3.0, 3.0]


def test_function_wrong_shape_and_missing_methods():
    x = ones(2)

    class W(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return _C.ones(5)

    class B(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class Fw(Function):
        pass

    assert _err(lambda: W.apply(x).sum().backward()) == (
        "RuntimeError: Function WBackward returned an invalid gradient at index 0 - got [5] "
        "but expected shape compatible with [2]"
    )
    assert _err(lambda: B.apply(x).sum().backward()) == (
        "NotImplementedError: You must implement either the backward or vjp method for your "
        "custom autograd.Function to use it with backward mode AD."
    )
    assert _err(lambda: Fw.apply(x)) == (
        "NotImplementedError: You must implement the forward function for custom autograd.Function."
    )


class ExpF(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_function_saved_output_version_check():
    x = ones(2)
    z = ExpF.apply(x * 1)
    z.add_(1)
    assert _err(lambda: z.sum().backward()) == (
        "RuntimeError: one of the variables needed for gradient computation has been modified by "
        "an inplace operation: [torch.FloatTensor [2]], which is output 0 of ExpF, is at version "
        "1; expected version 0 instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
        "check_nan=False)."
    )


def test_function_saved_output_gradient():
    x = _C.tensor([0.0, 1.0], requires_grad=True)
    ExpF.apply(x).sum().backward()
    assert x.grad.tolist() == pytest.approx([1.0, 2.718281828459045], rel=1e-6)


def test_function_mark_dirty():
    class D(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ones(2)
    assert _err(lambda: D.apply(x)) == (
        "RuntimeError: a leaf Variable that requires grad has been used in an in-place operation."
    )
    a = x * 1
    b = D.apply(a)
    assert b is a and a.grad_fn.name() == "DBackward" and a._version == 1
    b.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_function_modifying_an_input_without_mark_dirty_raises():
    class Sneaky(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="without ctx.mark_dirty"):
        Sneaky.apply(ones(2) * 1)


def test_function_non_differentiable_and_materialize():
    seen = []

    class ND(Function):
        @staticmethod
        def forward(ctx, x):
            i = _C.tensor([1.0])
            ctx.mark_non_differentiable(i)
            return x * 2, i

        @staticmethod
        def backward(ctx, g, gi):
            seen.append(gi.tolist())
            return g * 2

    class NM(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 2

    class MG(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2.tolist())
            return g1 * 2

    x = ones(2)
    o, i = ND.apply(x)
    assert o.requires_grad and not i.requires_grad
    o.sum().backward()
    o1, _ = NM.apply(x)
    o1.sum().backward()
    o1, _ = MG.apply(x)
    o1.sum().backward()
    assert seen == [[0.0], None, [0.0, 0.0]]


def test_function_returning_its_input_and_setup_context():
    class ID(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class NS(Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = ones(2)
    y = ID.apply(x)
    assert y is not x and y.grad_fn.name() == "IDBackward"
    NS.apply(x, 5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_once_differentiable_and_saved_tensors_after_backward():
    from _C.autograd import once_differentiable

    class O(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.keep = ctx
            return x**2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not _C.is_grad_enabled()
            return 2 * x * g

    x = ones(2)
    y = O.apply(x)
    (g,) = _C.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 2.0] and not g.requires_grad


def test_function_gradcheck_multiple_outputs():
    class Two(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            return g1 * b + g2, g1 * a + g2

    a = _C.tensor([0.5, -1.5], dtype=_C.float64, requires_grad=True)
    b = _C.tensor([2.0, 3.0], dtype=_C.float64, requires_grad=True)
    assert _C.autograd.gradcheck(Two.apply, (a, b))


# ---- gradcheck -------------------------------------------------------------------------------


def test_gradcheck_passes_and_fails_with_torchs_message():
    from _C.autograd.gradcheck import GradcheckError, gradcheck

    assert gradcheck is _C.autograd.gradcheck
    assert issubclass(GradcheckError, RuntimeError)
    x = _C.ones(2, dtype=_C.float64, requires_grad=True)
    assert _C.autograd.gradcheck(lambda t: t * 2, (x,))

    class Bad(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    with pytest.raises(GradcheckError) as e:
        gradcheck(Bad.apply, (x,))
    msg = str(e.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:" in msg
    assert gradcheck(Bad.apply, (x,), raise_exception=False) is False


def test_gradcheck_warns_on_float32():
    x = _C.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        _C.autograd.gradcheck(lambda t: t * 2, (x,), raise_exception=False)


def _d(*vals):
    return _C.tensor(list(vals), dtype=_C.float64, requires_grad=True)


GRADCHECK_CASES = [
    ("mul", lambda a, b: a * b, lambda: (_d(0.3, -1.2, 2.0), _d(1.5, 0.7, -0.4))),
    ("div", lambda a, b: a / b, lambda: (_d(0.3, -1.2, 2.0), _d(1.5, 0.7, -0.4))),
    ("exp", lambda a: a.exp(), lambda: (_d(0.3, -1.2, 2.0),)),
    ("log", lambda a: a.log(), lambda: (_d(0.3, 1.2, 2.0),)),
    ("tanh", lambda a: a.tanh(), lambda: (_d(0.3, -1.2, 2.0),)),
    ("sigmoid", lambda a: a.sigmoid(), lambda: (_d(0.3, -1.2, 2.0),)),
    ("sqrt", lambda a: a.sqrt(), lambda: (_d(0.3, 1.2, 2.0),)),
    ("pow", lambda a: a**3, lambda: (_d(0.3, -1.2, 2.0),)),
    ("sum_dim", lambda a: a.reshape(2, 2).sum(1), lambda: (_d(0.3, -1.2, 2.0, 0.5),)),
    ("matmul", lambda a, b: a.reshape(2, 2) @ b.reshape(2, 2),
     lambda: (_d(0.3, -1.2, 2.0, 0.5), _d(1.0, 2.0, -0.5, 0.25))),
    ("softmax", lambda a: a.softmax(0), lambda: (_d(0.3, -1.2, 2.0),)),
    ("broadcast_add", lambda a, b: a.reshape(2, 1) + b, lambda: (_d(0.3, -1.2), _d(1.0, 2.0, 3.0))),
]


@pytest.mark.parametrize("name, f, make", GRADCHECK_CASES, ids=[c[0] for c in GRADCHECK_CASES])
def test_gradcheck_formulas(name, f, make):
    assert _C.autograd.gradcheck(f, make())


@pytest.mark.parametrize(
    "name, f, make",
    [c for c in GRADCHECK_CASES if c[0] in ("mul", "exp", "tanh", "matmul")],
    ids=["mul", "exp", "tanh", "matmul"],
)
def test_gradgradcheck_formulas(name, f, make):
    assert _C.autograd.gradgradcheck(f, make())


# ---- anomaly mode ----------------------------------------------------------------------------


def test_anomaly_mode_nan_check_and_switches():
    assert not _C.is_anomaly_enabled()
    assert _C.is_anomaly_check_nan_enabled()
    b = _C.tensor([-1.0], requires_grad=True)
    b.sqrt().sum().backward()  # off: no error, NaN gradient
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with _C.autograd.detect_anomaly():
            assert _C.is_anomaly_enabled()
            with pytest.raises(RuntimeError) as e:
                b.sqrt().sum().backward()
        assert not _C.is_anomaly_enabled()
    assert str(e.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    msgs = [str(x.message) for x in w]
    assert msgs[0] == (
        "Anomaly Detection has been enabled. This mode will increase the runtime and should only "
        "be enabled for debugging."
    )
    assert msgs[1].startswith("Error detected in SqrtBackward0.")
    with _C.autograd.set_detect_anomaly(True, check_nan=False):
        assert _C.is_anomaly_enabled() and not _C.is_anomaly_check_nan_enabled()
        b.sqrt().sum().backward()
    assert not _C.is_anomaly_enabled() and _C.is_anomaly_check_nan_enabled()


# ---- leaks: the cycles torch never frees -----------------------------------------------------


def _freed(make):
    """Run `make()` (returns an object to watch) twice; after gc the watched objects are dead and
    the live-tensor count is back."""
    gc.collect()
    before = _C._live_tensors()
    refs = [weakref.ref(make()) for _ in range(3)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert _C._live_tensors() == before


class _Box:
    pass


def test_leak_hook_closure_on_non_leaf():
    def make():
        a = ones(3)
        t = a * 2
        box = _Box()
        box.t = t
        t.register_hook(lambda g: g * t)
        return box

    _freed(make)


def test_leak_hook_closure_on_leaf():
    def make():
        t = ones(3)
        box = _Box()
        box.t = t
        t.register_hook(lambda g: g * t)
        return box

    _freed(make)


def test_leak_post_accumulate_grad_hook():
    def make():
        p = ones(3)
        box = _Box()
        box.p = p
        p.register_post_accumulate_grad_hook(lambda q: p)
        (p * 2).sum().backward()
        return box

    _freed(make)


def test_leak_grad_fn_metadata_holding_its_tensor():
    def make():
        t = ones(3) * 2
        box = _Box()
        t.grad_fn.metadata["t"] = t
        t.grad_fn.metadata["box"] = box
        return box

    _freed(make)


def test_leak_node_hooks_capturing_their_tensor():
    def make():
        t = ones(3) * 2
        box = _Box()
        box.t = t
        t.grad_fn.register_hook(lambda gi, go: t)
        t.grad_fn.register_prehook(lambda go: t)
        return box

    _freed(make)


def test_leak_hooks_after_backward():
    def make():
        a = ones(3)
        t = a * 2
        u = t * 3  # t's node is shared with u's graph
        box = _Box()
        box.t = t
        t.register_hook(lambda g: g + 0 * t)
        u.sum().backward()
        return box

    _freed(make)


def test_leak_function_ctx_holding_its_output():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.out = out  # the anti-pattern
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def make():
        y = Bad.apply(ones(3))
        box = _Box()
        y.grad_fn.metadata["box"] = box
        return box

    _freed(make)


def test_leak_function_saving_its_output():
    def make():
        y = ExpF.apply(ones(3))
        box = _Box()
        y.grad_fn.metadata["box"] = box
        return box

    _freed(make)


def test_leak_function_backward_run():
    def make():
        x = ones(3)
        y = ExpF.apply(x)
        box = _Box()
        y.grad_fn.metadata["box"] = box
        y.sum().backward()
        return box

    _freed(make)


def test_hooks_released_by_a_thread_without_the_gil():
    import time

    t = ones(3)
    box = _Box()
    t.register_hook(lambda g, box=box: g)
    r = weakref.ref(box)
    del box
    # A Rust thread holds the tensor, then drops it (and its hook dict) without the GIL: the
    # release takes the GIL itself.
    _C._hold_in_thread(t, 0.01)
    del t
    deadline = time.monotonic() + 10
    while r() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert r() is None
