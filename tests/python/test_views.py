"""Views: every op the schema annotates as a view (torch's alias annotation `Tensor(a) self ->
Tensor(a)`, or `Tensor(a -> *) self -> Tensor(a)[]`) returns tensors that share the input's
storage and record it as `_base` (torch: `t.transpose(0, 1)._base is t`), as the function and
as the method. Adding a view to the schema without a case here fails
`test_every_annotated_view_has_a_case`."""

import pathlib
import re

import pytest

import _C

SCHEMA = pathlib.Path(__file__).resolve().parents[2] / "src" / "native_functions.yaml"


def _annotated_views():
    """{'transpose', 'split.sizes', ...}: the schema entries whose return aliases self."""
    views = set()
    for line in SCHEMA.read_text().splitlines():
        m = re.match(r"^- func: ([A-Za-z_0-9.]+)\((.*)\) -> (.*)$", line)
        if m and re.search(r"Tensor\(a( -> \*)?\) self", m.group(2)) and m.group(3).startswith("Tensor(a)"):
            views.add(m.group(1))
    return views


# name -> (make the input, call the op as a function or None, call it as a method or None)
CASES = {
    "view": (lambda: _C.zeros(2, 3, 4), None, lambda t: t.view(6, 4)),
    "transpose": (lambda: _C.zeros(2, 3, 4), lambda t: _C.transpose(t, 0, 2), lambda t: t.transpose(0, 0)),
    "t": (lambda: _C.zeros(2, 3), lambda t: _C.t(t), lambda t: t.t()),
    "permute": (lambda: _C.zeros(2, 3, 4), lambda t: _C.permute(t, (2, 0, 1)), lambda t: t.permute(0, 1, 2)),
    "squeeze": (lambda: _C.zeros(1, 3, 1), lambda t: _C.squeeze(t), lambda t: t.squeeze()),
    "squeeze.dim": (lambda: _C.zeros(1, 3), lambda t: _C.squeeze(t, 1), lambda t: t.squeeze(0)),
    "squeeze.dims": (lambda: _C.zeros(1, 3, 1), lambda t: _C.squeeze(t, (0, 2)), lambda t: t.squeeze((1,))),
    "unsqueeze": (lambda: _C.zeros(3), lambda t: _C.unsqueeze(t, 0), lambda t: t.unsqueeze(-1)),
    "expand": (lambda: _C.zeros(3), None, lambda t: t.expand(2, 3)),
    "select": (lambda: _C.zeros(2, 3), lambda t: _C.select(t, 1, 2), lambda t: t.select(0, -1)),
    "narrow": (lambda: _C.zeros(4, 3), lambda t: _C.narrow(t, 0, 1, 2), lambda t: t.narrow(1, 0, 3)),
    # An integer 0-dim tensor also binds to `int start` (it has __index__); the Tensor overload
    # is where other tensors get torch's RuntimeError. Either way the result is a view.
    "narrow.Tensor": (
        lambda: _C.zeros(4, 3),
        lambda t: _C.narrow(t, 0, _C.tensor(1, dtype=_C.int16), 2),
        lambda t: t.narrow(1, _C.tensor(0, dtype=_C.int32), 3),
    ),
    "movedim.int": (lambda: _C.zeros(2, 3, 4), lambda t: _C.movedim(t, 0, 2), lambda t: t.movedim(1, 1)),
    "movedim.intlist": (
        lambda: _C.zeros(2, 3, 4),
        lambda t: _C.movedim(t, (0, 1), (2, 0)),
        lambda t: t.movedim((0,), (1,)),
    ),
    "moveaxis.int": (lambda: _C.zeros(2, 3, 4), lambda t: _C.moveaxis(t, 0, 2), lambda t: t.moveaxis(1, 1)),
    "moveaxis.intlist": (
        lambda: _C.zeros(2, 3, 4),
        lambda t: _C.moveaxis(t, (0, 1), (2, 0)),
        lambda t: t.moveaxis((0,), (1,)),
    ),
    "view_as": (lambda: _C.zeros(2, 3), None, lambda t: t.view_as(_C.zeros(6))),
    "expand_as": (lambda: _C.zeros(3), None, lambda t: t.expand_as(_C.zeros(2, 3))),
    "broadcast_to": (lambda: _C.zeros(3), lambda t: _C.broadcast_to(t, (2, 3)), lambda t: t.broadcast_to((3,))),
    "swapaxes": (lambda: _C.zeros(2, 3), lambda t: _C.swapaxes(t, 0, 1), lambda t: t.swapaxes(1, 0)),
    "swapdims": (lambda: _C.zeros(2, 3), lambda t: _C.swapdims(t, 0, 1), lambda t: t.swapdims(0, 0)),
    "diagonal": (lambda: _C.zeros(3, 3), lambda t: _C.diagonal(t), lambda t: t.diagonal(1)),
    "split": (lambda: _C.zeros(5, 2), lambda t: _C.split(t, 2), lambda t: t.split(7)),
    "split.sizes": (lambda: _C.zeros(5, 2), lambda t: _C.split(t, [1, 4]), lambda t: t.split([2, 0], 1)),
    "chunk": (lambda: _C.zeros(5, 2), lambda t: _C.chunk(t, 3), lambda t: t.chunk(1, 1)),
    "unbind": (lambda: _C.zeros(3, 2), lambda t: _C.unbind(t), lambda t: t.unbind(1)),
    # issue 13 part 3b
    "split_with_sizes": (lambda: _C.zeros(5, 2), lambda t: _C.split_with_sizes(t, [1, 4]), lambda t: t.split_with_sizes([2], 1)),
    "tensor_split.sections": (lambda: _C.zeros(5, 2), lambda t: _C.tensor_split(t, 3), lambda t: t.tensor_split(2, 1)),
    "tensor_split.indices": (lambda: _C.zeros(5, 2), lambda t: _C.tensor_split(t, [1, 3]), lambda t: t.tensor_split([1], 1)),
    "tensor_split.tensor_indices_or_sections": (
        lambda: _C.zeros(5, 2),
        lambda t: _C.tensor_split(t, _C.tensor([1, 3])),
        lambda t: t.tensor_split(_C.tensor(2), 1),
    ),
    "hsplit.int": (lambda: _C.zeros(2, 4), lambda t: _C.hsplit(t, 2), lambda t: t.hsplit(4)),
    "hsplit.array": (lambda: _C.zeros(2, 4), lambda t: _C.hsplit(t, [1]), lambda t: t.hsplit([1, 3])),
    "vsplit.int": (lambda: _C.zeros(4, 2), lambda t: _C.vsplit(t, 2), lambda t: t.vsplit(4)),
    "vsplit.array": (lambda: _C.zeros(4, 2), lambda t: _C.vsplit(t, [1]), lambda t: t.vsplit([1, 3])),
    "dsplit.int": (lambda: _C.zeros(1, 2, 4), lambda t: _C.dsplit(t, 2), lambda t: t.dsplit(4)),
    "dsplit.array": (lambda: _C.zeros(1, 2, 4), lambda t: _C.dsplit(t, [1]), lambda t: t.dsplit([1, 3])),
    "unfold": (lambda: _C.zeros(7), None, lambda t: t.unfold(0, 3, 2)),
    "as_strided": (lambda: _C.zeros(2, 3), lambda t: _C.as_strided(t, (2, 2), (1, 2)), lambda t: t.as_strided((3,), (2,), 0)),
}


def test_every_annotated_view_has_a_case():
    assert _annotated_views() == set(CASES)


def _results(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("name", sorted(CASES))
def test_views_share_storage_and_record_base(name):
    make, fn, meth = CASES[name]
    for call in (fn, meth):
        if call is None:
            continue
        t = make()
        results = _results(call(t))
        assert results
        for r in results:
            assert r is not t
            assert r._base is t
            if r.numel():
                # Writing through the view writes the input (shared storage).
                r.fill_(7)
                assert t.sum().item() > 0
                t.zero_()


def test_a_view_of_a_view_records_the_root():
    t = _C.zeros(2, 3)
    v = _C.transpose(t, 0, 1)
    assert _C.select(v, 0, 1)._base is t
    assert all(p._base is t for p in _C.split(v, 1))

