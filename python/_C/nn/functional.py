"""_C.nn.functional: torch.nn.functional for tensorbind.

The Python layer torch has here: argument normalisation (``_pair``, ``stride=None``, the
``reduction=`` strings and the legacy ``size_average``/``reduce`` arguments, ``inplace=``,
``F.pad`` modes), torch's Python-side checks and warnings with torch's texts, and the few
functions torch writes in Python (``softsign``, ``softmin``, ``normalize``, ``kl_div``'s
``'batchmean'``). The kernels are ``_C._nn`` (torch's ``torch._C._nn``: ``linear``, ``gelu``,
``mse_loss``, ``cross_entropy_loss``, ``max_pool2d_with_indices``, ``pad``, ...) and ``_C``'s
own functions where torch's are in the ``torch`` namespace (``conv2d``, ``layer_norm``,
``batch_norm``, ``dropout``, ``embedding``, ...); see ``src/core/ops/nn/``.

Forward only for now: autograd, and with it the derivative formulas, come in a later change.
"""

import math
import warnings
from typing import List, Optional, Sequence, Tuple, Union

import _C
from _C import Tensor, _nn

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "elu",
    "elu_",
    "embedding",
    "gelu",
    "glu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "logsigmoid",
    "max_pool2d",
    "max_pool2d_with_indices",
    "mish",
    "mse_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "threshold",
    "threshold_",
]


# ---- argument normalisation (torch.nn.modules.utils, torch.nn._reduction) --------------------


def _ntuple(n: int, name: str):
    def parse(x):
        if isinstance(x, (list, tuple)):
            return tuple(x)
        return tuple([x] * n)

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")


def _list_with_default(out_size, defaults):
    """``adaptive_*_pool``'s ``output_size`` with ``None`` entries taken from the input."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [
        v if v is not None else d
        for v, d in zip(out_size, defaults[-len(out_size) :])
    ]


class _Reduction:
    """torch.nn._reduction: the ``reduction=`` strings as the kernels' enum (0 none, 1 mean,
    2 sum), and the deprecated ``size_average``/``reduce`` arguments."""

    @staticmethod
    def get_enum(reduction: str) -> int:
        if reduction == "none":
            return 0
        if reduction == "mean":
            return 1
        if reduction == "elementwise_mean":
            warnings.warn(
                "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                stacklevel=3,
            )
            return 1
        if reduction == "sum":
            return 2
        raise ValueError(f"{reduction} is not a valid value for reduction")

    @staticmethod
    def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
        if size_average is None:
            size_average = True
        if reduce is None:
            reduce = True
        if size_average and reduce:
            ret = "mean"
        elif reduce:
            ret = "sum"
        else:
            ret = "none"
        if emit_warning:
            warnings.warn(
                f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                stacklevel=3,
            )
        return ret

    @staticmethod
    def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
        return _Reduction.get_enum(
            _Reduction.legacy_get_string(size_average, reduce, emit_warning)
        )


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _infer_size(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[int, ...]:
    """The broadcast shape of `a` and `b` (torch's `_infer_size`)."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
        out.append(db if da == 1 else da)
    return tuple(out)


def _size(t: Tensor) -> str:
    """A shape as torch writes it in messages: ``torch.Size([2, 3])``."""
    return f"torch.Size({list(t.shape)})"


def _reduce(t: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return t
    if reduction == "mean":
        return _C.mean(t)
    if reduction == "sum":
        return _C.sum(t)
    raise ValueError(f"{reduction} is not a valid value for reduction")


# ---- linear --------------------------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """linear(input, weight, bias=None) -> Tensor

    ``y = input @ weight.T + bias``; input ``(*, in_features)``, weight ``(out_features,
    in_features)``, bias ``(out_features)``.
    """
    return _nn.linear(input, weight, bias)


def bilinear(
    input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None
) -> Tensor:
    """bilinear(input1, input2, weight, bias=None) -> Tensor

    ``y = x1^T A x2 + b`` per output feature: input1 ``(*, in1)``, input2 ``(*, in2)``, weight
    ``(out, in1, in2)``, bias ``(out)``.
    """
    return _C.bilinear(input1, input2, weight, bias)


# ---- activations ---------------------------------------------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """relu(input, inplace=False) -> Tensor: ``max(input, 0)`` elementwise."""
    return input.relu_() if inplace else _C.relu(input)


def relu_(input: Tensor) -> Tensor:
    """relu_(input) -> Tensor: in-place ``relu``."""
    return input.relu_()


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(input, inplace=False) -> Tensor: ``min(max(0, input), 6)``."""
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor

    ``input`` where positive, else ``negative_slope * input``.
    """
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """leaky_relu_(input, negative_slope=0.01) -> Tensor: in-place ``leaky_relu``."""
    return _nn.leaky_relu_(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """elu(input, alpha=1.0, inplace=False) -> Tensor

    ``input`` where positive, else ``alpha * (exp(input) - 1)``.
    """
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu_(input, alpha=1.0) -> Tensor: in-place ``elu``."""
    return _nn.elu_(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """selu(input, inplace=False) -> Tensor: ``scale * elu(input, alpha)`` with torch's
    constants ``alpha = 1.6732632423543772``, ``scale = 1.0507009873554805``."""
    return input.selu_() if inplace else _C.selu(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """celu(input, alpha=1.0, inplace=False) -> Tensor

    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.
    """
    return input.celu_(alpha) if inplace else _C.celu(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """gelu(input, approximate='none') -> Tensor

    ``x * Phi(x)`` (the standard normal CDF, ``approximate='none'``) or its tanh approximation
    (``approximate='tanh'``).
    """
    return _nn.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """silu(input, inplace=False) -> Tensor: ``x * sigmoid(x)``."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """mish(input, inplace=False) -> Tensor: ``x * tanh(softplus(x))``."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """softplus(input, beta=1, threshold=20) -> Tensor

    ``log(1 + exp(beta * x)) / beta``; ``x`` itself where ``beta * x > threshold``.
    """
    return _nn.softplus(input, beta, threshold)


def softsign(input: Tensor) -> Tensor:
    """softsign(input) -> Tensor: ``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """hardtanh(input, min_val=-1., max_val=1., inplace=False) -> Tensor

    ``input`` clamped to ``[min_val, max_val]``.
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _nn.hardtanh_(input, min_val, max_val)
    return _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh_(input, min_val=-1., max_val=1.) -> Tensor: in-place ``hardtanh``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _nn.hardtanh_(input, min_val, max_val)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """hardsigmoid(input, inplace=False) -> Tensor: ``relu6(x + 3) / 6``."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """hardswish(input, inplace=False) -> Tensor: ``x * relu6(x + 3) / 6``."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def logsigmoid(input: Tensor) -> Tensor:
    """logsigmoid(input) -> Tensor: ``log(1 / (1 + exp(-x)))``, computed stably."""
    return _nn.log_sigmoid(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """threshold(input, threshold, value, inplace=False) -> Tensor

    ``value`` where ``input <= threshold``, else ``input``.
    """
    if inplace:
        return input.threshold_(threshold, value)
    return _C.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold_(input, threshold, value) -> Tensor: in-place ``threshold``."""
    return input.threshold_(threshold, value)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """glu(input, dim=-1) -> Tensor: ``a * sigmoid(b)`` of the halves ``a``, ``b`` of
    ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError(
            "glu does not support scalars because halving size must be even"
        )
    return _nn.glu(input, dim)


def sigmoid(input: Tensor) -> Tensor:
    """sigmoid(input) -> Tensor: ``1 / (1 + exp(-x))``."""
    return _C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """tanh(input) -> Tensor: the hyperbolic tangent."""
    return _C.tanh(input)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(input, dim=None, dtype=None) -> Tensor: ``exp(x) / sum(exp(x))`` along ``dim``
    (``None``: torch's deprecated implicit choice, with its warning)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype=dtype)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmin(input, dim=None, dtype=None) -> Tensor: ``softmax(-input)`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _C.softmax(-input, dim)


def log_softmax(
    input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None
) -> Tensor:
    """log_softmax(input, dim=None, dtype=None) -> Tensor: ``log(softmax(input))``, computed
    stably."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype=dtype)


# ---- losses --------------------------------------------------------------------------------


def _warn_target_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({_size(target)}) that is different to the input size "
            f"({_size(input)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted(loss: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """torch's manual weighted form of ``mse_loss``/``l1_loss``/``huber_loss``."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _C.sum(weighted)
    if reduction == "mean":
        return _C.sum(weighted) / _C.sum(weight)
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
    )


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Optional[Tensor] = None,
) -> Tensor:
    """mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None)

    The squared error ``(input - target) ** 2``, reduced (``'none'``, ``'mean'``, ``'sum'``).
    """
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        d = input - target
        return _weighted(d * d, input, weight, reduction)
    return _nn.mse_loss(input, target, _Reduction.get_enum(reduction))


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Optional[Tensor] = None,
) -> Tensor:
    """l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None)

    The absolute error ``|input - target|``, reduced.
    """
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), input, weight, reduction)
    return _C.l1_loss(input, target, _Reduction.get_enum(reduction))


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0)

    ``0.5 d ** 2 / beta`` where ``|d| < beta``, else ``|d| - beta / 2``; reduced.
    """
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.smooth_l1_loss(input, target, _Reduction.get_enum(reduction), beta)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Optional[Tensor] = None,
) -> Tensor:
    """huber_loss(input, target, reduction='mean', delta=1.0, weight=None)

    ``0.5 d ** 2`` where ``|d| < delta``, else ``delta (|d| - delta / 2)``; reduced.
    """
    _warn_target_size(input, target)
    if weight is not None:
        loss = _nn.huber_loss(input, target, 0, delta)
        return _weighted(loss, input, weight, reduction)
    return _nn.huber_loss(input, target, _Reduction.get_enum(reduction), delta)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
    reduction='mean')

    ``-w (t log(x) + (1 - t) log(1 - x))`` of probabilities ``input``; each log clamped at
    -100 as torch does.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({_size(target)}) that is different to the input size "
            f"({_size(input)}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(*_infer_size(tuple(target.shape), tuple(weight.shape)))
    return _nn.binary_cross_entropy(input, target, weight, _Reduction.get_enum(reduction))


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Optional[Tensor] = None,
) -> Tensor:
    """binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
    reduce=None, reduction='mean', pos_weight=None)

    ``binary_cross_entropy(sigmoid(input), target)`` computed stably from the logits;
    ``pos_weight`` weighs the positive term.
    """
    reduction = _reduction(size_average, reduce, reduction)
    red = _Reduction.get_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({_size(target)}) must be the same as input size ({_size(input)})"
        )
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, red)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False)

    The KL divergence ``target * (log(target) - input)`` of log-probabilities ``input``;
    ``'batchmean'`` divides the sum by the batch size.
    """
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
        if reduction == "batchmean":
            reduction_enum = _Reduction.get_enum("sum")
        else:
            reduction_enum = _Reduction.get_enum(reduction)
    reduced = _C.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.shape[0]
    return reduced


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction='mean')

    The negative log-likelihood of log-probabilities ``input`` (``(C)``, ``(N, C)`` or ``(N, C,
    d1, ...)``) at class indices ``target``; the mean divides by the total weight of the
    counted targets.
    """
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.nll_loss_nd(input, target, weight, _Reduction.get_enum(reduction), ignore_index)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0)

    ``nll_loss(log_softmax(input, 1), target)`` for class indices, or ``-sum(w t
    log_softmax(input))`` for class probabilities (a float ``target`` of ``input``'s shape);
    ``label_smoothing`` mixes the target with the uniform distribution.
    """
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.cross_entropy_loss(
        input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing
    )


# ---- normalisation ---------------------------------------------------------------------------


def _verify_batch_size(size, text: str) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {text}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
    momentum=0.1, eps=1e-05)

    Per channel of ``(N, C, *)`` input: ``(x - mean) / sqrt(var + eps) * weight + bias``, with
    the batch's statistics (training; the running ones, when given, are updated in place with
    ``momentum``) or the running ones (eval).
    """
    if training:
        _verify_batch_size(list(input.shape), _size(input))
    return _C.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, False
    )


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)

    Normalises over the last ``len(normalized_shape)`` dims, then ``* weight + bias``.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Optional[Tensor] = None,
    eps: Optional[float] = None,
) -> Tensor:
    """rms_norm(input, normalized_shape, weight=None, eps=None)

    ``x / sqrt(mean(x ** 2) + eps) * weight`` over the last dims (``eps`` defaults to the
    dtype's machine epsilon).
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _C.rms_norm(input, list(normalized_shape), weight, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)

    Normalises ``(N, C, *)`` input over ``num_groups`` groups of channels, then per-channel
    ``* weight + bias``.
    """
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:])
    _verify_batch_size(size, str(size))
    return _C.group_norm(input, num_groups, weight, bias, eps)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Optional[Tensor] = None
) -> Tensor:
    """normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor

    ``input / max(||input||_p, eps)`` along ``dim``.
    """
    denom = _C.clamp(_C.norm(input, p, dim, True), min=eps).expand(*input.shape)
    if out is None:
        return input / denom
    return _C.div(input, denom, out=out)


# ---- dropout -------------------------------------------------------------------------------


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor

    In training, zeroes each element with probability ``p`` (drawn from ``_C``'s default
    generator) and scales the others by ``1 / (1 - p)``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    result = _C.dropout(input, p, training)
    if inplace:
        input.copy_(result)
        return input
    return result


# ---- sparse and distance -------------------------------------------------------------------


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: Optional[int] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False) -> Tensor

    The rows of ``weight`` at the indices ``input``. With ``max_norm``, the rows looked up whose
    ``norm_type``-norm exceeds it are first rescaled in place to that norm (as torch).
    """
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.shape[0], "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.shape[0], "Padding_idx must be within num_embeddings"
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """torch's ``embedding_renorm_``: each distinct row looked up with a norm above ``max_norm``
    is scaled by ``max_norm / (norm + 1e-7)``, in place."""
    for i in sorted(set(int(v) for v in input.reshape(-1).tolist())):
        row = weight[i]
        norm = float(_C.norm(row, norm_type))
        if norm > max_norm:
            row.mul_(max_norm / (norm + 1e-7))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """one_hot(tensor, num_classes=-1) -> Tensor: int64 ``tensor.shape + (num_classes,)`` with a
    1 at each class index (``-1``: the largest index + 1)."""
    return _nn.one_hot(tensor, num_classes)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor: ``x1 . x2 / (max(|x1|, eps)
    max(|x2|, eps))`` along ``dim``."""
    return _C.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) -> Tensor: ``||x1 - x2 +
    eps||_p`` along the last dim."""
    return _C.pairwise_distance(x1, x2, p, eps, keepdim)


# ---- padding, convolution, pooling ---------------------------------------------------------


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """pad(input, pad, mode='constant', value=None) -> Tensor

    Pads the last ``len(pad) // 2`` dims, last dim first (``(left, right, top, bottom, ...)``):
    ``'constant'`` (with ``value``, default 0; negative pads crop), ``'reflect'``,
    ``'replicate'`` or ``'circular'``.
    """
    return _nn.pad(input, list(pad), mode, value)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    The 1-d cross-correlation of ``(N, C, L)`` (or ``(C, L)``) input with weight ``(O, C /
    groups, k)``; ``padding`` an int, a 1-tuple, ``'same'`` or ``'valid'``.
    """
    return _C.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    The 2-d cross-correlation of ``(N, C, H, W)`` (or ``(C, H, W)``) input with weight ``(O, C
    / groups, kh, kw)``; ``padding`` an int, a pair, ``'same'`` or ``'valid'``.
    """
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tuple[Tensor, Tensor]:
    """max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, Tensor)

    The maximum over each window and its flat index in the input's ``H * W`` plane.
    """
    if stride is None:
        stride = []
    out, idx = _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out, idx


def max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    The maximum over each 2-d window (``stride`` defaults to ``kernel_size``); with
    ``return_indices`` also the flat indices of the maxima.
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Optional[int] = None,
) -> Tensor:
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) -> Tensor

    The mean over each 2-d window.
    """
    if stride is None:
        stride = []
    return _nn.avg_pool2d(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool2d(input, output_size) -> Tensor

    The mean over windows chosen to give ``output_size`` (an int, or a pair whose ``None``
    entries keep the input's size).
    """
    _output_size = _list_with_default(output_size, list(input.shape))
    return _nn.adaptive_avg_pool2d(input, _output_size)
