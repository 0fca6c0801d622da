"""``_C.autograd.graph``: torch.autograd.graph's saved-tensor hooks for tensorbind —
``saved_tensors_hooks(pack_hook, unpack_hook)`` and ``disable_saved_tensors_hooks(error_message)``
(``save_on_cpu`` is not provided: tensorbind has one device)."""

import contextlib

from ._C import (
    _pop_saved_tensors_default_hooks,
    _push_saved_tensors_default_hooks,
    _saved_tensors_hooks_disable,
    _saved_tensors_hooks_enable,
    _saved_tensors_hooks_get_disabled_error_message,
)

__all__ = ["saved_tensors_hooks", "disable_saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager that sets a pair of pack / unpack hooks for saved tensors
    (torch.autograd.graph.saved_tensors_hooks).

    Inside it, every tensor an operation saves for backward is given to ``pack_hook(tensor)``
    (run under no_grad; it must not modify the tensor in place: RuntimeError), and the graph keeps
    what it returns instead of the tensor. ``unpack_hook(packed)`` is called when the value is
    needed (in backward, or on ``grad_fn._saved_*`` access) and must return a Tensor (else
    TypeError "Output of saved tensor unpack_hook expected to be a Tensor but got result of type
    ..."). Pairs nest (the innermost is used) and are per thread. Tensors saved through hooks skip
    the in-place version check, as torch. Entering raises the message of an active
    ``disable_saved_tensors_hooks`` as RuntimeError, and TypeError when a hook is not callable.
    The objects the hooks return are visible to the cyclic GC (a pack hook returning its input is
    freed; torch leaks that graph).
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _pop_saved_tensors_default_hooks()


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager that disables saved-tensor hooks: entering ``saved_tensors_hooks`` inside
    it raises ``RuntimeError(error_message)``; entering it while hooks are active raises that
    error too (torch.autograd.graph.disable_saved_tensors_hooks). Nests: the previous message is
    restored on exit."""
    maybe_prev_message = None
    try:
        maybe_prev_message = _saved_tensors_hooks_get_disabled_error_message()
        _saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if maybe_prev_message is None:
            _saved_tensors_hooks_enable()
        else:
            _saved_tensors_hooks_disable(maybe_prev_message)
