"""_C.signal.windows: torch.signal.windows for tensorbind (SciPy-style window functions).

Each function mirrors ``torch.signal.windows.<name>``: the same keyword-only arguments
(``sym=True`` for a symmetric window, ``False`` for a periodic one; ``dtype``, ``layout``,
``device``, ``requires_grad`` as the factories take them), the same checks (ValueError for a
negative ``M``, a layout other than ``_C.strided``, a dtype other than float32/float64, and each
window's own parameter), and the same arithmetic: torch builds every window from ``linspace`` and
elementwise ops in the requested dtype, and so does this module, over ``_C``'s ops, so that the
float32 windows round as torch's do.
"""

import math
from collections.abc import Iterable

import _C

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checks(name, M, dtype, layout):
    """torch's ``_window_function_checks``; returns the dtype (None: float32, the default)."""
    if dtype is None:
        dtype = _C.float32  # _C's default dtype (it has no set_default_dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not _C.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_C.float32, _C.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, layout, device, requires_grad, ones_at_one=True):
    """The windows of length 0 (empty) and, for most windows, 1 (``[1.]``); else None."""
    if M == 0:
        return _C.empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    if M == 1 and ones_at_one:
        return _C.ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    return None


def _linspace(start, end, M, dtype, layout, device, requires_grad):
    return _C.linspace(
        start, end, M, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Exponential (Poisson) window ``w_n = exp(-|n - c| / tau)``, shape ``(M,)``.

    ``center`` defaults to ``(M - 1) / 2`` (``M / 2`` for a periodic window) and must be None
    when ``sym`` is True; ``tau > 0`` (ValueError otherwise). Mirrors
    ``torch.signal.windows.exponential``.
    """
    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    w = _trivial(M, dtype, layout, device, requires_grad, ones_at_one=False)
    if w is not None:
        return w
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype, layout, device, requires_grad)
    return _C.exp(-_C.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Cosine (sine) window ``w_n = sin(pi (n + 0.5) / M)``, shape ``(M,)``, as SciPy's.

    Mirrors ``torch.signal.windows.cosine``.
    """
    dtype = _checks("cosine", M, dtype, layout)
    w = _trivial(M, dtype, layout, device, requires_grad, ones_at_one=False)
    if w is not None:
        return w
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, layout, device, requires_grad)
    return _C.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Gaussian window ``w_n = exp(-(n / (2 std))^2)`` centred on the window, shape ``(M,)``.

    ``std > 0`` (ValueError otherwise). Mirrors ``torch.signal.windows.gaussian``.
    """
    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    w = _trivial(M, dtype, layout, device, requires_grad, ones_at_one=False)
    if w is not None:
        return w
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, layout, device, requires_grad)
    return _C.exp(-(k**2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Kaiser window ``w_n = I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)``, ``N = M - 1``
    (``M`` for a periodic window), shape ``(M,)``.

    ``beta >= 0`` (ValueError otherwise). Mirrors ``torch.signal.windows.kaiser``.
    """
    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    w = _trivial(M, dtype, layout, device, requires_grad)
    if w is not None:
        return w
    # torch casts beta to the dtype first (so start, end and the ratio round in it).
    beta = _C.tensor(beta, dtype=dtype)
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = _C.minimum(beta, start + (M - 1) * constant)
    # linspace takes Python numbers here: 0-dim tensors' values, exact in float64.
    k = _linspace(start.item(), end.item(), M, dtype, layout, device, requires_grad)
    return _C.i0(_C.sqrt(beta * beta - _C.pow(k, 2))) / _C.i0(beta)


def general_cosine(M, *, a, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Generalised cosine window ``w_n = sum_i (-1)^i a_i cos(2 pi i n / N)``, ``N = M - 1``
    (``M`` for a periodic window), shape ``(M,)``.

    ``a``: the coefficients (TypeError if not iterable, ValueError if empty). Mirrors
    ``torch.signal.windows.general_cosine``.
    """
    dtype = _checks("general_cosine", M, dtype, layout)
    w = _trivial(M, dtype, layout, device, requires_grad)
    if w is not None:
        return w
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * constant, M, dtype, layout, device, requires_grad)
    a_i = _C.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, requires_grad=requires_grad)
    i = _C.arange(a_i.shape[0], dtype=a_i.dtype, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * _C.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Generalised Hamming window ``w_n = alpha - (1 - alpha) cos(2 pi n / N)``, shape ``(M,)``.

    Mirrors ``torch.signal.windows.general_hamming``.
    """
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )


def hamming(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Hamming window, ``general_hamming`` with ``alpha = 0.54``. Mirrors
    ``torch.signal.windows.hamming``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Hann window, ``general_hamming`` with ``alpha = 0.5``. Mirrors
    ``torch.signal.windows.hann``."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Blackman window, ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``. Mirrors
    ``torch.signal.windows.blackman``."""
    dtype = _checks("blackman", M, dtype, layout)
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )


def bartlett(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Bartlett (triangular) window ``w_n = 1 - |2n / N - 1|``, ``N = M - 1`` (``M`` for a
    periodic window), shape ``(M,)``. Mirrors ``torch.signal.windows.bartlett``."""
    dtype = _checks("bartlett", M, dtype, layout)
    w = _trivial(M, dtype, layout, device, requires_grad)
    if w is not None:
        return w
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = _linspace(start, start + (M - 1) * constant, M, dtype, layout, device, requires_grad)
    return 1 - _C.abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=_C.strided, device=None, requires_grad=False):
    """Minimum 4-term Blackman–Harris window (Nuttall), ``general_cosine`` with
    ``a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]``. Mirrors
    ``torch.signal.windows.nuttall``."""
    return general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
        device=device, requires_grad=requires_grad,
    )
