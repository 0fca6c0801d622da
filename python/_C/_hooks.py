"""``_C._hooks``: the Python half of autograd hooks (torch: ``torch.utils.hooks``).

``RemovableHandle`` is what ``Tensor.register_hook``, ``register_post_accumulate_grad_hook``,
``grad_fn.register_hook`` and ``register_prehook`` return: ``handle.id`` and ``handle.remove()``,
as torch's. The hooks of one tensor (or node) live in an ordered dict made by ``_hooks_dict``;
the graph holds that dict (bindings: ``src/bindings/autograd_hooks.rs``) and calls its values in
registration order; a handle removes its entry through a weak reference to the dict.
"""

import weakref
from collections import OrderedDict


def _hooks_dict():
    """A fresh hook dict (an ``OrderedDict``: plain dicts cannot be weakly referenced)."""
    return OrderedDict()


class RemovableHandle:
    """A handle which provides the capability to remove a hook (torch.utils.hooks)."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
