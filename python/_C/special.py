"""_C.special: torch.special for tensorbind (real dtypes).

The functions new to this namespace are those of the extension's submodule ``_C._special``
(torch's ``torch._C._special``, named ``special_ndtr`` and so on), under torch's public names:
``_C.special.ndtr`` is ``_C._special.special_ndtr``. Their scalar kernels are in the Rust core
(``src/core/ops/special.rs``), computed in float64 and rounded once for float32. The others are
torch's aliases of top-level functions (``expit`` is ``_C.sigmoid``, ``gammaln`` is
``_C.lgamma``, ``psi`` is ``_C.digamma``, ...).
"""

from . import _C as _ext
from . import _special

# New kernels (src/core/ops/special.rs).
ndtr = _special.special_ndtr
ndtri = _special.special_ndtri
log_ndtr = _special.special_log_ndtr
i0e = _special.special_i0e
i1 = _special.special_i1
i1e = _special.special_i1e
erfcx = _special.special_erfcx
sinc = _ext.sinc  # torch.special.sinc is torch.sinc
entr = _special.special_entr
xlog1py = _special.special_xlog1py
zeta = _special.special_zeta
gammainc = _special.special_gammainc
gammaincc = _special.special_gammaincc
multigammaln = _special.special_multigammaln

# Bessel and Airy functions (src/core/ops/bessel.rs).
bessel_j0 = _special.special_bessel_j0
bessel_j1 = _special.special_bessel_j1
bessel_y0 = _special.special_bessel_y0
bessel_y1 = _special.special_bessel_y1
modified_bessel_i0 = _special.special_modified_bessel_i0
modified_bessel_i1 = _special.special_modified_bessel_i1
modified_bessel_k0 = _special.special_modified_bessel_k0
modified_bessel_k1 = _special.special_modified_bessel_k1
scaled_modified_bessel_k0 = _special.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _special.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _special.special_spherical_bessel_j0
airy_ai = _special.special_airy_ai

# Orthogonal polynomials (src/core/ops/polynomial.rs).
chebyshev_polynomial_t = _special.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _special.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _special.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _special.special_chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _special.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _special.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _special.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _special.special_shifted_chebyshev_polynomial_w
hermite_polynomial_h = _special.special_hermite_polynomial_h
hermite_polynomial_he = _special.special_hermite_polynomial_he
laguerre_polynomial_l = _special.special_laguerre_polynomial_l
legendre_polynomial_p = _special.special_legendre_polynomial_p

# torch's aliases of top-level functions.
expit = _ext.sigmoid
erf = _ext.erf
erfc = _ext.erfc
erfinv = _ext.erfinv
gammaln = _ext.lgamma
digamma = _ext.digamma
psi = _ext.digamma
logit = _ext.logit
xlogy = _ext.xlogy
expm1 = _ext.expm1
exp2 = _ext.exp2
log1p = _ext.log1p
round = _ext.round  # noqa: A001  (torch.special.round)
logsumexp = _ext.logsumexp
softmax = _ext.softmax
log_softmax = _ext.log_softmax

__all__ = [
    "ndtr", "ndtri", "log_ndtr", "i0e", "i1", "i1e", "erfcx", "sinc", "entr", "xlog1py", "zeta",
    "multigammaln",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "airy_ai",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "expit", "erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "logit",
    "xlogy", "expm1", "exp2", "log1p", "round", "logsumexp", "softmax", "log_softmax",
]

# `i0` and `polygamma` are top-level ops of another part of issue 13: aliased when present.
for _name in ("i0", "polygamma"):
    if hasattr(_ext, _name):
        globals()[_name] = getattr(_ext, _name)
        __all__.append(_name)
del _name
