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
multigammaln = _special.special_multigammaln

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
    "multigammaln", "expit", "erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "logit",
    "xlogy", "expm1", "exp2", "log1p", "round", "logsumexp", "softmax", "log_softmax",
]

# `i0` and `polygamma` are top-level ops of another part of issue 13: aliased when present.
for _name in ("i0", "polygamma"):
    if hasattr(_ext, _name):
        globals()[_name] = getattr(_ext, _name)
        __all__.append(_name)
del _name
