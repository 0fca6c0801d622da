"""_C.nn.functional: torch.nn.functional for tensorbind.

The Python layer torch has here: argument normalisation (``_pair``, ``stride=None``, the
``reduction=`` strings and the legacy ``size_average``/``reduce`` arguments, ``inplace=``,
``F.pad`` modes), torch's Python-side checks and warnings with torch's texts, and the few
functions torch writes in Python (``softsign``, ``softmin``, ``normalize``, ``kl_div``'s
``'batchmean'``). The kernels are ``_C._nn`` (torch's ``torch._C._nn``: ``linear``, ``gelu``,
``mse_loss``, ``cross_entropy_loss``, ``max_pool2d_with_indices``, ``pad``, ...) and ``_C``'s
own functions where torch's are in the ``torch`` namespace (``conv2d``, ``layer_norm``,
``batch_norm``, ``dropout``, ``embedding``, ...); see ``src/core/ops/nn/``.

Differentiable: the kernels record their nodes (src/core/autograd/nn_formulas.rs), and what
torch composes is composed of recorded ops here too.
"""

import itertools
import math
import struct
import warnings
from typing import List, Optional, Sequence, Tuple, Union

import _C
from _C import Tensor, _nn

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "affine_grid",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "elu_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "grid_sample",
    "group_norm",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
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
    in_features)``, bias ``(out_features)``. Differentiable with respect to all three: an input
    that requires grad takes the composite ``input.matmul(weight.t()) + bias``, as torch's
    linear is a composite for autograd (matmul / addmm carry the gradients).
    """
    if _needs_grad(input, weight, bias) and weight.dim() == 2:
        out = input.matmul(weight.t())
        return out if bias is None else out + bias
    return _nn.linear(input, weight, bias)


def bilinear(
    input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None
) -> Tensor:
    """bilinear(input1, input2, weight, bias=None) -> Tensor

    ``y = x1^T A x2 + b`` per output feature: input1 ``(*, in1)``, input2 ``(*, in2)``, weight
    ``(out, in1, in2)``, bias ``(out)``. Integer inputs of one dtype give that dtype (the
    kernel's int64 result wrapped into it, as torch's arithmetic in the narrower type wraps).
    """
    out = _C.bilinear(input1, input2, weight, bias)
    dt = input1.dtype
    if (out.dtype != dt and not input1.is_floating_point() and dt != _C.bool and input2.dtype == dt
            and weight.dtype == dt and (bias is None or bias.dtype == dt)):
        out = out.to(dt)
    return out


def _needs_grad(*tensors) -> bool:
    """Whether grad mode is on and one of the tensors (None allowed) requires grad."""
    return _C.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


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
    # As torch: negated in the input's dtype (uint8 wraps), then converted.
    return _C.softmax(-input, dim, dtype=dtype)


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
        _verify_batch_size(tuple(input.shape), _size(input))
    if input.numel() == 0:
        # torch returns a copy of an empty input before any check ("don't return view of
        # input, don't return empty tensor because it will break gradient chain").
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
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
    if input.shape[1] <= 0:
        raise RuntimeError(f"Expected number of channels to be greater than 0, got {input.shape[1]}")
    hxw = 1
    for d in input.shape[2:]:
        hxw *= d
    if hxw <= 0:
        raise RuntimeError(f"Expected HxW to be greater than 0, got {hxw}")
    return _C.group_norm(input, num_groups, weight, bias, eps)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Optional[Tensor] = None
) -> Tensor:
    """normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor

    ``input / max(||input||_p, eps)`` along ``dim``.
    """
    denom = _C.clamp(_C.norm(input, p, dim, True), min=eps).expand(list(input.shape))
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
    if inplace and result is not input:
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
    pad = list(pad)
    if mode in ("reflect", "replicate") and input.dtype == _C.bool and len(pad) in (2, 4, 6):
        _check_float(input, ("reflection_pad" if mode == "reflect" else "replication_pad") + f"{len(pad) // 2}d")
    if mode == "circular" and any(p < 0 for p in pad):
        cropped = _crop_for_circular(input, pad)
        if cropped is not None:
            return _nn.pad(cropped, [max(p, 0) for p in pad], mode, value)
    return _nn.pad(input, pad, mode, value)


def _crop_for_circular(input: Tensor, pad: List[int]) -> Optional[Tensor]:
    """torch's circular padding with negative pads: the input cropped first, then padded
    circularly from the cropped part (torch's ``_pad_circular`` copies the pads from its output's
    inner region). None when the kernel should judge the arguments (it raises torch's errors)."""
    if len(pad) % 2 != 0 or len(pad) // 2 >= input.dim():
        return None
    x = input
    for k in range(len(pad) // 2):
        dim = input.dim() - 1 - k
        size = input.shape[dim]
        left, right = pad[2 * k], pad[2 * k + 1]
        if left > size or right > size:
            return None
        start, stop = max(-left, 0), size - max(-right, 0)
        if stop - start < max(left, 0) or stop - start < max(right, 0) or stop - start < 0:
            return None
        x = x.narrow(dim, start, stop - start)
    return x


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    The 1-d cross-correlation of ``(N, C, L)`` (or ``(C, L)``) float or integer input with
    weight ``(O, C / groups, k)``; ``padding`` an int, a 1-tuple, ``'same'`` or ``'valid'``.
    """
    return _C.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    The 2-d cross-correlation of ``(N, C, H, W)`` (or ``(C, H, W)``) float or integer input
    with weight ``(O, C / groups, kh, kw)``; ``padding`` an int, a pair, ``'same'`` or
    ``'valid'``.
    """
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The transposed 1-d convolution ("deconvolution") of ``(N, C_in, L)`` (or ``(C_in, L)``)
    input with weight ``(C_in, C_out / groups, k)``: output length ``(L - 1) * stride - 2 *
    padding + dilation * (k - 1) + output_padding + 1``. Mirrors ``torch.conv_transpose1d``.
    """
    return _C.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The transposed 2-d convolution ("deconvolution") of ``(N, C_in, H, W)`` (or ``(C_in, H,
    W)``) input with weight ``(C_in, C_out / groups, kh, kw)``: each output size ``(in - 1) *
    stride - 2 * padding + dilation * (k - 1) + output_padding + 1``. Mirrors
    ``torch.conv_transpose2d``.
    """
    return _C.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


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
    if input.dtype in _INTEGER:
        return _int_max_pool(
            lambda x: _nn.max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode), input, 2
        )
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
    if input.dtype in _INTEGER:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]
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

    The mean over each 2-d window (int64 input: the sum divided with truncation, as torch).
    """
    if stride is None:
        stride = []
    if input.dtype == _C.int64:
        def two(v):
            v = [int(x) for x in _pair(v)]
            return v * 2 if len(v) == 1 else v

        k = two(kernel_size)
        st = two(stride) if len(_pair(stride)) else k
        pd = two(padding)
        return _int_avg_pool(
            lambda x: _nn.avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
            input, k, st, pd, ceil_mode, count_include_pad, divisor_override,
        )
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


# ---- more of torch.nn.functional, composed of _C's ops ------------------------------------
# torch has kernels of their own for most of these; here they are compositions (forward only,
# and differentiable through their parts once autograd lands). Names, signatures, defaults,
# checks and texts are torch's.


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """softshrink(input, lambd=0.5) -> Tensor: ``x - lambd`` above ``lambd``, ``x + lambd``
    below ``-lambd``, else 0."""
    if lambd < 0:
        # torch's text: the float32 range (its message's bound is the dtype's max), %g-style.
        hi = "3.40282e+38" if input.dtype == _C.float32 else "1.79769e+308"
        name = "Float" if input.dtype == _C.float32 else "Double"
        raise RuntimeError(
            f"lambda must be in range [0, {hi}] for input dtype {name}, but found {lambd:g}"
        )
    # torch's `a * 0` in the middle: NaN stays NaN.
    return _C.where(input > lambd, input - lambd, _C.where(input < -lambd, input + lambd, input * 0))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """hardshrink(input, lambd=0.5) -> Tensor: ``x`` where ``|x| > lambd``, else 0."""
    # torch's test `-lambd <= a <= lambd` for the zeros: NaN passes through.
    inside = (input >= -lambd).logical_and(input <= lambd)
    return _C.where(inside, _C.zeros_like(input), input)


def tanhshrink(input: Tensor) -> Tensor:
    """tanhshrink(input) -> Tensor: ``x - tanh(x)``."""
    return input - _C.tanh(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """prelu(input, weight) -> Tensor: ``x`` where positive, else ``weight * x`` (``weight``
    one value or one per channel, dim 1)."""
    channels = 1
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight.numel() == 1:
        weight = weight.reshape([])
    elif input.dim() >= 2:
        weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False
) -> Tensor:
    """rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False) -> Tensor

    ``leaky_relu`` with slope ``(lower + upper) / 2`` (eval), or a slope drawn uniformly from
    ``[lower, upper]`` per negative element (training, from ``_C``'s default generator).
    """
    if training:
        slope = _C.rand_like(input) * (upper - lower) + lower
        result = _C.where(input >= 0, input, input * slope)
    else:
        result = _nn.leaky_relu(input, (lower + upper) / 2)
    if inplace:
        input.copy_(result)
        return input
    return result


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched_dim: int, name: str) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        result = input.clone()
    else:
        unbatched = input.dim() == batched_dim - 1
        x = input.unsqueeze(0) if unbatched else input
        mask_shape = list(x.shape[:2]) + [1] * (x.dim() - 2)
        mask = _C.bernoulli(_C.full(mask_shape, 1.0 - p, dtype=x.dtype))
        result = x * mask / (1.0 - p) if p < 1.0 else x * 0.0
        if unbatched:
            result = result.squeeze(0)
    if inplace:
        input.copy_(result)
        return input
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels of
    ``(N, C, L)`` (or ``(C, L)``) input with probability ``p``, scaling the rest by ``1 / (1 - p)``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _channel_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels of
    ``(N, C, H, W)`` input with probability ``p``, scaling the rest by ``1 / (1 - p)``."""
    return _channel_dropout(input, p, training, inplace, 4, "dropout2d")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """dropout3d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels of
    ``(N, C, D, H, W)`` input with probability ``p``, scaling the rest by ``1 / (1 - p)``."""
    return _channel_dropout(input, p, training, inplace, 5, "dropout3d")


def instance_norm(
    input: Tensor,
    running_mean: Optional[Tensor] = None,
    running_var: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
    use_input_stats=True, momentum=0.1, eps=1e-05) -> Tensor

    Normalises each channel of each sample of ``(N, C, *)`` input over its spatial dims; the
    running statistics, when given, are updated in place with the mean over the batch.
    """
    if use_input_stats:
        size = list(input.shape)
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {_size(input)}"
            )
    n, c = input.shape[0], input.shape[1]
    x = input.reshape([1, n * c] + list(input.shape[2:]))
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = _C.batch_norm(x, w, b, rm, rv, use_input_stats, momentum, eps, False)
    if use_input_stats:
        if running_mean is not None:
            running_mean.copy_(rm.reshape(n, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(list(input.shape))


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """pixel_shuffle(input, upscale_factor) -> Tensor: ``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}")
    r = upscale_factor
    *batch, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    oc = c // (r * r)
    nb = len(batch)
    x = input.reshape(batch + [oc, r, r, h, w])
    perm = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
    return x.permute(perm).reshape(batch + [oc, h * r, w * r])


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """pixel_unshuffle(input, downscale_factor) -> Tensor: ``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}")
    r = downscale_factor
    *batch, c, h, w = input.shape
    if h % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not divisible by {r}"
        )
    if w % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not divisible by {r}"
        )
    nb = len(batch)
    x = input.reshape(batch + [c, h // r, r, w // r, r])
    perm = list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3]
    return x.permute(perm).reshape(batch + [c * r * r, h // r, w // r])


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle(input, groups) -> Tensor: ``(N, g * k, *)`` channels reordered as ``(k, g)``."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    rest = list(input.shape[2:])
    x = input.reshape([n, groups, c // groups] + rest)
    return x.transpose(1, 2).reshape([n, c] + rest)


def _check_dim_range(input: Tensor, name: str) -> None:
    """torch's ``checkDimRange(name, self, 2, 4)``: 2-d or 3-d input."""
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {name})"
        )


def _check1d(name: str, arg: str, value) -> int:
    """torch's ``check1d``: an int or a one-element sequence."""
    t = _single(value)
    if len(t) != 1:
        raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got {len(t)})")
    return int(t[0])


def _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode) -> Tuple[int, int, int, int]:
    """torch's ``check_max_pool1d`` (the path without indices), with its texts."""
    shape = list(input.shape)
    nd = len(shape)
    if not ((nd == 2 and shape[0] != 0 and shape[1] != 0) or (nd == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError(
            f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}"
        )
    k, s, p, d = _single(kernel_size), _single(stride) if stride is not None else (), _single(padding), _single(dilation)
    if len(k) != 1:
        raise RuntimeError(
            f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size {len(k)}"
        )
    if len(s) not in (0, 1):
        raise RuntimeError(
            "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size "
            f"{len(s)}"
        )
    if len(p) != 1:
        raise RuntimeError(
            f"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size {len(p)}"
        )
    if len(d) != 1:
        raise RuntimeError(
            f"max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size {len(d)}"
        )
    k0, p0, d0 = int(k[0]), int(p[0]), int(d[0])
    s0 = int(s[0]) if s else k0
    if k0 <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k0}")
    if s0 <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s0}")
    if p0 < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p0}")
    if p0 > k0 // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p0} and kernel_size={k0}"
        )
    if d0 <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d0}")
    n = shape[-1]
    num = n + 2 * p0 - d0 * (k0 - 1) - 1 + (s0 - 1 if ceil_mode else 0)
    ow = num // s0 + 1
    if ceil_mode and (ow - 1) * s0 >= n + p0:
        ow -= 1
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    return k0, s0, p0, d0


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False): the maximum over each window of ``(N, C, L)`` (or ``(C, L)``) input;
    with ``return_indices`` also the indices of the maxima (torch's ``max_pool1d_with_indices``:
    its checks and texts, then ``max_pool2d_with_indices`` over an added height of 1)."""
    if input.dtype in _INTEGER:
        if not return_indices:
            _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode)
            _check_float(input, "max_pool1d_impl")
        return _int_max_pool(
            lambda x: max_pool1d(x, kernel_size, stride, padding, dilation, ceil_mode, True), input, 1
        )
    if return_indices:
        _check_dim_range(input, "max_pool1d")
        k = _check1d("max_pool1d", "kernel_size", kernel_size)
        s = _check1d("max_pool1d", "stride", stride) if stride is not None and _single(stride) != () else k
        p = _check1d("max_pool1d", "padding", padding)
        d = _check1d("max_pool1d", "dilation", dilation)
        out, idx = _nn.max_pool2d_with_indices(input.unsqueeze(-2), [1, k], [1, s], [0, p], [1, d], ceil_mode)
        return out.squeeze(-2), idx.squeeze(-2)
    k, s, p, d = _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_float(input, "max_pool1d_impl")
    out, _ = _nn.max_pool2d_with_indices(input.unsqueeze(-2), [1, k], [1, s], [0, p], [1, d], ceil_mode)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True): the mean over each window of ``(N, C, L)`` (or ``(C, L)``) input
    (torch's checks, then ``avg_pool2d`` over an added height of 1)."""
    _check_dim_range(input, "avg_pool1d")
    k = _check1d("avg_pool1d", "kernel_size", kernel_size)
    s = _check1d("avg_pool1d", "stride", stride) if stride is not None and _single(stride) != () else k
    p = _check1d("avg_pool1d", "padding", padding)
    if input.dtype == _C.int64:
        return _int_avg_pool(
            lambda x: _nn.avg_pool2d(x.unsqueeze(-2), [1, k], [1, s], [0, p], ceil_mode, count_include_pad, None)
            .squeeze(-2),
            input, [k], [s], [p], ceil_mode, count_include_pad, None,
        )
    return _nn.avg_pool2d(input.unsqueeze(-2), [1, k], [1, s], [0, p], ceil_mode, count_include_pad, None).squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool1d(input, output_size) -> Tensor: the mean over adaptive windows of
    ``(N, C, L)`` (or ``(C, L)``) input."""
    _check_dim_range(input, "adaptive_avg_pool1d")
    o = _check1d("adaptive_avg_pool1d", "output_size", output_size)
    return _nn.adaptive_avg_pool2d(input.unsqueeze(-2), [1, o]).squeeze(-2)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor: the
    ``norm_type``-norm over each window (as torch: from ``avg_pool2d`` of ``x ** p``)."""
    kw, kh = _pair(kernel_size)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_C.sign(out) * _C.relu(out.abs())).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_C.sign(out) * _C.relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
    reduce=None, reduction='mean') -> Tensor"""
    reduction = _reduction(size_average, reduce, reduction)
    _Reduction.get_enum(reduction)
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:
        t = target
        stirling = t * _C.log(t) - t + 0.5 * _C.log(2 * math.pi * t)
        loss = loss + _C.where(t > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean') -> Tensor

    ``0.5 (log(max(var, eps)) + (input - target) ** 2 / max(var, eps))`` (+ ``0.5 log(2 pi)``
    with ``full``).
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones_like(input)
    elif bool(_C.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass  # broadcastable with one mismatched (size-1) dim: homoscedastic
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    # As torch: clamped in place without recording, so the gradient passes the clamp unchanged.
    var = var.clone()
    with _C.no_grad():
        var.clamp_(min=eps)
    d = input - target
    loss = 0.5 * (_C.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction='mean') -> Tensor: ``1 - cos`` where ``target == 1``, ``max(0, cos - margin)``
    where ``target == -1``."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"cosine_embedding_loss : All input tensors should have same dimension but got sizes: input1: {_size(input1)}, input2: {_size(input2)}, target: {_size(target)} "
        )
    dim = input1.dim() - 1
    eps = 1e-12
    prod = _C.sum(input1 * input2, dim)
    mag1 = _C.sum(input1 * input1, dim) + eps
    mag2 = _C.sum(input2 * input2, dim) + eps
    cos = prod / _C.sqrt(mag1 * mag2)
    zeros = _C.zeros_like(cos)
    pos = 1 - cos
    neg = _C.clamp(cos - margin, min=0)
    loss = _C.where(target == 1, pos, zeros) + _C.where(target == -1, neg, zeros)
    return _reduce(loss, reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
    reduction='mean') -> Tensor"""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _C.zeros_like(input)
    margin_clamp = _C.clamp(margin - input, min=0)
    loss = _C.where(target != 1, margin_clamp, zeros) + _C.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction='mean') -> Tensor: ``max(0, -target (input1 - input2) + margin)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: {_size(input1)}, input2: {_size(input2)}, target: {_size(target)} "
        )
    loss = _C.clamp(-target * (input1 - input2) + float(margin), min=0)
    return _reduce(loss, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean') ->
    Tensor: ``log(1 + exp(-target * input))``."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce(_C.log1p(_C.exp(-input * target)), reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
    reduction='mean') -> Tensor"""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    c = input.shape[class_dim]
    loss = _C.sum(loss, class_dim) / c
    if reduction == "none":
        return loss
    if reduction == "mean":
        return _C.mean(loss)
    if reduction == "sum":
        return _C.sum(loss)
    raise ValueError(reduction + " is not valid")


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
    size_average=None, reduce=None, reduction='mean') -> Tensor"""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs"
        )
    d_ap = _C.pairwise_distance(anchor, positive, p, eps, False)
    d_an = _C.pairwise_distance(anchor, negative, p, eps, False)
    if swap:
        d_pn = _C.pairwise_distance(positive, negative, p, eps, False)
        d_an = _C.minimum(d_an, d_pn)
    loss = _C.clamp(margin + d_ap - d_an, min=0)
    return _reduce(loss, reduction)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """pdist(input, p=2) -> Tensor: the p-norm distances between the rows of ``(N, M)`` input,
    the upper triangle of the distance matrix row by row (``N (N - 1) / 2`` values)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n < 2:
        return _C.zeros(0, dtype=input.dtype)
    # Only the pairs i < j: a zero row difference on the diagonal would make the norm's double
    # backward singular.
    pairs = _C.triu_indices(n, n, 1)
    diff = input.index_select(0, pairs[0]) - input.index_select(0, pairs[1])
    return _C.norm(diff, p, -1)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Optional[Tensor] = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: Optional[float] = None,
    enable_gqa: bool = False,
) -> Tensor:
    """scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
    is_causal=False, scale=None, enable_gqa=False) -> Tensor

    ``softmax(query @ key^T * scale + bias) @ value`` with ``scale = 1 / sqrt(E)`` by default;
    ``attn_mask`` a bool mask (True: take part) or a float bias, ``is_causal`` the lower
    triangle, ``enable_gqa`` key/value heads shared by groups of query heads. (The reference
    computation, materialising the score matrix; a blocked kernel comes with the speed work.)
    """
    L, S = query.shape[-2], key.shape[-2]
    E = query.shape[-1]
    scale_factor = 1 / math.sqrt(E) if scale is None else scale
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and query.dim() >= 3:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq % hk != 0:
            raise RuntimeError(
                f"Number of heads in key and value must divide the number of heads in query, got {hk} and {hq}"
            )
        rep = hq // hk
        key = _C.stack([key] * rep, key.dim() - 2).reshape(list(key.shape[:-3]) + [hq] + list(key.shape[-2:]))
        value = _C.stack([value] * rep, value.dim() - 2).reshape(
            list(value.shape[:-3]) + [hq] + list(value.shape[-2:])
        )
    scores = _C.matmul(query, key.transpose(-2, -1)) * scale_factor
    if is_causal:
        keep = _C.tril(_C.ones(L, S, dtype=_C.bool))
        scores = scores.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    attn = _C.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _C.matmul(attn, value)


# ---- resampling (issue 15 part 3) -----------------------------------------------------------


def _is_integer(x) -> bool:
    """Whether ``x`` is an integer for ``interpolate``'s ``size`` (int, numpy integer, or an
    integer tensor), as torch's ``_is_integer``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return True
    if type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.dtype.kind in "iu":
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


def _upsample_vec(fn, input: Tensor, output_size, scale_factors, *extra) -> Tensor:
    """torch's ``upsample_*.vec`` overloads: an output size as given, or ``floor(in * scale)``
    with the scales passed on to the kernel (which then maps output to input indices by them)."""
    dim = input.dim() - 2
    if output_size is not None:
        return fn(input, list(output_size), *extra, *([None] * dim))
    sizes = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(dim)]
    return fn(input, sizes, *extra, *[float(s) for s in scale_factors])


def _upsample_3d(fn2, fn1, input: Tensor, output_size, scale_factors, *extra) -> Tensor:
    """The separable 5-d nearest resampling (nearest, nearest-exact): the 2-d kernel ``fn2``
    over (H, W) with the depth as channels, then the 1-d kernel ``fn1`` over the depth (each
    output index maps to its input taps per dim, so this is torch's 3-d kernel; recorded, so
    differentiable through the kernels' backward)."""
    n, c, t, h, w = input.shape
    if output_size is not None:
        sizes, scales = [int(v) for v in output_size], [None, None, None]
    else:
        sizes = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(3)]
        scales = [float(v) for v in scale_factors]
    if min(sizes) <= 0:
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input (D: "
            f"{t}, H: {h}, W: {w}) output (D: {sizes[0]}, H: {sizes[1]}, W: {sizes[2]})"
        )
    ot, oh, ow = sizes
    x = fn2(input.reshape(n * c, t, h, w), [oh, ow], *extra, scales[1], scales[2])
    x = x.reshape(n * c, t, oh * ow).transpose(1, 2)
    x = fn1(x, [ot], *extra, scales[0])
    return x.transpose(1, 2).reshape(n, c, ot, oh, ow)


def _upsample_trilinear3d(input: Tensor, output_size, scale_factors, align_corners: bool) -> Tensor:
    """torch's ``upsample_trilinear3d``: ``upsample_linear1d`` over W, then H, then D. torch's
    generic kernel nests the three interpolations in that order and computes each dim's source
    indices as the 1-d kernel does (in float32 for float32 input, unfused: Note [Source indices
    in float32]); recorded, so differentiable through the 1-d kernel's backward."""
    n, c, t, h, w = input.shape
    if output_size is not None:
        sizes, scales = [int(v) for v in output_size], [None, None, None]
    else:
        sizes = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(3)]
        scales = [float(v) for v in scale_factors]
    if min(sizes) <= 0 or min(t, h, w) <= 0:
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input (D: "
            f"{t}, H: {h}, W: {w}) output (D: {sizes[0]}, H: {sizes[1]}, W: {sizes[2]})"
        )
    ot, oh, ow = sizes
    lin = _nn.upsample_linear1d
    x = lin(input.reshape(n * c * t, h, w), [ow], align_corners, scales[2])
    x = lin(x.transpose(1, 2), [oh], align_corners, scales[1]).transpose(1, 2)
    x = x.reshape(n * c, t, oh * ow).transpose(1, 2)
    x = lin(x, [ot], align_corners, scales[0])
    return x.transpose(1, 2).reshape(n, c, ot, oh, ow)


def _cubic_taps(in_len: int, out_len: int, align_corners: bool, scale, dtype):
    """torch's bicubic taps along one dim, ``[(indices, weights)]``: output ``o`` reads
    the 4 inputs ``floor(r) - 1 .. floor(r) + 2`` (clamped to the edge) of its source index
    ``r`` with the cubic-convolution weights (A = -0.75) of ``t = r - floor(r)`` (torch's
    ``area_pixel_compute_source_index(..., cubic=True)``, ``guard_index_and_lambda``,
    ``get_cubic_upsample_coefficients``), computed in the input's float type with torch's fused
    multiply-adds (Note [Source indices in float32] in src/core/ops/nn/upsample.rs; float32
    emulated by rounding each operation)."""
    a = -0.75
    r = _f32 if dtype != _C.float64 else _same

    def fma(p, q, c):
        return r(p * q + c)

    s = _pixel_scale(in_len, out_len, align_corners, scale, r)

    def near(x):
        return fma(r(fma(a + 2, x, -(a + 3)) * x), x, 1.0)

    def far(x):
        return fma(fma(fma(a, x, -5 * a), x, 8 * a), x, -4 * a)

    taps = []
    for o in range(out_len):
        real = r(s * r(float(o))) if align_corners else fma(s, r(r(float(o)) + 0.5), -0.5)
        i = min(math.floor(r(real)), in_len - 1)
        t = min(max(r(real - r(float(i))), 0.0), 1.0)
        t2 = r(1.0 - t)
        idx = [min(max(i - 1 + k, 0), in_len - 1) for k in range(4)]
        taps.append((idx, [far(r(t + 1.0)), near(t), near(t2), far(r(t2 + 1.0))]))
    return taps


def _upsample_bicubic2d(input: Tensor, output_size, scale_factors, align_corners: bool) -> Tensor:
    """torch's ``upsample_bicubic2d``: separable, a pass over W then one over H with the 4 taps
    of :func:`_cubic_taps` per output (indices clamped to the edge, as torch's; recorded:
    differentiable to any order)."""
    _check_float(input, "compute_indices_weights_cubic")
    n, c, h, w = input.shape
    if output_size is not None:
        sizes, scales = [int(v) for v in output_size], [None, None]
    else:
        sizes = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(2)]
        scales = [float(v) for v in scale_factors]
    if min(sizes) <= 0 or h <= 0 or w <= 0:
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input (H: {h}, W: {w}) output (H: "
            f"{sizes[0]}, W: {sizes[1]})"
        )
    tw = _cubic_taps(w, sizes[1], align_corners, scales[1], input.dtype)
    th = _cubic_taps(h, sizes[0], align_corners, scales[0], input.dtype)
    y = _apply_taps(input.transpose(2, 3).contiguous(), 2, tw, input.dtype).transpose(2, 3)
    return _apply_taps(y.contiguous(), 2, th, input.dtype)


# ---- torch's separable resampling over tap ranges: antialias, and uint8 bilinear/bicubic --------
# torch's `_separable_upsample_generic_Nd_kernel_impl` (aten/src/ATen/native/cpu/UpSampleKernel.cpp)
# resamples the last dim, then the one before it, each pass skipped when that dim keeps its size;
# output o of a pass reads the inputs xmin .. xmin + len(w) - 1 with the weights w. Here each pass
# is a gather and multiply-add per tap position (`_apply_taps`, differentiable to any order); the taps are
# computed as torch computes them, in the input's float type (float32 emulated by rounding each
# operation), so the results agree with torch's to the order of summation.


def _f32(x: float) -> float:
    """``x`` rounded to float32 (one float32 operation is its float64 result rounded so)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _same(x: float) -> float:
    return x


def _resample_filter(cubic: bool, a: float):
    """torch's ``aa_filter`` of HelperInterpLinear (the triangle) or HelperInterpCubic (Keys'
    cubic with ``a``), each operation rounded by ``r``."""

    def triangle(x, r):
        x = abs(x)
        return r(1.0 - x) if x < 1.0 else 0.0

    def keys(x, r):
        x = abs(x)
        if x < 1.0:
            return r(r(r(r(r((a + 2) * x) - (a + 3)) * x) * x) + 1)
        if x < 2.0:
            return r(r(r(r(r(r(a * x) - 5 * a) * x) + 8 * a) * x) - 4 * a)
        return 0.0

    return keys if cubic else triangle


def _pixel_scale(in_len: int, out_len: int, align_corners: bool, scale, r) -> float:
    """torch's ``area_pixel_compute_scale`` in the float type of ``r``."""
    if align_corners:
        return r(r(float(in_len - 1)) / (out_len - 1)) if out_len > 1 else 0.0
    if scale is not None and scale > 0:
        return r(1.0 / scale)
    return r(r(float(in_len)) / r(float(out_len)))


def _aa_taps(in_len: int, out_len: int, align_corners: bool, scale, cubic: bool, r):
    """``[(xmin, weights)]`` per output index with antialiasing: the filter stretched by the scale
    when downsampling, normalised to sum 1 (torch's ``_compute_indices_min_size_weights_aa``;
    Keys' ``a = -0.5`` as PIL)."""
    s = _pixel_scale(in_len, out_len, align_corners, scale, r)
    interp = 4 if cubic else 2
    support = r(interp * 0.5 * s) if s >= 1.0 else interp * 0.5
    max_interp = int(math.ceil(support)) * 2 + 1
    invscale = r(1.0 / s) if s >= 1.0 else 1.0
    filt = _resample_filter(cubic, -0.5)
    taps = []
    for i in range(out_len):
        center = r(s * (i + 0.5))
        xmin = max(int(r(center - support) + 0.5), 0)
        xsize = min(max(min(int(r(center + support) + 0.5), in_len) - xmin, 0), max_interp)
        ws, total = [], 0.0
        for j in range(xsize):
            w = filt(r((r(r(float(j + xmin)) - center) + 0.5) * invscale), r)
            ws.append(w)
            total = r(total + w)
        if total != 0.0:
            ws = [r(w / total) for w in ws]
        taps.append((xmin, ws))
    return taps


def _plain_taps(in_len: int, out_len: int, align_corners: bool, scale, cubic: bool):
    """``[(xmin, weights)]`` of plain bilinear/bicubic (``a = -0.75``) interpolation as torch's
    uint8 path computes them, in float64, the weights of taps beyond an edge added to the edge's
    (torch's ``_compute_indices_min_size_weights``)."""
    s = _pixel_scale(in_len, out_len, align_corners, scale, _same)
    max_interp = 4 if cubic else 2
    support = max_interp // 2
    filt = _resample_filter(cubic, -0.75)
    taps = []
    for i in range(out_len):
        real = s * i if align_corners else s * (i + 0.5) - 0.5
        if not align_corners and not cubic and real < 0:
            real = 0.0
        idx = min(math.floor(_f32(real)), in_len - 1)
        lam = min(max(real - idx, 0.0), 1.0)
        umin = idx - support + 1
        imin = max(umin, 0)
        isize = min(max(min(idx + support + 1, in_len) - imin, 0), max_interp)
        wt = [0.0] * max_interp
        wi = 0
        for j in range(max_interp):
            wt[j] = 0.0
            w = filt(float(j + 1 - support) - lam, _same)
            if umin + j <= 0:
                wi = 0
            elif umin + j >= in_len - 1:
                wi = isize - 1
            wt[wi] += w
            wi += 1
        taps.append((imin, wt[:isize]))
    return taps


def _int16_taps(taps):
    """torch's ``_compute_index_ranges_int16_weights``: the weights scaled by ``2**precision``
    (the largest precision that keeps the largest weight below ``2**15``) and rounded half away
    from zero; returns ``(precision, taps)``."""
    wmax = max([max(ws) for _, ws in taps if ws] + [0.0])
    prec = 0
    while prec < 22 and int(0.5 + wmax * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    scaled = []
    for xmin, ws in taps:
        vs = [w * (1 << prec) for w in ws]
        scaled.append((xmin, [float(int(v - 0.5) if v < 0 else int(v + 0.5)) for v in vs]))
    return prec, scaled


def _apply_taps(y: Tensor, dim: int, taps, dtype, finite: bool = False) -> Tensor:
    """One resampling pass along ``dim``: output ``o`` is ``sum_k y[xmin + k] * w[k]`` over its
    taps ``(xmin, w)`` (or ``sum_k y[xmin[k]] * w[k]`` when ``xmin`` is a list of indices),
    summed in tap order as torch's kernel (a gather and a multiply-add per tap position,
    recorded: differentiable to any order). Outputs with fewer taps than the longest skip the
    missing ones (their inputs are never read, as in torch, so an inf elsewhere stays out;
    ``finite``: ``y`` has no inf or NaN, a zero weight does)."""
    n_out = len(taps)
    width = max([len(ws) for _, ws in taps] + [1])
    shape = [1] * y.dim()
    shape[dim] = n_out
    in_len = y.shape[dim]
    out = None
    for k in range(width):
        idx = [
            (xmin[k] if isinstance(xmin, list) else min(xmin + k, in_len - 1)) if k < len(ws) else 0
            for xmin, ws in taps
        ]
        wk = [ws[k] if k < len(ws) else 0.0 for _, ws in taps]
        term = y.index_select(dim, _C.tensor(idx, dtype=_C.int64)) * _C.tensor(wk, dtype=dtype).reshape(shape)
        if not finite and any(k >= len(ws) for _, ws in taps):
            present = _C.tensor([k < len(ws) for _, ws in taps]).reshape(shape)
            term = _C.where(present, term, _C.zeros((), dtype=term.dtype))
        out = term if out is None else out + term
    return out


def _dtype_name(t: Tensor) -> str:
    name = str(t.dtype).split(".")[-1]
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "float16": "Half", "bfloat16": "BFloat16"}.get(name, name)


def _upsample_separable2d(input: Tensor, output_size, scale_factors, align_corners: bool, cubic: bool,
                          antialias: bool) -> Tensor:
    """torch's ``_upsample_bilinear2d_aa`` / ``_upsample_bicubic2d_aa`` (float32, float64, uint8)
    and its uint8 ``upsample_bilinear2d`` / ``upsample_bicubic2d``: separable passes over W then
    H. uint8 runs torch's integer arithmetic: int16 weights, each pass
    ``clamp((sum + 2**(p-1)) >> p, 0, 255)`` (computed exactly in float64)."""
    n, c, h, w = input.shape
    if output_size is not None:
        sizes, scales = [int(v) for v in output_size], [None, None]
    else:
        sizes = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(2)]
        scales = [float(v) for v in scale_factors]
    is_u8 = input.dtype == _C.uint8
    if not is_u8 and input.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f'"compute_index_ranges_weights" not implemented for \'{_dtype_name(input)}\'')
    if min(sizes) <= 0 or h <= 0 or w <= 0:
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input (H: {h}, W: {w}) output (H: "
            f"{sizes[0]}, W: {sizes[1]})"
        )
    r = _f32 if input.dtype == _C.float32 else _same

    def taps(in_len, out_len, scale):
        if antialias:
            return _aa_taps(in_len, out_len, align_corners, scale, cubic, r)
        return _plain_taps(in_len, out_len, align_corners, scale, cubic)

    # uint8: integer sums below 2**53, exact in float64.
    y = input.to(_C.float64) if is_u8 else input
    # W first, then H, as torch.
    for dim, in_len, out_len, scale in ((3, w, sizes[1], scales[1]), (2, h, sizes[0], scales[0])):
        if in_len == out_len:
            continue
        t = taps(in_len, out_len, scale)
        if is_u8:
            prec, t = _int16_taps(t)
        # The gathers run along dim 2 of a contiguous tensor (whole rows: fast).
        x = y.transpose(2, 3).contiguous() if dim == 3 else y.contiguous()
        x = _apply_taps(x, 2, t, _C.float64 if is_u8 else input.dtype, finite=is_u8)
        y = x.transpose(2, 3) if dim == 3 else x
        if is_u8:
            y = _C.floor((y + float(1 << (prec - 1))) / float(1 << prec)).clamp(0, 255)
    if is_u8:
        return y.to(_C.uint8)
    return input.clone() if y is input else y


def interpolate(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: Optional[bool] = None,
    recompute_scale_factor: Optional[bool] = None,
    antialias: bool = False,
) -> Tensor:
    """interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None, antialias=False) -> Tensor

    Resamples ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` input to ``size`` (an int
    or one per spatial dim) or by ``scale_factor`` (output ``floor(in * scale)``; the kernel maps
    indices by the scale unless ``recompute_scale_factor``). Modes: ``'nearest'``,
    ``'nearest-exact'`` and ``'area'`` (adaptive average pooling) for 3-d to 5-d input,
    ``'linear'`` (3-d), ``'bilinear'`` and ``'bicubic'`` (4-d, cubic convolution with A = -0.75,
    borders replicated), ``'trilinear'`` (5-d); ``align_corners`` for the interpolating modes.
    ``antialias=True`` (``'bilinear'``/``'bicubic'``, 4-d, float32/float64/uint8): torch's
    antialiased resampling, the filter widened by the scale when downsampling (Keys' cubic with
    A = -0.5, as PIL). uint8 input: the nearest modes, and ``'bilinear'``/``'bicubic'`` with
    torch's integer arithmetic (int16 weights, rounded per pass). Differentiable (float input).
    torch's checks and texts; ``'lanczos'`` is not implemented (NotImplementedError). Mirrors
    ``torch.nn.functional.interpolate``.
    """
    if mode in ("nearest", "nearest-exact") and input.dtype == _C.uint8:
        # torch's nearest kernels take uint8: the same copies, made in float32 (exact).
        out = interpolate(input.to(_C.float32), size, scale_factor, mode, align_corners, recompute_scale_factor,
                          antialias)
        return out.to(_C.uint8)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = [int(x) for x in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    if antialias and mode in ("bilinear", "bicubic"):
        return _upsample_separable2d(input, output_size, scale_factors, align_corners, mode == "bicubic", True)
    if antialias:
        raise NotImplementedError(f"interpolate: mode '{mode}' for 4D input is not implemented in tensorbind yet")
    if input.dim() == 4 and mode in ("bilinear", "bicubic") and input.dtype == _C.uint8:
        return _upsample_separable2d(input, output_size, scale_factors, align_corners, mode == "bicubic", False)
    if mode in ("nearest", "nearest-exact") and not input.is_floating_point() and 3 <= input.dim() <= 5:
        _check_float(input, "upsample_nearest2d_channels_last" if input.dim() == 4 else "compute_indices_weights_nearest")
    if input.dim() == 3 and mode == "nearest":
        return _upsample_vec(_nn.upsample_nearest1d, input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest":
        return _upsample_vec(_nn.upsample_nearest2d, input, output_size, scale_factors)
    if input.dim() == 3 and mode == "nearest-exact":
        return _upsample_vec(_nn._upsample_nearest_exact1d, input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest-exact":
        return _upsample_vec(_nn._upsample_nearest_exact2d, input, output_size, scale_factors)
    if input.dim() == 3 and mode == "area":
        return adaptive_avg_pool1d(input, output_size)
    if input.dim() == 4 and mode == "area":
        return adaptive_avg_pool2d(input, output_size)
    if input.dim() == 5 and mode == "nearest":
        return _upsample_3d(_nn.upsample_nearest2d, _nn.upsample_nearest1d, input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest-exact":
        return _upsample_3d(
            _nn._upsample_nearest_exact2d, _nn._upsample_nearest_exact1d, input, output_size, scale_factors
        )
    if input.dim() == 5 and mode == "area":
        return adaptive_avg_pool3d(input, output_size)
    if input.dim() == 3 and mode == "linear":
        return _upsample_vec(_nn.upsample_linear1d, input, output_size, scale_factors, align_corners)
    if input.dim() == 4 and mode == "bilinear":
        return _upsample_vec(_nn.upsample_bilinear2d, input, output_size, scale_factors, align_corners)
    if input.dim() == 5 and mode == "trilinear":
        return _upsample_trilinear3d(input, output_size, scale_factors, align_corners)
    if input.dim() == 4 and mode == "bicubic":
        return _upsample_bicubic2d(input, output_size, scale_factors, align_corners)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 3 and mode == "trilinear":
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() == 4 and mode == "trilinear":
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if input.dim() == 5 and mode == "linear":
        raise NotImplementedError("Got 5D input, but linear mode needs 3D input")
    if input.dim() == 5 and mode == "bilinear":
        raise NotImplementedError("Got 5D input, but bilinear mode needs 4D input")
    if input.dim() in (3, 4, 5) and mode == "lanczos":
        raise NotImplementedError(
            f"interpolate: mode '{mode}' for {input.dim()}D input is not implemented in tensorbind yet"
        )
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
        f" (got {mode})"
    )


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None) -> Tensor

    Deprecated alias of :func:`interpolate` (with torch's deprecation warning)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """upsample_nearest(input, size=None, scale_factor=None) -> Tensor

    Deprecated: ``interpolate(..., mode='nearest')`` (with torch's deprecation warning)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """upsample_bilinear(input, size=None, scale_factor=None) -> Tensor

    Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)`` (with torch's
    deprecation warning)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- issue 15 part 4: unfold/fold, unpooling, adaptive max pooling, more losses -------------
# torch has kernels of their own for most of these (im2col, col2im, max_unpool2d,
# adaptive_max_pool2d, multi_margin_loss, multilabel_margin_loss, alpha_dropout); here they are
# compositions of recorded ops (gather / scatter_add over an index map, max over a dim, where,
# relu), so they are differentiable, twice, through their parts. Names, signatures, defaults,
# checks and error texts are torch's.


def _int_pair(x, name: str) -> Tuple[int, int]:
    """An ``int[2]`` argument: an int, or a sequence of exactly two (torch's parser's text)."""
    t = _pair(x)
    if len(t) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(t)}")
    return int(t[0]), int(t[1])


def _check_float(input: Tensor, kernel: str, bool_ok: bool = False) -> None:
    """torch's dispatch error for the kernels defined for floating types (and bool) only."""
    if not input.is_floating_point() and not (bool_ok and input.dtype == _C.bool):
        dt = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        name = str(input.dtype).split(".")[-1]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.get(name, name)}\'')


# ---- integer inputs of the pools (torch's CPU kernels take them) ---------------------------------

_INTEGER = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)


def _int_max_pool(pool, input: Tensor, spatial: int) -> Tuple[Tensor, Tensor]:
    """Max pooling of integer ``input`` (torch's CPU max pools take every integer dtype):
    ``pool`` (a float pool of one argument returning values and flat indices over the last
    ``spatial`` dims) runs over an order-preserving float64 image of the input — the values,
    exact below 2^53, or for int64 their ranks (``unique``'s inverse) — so its indices are
    torch's (the first maximum); the values are the input's at those indices."""
    src = _C.unique(input, return_inverse=True)[1] if input.dtype == _C.int64 else input
    _, idx = pool(src.to(_C.float64))
    lead = list(input.shape[: input.dim() - spatial])
    if idx.numel() == 0 or input.numel() == 0:
        return _C.zeros(list(idx.shape), dtype=input.dtype), idx
    vals = input.reshape(lead + [-1]).gather(-1, idx.reshape(lead + [-1]))
    return vals.reshape(list(idx.shape)), idx


def _int_avg_pool(float_pool, input: Tensor, k, s, p, ceil_mode: bool, count_include_pad: bool,
                  divisor_override) -> Tensor:
    """Average pooling of int64 ``input`` as torch's CPU kernel: each window's int64 sum divided
    by its divisor with truncation (C++ integer division). ``float_pool`` (of one argument)
    makes torch's checks and gives the output's shape; the sums are a convolution of the
    zero-padded input with a kernel of ones (exact in int64), the divisors the per-dim window
    sizes (with the padding they cover when ``count_include_pad``) multiplied."""
    out_shape = list(float_pool(input.to(_C.float64)).shape)
    d = len(k)
    sizes = [int(v) for v in input.shape[input.dim() - d:]]
    outs = out_shape[len(out_shape) - d:]
    pads = []
    divisor = None
    for a in range(d):
        n_a, k_a, s_a, p_a, o_a = sizes[a], k[a], s[a], p[a], outs[a]
        extra = max(0, (o_a - 1) * s_a + k_a - (n_a + 2 * p_a))
        pads = [p_a, p_a + extra] + pads
        counts = []
        for j in range(o_a):
            start = j * s_a - p_a
            end = min(start + k_a, n_a + p_a)
            counts.append(end - start if count_include_pad else min(end, n_a) - max(start, 0))
        view = [1] * d
        view[a] = o_a
        t = _C.tensor(counts, dtype=_C.int64).reshape(view)
        divisor = t if divisor is None else divisor * t
    if divisor_override is not None:
        divisor = _C.tensor(int(divisor_override), dtype=_C.int64)
    if input.numel() == 0 or any(o == 0 for o in out_shape):
        return _C.zeros(out_shape, dtype=input.dtype)
    x = pad(input.reshape([-1, 1] + sizes), pads)
    conv = (conv1d, conv2d, conv3d)[d - 1]
    sums = conv(x, _C.ones([1, 1] + list(k), dtype=_C.int64), stride=list(s))
    return _C.div(sums.reshape(out_shape), divisor, rounding_mode="trunc")


def _window_index(blocks, kernel, dilation, stride, width: int) -> Tensor:
    """The flat index, in a ``(*, H, width)`` plane, of each kernel offset ``(i, j)`` at each
    block ``(y, x)``: ``(kh * kw, by * bx)`` int64, row ``i * kw + j``, column ``y * bx + x``
    (im2col's column layout)."""
    (bh, bw), (kh, kw), (dh, dw), (sh, sw) = blocks, kernel, dilation, stride
    rows = (_C.arange(kh) * dh).reshape(kh, 1, 1, 1) + (_C.arange(bh) * sh).reshape(1, 1, bh, 1)
    cols = (_C.arange(kw) * dw).reshape(1, kw, 1, 1) + (_C.arange(bw) * sw).reshape(1, 1, 1, bw)
    return (rows * width + cols).reshape(kh * kw, bh * bw)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    im2col: the sliding ``kernel_size`` blocks of ``(N, C, H, W)`` (or ``(C, H, W)``) float (or
    bool) input as columns, ``(N, C * kh * kw, L)`` with ``L`` the number of blocks (rows
    ordered by channel, then kernel row, then kernel column; columns by block row then block
    column). Errors as torch's ``im2col`` (a non-positive kernel, dilation or stride, negative padding, no block).
    Mirrors ``torch.nn.functional.unfold`` (torch's kernel ``torch._C._nn.im2col``); here a
    gather over the padded input, differentiable through it.
    """
    kh, kw = _int_pair(kernel_size, "kernel_size")
    dh, dw = _int_pair(dilation, "dilation")
    ph, pw = _int_pair(padding, "padding")
    sh, sw = _int_pair(stride, "stride")
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if not (dw > 0 and dh > 0):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}"
        )
    if not (pw >= 0 and ph >= 0):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")
    if not (sw > 0 and sh > 0):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")
    shape = list(input.shape)
    nd = len(shape)
    if nd < 3:
        # torch reads input.size(2) before its dimension check.
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got 2)")
    valid = shape[1] != 0 and shape[2] != 0
    if not ((nd == 3 and shape[0] != 0 and valid) or (nd == 4 and valid and shape[3] != 0)):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {shape}"
        )
    h, w = shape[-2], shape[-1]
    bh = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    bw = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if bh < 1 or bw < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
            f"padding=({ph}, {pw}), calculated shape of the array of sliding blocks as ({bh}, {bw}), but its "
            "components must be at least one."
        )
    _check_float(input, "im2col_out_cpu", bool_ok=True)
    x = input.unsqueeze(0) if nd == 3 else input
    n, c = x.shape[0], x.shape[1]
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    hp, wp = h + 2 * ph, w + 2 * pw
    k, blocks = kh * kw, bh * bw
    idx = _window_index((bh, bw), (kh, kw), (dh, dw), (sh, sw), wp).reshape(1, 1, k * blocks)
    cols = x.reshape(n, c, hp * wp).gather(2, idx.expand(n, c, k * blocks))
    cols = cols.reshape(n, c * k, blocks)
    return cols.squeeze(0) if nd == 3 else cols


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    col2im, the adjoint of :func:`unfold`: the columns ``(N, C * kh * kw, L)`` (or ``(C * kh *
    kw, L)``) of float input summed back into ``(N, C, *output_size)`` (overlapping blocks add
    up; bool input is or-ed). ``L`` must be the number of blocks of ``output_size``; errors as torch's ``col2im``.
    Mirrors ``torch.nn.functional.fold`` (torch's kernel ``torch._C._nn.col2im``); here a
    scatter_add over the padded output, differentiable through it.
    """
    oh, ow = _int_pair(output_size, "output_size")
    kh, kw = _int_pair(kernel_size, "kernel_size")
    dh, dw = _int_pair(dilation, "dilation")
    ph, pw = _int_pair(padding, "padding")
    sh, sw = _int_pair(stride, "stride")
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if not (sw > 0 and sh > 0):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")
    if not (dw > 0 and dh > 0):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}"
        )
    if not (pw >= 0 and ph >= 0):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")
    shape = list(input.shape)
    nd = len(shape)
    if not ((nd == 2 and shape[0] != 0 and shape[1] != 0) or (nd == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {shape}"
        )
    planes, length = shape[-2], shape[-1]
    if planes % (kw * kh) != 0:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={planes} and kernel_size=({kh}, {kw})."
        )
    bh = (oh + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    bw = (ow + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    given = (
        f"Given output_size=({oh}, {ow}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
        f"padding=({ph}, {pw}), stride=({sh}, {sw}), "
    )
    if length != bh * bw:
        raise RuntimeError(
            given + "expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{bh} * {bw} = {bh * bw}, but got input.size(2)={length}."
        )
    if bh < 1 or bw < 1:
        raise RuntimeError(
            given + f"calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too small "
            "(non-positive)"
        )
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size=({oh}, {ow}).")
    _check_float(input, "col2im_out_cpu", bool_ok=True)
    cols = input.unsqueeze(0) if nd == 2 else input
    n = cols.shape[0]
    k = kh * kw
    c = planes // k
    hp, wp = oh + 2 * ph, ow + 2 * pw
    idx = _window_index((bh, bw), (kh, kw), (dh, dw), (sh, sw), wp).reshape(1, 1, k * length)
    flat = cols.reshape(n, c, k * length)
    is_bool = input.dtype == _C.bool
    if is_bool:  # torch's `+=` on bool: true where any block is
        flat = flat.to(_C.int64)
    out = _C.zeros(n, c, hp * wp, dtype=flat.dtype).scatter_add(2, idx.expand(n, c, k * length), flat)
    if is_bool:
        out = out != 0
    out = out.reshape(n, c, hp, wp)
    if ph or pw:
        out = out.narrow(2, ph, oh).narrow(3, pw, ow)
    return out.squeeze(0) if nd == 2 else out


def _dtype_name(t: Tensor) -> str:
    """A dtype as torch's C++ messages name it (``Float``, ``Long``, ...)."""
    names = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "int16": "Short",
             "int8": "Char", "uint8": "Byte", "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16"}
    name = str(t.dtype).split(".")[-1]
    return names.get(name, name)


def _max_unpool2d(input: Tensor, indices: Tensor, output_size) -> Tensor:
    """torch's ``max_unpool2d`` kernel: zeros of ``output_size`` with ``input`` scattered to the
    flat ``indices`` of each plane (a recorded ``scatter``: the gradient gathers back)."""
    if indices.dtype != _C.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dtype_name(indices)}")
    if len(output_size) != 2:
        raise RuntimeError(
            "There should be exactly two elements (height, width) in output_size, but got "
            f"{len(output_size)} elements."
        )
    nd = input.dim()
    if nd not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {nd} dimensions.")
    shape = list(input.shape)
    if shape != list(indices.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({shape}) but got indices tensor "
            f"with shape: {list(indices.shape)}"
        )
    for i in range(1, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {shape} with dimension {i} being empty"
            )
    oh, ow = int(output_size[0]), int(output_size[1])
    _check_float(input, "max_unpool2d")
    n = shape[0] if nd == 4 else 1
    c = shape[-3]
    idx = indices.reshape(n, c, -1)
    bad = (idx < 0).logical_or(idx >= oh * ow)
    if bool(bad.any()):
        first = int(idx.reshape(-1)[bad.reshape(-1).nonzero()[0, 0]])
        raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size {oh}x{ow})")
    out = _C.zeros(n, c, oh * ow, dtype=input.dtype).scatter(2, idx, input.reshape(n, c, -1))
    return out.reshape(shape[:-2] + [oh, ow])


def _unpool_output_size(input: Tensor, kernel_size, stride, padding, output_size) -> List[int]:
    input_size = list(input.shape)
    nk = len(kernel_size)
    default_size = [
        (input_size[-nk + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(nk)
    ]
    if output_size is None:
        ret = default_size
    else:
        output_size = list(output_size)
        if len(output_size) == nk + 2:
            output_size = output_size[2:]
        if len(output_size) != nk:
            raise ValueError(
                "output_size should be a sequence containing "
                f"{nk} or {nk + 2} elements, but it has a length of '{len(output_size)}'"
            )
        for d in range(nk):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {min_size} and {max_size})'
                )
        ret = output_size
    for d in range(nk):
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial "
                f"dimensions, but got output_size[{d}]={ret[d]}"
            )
    return ret


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    The partial inverse of ``max_pool1d``: ``(N, C, L)`` (or ``(C, L)``) values put back at
    their ``indices`` (int64, as ``max_pool1d(..., return_indices=True)`` gives) in zeros of the
    pooled input's length (``(L - 1) * stride + kernel_size - 2 * padding``, or ``output_size``).
    Mirrors ``torch.nn.functional.max_unpool1d``.
    """
    kernel_size = _single(kernel_size)
    _stride = _single(stride) if stride is not None else kernel_size
    padding = _single(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    The partial inverse of ``max_pool2d``: ``(N, C, H, W)`` (or ``(C, H, W)``) values put back at
    their flat ``indices`` in zeros of the pooled input's size (``(in - 1) * stride +
    kernel_size - 2 * padding`` per dim, or ``output_size``; other elements 0). Mirrors
    ``torch.nn.functional.max_unpool2d``.
    """
    kernel_size = _pair(kernel_size)
    _stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return _max_unpool2d(input, indices, size)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> Tuple[Tensor, Tensor]:
    """max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, Tensor): ``max_pool1d`` and the indices."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _adaptive_windows(size: int, out: int) -> List[Tuple[int, int]]:
    """The adaptive pools' windows: ``[floor(i * size / out), ceil((i + 1) * size / out))``."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_max_pool2d(input: Tensor, output_size, name: str) -> Tuple[Tensor, Tensor]:
    """torch's ``adaptive_max_pool2d`` kernel: each window's maximum (the first on ties, the last
    of its NaNs) and its flat index in the ``H * W`` plane. A gather of every window (padded to
    the largest with copies of its last element, which never changes the first maximum nor the
    last NaN), then ``max`` over the window: recorded, so differentiable through ``max`` and
    ``gather``."""
    shape = list(input.shape)
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got: {shape}")
    for i in range(1, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {shape} with dimension {i} being empty"
            )
    if len(output_size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    oh, ow = int(output_size[0]), int(output_size[1])
    out_shape = shape[:-2] + [oh, ow]
    if oh < 0 or ow < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(oh, ow)}: {out_shape}")
    _check_float(input, "adaptive_max_pool2d")
    h, w = shape[-2], shape[-1]
    if oh == 0 or ow == 0:
        return _C.zeros(out_shape, dtype=input.dtype), _C.zeros(out_shape, dtype=_C.int64)
    hw, ww = _adaptive_windows(h, oh), _adaptive_windows(w, ow)
    k = max(e - s for s, e in hw) * max(e - s for s, e in ww)
    table = []
    for hs, he in hw:
        for ws, we in ww:
            win = [r * w + col for r in range(hs, he) for col in range(ws, we)]
            table.extend(win + [win[-1]] * (k - len(win)))
    idx = _C.tensor(table, dtype=_C.int64).reshape(oh * ow, k)
    lead = shape[:-2]
    planes = 1
    for s in lead:
        planes *= s
    cols = input.reshape(planes, h * w).gather(1, idx.reshape(1, oh * ow * k).expand(planes, oh * ow * k))
    cols = cols.reshape(planes, oh * ow, k)
    values, local = cols.max(-1)
    nan = cols.isnan()
    if bool(nan.any()):
        # torch's `(val > maxval) || isnan(val)`: among NaNs the last one of the window (the
        # padding copies its last element, so the last NaN keeps its index).
        last = (nan.to(_C.int64) * _C.arange(1, k + 1)).argmax(-1)
        local = _C.where(nan.any(-1), last, local)
        values = cols.gather(2, local.unsqueeze(-1)).squeeze(-1)
    indices = idx.unsqueeze(0).expand(planes, oh * ow, k).gather(2, local.unsqueeze(-1)).squeeze(-1)
    return values.reshape(out_shape), indices.reshape(out_shape)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """adaptive_max_pool2d_with_indices(input, output_size, return_indices=False) -> (Tensor,
    Tensor): ``adaptive_max_pool2d`` and the flat indices of the maxima."""
    size = _pair(_list_with_default(output_size, list(input.shape)))
    return _adaptive_max_pool2d(input, size, "adaptive_max_pool2d")


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool2d(input, output_size, return_indices=False)

    The maximum over the adaptive windows of ``(N, C, H, W)`` (or ``(C, H, W)``) float input
    giving ``output_size`` (an int, or a pair whose ``None`` entries keep the input's size):
    window ``i`` spans ``[floor(i * in / out), ceil((i + 1) * in / out))``. With
    ``return_indices`` also the flat index of each maximum in the ``H * W`` plane (int64; the
    first on ties). Mirrors ``torch.nn.functional.adaptive_max_pool2d``.
    """
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """adaptive_max_pool1d_with_indices(input, output_size, return_indices=False) -> (Tensor,
    Tensor): ``adaptive_max_pool1d`` and the indices of the maxima."""
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while "
            "checking arguments for adaptive_max_pool1d)"
        )
    size = _single(output_size)
    if len(size) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got {len(size)})")
    shape = list(input.shape)
    for i in range(1, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, but input "
                f"has sizes {shape} with dimension {i} being empty"
            )
    values, indices = _adaptive_max_pool2d(input.unsqueeze(-2), [1, size[0]], "adaptive_max_pool2d")
    return values.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool1d(input, output_size, return_indices=False)

    The maximum over the adaptive windows of ``(N, C, L)`` (or ``(C, L)``) float input giving
    ``output_size``; with ``return_indices`` also the indices of the maxima (int64). Mirrors
    ``torch.nn.functional.adaptive_max_pool1d``.
    """
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0) -> Tensor

    ``input / (k + alpha * mean of input^2 over size neighbouring channels) ** beta`` for input
    ``(N, C, *)`` with at least one spatial dim (the window zero-padded at the channel ends).
    Mirrors ``torch.nn.functional.local_response_norm`` (torch's composition; its
    ``avg_pool3d`` over ``(size, 1, 1)`` windows written as the sum of ``size`` shifted channel
    slices, divided by ``size``).
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    if size <= 0:  # torch's avg_pool2d / avg_pool3d text
        kernel = f"kH: {size} kW: 1" if dim == 3 else f"kT: {size} kH: 1 kW: 1"
        raise RuntimeError(f"kernel size should be greater than zero, but got {kernel}")
    sizes = list(input.shape)
    c = sizes[1]
    div = input.mul(input).reshape(sizes[0], c, -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    # The window sums as `size` shifted slices added in order (avg_pool's order), so that the
    # composition is twice differentiable.
    acc = div.narrow(1, 0, c)
    for j in range(1, size):
        acc = acc + div.narrow(1, j, c)
    # avg_pool's integer division for integer input (the squares are non-negative).
    div = (acc / size if input.is_floating_point() else _C.div(acc, size, rounding_mode="trunc")).reshape(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1) -> Tensor

    A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau, dim)`` with
    ``g = -log(Exp(1))`` noise from ``_C``'s default generator; with ``hard``, the one-hot of
    the sample's argmax whose gradient is the soft sample's (straight through). ``eps`` is
    deprecated (torch's warning). Mirrors ``torch.nn.functional.gumbel_softmax``.
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_C.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


_SELU_ALPHA = 1.7580993408473766  # torch's alpha_dropout constant: selu's alpha * scale


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """torch's ``_dropout_impl`` with ``alpha_dropout``: kept elements scaled by ``a``, dropped
    ones set to selu's negative saturation, then the whole shifted by ``b`` so that mean and
    variance are kept (``a = ((alpha^2 p + 1)(1 - p))^-1/2``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * _C.zeros([], dtype=input.dtype)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        shape = list(input.shape)
    noise = _C.bernoulli(_C.full(shape, 1.0 - p, dtype=input.dtype))
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
    noise.mul_(a)
    if inplace:
        return input.mul_(noise).add_(b)
    return input * noise + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    Dropout for selu networks: in training each element is dropped with probability ``p`` (from
    ``_C``'s default generator) to selu's negative saturation and the result affinely rescaled
    to keep mean 0 and variance 1; out of training the input itself. Mirrors
    ``torch.nn.functional.alpha_dropout``.
    """
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """feature_alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    ``alpha_dropout`` of whole channels of ``(N, C, *)`` input (one draw per ``(n, c)``).
    Mirrors ``torch.nn.functional.feature_alpha_dropout``.
    """
    return _alpha_dropout(input, p, training, inplace, True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """celu_(input, alpha=1.0) -> Tensor: in-place ``celu``."""
    return celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """selu_(input) -> Tensor: in-place ``selu``."""
    return selu(input, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """rrelu_(input, lower=1/8, upper=1/3, training=False) -> Tensor: in-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)


def _margin_input(input: Tensor) -> Tuple[int, int]:
    """The multi-margin losses' input check: a non-empty vector or matrix (0-dim batch allowed);
    answers ``(nframe, dim)``."""
    nd = input.dim()
    shape = list(input.shape)
    if not ((nd == 2 and shape[1] != 0) or (nd == 1 and shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {shape}")
    if nd <= 1:
        return 1, (shape[0] if nd == 1 else 1)
    return shape[0], shape[1]


def _reduce_enum(size_average, reduce, reduction: str) -> str:
    """``reduction`` after the legacy arguments, checked as ``_Reduction.get_enum`` checks it."""
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    _Reduction.get_enum(reduction)
    return "mean" if reduction == "elementwise_mean" else reduction


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Optional[Tensor] = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
    reduce=None, reduction='mean') -> Tensor

    The multi-class hinge loss of ``(N, C)`` (or ``(C,)``) scores and int64 class indices
    ``(N,)``: ``sum over i != y of max(0, w[y] (margin - x[y] + x[i]))^p / C`` per sample
    (``p`` 1 or 2). Errors as torch's kernel; a ``weight`` that requires grad under grad mode
    raises torch's RuntimeError (not differentiable with respect to ``weight``). Mirrors
    ``torch.nn.functional.multi_margin_loss`` (composed of recorded ops here).
    """
    reduction = _reduce_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(
            "The function 'multi_margin_loss' is not differentiable with respect to argument 'weight'. "
            "This input cannot have requires_grad True."
        )
    nframe, dim = _margin_input(input)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{nframe}], but got {list(target.shape)}. Input has shape "
            f"{list(input.shape)}."
        )
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    if target.dtype != _C.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dtype_name(target)}")
    y = target.reshape(nframe, 1)
    if nframe and bool(((y < 0).logical_or(y >= dim)).any()):
        raise RuntimeError("target out of range")
    x = input.reshape(nframe, dim)
    z = _C.relu(margin - x.gather(1, y) + x)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, y.reshape(-1)).unsqueeze(1)
    others = _C.arange(dim).unsqueeze(0) != y
    loss = _C.where(others, z, _C.zeros_like(z)).sum(1) / dim
    if reduction == "none":
        return loss.reshape(list(target.shape))
    return _reduce(loss, reduction)


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean') ->
    Tensor

    The multi-label hinge loss of ``(N, C)`` (or ``(C,)``) scores: each row of the int64
    ``target`` lists the sample's classes, ended by the first ``-1``; per sample ``sum over
    targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C``. Errors as torch's kernel.
    Mirrors ``torch.nn.functional.multilabel_margin_loss`` (composed of recorded ops here).
    """
    reduction = _reduce_enum(size_average, reduce, reduction)
    nframe, dim = _margin_input(input)
    nd = input.dim()
    if nd <= 1:
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and list(target.shape) == [nframe, dim]
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target.dtype != _C.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dtype_name(target)}")
    y = target.reshape(nframe, dim)
    if y.numel() and bool(((y < -1).logical_or(y >= dim)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    x = input.reshape(nframe, dim)
    # The listed targets: the entries before each row's first -1.
    listed = _C.cumsum((y == -1).to(_C.int64), 1) == 0
    yc = _C.where(listed, y, _C.zeros_like(y))
    is_target = _C.zeros(nframe, dim, dtype=_C.int64).scatter_add(1, yc, listed.to(_C.int64)) > 0
    z = _C.relu(1 - x.gather(1, yc).unsqueeze(2) + x.unsqueeze(1))
    pairs = listed.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1))
    loss = _C.where(pairs, z, _C.zeros_like(z)).sum([1, 2]) / dim
    if reduction == "none":
        return loss.reshape([]) if nd <= 1 else loss
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
    margin=1.0, swap=False, reduction='mean') -> Tensor

    ``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the given
    callable (default ``_C.pairwise_distance``); with ``swap``, ``d(anchor, negative)`` replaced
    by ``d(positive, negative)`` where smaller. Mirrors
    ``torch.nn.functional.triplet_margin_with_distance_loss``.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs"
        )
    if distance_function is None:
        distance_function = _C.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = _C.minimum(dist_neg, dist_swap)
    loss = _C.clamp(margin + dist_pos - dist_neg, min=0)
    return _reduce(loss, reduction)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool3d(input, output_size) -> Tensor

    The mean over the adaptive windows of ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) float input
    giving ``output_size`` (an int, or a triple whose ``None`` entries keep the input's size);
    window ``i`` spans ``[floor(i * in / out), ceil((i + 1) * in / out))`` in each dim. Mirrors
    ``torch.nn.functional.adaptive_avg_pool3d``; here separable, ``adaptive_avg_pool2d`` over
    ``(H, W)`` then over ``T`` (the windows' mean is the mean of the per-dim means), so
    differentiable through those kernels.
    """
    size = _list_with_default(output_size, list(input.shape))
    size = [size] * 3 if isinstance(size, int) else list(size)
    if len(size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(s < 0 for s in size):
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]},{size[2]}}}"
        )
    shape = list(input.shape)
    nd = len(shape)
    if size == [1, 1, 1] and nd >= 3:
        # torch's composite: the mean over the last three dims.
        return input.mean([-1, -2, -3], keepdim=True)
    if nd not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape}")
    for i in range(1, nd):
        if shape[i] == 0:
            raise RuntimeError(
                "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape} with dimension {i} being empty"
            )
    _check_float(input, "adaptive_avg_pool3d_cpu")
    ot, oh, ow = (int(s) for s in size)
    lead, (t, h, w) = shape[:-3], shape[-3:]
    planes = 1
    for s in lead:
        planes *= s
    if ot == 0 or oh == 0 or ow == 0:
        return _C.zeros(lead + [ot, oh, ow], dtype=input.dtype)
    x = _nn.adaptive_avg_pool2d(input.reshape(planes * t, h, w), [oh, ow])
    x = x.reshape(planes, t, oh * ow).transpose(1, 2)
    x = _nn.adaptive_avg_pool2d(x, [oh * ow, ot])
    return x.transpose(1, 2).reshape(lead + [ot, oh, ow])


# ---- the 3-d family (issue 15 part 5) ---------------------------------------------------------
# conv3d and conv_transpose3d are kernels (src/core/ops/nn/conv.rs: one im2col loop for every
# rank). The 3-d pools are separable compositions over the 2-d kernels, recorded so
# differentiable: a window's max (mean, sum) over (T, H, W) is the max (mean, sum) over T of
# the maxima (means, sums) over (H, W), the divisors of avg_pool3d are the products of the
# per-dim ones, and the first maximum in (t, h, w) order is the first t whose (H, W) maximum
# is the largest (torch's tie rule).

_triple = _ntuple(3, "_triple")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    The 3-d cross-correlation of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) float or integer
    input (integers wrap on overflow, as torch's CPU kernel; bool raises NotImplementedError)
    with weight ``(O, C / groups, kd, kh, kw)``; ``padding`` an int, a triple, ``'same'`` or
    ``'valid'``. Errors as torch (RuntimeError for mismatched shapes, channels, groups, a bias
    of another dtype).
    Mirrors ``torch.conv3d``.
    """
    return _C.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The transposed 3-d convolution of ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) float
    or int64 input (other integers raise torch's NotImplementedError) with weight ``(C_in, C_out / groups, kd, kh, kw)``: each output size ``(in - 1) *
    stride - 2 * padding + dilation * (k - 1) + output_padding + 1``. Mirrors
    ``torch.conv_transpose3d``.
    """
    return _C.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _pool3d_args(name: str, kernel_size, stride, padding, dilation, texts) -> Tuple[list, list, list, list]:
    """The 3-d pools' parameters as triples (``stride`` defaults to ``kernel_size``), with
    torch's texts for a wrong count."""
    k = list(_triple(kernel_size))
    if len(k) not in (1, 3):
        raise RuntimeError(f"{name}: kernel_size {texts[0]}")
    s = list(_triple(stride)) if stride is not None else []
    if len(s) not in (0, 1, 3):
        raise RuntimeError(f"{name}: stride {texts[1]}")
    p = list(_triple(padding))
    if len(p) not in (1, 3):
        raise RuntimeError(f"{name}: padding {texts[2]}")
    d = list(_triple(dilation))
    if len(d) not in (1, 3):
        raise RuntimeError(f"{name}: dilation must be either a single int, or a tuple of three ints")
    k = [int(v) for v in (k * 3 if len(k) == 1 else k)]
    s = [int(v) for v in (k if not s else s * 3 if len(s) == 1 else s)]
    p = [int(v) for v in (p * 3 if len(p) == 1 else p)]
    d = [int(v) for v in (d * 3 if len(d) == 1 else d)]
    return k, s, p, d


def _pool3d_out(n: int, k: int, p: int, s: int, d: int, ceil_mode: bool) -> int:
    """torch's ``pooling_output_shape`` with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > (d * (k - 1) + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and dilation={d}"
        )
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _pool3d_check(input: Tensor, k, s, p, d, ceil_mode: bool, fn_name: str, avg: bool) -> List[int]:
    """torch's ``pool3d_shape_check`` (after ``pooling_output_shape`` per dim), in its order and
    with its texts; the output sizes ``[ot, oh, ow]``."""
    shape = list(input.shape)
    nd = len(shape)
    if nd not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    outs = [_pool3d_out(shape[nd - 3 + i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} dilationW: {d[2]}"
        )
    for i in range(nd - 4, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{fn_name}: Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{shape} with dimension {i} being empty"
            )
    t, h, w = shape[-3:]
    if avg and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})"
        )
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} kH: {k[1]} "
            f"padT: {p[0]} padW: {p[2]} padH: {p[1]}"
        )
    if min(outs) < 1:
        c = shape[-4]
        raise RuntimeError(
            f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: ({c}x{outs[0]}x{outs[1]}x{outs[2]}). "
            "Output size is too small"
        )
    return outs


def _planes(shape: List[int]) -> int:
    n = 1
    for v in shape:
        n *= v
    return n


def _max_pool3d(input: Tensor, k, s, p, d, ceil_mode: bool) -> Tuple[Tensor, Tensor]:
    """torch's ``max_pool3d_with_indices``: the maxima and their flat indices in the ``T * H *
    W`` volume. ``max_pool2d_with_indices`` over (H, W) per t, then over T (a height-1 image
    per output position), the (H, W) index of the chosen t gathered."""
    _check_float(input, "max_pool3d")
    ot, oh, ow = _pool3d_check(input, k, s, p, d, ceil_mode, "max_pool3d_with_indices_out_cpu_template()", False)
    shape = list(input.shape)
    lead, (t, h, w) = shape[:-3], shape[-3:]
    planes = _planes(lead)
    if planes == 0:
        return _C.zeros(lead + [ot, oh, ow], dtype=input.dtype), _C.zeros(lead + [ot, oh, ow], dtype=_C.int64)
    v, i_hw = _nn.max_pool2d_with_indices(input.reshape(planes * t, h, w), k[1:], s[1:], p[1:], d[1:], ceil_mode)
    v = v.reshape(planes, t, oh * ow).transpose(1, 2).unsqueeze(2)
    v, i_t = _nn.max_pool2d_with_indices(v, [1, k[0]], [1, s[0]], [0, p[0]], [1, d[0]], ceil_mode)
    i_t = i_t.squeeze(2)
    i_hw = i_hw.reshape(planes, t, oh * ow).transpose(1, 2).gather(2, i_t)
    idx = i_t * (h * w) + i_hw
    out_shape = lead + [ot, oh, ow]
    return (
        v.squeeze(2).transpose(1, 2).reshape(out_shape),
        idx.transpose(1, 2).reshape(out_shape),
    )


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tuple[Tensor, Tensor]:
    """max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, Tensor)

    The maximum over each 3-d window and its flat index in the input's ``T * H * W`` volume.
    """
    k, s, p, d = _pool3d_args(
        "max_pool3d", kernel_size, stride, padding, dilation,
        ("must either be a single int, or a tuple of three ints",
         "must either be omitted, a single int, or a tuple of three ints",
         "must either be a single int, or a tuple of three ints"),
    )
    if input.dtype in _INTEGER:
        return _int_max_pool(lambda x: _max_pool3d(x, k, s, p, d, ceil_mode), input, 3)
    return _max_pool3d(input, k, s, p, d, ceil_mode)


def max_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    The maximum over each 3-d window of ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) float or
    integer input (``stride`` defaults to ``kernel_size``; ``padding`` at most half the kernel,
    padded with -inf); with ``return_indices`` also the flat index of each maximum in the ``T *
    H * W`` volume (int64; the first on ties, the last NaN wins). RuntimeError with torch's texts for bad
    shapes and parameters. Mirrors ``torch.nn.functional.max_pool3d``.
    """
    out = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def avg_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Optional[int] = None,
) -> Tensor:
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) -> Tensor

    The mean over each 3-d window of ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) float or int64
    input (int64: the sum divided with truncation, as torch): the divisor is
    ``divisor_override``, or the window's size (with the padding it covers when
    ``count_include_pad``). RuntimeError with torch's texts for bad shapes and parameters.
    Mirrors ``torch.nn.functional.avg_pool3d``.
    """
    k, s, p, d = _pool3d_args(
        "avg_pool3d", kernel_size, stride, padding, 1,
        ("must be a single int, or a tuple of three ints",
         "must be omitted, a single number, or a tuple of three ints",
         "must be a single int, or a tuple of three ints"),
    )
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    ot, oh, ow = _pool3d_check(input, k, s, p, d, ceil_mode, "avg_pool3d()", True)
    if input.dtype == _C.int64:
        return _int_avg_pool(
            lambda x: avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
            input, k, s, p, ceil_mode, count_include_pad, divisor_override,
        )
    _check_float(input, "avg_pool3d_out_frame")
    shape = list(input.shape)
    lead, (t, h, w) = shape[:-3], shape[-3:]
    planes = _planes(lead)
    if planes == 0:
        return _C.zeros(lead + [ot, oh, ow], dtype=input.dtype)
    # Sums when the divisor is overridden (divisor 1 per stage), else means per stage: the
    # divisor of a 3-d window is the product of its per-dim counts.
    div = 1 if divisor_override is not None else None
    x = _nn.avg_pool2d(input.reshape(planes * t, h, w), k[1:], s[1:], p[1:], ceil_mode, count_include_pad, div)
    x = x.reshape(planes, t, oh * ow).transpose(1, 2).unsqueeze(2)
    x = _nn.avg_pool2d(x, [1, k[0]], [1, s[0]], [0, p[0]], ceil_mode, count_include_pad, div)
    x = x.squeeze(2).transpose(1, 2).reshape(lead + [ot, oh, ow])
    return x / divisor_override if divisor_override is not None else x


def _adaptive_max_pool3d(input: Tensor, size) -> Tuple[Tensor, Tensor]:
    """torch's ``adaptive_max_pool3d`` kernel, separable as ``max_pool3d``."""
    shape = list(input.shape)
    nd = len(shape)
    if nd not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {shape}")
    for i in range(1, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input "
                f"has sizes {shape} with dimension {i} being empty"
            )
    if len(size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    ot, oh, ow = (int(v) for v in size)
    lead, (t, h, w) = shape[:-3], shape[-3:]
    out_shape = lead + [ot, oh, ow]
    if min(ot, oh, ow) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(ot, oh, ow)}: {out_shape}")
    _check_float(input, "adaptive_max_pool3d_cpu")
    planes = _planes(lead)
    if planes == 0 or min(ot, oh, ow) == 0:
        return _C.zeros(out_shape, dtype=input.dtype), _C.zeros(out_shape, dtype=_C.int64)
    v, i_hw = _adaptive_max_pool2d(input.reshape(planes * t, h, w), [oh, ow], "adaptive_max_pool3d")
    v = v.reshape(planes, t, oh * ow).transpose(1, 2).unsqueeze(2)
    v, i_t = _adaptive_max_pool2d(v, [1, ot], "adaptive_max_pool3d")
    i_t = i_t.squeeze(2)
    i_hw = i_hw.reshape(planes, t, oh * ow).transpose(1, 2).gather(2, i_t)
    idx = i_t * (h * w) + i_hw
    return v.squeeze(2).transpose(1, 2).reshape(out_shape), idx.transpose(1, 2).reshape(out_shape)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """adaptive_max_pool3d_with_indices(input, output_size, return_indices=False) -> (Tensor,
    Tensor): ``adaptive_max_pool3d`` and the flat indices of the maxima."""
    size = _triple(_list_with_default(output_size, list(input.shape)))
    return _adaptive_max_pool3d(input, size)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool3d(input, output_size, return_indices=False)

    The maximum over the adaptive windows of ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) float
    input giving ``output_size`` (an int, or a triple whose ``None`` entries keep the input's
    size): window ``i`` spans ``[floor(i * in / out), ceil((i + 1) * in / out))`` per dim. With
    ``return_indices`` also the flat index of each maximum in the ``T * H * W`` volume (int64;
    the first on ties). Mirrors ``torch.nn.functional.adaptive_max_pool3d``.
    """
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor: the
    ``norm_type``-norm over each 3-d window (as torch: from ``avg_pool3d`` of ``x ** p``).
    Mirrors ``torch.nn.functional.lp_pool3d``."""
    kd, kw, kh = _triple(kernel_size)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_C.sign(out) * _C.relu(out.abs())).mul(kd * kw * kh).pow(1.0 / norm_type)


def _max_unpool3d(input: Tensor, indices: Tensor, output_size, stride) -> Tensor:
    """torch's ``max_unpool3d`` kernel: zeros of ``output_size`` with ``input`` scattered to the
    flat ``indices`` of each volume (a recorded ``scatter``)."""
    if indices.dtype != _C.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dtype_name(indices)}")
    nd = input.dim()
    if nd not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {nd} dimensions.")
    if len(output_size) != 3:
        raise RuntimeError(
            "There should be exactly three elements (depth, height, width) in output_size, but got "
            f"{len(output_size)} elements."
        )
    shape = list(input.shape)
    if shape != list(indices.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({shape}) but got indices tensor "
            f"with shape: {list(indices.shape)}"
        )
    for i in range(1, nd):
        if shape[i] <= 0:
            raise RuntimeError(
                "max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {shape} with dimension {i} being empty"
            )
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {[int(v) for v in stride]}")
    ot, oh, ow = (int(v) for v in output_size)
    _check_float(input, "max_unpool3d")
    n = shape[0] if nd == 5 else 1
    c = shape[-4]
    idx = indices.reshape(n, c, -1)
    bad = (idx < 0).logical_or(idx >= ot * oh * ow)
    if bool(bad.any()):
        first = int(idx.reshape(-1)[bad.reshape(-1).nonzero()[0, 0]])
        raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size {ot}x{oh}x{ow})")
    out = _C.zeros(n, c, ot * oh * ow, dtype=input.dtype).scatter(2, idx, input.reshape(n, c, -1))
    return out.reshape(shape[:-3] + [ot, oh, ow])


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    The partial inverse of ``max_pool3d``: ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) values put
    back at their flat ``indices`` (int64, as ``max_pool3d(..., return_indices=True)`` gives) in
    zeros of the pooled input's size (``(in - 1) * stride + kernel_size - 2 * padding`` per
    dim, or ``output_size``). Mirrors ``torch.nn.functional.max_unpool3d``.
    """
    kernel_size = _triple(kernel_size)
    _stride = _triple(stride) if stride is not None else kernel_size
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return _max_unpool3d(input, indices, size, list(_stride) * 3 if len(_stride) == 1 else list(_stride))


# ---- affine_grid and grid_sample (issue 15 part 5) -------------------------------------------
# Compositions of recorded ops (torch's affine_grid_generator is one too): differentiable with
# respect to theta, the input and the grid. grid_sample reads each output point's 2^d corner
# values with `gather` and weighs them by the bilinear (trilinear) weights of its unnormalised
# coordinates (torch's `grid_sampler_compute_source_index`: unnormalise, then clip or reflect
# by padding_mode); corners outside the input read zero.

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed "
    "to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. "
    "See the documentation of grid_sample for details."
)


def _linspace_from_neg_one(n: int, align_corners: bool, dtype) -> Tensor:
    """torch's ``linspace_from_neg_one``: ``n`` points spanning [-1, 1] (pixel corners with
    ``align_corners``, else pixel centres)."""
    if n <= 1:
        return _C.zeros(1, dtype=dtype)
    r = _C.linspace(-1, 1, n, dtype=dtype)
    if not align_corners:
        r = r * (n - 1) / n
    return r


def affine_grid(theta: Tensor, size: List[int], align_corners: Optional[bool] = None) -> Tensor:
    """affine_grid(theta, size, align_corners=None) -> Tensor

    The sampling grid of a batch of affine transforms: ``theta`` ``(N, 2, 3)`` for a 4-d
    ``size`` ``(N, C, H, W)`` gives ``(N, H, W, 2)``, ``(N, 3, 4)`` for a 5-d ``size`` ``(N, C,
    D, H, W)`` gives ``(N, D, H, W, 3)``: ``theta @ (x, y[, z], 1)`` over the normalised output
    coordinates in [-1, 1] (pixel corners with ``align_corners``, else centres; ``None`` warns
    and means False). ValueError for a non-float theta, mismatched shapes or a non-positive
    size; NotImplementedError for other ranks. Differentiable in theta. Mirrors
    ``torch.nn.functional.affine_grid``.
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got torch.{str(theta.dtype).split('.')[-1]}")
    size = list(size)
    shape = tuple(theta.shape)
    if len(size) == 4:
        if theta.dim() != 3 or shape[-2] != 2 or shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {_size(theta)}."
            )
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or shape[-2] != 3 or shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {_size(theta)}."
            )
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, "
            "for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed "
            "for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. "
            "See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = int(size[0])
    if shape[0] != n:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, 3] but got: "
            f"[{shape[0]}, {shape[2]}]."
        )
    spatial = [int(v) for v in spatial]
    d = len(spatial)
    # The coordinates (x, y[, z], 1) of each output point, x along the last dim.
    axes = [_linspace_from_neg_one(spatial[d - 1 - i], align_corners, theta.dtype) for i in range(d)]
    cols = []
    for i, ax in enumerate(axes):
        view = [1] * d
        view[d - 1 - i] = spatial[d - 1 - i]
        cols.append(ax.reshape(view).expand(*spatial))
    cols.append(_C.ones(spatial, dtype=theta.dtype))
    base = _C.stack(cols, -1).reshape(1, -1, d + 1)
    grid = _C.matmul(base, theta.transpose(1, 2))
    return grid.reshape([n] + spatial + [d])


def _reflect_coordinates(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """torch's ``reflect_coordinates``: ``x`` reflected at ``twice_low / 2`` and ``twice_high /
    2`` until it lies between them."""
    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (x - low).abs()
    extra = _C.fmod(x, span)
    flips = (x / span).floor()
    return _C.where(_C.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _grid_unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """torch's ``grid_sampler_unnormalize``: a normalised coordinate in [-1, 1] as a pixel
    position of an axis of ``size`` pixels."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _grid_source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """torch's ``grid_sampler_compute_source_index``: a normalised coordinate in [-1, 1] as a
    pixel position of an axis of ``size`` pixels, clipped (``border``) or reflected
    (``reflection``) into it."""
    return _grid_compute_coordinates(_grid_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _grid_compute_coordinates(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """torch's ``compute_coordinates``: a pixel position clipped (``border``) or reflected
    (``reflection``) into an axis of ``size`` pixels; unchanged for ``zeros``."""
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            x = _reflect_coordinates(x, 0, 2 * (size - 1))
        else:
            x = _reflect_coordinates(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _grid_sampler_checks(input: Tensor, grid: Tensor) -> None:
    """torch's ``check_grid_sampler_common`` and ``check_grid_sampler_{2,3}d``."""
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(input)} but found {_dtype_name(grid)}")
    ishape, gshape = list(input.shape), list(grid.shape)
    if ishape[0] != gshape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{ishape} and grid with sizes {gshape}"
        )
    if gshape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got grid with "
            f"sizes {gshape}"
        )
    for i in range(2, input.dim()):
        if ishape[i] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                f"{ishape} with dimension {i} being empty"
            )


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: Optional[bool] = None,
) -> Tensor:
    """grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None) -> Tensor

    Samples float ``input`` ``(N, C, H, W)`` at the points of ``grid`` ``(N, H_out, W_out, 2)``
    (or ``(N, C, D, H, W)`` at ``(N, D_out, H_out, W_out, 3)``): ``grid[..., 0]`` is x (along
    W), ``grid[..., 1]`` y, ``grid[..., 2]`` z, normalised to [-1, 1] (pixel corners with
    ``align_corners``, else the outer pixel edges; ``None`` warns and means False). ``mode``
    ``'bilinear'`` (trilinear for 5-d) or ``'nearest'`` (round half to even);
    ``padding_mode`` ``'zeros'``, ``'border'`` (clip) or ``'reflection'``. Result ``(N, C,
    *grid.shape[1:-1])``, differentiable in ``input`` and (bilinear, bicubic) ``grid``. ValueError for
    an unknown mode, RuntimeError with torch's texts for mismatched shapes and dtypes;
    ``mode='bicubic'``: Keys' cubic convolution (A = -0.75), tricubic for 5-d. Mirrors
    ``torch.nn.functional.grid_sample``.
    """
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode "
            "to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.dim() == 4:
        _grid_sampler_checks(input, grid)
        if grid.dim() != 4:
            raise RuntimeError(
                "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with "
                f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
    else:
        _grid_sampler_checks(input, grid)
        if input.dim() != 5 or grid.dim() != 5:
            raise RuntimeError(
                "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with "
                f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
    _check_float(input, "grid_sampler_2d_cpu_kernel_impl" if input.dim() == 4 else "grid_sampler_3d_cpu")
    if mode == "bicubic":
        return _grid_sample_bicubic(input, grid, padding_mode, align_corners)
    n, c = int(input.shape[0]), int(input.shape[1])
    sizes = [int(v) for v in input.shape[2:]]
    d = len(sizes)
    out_sp = [int(v) for v in grid.shape[1:-1]]
    length = _planes(out_sp)
    flat = input.reshape(n, c, -1)
    g = grid.reshape(n, length, d)
    # Per spatial dim (outermost first): the source positions of every output point.
    pos = [_grid_source_index(g.select(2, d - 1 - i), sizes[i], padding_mode, align_corners) for i in range(d)]
    strides = [_planes(sizes[i + 1 :]) for i in range(d)]
    if mode == "nearest":
        # Weight 1 through the recorded round (derivative 0): the grid's gradient is zeros, as torch's.
        corners = [[(r, r * 0 + 1)] for r in (p.round() for p in pos)]
    else:
        corners = []
        for p in pos:
            lo = p.floor()
            frac = p - lo
            corners.append([(lo, 1 - frac), (lo + 1, frac)])
    out = None
    for combo in itertools.product(*corners):
        idx = None
        valid = None
        weight = None
        for i, (at, w) in enumerate(combo):
            inside = (at >= 0).logical_and(at <= sizes[i] - 1)
            valid = inside if valid is None else valid.logical_and(inside)
            term = at.clamp(0, sizes[i] - 1).to(_C.int64) * strides[i]
            idx = term if idx is None else idx + term
            weight = w if weight is None else weight * w
        weight = weight * valid.to(input.dtype)
        vals = flat.gather(2, idx.unsqueeze(1).expand(n, c, length)) * weight.unsqueeze(1)
        out = vals if out is None else out + vals
    return out.reshape([n, c] + out_sp)


def _cubic_coefficients(t: Tensor) -> List[Tensor]:
    """torch's ``get_cubic_upsample_coefficients`` (Keys' cubic convolution, A = -0.75): the
    weights of the pixels at offsets -1, 0, 1, 2 from ``floor(x)`` for ``t = x - floor(x)``,
    each evaluated as torch's vectorised grid sampler does."""
    a = -0.75

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2
        return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a

    def near(x: Tensor) -> Tensor:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _grid_sample_bicubic(input: Tensor, grid: Tensor, padding_mode: str, align_corners: bool) -> Tensor:
    """grid_sample's ``mode='bicubic'`` on 4-d (bicubic) or 5-d (tricubic) float ``input``:
    torch's ``grid_sampler_{2,3}d`` bicubic branch composed of recorded ops (differentiable in
    ``input`` and ``grid``). The 4 x 4 (x 4) pixels around the unnormalised (unpadded) source
    point are each moved into the input by ``padding_mode`` (zero outside it for ``'zeros'``)
    and interpolated along x first, then y (then z), in torch's order of summation."""
    n, c = int(input.shape[0]), int(input.shape[1])
    sizes = [int(v) for v in input.shape[2:]]
    d = len(sizes)
    out_sp = [int(v) for v in grid.shape[1:-1]]
    length = _planes(out_sp)
    flat = input.reshape(n, c, -1)
    g = grid.reshape(n, length, d)
    strides = [_planes(sizes[i + 1 :]) for i in range(d)]
    # Per spatial dim (outermost first): the floor of the source position and the weights of
    # the pixels at offsets -1, 0, 1, 2 from it.
    base, coef = [], []
    for i in range(d):
        p = _grid_unnormalize(g.select(2, d - 1 - i), sizes[i], align_corners)
        lo = p.floor()
        coef.append(_cubic_coefficients(p - lo))
        base.append(lo.detach())

    def at(offsets: List[int]) -> Tensor:
        """torch's ``get_value_bounded``: the pixel at ``base + offsets`` after padding, 0
        outside the input."""
        idx = None
        valid = None
        for i, off in enumerate(offsets):
            q = _grid_compute_coordinates(base[i] + off, sizes[i], padding_mode, align_corners)
            inside = (q >= 0).logical_and(q <= sizes[i] - 1)
            valid = inside if valid is None else valid.logical_and(inside)
            term = q.clamp(0, sizes[i] - 1).to(_C.int64) * strides[i]
            idx = term if idx is None else idx + term
        vals = flat.gather(2, idx.unsqueeze(1).expand(n, c, length))
        return vals * valid.to(input.dtype).unsqueeze(1)

    def interp(offsets: List[int]) -> Tensor:
        """The cubic interpolation over the dims after ``offsets`` (the innermost, x, first)."""
        i = len(offsets)
        if i == d:
            return at(offsets)
        out = None
        for k in range(4):
            term = interp(offsets + [k - 1]) * coef[i][k].unsqueeze(1)
            out = term if out is None else out + term
        return out

    return interp([]).reshape([n, c] + out_sp)


# ---- embedding_bag (issue 15 part 5) ---------------------------------------------------------


def _embedding_bag(weight, input, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                   include_last_offset, padding_idx) -> Tensor:
    """torch's ``embedding_bag`` kernel over 1-d ``input`` and ``offsets``, composed of recorded
    ops: the rows ``weight[input]`` (``index_select``: the weight's gradient), weighted by
    ``per_sample_weights`` and summed per bag with ``index_add`` (mode sum, mean: divided by
    the bag's count) or reduced with ``scatter_reduce('amax')`` (mode max). Entries equal to
    ``padding_idx`` count for nothing; an empty bag is zeros."""
    # torch's checkScalarTypes (each argument numbered #1, as torch's).
    for arg, t, allowed in (("indices", input, "Long, Int"), ("offsets", offsets, "Long, Int"),
                            ("weight", weight, "Half, BFloat16, Float, Double")):
        ok = t.dtype in (_C.int64, _C.int32) if arg != "weight" else t.is_floating_point()
        if not ok:
            raise RuntimeError(
                f"Expected tensor for argument #1 '{arg}' to have one of the following scalar types: {allowed}; "
                f"but got {_C_tensor_type(t)} instead (while checking arguments for embedding_bag)"
            )
    num = int(weight.shape[0])
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but got {padding_idx}"
            )
        padding_idx = padding_idx + num if padding_idx < 0 else padding_idx
    idx = input.to(_C.int64)
    offs = [int(v) for v in offsets.tolist()]
    n = int(idx.shape[0])
    if offs and offs[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {offs[0]}"
        )
    if offs and offs[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {offs[-1]}")
    for a, b in zip(offs, offs[1:]):
        if b < a:
            raise RuntimeError("offsets must be monotonically increasing")
    values = idx.tolist()
    for v in values:
        if not 0 <= v < num:
            raise IndexError(f"index out of range in self: {v} (embedding_bag over {num} embeddings)")
    bags = len(offs) - 1 if include_last_offset else len(offs)
    ends = offs[1:] if include_last_offset else offs[1:] + [n]
    # Each entry's bag (-1: outside every bag, or padding).
    bag_of = [-1] * n
    for b in range(bags):
        for i in range(offs[b], min(ends[b], n)):
            if values[i] != padding_idx:
                bag_of[i] = b
    keep = [i for i in range(n) if bag_of[i] >= 0]
    d = int(weight.shape[1])
    kept_idx = _C.tensor([values[i] for i in keep], dtype=_C.int64)
    kept_bag = _C.tensor([bag_of[i] for i in keep], dtype=_C.int64)
    rows = weight.index_select(0, kept_idx)
    if scale_grad_by_freq and mode != "max":
        # The weight's gradient divided by each index's frequency in the input (as torch),
        # the forward values unchanged: rows + (rows - rows) / freq is rows exactly.
        freq = {}
        for v in values:
            freq[v] = freq.get(v, 0) + 1
        inv = _C.tensor([1.0 / freq[values[i]] for i in keep], dtype=weight.dtype).unsqueeze(1)
        rows = rows.detach() + (rows - rows.detach()) * inv
    if per_sample_weights is not None:
        keep_t = _C.tensor(keep, dtype=_C.int64)
        rows = rows * per_sample_weights.index_select(0, keep_t).unsqueeze(1)
    zeros = _C.zeros(bags, d, dtype=weight.dtype)
    if mode == "max":
        return zeros.scatter_reduce(0, kept_bag.unsqueeze(1).expand(len(keep), d), rows, "amax", include_self=False)
    out = zeros.index_add(0, kept_bag, rows)
    if mode == "mean":
        counts = [0] * bags
        for i in keep:
            counts[bag_of[i]] += 1
        out = out / _C.tensor([max(c, 1) for c in counts], dtype=weight.dtype).unsqueeze(1)
    return out


def _C_tensor_type(t: Tensor) -> str:
    """A tensor's legacy type name as torch's argument checks print it (``torch.FloatTensor``)."""
    return f"torch.{_dtype_name(t)}Tensor"


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Optional[Tensor] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Optional[Tensor] = None,
    include_last_offset: bool = False,
    padding_idx: Optional[int] = None,
) -> Tensor:
    """embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
    scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
    include_last_offset=False, padding_idx=None) -> Tensor

    The sums, means or maxima (``mode``) of bags of rows of ``weight`` ``(num_embeddings, D)``
    (float): ``input`` 2-d ``(B, N)`` int indices is B bags of N, or 1-d with ``offsets``
    (int, 1-d) the start of each bag (``include_last_offset``: the last offset ends the last
    bag). ``per_sample_weights`` (``input``'s shape, mode ``'sum'`` only) scale each row;
    entries equal to ``padding_idx`` are left out (of the count of ``'mean'`` too); an empty
    bag gives zeros. ``max_norm`` renormalises the rows looked up in place first;
    ``scale_grad_by_freq`` divides the weight's gradient by each index's frequency. Result
    ``(B, D)``, differentiable in ``weight`` and ``per_sample_weights``. torch's ValueError,
    RuntimeError and NotImplementedError texts; ``sparse=True`` gradients are not supported
    (NotImplementedError when the weight requires grad). Mirrors
    ``torch.nn.functional.embedding_bag``.
    """
    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. "
            "Usage `embedding_bag(weight, input, ...)` is deprecated, "
            "and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({_size(per_sample_weights)}) is not None, "
            f"then it must have the same shape as the input ({_size(input)})"
        )
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None"
                ", as input is treated is a mini-batch of"
                " fixed length sequences. However, found "
                f"offsets of type {type(offsets)}"
            )
        offsets = _C.arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        with _C.no_grad():
            _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. "
            "per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    if sparse and weight.requires_grad and _C.is_grad_enabled():
        raise NotImplementedError(
            "embedding_bag: sparse gradients are not supported by tensorbind (sparse=True); use sparse=False"
        )
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                          include_last_offset, padding_idx)


# ---- fractional max pooling (issue 15 part 5) -----------------------------------------------


def _fractional_intervals(samples: Tensor, in_len: int, out_len: int, k: int) -> Tensor:
    """torch's ``generate_intervals`` for every plane at once, in the samples' dtype (torch's
    kernel computes in the input's float type): window ``i`` starts at ``int((i + u) alpha) -
    int(u alpha)`` with ``alpha = (in - k) / (out - 1)``, the last at ``in - k``. int64 ``(P,
    out)``."""
    p = int(samples.shape[0])
    last = _C.full((p, 1), in_len - k, dtype=_C.int64)
    if out_len <= 1:
        return last[:, :out_len]
    alpha = _C.tensor(float(in_len - k), dtype=samples.dtype) / _C.tensor(float(out_len - 1), dtype=samples.dtype)
    u = samples.unsqueeze(1)
    i = _C.arange(out_len - 1, dtype=samples.dtype).unsqueeze(0)
    seq = ((i + u) * alpha).trunc().to(_C.int64) - (u * alpha).trunc().to(_C.int64)
    return _C.cat([seq, last], 1)


def _fractional_max_pool(input: Tensor, kernel_size, output_size, samples: Tensor, nd: int) -> Tuple[Tensor, Tensor]:
    """torch's ``fractional_max_pool{2,3}d`` kernels: each window (of ``kernel_size``, starting
    where :func:`_fractional_intervals` says per plane) reduced to its first maximum, a gather
    of the windows then ``max`` (recorded: differentiable to the maxima)."""
    name = f"fractional_max_pool{nd}d"
    k = list(_pair(kernel_size) if nd == 2 else _triple(kernel_size))
    o = list(_pair(output_size) if nd == 2 else _triple(output_size))
    if len(k) == 1:
        k = k * nd
    if len(o) == 1:
        o = o * nd
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {'Ints' if nd == 2 else 'three Ints'}")
    if len(o) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {'Ints' if nd == 2 else 'three Ints'}")
    k, o = [int(v) for v in k], [int(v) for v in o]
    shape = list(input.shape)
    dims = len(shape)
    if dims not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(1, dims):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got{shape} with "
                f"dimension {i} being empty."
            )
    sizes = shape[-nd:]
    names = ["time", "height", "width"][3 - nd:]
    for i in range(nd):
        if o[i] + k[i] - 1 > sizes[i]:
            where = name if nd == 2 else name + "_out"
            raise RuntimeError(
                f"{where}(): pool {names[i]} {k[i]} too large relative to input {names[i]} {sizes[i]}"
            )
    _check_float(input, name + "_out_frame")
    lead = shape[:-nd]
    planes = _planes(lead)
    samples = samples.reshape(planes, nd).to(input.dtype)
    # torch's sample order: (W, H) for 2-d, (T, H, W) for 3-d.
    order = [1, 0] if nd == 2 else [0, 1, 2]
    starts = [_fractional_intervals(samples.select(1, order[i]), sizes[i], o[i], k[i]) for i in range(nd)]
    strides = [_planes(sizes[i + 1 :]) for i in range(nd)]
    idx = None
    for i in range(nd):
        # (P, o_0.., o_nd, k_0.., k_nd) broadcast views of each dim's positions.
        view = [planes] + [1] * (2 * nd)
        view[1 + i] = o[i]
        s = starts[i].reshape(view)
        tap = [1] * (1 + 2 * nd)
        tap[1 + nd + i] = k[i]
        term = (s + _C.arange(k[i]).reshape(tap)) * strides[i]
        idx = term if idx is None else idx + term
    window = _planes(k)
    cells = _planes(o)
    idx = idx.expand([planes] + o + k).reshape(planes, cells, window)
    cols = input.reshape(planes, -1).gather(1, idx.reshape(planes, cells * window)).reshape(planes, cells, window)
    values, local = cols.max(-1)
    indices = idx.gather(2, local.unsqueeze(-1)).squeeze(-1)
    return values.reshape(lead + o), indices.reshape(lead + o)


def fractional_max_pool2d_with_indices(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
    _random_samples: Optional[Tensor] = None,
) -> Tuple[Tensor, Tensor]:
    """fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None) -> (Tensor, Tensor):
    ``fractional_max_pool2d`` and the flat indices of the maxima in the ``H * W`` plane."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(_pair(output_ratio)) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        r = _pair(output_ratio)
        output_size = [int(input.shape[-2] * r[0]), int(input.shape[-1] * r[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.shape[0]
        _random_samples = _C.rand(n_batch, input.shape[-3], 2, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 2)


def fractional_max_pool2d(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
    _random_samples: Optional[Tensor] = None,
):
    """fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)

    Fractional max pooling (Graham, 2014) of ``(N, C, H, W)`` (or ``(C, H, W)``) float input:
    windows of ``kernel_size`` at pseudo-random starts (drawn from ``_C``'s generator, one
    sample per plane and dim in [0, 1), or given as ``_random_samples`` ``(N, C, 2)``) giving
    ``output_size`` (or ``floor(in * output_ratio)``). With ``return_indices`` also the flat
    index of each maximum in the ``H * W`` plane (the first on ties). ValueError without an
    output size or ratio, RuntimeError with torch's texts for bad shapes. Mirrors
    ``torch.nn.functional.fractional_max_pool2d`` (the same samples give torch's result; the
    drawn samples differ from torch's generator's).
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
    _random_samples: Optional[Tensor] = None,
) -> Tuple[Tensor, Tensor]:
    """fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None) -> (Tensor, Tensor):
    ``fractional_max_pool3d`` and the flat indices of the maxima in the ``T * H * W`` volume."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        r = _triple(output_ratio)
        output_size = [int(input.shape[-3] * r[0]), int(input.shape[-2] * r[1]), int(input.shape[-1] * r[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.shape[0]
        _random_samples = _C.rand(n_batch, input.shape[-4], 3, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 3)


def fractional_max_pool3d(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
    _random_samples: Optional[Tensor] = None,
):
    """fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)

    Fractional max pooling of ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) float input, as
    :func:`fractional_max_pool2d` with three samples per plane (``_random_samples`` ``(N, C,
    3)``) and indices into the ``T * H * W`` volume. Mirrors
    ``torch.nn.functional.fractional_max_pool3d``.
    """
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


# ---- multi_head_attention_forward (issue 15 part 5): torch's Python function, on _C's ops ----


def _none_or_dtype(input: Optional[Tensor]):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type, check_other: bool = True):
    """torch's ``_canonical_mask``: a bool mask as a float one (``-inf`` where True)."""
    if mask is not None:
        is_float = mask.is_floating_point()
        if mask.dtype != _C.bool and not is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and mask.dtype != other_type:
            warnings.warn(
                f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
                stacklevel=3,
            )
        if not is_float:
            mask = _C.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """torch's ``_mha_shape_check``: whether the input is batched, with torch's texts."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                    f" but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {_size(attn_mask)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """torch's ``_in_projection_packed``: q, k, v projected by the packed ``(3E, E)`` weight."""
    e = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """torch's ``_in_projection``: three projections, their weights' shapes checked."""
    eq, ek, ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, t, want in (("query weights", w_q, (eq, eq)), ("key weights", w_k, (eq, ek)),
                          ("value weights", w_v, (eq, ev)), ("query bias", b_q, (eq,)),
                          ("key bias", b_k, (eq,)), ("value bias", b_v, (eq,))):
        if t is not None and tuple(t.shape) != want:
            raise AssertionError(f"expecting {what} shape of {want}, but got {_size(t)}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor], bias_k: Optional[Tensor],
    bias_v: Optional[Tensor], add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor], training: bool = True, key_padding_mask: Optional[Tensor] = None,
    need_weights: bool = True, attn_mask: Optional[Tensor] = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Optional[Tensor] = None, k_proj_weight: Optional[Tensor] = None,
    v_proj_weight: Optional[Tensor] = None, static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
    average_attn_weights: bool = True, is_causal: bool = False,
) -> Tuple[Tensor, Optional[Tensor]]:
    """multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
    in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
    out_proj_bias, training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
    use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
    static_k=None, static_v=None, average_attn_weights=True, is_causal=False)

    ``torch.nn.MultiheadAttention``'s forward: ``query`` ``(L, N, E)`` (or ``(L, E)``),
    ``key``/``value`` ``(S, N, E)`` projected (packed ``in_proj_weight`` ``(3E, E)`` or the
    separate ``q/k/v_proj_weight``), split into ``num_heads`` heads, scaled dot-product
    attention with ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)`` and
    ``key_padding_mask`` ``(N, S)`` (bool: True is masked; float: added), ``bias_k``/``bias_v``
    and ``add_zero_attn`` appending a key, dropout when ``training``, then ``out_proj``. Returns
    ``(attn_output (L, N, E), attn_weights)``: the weights ``(N, L, S)`` averaged over heads
    (``(N, num_heads, L, S)`` without ``average_attn_weights``) when ``need_weights``, else
    None. torch's AssertionError and RuntimeError texts. Differentiable. Mirrors
    ``torch.nn.functional.multi_head_attention_forward`` (torch's Python, on ``_C``'s ops).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. "
            "You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims torch.Size({list(key.shape[:2])}) do not match value's "
                f"torch.Size({list(value.shape[:2])})"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {_size(key)} does not match value shape {_size(value)}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {_size(attn_mask)}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {_size(attn_mask)}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    for name, static in (("k", static_k), ("v", static_v)):
        if static is not None:
            if static.shape[0] != bsz * num_heads:
                raise AssertionError(f"expecting static_{name}.size(0) of {bsz * num_heads}, but got {static.shape[0]}")
            if static.shape[2] != head_dim:
                raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        k = _C.cat([k, _C.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)], dim=1)
        v = _C.cat([v, _C.zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        e = q.shape[2]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _C.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _C.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _C.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# ---- ctc_loss (issue 15 part 5) --------------------------------------------------------------


def _lse3(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """``log(exp(a) + exp(b) + exp(c))`` elementwise, ``-inf`` (with a zero gradient, not NaN)
    where all three are ``-inf``."""
    x = _C.stack([a, b, c], 0)
    dead = _C.isinf(x).logical_and(x < 0).all(0)
    safe = _C.where(dead.unsqueeze(0), _C.zeros_like(x), x)
    r = _C.logsumexp(safe, 0)
    return _C.where(dead, _C.full_like(r, float("-inf")), r)


def _lengths(v, name: str) -> List[int]:
    if isinstance(v, Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    if isinstance(v, int):
        return [v]
    return [int(x) for x in v]


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
    zero_infinity=False) -> Tensor

    The Connectionist Temporal Classification loss of float ``log_probs`` ``(T, N, C)`` (or
    ``(T, C)``; log-softmax outputs) against ``targets`` ``(N, S)`` padded or 1-d concatenated
    (``sum(target_lengths)``), with per-sample ``input_lengths`` and ``target_lengths`` (lists
    or int tensors): ``-log`` of the total probability of the alignments (the forward
    recursion over the blank-extended target, in log space). ``reduction``: ``'mean'`` (each
    loss divided by its target length, then the batch mean), ``'sum'`` or ``'none'`` (``(N,)``).
    An impossible alignment is ``inf`` (0 with ``zero_infinity``, its gradient 0). The gradient
    is torch's: with respect to ``log_probs`` it is ``exp(log_probs) - posterior`` (the
    gradient of the logits when ``log_probs = log_softmax(logits)``). RuntimeError with
    torch's texts for bad lengths and blanks. Mirrors ``torch.nn.functional.ctc_loss``.
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    red = reduction
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    _check_float(lp, "ctc_loss_cpu")
    if lp.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    t_max, n, c = (int(v) for v in lp.shape)
    ilen, tlen = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(ilen) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tlen) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    tg = targets.to(_C.int64)
    if not batched:
        tg = tg.unsqueeze(0)
    if tg.dim() == 1:
        total = sum(tlen)
        if tg.shape[0] != total:
            raise RuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size {tg.shape[0]} for argument #2 "
                f"'targets'{where}"
            )
        flat = tg.tolist()
        rows, at = [], 0
        for ln in tlen:
            rows.append(flat[at:at + ln])
            at += ln
    else:
        for ln in tlen:
            if ln > tg.shape[1]:
                raise RuntimeError(
                    f"Expected tensor to have size at least {ln} at dimension 1, but got size {tg.shape[1]} for "
                    f"argument #2 'targets'{where}"
                )
        rows = [r[:ln] for r, ln in zip(tg.tolist(), tlen)]
    for ln in tlen:
        if ln < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {ln}{where}")
    for ln in ilen:
        if ln < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {ln}{where}")
        if ln > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {ln}{where}")
    # The blank-extended targets (blank, l1, blank, l2, ..., blank), padded with blanks, and
    # where the recursion may skip from s - 2 (a label differing from the one two back).
    width = 2 * max(tlen + [0]) + 1
    ext, skip = [], []
    for r in rows:
        e = [blank] * width
        sk = [False] * width
        for j, lab in enumerate(r):
            e[2 * j + 1] = lab
            sk[2 * j + 1] = j > 0 and lab != r[j - 1]
        ext.append(e)
        skip.append(sk)
    ext_t = _C.tensor(ext, dtype=_C.int64)
    skip_t = _C.tensor(skip, dtype=_C.bool)
    lpe = lp.gather(2, ext_t.unsqueeze(0).expand(t_max, n, width))  # (T, N, S')
    ninf = float("-inf")
    s_idx = _C.arange(width).unsqueeze(0)
    # t = 0: the first blank or the first label.
    start = s_idx < _C.tensor([2 if ln > 0 else 1 for ln in tlen]).unsqueeze(1)
    first = lpe.select(0, 0)  # T >= 1: log_probs is not empty
    alpha = _C.where(start, first, _C.full_like(first, ninf))
    # A sample with no input: only the empty alignment (probability 1 before the first blank).
    empty = _C.where(s_idx == 0, _C.zeros_like(alpha), _C.full_like(alpha, ninf))
    alpha = _C.where(_C.tensor([ln > 0 for ln in ilen]).unsqueeze(1), alpha, empty)
    pad1 = _C.full((n, 1), ninf, dtype=lp.dtype)
    pad2 = _C.full((n, 2), ninf, dtype=lp.dtype)
    live = _C.tensor(ilen).unsqueeze(1)
    for t in range(1, t_max):
        one = _C.cat([pad1, alpha.narrow(1, 0, width - 1)], 1)
        if width >= 3:
            two = _C.where(skip_t, _C.cat([pad2, alpha.narrow(1, 0, width - 2)], 1), _C.full_like(alpha, ninf))
        else:
            two = _C.full_like(alpha, ninf)
        nxt = lpe.select(0, t) + _lse3(alpha, one, two)
        alpha = _C.where(live > t, nxt, alpha)
    # The last label or the last blank.
    last = _C.tensor([2 * ln for ln in tlen]).unsqueeze(1)
    end_blank = alpha.gather(1, last)
    end_label = alpha.gather(1, (last - 1).clamp(min=0))
    end_label = _C.where(last > 0, end_label, _C.full_like(end_label, ninf))
    nll = -_lse3(end_blank, end_label, _C.full_like(end_label, ninf)).squeeze(1)
    # torch's gradient of log_probs adds exp(log_probs) over each sample's input (the forward
    # value is unchanged: e - e is 0 exactly).
    steps = (_C.arange(t_max).unsqueeze(1) < live.reshape(1, n)).to(lp.dtype).unsqueeze(2)
    e = (lp.exp() * steps).sum((0, 2))
    nll = nll + (e - e.detach())
    infinite = _C.isinf(nll)
    if zero_infinity:
        nll = _C.where(infinite, _C.zeros_like(nll), nll)
    if red == "mean":
        return (nll / _C.tensor(tlen, dtype=lp.dtype).clamp(min=1)).mean()
    if red == "sum":
        return nll.sum()
    return nll if batched else nll.squeeze(0)
