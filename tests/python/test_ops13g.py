"""Issue 13's last known differences, fixed: out= of named-tuple results (kthvalue, aminmax),
at most one Python number among the Tensor arguments (`numbers_as_tensors: one`), torch's strict
out= dtype checks (`out_dtype:`) and overlap checks (`out_overlap: forbid`), and float-to-integer
conversion of out-of-range values as torch's x86-64 build gives it. Every expected value and
message was printed by torch 2.15 and pasted here."""

import math
import warnings

import pytest

import _C

NAN = float("nan")
INF = float("inf")


def _x():
    return _C.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])


# ---- out= of a named-tuple result -------------------------------------------------------------


def test_kthvalue_out_writes_and_returns_the_out_tensors():
    v = _C.empty(2)
    i = _C.empty(2, dtype=_C.int64)
    r = _C.kthvalue(_x(), 2, out=(v, i))
    # torch: torch.return_types.kthvalue_out(values=tensor([2., 4.]), indices=tensor([2, 2]))
    assert r.values is v and r.indices is i
    assert v.tolist() == [2.0, 4.0] and i.tolist() == [2, 2]
    values, indices = r
    assert values is v and indices is i


def test_kthvalue_out_as_a_list_and_keepdim():
    v = _C.empty(0)
    i = _C.empty(0, dtype=_C.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # empty outs are resized without a warning
        r = _C.kthvalue(_x(), 2, 1, True, out=[v, i])
    assert r.values is v and v.tolist() == [[2.0], [4.0]] and i.tolist() == [[2], [2]]


def test_kthvalue_out_resize_warns():
    v = _C.empty(3)
    i = _C.empty(3, dtype=_C.int64)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        _C.kthvalue(_x(), 2, out=(v, i))
    assert v.shape == (2,) and v.tolist() == [2.0, 4.0] and i.tolist() == [2, 2]


def test_kthvalue_out_errors():
    x = _x()
    l2 = _C.empty(2, dtype=_C.int64)
    with pytest.raises(RuntimeError, match="^output values must be of same type as input$"):
        _C.kthvalue(x, 2, out=(_C.empty(2, dtype=_C.float64), l2))
    with pytest.raises(RuntimeError, match="^output indices must be of scalar type Long$"):
        _C.kthvalue(x, 2, out=(_C.empty(2), _C.empty(2, dtype=_C.int32)))
    with pytest.raises(RuntimeError, match="^output indices must be of scalar type Long$"):
        _C.kthvalue(x, 2, out=(_C.empty(2), _C.empty(2)))
    with pytest.raises(TypeError, match=r"^kthvalue\(\): argument 'out' must be tuple of Tensors, not Tensor$"):
        _C.kthvalue(x, 2, out=_C.empty(2))
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 3$"):
        _C.kthvalue(x, 2, out=(_C.empty(2), l2, _C.empty(2)))
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 1$"):
        _C.kthvalue(x, 2, out=(_C.empty(2),))
    # torch: "expected Tensor as element 1 in argument 4, but got NoneType" (its parser's words)
    with pytest.raises(TypeError):
        _C.kthvalue(x, 2, out=(_C.empty(2), None))
    x.requires_grad_()
    with pytest.raises(RuntimeError, match=r"^kthvalue\(\): functions with out=\.\.\. arguments don't support automatic differentiation, but one of the arguments requires grad\.$"):
        _C.kthvalue(x, 2, out=(_C.empty(2), l2))
    # the method has no out= (torch: "kthvalue() got an unexpected keyword argument 'out'")
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        _x().kthvalue(2, out=(_C.empty(2), l2))


def test_kthvalue_out_none_is_the_plain_call():
    r = _C.kthvalue(_x(), 2, out=None)
    assert r.values.tolist() == [2.0, 4.0] and r.indices.tolist() == [2, 2]


def test_aminmax_out():
    mn, mx = _C.empty(()), _C.empty(())
    r = _C.aminmax(_x(), out=(mn, mx))
    # torch: torch.return_types.aminmax_out(min=tensor(0.), max=tensor(5.))
    assert r.min is mn and r.max is mx and mn.item() == 0.0 and mx.item() == 5.0
    mn, mx = _C.empty(2), _C.empty(2)
    r = _C.aminmax(_x(), dim=1, out=(mn, mx))
    assert mn.tolist() == [1.0, 0.0] and mx.tolist() == [3.0, 5.0]
    mn, mx = _C.empty(2), _C.empty(2)
    with pytest.warns(UserWarning, match="resized"):
        r = _C.aminmax(_x(), dim=0, out=(mn, mx))
    assert r.min is mn and mn.tolist() == [0.0, 1.0, 2.0] and mx.tolist() == [3.0, 5.0, 4.0]


def test_aminmax_out_errors():
    x = _x()
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        _C.aminmax(x, out=(_C.empty((), dtype=_C.float64), _C.empty(())))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got long int instead$"):
        _C.aminmax(x, out=(_C.empty(()), _C.empty((), dtype=_C.int64)))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but got float instead$"):
        _C.aminmax(x.long(), dim=1, out=(_C.empty(2), _C.empty(2)))
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="^aminmax\\(\\): functions with out=\\.\\.\\. arguments don't support"):
        _C.aminmax(x, out=(_C.empty(()), _C.empty(())))


# ---- at most one Python number among the Tensor arguments -------------------------------------

TWO_NUMBERS = {
    # name: (function, torch's signature list)
    "xlogy": (_C.xlogy, "xlogy() received an invalid combination of arguments - got (int, int), but expected one of:\n"
              " * (Tensor input, Tensor other, *, Tensor out = None)\n"
              " * (Number self, Tensor other, *, Tensor out = None)\n"
              " * (Tensor input, Number other, *, Tensor out = None)"),
    "pow": (_C.pow, "pow() received an invalid combination of arguments - got (int, int), but expected one of:\n"
            " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
            " * (Number self, Tensor exponent, *, Tensor out = None)\n"
            " * (Tensor input, Number exponent, *, Tensor out = None)"),
}


@pytest.mark.parametrize("name", sorted(TWO_NUMBERS))
def test_two_numbers_text(name):
    f, text = TWO_NUMBERS[name]
    with pytest.raises(TypeError) as e:
        f(2, 3)
    assert str(e.value) == text


@pytest.mark.parametrize(
    "f",
    [
        _C.pow, _C.xlogy, _C.remainder, _C.bitwise_and, _C.bitwise_or, _C.bitwise_xor,
        _C.bitwise_left_shift, _C.bitwise_right_shift, _C.special.zeta, _C.special.xlog1py,
        _C.special.chebyshev_polynomial_t, _C.special.chebyshev_polynomial_u,
        _C.special.chebyshev_polynomial_v, _C.special.chebyshev_polynomial_w,
        _C.special.shifted_chebyshev_polynomial_t, _C.special.shifted_chebyshev_polynomial_u,
        _C.special.shifted_chebyshev_polynomial_v, _C.special.shifted_chebyshev_polynomial_w,
        _C.special.hermite_polynomial_h, _C.special.hermite_polynomial_he,
        _C.special.laguerre_polynomial_l, _C.special.legendre_polynomial_p,
    ],
)
def test_two_numbers_raise(f):
    with pytest.raises(TypeError, match="received an invalid combination of arguments - got \\(int, int\\)"):
        f(2, 3)
    with pytest.raises(TypeError, match="invalid combination"):
        f(True, False)


def test_two_numbers_other_forms():
    with pytest.raises(TypeError, match="got \\(float, int\\)"):
        _C.xlogy(2.5, 3)
    with pytest.raises(TypeError, match="invalid combination"):
        _C.xlogy(input=2, other=3)
    with pytest.raises(TypeError, match="invalid combination"):
        _C.xlogy(2, 3, out=_C.empty(()))
    # torch: eq's and fmod's first argument takes no number at all
    with pytest.raises(TypeError):
        _C.eq(2, 3)


def test_one_number_still_binds():
    # torch: pow(2, tensor(3)) = tensor(8); remainder(2, tensor(3)) = tensor(2);
    # bitwise_and(2, tensor(3)) = tensor(2); bitwise_left_shift(2, tensor(3)) = tensor(16);
    # xlogy(2, tensor(3.)) = 2.1972; special.zeta(2, tensor(3.)) = 0.3949;
    # special.xlog1py(2, tensor(3.)) = 2.7726; chebyshev_polynomial_t(tensor(2.), 3) = 26 = (2, tensor(3))
    assert _C.pow(2, _C.tensor(3)).item() == 8
    assert _C.remainder(2, _C.tensor(3)).item() == 2
    assert _C.bitwise_and(2, _C.tensor(3)).item() == 2
    assert _C.bitwise_left_shift(2, _C.tensor(3)).item() == 16
    assert abs(_C.xlogy(2, _C.tensor(3.0)).item() - 2 * math.log(3)) < 1e-6
    assert abs(_C.special.zeta(2, _C.tensor(3.0)).item() - 0.39493406) < 1e-6
    assert abs(_C.special.xlog1py(2, _C.tensor(3.0)).item() - 2 * math.log(4)) < 1e-6
    assert _C.special.chebyshev_polynomial_t(_C.tensor(2.0), 3).item() == 26.0
    assert _C.special.chebyshev_polynomial_t(2, _C.tensor(3)).item() == 26.0
    assert _C.xlogy(_C.tensor(2.0), 3).item() == pytest.approx(2 * math.log(3))
    # the method binds self: one number at most anyway
    assert _C.tensor(2).pow(3).item() == 8


def test_two_numbers_still_fine_where_torch_takes_them():
    # torch: add(2, 3) = tensor(5), mul(2, 3) = tensor(6), sub(2, 3) = tensor(-1)
    assert _C.add(2, 3).item() == 5
    assert _C.mul(2, 3).item() == 6
    assert _C.sub(2, 3).item() == -1


# ---- out= dtype checks ------------------------------------------------------------------------


def test_out_dtype_checks():
    x = _x()
    msg = "Expected the dtype for input and out to match, but got Float for input's dtype and Double for out's dtype."
    with pytest.raises(RuntimeError) as e:
        _C.amax(x, 1, out=_C.empty(2, dtype=_C.float64))
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:
        _C.amin(x, 1, out=_C.empty(2, dtype=_C.float64))
    assert str(e.value) == msg
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the dtype check comes before the resize (no warning)
        with pytest.raises(RuntimeError) as e:
            _C.amax(x, 1, out=_C.empty(3, dtype=_C.float64))
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:
        _C.amax(x.long(), 1, out=_C.empty(2))
    assert str(e.value) == "Expected the dtype for input and out to match, but got Long for input's dtype and Float for out's dtype."
    idx = _C.tensor([[0], [1]])
    with pytest.raises(RuntimeError) as e:
        _C.gather(x, 1, idx, out=_C.empty(2, 1, dtype=_C.float64))
    assert str(e.value) == "Expected out tensor to have dtype float, but got double instead"
    with pytest.raises(RuntimeError) as e:
        _C.gather(x.long(), 1, idx, out=_C.empty(2, 1))
    assert str(e.value) == "Expected out tensor to have dtype long int, but got float instead"
    p = _C.tensor([0.2, 0.8])
    with pytest.raises(RuntimeError) as e:
        _C.multinomial(p, 1, out=_C.empty(1, dtype=_C.float64))
    assert str(e.value) == "multinomial expects Long tensor out, got: Double"
    with pytest.raises(RuntimeError) as e:
        _C.multinomial(p, 1, out=_C.empty(1, dtype=_C.int32))
    assert str(e.value) == "multinomial expects Long tensor out, got: Int"


def test_out_dtype_matching_still_writes():
    x = _x()
    o = _C.empty(2)
    assert _C.amax(x, 1, out=o) is o and o.tolist() == [3.0, 5.0]
    o = _C.empty(2, 1)
    assert _C.gather(x, 1, _C.tensor([[0], [1]]), out=o) is o and o.tolist() == [[3.0], [5.0]]
    o = _C.empty(3, dtype=_C.int64)
    assert _C.multinomial(_C.tensor([0.0, 1.0]), 3, True, out=o) is o and o.tolist() == [1, 1, 1]


# ---- out= overlap checks ----------------------------------------------------------------------

PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer "
           "to a single memory location. Please clone() the tensor before performing the operation.")
INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def _raises(text, f):
    with pytest.raises(RuntimeError) as e:
        f()
    assert str(e.value) == text


def test_out_overlap_checks():
    a = _C.arange(6.0)
    _raises(PARTIAL, lambda: _C.cat([a[:3], a[3:]], out=a))
    _raises(PARTIAL, lambda: _C.cat([a[:2]], out=a[1:3]))
    _raises(PARTIAL, lambda: _C.cat([a], out=a))
    _raises(INTERNAL, lambda: _C.cat([a[:3], a[3:]], out=_C.zeros(1).expand(6)))
    _raises(PARTIAL, lambda: _C.concat([a[:3], a[3:]], out=a))
    _raises(PARTIAL, lambda: _C.concatenate([a[:3], a[3:]], out=a))
    i2 = _C.tensor([0, 1])
    _raises(INTERNAL, lambda: _C.index_select(a, 0, i2, out=_C.zeros(1).expand(2)))
    _raises(PARTIAL, lambda: _C.index_select(a, 0, i2, out=a[:2]))
    _raises(PARTIAL, lambda: _C.index_select(a, 0, _C.arange(6), out=a))
    li = _C.tensor([0, 1])
    _raises(PARTIAL, lambda: _C.index_select(a.long(), 0, li, out=li))
    _raises(PARTIAL, lambda: _C.masked_select(a, a > 2, out=a[:3]))
    _raises(INTERNAL, lambda: _C.masked_select(a, a > 2, out=_C.zeros(1).expand(3)))
    m = _C.tensor([True, True, False])
    _raises(PARTIAL, lambda: _C.masked_select(m, m, out=m[:2]))
    _raises(PARTIAL, lambda: _C.take(a, i2, out=a[:2]))
    _raises(INTERNAL, lambda: _C.take(a, i2, out=_C.zeros(1).expand(2)))
    _raises(PARTIAL, lambda: _C.take(a, _C.arange(6), out=a))
    _raises(PARTIAL, lambda: _C.take(a.long(), li, out=li))
    # nothing was written
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_out_without_overlap_still_writes():
    a = _C.arange(6.0)
    o = _C.empty(6)
    assert _C.cat([a[:3], a[3:]], out=o) is o and o.tolist() == a.tolist()
    # another part of one storage that the inputs do not touch
    buf = _C.zeros(8)
    assert _C.cat([buf[:2], buf[2:4]], out=buf[4:]).tolist() == [0.0] * 4
    o = _C.empty(2)
    assert _C.take(a, _C.tensor([5, 0]), out=o) is o and o.tolist() == [5.0, 0.0]
    assert _C.index_select(a, 0, _C.tensor([1, 2]), out=o).tolist() == [1.0, 2.0]
    assert _C.masked_select(a, a > 3, out=o).tolist() == [4.0, 5.0]


# ---- float to integer conversion of out-of-range values ---------------------------------------

VALUES = [-1.5, 300.7, 1e10, -1e10, NAN, INF, -INF, 127.9, -128.9, 255.5, 256.0, 65535.0, 70000.5,
          -40000.5, 3e9, -3e9, 1e19, -1e19, 1e30]
# torch 2.15 (x86-64), float32 and float64 alike
EXPECTED = {
    "byte": [255, 44, 0, 0, 0, 0, 0, 127, 128, 255, 0, 255, 112, 192, 0, 0, 0, 0, 0],
    "char": [-1, 44, 0, 0, 0, 0, 0, 127, -128, -1, 0, -1, 112, -64, 0, 0, 0, 0, 0],
    "short": [-1, 300, 0, 0, 0, 0, 0, 127, -128, 255, 256, -1, 4464, 25536, 0, 0, 0, 0, 0],
    "int": [-1, 300, -2147483648, -2147483648, -2147483648, -2147483648, -2147483648, 127, -128, 255,
            256, 65535, 70000, -40000, -2147483648, -2147483648, -2147483648, -2147483648, -2147483648],
    "long": [-1, 300, 10000000000, -10000000000, -9223372036854775808, -9223372036854775808,
             -9223372036854775808, 127, -128, 255, 256, 65535, 70000, -40000, 3000000000, -3000000000,
             -9223372036854775808, -9223372036854775808, -9223372036854775808],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_float_to_int_out_of_range(dtype, method):
    x = _C.tensor(VALUES, dtype=getattr(_C, dtype))
    assert getattr(x, method)().tolist() == EXPECTED[method]
    # strided and expanded sources take the other copy loop
    n = len(VALUES)
    big = _C.tensor(VALUES * 3, dtype=getattr(_C, dtype))[::3]
    assert getattr(big, method)().tolist() == [EXPECTED[method][(3 * k) % n] for k in range(n)]


def test_float64_to_uint8_truncates_through_int64_and_int8_through_int32():
    # torch: float64 3e9+7 -> byte 7 (through int64), -> char 0 (int32's indefinite value)
    x = _C.tensor([3e9 + 7, -3e9 - 7, 2.0**31 + 5, 2.0**32 + 300, 1e12 + 3, 2.0**40 + 65], dtype=_C.float64)
    assert x.byte().tolist() == [7, 249, 5, 44, 3, 65]
    assert x.char().tolist() == [0] * 6
    assert x.short().tolist() == [0] * 6
    assert x.to(_C.uint8).tolist() == [7, 249, 5, 44, 3, 65]
    assert _C.empty(6, dtype=_C.int8).copy_(x).tolist() == [0] * 6


def test_out_into_a_disjoint_part_of_an_input_storage():
    # torch allows these: the written part shares the storage but no byte with the inputs
    buf = _C.zeros(8)
    assert _C.take(buf[:4], _C.tensor([0, 1]), out=buf[4:6]).tolist() == [0.0, 0.0]
    assert _C.index_select(buf[:4], 0, _C.tensor([0, 1]), out=buf[4:6]).tolist() == [0.0, 0.0]
    assert _C.masked_select(buf[:2], buf[:2] == 0, out=buf[4:6]).tolist() == [0.0, 0.0]
    assert _C.gather(buf[:2], 0, _C.tensor([0, 1]), out=buf[4:6]).tolist() == [0.0, 0.0]
    assert _C.stack([buf[:2]], out=buf[4:6].view(1, 2)).tolist() == [[0.0, 0.0]]


# ---- small Tensor surface ---------------------------------------------------------------------


def test_nbytes_itemsize_data_ptr():
    # torch: x = arange(6.).reshape(2, 3): nbytes 24, itemsize 4, x[1:].nbytes 12,
    # x[1:].data_ptr() - x.data_ptr() 12, empty(0).data_ptr() 0, x.expand(3, 2, 3).nbytes 72
    x = _C.arange(6.0).reshape(2, 3)
    assert x.nbytes == 24 and x.itemsize == 4 and x[1:].nbytes == 12
    assert isinstance(x.data_ptr(), int) and x.data_ptr() != 0
    assert x[1:].data_ptr() - x.data_ptr() == 12
    assert x.view(6)[2:].data_ptr() - x.data_ptr() == 8
    assert _C.empty(0).data_ptr() == 0
    assert x.expand(3, 2, 3).nbytes == 72
    assert _C.zeros(3, dtype=_C.float64).itemsize == 8 and _C.zeros(3, dtype=_C.bool).nbytes == 3
    big = _C.zeros(1000, dtype=_C.int16)
    assert big.nbytes == 2000 and big[10:].data_ptr() - big.data_ptr() == 20


@pytest.mark.parametrize(
    "name, call, values, indices",
    [
        # torch 2.15 on x = [[3, 1, 2], [0, 5, 4]], empty out tensors
        ("max", lambda x, o: _C.max(x, 1, out=o), [3.0, 5.0], [0, 1]),
        ("min", lambda x, o: _C.min(x, 1, keepdim=True, out=o), [[1.0], [0.0]], [[1], [0]]),
        ("sort", lambda x, o: _C.sort(x, 1, descending=True, out=o), [[3.0, 2.0, 1.0], [5.0, 4.0, 0.0]], [[0, 2, 1], [1, 2, 0]]),
        ("topk", lambda x, o: _C.topk(x, 2, out=o), [[3.0, 2.0], [5.0, 4.0]], [[0, 2], [1, 2]]),
    ],
)
def test_values_indices_out(name, call, values, indices):
    v, i = _C.empty(0), _C.empty(0, dtype=_C.int64)
    r = call(_x(), (v, i))
    assert r[0] is v and r[1] is i and v.tolist() == values and i.tolist() == indices
    # torch: "Expected out tensor to have dtype float, but got double instead" /
    # "Expected out tensor to have dtype long int, but got float instead" (and "... int instead")
    with pytest.raises(RuntimeError) as e:
        call(_x(), (_C.empty(0, dtype=_C.float64), _C.empty(0, dtype=_C.int64)))
    assert str(e.value) == "Expected out tensor to have dtype float, but got double instead"
    with pytest.raises(RuntimeError) as e:
        call(_x(), (_C.empty(0), _C.empty(0)))
    assert str(e.value) == "Expected out tensor to have dtype long int, but got float instead"
    with pytest.raises(RuntimeError) as e:
        call(_x(), (_C.empty(0), _C.empty(0, dtype=_C.int32)))
    assert str(e.value) == "Expected out tensor to have dtype long int, but got int instead"


def test_nonzero_out():
    x = _C.tensor([0, 1, 1, 0])
    # torch: nonzero_static(x, size=3, out=<[5, 1] int64>) -> [[1], [2], [-1]] (resized, warning)
    o = _C.empty(5, 1, dtype=_C.int64)
    with pytest.warns(UserWarning, match="resized"):
        r = _C.nonzero_static(x, size=3, out=o)
    assert r is o and o.tolist() == [[1], [2], [-1]]
    o = _C.empty(0, dtype=_C.int64)
    assert _C.nonzero_static(x, size=1, fill_value=7, out=o) is o and o.tolist() == [[1]]
    o = _C.empty(0, dtype=_C.int64)
    assert _C.nonzero(x, out=o) is o and o.tolist() == [[1], [2]]
    with pytest.raises(RuntimeError) as e:
        _C.nonzero(x, out=_C.empty(0))
    assert str(e.value) == "nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat"
    with pytest.raises(RuntimeError) as e:
        _C.nonzero_static(x, size=3, out=_C.empty(0))
    assert str(e.value) == "nonzero_static: Expected out tensor to have scalar type Long but got scalar typeFloat"
