"""Writes tests/python/autograd_expected.py from torch 2.15 (the oracle): for each case of
tests/python/autograd_cases.py, the gradients of sum(out * w) with respect to its inputs; and
tests/python/copy_slices_expected.py: what each case of copy_slices_cases.py observes under torch.
Run with the torch venv: `/work/torch-venv/bin/python tests/gen_autograd_expected.py`
(`make autograd-expected`). Never imported by `make test`."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "python"))
from autograd_cases import CASES, DOUBLE, positive, values, weights  # noqa: E402


def main():
    out = ['"""Gradients computed by torch %s (tests/gen_autograd_expected.py); do not edit."""' % torch.__version__, "", "EXPECTED = {"]
    for name, (shapes, f) in CASES.items():
        xs = [torch.tensor(values(list(s), i + 1), dtype=torch.float64, requires_grad=True) for i, s in enumerate(shapes)]
        y = f(torch, *xs)
        w = torch.tensor(weights(tuple(y.shape)), dtype=torch.float64)
        (y * w).sum().backward()
        grads = [x.grad.tolist() if x.grad is not None else None for x in xs]
        out.append(f"    {name!r}: {grads!r},")
    out.append("}")
    out.append("")
    out.append("# Second order: the gradients of sum(grad_i * w_i) (the first-order gradients made with")
    out.append("# create_graph=True), None where torch's is None.")
    out.append("EXPECTED_DOUBLE = {")
    for name in DOUBLE:
        shapes, f = CASES[name]
        xs = [torch.tensor(values(list(s), i + 1), dtype=torch.float64, requires_grad=True) for i, s in enumerate(shapes)]
        y = f(torch, *xs)
        w = torch.tensor(weights(tuple(y.shape)), dtype=torch.float64)
        gs = torch.autograd.grad((y * w).sum(), xs, create_graph=True, allow_unused=True)
        terms = [(g * torch.tensor(weights(tuple(x.shape)), dtype=torch.float64)).sum() for g, x in zip(gs, xs) if g is not None and g.requires_grad]
        if terms:
            sum(terms).backward()
        grads = [x.grad.tolist() if x.grad is not None else None for x in xs]
        out.append(f"    {name!r}: {grads!r},")
    out.append("}")
    path = os.path.join(os.path.dirname(__file__), "python", "autograd_expected.py")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    _ = positive
    write_copy_slices()


def write_copy_slices():
    from copy_slices_cases import cases

    observed = cases(torch)
    out = ['"""What tests/python/copy_slices_cases.py observes under torch %s (tests/gen_autograd_expected.py); do not edit."""' % torch.__version__, "", "EXPECTED = {"]
    for name, value in observed.items():
        out.append(f"    {name!r}: {value!r},")
    out.append("}")
    path = os.path.join(os.path.dirname(__file__), "python", "copy_slices_expected.py")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
