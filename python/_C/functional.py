"""_C.functional: the functions torch writes in Python in ``torch/functional.py`` that ``_C``
lacked — ``broadcast_shapes`` and ``unravel_index`` — and ``gradient``, ``histogramdd`` and the
function ``resize_as_`` (torch's C++ overloads take number lists and lists of tensors, which the
schema grammar lacks), over ``_C``'s ops, re-exported at
the top level (``_C.broadcast_shapes``, as ``torch.broadcast_shapes``).
"""

import itertools
import math
import operator
from collections.abc import Sequence

from . import _C as _ext

__all__ = ["broadcast_shapes", "gradient", "histogramdd", "resize_as_", "unravel_index"]


def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes) -> tuple: the shape the given shapes broadcast to (each a
    sequence of ints, or an int for a 1-D shape), as ``broadcast_tensors`` would give, without
    creating tensors. ValueError for a negative size; RuntimeError "Attempting to broadcast a
    dimension of length 3 at -1! ..." for shapes that do not broadcast. Mirrors
    torch.broadcast_shapes (torch's ``torch._refs._broadcast_shapes``; a tuple where torch
    gives a ``torch.Size``)."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes]
    common = [1] * max((len(s) for s in shapes), default=0)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            elif shape[idx] != 1 and common[idx] != shape[idx]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                    f"Mismatching argument at index {arg_idx} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    for v in common:
        if not isinstance(v, int):
            raise TypeError(f"broadcast_shapes: sizes must be ints, not {type(v).__name__}")
    return tuple(common)


def unravel_index(indices, shape):
    """unravel_index(indices, shape) -> tuple of Tensors: the coordinates, in an array of shape
    ``shape`` (an int or a sequence of ints), of the flat indices ``indices`` (an integer
    tensor), one int64 tensor of ``indices``' shape per dim; out-of-range and negative indices
    wrap (floor division and modulo, as torch). TypeError for a float or bool ``indices`` or a
    non-int shape; ValueError for a negative size, or a zero size with non-empty ``indices``.
    Mirrors torch.unravel_index."""
    if indices.dtype.is_floating_point or indices.dtype == _ext.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    else:
        for dim in shape:
            if not isinstance(dim, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
        shape = tuple(shape)
    if not all(dim >= 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not (all(dim > 0 for dim in shape) or indices.numel() == 0):
        raise ValueError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got {shape}")
    coefs = list(reversed(list(itertools.accumulate(reversed(shape[1:] + (1,)), func=operator.mul))))
    res = indices.unsqueeze(-1).floor_divide(_ext.tensor(coefs, dtype=_ext.int64)) % _ext.tensor(
        list(shape), dtype=_ext.int64
    )
    return res.unbind(-1)


def _slice(t, d, start, stop=None):
    """``t`` sliced along ``d`` as Python's ``[start:stop]`` (negative bounds from the end)."""
    n = t.shape[d]
    lo, hi, _ = slice(start, stop).indices(n)
    return t.narrow(d, lo, max(hi - lo, 0))


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """gradient(input, *, spacing=1, dim=None, edge_order=1) -> tuple of Tensors: the estimated
    derivative of ``input`` along each dim of ``dim`` (an int, a sequence of ints, or None for
    every dim) by second-order central differences inside and first- or second-order
    (``edge_order``) one-sided differences at the ends. ``spacing``: a number or 0-dim tensor (the
    same step for every dim), a list of numbers (one step per dim), or a list of 1-D tensors (the
    coordinates of the samples along each dim). Integer inputs give float32. Errors
    (RuntimeError, torch's texts): a spacing list of the wrong length, ``edge_order`` other than 1
    or 2, a dim shorter than ``edge_order + 1``, a coordinate tensor that is not 1-D, a repeated
    dim; IndexError for a dim out of range; bool input: subtraction's NotImplementedError.
    Mirrors torch.gradient (a tuple where torch gives a tuple too)."""
    nd = input.dim()
    dims_given = dim is not None
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    scalar = spacing is None or isinstance(spacing, (int, float)) or (
        isinstance(spacing, _ext.Tensor) and spacing.dim() == 0
    )
    if not scalar:
        spacing = list(spacing)
        if len(spacing) != len(dims):
            if dims_given:
                raise RuntimeError(
                    "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                    f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                    f"and a dim argument of length {len(dims)}."
                )
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                f"to 'self.dim() = {nd}', since dim argument was not given, but got a list of length "
                f"{len(spacing)}"
            )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = []
    for d in dims:
        if not -max(nd, 1) <= d < max(nd, 1):
            lo, hi = -max(nd, 1), max(nd, 1) - 1
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
        w = d % max(nd, 1)
        if w in wrapped:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    for w in wrapped:
        if input.shape[w] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if scalar:
        steps = [1 if spacing is None else spacing] * len(wrapped)
    else:
        steps = spacing
    coords = bool(steps) and all(isinstance(s, _ext.Tensor) for s in steps) and not scalar
    if coords:
        for s in steps:
            if s.dim() != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, but got an "
                    f"element with {s.dim()} dimensions!"
                )
    out = []
    for i, d in enumerate(wrapped):
        f = input
        if coords:
            ax = steps[i]
            ax_dx = ax.diff()
            dx1 = _slice(ax_dx, 0, 0, -1)
            dx2 = _slice(ax_dx, 0, 1)
            shape = [1] * nd
            shape[d] = -1
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            center = a * _slice(f, d, 0, -2) + b * _slice(f, d, 1, -1) + c * _slice(f, d, 2)
            h0, hm1 = ax_dx[0], ax_dx[-1]
            if edge_order == 1:
                prepend = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / h0
                append = (_slice(f, d, -1) - _slice(f, d, -2, -1)) / hm1
            else:
                h1, hm2 = ax_dx[1], ax_dx[-2]  # edge_order 2: at least 3 samples, 2 steps
                a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
                b = (h0 + h1) / (h0 * h1)
                c = -h0 / (h1 * (h0 + h1))
                prepend = a * _slice(f, d, 0, 1) + b * _slice(f, d, 1, 2) + c * _slice(f, d, 2, 3)
                a = hm1 / (hm2 * (hm1 + hm2))
                b = -(hm1 + hm2) / (hm1 * hm2)
                c = (2 * hm1 + hm2) / (hm1 * (hm1 + hm2))
                append = a * _slice(f, d, -3, -2) + b * _slice(f, d, -2, -1) + c * _slice(f, d, -1)
            out.append(_ext.cat([prepend, center, append], d))
        else:
            h = steps[i]
            center = (_slice(f, d, 2) - _slice(f, d, 0, -2)) / h
            if edge_order == 1:
                prepend = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / h
                append = (_slice(f, d, -1) - _slice(f, d, -2, -1)) / h
            else:
                prepend = (_slice(f, d, 0, 1) * -1.5 + _slice(f, d, 1, 2) * 2 - _slice(f, d, 2, 3) * 0.5) / h
                append = (_slice(f, d, -3, -2) * 0.5 - _slice(f, d, -2, -1) * 2 + _slice(f, d, -1) * 1.5) / h
            out.append(_ext.cat([prepend, center / 2, append], d))
    return tuple(out)


class _HistogramddResult(tuple):
    """The named tuple ``(hist, bin_edges)`` of ``histogramdd`` (torch's
    ``torch.return_types.histogramdd``; ``bin_edges`` a tuple of 1-D tensors, one per dim)."""

    __slots__ = ()
    _fields = ("hist", "bin_edges")

    def __new__(cls, hist, bin_edges):
        return tuple.__new__(cls, (hist, bin_edges))

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.histogramdd(hist={self[0]!r}, bin_edges={self[1]!r})"


_HistogramddResult.__name__ = "histogramdd"


def _fmt(v):
    """A float as C++'s ``operator<<`` writes it in torch's messages (``1``, ``0.5``, ``nan``)."""
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return f"{v:g}"


def _c10_name(dt):
    """A dtype as torch's C++ messages name it (``float``, ``double``, ``long``)."""
    n = str(dt).rsplit(".", 1)[-1]
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int", "int16": "short",
            "int8": "signed char", "uint8": "unsigned char"}.get(n, n)


def histogramdd(input, bins, range=None, weight=None, density=False):
    """histogramdd(input, bins, range=None, weight=None, density=False) -> (hist, bin_edges):
    the ``D``-dimensional histogram of the points in the innermost dimension (size ``D``) of
    ``input`` (float dtypes, at least 2-D). ``bins``: an int (that many equal bins per dim), a
    sequence of ``D`` ints, or a sequence of ``D`` 1-D tensors of bin edges (input's dtype). Equal
    bins span ``range`` (``2 D`` numbers: the min and max of each dim) or the data's min and max
    per dim (widened by 0.5 each side when equal; ``[0, 1]`` without points). A point falls into a
    bin when every coordinate lies between the first and last edge of its dim (the last bin
    includes its right edge; NaN never counts); ``weight`` (input's dtype, input's shape without
    the innermost dim) sums weights instead of counting, ``density=True`` divides by the total and
    the bin volumes. Returns a named tuple of the ``hist`` (input's dtype, one dim per input
    coordinate) and the tuple of ``bin_edges``. Errors (torch's texts): RuntimeError for a 1-D
    input, a bins or range of the wrong length, min above max, a non-finite range, a bins tensor
    that is not 1-D or empty, mismatched dtypes or weight shape; NotImplementedError for integer
    inputs. Not differentiable. Mirrors torch.histogramdd (whose parser, like this function,
    takes ``range``, ``weight`` and ``density`` by position too, and no ``out=``)."""
    f = "torch.histogramdd"
    if not isinstance(input, _ext.Tensor):
        raise TypeError(f"histogramdd(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.dim() < 2:
        raise RuntimeError(f"{f}: input tensor should have at least 2 dimensions")
    if not input.is_floating_point():
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{name.get(str(input.dtype).rsplit('.', 1)[-1])}'")
    D = input.shape[-1]
    dt = input.dtype
    points = input.detach().reshape(-1, D)
    if isinstance(bins, bool) or not (isinstance(bins, (int, Sequence)) and not isinstance(bins, str)):
        raise TypeError(
            f"histogramdd(): argument 'bins' must be int, tuple of ints or tuple of Tensors, not {type(bins).__name__}"
        )
    edges_given = not isinstance(bins, int) and len(bins) > 0 and isinstance(bins[0], _ext.Tensor)
    if not isinstance(bins, int) and len(bins) != D:
        if edges_given:
            raise RuntimeError(
                f"{f}: expected {D} sequences of bin edges for a {D}-dimensional histogram but got {len(bins)}"
            )
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if weight is not None:
        if not isinstance(weight, _ext.Tensor):
            raise TypeError(f"histogramdd(): argument 'weight' must be Tensor, not {type(weight).__name__}")
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError(
                f"{f}: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {list(input.shape)} and "
                f"weight with shape {list(weight.shape)}"
            )
        if weight.dtype != dt:
            raise RuntimeError(
                f"{f}: if weight tensor is provided, input tensor and weight tensor should have the same "
                f"dtype, but got input({_c10_name(dt)}), and weight({_c10_name(weight.dtype)})"
            )
    if edges_given:
        edges = []
        for d, e in enumerate(bins):
            if not isinstance(e, _ext.Tensor):
                raise TypeError(f"histogramdd(): argument 'bins' must be tuple of Tensors, not {type(e).__name__} at {d}")
            if e.dim() != 1:
                raise RuntimeError(
                    f"{f}: bins tensor should have one dimension, but got {e.dim()} dimensions in the bins tensor for dimension {d}"
                )
            if e.numel() == 0:
                raise RuntimeError(
                    f"{f}: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for dimension {d}"
                )
            if e.dtype != dt:
                raise RuntimeError(
                    f"{f}: input tensor and bins tensors should have the same dtype, but got input with dtype "
                    f"{_c10_name(dt)} and bins for dimension {d} with dtype {_c10_name(e.dtype)}"
                )
            edges.append(e.detach().contiguous())
    else:
        counts = [bins] * D if isinstance(bins, int) else [int(b) for b in bins]
        if range is not None:
            range = [float(v) for v in range]
            if len(range) != 2 * D:
                raise RuntimeError(
                    f"{f}: for a {D}-dimensional histogram range should have {2 * D} elements, but got {len(range)}"
                )
        edges = []
        for d, ct in enumerate(counts):
            if range is not None:
                lo, hi = range[2 * d], range[2 * d + 1]
            elif points.shape[0] > 0:
                col = points[:, d]
                lo, hi = col.min().item(), col.max().item()
            else:
                lo, hi = 0.0, 1.0
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise RuntimeError(f"{f}: dimension {d}'s range [{_fmt(lo)}, {_fmt(hi)}] is not finite")
            if lo > hi:
                raise RuntimeError(f"{f}: min should not exceed max, but got min {_fmt(lo)} max {_fmt(hi)} for dimension {d}")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            if ct == 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}")
            if ct < 0:
                raise RuntimeError(
                    f"{f}: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for dimension {d}"
                )
            edges.append(_ext.linspace(lo, hi, ct + 1, dtype=dt))
    nbins = [e.numel() - 1 for e in edges]
    hist_shape = tuple(max(n, 0) for n in nbins)
    total = 1
    for n in hist_shape:
        total *= n
    hist = _ext.zeros(hist_shape, dtype=dt)
    if total > 0 and points.shape[0] > 0:
        keep = _ext.ones(points.shape[0], dtype=_ext.bool)
        flat = _ext.zeros(points.shape[0], dtype=_ext.int64)
        for d, e in enumerate(edges):
            col = points[:, d].contiguous()
            keep = keep & (col >= e[0]) & (col <= e[-1])
            # torch's std::upper_bound over the edges (not checked to be sorted), the last edge
            # counted in the last bin.
            pos = _ext.searchsorted(e, col, right=True) - 1
            pos = _ext.clamp(pos, 0, nbins[d] - 1)
            flat = flat * nbins[d] + pos
        w = _ext.ones(points.shape[0], dtype=dt) if weight is None else weight.detach().reshape(-1)
        hist.view(-1).index_put_((flat[keep],), w[keep], accumulate=True)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = -1
            hist = hist / _ext.diff(e).reshape(shape)
    return _HistogramddResult(hist, tuple(edges))


def resize_as_(input, the_template):
    """resize_as_(input, the_template) -> Tensor: ``input.resize_as_(the_template)`` (``input``
    given ``the_template``'s shape in place; see ``_C.Tensor.resize_``), returning ``input``.
    TypeError for a non-tensor argument. Mirrors torch.resize_as_ (without ``memory_format=``)."""
    for pos, (name, v) in enumerate((("input", input), ("the_template", the_template)), 1):
        if not isinstance(v, _ext.Tensor):
            raise TypeError(f"resize_as_(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")
    return input.resize_as_(the_template)
