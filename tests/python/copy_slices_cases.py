"""In-place writes into views and `t[key] = value` on tensors in an autograd graph (core Note
[CopySlices]): each case builds a graph with `torch` (the `_C` module or torch itself), writes in
place, runs backward and returns what it observed (gradients, node names, versions, or the error
text). tests/gen_autograd_expected.py records torch 2.15's answers in
copy_slices_expected.py; tests/python/test_autograd_views.py compares `_C`'s with them."""


def cases(torch):
    def leaf(*shape, start=1.0):
        n = 1
        for s in shape:
            n *= s
        return (torch.arange(n, dtype=torch.float64) * 0.5 + start).reshape(*shape).requires_grad_()

    out = {}

    def run(name, f):
        try:
            out[name] = f()
        except Exception as e:  # noqa: BLE001
            out[name] = f"{type(e).__name__}: {e}"

    def c1():
        x = leaf(3, 4)
        y = x * 2
        y[:, 0] = 0
        (y * y).sum().backward()
        return [x.grad.tolist(), y.grad_fn.name(), y._version]
    run("basic_number", c1)

    def c2():
        x = leaf(3, 4)
        w = leaf(4, start=-1.0)
        y = x * 2
        y[1] = w * 3
        (y * y).sum().backward()
        return [x.grad.tolist(), w.grad.tolist(), y.grad_fn.name()]
    run("basic_tensor_value", c2)

    def c3():
        x = leaf(3, 4)
        y = x.exp()
        z = y[0]
        z.mul_(3)
        names = [z.grad_fn.name(), y.grad_fn.name(), [f[0].name() if f[0] is not None else None for f in y.grad_fn.next_functions]]
        (y * y).sum().backward()
        return [x.grad.tolist(), names]
    run("view_mul_", c3)

    def c4():
        x = leaf(2, 3)
        y = torch.zeros(2, 3, dtype=torch.float64)
        y[:, 1] += x[:, 1] * x[:, 2]
        y.pow(2).sum().backward()
        return [x.grad.tolist(), y.grad_fn.name(), y.requires_grad, y.is_leaf]
    run("plain_target_iadd", c4)

    def c5():
        x = leaf(3, 4)
        y = x * 2
        a = y[0]
        y[0] = 5
        a.sum().backward()
        return [x.grad.tolist(), a.grad_fn.name()]
    run("stale_view", c5)

    def c6():
        x = leaf(3, 4)
        y = x * 2
        a = y[0]
        y[1] = 5
        (a * a).sum().backward()
        return [x.grad.tolist()]
    run("stale_view_other_row", c6)

    def c7():
        x = leaf(4, 3)
        v = leaf(2, 3, start=-2.0)
        y = x.sin()
        y[torch.tensor([0, 2])] = v
        (y * y).sum().backward()
        return [x.grad.tolist(), v.grad.tolist(), y.grad_fn.name()]
    run("advanced_tensor", c7)

    def c8():
        x = leaf(3, 4)
        y = x * 1.5
        y[y > 3] = 0
        (y * x).sum().backward()
        return [x.grad.tolist(), y.grad_fn.name()]
    run("mask_number", c8)

    def c9():
        x = leaf(3, 4)
        v = leaf(1, 4, start=3.0)
        y = x * 2
        y[1:] = v
        (y * y).sum().backward()
        return [x.grad.tolist(), v.grad.tolist()]
    run("broadcast_value", c9)

    def c10():
        x = leaf(3, 4)
        v = leaf(1, 1, 4, start=3.0)
        y = x * 2
        y[0] = v
        (y * y).sum().backward()
        return [x.grad.tolist(), v.grad.tolist()]
    run("leading_ones", c10)

    def c11():
        x = leaf(3, 4)
        y = x + 0
        y[0, 1] = 7.0
        y[2] *= 3
        (y ** 3).sum().backward()
        return [x.grad.tolist(), y._version]
    run("int_key_and_imul", c11)

    def c12():
        x = leaf(5)
        y = x * 1
        z = y[1:4]
        w = z[::2]
        w.add_(10)
        w.mul_(x[0])
        (y * y).sum().backward()
        return [x.grad.tolist(), y.tolist()]
    run("view_of_view", c12)

    def c13():
        x = leaf(3, 4)
        try:
            x[0] = 1
        except RuntimeError as e:
            return str(e)
        return "no error"
    run("leaf_error", c13)

    def c14():
        x = leaf(3, 4)
        try:
            x[0].mul_(2)
        except RuntimeError as e:
            return str(e)
        return "no error"
    run("leaf_view_error", c14)

    def c15():
        x = leaf(3, 4)
        y = x * 2
        a = y[:, 1]
        a.zero_()
        b = y[2]
        b.fill_(3.0)
        (y * y).sum().backward()
        return [x.grad.tolist(), a.grad_fn.name()]
    run("zero_fill_views", c15)

    def c16():
        x = leaf(2, 3)
        y = x.clone()
        y.t()[0].copy_(x[:, 2] * 4)
        (y * y).sum().backward()
        return [x.grad.tolist()]
    run("transposed_view_copy", c16)

    def c17():
        x = leaf(4)
        y = (x * 2)
        y[torch.tensor([1, 1, 3])] = torch.tensor([9.0, 8.0, 7.0], dtype=torch.float64)
        (y * y).sum().backward()
        return [x.grad.tolist(), y.tolist()]
    run("repeated_index_values", c17)

    def c18():
        x = leaf(3, 4)
        y = x * 2
        y[0] = 1
        g = torch.autograd.grad(y.sum(), x, create_graph=True)[0]
        return [g.tolist(), g.requires_grad]
    run("create_graph", c18)
    return out
