"""tests/conformance/conformance.py: `_C` against torch, on torch's own operator test database.

`make conformance` runs this file in its own venv (`.venv-conform`: torch from PyPI, numpy,
expecttest, pytest, hypothesis; the `_C` wheel installed into it). For every op of torch's OpInfo
database (`torch.testing._internal.common_methods_invocations.op_db`) that is in scope (see
`in_scope`) and that `_C` has, it takes OpInfo's `sample_inputs` (and `reference_inputs` and
`error_inputs` unless `--quick`) for each dtype `_C` supports, converts each input to `_C` with
the same shape, strides (non-contiguous and expanded inputs included), storage offset and values,
calls the op through torch and through `_C` — as a function, as a method, and in place where both
libraries have that variant — and compares:

- structure (tensor, tuple, named tuple and its fields, list, Python number type, None),
- dtype and shape of every tensor,
- values, with `torch.testing.assert_close`'s default tolerances for the dtype and NaN in the
  same positions (ops whose values are random or uninitialised: shape and dtype only),
- exceptions: when torch raises, `_C` must raise the same class (nearest builtin class; a torch
  class of its own, like `LinAlgError`, by name); the texts are compared and counted but a
  different text is not a failure.

It prints the coverage (OpInfo names in scope that `_C` has / lacks) and the pass rate of each
op, and exits 1 when a failure is not covered by an entry of `expected_differences.txt` (beside
this file; each entry names the op and the kind of difference and says why). Entries that match
nothing are reported as stale (exit 1 with `--strict`).

Options: `--quick` (sample inputs only, at most 8 per op and dtype: the bounded run CI does),
`--ops a,b,c` (only these OpInfo names), `--verbose` (every failure with its input),
`--print-unlisted` (expected-differences lines for the failures no entry covers).
"""

import argparse
import math
import os
import re
import sys
import time
import traceback
import warnings

import numpy as np

# OpInfo's module needs expecttest; its absence would be an unhelpful ImportError deep inside.
try:
    import expecttest  # noqa: F401
except ImportError:  # pragma: no cover
    sys.exit("conformance: expecttest missing (make conformance installs it into .venv-conform)")

import torch  # noqa: E402

import _C  # noqa: E402
import _C.nn.functional  # noqa: E402,F401  (the nn.functional entries of NN_SCOPE resolve through it)

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED_FILE = os.path.join(HERE, "expected_differences.txt")

# The dtypes `_C` has, by torch name.
DTYPES = [
    torch.float32,
    torch.float64,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
]
DTYPE_NAME = {d: str(d).replace("torch.", "") for d in DTYPES}
NP_DTYPE = {
    torch.float32: np.float32,
    torch.float64: np.float64,
    torch.int64: np.int64,
    torch.int32: np.int32,
    torch.int16: np.int16,
    torch.int8: np.int8,
    torch.uint8: np.uint8,
    torch.bool: np.bool_,
}

# OpInfo name prefixes in scope (issue 13): torch's top-level namespace and Tensor methods,
# torch.linalg, torch.special, torch.signal.windows. nn.functional, fft (complex results),
# sparse, masked, the _refs and the private ops are not.
SCOPE_PREFIXES = ("linalg.", "special.", "signal.windows.")
# issue 15: the nn.functional entries (by OpInfo name) that agree with torch on every sample,
# every variant (integer inputs of conv and the pools included since nn15e; interpolate's
# bilinear/bicubic, float32 source indices and uint8 included since nn15f); the others (the ones
# OpInfo wraps in lambdas: embedding, embedding_bag, fractional_max_pool2d/3d,
# multi_head_attention_forward, the random ones) are not in scope yet.
NN_SCOPE = {
    "nn.functional." + n
    for n in """
    adaptive_avg_pool1d adaptive_avg_pool2d adaptive_max_pool1d adaptive_max_pool2d binary_cross_entropy
    adaptive_max_pool3d ctc_loss grid_sample interpolate.area interpolate.linear interpolate.trilinear max_unpool3d
    binary_cross_entropy_with_logits celu channel_shuffle cosine_embedding_loss cosine_similarity
    cross_entropy elu gaussian_nll_loss gelu glu hardshrink hardsigmoid hardswish hardtanh
    hinge_embedding_loss huber_loss instance_norm kl_div l1_loss leaky_relu linear
    local_response_norm logsigmoid margin_ranking_loss max_pool1d max_unpool1d max_unpool2d mish
    mse_loss multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss nll_loss normalize
    one_hot pad pairwise_distance pdist pixel_shuffle pixel_unshuffle poisson_nll_loss prelu relu
    relu6 rms_norm selu silu smooth_l1_loss soft_margin_loss softmin softplus softshrink softsign
    tanhshrink threshold triplet_margin_loss triplet_margin_with_distance_loss unfold
    conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d max_pool2d max_pool3d
    avg_pool1d avg_pool2d avg_pool3d lp_pool1d lp_pool2d lp_pool3d interpolate.nearest
    interpolate.nearest-exact adaptive_avg_pool3d batch_norm layer_norm group_norm fold
    upsample_nearest bilinear interpolate.bilinear interpolate.bicubic upsample_bilinear
    """.split()
}
# Names in the top-level namespace that are out of scope, with the reason.
OUT_OF_SCOPE = {
    "view_as_complex": "complex dtypes",
    "view_as_real": "complex dtypes",
    "polar": "complex results",
    "complex": "complex results",
    "stft": "complex results",
    "istft": "complex inputs",
    "to_sparse": "sparse tensors",
    "sparse.sampled_addmm": "sparse tensors",
    "sparse.mm": "sparse tensors",
    "linalg.eig": "complex results",
    "linalg.eigvals": "complex results",
    "bfloat16": "a dtype _C lacks",
    "half": "a dtype _C lacks",
    "cfloat": "a dtype _C lacks",
    "cdouble": "a dtype _C lacks",
    "chalf": "a dtype _C lacks",
    "native_batch_norm": "an nn kernel (torch.nn.functional's backend), not the tensor namespace",
    "native_layer_norm": "an nn kernel (torch.nn.functional's backend), not the tensor namespace",
    "native_group_norm": "an nn kernel (torch.nn.functional's backend), not the tensor namespace",
    "native_dropout_backward": "an autograd kernel, not the tensor namespace",
    "max_pool2d_with_indices_backward": "an autograd kernel, not the tensor namespace",
    "grid_sampler_2d": "an nn kernel (torch.nn.functional's backend), not the tensor namespace",
    "grid_sampler_3d": "an nn kernel (torch.nn.functional's backend), not the tensor namespace",
    "constant_pad_nd": "an nn kernel (torch.nn.functional.pad's backend)",
    "hash_tensor": "its result is uint64, a dtype _C lacks",
    "slice": "OpInfo's op is the aten operator torch.ops.aten.slice.Tensor, not a name of torch's namespace or a Tensor method (Python's t[a:b] is the public form; tests/python/test_indexing.py)",
}

# Ops whose values are random or unspecified: only structure, shape and dtype are compared.
VALUES_UNCHECKED = {
    "rand",
    "randn",
    "empty",
    "empty_like",
    "new_empty",
    "empty_strided",
    "new_empty_strided",
    "empty_permuted",
    "bernoulli",
    "normal",
    "rand_like",
    "randn_like",
    "randint_like",
    "randint",
    "multinomial",
    "uniform",
    "exponential",
    "geometric",
    "cauchy",
    "log_normal",
    "nn.functional.dropout",
    "resize_",
    "resize_as_",
    "svd_lowrank",
    "pca_lowrank",
}


# OpInfo entries whose `op` is a lambda of OpInfo's own: the same call, written once for either
# library (`lib` is torch or _C). Keyed by OpInfo name or name.variant_test_name.
WRAPPERS = {
    "einsum": lambda lib: lambda tensors, equation: lib.einsum(equation, tensors),
    "item": lambda lib: lambda x: x.item(),
    "T": lambda lib: lambda x: x.T,
    "mT": lambda lib: lambda x: x.mT,
    "H": lambda lib: lambda x: x.H,
    "mH": lambda lib: lambda x: x.mH,
    "zero_": lambda lib: lambda x: x.clone().zero_(),
    "to": lambda lib: lambda x, *a, **k: x.to(*a, **k),
    "byte": lambda lib: lambda x, *a, **k: x.byte(*a, **k),
    "char": lambda lib: lambda x, *a, **k: x.char(*a, **k),
    "short": lambda lib: lambda x, *a, **k: x.short(*a, **k),
    "randn": lambda lib: lambda *a, **k: lib.randn(*a, **k),
    "randn_like": lambda lib: lambda x, *a, **k: lib.randn_like(x, *a, **k),
    "rand_like": lambda lib: lambda x, *a, **k: lib.rand_like(x, *a, **k),
    "randint": lambda lib: lambda *a, **k: lib.randint(*a, **k),
    "normal": lambda lib: lambda x, *a, **k: lib.normal(x, *a, **k),
    "normal.number_mean": lambda lib: lambda std, mean, *a, **k: lib.normal(mean, std, *a, **k),
    "normal.in_place": lambda lib: lambda x, *a, **k: x.clone().normal_(*a, **k),
    "bernoulli": lambda lib: lambda x, *a, **k: lib.bernoulli(x, *a, **k),
    "multinomial": lambda lib: lambda x, *a, **k: lib.multinomial(x, *a, **k),
    "randint_like": lambda lib: lambda x, *a, **k: lib.randint_like(x, *a, **k),
    # OpInfo's ops: `lambda x, shape: x.clone().resize_(shape)` and `torch.resize_as_(x.clone(), other)`.
    "resize_": lambda lib: lambda x, shape: x.clone().resize_(shape),
    "resize_as_": lambda lib: lambda x, other: lib.resize_as_(x.clone(), other),
    # OpInfo's ops: `wrapper_set_seed(torch.svd_lowrank, ...)` (random: shapes and dtypes only).
    "svd_lowrank": lambda lib: lambda *a, **k: lib.svd_lowrank(*a, **k),
    "pca_lowrank": lambda lib: lambda *a, **k: lib.pca_lowrank(*a, **k),
    # OpInfo's op is `lambda x, n, **kwargs: torch.special.polygamma(n, x, **kwargs)`.
    "special.polygamma.special_polygamma_n_0": lambda lib: lambda x, n, **k: lib.special.polygamma(n, x, **k),
}


class Unconvertible(Exception):
    """An input `_C` cannot represent (a dtype it lacks, a device, a generator...)."""


# ---- torch -> _C ---------------------------------------------------------------------------------


# While error inputs are converted (`run_errors`): `(tensors, storages)`, so that aliasing survives
# the conversion. OpInfo's out= overlap checks pass one tensor as an input and as `out`, or views
# of one storage: the same torch tensor becomes the same `_C` tensor, and every tensor over one
# torch storage a view (`as_strided`) of one `_C` tensor over a copy of that whole storage.
_ALIASING = None


def tensor_to_c(x):
    """A `_C` tensor with x's shape, strides, values; over a copy of the storage span x uses."""
    if _ALIASING is not None:
        tensors, _ = _ALIASING
        if id(x) not in tensors:
            tensors[id(x)] = (x, _tensor_to_c(x))  # x kept alive: its id stays unique
        return tensors[id(x)][1]
    return _tensor_to_c(x)


def _tensor_to_c(x):
    if x.dtype not in NP_DTYPE:
        raise Unconvertible(f"dtype {x.dtype}")
    if x.layout != torch.strided or x.device.type != "cpu":
        raise Unconvertible(f"layout {x.layout} / device {x.device}")
    x = x.detach()
    if x.is_conj() or x.is_neg():
        x = x.resolve_conj().resolve_neg()
    shape, strides = tuple(x.shape), tuple(x.stride())
    if any(s < 0 for s in strides):
        raise Unconvertible(f"negative strides {strides}")
    if x.numel() == 0:
        # No storage is read; numpy would give every dim stride 0, torch keeps its own strides.
        arr = np.empty(1, NP_DTYPE[x.dtype])
        view = np.lib.stride_tricks.as_strided(arr, shape, tuple(s * arr.itemsize for s in strides))
        return _C.from_numpy(view)
    if _ALIASING is not None:
        storages = _ALIASING[1]
        st = x.untyped_storage()
        key = (st.data_ptr(), x.dtype)
        if key not in storages:
            n = st.nbytes() // x.element_size()
            storages[key] = _C.from_numpy(torch.as_strided(x, (n,), (1,), 0).clone().numpy())
        return storages[key].as_strided(shape, strides, x.storage_offset())
    # The storage span the view reads, copied (the `_C` tensor must not alias torch's).
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    base = torch.as_strided(x, (span,), (1,), x.storage_offset()).clone().numpy()
    item = base.itemsize
    try:
        view = np.lib.stride_tricks.as_strided(base, shape, tuple(s * item for s in strides))
    except ValueError as e:  # numpy's 64-dim limit
        raise Unconvertible(str(e)) from None
    c = _C.from_numpy(view)
    if tuple(c.stride()) != strides:  # pragma: no cover - from_numpy keeps strides today
        raise Unconvertible(f"strides {strides} became {tuple(c.stride())}")
    return c


def to_c(v):
    """torch values (in sample args) to their `_C` counterparts, recursively."""
    if isinstance(v, torch.Tensor):
        return tensor_to_c(v)
    if isinstance(v, torch.dtype):
        if v not in DTYPE_NAME:
            raise Unconvertible(f"dtype {v}")
        return getattr(_C, DTYPE_NAME[v])
    if isinstance(v, torch.Size):
        return tuple(v)
    if isinstance(v, torch.device):
        if hasattr(_C, "device"):
            return _C.device(str(v))
        if v.type == "cpu":
            return "cpu"
        raise Unconvertible(f"device {v}")
    if isinstance(v, torch.layout):
        if v == torch.strided and hasattr(_C, "strided"):
            return _C.strided
        raise Unconvertible(f"layout {v}")
    if isinstance(v, torch.memory_format):
        name = str(v).replace("torch.", "")
        if hasattr(_C, name):
            return getattr(_C, name)
        raise Unconvertible(f"memory_format {v}")
    if isinstance(v, torch.Generator):
        raise Unconvertible("torch.Generator")
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return tuple(to_c(e) for e in v)
    if isinstance(v, (list, tuple)):
        return type(v)(to_c(e) for e in v)
    if isinstance(v, dict):
        return {k: to_c(e) for k, e in v.items()}
    if v is None or v is Ellipsis or isinstance(v, (bool, int, float, str, slice)):
        return v
    if isinstance(v, complex):
        raise Unconvertible("complex number")
    if callable(v):
        raise Unconvertible(f"callable {v!r}")
    raise Unconvertible(f"{type(v).__name__}")


def c_tensor_to_torch(t):
    return torch.from_numpy(np.array(t.numpy(), copy=True))


# ---- comparison ----------------------------------------------------------------------------------


class Mismatch(Exception):
    def __init__(self, kind, detail):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def compare(theirs, ours, check_values, path="result"):
    """Raises Mismatch(kind, detail) at the first difference."""
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, _C.Tensor):
            raise Mismatch("structure", f"{path}: torch gives a Tensor, _C {type(ours).__name__}")
        tdt = DTYPE_NAME.get(theirs.dtype, str(theirs.dtype))
        odt = str(ours.dtype).replace("_C.", "").replace("torch.", "")
        if tdt != odt:
            raise Mismatch("dtype", f"{path}: dtype torch {tdt}, _C {odt}")
        if tuple(theirs.shape) != tuple(ours.shape):
            raise Mismatch("shape", f"{path}: shape torch {tuple(theirs.shape)}, _C {tuple(ours.shape)}")
        if check_values and theirs.dtype in NP_DTYPE:
            got = c_tensor_to_torch(ours)
            try:
                torch.testing.assert_close(got, theirs.detach(), equal_nan=True, check_stride=False)
            except AssertionError as e:
                msg = " ".join(str(e).split())
                raise Mismatch("values", f"{path}: {msg[:300]}") from None
        return
    if isinstance(theirs, (tuple, list)):
        if not isinstance(ours, (tuple, list)):
            raise Mismatch("structure", f"{path}: torch gives {type(theirs).__name__}, _C {type(ours).__name__}")
        indices_at = None
        if type(theirs).__module__.startswith("torch.return_types"):
            fields = [f for f in ("values", "indices") if hasattr(theirs, f)]
            if fields == ["values", "indices"]:
                indices_at = 1
            names = [n for n in dir(type(theirs)) if not n.startswith("_") and n not in ("count", "index", "n_fields", "n_sequence_fields", "n_unnamed_fields")]
            for n in names:
                if not hasattr(ours, n):
                    raise Mismatch("structure", f"{path}: _C's result has no field {n!r} ({type(ours).__name__})")
        if len(theirs) != len(ours):
            raise Mismatch("structure", f"{path}: length torch {len(theirs)}, _C {len(ours)}")
        for i, (a, b) in enumerate(zip(theirs, ours)):
            try:
                compare(a, b, check_values, f"{path}[{i}]")
            except Mismatch as m:
                # The indices of a (values, indices) result: which of equal elements is picked.
                if i == indices_at and m.kind == "values":
                    raise Mismatch("indices", m.detail) from None
                raise
        return
    if isinstance(theirs, bool) or isinstance(theirs, (int, float)):
        if type(ours) is not type(theirs):
            raise Mismatch("structure", f"{path}: torch gives {type(theirs).__name__}, _C {type(ours).__name__}")
        if check_values:
            if isinstance(theirs, float):
                if not (math.isclose(theirs, ours, rel_tol=1.3e-6, abs_tol=1e-5) or (math.isnan(theirs) and math.isnan(ours))):
                    raise Mismatch("values", f"{path}: torch {theirs!r}, _C {ours!r}")
            elif theirs != ours:
                raise Mismatch("values", f"{path}: torch {theirs!r}, _C {ours!r}")
        return
    if theirs is None:
        if ours is not None:
            raise Mismatch("structure", f"{path}: torch gives None, _C {type(ours).__name__}")
        return
    if isinstance(theirs, torch.dtype):
        if str(ours).replace("_C.", "") != DTYPE_NAME.get(theirs, str(theirs)):
            raise Mismatch("values", f"{path}: torch {theirs}, _C {ours}")
        return
    if isinstance(theirs, torch.Size):
        if tuple(theirs) != tuple(ours):
            raise Mismatch("values", f"{path}: torch {tuple(theirs)}, _C {ours!r}")
        return
    raise Mismatch("structure", f"{path}: cannot compare torch's {type(theirs).__name__}")


def exception_class(e):
    """The class to compare: torch's own classes (LinAlgError) by name, else the nearest builtin."""
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
        if cls.__name__ in ("LinAlgError", "_LinAlgError", "OutOfMemoryError"):
            return "LinAlgError" if "LinAlg" in cls.__name__ else cls.__name__
    return type(e).__name__


def one_line(e):
    s = str(e).strip().splitlines()
    return (f"{type(e).__name__}: " + (s[0] if s else ""))[:240]


# ---- running one call on both sides ------------------------------------------------------------


class Outcome:
    __slots__ = ("status", "kind", "detail")

    def __init__(self, status, kind="", detail=""):
        self.status = status  # "pass", "fail", "skip"
        self.kind = kind
        self.detail = detail


def call_both(torch_fn, c_fn, check_values, error_regex=None):
    """torch_fn() and c_fn() are thunks. Compares results or exceptions."""
    t_exc = c_exc = None
    t_res = c_res = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t_res = torch_fn()
        except Unconvertible:
            raise
        except Exception as e:  # noqa: BLE001 - any torch error is a result to compare
            t_exc = e
        try:
            c_res = c_fn()
        except Unconvertible:
            raise
        except Exception as e:  # noqa: BLE001
            c_exc = e
    if t_exc is not None:
        if c_exc is None:
            return Outcome("fail", "no-raise", f"torch raises {one_line(t_exc)}; _C returns")
        if exception_class(t_exc) != exception_class(c_exc):
            return Outcome(
                "fail",
                "exception-class",
                f"torch {one_line(t_exc)} | _C {one_line(c_exc)}",
            )
        same_text = str(t_exc).strip() == str(c_exc).strip()
        if error_regex is not None:
            try:
                same_text = re.search(error_regex, str(c_exc)) is not None
            except re.error:
                pass
        return Outcome("pass", "raises-same-text" if same_text else "raises-other-text",
                       "" if same_text else f"torch {one_line(t_exc)} | _C {one_line(c_exc)}")
    if c_exc is not None:
        kind = "raises-TypeError" if isinstance(c_exc, TypeError) else "raises"
        return Outcome("fail", kind, f"_C {one_line(c_exc)}")
    try:
        compare(t_res, c_res, check_values)
    except Mismatch as m:
        return Outcome("fail", m.kind, m.detail)
    return Outcome("pass")


def resolve(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def torch_function_of(op):
    f = resolve(torch, op.name)
    return f if f is not None and f is op.op else None


def variants_of(op):
    """The (variant, torch callable builder, _C callable builder) triples runnable for `op`."""
    out = []
    name = op.name
    wrapper = WRAPPERS.get(op_key(op)) or WRAPPERS.get(name)
    if wrapper is not None:
        return [("wrapper", lambda inp, w=wrapper: w(torch), lambda inp, w=wrapper: w(_C))]
    if torch_function_of(op) is not None:
        cf = resolve(_C, name)
        if cf is not None:
            out.append(("function", lambda inp, f=op.op: f, lambda inp, f=cf: f))
    if "." not in name:
        tm = getattr(torch.Tensor, name, None)
        if tm is not None and (op.method_variant is tm or op.op is tm) and hasattr(_C.Tensor, name):
            out.append(("method", lambda inp, n=name: getattr(inp, n), lambda inp, n=name: getattr(inp, n)))
        iname = name + "_" if not name.startswith("__") else None
        if (
            iname
            and op.inplace_variant is not None
            and op.inplace_variant is getattr(torch.Tensor, iname, object())
            and hasattr(_C.Tensor, iname)
        ):
            out.append(("inplace", lambda inp, n=iname: getattr(inp, n), lambda inp, n=iname: getattr(inp, n)))
    return out


def in_scope(op):
    name = op.name
    if name in OUT_OF_SCOPE or name.startswith("jiterator_"):  # jiterator: CUDA only
        return False
    if name.startswith("_refs") or (name.startswith("_") and not name.startswith("__")):
        return False
    # NN_SCOPE may name one variant of an entry (`nn.functional.interpolate.trilinear`).
    if "." in name and not name.startswith(SCOPE_PREFIXES) and name not in NN_SCOPE and op_key(op) not in NN_SCOPE:
        return False
    try:
        dts = op.supported_dtypes("cpu")
    except Exception:  # noqa: BLE001
        return False
    return any(d in dts for d in DTYPES)


def present(op):
    name = op.name
    if resolve(_C, name) is not None or ("." not in name and hasattr(_C.Tensor, name)):
        return True
    # OpInfo's `uniform`, `exponential`, `geometric`, `cauchy`, `log_normal`: the op is a lambda
    # over the in-place method `name_`, which is what `_C` must have (tested as "inplace").
    iname = name + "_"
    return (
        "." not in name
        and op.inplace_variant is not None
        and op.inplace_variant is getattr(torch.Tensor, iname, object())
        and hasattr(_C.Tensor, iname)
    )


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


# ---- expected differences -------------------------------------------------------------------------


def load_expected(path):
    """Lines `OP KIND REASON...`; OP an OpInfo name (with `.variant`), `*` any; KIND a failure kind
    or `*`. A line without a reason is an error."""
    entries = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit(f"{path}:{lineno}: an entry is `OP KIND REASON`; the reason is missing")
            entries.append({"op": parts[0], "kind": parts[1], "reason": parts[2], "line": lineno, "hits": 0})
    return entries


def covered(entries, key, name, kind):
    """The first entry for this OpInfo entry (`key`: name.variant) or its name, and this kind."""
    for e in entries:
        if e["op"] in ("*", key, name) and e["kind"] in ("*", kind):
            e["hits"] += 1
            return e
    return None


# ---- the run -----------------------------------------------------------------------------------


def samples_for(op, dtype, args):
    gens = [("sample", lambda: op.sample_inputs("cpu", dtype, requires_grad=False))]
    if not args.quick and op.reference_inputs_func is not None:
        gens.append(("reference", lambda: op.reference_inputs("cpu", dtype, requires_grad=False)))
    for tag, gen in gens:
        n = 0
        try:
            it = iter(gen())
            while True:
                try:
                    s = next(it)
                except StopIteration:
                    break
                yield tag, s
                n += 1
                if n >= args.max_samples:
                    break
        except Exception as e:  # noqa: BLE001 - a broken OpInfo generator is reported, not fatal
            yield tag, e


def run_op(op, args, stats):
    key = op_key(op)
    variants = variants_of(op)
    rec = stats.setdefault(key, {"name": op.name, "pass": 0, "fail": 0, "skip": 0, "failures": [], "texts_differ": 0, "variants": [v[0] for v in variants]})
    if not variants:
        rec["skip"] += 1
        rec["failures"].append(("untranslatable", "OpInfo's op is a wrapper of its own (no torch function or method of this name)", ""))
        return
    check_values = op.name not in VALUES_UNCHECKED
    dts = op.supported_dtypes("cpu")
    for dtype in DTYPES:
        if dtype not in dts:
            continue
        torch.manual_seed(0)
        for tag, sample in samples_for(op, dtype, args):
            if isinstance(sample, Exception):
                rec["skip"] += 1
                continue
            for vname, tmake, cmake in variants:
                try:
                    t_in = sample.input
                    c_in = to_c(t_in)
                    c_args = to_c(tuple(sample.args))
                    c_kwargs = to_c(dict(sample.kwargs))
                except Unconvertible:
                    rec["skip"] += 1
                    continue
                if vname in ("function", "wrapper"):

                    def tf(t_in=t_in, s=sample):
                        return tmake(t_in)(t_in, *s.args, **s.kwargs)

                    def cf(c_in=c_in):
                        return cmake(c_in)(c_in, *c_args, **c_kwargs)

                elif vname == "method":
                    if not isinstance(t_in, torch.Tensor):
                        continue

                    def tf(t_in=t_in, s=sample):
                        return tmake(t_in)(*s.args, **s.kwargs)

                    def cf(c_in=c_in):
                        return cmake(c_in)(*c_args, **c_kwargs)

                else:  # inplace: on copies, compare the result and self afterwards
                    if not isinstance(t_in, torch.Tensor):
                        continue
                    t_self = t_in.clone()
                    c_self = tensor_to_c(t_self)  # the same layout as torch's copy

                    def tf(t_self=t_self, s=sample):
                        r = tmake(t_self)(*s.args, **s.kwargs)
                        return (r is t_self, t_self)

                    def cf(c_self=c_self):
                        r = cmake(c_self)(*c_args, **c_kwargs)
                        return (r is c_self, c_self)

                try:
                    out = call_both(tf, cf, check_values)
                except Unconvertible:
                    rec["skip"] += 1
                    continue
                if out.status == "pass":
                    rec["pass"] += 1
                    if out.kind == "raises-other-text":
                        rec["texts_differ"] += 1
                        if args.verbose:
                            print(f"  [text] {key} {vname} {DTYPE_NAME[dtype]}: {out.detail}")
                else:
                    rec["fail"] += 1
                    where = f"{vname} {DTYPE_NAME[dtype]} {tag}"
                    rec["failures"].append((out.kind, out.detail, where + " " + sample_summary(sample)))
    if not args.quick:
        run_errors(op, args, rec, variants)


def run_errors(op, args, rec, variants):
    """error_inputs: torch raises `error_type`; _C must raise the same class."""
    fn = [v for v in variants if v[0] in ("function", "wrapper")] or [v for v in variants if v[0] == "method"]
    if not fn or op.error_inputs_func is None:
        return
    vname, tmake, cmake = fn[0]
    try:
        errs = list(op.error_inputs("cpu"))[: args.max_samples]
    except Exception:  # noqa: BLE001
        return
    global _ALIASING
    for ei in errs:
        s = ei.sample_input
        _ALIASING = ({}, {})  # error inputs keep their aliasing (out= overlap checks)
        try:
            c_in = to_c(s.input)
            c_args = to_c(tuple(s.args))
            c_kwargs = to_c(dict(s.kwargs))
        except Unconvertible:
            rec["skip"] += 1
            continue
        finally:
            _ALIASING = None
        if vname in ("function", "wrapper"):

            def tf(s=s):
                return tmake(s.input)(s.input, *s.args, **s.kwargs)

            def cf(c_in=c_in, c_args=c_args, c_kwargs=c_kwargs):
                return cmake(c_in)(c_in, *c_args, **c_kwargs)

        else:
            if not isinstance(s.input, torch.Tensor):
                continue

            def tf(s=s):
                return tmake(s.input)(*s.args, **s.kwargs)

            def cf(c_in=c_in, c_args=c_args, c_kwargs=c_kwargs):
                return cmake(c_in)(*c_args, **c_kwargs)

        try:
            out = call_both(tf, cf, True, error_regex=ei.error_regex)
        except Unconvertible:
            rec["skip"] += 1
            continue
        if out.status == "pass":
            rec["pass"] += 1
            if out.kind == "raises-other-text":
                rec["texts_differ"] += 1
        else:
            rec["fail"] += 1
            rec["failures"].append((out.kind, out.detail, f"error_inputs {vname} " + sample_summary(s)))


def describe(v):
    if isinstance(v, torch.Tensor):
        nc = "" if v.is_contiguous() else f" strides={tuple(v.stride())}"
        return f"T{tuple(v.shape)}:{DTYPE_NAME.get(v.dtype, v.dtype)}{nc}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(describe(e) for e in v[:4]) + (", ..." if len(v) > 4 else "")
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={describe(e)}" for k, e in v.items()) + "}"
    return repr(v)[:40]


def sample_summary(s):
    return f"input={describe(s.input)} args={describe(tuple(s.args))} kwargs={describe(dict(s.kwargs))}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--ops", default="")
    p.add_argument("--max-samples", type=int, default=None)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--print-unlisted", action="store_true")
    p.add_argument("--strict", action="store_true")
    args = p.parse_args(argv)
    if args.max_samples is None:
        args.max_samples = 8 if args.quick else 64

    t0 = time.time()
    from torch.testing._internal.common_methods_invocations import op_db

    print(f"conformance: torch {torch.__version__}, _C {getattr(_C, '__file__', '?')}; OpInfo: {len(op_db)} entries ({time.time() - t0:.0f} s to import)")
    torch.set_num_threads(1)
    # _C on one thread too: torch's kernel choice may depend on its thread count (bilinear
    # interpolation of 3 channels: Note [Source indices in float32]), which _C mirrors with its own.
    _C.set_num_threads(1)
    only = {o for o in args.ops.split(",") if o}
    scope = [op for op in op_db if in_scope(op)]
    names_in_scope = sorted({op.name for op in scope})
    names_present = sorted({op.name for op in scope if present(op)})
    absent = sorted(set(names_in_scope) - set(names_present))
    print(f"coverage: {len(names_present)} of {len(names_in_scope)} OpInfo names in scope present in _C ({100.0 * len(names_present) / max(1, len(names_in_scope)):.1f}%)")
    print("absent: " + " ".join(absent))

    entries = load_expected(EXPECTED_FILE)
    stats = {}
    for op in scope:
        if op.name not in names_present:
            continue
        if only and op.name not in only and op_key(op) not in only:
            continue
        t1 = time.time()
        try:
            run_op(op, args, stats)
        except Exception:  # noqa: BLE001 - a harness error in one op is reported, the run goes on
            rec = stats.setdefault(op_key(op), {"name": op.name, "pass": 0, "fail": 0, "skip": 0, "failures": [], "texts_differ": 0, "variants": []})
            rec["fail"] += 1
            rec["failures"].append(("harness", traceback.format_exc().splitlines()[-1], ""))
        stats[op_key(op)]["seconds"] = time.time() - t1

    unlisted = []
    total_pass = total_fail = 0
    print()
    print(f"{'op':32} {'variants':26} {'pass':>6} {'fail':>6} {'skip':>6} {'rate':>7}  texts-differ")
    for key in sorted(stats):
        r = stats[key]
        n = r["pass"] + r["fail"]
        rate = f"{100.0 * r['pass'] / n:.1f}%" if n else "-"
        total_pass += r["pass"]
        total_fail += r["fail"]
        print(f"{key:32} {','.join(r['variants']):26} {r['pass']:6} {r['fail']:6} {r['skip']:6} {rate:>7}  {r['texts_differ']}")
        kinds_seen = {}
        for kind, detail, where in r["failures"]:
            e = covered(entries, key, r["name"], kind)
            if e is None:
                unlisted.append((key, kind, detail, where))
            kinds_seen.setdefault(kind, (detail, where, e))
        for kind, (detail, where, e) in kinds_seen.items():
            tag = "expected" if e else "UNEXPECTED"
            print(f"    {tag} {kind}: {detail[:200]}")
            if args.verbose:
                print(f"        at {where[:300]}")
    n = total_pass + total_fail
    print()
    print(f"cases: {total_pass} passed, {total_fail} failed ({100.0 * total_pass / max(1, n):.1f}%); {len(stats)} OpInfo entries run; {time.time() - t0:.0f} s")
    stale = [e for e in entries if e["hits"] == 0 and (not only or e["op"] in only)]
    if stale:
        print("stale expected-differences entries (match no failure):")
        for e in stale:
            print(f"    line {e['line']}: {e['op']} {e['kind']}")
    if unlisted:
        print(f"{len(unlisted)} failures not in expected_differences.txt:")
        seen = set()
        for key, kind, detail, where in unlisted:
            if (key, kind) in seen and not args.verbose:
                continue
            seen.add((key, kind))
            print(f"    {key} {kind}: {detail[:240]}\n        at {where[:240]}")
        if args.print_unlisted:
            print("\n# lines for expected_differences.txt:")
            for key, kind in sorted(seen):
                print(f"{key} {kind} TODO")
        return 1
    if stale and args.strict:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
