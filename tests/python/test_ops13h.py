"""Issue 13's last variant gaps: `out=(values, indices)` on `mode`, `median(dim)`,
`nanmedian(dim)`, `cummax`, `cummin` with torch's per-op dtype texts; the `Tensor.geqrf()` and
`Tensor.ormqr()` methods; `histogram`'s `range=` (the schema's `float[]?`) on the function and the
method. Expected values and messages were computed by torch 2.15 and pasted here."""

import math

import pytest

import _C

NAN = float("nan")


def same(a, b):
    """Nested lists equal, NaN equal to NaN."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def close(a, b, tol=1e-12):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol


X = [[1.0, 3.0, 3.0, 2.0], [NAN, 0.5, 0.5, 4.0], [2.0, 2.0, 1.0, 1.0]]

# torch.<op>(X, dim) -> (values, indices), from torch 2.15.
EXPECTED = {
    ("mode", 1): ([3.0, 0.5, 1.0], [2, 2, 3]),
    ("median", 1): ([2.0, NAN, 1.0], [3, 0, 3]),
    ("nanmedian", 1): ([2.0, 0.5, 1.0], [3, 2, 3]),
    ("nanmedian", 0): ([1.0, 2.0, 1.0, 2.0], [0, 2, 2, 0]),
    ("cummax", 0): (
        [[1.0, 3.0, 3.0, 2.0], [NAN, 3.0, 3.0, 4.0], [NAN, 3.0, 3.0, 4.0]],
        [[0, 0, 0, 0], [1, 0, 0, 1], [1, 0, 0, 1]],
    ),
    ("cummax", 1): (
        [[1.0, 3.0, 3.0, 3.0], [NAN, NAN, NAN, NAN], [2.0, 2.0, 2.0, 2.0]],
        [[0, 1, 2, 2], [0, 0, 0, 0], [0, 1, 1, 1]],
    ),
    ("cummin", 0): (
        [[1.0, 3.0, 3.0, 2.0], [NAN, 0.5, 0.5, 2.0], [NAN, 0.5, 0.5, 1.0]],
        [[0, 0, 0, 0], [1, 1, 1, 0], [1, 1, 1, 2]],
    ),
    ("cummin", 1): (
        [[1.0, 1.0, 1.0, 1.0], [NAN, NAN, NAN, NAN], [2.0, 2.0, 1.0, 1.0]],
        [[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 2, 3]],
    ),
}

OPS = ["mode", "median", "nanmedian", "cummax", "cummin"]


@pytest.mark.parametrize("op,dim", sorted(EXPECTED))
def test_named_tuple_out_writes_and_returns_the_out_tensors(op, dim):
    x = _C.tensor(X)
    v, i = _C.empty(0), _C.empty(0, dtype=_C.int64)
    r = getattr(_C, op)(x, dim, out=(v, i))
    assert type(r) is getattr(_C.return_types, op)
    assert r.values is v and r.indices is i
    assert r[0] is v and r[1] is i
    values, indices = EXPECTED[(op, dim)]
    assert same(v.tolist(), values)
    assert i.tolist() == indices


@pytest.mark.parametrize("op", OPS)
def test_named_tuple_out_as_a_list_and_keepdim(op):
    x = _C.tensor([[3, 1, 3], [2, 2, 5]])
    v, i = _C.empty(0, dtype=_C.int64), _C.empty(0, dtype=_C.int64)
    r = getattr(_C, op)(x, 1, out=[v, i])
    assert r.values is v and r.indices is i
    # torch 2.15 on the int64 input.
    expected = {
        "mode": ([3, 2], [2, 1]),
        "median": ([3, 2], [0, 1]),
        "nanmedian": ([3, 2], [0, 1]),
        "cummax": ([[3, 3, 3], [2, 2, 5]], [[0, 0, 2], [0, 1, 2]]),
        "cummin": ([[3, 1, 1], [2, 2, 2]], [[0, 1, 1], [0, 1, 1]]),
    }[op]
    assert (v.tolist(), i.tolist()) == expected
    if op not in ("cummax", "cummin"):
        v, i = _C.empty(0), _C.empty(0, dtype=_C.int64)
        getattr(_C, op)(_C.tensor(X), 1, keepdim=True, out=(v, i))
        assert v.shape == (3, 1) and i.shape == (3, 1)


def test_out_of_another_shape_is_resized_with_torchs_warning():
    v, i = _C.empty(5), _C.empty(5, dtype=_C.int64)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        _C.mode(_C.tensor(X), 1, out=(v, i))
    assert v.tolist() == [3.0, 0.5, 1.0] and i.tolist() == [2, 2, 3]


# (op, values dtype, indices dtype) -> torch 2.15's RuntimeError for a float32 input.
DTYPE_ERRORS = [
    ("mode", _C.float64, _C.int64, "expected scalar type 'Float' but got 'Double' for values output"),
    ("mode", _C.float32, _C.int32, "expected scalar type 'Long' but got 'Int' for indices output"),
    ("mode", _C.float64, _C.int32, "expected scalar type 'Float' but got 'Double' for values output"),
    ("mode", _C.float32, _C.float32, "expected scalar type 'Long' but got 'Float' for indices output"),
    ("median", _C.float64, _C.int64,
     "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
     "torch.DoubleTensor does not equal torch.FloatTensor (while checking arguments for median)"),
    ("median", _C.float32, _C.int32,
     "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.IntTensor instead "
     "(while checking arguments for median)"),
    # torch checks median's indices first.
    ("median", _C.float64, _C.int32,
     "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.IntTensor instead "
     "(while checking arguments for median)"),
    ("nanmedian", _C.float64, _C.int64,
     "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
     "torch.DoubleTensor does not equal torch.FloatTensor (while checking arguments for median)"),
    ("nanmedian", _C.float32, _C.float32,
     "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.FloatTensor instead "
     "(while checking arguments for median)"),
    ("cummax", _C.float64, _C.int64, "expected scalar_type Float but found Double"),
    ("cummax", _C.float32, _C.int32, "expected scalar_type Long but found Int"),
    ("cummax", _C.float64, _C.int32, "expected scalar_type Float but found Double"),
    ("cummin", _C.float32, _C.float32, "expected scalar_type Long but found Float"),
    ("cummin", _C.float64, _C.int64, "expected scalar_type Float but found Double"),
]


@pytest.mark.parametrize("op,vdt,idt,msg", DTYPE_ERRORS)
def test_out_dtype_errors_are_torchs_texts(op, vdt, idt, msg):
    v, i = _C.empty(0, dtype=vdt), _C.empty(0, dtype=idt)
    with pytest.raises(RuntimeError) as e:
        getattr(_C, op)(_C.tensor(X), 0, out=(v, i))
    assert str(e.value) == msg
    assert v.shape == (0,) and i.shape == (0,)  # nothing written or resized


def test_out_dtype_errors_for_an_integer_input():
    xi = _C.tensor([[1, 2], [2, 2]])
    f32, i64 = _C.empty(0), _C.empty(0, dtype=_C.int64)
    cases = [
        ("mode", "expected scalar type 'Long' but got 'Float' for values output"),
        ("median", "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
                   "torch.FloatTensor does not equal torch.LongTensor (while checking arguments for median)"),
        ("cummax", "expected scalar_type Long but found Float"),
    ]
    for op, msg in cases:
        with pytest.raises(RuntimeError) as e:
            getattr(_C, op)(xi, 0, out=(f32, i64))
        assert str(e.value) == msg


@pytest.mark.parametrize("op", OPS)
def test_out_count_and_type_errors(op):
    f = getattr(_C, op)
    x = _C.tensor(X)
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 1$"):
        f(x, 0, out=(_C.empty(0),))
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 3$"):
        f(x, 0, out=(_C.empty(0), _C.empty(0, dtype=_C.int64), _C.empty(0)))
    with pytest.raises(TypeError) as e:
        f(x, 0, out=_C.empty(0))
    if op in ("median", "nanmedian"):
        # torch names the argument; with two overloads our parser lists both signatures
        # (a parser difference, not this op's).
        assert "tuple of Tensors out = None" in str(e.value)
    else:
        assert str(e.value) == f"{op}(): argument 'out' must be tuple of Tensors, not Tensor"


def test_out_aliasing_is_allowed_as_in_torch():
    # torch makes no overlap check for these ops: out may be the input itself.
    y = _C.tensor([[1.0, 3.0], [2.0, 0.0]])
    i = _C.empty(0, dtype=_C.int64)
    r = _C.cummax(y, 0, out=(y, i))
    assert r.values is y
    assert y.tolist() == [[1.0, 3.0], [2.0, 3.0]] and i.tolist() == [[0, 0], [1, 0]]


# ---- Tensor.geqrf / Tensor.ormqr ---------------------------------------------------------------

A = [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]


def test_geqrf_method():
    r = _C.tensor(A, dtype=_C.float64).geqrf()
    assert type(r) is _C.return_types.geqrf
    assert type(_C.geqrf(_C.tensor(A))) is _C.return_types.geqrf
    # torch 2.15
    assert close(r.a.tolist(), [[-5.916079783099615, -8.282511696339462],
                                [0.4337717455676132, 0.6324555320336759],
                                [0.7229529092793553, 0.3969656540625643]])
    assert close(r.tau.tolist(), [1.1690308509457032, 1.7277397762030497])
    assert "geqrf" in _C.Tensor.geqrf.__doc__


def test_geqrf_method_errors():
    with pytest.raises(TypeError):
        _C.tensor(A).geqrf(1)
    with pytest.raises(NotImplementedError, match="^\"geqrf_cpu\" not implemented for 'Long'$"):
        _C.tensor([[1, 2], [3, 4]]).geqrf()
    with pytest.raises(RuntimeError, match="^torch.geqrf: input must have at least 2 dimensions.$"):
        _C.tensor([1.0, 2.0]).geqrf()


def test_ormqr_method():
    a, tau = _C.tensor(A, dtype=_C.float64).geqrf()
    eye = _C.eye(3, dtype=_C.float64)
    # torch 2.15: a.ormqr(tau, eye(3)) is Q.
    q = [[-0.16903085094570325, 0.9486832980505134, -0.2672612419124251],
         [-0.50709255283711, -0.3162277660168383, -0.8017837257372729],
         [-0.8451542547285166, 3.123505836538743e-16, 0.5345224838248488]]
    assert close(a.ormqr(tau, eye).tolist(), q)
    assert close(a.ormqr(input2=tau, input3=eye).tolist(), q)
    c = _C.eye(3, 2, dtype=_C.float64).T.contiguous()
    # torch 2.15: a.ormqr(tau, c, left=False, transpose=True)
    assert close(a.ormqr(tau, c, left=False, transpose=True).tolist(),
                 [[-0.16903085094570325, -0.50709255283711, -0.8451542547285166],
                  [0.9486832980505133, -0.3162277660168383, 2.9484004239461525e-16]])
    assert close(a.ormqr(tau, c, False, True).tolist(), a.ormqr(tau, c, left=False, transpose=True).tolist(), 0)


def test_ormqr_method_errors():
    a, tau = _C.tensor(A).geqrf()
    with pytest.raises(TypeError) as e:
        a.ormqr(tau, "x")
    assert str(e.value) == "ormqr(): argument 'input3' (position 2) must be Tensor, not str"
    with pytest.raises(TypeError):
        a.ormqr(tau, _C.eye(3), out=_C.empty(3, 3))
    with pytest.raises(RuntimeError, match="^torch.ormqr: other.shape\\[-2\\] must be equal to input.shape\\[-2\\]$"):
        a.ormqr(tau, _C.eye(2))


# ---- histogram's range= ------------------------------------------------------------------------

XH = [1.0, 2.0, 2.5, 4.0, -1.0, 7.0]


def test_histogram_range_on_the_method_and_the_function():
    x = _C.tensor(XH)
    for r in (x.histogram(3, range=(0.0, 5.0)), _C.histogram(x, 3, range=[0, 5])):
        assert type(r) is _C.return_types.histogram
        # torch 2.15
        assert r.hist.tolist() == [1.0, 2.0, 1.0]
        assert close(r.bin_edges.tolist(), [0.0, 1.6666666269302368, 3.3333334922790527, 5.0], 0)
    r = x.histogram(4, range=[0, 4], weight=_C.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), density=True)
    assert close(r.hist.tolist(), [0.0, 0.10000000149011612, 0.5, 0.4000000059604645], 0)
    assert r.bin_edges.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    r = x.double().histogram(2, range=(True, 3))
    assert (r.hist.tolist(), r.bin_edges.tolist()) == ([1.0, 2.0], [1.0, 2.0, 3.0])
    # later items may be 0-dim tensors (torch 2.15 reads them)
    assert x.histogram(3, range=(0.0, _C.tensor(5.0))).hist.tolist() == [1.0, 2.0, 1.0]
    assert x.histogram(3, range=None).hist.tolist() == x.histogram(3).hist.tolist()


def test_histogram_range_errors_are_torchs():
    x = _C.tensor(XH)
    runtime = [
        (lambda: x.histogram(3, range=(0.0, 1.0, 2.0)),
         "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got 3"),
        (lambda: x.histogram(3, range=()),
         "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got 0"),
        (lambda: x.histogram(0, range=(0.0, 1.0, 2.0)), "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
        (lambda: _C.tensor([1, 2]).histogram(3, range=(2.0, 1.0)),
         "torch.histogramdd: min should not exceed max, but got min 2 max 1 for dimension 0"),
        (lambda: _C.tensor([1, 2]).histogram(3, range=(0.0, 1.0, 2.0)),
         "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got 3"),
        (lambda: x.histogram(3, range=(0.0, 1.0, 2.0), weight=_C.ones(3)),
         "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got 3"),
        (lambda: x.histogram(3, range=(NAN, 1.0)), "torch.histogramdd: dimension 0's range [nan, 1] is not finite"),
    ]
    for f, msg in runtime:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg
    for r, pos, name in [((0.0, None), 2, "NoneType"), ([0.0, "a"], 2, "str"), ((0.0, 5.0, "x"), 3, "str"),
                         ((0.0, 1j), 2, "complex"), ((1j, 2.0), 1, "complex")]:
        with pytest.raises(TypeError) as e:
            x.histogram(3, range=r)
        assert str(e.value) == f"histogram(): argument 'range' must be tuple of floats, but found element of type {name} at pos {pos}"
    combination = (
        "histogram() received an invalid combination of arguments - got (int, range={}), but expected one of:\n"
        " * (Tensor bins, *, Tensor weight = None, bool density = False)\n"
        " * (int bins = 100, *, tuple of floats range = None, Tensor weight = None, bool density = False)"
    )
    for r, name in [(1.0, "float"), ("ab", "str")]:
        with pytest.raises(TypeError) as e:
            x.histogram(3, range=r)
        assert str(e.value).rstrip("\n") == combination.format(name)
    # A first item that is not a number: no overload binds (torch describes the argument as
    # "tuple"; our parser as "tuple of (NoneType, float)", a parser-wide difference).
    for r in [(None, 1.0), (_C.tensor(0.0), 5.0)]:
        with pytest.raises(TypeError) as e:
            x.histogram(3, range=r)
        assert str(e.value).startswith("histogram() received an invalid combination of arguments - got (int, range=tuple")
        assert str(e.value).rstrip("\n").endswith(combination.split("\n", 1)[1])
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        x.histogram(_C.tensor([0.0, 1.0, 5.0]), range=(0.0, 5.0))


# ---- out= on the other named-tuple ops torch gives it ---------------------------------------------

M = [[2.0, 1.0], [1.0, 3.0]]


def _f64():
    return _C.empty(0, dtype=_C.float64)


def _i32():
    return _C.empty(0, dtype=_C.int32)


def test_out_of_frexp_histogram_and_the_linalg_functions():
    x = _C.tensor(M, dtype=_C.float64)
    # values from torch 2.15
    m, e = _C.empty(0), _i32()
    r = _C.frexp(_C.tensor([8.0, 0.75, -3.0]), out=(m, e))
    assert r.mantissa is m and r.exponent is e
    assert (m.tolist(), e.tolist()) == ([0.5, 0.75, -0.75], [4, 0, 2])
    s, la = _f64(), _f64()
    r = _C.slogdet(x, out=(s, la))
    assert r.sign is s and r.logabsdet is la
    assert s.item() == 1.0 and close(la.item(), 1.6094379124341005)
    r = _C.linalg.slogdet(x, out=(_f64(), _f64()))
    assert close(r.logabsdet.item(), 1.6094379124341005)
    r = _C.linalg.inv_ex(x, out=(_f64(), _i32()))
    assert close(r.inverse.tolist(), [[0.6, -0.2], [-0.2, 0.4]]) and r.info.item() == 0
    r = _C.linalg.lu_factor(x, out=(_f64(), _i32()))
    assert close(r.LU.tolist(), [[2.0, 1.0], [0.5, 2.5]]) and r.pivots.tolist() == [1, 2]
    r = _C.linalg.cholesky_ex(x, out=(_f64(), _i32()))
    assert close(r.L.tolist(), [[1.4142135623730951, 0.0], [0.7071067811865475, 1.5811388300841898]])
    r = _C.linalg.eigh(x, out=(_f64(), _f64()))
    assert close(r.eigenvalues.tolist(), [1.381966011250105, 3.618033988749895])
    for f, n in [(_C.linalg.svd, 3), (_C.svd, 3), (_C.linalg.qr, 2), (_C.linalg.lu, 3)]:
        outs = tuple(_f64() for _ in range(n))
        r = f(x, out=outs)
        assert all(a is b for a, b in zip(r, outs))
    outs = (_f64(), _i32(), _i32())
    r = _C.linalg.lu_factor_ex(x, out=outs)
    assert all(a is b for a, b in zip(r, outs)) and r.pivots.tolist() == [1, 2]
    r = _C.linalg.solve_ex(x, x, out=(_f64(), _i32()))
    assert close(r.result.tolist(), [[1.0, 0.0], [0.0, 1.0]])
    h, b = _C.empty(0), _C.empty(0)
    r = _C.histogram(_C.tensor([1.0, 2.0, 2.5, 4.0]), 3, range=(0.0, 5.0), out=(h, b))
    assert r.hist is h and r.bin_edges is b and h.tolist() == [1.0, 2.0, 1.0]


def test_out_dtype_texts_of_the_other_ops():
    x = _C.tensor(M)
    f32 = _C.empty
    cases = [
        (lambda: _C.histogram(x.flatten(), 3, out=(_f64(), f32(0))),
         "torch.histogram: input tensor and hist tensor should have the same dtype, but got input float and hist double"),
        (lambda: _C.histogram(x.flatten(), 3, out=(f32(0), _f64())),
         "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input float and "
         "bin_edges double for dimension 0"),
        (lambda: _C.histogram(x.flatten(), _C.tensor([0.0, 1.0, 4.0]), out=(f32(0), _f64())),
         "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input float and "
         "bin_edges double for dimension 0"),
        (lambda: _C.histogram(x.flatten(), 0, out=(_f64(), f32(0))),
         "torch.histogram: input tensor and hist tensor should have the same dtype, but got input float and hist double"),
        (lambda: _C.frexp(x, out=(_f64(), _i32())), "torch.frexp() expects mantissa to have dtype float but got double"),
        (lambda: _C.frexp(x, out=(f32(0), _C.empty(0, dtype=_C.int64))),
         "torch.frexp() expects exponent to have int dtype but got long int"),
        (lambda: _C.frexp(_C.tensor([1, 2]), out=(f32(0), _i32())), "torch.frexp() only supports floating-point dtypes"),
        (lambda: _C.slogdet(x, out=(_f64(), f32(0))), "Expected out tensor to have dtype float, but got double instead"),
        (lambda: _C.linalg.slogdet(x, out=(f32(0), _f64())), "Expected out tensor to have dtype float, but got double instead"),
        (lambda: _C.linalg.inv_ex(x, out=(f32(0), _C.empty(0, dtype=_C.int64))),
         "Expected out tensor to have dtype int, but got long int instead"),
        (lambda: _C.linalg.lu_factor(x, out=(f32(0), _C.empty(0, dtype=_C.int64))),
         "Expected out tensor to have dtype int, but got long int instead"),
        (lambda: _C.linalg.svd(x, out=(_f64(), f32(0), f32(0))), "Expected out tensor to have dtype float, but got double instead"),
        # torch checks the input first
        (lambda: _C.linalg.eigh(_C.tensor([1.0, 2.0]), out=(_f64(), f32(0))),
         "linalg.eigh: The input tensor A must have at least 2 dimensions."),
        (lambda: _C.slogdet(_C.tensor([1.0, 2.0]), out=(_f64(), f32(0))),
         "linalg.slogdet: The input tensor A must have at least 2 dimensions."),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg
    with pytest.raises(NotImplementedError) as e:
        _C.linalg.inv_ex(_C.tensor([[1, 2], [3, 4]]), out=(f32(0), _i32()))
    assert str(e.value) == "linalg.inv: Expected a floating point or complex tensor as input. Got Long"
    with pytest.raises(TypeError):
        _C.tensor([1.0]).frexp(out=(f32(0), _i32()))
