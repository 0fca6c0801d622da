"""``_C.autograd.gradcheck``: ``gradcheck`` and ``gradgradcheck`` (torch.autograd.gradcheck):
the analytical Jacobian from backward (one ``autograd.grad`` per output element) compared with
central finite differences, in the inputs' dtype (use float64, as torch warns), with torch's
signatures, defaults and ``GradcheckError`` message.
"""

import warnings

from . import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if isinstance(o, _C.Tensor) and o.requires_grad)


def _differentiable_positions(x):
    return [i for i, o in enumerate(_as_tuple(x)) if isinstance(o, _C.Tensor) and o.requires_grad]


def _unravel(k, shape):
    idx = []
    for s in reversed(shape):
        idx.append(k % s)
        k //= s
    return tuple(reversed(idx))


def _numerical_jacobian(func, inputs, outputs, positions, eps):
    """jac[i][j]: (inputs[i].numel(), outputs[j].numel()) by central differences; `positions`
    says which items of func's result are the differentiable `outputs`."""
    jac = []
    for inp in inputs:
        if not (isinstance(inp, _C.Tensor) and inp.requires_grad):
            continue
        cols = [_C.zeros((inp.numel(), o.numel()), dtype=inp.dtype) for o in outputs]
        data = inp.data
        shape = tuple(inp.shape)
        for k in range(inp.numel()):
            idx = _unravel(k, shape)
            orig = data[idx].item()
            # `data` has no history, so the writes are not recorded; func runs in the caller's
            # grad mode (gradgradcheck's func differentiates inside).
            data[idx] = orig - eps
            r = _as_tuple(func(*inputs))
            lo = [r[p].detach().clone() for p in positions]
            data[idx] = orig + eps
            r = _as_tuple(func(*inputs))
            hi = [r[p].detach().clone() for p in positions]
            data[idx] = orig
            for j, (h, lo_) in enumerate(zip(hi, lo)):
                cols[j][k] = ((h - lo_) / (2 * eps)).reshape(-1)
        jac.append(cols)
    return jac


def _analytical_jacobian(inputs, outputs):
    diff_inputs = [t for t in inputs if isinstance(t, _C.Tensor) and t.requires_grad]
    jac = [
        [_C.zeros((t.numel(), o.numel()), dtype=t.dtype) for o in outputs] for t in diff_inputs
    ]
    for j, out in enumerate(outputs):
        flat_n = out.numel()
        for m in range(flat_n):
            go = _C.zeros(tuple(out.shape), dtype=out.dtype)
            go[_unravel(m, tuple(out.shape))] = 1
            grads = _C._autograd_grad(
                (out,), diff_inputs, (go,), retain_graph=True, allow_unused=True
            )
            for i, g in enumerate(grads):
                if g is not None:
                    jac[i][j][:, m] = g.reshape(-1)
    return jac


def _allclose(a, b, rtol, atol):
    if a.numel() == 0:
        return True
    return bool(((a - b).abs() <= atol + rtol * b.abs()).all().item())


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Check the gradients computed by backward for ``func(*inputs)`` against central finite
    differences (torch.autograd.gradcheck). Returns True, or raises ``GradcheckError`` (returns
    False when ``raise_exception=False``). The ``check_*`` options other than the backward check
    and ``fast_mode`` are accepted for compatibility and ignored."""
    tupled = _as_tuple(inputs)
    any_grad = False
    for i, t in enumerate(tupled):
        if isinstance(t, _C.Tensor) and t.requires_grad:
            any_grad = True
            if t.dtype != _C.float64:
                warnings.warn(
                    f"Input #{i} requires gradient and is not a double precision floating point "
                    "or complex. This check will likely fail if all the inputs are not of double "
                    "precision floating point or complex. ",
                    stacklevel=2,
                )
    if not any_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    result = func(*tupled)
    outputs = _differentiable_outputs(result)
    positions = _differentiable_positions(result)
    if not check_backward_ad:
        return True
    numerical = _numerical_jacobian(func, tupled, outputs, positions, eps)
    analytical = _analytical_jacobian(tupled, outputs)
    for i, (n_row, a_row) in enumerate(zip(numerical, analytical)):
        for j, (n, a) in enumerate(zip(n_row, a_row)):
            if not _allclose(a, n, rtol, atol):
                msg = (
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n!r}\nanalytical:{a!r}\n"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Check the second derivatives of ``func`` by running :func:`gradcheck` on the gradients
    of ``func(*inputs)`` (computed with ``create_graph=True``) with respect to the inputs and
    ``grad_outputs`` (random float64 when None) (torch.autograd.gradgradcheck)."""
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled))
        grad_outputs = tuple(
            _C.randn_like(o, dtype=o.dtype).requires_grad_(True) for o in outs
        )
    tupled_go = _as_tuple(grad_outputs)
    n = len(tupled)

    def new_func(*args):
        input_args, gos = args[:n], args[n:]
        outputs = _differentiable_outputs(func(*input_args))
        diff = tuple(x for x in input_args if isinstance(x, _C.Tensor) and x.requires_grad)
        grads = _C._autograd_grad(outputs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        new_func,
        tupled + tupled_go,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )


gradcheck.__module__ = __name__.rsplit(".", 1)[0] + ".autograd.gradcheck"
gradgradcheck.__module__ = gradcheck.__module__
GradcheckError.__module__ = gradcheck.__module__
