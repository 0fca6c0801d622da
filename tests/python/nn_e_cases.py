"""Double-backward cases of the nn kernel nodes (session nn15e), written once for torch and _C:
each case builds float64 inputs from a fixed formula (no random generator), runs the op, takes
the first gradients with ``create_graph=True`` and then the gradients of a weighted sum of
them. ``gen_nn_e_expected.py`` runs them in torch 2.15 and writes nn_e_expected.json;
test_nn_e.py runs them in _C and compares."""

import math


def seq(lib, shape, seed, scale=1.0, shift=0.0):
    """A float64 leaf requiring grad: sin(1.3 i + seed) * scale + shift over the elements."""
    n = 1
    for s in shape:
        n *= s
    vals = [math.sin(1.3 * i + seed) * scale + shift for i in range(n)]
    return lib.tensor(vals, dtype=lib.float64).reshape(shape).requires_grad_()


def second_order(lib, out, inputs, seed, only=None):
    """d/d(inputs, v) of sum(u * d(sum(v * out))/d(inputs)): v and u fixed sequences (``only``:
    the indices of the first gradients the sum takes, default all). Returns the first gradients
    and the second ones (None where an input is unused) as lists."""
    v = seq(lib, list(out.shape), seed + 11)
    firsts = lib.autograd.grad(out, inputs, grad_outputs=v, create_graph=True)
    total = None
    for i, g in enumerate(firsts):
        if only is not None and i not in only:
            continue
        u = seq(lib, list(g.shape), seed + 23 + i).detach()
        term = (g * u).sum()
        total = term if total is None else total + term
    seconds = lib.autograd.grad(total, list(inputs) + [v], allow_unused=True)
    as_list = lambda t: None if t is None else (t.detach() + 0).reshape(-1).tolist()
    return [as_list(g) for g in firsts], [as_list(g) for g in seconds]


def _act(name, **kw):
    def case(lib, F):
        x = seq(lib, [7], 1, scale=3.0)
        return second_order(lib, getattr(F, name)(x, **kw), [x], 1)
    return case


def _loss(name, **kw):
    def case(lib, F):
        x = seq(lib, [2, 3], 2, scale=2.0)
        t = seq(lib, [2, 3], 3)
        return second_order(lib, getattr(F, name)(x, t, **kw), [x, t], 2)
    return case


def _pool(fn):
    def case(lib, F):
        x = seq(lib, [1, 2, 5, 5], 4)
        return second_order(lib, fn(F, x), [x], 4)
    return case


def _conv(lib, F, transposed, groups, bias):
    x = seq(lib, [2, 2, 5, 4], 5)
    if transposed:
        w = seq(lib, [2, 4 // groups, 3, 2], 6, scale=0.5)
    else:
        w = seq(lib, [4, 2 // groups, 3, 2], 6, scale=0.5)
    b = seq(lib, [4], 7) if bias else None
    if transposed:
        y = F.conv_transpose2d(x, w, b, stride=(2, 1), padding=1, output_padding=(1, 0), groups=groups)
    else:
        y = F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=groups)
    inputs = [x, w] + ([b] if bias else [])
    return second_order(lib, y, inputs, 5)


def _conv3d_one_output(lib, F, which):
    # The second derivative through one of the first gradients only (the node's other outputs
    # get no gradient).
    x = seq(lib, [1, 2, 3, 4, 3], 5)
    w = seq(lib, [2, 2, 2, 2, 2], 6, scale=0.5)
    b = seq(lib, [2], 7)
    y = F.conv3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 1, 2))
    return second_order(lib, y, [x, w, b], 5, only=[which])


def _norm(kind):
    def case(lib, F):
        x = seq(lib, [2, 4, 3], 12, scale=2.0, shift=0.3)
        w = seq(lib, [4] if kind in ("group", "batch", "batch_eval") else [3], 13, shift=1.0)
        b = seq(lib, list(w.shape), 14)
        if kind == "layer":
            y = F.layer_norm(x, [3], w, b, eps=1e-3)
        elif kind == "rms":
            return second_order(lib, F.rms_norm(x, [3], w, eps=1e-3), [x, w], 12)
        elif kind == "group":
            y = F.group_norm(x, 2, w, b, eps=1e-3)
        elif kind == "batch":
            y = F.batch_norm(x, None, None, w, b, training=True, eps=1e-3)
        else:
            rm = lib.tensor([0.1, -0.2, 0.3, 0.0], dtype=lib.float64)
            rv = lib.tensor([1.5, 0.5, 2.0, 1.0], dtype=lib.float64)
            y = F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)
        return second_order(lib, y, [x, w, b], 12)
    return case


def _embedding(lib, F):
    w = seq(lib, [5, 3], 8)
    idx = lib.tensor([[0, 2, 4], [2, 1, 2]])
    return second_order(lib, F.embedding(idx, w, padding_idx=1), [w], 8)


def _cross_entropy(lib, F):
    x = seq(lib, [3, 4], 9)
    t = lib.tensor([0, 3, 1])
    return second_order(lib, F.cross_entropy(x, t, reduction="sum"), [x], 9)


def _nll(lib, F):
    x = seq(lib, [3, 4], 10)
    t = lib.tensor([0, 3, 1])
    w = lib.tensor([1.0, 2.0, 0.5, 3.0], dtype=lib.float64)
    return second_order(lib, F.nll_loss(x, t, weight=w), [x], 10)


CASES = {
    "gelu": _act("gelu"),
    "gelu_tanh": _act("gelu", approximate="tanh"),
    "silu": _act("silu"),
    "mish": _act("mish"),
    "elu": _act("elu", alpha=0.7),
    "selu": _act("selu"),
    "celu": _act("celu", alpha=1.5),
    "softplus": _act("softplus", beta=2.0, threshold=3.0),
    "leaky_relu": _act("leaky_relu", negative_slope=0.2),
    "hardswish": _act("hardswish"),
    "hardtanh": _act("hardtanh", min_val=-1.5, max_val=2.0),
    "relu6": _act("relu6"),
    "logsigmoid": _act("logsigmoid"),
    "threshold": lambda lib, F: _act("threshold", threshold=0.5, value=-1.0)(lib, F),
    "mse_loss": _loss("mse_loss"),
    "l1_loss": _loss("l1_loss", reduction="sum"),
    "smooth_l1_loss": _loss("smooth_l1_loss", beta=0.8),
    "huber_loss": _loss("huber_loss", delta=0.6, reduction="none"),
    "avg_pool2d": _pool(lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)),
    "adaptive_avg_pool2d": _pool(lambda F, x: F.adaptive_avg_pool2d(x, (3, 2))),
    "max_pool2d": _pool(lambda F, x: F.max_pool2d(x, 2, stride=1, padding=1)),
    "interpolate_bilinear": _pool(lambda F, x: F.interpolate(x, size=(7, 4), mode="bilinear", align_corners=False)),
    "interpolate_nearest": _pool(lambda F, x: F.interpolate(x, scale_factor=1.6, mode="nearest")),
    "conv2d": lambda lib, F: _conv(lib, F, False, 1, True),
    "conv2d_groups": lambda lib, F: _conv(lib, F, False, 2, False),
    "conv_transpose2d": lambda lib, F: _conv(lib, F, True, 1, True),
    "conv_transpose2d_groups": lambda lib, F: _conv(lib, F, True, 2, False),
    "conv3d_input_grad_only": lambda lib, F: _conv3d_one_output(lib, F, 0),
    "conv3d_weight_grad_only": lambda lib, F: _conv3d_one_output(lib, F, 1),
    "conv3d_bias_grad_only": lambda lib, F: _conv3d_one_output(lib, F, 2),
    "layer_norm": _norm("layer"),
    "rms_norm": _norm("rms"),
    "group_norm": _norm("group"),
    "batch_norm": _norm("batch"),
    "batch_norm_eval": _norm("batch_eval"),
    "embedding": _embedding,
    "cross_entropy": _cross_entropy,
    "nll_loss": _nll,
}
