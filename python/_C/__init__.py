"""tensorbind: a PyTorch-compatible tensor library (Rust core, raw CPython C-API bindings).

This package wraps the compiled extension ``_C._C`` (built by maturin from the Rust crate) and
re-exports its public names, so that ``import _C; _C.zeros(2, 3)`` works. The names the test
suite reads are re-exported as well although they start with an underscore:

- ``_C._cpu_level()``: the CPU dispatch level of the vectorised kernels (``"avx512"``,
  ``"avx2"`` or ``"baseline"``; ``TENSORBIND_CPU`` forces a lower one).
- ``_C._py_debug``: True only when the extension was compiled for a ``Py_DEBUG`` interpreter.
- ``_C._live_tensors()``: the number of core tensors alive in the process (leak checks).
- ``_C._tensor_free_list_len()``: how many dead ``_C.Tensor`` objects are kept for reuse.
- ``_C._parked_tensors()``: how many tensors replaced by an ``out=`` resize are kept until the
  calls that may still read them return.
- ``_C._hold_in_thread(t, seconds)``: test hook; a Rust thread holds ``t`` for a while, then
  drops it without the GIL (PyObject preservation tests).
- ``_C._linalg``, ``_C._special``: the submodules behind ``_C.linalg`` and ``_C.special``
  (torch's ``torch._C._linalg`` / ``torch._C._special``).
- ``_C._nn``: the submodule of the functions behind ``_C.nn.functional`` (torch's
  ``torch._C._nn``); ``_C.nn.functional`` is the Python layer over it.
- ``_C._C_API``: the capsule holding the C API table of ``include/tensorbind.h`` (for other
  extensions: ``tb_import_api()`` reads it with ``PyCapsule_Import("_C._C_API")``).
- ``_C._live_external()``, ``_C._live_dlpack()``: external-memory owners and exported DLPack
  tensors not yet released (leak checks of the interop paths).
- ``_C._testing_*``: test hooks of ``src/bindings/testing.rs`` (pausing a core call that released
  the GIL; panics on a pool worker and on a thread of the library).
"""

# Star import skips underscore names; the private names the tests need are imported explicitly.
# The extension also exports dtype singletons named `bool`, `float`, `int`, ... so the builtins
# of those names are shadowed in this module after this line (as in `torch`): don't use them here.
from . import _C as _ext
from ._C import *  # noqa: F401,F403
from ._C import (  # noqa: F401
    _C_API,
    _cpu_level,
    _hold_in_thread,
    _live_dlpack,
    _live_external,
    _linalg,
    _live_tensors,
    _nn,
    _parked_tensors,
    _py_debug,
    _special,
    _tensor_free_list_len,
    _testing_panic_in_thread,
    _testing_panic_in_worker,
    _testing_pause_next_unlocked,
    _testing_paused,
    _testing_resume,
    _testing_touch_without_gil,
)

# `_C.return_types` holds the named-tuple types of multi-output ops; registering it as a module
# makes `import _C.return_types` work and lets pickle find the types by their qualified names.
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".return_types"] = _ext.return_types
# `_C._nn` (torch's `torch._C._nn`): the functions behind `_C.nn.functional`, a submodule the
# extension builds; registered so that `import _C._nn` works.
_sys.modules[__name__ + "._nn"] = _nn
# `_C._linalg` and `_C._special` (torch's `torch._C._linalg` / `torch._C._special`): the functions
# behind `_C.linalg` and `_C.special`, likewise.
_sys.modules[__name__ + "._linalg"] = _linalg
_sys.modules[__name__ + "._special"] = _special
del _sys

from . import autograd  # noqa: E402,F401  (`_C.autograd.grad`, as `torch.autograd.grad`)
from . import linalg  # noqa: E402,F401  (`_C.linalg.solve`, as `torch.linalg.solve`)
from . import special  # noqa: E402,F401  (`_C.special.ndtr`, as `torch.special.ndtr`)
from . import signal  # noqa: E402,F401  (`_C.signal.windows.hann`, as `torch.signal.windows`)


# torch.functional's Python-level functions (`broadcast_shapes`, `unravel_index`), `gradient`,
# `histogramdd` and the function `resize_as_`.
from .functional import broadcast_shapes, gradient, histogramdd, resize_as_, unravel_index  # noqa: E402,F401
# torch's top-level linalg functions `_C` writes in Python (python/_C/linalg.py): the deprecated
# `lu` / `lu_solve` / `triangular_solve`, `lu_unpack`, `pinverse`, `matrix_exp`, `orgqr` and
# `cholesky_inverse`, `geqrf`, `ormqr`, `svd_lowrank` and `pca_lowrank`.
from .linalg import _lu_top as lu, lu_unpack, matrix_exp  # noqa: E402,F401
from .linalg import _lu_solve_top as lu_solve  # noqa: E402,F401
from .linalg import _orgqr as orgqr, _pinverse as pinverse  # noqa: E402,F401
from .linalg import _cholesky_inverse as cholesky_inverse  # noqa: E402,F401
from .linalg import _triangular_solve as triangular_solve  # noqa: E402,F401
from .linalg import _geqrf as geqrf, _ormqr as ormqr  # noqa: E402,F401
from .linalg import _svd_lowrank_top as svd_lowrank, _pca_lowrank_top as pca_lowrank  # noqa: E402,F401


__all__ = sorted(name for name in vars(_ext) if not name.startswith("_"))
__version__ = getattr(_ext, "__version__", "0+unknown")
if _ext.__doc__:
    __doc__ = _ext.__doc__

del _ext
