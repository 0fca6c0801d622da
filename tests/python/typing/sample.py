"""A sample program using _C, type-checked by mypy against python/_C/__init__.pyi
(tests/python/test_typing.py). Not run: it only has to type-check."""

from typing import List, Tuple

import _C


def standardise(x: _C.Tensor) -> _C.Tensor:
    mean = x.mean(0, keepdim=True)
    std = ((x - mean) ** 2).mean(0, keepdim=True).sqrt()
    return (x - mean) / std


def fit(x: _C.Tensor, y: _C.Tensor, steps: int = 10) -> Tuple[_C.Tensor, List[float]]:
    w = _C.zeros(x.shape[1], 1, dtype=_C.float32)
    losses: List[float] = []
    for _ in range(steps):
        err = x @ w - y
        losses.append(float((err * err).mean().item()))
        w = w - 0.1 * x.T @ err / x.shape[0]
    return w, losses


def main() -> None:
    x = standardise(_C.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]))
    y = _C.arange(3, dtype=_C.float64).float().unsqueeze(1)
    w, losses = fit(x, y)
    shape: Tuple[int, ...] = w.shape
    total: _C.Tensor = _C.sum(w, dim=0, keepdim=True)
    idx: _C.Tensor = _C.argmax(x, dim=1)
    both = _C.cat([x, x], dim=0)
    print(shape, total.tolist(), idx.dtype, both.ndim, losses[-1], x.is_contiguous())


if __name__ == "__main__":
    main()
