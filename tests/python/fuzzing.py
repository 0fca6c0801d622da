"""tests/python/fuzzing.py: generated calls over every public callable of ``_C`` — the machinery
behind tests/python/test_fuzz_calls.py and ``make fuzz``.

What it does:

- **Enumerates the targets from the module itself** (`targets()`): every callable attribute of
  the extension ``_C._C`` (public functions and ``_rebuild_tensor``) and of its submodules
  ``_C._nn``, ``_C._linalg``, ``_C._special``, every attribute
  ``_C.Tensor`` defines itself (methods, operator dunders such as ``__add__``/``__getitem__``/
  ``__setitem__``/``__iadd__``, properties such as ``shape`` and ``grad`` read, written and
  deleted, the constructor), ``_C.Generator``'s methods and property, the ``_C.dtype`` singletons'
  methods and the named-tuple types of ``_C.return_types``. A new op is covered without a change
  here. Left out, each for a stated reason (`EXCLUDED`): hooks that start threads or change the
  process-wide thread count.
- **Reads each target's parameters** from its docstring's "Signatures (tried in this order)"
  block (types and keyword names: ``add(Tensor input, Tensor other, *, Scalar alpha=1, ...)``), else
  from ``__text_signature__`` (names only), so generated calls use real keyword names and types and
  get past the parser into the kernels.
- **Generates calls with hypothesis** (`calls()`): per parameter a value of the declared type most
  of the time, else anything from the pool: ints at the edges (0, -1, 2**31, 2**63-1, -2**63, 2**64,
  ...), floats (nan, ±inf, -0.0, subnormals), bools, None, str (lone surrogates, NULs), bytes,
  nested and ragged lists, dtypes, tensors of every dtype (`mk`: zero-size, 0-dim, broadcastable
  shapes; contiguous, transposed, strided, offset and expanded layouts; subclass instances; a
  ``grad`` attached; a few with more than 64K elements so the parallel kernels and the GIL release
  run), generators, slices, and objects that run Python code inside the call: ``Idx`` (an
  ``__index__``), ``IntF`` (an int subclass whose ``__index__``/``__float__`` run code), ``FloatLike``
  (a ``__float__``), ``Del`` (a ``__del__``), ``DelSub`` (a tensor subclass with ``__del__``),
  ``ProtoObj``/``Proto`` (``__tensorbind_function__`` handlers). Their actions (`run_action`) call
  ``gc.collect()``, clear the lists of the same call (dropping the last reference to other
  arguments and reusing the freed memory), resize the call's tensors through ``out=``, replace their
  ``grad``, write into them, or raise. Arguments are also omitted, added, passed twice (positionally
  and by keyword), or passed under wrong keyword names.
- **Checks the outcome** (`run_call`): a result (touched: shape, dtype, strides, values), or one of
  ``ALLOWED`` — TypeError, ValueError, IndexError, RuntimeError, MemoryError, NotImplementedError,
  OverflowError, BufferError (the buffer protocol's and DLPack's error: `out=` resizing a tensor a
  memoryview exports, `__dlpack__` with a stream or device other than the CPU) (and the `FuzzError` an action raises on purpose, or a ``Warning`` when the call
  runs with warnings as errors). Anything else — SystemError, an AttributeError, a message with
  "panic" or "internal error" — is a `Finding`; a crash kills the process.

Every call is one Python expression (its *source*, e.g.
``_C.Tensor.add(mk('float32', (2, 3), 't', 1), 2**63, alpha=nan)``) evaluated in this module's
namespace, so the source reproduces the call: ``python tests/python/fuzzing.py repro "<source>"``.
Before each call its source is appended to the log file (when one is given), so when the process
dies the last line names the call that killed it.

Allocation guard: generated sizes are mostly small, and `memory_limit` caps the address space
(``RLIMIT_AS``) while fuzzing, so a call asking for gigabytes gets MemoryError instead of the
machine's memory.

Command line (used by ``make fuzz`` and by the tests through a subprocess):

    python tests/python/fuzzing.py run [--per-target N] [--seed S] [--seconds T] [--log FILE] [--mem-mb M]
    python tests/python/fuzzing.py loop --seconds T       # `make fuzz`: random seeds until T is up
    python tests/python/fuzzing.py repro "<source>"       # run one call, print its outcome

`run` makes N calls of every target (one hypothesis run per target, seeded from S and the target's
name); `loop` runs rounds of `run` in child processes with the sanitizing environment of
`child_env` and stops at the first crash, hang (a round silent for 5 minutes past its time) or
forbidden outcome, printing the call that was running. Calls that reproduce a known bug being
fixed elsewhere are held back (`known_bug`).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import keyword
import math
import os
import random
import re
import resource
import subprocess
import sys
import time
import warnings
import weakref
import zlib
from collections import Counter
from dataclasses import dataclass, field

import _C
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

nan = math.nan
inf = math.inf

# ---- outcomes ------------------------------------------------------------------------------------


class FuzzError(Exception):
    """Raised on purpose by an action (`run_action`); must reach the caller unchanged."""


ALLOWED = (
    TypeError,
    ValueError,
    IndexError,
    RuntimeError,
    MemoryError,
    NotImplementedError,
    OverflowError,
    BufferError,
    FuzzError,
)
"""The exception types a call may raise (RecursionError is a RuntimeError)."""

FORBIDDEN_TEXT = ("panic", "internal error")
"""Message fragments that mean an internal failure even inside an allowed exception type."""


class Finding(AssertionError):
    """A forbidden outcome: the source of the call and what happened."""

    def __init__(self, source: str, what: str):
        super().__init__(f"{what}\n  call: {source}")
        self.source = source
        self.what = what


# ---- the per-call context the actions work on ------------------------------------------------------


class _Ctx:
    """What the call being run created: its lists (`L`) and, weakly, its tensors (`mk`)."""

    def __init__(self) -> None:
        self.lists: list[list] = []
        self.tensors: list[weakref.ref] = []
        self.busy = False  # an action is running: nested actions do nothing

    def reset(self) -> None:
        self.lists = []
        self.tensors = []


CTX = _Ctx()


def run_action(action: str) -> None:
    """Run Python code inside a call: what `Idx`, `IntF`, `FloatLike`, `Del` and the protocol
    handlers do when the binding calls into them."""
    if CTX.busy:
        return
    CTX.busy = True
    try:
        if action == "gc":
            gc.collect()
        elif action == "clear":
            # Drop the call's lists' items (often the last references to them), then allocate
            # tuples of the freed size so a dangling pointer would read another object.
            for lst in CTX.lists:
                lst.clear()
            junk = [(i, i, i, i) for i in range(300)]
            del junk
        elif action in ("resize", "grad", "write"):
            for ref in list(CTX.tensors):
                t = ref()
                if t is None:
                    continue
                try:
                    if action == "resize":
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            _C.add(_C.zeros(5, 7, dtype=t.dtype), 1, out=t)
                    elif action == "grad":
                        t.grad = None if t.grad is not None else _C.zeros(t.shape, dtype=t.dtype)
                    else:
                        t.fill_(1)
                except Exception:
                    pass
        elif action == "raise":
            raise FuzzError("raised by a fuzz object")
    finally:
        CTX.busy = False


ACTIONS = ("gc", "clear", "resize", "grad", "write", "raise")


class Idx:
    """An object with ``__index__`` (an int to the parser) that runs `run_action` first."""

    def __init__(self, value: int, action: str):
        self.value, self.action = value, action

    def __index__(self) -> int:
        run_action(self.action)
        return self.value

    def __repr__(self) -> str:
        return f"Idx({self.value!r}, {self.action!r})"


class IntF(int):
    """An int subclass whose ``__index__``, ``__int__`` and ``__float__`` run `run_action`."""

    def __new__(cls, value: int, action: str):
        self = super().__new__(cls, value)
        self.action = action
        return self

    def __index__(self) -> int:
        run_action(self.action)
        return int.__int__(self)

    def __int__(self) -> int:
        run_action(self.action)
        return int.__int__(self)

    def __float__(self) -> float:
        run_action(self.action)
        return int.__float__(self)

    def __repr__(self) -> str:
        return f"IntF({int.__repr__(self)}, {self.action!r})"


class FloatLike:
    """Not a number, but with ``__float__`` (and no ``__index__``) that runs `run_action`."""

    def __init__(self, value: float, action: str):
        self.value, self.action = value, action

    def __float__(self) -> float:
        run_action(self.action)
        return self.value

    def __repr__(self) -> str:
        return f"FloatLike({self.value!r}, {self.action!r})"


class Del:
    """An object whose ``__del__`` runs `run_action` (never 'raise': that would be unraisable)."""

    def __init__(self, action: str):
        self.action = action

    def __del__(self) -> None:
        run_action(self.action)

    def __repr__(self) -> str:
        return f"Del({self.action!r})"


class Sub(_C.Tensor):
    """A plain subclass (has a ``__dict__``)."""


class SlotSub(_C.Tensor):
    """A subclass with ``__slots__``."""

    __slots__ = ("a", "b")


class DelSub(_C.Tensor):
    """A subclass whose instances run Python code when they die: read their own shape, and every
    64th one a full collection (every one would make dropping a 64K-view `unbind` quadratic)."""

    deaths = 0

    def __del__(self) -> None:
        _ = self.shape
        DelSub.deaths += 1
        if DelSub.deaths % 64 == 0:
            run_action("gc")


class Proto(_C.Tensor):
    """A subclass with its own ``__tensorbind_function__`` that runs an action, then defers."""

    @classmethod
    def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
        run_action("clear")
        return super().__tensorbind_function__(func, types, args, kwargs or {})


class ProtoObj:
    """Not a tensor, but takes part in the override protocol: its handler runs an action and
    returns a marker string instead of calling the function."""

    @classmethod
    def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
        run_action("gc")
        return "ProtoObj"

    def __repr__(self) -> str:
        return "ProtoObj()"


class ProtoNo:
    """Takes part in the override protocol and always declines (NotImplemented)."""

    @classmethod
    def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
        run_action("clear")
        return NotImplemented

    def __repr__(self) -> str:
        return "ProtoNo()"


SUBCLASSES = {"Sub": Sub, "SlotSub": SlotSub, "DelSub": DelSub, "Proto": Proto}


def L(items: list) -> list:
    """A list argument registered with the call, so a 'clear' action can empty it mid-call."""
    CTX.lists.append(items)
    return items


# ---- tensors -------------------------------------------------------------------------------------

DTYPE_NAMES = ("float32", "int64", "bool", "uint8", "int8", "int16", "int32", "float64")

_VALUES = {
    "bool": [True, False, True, True, False],
    "uint8": [1, 0, 255, 2, 7, 128],
    "int8": [1, -2, 0, 127, -128, 3, -1],
    "int16": [1, -2, 0, 32767, -32768, 5],
    "int32": [1, -2, 0, 2**31 - 1, -(2**31), 9],
    "int64": [1, -2, 0, 2**63 - 1, -(2**63), 4, -1],
    "float32": [1.5, -2.0, 0.0, nan, inf, -inf, -0.0, 3.0, 1e30, 0.25, 1e-40],
    "float64": [1.5, -2.0, 0.0, nan, inf, -inf, -0.0, 3.0, 1e300, 0.25, 5e-324],
}
_SMALL = [0, 1, 2, 1, 0, 2, 1]  # index-like values, so gather/index_select/take get deep


def _values(dtype: str, n: int, fill: int) -> list:
    if fill % 2 == 0:  # small non-negative values (valid indices, counts, probabilities)
        vals = [v != 0 for v in _SMALL] if dtype == "bool" else _SMALL
        if dtype.startswith("float"):
            vals = [v / 2 for v in vals]
    else:
        vals = _VALUES[dtype]
    k = fill // 2
    return [vals[(i + k) % len(vals)] for i in range(n)]


def mk(dtype: str, shape: tuple, layout: str = "c", fill: int = 0, cls: str | None = None, grad: bool = False):
    """A tensor of `dtype` and `shape` built deterministically: `layout` 'c' contiguous, 't' all
    dims reversed (non-contiguous), 's' every other element of the last dim, 'o' a view at a
    storage offset, 'e' expanded from size 1 in dim 0; `fill` picks the values (even: small
    non-negative, odd: edge values such as nan, inf and the integer extremes); `cls` a subclass
    name (`SUBCLASSES`); `grad` attaches a ``grad``. Registered weakly with the current call."""
    shape = tuple(shape)
    n = math.prod(shape)
    dt = getattr(_C, dtype)

    def base(sizes):
        m = math.prod(sizes)
        if m > 4096:  # big ones: no Python list of 64K items
            t = _C.arange(m, dtype=_C.int64).remainder(7).to(dt)
        else:
            t = _C.tensor(_values(dtype, m, fill), dtype=dt)
        return t.reshape(sizes)

    if layout == "t" and len(shape) >= 2:
        t = base(shape[::-1]).permute(list(range(len(shape)))[::-1])
    elif layout == "s" and len(shape) >= 1:
        t = base(shape[:-1] + (2 * shape[-1],))[..., ::2]
    elif layout == "o":
        t = base((n + 1,))[1:].reshape(shape)
    elif layout == "e" and len(shape) >= 1:
        t = base((1,) + shape[1:]).expand(shape)
    else:
        t = base(shape)
    if cls is not None:
        t = t.as_subclass(SUBCLASSES[cls])
    if grad:
        t.grad = _C.ones(t.shape, dtype=dt)
    CTX.tensors.append(weakref.ref(t))
    return t


def G(seed: int | None = None):
    """A fresh `_C.Generator` (seeded when `seed` is given)."""
    return _C.Generator() if seed is None else _C.Generator(seed)


# ---- targets -------------------------------------------------------------------------------------

EXCLUDED = {
    "_hold_in_thread": "starts a Rust thread that holds a tensor for up to 60 s",
    "set_num_threads": "changes the process-wide thread count (tested in test_num_threads.py)",
    "_set_anomaly_enabled": "changes the process-wide anomaly mode, which the rest of the suite would run under (tested in test_autograd_hooks.py)",
    "_TensorMeta": "the metaclass: calling it defines classes, not a tensor operation",
    "_testing_pause_next_unlocked": "test hook: pauses the next released-GIL call until resumed",
    "_testing_paused": "test hook of _testing_pause_next_unlocked",
    "_testing_resume": "test hook of _testing_pause_next_unlocked",
    "_testing_panic_in_worker": "test hook: panics on purpose (tested in test_runtime.py)",
    "_testing_panic_in_thread": "test hook: panics on purpose outside the trampoline",
    "_testing_touch_without_gil": "test hook: aborts the process on purpose in debug builds",
}


@dataclass(frozen=True)
class Param:
    """One parameter of a signature: name, schema type ('' when unknown), keyword-only, optional."""

    name: str
    type: str
    kwonly: bool
    optional: bool


@dataclass
class Target:
    """A callable to fuzz: `source` is the expression naming it; `kind` is 'function', 'method'
    (self first), 'get'/'set'/'del' (an attribute of a tensor) or 'call' (a constructor)."""

    name: str
    source: str
    kind: str
    sigs: list[list[Param]] = field(default_factory=list)


_SIG_LINE = re.compile(r"^(\w+)\((.*)\)\s*->")

# The Python types the docstrings' typed signature lines use, as the schema types the value
# strategies below are keyed by (build/signature.rs renders the schema types as these).
_PY_TYPES = {
    "Tensor": "Tensor",
    "Tensor | Number": "Tensor",
    "Number": "Scalar",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "dtype": "ScalarType",
    "Generator": "Generator",
    "Sequence[int]": "int[]",
    "int | Sequence[int]": "int[]",
    "Sequence[Tensor]": "Tensor[]",
    "object": "PyObject*",
}


def _schema_type(py: str) -> str:
    """The schema type of a rendered Python type ('' when unknown); `X | None` is `X?`."""
    optional = py.endswith(" | None")
    base = _PY_TYPES.get(py[: -len(" | None")] if optional else py, "")
    return base + "?" if base and optional else base


def _split_params(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_signatures(obj, drop_self: bool) -> list[list[Param]]:
    """The parameter lists of `obj`: from its docstring's typed signature block when it has one
    (generated ops), else from ``__text_signature__`` (names only)."""
    doc = getattr(obj, "__doc__", None) or ""
    sigs = []
    # The typed signature lines open the docstring, one per overload, in the order tried.
    for line in doc.splitlines():
        m = _SIG_LINE.match(line)
        if not m:
            break
        params, kwonly = [], False
        for p in _split_params(m.group(2)):
            if p == "*":
                kwonly = True
                continue
            if p in ("/", "self"):
                continue
            decl, _, default = p.partition(" = ")
            name, _, py = decl.partition(":")
            if not py:
                continue
            typ = _schema_type(py.strip())
            params.append(Param(name.strip(), typ, kwonly, bool(default) or typ.endswith("?")))
        sigs.append(params)
    if sigs:
        return sigs
    text = getattr(obj, "__text_signature__", None)
    if text:
        params, kwonly = [], False
        for p in _split_params(text.strip()[1:-1]):
            if p.startswith("$") or p == "/":
                continue
            if p == "*":
                kwonly = True
                continue
            if p.startswith("*"):  # *args, **kwargs: no names known
                continue
            name, _, default = p.partition("=")
            params.append(Param(name.strip(), "", kwonly, bool(default)))
        return [params]
    return [[]]


def _writable(name: str) -> bool:
    """True when `name` (an attribute of `_C.Tensor`) can be assigned (it has a setter)."""
    t = _C.zeros(1, 1)  # 2-D: `H` and `mT` raise on fewer dims
    try:
        setattr(t, name, getattr(t, name))
    except AttributeError:
        return False
    return True


def targets() -> list[Target]:
    """Every callable of `_C` this fuzzer calls, read from the module (see the module docstring)."""
    ext = _C._C
    out: list[Target] = []
    for name in sorted(vars(ext)):
        obj = getattr(ext, name)
        if name.startswith("__") or name in EXCLUDED or isinstance(obj, type) or not callable(obj):
            continue
        out.append(Target(f"_C.{name}", f"_C._C.{name}", "function", parse_signatures(obj, False)))
    # The functions of the submodules `_C._nn`, `_C._linalg`, `_C._special` (torch's
    # `torch._C._nn`, ...).
    for sub in ("_nn", "_linalg", "_special"):
        mod = getattr(ext, sub)
        for name in sorted(vars(mod)):
            obj = getattr(mod, name)
            if name.startswith("__") or not callable(obj):
                continue
            out.append(Target(f"_C.{sub}.{name}", f"_C._C.{sub}.{name}", "function", parse_signatures(obj, False)))
    out.append(Target("_C.Tensor()", "_C.Tensor", "call", [[Param("data", "", False, True)]]))
    for name, desc in sorted(vars(_C.Tensor).items()):
        if name in ("__doc__", "__new__", "__init_subclass__"):
            continue
        if type(desc).__name__ == "getset_descriptor":
            out.append(Target(f"Tensor.{name} (get)", name, "get"))
            if _writable(name):
                out.append(Target(f"Tensor.{name} (set)", name, "set", [[Param("value", "", False, False)]]))
                out.append(Target(f"Tensor.{name} (del)", name, "del"))
            continue
        if name == "__tensorbind_function__":
            sig = [Param("func", "func", False, False), Param("types", "types", False, False),
                   Param("args", "args", False, True), Param("kwargs", "kwargs", False, True)]
            out.append(Target(f"Tensor.{name}", f"_C.Tensor.{name}", "function", [sig]))
            continue
        if callable(desc):
            out.append(Target(f"Tensor.{name}", f"_C.Tensor.{name}", "method", parse_signatures(desc, True)))
    out.append(Target("_C.Generator()", "_C.Generator", "call", [[Param("seed", "int", False, True)]]))
    for name, desc in sorted(vars(_C.Generator).items()):
        if name.startswith("__"):
            continue
        if type(desc).__name__ == "getset_descriptor":
            out.append(Target(f"Generator.{name} (get)", f"G(1).{name}", "attr"))
        elif callable(desc):
            for self_src in ("G(1)", "_C.default_generator"):
                out.append(Target(f"Generator.{name} on {self_src}", f"{self_src}.{name}", "function",
                                  parse_signatures(desc, True)))
    for name, desc in sorted(vars(type(_C.float32)).items()):
        if name.startswith("__") and name != "__reduce__":
            continue
        if callable(desc):
            out.append(Target(f"dtype.{name}", f"_C.int16.{name}", "function", parse_signatures(desc, True)))
        else:
            out.append(Target(f"dtype.{name} (get)", f"_C.int16.{name}", "attr"))
    for name in sorted(vars(_C.return_types)):
        rt = getattr(_C.return_types, name)
        if isinstance(rt, type):
            out.append(Target(f"return_types.{name}()", f"_C.return_types.{name}", "call",
                              [[Param("sequence", "Tensor[]", False, False)]]))
    return out


# ---- value strategies (each draws the *source* of an argument) -------------------------------------

INT_EDGES = ["0", "-1", "1", "2", "3", "-2", "2**31", "2**31-1", "-2**31", "2**63-1", "-2**63",
             "2**64", "-2**64", "10**30", "True", "False"]
SMALL_INTS = ["0", "1", "2", "3", "-1", "-2", "4"]
FLOATS = ["0.0", "-0.0", "0.5", "1.5", "-2.5", "nan", "inf", "-inf", "1e308", "5e-324", "1e-10", "2.0"]
STRS = ["''", "'floor'", "'trunc'", "'ij,jk->ik'", "'ii->i'", "'i,i->'", "'...ij->...ji'", "'ij->'",
        "'i->'", "'ij,jk'", "'bad'", "'\\x00'", "'\\ud800'", "'a'*300", "'->'", "'ii'", "'...'",
        "'i...->...'", "'ab,bc->ac'", "'ij,ij->ij'"]
BYTES = ["b''", "b'abc'", "bytes(16)", "bytes(29)", "bytes(40)", "bytes(range(200))"]
DTYPES = [f"_C.{n}" for n in DTYPE_NAMES] + ["float", "int", "bool", "'float32'"]
SHAPES = [(2, 3), (), (0,), (1,), (3,), (3, 1), (1, 3), (2, 0), (2, 1, 3), (1, 1, 1, 1), (4, 4), (3, 3), (2, 2, 2)]
BIG_SHAPES = [(257, 256), (65537,), (300, 1)]
LAYOUTS = ["c", "c", "c", "t", "s", "o", "e"]
ACTION_OBJECTS = [f"Idx(1, {a!r})" for a in ACTIONS] + [f"IntF(2, {a!r})" for a in ACTIONS] + \
                 [f"FloatLike(1.5, {a!r})" for a in ACTIONS] + [f"Del({a!r})" for a in ACTIONS if a != "raise"]


@functools.lru_cache(maxsize=None)
def _choice_cached(options: tuple):
    return st.sampled_from(options)


def _choice(options):
    """`st.sampled_from`, built once per option list (building strategies is what costs)."""
    return _choice_cached(tuple(options))


@functools.lru_cache(maxsize=None)
def _ints(lo: int, hi: int):
    """`st.integers(lo, hi)`, built once."""
    return st.integers(lo, hi)


def _weighted(*pairs: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """Pick a strategy with the given weights. (`st.one_of` merges repeated branches, so it
    cannot weight; and hypothesis's integer draws favour 0 and the top of the range, so the first
    pair, the common case, is laid out at both ends and the rarer ones in the middle.)"""
    (w0, s0), rest = pairs[0], pairs[1:]
    layout = [s0] * (w0 - w0 // 2) + [s for w, s in rest for _ in range(w)] + [s0] * (w0 // 2)

    @st.composite
    def pick(draw):
        return draw(layout[draw(_ints(0, len(layout) - 1))])

    return pick()


@functools.lru_cache(maxsize=None)
def tensors(big: bool = True) -> st.SearchStrategy[str]:
    """The source of a tensor argument (`mk(...)`); `big` allows shapes over 64K elements."""
    return _tensors(big)


@st.composite
def _tensors(draw, big: bool = True) -> str:
    """The source of a tensor argument (`mk(...)`)."""
    dtype = draw(_choice(DTYPE_NAMES))
    if big and draw(_ints(0, 60)) == 31:
        shape = draw(_choice(BIG_SHAPES))
    else:
        shape = draw(_choice(SHAPES))
    layout = draw(_choice(LAYOUTS))
    fill = draw(_ints(0, 5))
    extra = draw(_ints(0, 19))
    cls = [None] * 16 + list(SUBCLASSES)
    args = f"{dtype!r}, {shape!r}, {layout!r}, {fill}"
    if cls[extra] is not None:
        args += f", cls={cls[extra]!r}"
    if extra == 9 and layout == "c":
        args += ", grad=True"
    return f"mk({args})"


@functools.lru_cache(maxsize=None)
def int_lists() -> st.SearchStrategy[str]:
    small = _choice(SMALL_INTS)
    item = _weighted((6, small), (1, _choice(INT_EDGES)), (1, _choice(ACTION_OBJECTS[:12])))
    return _weighted(
        (6, st.lists(small, max_size=4).map(lambda xs: f"({', '.join(xs)}{',' if len(xs) == 1 else ''})")),
        (2, st.lists(item, max_size=4).map(lambda xs: f"L([{', '.join(xs)}])")),
        (2, small),
        (1, _choice(["L([[1, 2]])", "L([1.5])", "'12'", "(i for i in (1, 2))", "mk('int64', (2,), 'c', 0)",
                 "L([mk('int64', (), 'c', 2)])", "range(3)"])),
    )


@functools.lru_cache(maxsize=None)
def tensor_lists() -> st.SearchStrategy[str]:
    """A list or tuple of tensors (with the odd number or junk item)."""
    return _tensor_lists()


@st.composite
def _tensor_lists(draw) -> str:
    items = draw(st.lists(_weighted((8, tensors(big=False)), (1, scalars()), (1, anything_small())),
                          max_size=4))
    body = ", ".join(items)
    if draw(st.booleans()):
        return f"L([{body}])"
    return f"({body}{',' if len(items) == 1 else ''})"


@functools.lru_cache(maxsize=None)
def scalars() -> st.SearchStrategy[str]:
    return st.one_of(_choice(SMALL_INTS), _choice(INT_EDGES), _choice(FLOATS), _choice(["True", "False"]),
                     _choice(ACTION_OBJECTS))


@functools.lru_cache(maxsize=None)
def data_objects() -> st.SearchStrategy[str]:
    """`tensor`/`Tensor` data: numbers, nested and ragged lists, tensors, junk."""
    leaf = st.one_of(_choice(SMALL_INTS), _choice(INT_EDGES), _choice(FLOATS), _choice(["True", "None", "'a'"]),
                     _choice(ACTION_OBJECTS[:12]))
    nested = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3).map(lambda xs: f"L([{', '.join(xs)}])"),
                          max_leaves=8)
    return st.one_of(nested, tensors(big=False),
                     _choice(["L([[1, 2], [3]])", "L([[1, 2], 3])", "L([mk('float32', (2,), 'c', 0), 1.0])",
                              "L([[]])", "((1, 2), (3, 4))", "L([L([1]), L([L([2])])])", "[[[[[[[[1]]]]]]]]",
                              "[1] * 70000", "bytes(3)", "{1: 2}", "range(4)", "L([mk('int64', (), 'c', 1)] * 3)"]))


@functools.lru_cache(maxsize=None)
def index_keys() -> st.SearchStrategy[str]:
    """`t[key]` keys: ints, slices, None, Ellipsis, bools, index tensors, masks, lists, tuples."""
    bound = st.one_of(_choice(["None", "0", "1", "-1", "2", "-5", "2**63", "-2**64"]), _choice(ACTION_OBJECTS[:12]))
    sl = st.tuples(bound, bound, st.one_of(_choice(["None", "1", "2", "0", "-1"]), bound)).map(
        lambda b: f"slice({b[0]}, {b[1]}, {b[2]})")
    one = st.one_of(_choice(SMALL_INTS), _choice(INT_EDGES), sl,
                    _choice(["None", "...", "True", "False", "L([0, 1])", "L([True, False])", "L([])",
                             "L([[0, 1], [1, 0]])", "'a'", "1.5", "L([0, 2**64])"]),
                    tensors(big=False), _choice(ACTION_OBJECTS[:12]))
    return st.one_of(one, st.lists(one, max_size=4).map(lambda xs: f"({', '.join(xs)}{',' if len(xs) == 1 else ''})"))


@functools.lru_cache(maxsize=None)
def anything_small() -> st.SearchStrategy[str]:
    return _choice(["None", "...", "0", "-1", "2**64", "nan", "'x'", "b'x'", "L([])", "object()", "{}", "set()",
                    "_C.float32", "G(3)", "slice(1, 2)", "Del('gc')", "ProtoObj()", "ProtoNo()", "Sub",
                    "_C.Tensor", "int", "L([1, 'a'])", "1j", "FloatLike(1.0, 'gc')", "IntF(1, 'gc')"])


@functools.lru_cache(maxsize=None)
def anything() -> st.SearchStrategy[str]:
    return st.one_of(tensors(), scalars(), anything_small(), int_lists(), _choice(STRS), _choice(BYTES),
                     _choice(DTYPES), tensor_lists())


_BY_TYPE = {
    "Tensor": lambda: _weighted((12, tensors()), (1, scalars())),
    "Scalar": lambda: _weighted((3, scalars()), (1, tensors(big=False))),
    "int": lambda: _weighted((8, _choice(SMALL_INTS)), (2, _choice(INT_EDGES)), (1, _choice(ACTION_OBJECTS[:12])),
                             (1, _choice(["mk('int64', (), 'c', 2)", "1.0", "None"]))),
    "float": lambda: _weighted((6, _choice(FLOATS)), (2, _choice(SMALL_INTS)), (1, _choice(INT_EDGES[:10])),
                               (1, _choice(ACTION_OBJECTS[6:18]))),
    "bool": lambda: st.one_of(_choice(["True", "False", "0", "1", "None", "mk('bool', (), 'c', 0)"])),
    "str": lambda: _choice(STRS),
    "int[]": int_lists,
    "ScalarType": lambda: _choice(DTYPES),
    "Tensor[]": tensor_lists,
    "Generator": lambda: _choice(["G()", "G(0)", "_C.default_generator", "G(2**64 - 1)"]),
    "PyObject*": data_objects,
}
_BY_NAME = {
    "key": index_keys,
    "value": lambda: _weighted((4, scalars()), (4, tensors()), (1, anything_small())),
    "data": data_objects,
    "seed": lambda: st.one_of(_choice(INT_EDGES), _choice(ACTION_OBJECTS[:12]), _choice(["1.5", "None", "'1'"])),
    "new_state": lambda: st.one_of(_choice(BYTES), tensors(big=False),
                                   _choice(["G(5).get_state()", "_C.default_generator.get_state()",
                                            "G(5).get_state()[1:]", "G(5).get_state().to(_C.int64)",
                                            "G(5).get_state().flip(0)"])),
    "cls": lambda: _choice(["_C.Tensor", "Sub", "SlotSub", "DelSub", "Proto", "int", "type", "ProtoObj", "None"]),
    "memo": lambda: _choice(["None", "{}", "[]", "{1: 2}"]),
    "protocol": lambda: _choice(["2", "-1", "None", "'x'", "5"]),
    "shape": int_lists,
    "dtype": lambda: _choice(DTYPES),
    "func": lambda: _choice(["_C.add", "_C.Tensor.add", "_C.cat", "print", "None", "_C.Tensor.__getitem__", "len"]),
    "types": lambda: _choice(["()", "(_C.Tensor,)", "(Sub,)", "L([Sub, int])", "None", "(int,)"]),
    "args": lambda: st.lists(st.one_of(tensors(big=False), scalars()), max_size=3).map(
        lambda xs: f"({', '.join(xs)}{',' if len(xs) == 1 else ''})"),
    "kwargs": lambda: _choice(["None", "{}", "{'alpha': 2}", "{'out': None}", "[]"]),
}


@functools.lru_cache(maxsize=None)
def value_for(p: Param) -> st.SearchStrategy[str]:
    """Mostly a value of `p`'s declared type (or one suited to its name), sometimes anything."""
    typ = p.type.rstrip("?")
    if typ.startswith("int[") and typ != "int[]":
        typ = "int[]"
    if p.name == "out":
        good = tensors()
    elif typ in _BY_TYPE:
        good = _BY_TYPE[typ]()
    elif p.name in _BY_NAME:
        good = _BY_NAME[p.name]()
    elif p.name in ("input", "other", "self", "tensor", "mean", "std", "end", "weight", "exponent"):
        good = _BY_TYPE["Tensor"]()
    else:
        good = anything()
    if p.type.endswith("?"):
        good = _weighted((3, good), (1, st.just("None")))
    return _mostly(good)


def _mostly(good: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """`good` nine times in ten, else anything (an explicit draw: hypothesis's `one_of` leans on
    its first branches)."""

    @st.composite
    def pick(draw):
        return draw(anything()) if draw(_ints(0, 9)) == 5 else draw(good)

    return pick()


_WRONG_NAMES = ["'inpt'", "'self'", "'out'", "'dim'", "'dtype'", "'x'", "''", "'not a name'", "'input'", "'other'",
                "'generator'", "'keepdim'", "'alpha'", "'size'"]


_NOT_SELF = _choice(["3", "None"])


@st.composite
def calls(draw, tgt: Target) -> tuple[str, bool]:
    """One generated call of `tgt`: (its source, whether it runs with warnings as errors)."""
    if tgt.kind in ("get", "del", "attr"):
        if tgt.kind == "attr":
            return tgt.source, False
        obj = draw(tensors(big=False))
        verb = "getattr" if tgt.kind == "get" else "delattr"
        return f"{verb}({obj}, {tgt.source!r})", False
    if tgt.kind == "set":
        obj = draw(tensors(big=False))
        value = draw(_weighted((3, tensors(big=False)), (1, anything())))
        return f"setattr({obj}, {tgt.source!r}, {value})", False
    sig = tgt.sigs[draw(_ints(0, len(tgt.sigs) - 1))]
    pos: list[str] = []
    kw: list[tuple[str, str]] = []
    for p in sig:
        # Hypothesis favours 0 and the bounds of a range: the rare choices sit in the middle.
        r = draw(_ints(0, 99))
        if p.optional and 50 <= r < 95:
            continue  # omitted
        if not p.optional and r == 57:
            continue  # a required argument missing
        by_kw = p.kwonly or bool(kw) or 35 <= r < 50
        if p.kwonly and r == 43:
            by_kw = False  # a keyword-only argument passed positionally
        value = draw(value_for(p))
        if by_kw:
            kw.append((repr(p.name), value))
        else:
            pos.append(value)
    extra = draw(_ints(0, 99))
    if 40 <= extra < 43:
        pos.append(draw(anything()))  # one argument too many
    elif 43 <= extra < 46:
        kw.append((draw(_choice(_WRONG_NAMES)), draw(anything())))  # an unknown (or misplaced) keyword
    elif 46 <= extra < 49 and sig and pos:
        p = sig[min(len(pos), len(sig)) - 1]
        if repr(p.name) not in [k for k, _ in kw]:
            kw.append((repr(p.name), draw(value_for(p))))  # given twice: positionally and by keyword
    if tgt.kind == "method":
        pos.insert(0, draw(_NOT_SELF) if draw(_ints(0, 99)) == 50 else draw(tensors()))
    # Every keyword through one `**{...}` so that any name (and any order) is expressible.
    parts = list(pos)
    # A Python keyword (torch's `from` of `uniform_`/`random_`) cannot be written `from=...`.
    plain = [(k, v) for k, v in kw if k[1:-1].isidentifier() and not keyword.iskeyword(k[1:-1])]
    if len(plain) == len(kw) and len({k for k, _ in kw}) == len(kw):
        parts += [f"{k[1:-1]}={v}" for k, v in kw]
    elif kw:
        parts.append("**{" + ", ".join(f"{k}: {v}" for k, v in kw) + "}")
    warn_error = draw(_ints(0, 19)) == 7
    return f"{tgt.source}({', '.join(parts)})", warn_error


# ---- running calls -------------------------------------------------------------------------------


@dataclass
class Stats:
    """What a run did: calls made, outcomes by kind, calls per target."""

    calls: int = 0
    outcomes: Counter = field(default_factory=Counter)
    per_target: Counter = field(default_factory=Counter)

    def summary(self) -> dict:
        return {"calls": self.calls, "outcomes": dict(self.outcomes), "targets_called": len(self.per_target)}


_CODE_CACHE: dict[str, object] = {}


def _compile(source: str):
    code = _CODE_CACHE.get(source)
    if code is None:
        code = compile(source, "<fuzz call>", "eval")
        if len(_CODE_CACHE) < 20000:
            _CODE_CACHE[source] = code
    return code


def touch(r, depth: int = 0) -> None:
    """Read a result the way a user would (a dangling or corrupt tensor would show here)."""
    if isinstance(r, _C.Tensor):
        _ = (r.shape, r.dtype, r.stride(), r.is_contiguous(), r._base)
        if r.numel() <= 4096:
            r.tolist()
        if r.numel() <= 16:
            repr(r)
    elif isinstance(r, (tuple, list)) and depth < 2:
        for x in r[:16]:
            touch(x, depth + 1)
    elif hasattr(r, "__next__") and depth < 2:
        for _, x in zip(range(64), r):
            touch(x, depth + 1)


class _Log:
    """Appends each call's source to a file before the call runs (line-buffered: it survives a
    crash)."""

    def __init__(self, path: str | None):
        self.f = open(path, "a", buffering=1, encoding="utf-8", errors="backslashreplace") if path else None

    def write(self, line: str) -> None:
        if self.f is not None:
            self.f.write(line.replace("\n", "\\n") + "\n")


def run_call(source: str, warn_error: bool = False, stats: Stats | None = None, log: _Log | None = None,
             target: str = "") -> str:
    """Run one call; returns the outcome's name ('ok' or an allowed exception's type name) or
    raises `Finding`."""
    if log is not None:
        log.write(("[-W error] " if warn_error else "") + source)
    code = _compile(source)
    CTX.reset()
    try:
        if warn_error:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                r = eval(code, globals())
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = eval(code, globals())
        touch(r)
        del r
        outcome = "ok"
    except ALLOWED as e:
        msg = str(e)
        if any(bad in msg.lower() for bad in FORBIDDEN_TEXT):
            raise Finding(source, f"{type(e).__name__} with an internal-error message: {msg}") from e
        outcome = type(e).__name__
    except Warning as e:
        if not warn_error:
            raise Finding(source, f"a warning escaped as an exception: {e!r}") from e
        outcome = "Warning"
    except Exception as e:
        raise Finding(source, f"{type(e).__name__}: {e}") from e
    finally:
        CTX.reset()
    if stats is not None:
        stats.calls += 1
        stats.outcomes[outcome] += 1
        stats.per_target[target or source.split("(", 1)[0]] += 1
    return outcome


class memory_limit:
    """Context manager: cap the address space (``RLIMIT_AS``) at the current size plus `mb` MiB,
    so that a call asking for gigabytes raises MemoryError; restores the old limit on exit."""

    def __init__(self, mb: int):
        self.mb = mb

    def __enter__(self):
        self.old = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as f:
            vsize = int(f.read().split()[0]) * resource.getpagesize()
        limit = vsize + self.mb * 2**20
        hard = self.old[1]
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        return self

    def __exit__(self, *exc):
        resource.setrlimit(resource.RLIMIT_AS, self.old)
        return False


def known_bug(source: str) -> str | None:
    """Why a generated call is held back, or None. A call that reproduces a known, reported bug
    whose fix is in progress elsewhere would make every run fail on the same bug; such calls are
    skipped (and counted) unless ``FUZZ_KNOWN_BUGS=1`` is set. Each entry names its regression
    test; remove the entry when the fix lands."""
    if os.environ.get("FUZZ_KNOWN_BUGS") == "1":
        return None
    # No known bug is held back at present. (Issue 9 bug 3, the override protocol's borrowed list
    # items, was here until its fix landed: test_object_safety.py and test_fuzz_calls.py.)
    return None


def generate(per_target: int, seed: int = 0, only: list[str] | None = None) -> list[tuple[str, str, bool]]:
    """The calls `fuzz` would make, without making them: ``(target name, source, warn_error)``.
    (The refleak run replays such a list: hypothesis's own bookkeeping grows a little with every
    `@given` run, which the reference-count check would take for a leak.)"""
    out: list[tuple[str, str, bool]] = []
    tgts = targets()
    if only:
        tgts = [t for t in tgts if any(o in t.name for o in only)]
    cfg = settings(max_examples=per_target, database=None, deadline=None,
                   suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    for tgt in tgts:

        @cfg
        @given(calls(tgt))
        def body(call):
            if known_bug(call[0]) is None:
                out.append((tgt.name, call[0], call[1]))

        hypothesis_seed(seed * 1_000_003 + zlib.crc32(tgt.name.encode()))(body)()
    return out


def fuzz(per_target: int, seed: int = 0, log_path: str | None = None, deadline: float | None = None,
         only: list[str] | None = None) -> Stats:
    """Make `per_target` generated calls of every target (one hypothesis run per target, seeded
    from `seed` and the target's name, so a run is reproducible and every target is called),
    stopping early at `deadline` (a `time.monotonic()` value). Raises `Finding` on the first
    forbidden outcome, after hypothesis has shrunk it to a smaller call."""
    tgts = targets()
    if only:
        tgts = [t for t in tgts if any(o in t.name for o in only)]
    stats = Stats()
    log = _Log(log_path)
    cfg = settings(max_examples=per_target, database=None, deadline=None,
                   suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                   report_multiple_bugs=False)
    for tgt in tgts:
        if deadline is not None and time.monotonic() > deadline:
            break

        @cfg
        @given(calls(tgt))
        def body(call):
            if deadline is not None and time.monotonic() > deadline:
                return
            if known_bug(call[0]) is not None:
                stats.outcomes["skipped: known bug"] += 1
                return
            run_call(call[0], call[1], stats, log, tgt.name)

        hypothesis_seed(seed * 1_000_003 + zlib.crc32(tgt.name.encode()))(body)()
    gc.collect()
    return stats


# ---- command line --------------------------------------------------------------------------------


def _cmd_run(args) -> int:
    deadline = time.monotonic() + args.seconds if args.seconds else None
    t0 = time.monotonic()
    try:
        with memory_limit(args.mem_mb):
            stats = fuzz(args.per_target, args.seed, args.log, deadline, only=args.only)
    except Finding as f:
        print(f"FUZZ FINDING: {f}", flush=True)
        return 1
    s = stats.summary()
    s["seconds"] = round(time.monotonic() - t0, 1)
    s["targets"] = len(targets())
    print("FUZZ SUMMARY " + json.dumps(s), flush=True)
    return 0


def child_env() -> dict:
    """The environment of a fuzz child: CPython's debug allocator hooks (freed objects are
    overwritten with 0xDD, so a use after free reads garbage and fails loudly instead of reading
    stale data), glibc's `MALLOC_PERTURB_` (the same for the Rust heap: freed and fresh blocks are
    filled), and faulthandler (a crash prints the Python stack)."""
    return {**os.environ, "PYTHONMALLOC": "debug", "MALLOC_PERTURB_": "165", "PYTHONFAULTHANDLER": "1"}


def run_subprocess(per_target: int, seed: int, seconds: float | None = None, mem_mb: int = 1024,
                   log_path: str | None = None, timeout: float = 600, only: list[str] | None = None) -> dict:
    """Run `fuzz` in a child process (a crash there cannot take the caller down). Returns
    ``{'rc', 'summary', 'output', 'last_call'}``; `last_call` is the last logged call (the one
    that was running when the child died)."""
    import tempfile

    own_log = log_path is None
    if own_log:
        fd, log_path = tempfile.mkstemp(prefix="fuzz-", suffix=".log")
        os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), "run", "--per-target", str(per_target), "--log", log_path,
           "--mem-mb", str(mem_mb), "--seed", str(seed)]
    if seconds:
        cmd += ["--seconds", str(seconds)]
    for o in only or []:
        cmd += ["--only", o]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env())
        rc, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:  # a hang: the last logged call is the one running
        rc = "timeout"
        partial = e.stdout or ""
        partial = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        output = f"timed out after {timeout} s (a hang)\n" + partial
    with open(log_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if own_log:
        os.unlink(log_path)
    summary = None
    for line in output.splitlines():
        if line.startswith("FUZZ SUMMARY "):
            summary = json.loads(line[len("FUZZ SUMMARY "):])
    return {"rc": rc, "summary": summary, "output": output, "last_call": lines[-1] if lines else None}


def run_subprocess_repro(source: str, mem_mb: int = 1024, timeout: float = 120) -> dict:
    """Run one logged call alone in a fresh child process: ``{'rc', 'output'}`` (does the crash
    depend on the calls before it?)."""
    cmd = [sys.executable, os.path.abspath(__file__), "repro", source, "--mem-mb", str(mem_mb)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env())
    return {"rc": proc.returncode, "output": proc.stdout + proc.stderr}


def _cmd_loop(args) -> int:
    """`make fuzz`: children with random seeds until the time is up; stops at the first failure."""
    end = time.monotonic() + args.seconds
    total, rounds = 0, 0
    rng = random.Random()
    while time.monotonic() < end:
        seed = rng.randrange(2**32)
        left = max(1.0, end - time.monotonic())
        res = run_subprocess(args.per_target, seed, seconds=min(left, 120), mem_mb=args.mem_mb, timeout=min(left, 120) + 300)
        rounds += 1
        if res["rc"] != 0:
            print(res["output"][-6000:])
            print(f"FAILED (seed {seed}, exit code {res['rc']}); the call that was running:\n  {res['last_call']}")
            print(f"reproduce: python {os.path.relpath(__file__)} repro {json.dumps(res['last_call'])}")
            return 1
        total += res["summary"]["calls"]
        print(f"round {rounds} (seed {seed}): {res['summary']['calls']} calls, outcomes {res['summary']['outcomes']}",
              flush=True)
    print(f"fuzz: {total} calls in {rounds} rounds over {args.seconds} s, nothing crashed")
    return 0


def _cmd_repro(args) -> int:
    source = args.source
    warn_error = source.startswith("[-W error] ")
    if warn_error:
        source = source[len("[-W error] "):]
    with memory_limit(args.mem_mb):
        try:
            print("outcome:", run_call(source, warn_error))
        except Finding as f:
            print(f"FINDING: {f}")
            return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--per-target", type=int, default=15)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--seconds", type=float, default=None)
    r.add_argument("--log", default=None)
    r.add_argument("--mem-mb", type=int, default=1024)
    r.add_argument("--only", action="append", default=None)
    lp = sub.add_parser("loop")
    lp.add_argument("--seconds", type=float, required=True)
    lp.add_argument("--per-target", type=int, default=20)
    lp.add_argument("--mem-mb", type=int, default=1024)
    rp = sub.add_parser("repro")
    rp.add_argument("source")
    rp.add_argument("--mem-mb", type=int, default=1024)
    args = ap.parse_args(argv)
    return {"run": _cmd_run, "loop": _cmd_loop, "repro": _cmd_repro}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
