"""_C.nn: torch.nn's functional layer for tensorbind (``_C.nn.functional``).

Only the functional interface exists so far (no ``Module`` classes); ``import _C.nn.functional
as F`` gives torch's ``F.linear``, ``F.relu``, ``F.conv2d``, ``F.cross_entropy``, ... over the
kernels of ``_C._nn`` (torch's ``torch._C._nn``) and ``_C``.
"""

from . import functional  # noqa: F401

__all__ = ["functional"]
