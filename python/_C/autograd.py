"""``_C.autograd``: torch.autograd's entry points for tensorbind (``import _C as torch`` then
``torch.autograd.grad(...)``). ``backward(tensors, grad_tensors=None, retain_graph=None,
create_graph=False, grad_variables=None, inputs=None)`` and ``grad(outputs, inputs,
grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True, allow_unused=None,
is_grads_batched=False, materialize_grads=False)`` are the extension's own; the grad-mode types;
custom Functions (``Function``, ``FunctionCtx``, ``once_differentiable``); anomaly mode
(``detect_anomaly``, ``set_detect_anomaly``); saved-tensor hooks (``graph.saved_tensors_hooks``,
``graph.disable_saved_tensors_hooks``, module ``_C.autograd.graph``); ``gradcheck`` / ``gradgradcheck`` (module
``_C.autograd.gradcheck``, as ``torch.autograd.gradcheck``).
"""

import functools
import sys
import warnings

from . import _graph as graph  # noqa: F401
from . import _gradcheck
from ._C import Tensor as _Tensor
from ._C import _autograd_backward as backward  # noqa: F401
from ._C import _autograd_grad as grad  # noqa: F401
from ._C import _function_record, _set_anomaly_enabled
from ._C import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ._gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401

# `from _C.autograd.gradcheck import gradcheck, GradcheckError` works as torch's.
sys.modules[__name__ + ".gradcheck"] = _gradcheck
# `from _C.autograd.graph import saved_tensors_hooks` works as torch's.
sys.modules[__name__ + ".graph"] = graph

__all__ = [
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "detect_anomaly",
    "set_detect_anomaly",
    "graph",
]


# ---- custom Functions ------------------------------------------------------------------------

_ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


class FunctionCtx:
    """The ``ctx`` of a custom Function (torch.autograd.function.FunctionCtx)."""

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for ``backward``, read back as ``ctx.saved_tensors``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}"
                )
        self.to_save = tensors

    def mark_dirty(self, *args):
        """Mark the inputs ``forward`` modified in place (they are returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Mark outputs that do not require grad (their gradients are zeros in ``backward``)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self.__dict__.get("_saved_now")
        if saved is not None:
            return saved
        if self.__dict__.get("_recorded"):
            raise RuntimeError(_ERR_BACKWARD_TWICE)
        return tuple(self.__dict__.get("to_save", ()))


class BackwardCFunction(FunctionCtx):
    """The context object of one call of a custom Function; the graph node holds it (and calls
    ``_backward_entry`` from the engine)."""

    def _backward_entry(self, saved, *grads):
        cls = self._forward_cls
        positions = self._saved_positions
        if positions is not None:
            full = [None] * len(positions)
            it = iter(saved)
            for i, present in enumerate(positions):
                if present:
                    full[i] = next(it)
            saved = tuple(full)
        self._saved_now = saved
        try:
            result = cls.backward(self, *grads)
        finally:
            del self._saved_now
        if not isinstance(result, tuple):
            result = (result,)
        name = cls.__name__ + "Backward"
        is_tensor = self._input_is_tensor
        n = len(is_tensor)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]
        if len(result) != n:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients "
                f"(expected {n}, got {len(result)})"
            )
        out = []
        for i, (g, t) in enumerate(zip(result, is_tensor)):
            if t:
                out.append(g)
            elif g is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable"
                )
        return tuple(out)


class _FunctionMeta(type):
    """Gives each Function class its node name (``<Class>Backward``)."""


class Function(metaclass=_FunctionMeta):
    """Base class of custom autograd operations (torch.autograd.Function): subclass it with
    ``@staticmethod forward(ctx, *args)`` (or ``forward(*args)`` plus ``setup_context(ctx,
    inputs, output)``) and ``backward(ctx, *grad_outputs)``, then call ``F.apply(*args)``."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = BackwardCFunction()
        ctx._forward_cls = cls
        is_tensor = tuple(isinstance(a, _Tensor) for a in args)
        ctx._input_is_tensor = is_tensor
        ctx.needs_input_grad = tuple(
            t and a.requires_grad for t, a in zip(is_tensor, args)
        )
        recording = is_grad_enabled() and any(ctx.needs_input_grad)
        tensor_inputs = tuple(a for a, t in zip(args, is_tensor) if t)
        # Inference tensors have no version counter (and cannot be written outside inference mode).
        versions = [None if t.is_inference() else t._version for t in tensor_inputs]
        new_style = cls.setup_context is not Function.setup_context
        with no_grad():
            if new_style:
                output = cls.forward(*args, **kwargs)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if new_style:
            cls.setup_context(ctx, args, output)
        if not recording:
            ctx.__dict__.pop("to_save", None)
            return output
        single = not isinstance(output, tuple)
        outputs = (output,) if single else output
        tensor_outputs = tuple(o for o in outputs if isinstance(o, _Tensor))
        dirty = tuple(getattr(ctx, "dirty_tensors", ()))
        for i, (t, v) in enumerate(zip(tensor_inputs, versions)):
            if v is not None and t._version != v and not any(t is d for d in dirty):
                raise RuntimeError(
                    f"{cls.__name__}.forward modified its input {i} in place without "
                    "ctx.mark_dirty(). Call ctx.mark_dirty() on every input the forward "
                    "modifies in place (torch would return wrong gradients silently here)."
                )
        to_save = tuple(ctx.__dict__.pop("to_save", ()))
        ctx._saved_positions = tuple(t is not None for t in to_save)
        new_outputs = _function_record(
            ctx,
            cls.__name__ + "Backward",
            tensor_inputs,
            tensor_outputs,
            tuple(t for t in to_save if t is not None),
            dirty,
            tuple(getattr(ctx, "non_differentiable", ())),
            getattr(ctx, "materialize_grads", True),
        )
        # The context must not keep tensors alive (no cycle through the graph).
        ctx.__dict__.pop("dirty_tensors", None)
        ctx.__dict__.pop("non_differentiable", None)
        ctx._recorded = True
        it = iter(new_outputs)
        result = tuple(next(it) if isinstance(o, _Tensor) else o for o in outputs)
        return result[0] if single else result


def once_differentiable(fn):
    """Decorator for a custom Function's ``backward`` that is not itself differentiable: it
    runs without recording a graph (torch.autograd.function.once_differentiable)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper


# ---- anomaly mode ----------------------------------------------------------------------------


class detect_anomaly:
    """Context manager (and decorator) that enables anomaly detection: a backward node that
    returns NaN raises ``Function 'XBackward0' returned nan values in its 0th output.``, and an
    error inside backward is preceded by a warning naming the node (torch.autograd.detect_anomaly).
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        _set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off now; as a context manager, restores the previous mode on
    exit (torch.autograd.set_detect_anomaly)."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False
