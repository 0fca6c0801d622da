"""``_C.autograd``: torch.autograd's entry points for tensorbind (``import _C as torch`` then
``torch.autograd.grad(...)``). The functions are the extension's own (no Python wrapper):
``backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
grad_variables=None, inputs=None)`` and ``grad(outputs, inputs, grad_outputs=None,
retain_graph=None, create_graph=False, only_inputs=True, allow_unused=None,
is_grads_batched=False, materialize_grads=False)``, plus the grad-mode types.
"""

from ._C import _autograd_backward as backward  # noqa: F401
from ._C import _autograd_grad as grad  # noqa: F401
from ._C import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = [
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
]
