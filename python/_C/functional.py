"""_C.functional: the functions torch writes in Python in ``torch/functional.py`` that ``_C``
lacked — ``broadcast_shapes`` and ``unravel_index`` — over ``_C``'s ops, re-exported at the top
level (``_C.broadcast_shapes``, as ``torch.broadcast_shapes``).
"""

import itertools
import operator
from collections.abc import Sequence

from . import _C as _ext

__all__ = ["broadcast_shapes", "unravel_index"]


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
