"""_C.signal: torch.signal for tensorbind — its one submodule, ``windows``."""

from . import windows  # noqa: F401

__all__ = ["windows"]
