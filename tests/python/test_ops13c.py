"""Issue 13, part 4 (ops13c): quantile / nanquantile, torch.special's Bessel and Airy functions
and orthogonal polynomials, torch.signal.windows.

Every expected value, dtype and error text below was produced by torch 2.15 (run by hand from
/work/torch-venv with /tmp scripts; torch is not imported here).
"""

import math

import pytest

import _C

NAN = float("nan")
INF = float("inf")


def same(t, expected, dtype=None, rel=1e-12, abs_=1e-300):
    """`t` holds `expected` (nested lists; NaN where NaN) and has `dtype` when given."""
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    got = t.tolist()

    def walk(g, e):
        if isinstance(e, list):
            assert isinstance(g, list) and len(g) == len(e), (got, expected)
            for a, b in zip(g, e):
                walk(a, b)
        elif isinstance(e, float) and math.isnan(e):
            assert math.isnan(g), (got, expected)
        elif isinstance(e, float) and math.isinf(e):
            assert g == e, (got, expected)
        else:
            assert g == pytest.approx(e, rel=rel, abs=abs_), (got, expected)

    walk(got, expected)


def raises(exc, text, f):
    with pytest.raises(exc) as info:
        f()
    assert str(info.value) == text


# ---- quantile, nanquantile ------------------------------------------------------------------------

QX = [[1.0, 5, 2, 8], [3, NAN, 0, 1], [4, 4, -1, 7]]
QQ = [0.0, 0.25, 0.6, 1.0]
# torch.quantile(x, q, dim=0, interpolation=...) and torch.nanquantile, float32.
QUANTILE_DIM0 = {
    "linear": [[1.0, NAN, -1.0, 1.0], [2.0, NAN, -0.5, 4.0], [3.200000047683716, NAN, 0.40000009536743164, 7.199999809265137], [4.0, NAN, 2.0, 8.0]],
    "lower": [[1.0, NAN, -1.0, 1.0], [1.0, NAN, -1.0, 1.0], [3.0, NAN, 0.0, 7.0], [4.0, NAN, 2.0, 8.0]],
    "higher": [[1.0, NAN, -1.0, 1.0], [3.0, NAN, 0.0, 7.0], [4.0, NAN, 2.0, 8.0], [4.0, NAN, 2.0, 8.0]],
    "midpoint": [[1.0, NAN, -1.0, 1.0], [2.0, NAN, -0.5, 4.0], [3.5, NAN, 1.0, 7.5], [4.0, NAN, 2.0, 8.0]],
    "nearest": [[1.0, NAN, -1.0, 1.0], [1.0, NAN, -1.0, 1.0], [3.0, NAN, 0.0, 7.0], [4.0, NAN, 2.0, 8.0]],
}
NANQUANTILE_DIM0 = {
    "linear": [[1.0, 4.0, -1.0, 1.0], [2.0, 4.25, -0.5, 4.0], [3.200000047683716, 4.599999904632568, 0.40000009536743164, 7.199999809265137], [4.0, 5.0, 2.0, 8.0]],
    "lower": [[1.0, 4.0, -1.0, 1.0], [1.0, 4.0, -1.0, 1.0], [3.0, 4.0, 0.0, 7.0], [4.0, 5.0, 2.0, 8.0]],
    "higher": [[1.0, 4.0, -1.0, 1.0], [3.0, 5.0, 0.0, 7.0], [4.0, 5.0, 2.0, 8.0], [4.0, 5.0, 2.0, 8.0]],
    "midpoint": [[1.0, 4.0, -1.0, 1.0], [2.0, 4.5, -0.5, 4.0], [3.5, 4.5, 1.0, 7.5], [4.0, 5.0, 2.0, 8.0]],
    "nearest": [[1.0, 4.0, -1.0, 1.0], [1.0, 4.0, -1.0, 1.0], [3.0, 5.0, 0.0, 7.0], [4.0, 5.0, 2.0, 8.0]],
}


@pytest.mark.parametrize("interpolation", sorted(QUANTILE_DIM0))
def test_quantile_interpolation_modes(interpolation):
    x, q = _C.tensor(QX), _C.tensor(QQ)
    same(_C.quantile(x, q, dim=0, interpolation=interpolation), QUANTILE_DIM0[interpolation], _C.float32)
    same(_C.nanquantile(x, q, 0, interpolation=interpolation), NANQUANTILE_DIM0[interpolation], _C.float32)
    # the method variants, and a transposed (non-contiguous) input along dim 1.
    same(x.quantile(q, 0, interpolation=interpolation), QUANTILE_DIM0[interpolation])
    same(x.t().nanquantile(q, dim=1, interpolation=interpolation), NANQUANTILE_DIM0[interpolation])


def test_quantile_scalar_q_float64_and_shapes():
    xd = _C.tensor([0.5, -2.25, 3.0, 7.5, 1.0], dtype=_C.float64)
    r = _C.quantile(xd, 0.3)
    assert r.dtype == _C.float64 and r.shape == () and r.item() == pytest.approx(0.6, rel=1e-15)
    same(_C.quantile(xd, _C.tensor([0.3, 0.875], dtype=_C.float64)), [0.6, 5.25], _C.float64)
    # nearest rounds half to even: ranks 0.5, 1.5, 2.5 -> 0, 2, 2.
    same(_C.quantile(_C.tensor([0.0, 1, 2, 3, 4]), _C.tensor([0.125, 0.375, 0.625]), interpolation="nearest"), [0.0, 2.0, 2.0])
    x, q = _C.tensor(QX), _C.tensor(QQ)
    assert _C.quantile(x, 0.5, dim=1, keepdim=True).shape == (3, 1)
    assert _C.quantile(x, q, dim=1, keepdim=True).shape == (4, 3, 1)
    assert _C.quantile(x, q).shape == (4,)
    assert _C.quantile(x, q, keepdim=True).shape == (4, 1, 1)
    assert _C.quantile(_C.tensor([1.0, 2, 3, 4]), _C.tensor([])).shape == (0,)
    same(_C.quantile(x, 0.5, 1), [3.5, NAN, 4.0])
    same(_C.nanquantile(x, 0.5, 1), [3.5, 1.0, 4.0])
    same(_C.nanquantile(_C.full((2, 3), NAN), 0.5, dim=1), [NAN, NAN])
    same(_C.quantile(_C.tensor(3.0), _C.tensor(0.3), dim=0, keepdim=True), 3.0)
    out = _C.empty(0)
    assert _C.quantile(x, 0.5, dim=1, out=out) is out
    same(out, [3.5, NAN, 4.0])


def test_quantile_errors():
    x = _C.tensor(QX)
    raises(RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5", lambda: _C.quantile(x, 1.5))
    raises(RuntimeError, "quantile() q must be in the range [0, 1] but got -0.5", lambda: _C.quantile(x, -0.5))
    raises(RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5", lambda: _C.nanquantile(x, 1.5))
    raises(RuntimeError, "quantile() q values must be in the range [0, 1]", lambda: _C.quantile(x, _C.tensor([1.5])))
    raises(RuntimeError, "quantile() q tensor must be same dtype as the input tensor",
           lambda: _C.quantile(x, _C.tensor([0.5], dtype=_C.float64)))
    raises(RuntimeError, "quantile() input tensor must be either float or double dtype", lambda: _C.quantile(x.long(), 0.5))
    raises(RuntimeError, "quantile() input tensor must be either float or double dtype", lambda: _C.nanquantile(x.long(), 0.5))
    raises(RuntimeError, "quantile() input tensor must be non-empty", lambda: _C.quantile(_C.tensor([]), 0.5))
    raises(RuntimeError, "quantile() input tensor must be non-empty", lambda: _C.quantile(_C.zeros(2, 0), 0.5, dim=1))
    raises(RuntimeError, "quantile() q must be a scalar or 1D tensor", lambda: _C.quantile(x, _C.tensor([[0.5]])))
    raises(RuntimeError, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo",
           lambda: _C.quantile(x, 0.5, interpolation="foo"))
    raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
           lambda: _C.quantile(x, 0.5, dim=3))
    with pytest.raises(TypeError):
        _C.quantile(x, "a")


def test_quantile_is_differentiable():
    # torch 2.15: d/dx quantile([1, 2], 0.5) = [0.5, 0.5] (through sort, gather, lerp).
    x = _C.tensor([1.0, 2.0], requires_grad=True)
    _C.quantile(x, 0.5).backward()
    assert x.grad.tolist() == [0.5, 0.5]


# ---- torch.special: Bessel and Airy functions, orthogonal polynomials ---------------------------

# torch.special.<name>(torch.tensor(XS, dtype=torch.float64)); PX x NS grids for the polynomials.
XS = [-12.5, -3.0, -1.0, -0.2, 0.0, 1e-06, 0.3, 1.0, 2.5, 4.99, 5.0, 7.25, 9.0, 30.0, 120.0, INF, -INF, NAN]
BESSEL = {
    "bessel_j0": [0.14688405469441415, -0.2600519549074645, 0.7651976865579665, 0.9900249722395763, 1.0, 0.99999999999975, 0.9776262465382961, 0.7651976865579665, -0.048383776468256645, -0.18086691229166424, -0.17759678121123898, 0.29199692560095125, -0.09033361064231044, -0.08636798358104034, 0.07182341582915616, NAN, NAN, NAN],
    "bessel_j1": [0.16548380460322024, -0.3390589585282922, -0.44005058574493355, -0.09950083263923604, 0.0, 4.999999999999375e-07, 0.148318816273104, 0.44005058574493355, 0.4970941024644698, -0.32644149644132375, -0.3275791437359959, 0.06858171786090907, 0.24531178612114143, -0.11875106261662309, -0.011805211433002331, NAN, NAN, NAN],
    "bessel_y0": [NAN, NAN, NAN, NAN, -INF, -8.869031481659443, -0.8072735778045196, 0.08825696421567697, 0.49807035961592067, -0.30702211393989604, -0.3085176376345636, 0.048422522182999514, 0.24993669848887798, -0.11729573168666393, -0.012104365410016011, NAN, NAN, NAN],
    "bessel_y1": [NAN, NAN, NAN, NAN, -INF, -636619.772372175, -2.2931051383885293, -0.7812128213002888, 0.14591813796695813, 0.15124028416672194, 0.14786315225770025, -0.28934799104110703, 0.1043145763957894, 0.08442557066174709, -0.07187447320914947, NAN, NAN, NAN],
    "modified_bessel_i0": [30596.335155785157, 4.880792585865024, 1.2660658777520082, 1.0100250277951457, 1.0, 1.0000000000002494, 1.0226268793515967, 1.2660658777520082, 3.289839144050123, 26.997630575083676, 27.239871823604442, 212.55834116279757, 1093.5883545113745, 781672297823.9775, 4.754573471017091e+50, NAN, NAN, NAN],
    "modified_bessel_i1": [-29345.74964207113, -3.9533702174026093, -0.5651591039924851, -0.1005008340281251, 0.0, 5.000000000000623e-07, 0.15169384000359282, 0.5651591039924851, 2.5167162452886984, 24.112953174466117, 24.335642142450524, 197.30156586563817, 1030.9147225169565, 768532038938.9569, 4.734721127388196e+50, NAN, NAN, NAN],
    "modified_bessel_k0": [NAN, NAN, NAN, NAN, INF, 13.93144207362641, 1.3724600605442967, 0.4210244382407082, 0.062347553200366196, 0.003731770323098792, 0.0036910983340425942, 0.00032525417308693023, 5.0881312956459246e-05, 2.1324774964630563e-14, 8.763568099825578e-54, 0.0, NAN, NAN],
    "modified_bessel_k1": [NAN, NAN, NAN, NAN, INF, 999999.9999927843, 3.055992033457325, 0.6019072301972346, 0.07389081634774705, 0.0040898699697879196, 0.004044613445452163, 0.00034700062309896867, 5.363701637945195e-05, 2.1677320018915495e-14, 8.800007520092761e-54, 0.0, NAN, NAN],
    "scaled_modified_bessel_k0": [NAN, NAN, NAN, NAN, INF, 13.931456005075448, 1.8526273007720135, 1.1444630798068944, 0.7595486903280996, 0.54833298458351, 0.547807564313519, 0.4579919780225157, 0.41229554923141803, 0.22788666561625373, 0.11429277942292938, 0.0, NAN, NAN],
    "scaled_modified_bessel_k1": [NAN, NAN, NAN, NAN, INF, 1000000.9999932843, 4.12515776224447, 1.636153486263258, 0.9001744239078779, 0.6009508659230823, 0.6002738587883125, 0.48861325971570807, 0.43462524534743463, 0.2316541293777118, 0.11476801537425148, 0.0, NAN, NAN],
    "spherical_bessel_j0": [-0.005305751788096055, 0.0470400026866224, 0.8414709848078965, 0.9933466539753061, 1.0, 0.9999999999998334, 0.9850673555377986, 0.8414709848078965, 0.23938885764158263, -0.19272803675887643, -0.1917848549326277, 0.11352839710503525, 0.04579094280463962, -0.03293438746976206, 0.004838426535102619, 0.0, 0.0, NAN],
    "airy_ai": [-0.27627456138116, -0.3788142883304339, 0.5355608832923521, 0.40628418744480144, 0.3550280538878172, 0.3550277950684134, 0.2788064819550049, 0.13529241631288144, 0.015725923380470484, 0.00011084584219839799, 0.00010834442813607433, 3.811563018337381e-07, 2.4711684308724895e-09, 3.2082175915504806e-49, 0.0, NAN, NAN, NAN],
}
PX = [-1.5, -1.0, -0.3, 0.0, 0.4, 0.75, 1.0, 2.5]
NS = [-1, 0, 1, 2, 3, 7, 10, 30]
POLY = {  # torch.special.<name>(PX[:, None], NS), float64
    "chebyshev_polynomial_t": [[0.0, 1.0, -1.5, 3.5, -9.0, -421.5, 7563.5, 1730726404001.0], [0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0], [0.0, 1.0, -0.3, -0.8200000000000001, 0.792, 0.8461632, 0.9955225088, 0.9599427952716771], [0.0, 1.0, 0.0, -1.0, -0.0, -4.286263797015736e-16, -1.0, -1.0], [0.0, 1.0, 0.4, -0.6799999999999999, -0.944, -0.25802239999999993, 0.5623462911999995, -0.97570826473636], [0.0, 1.0, 0.75, 0.125, -0.5625, 0.33984375000000006, 0.5864257812499998, -0.9526013056747623], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.5, 11.5, 55.0, 28982.5, 3187811.5, 1.295799745631574e+20]],
    "chebyshev_polynomial_u": [[0.0, 1.0, -3.0, 8.0, -21.0, -987.0, 17711.0, 4052739537881.0], [0.0, 1.0, -2.0, 3.0, -4.0, -8.0, 11.0, 31.0], [0.0, 1.0, -0.6, -0.64, 0.984, 0.6785664, 1.0252491776000003, 1.0480603783204168], [0.0, 1.0, 0.0, -1.0, -0.0, -0.0, -1.0, -1.0], [0.0, 1.0, 0.8, -0.35999999999999993, -1.088, 0.16363520000000026, 0.20145674239999853, -1.0713199616947813], [0.0, 1.0, 1.5, 1.25, 0.375, -0.7265625, 1.5048828124999998, -0.6076464904472237], [0.0, 1.0, 2.0, 3.0, 4.0, 8.0, 11.0, 31.0], [0.0, 1.0, 5.0, 24.0, 115.0, 60605.0, 6665999.0, 2.7096331789318622e+20]],
    "chebyshev_polynomial_v": [[0.0, 1.0, -4.0, 11.0, -29.0, -1364.0, 24476.0, 5600748293801.0], [0.0, 1.0, -3.0, 5.0, -7.0, -15.0, 21.0, 61.0], [0.0, 1.0, -1.6, -0.03999999999999998, 1.624, 0.1199104000000001, 1.1243380735999988, 1.3417856551495446], [0.0, 1.0, -1.0, -1.0, 1.0, 1.0, -0.9999999999999997, -1.0000000000000009], [0.0, 1.0, -0.19999999999999996, -1.16, -0.728, -0.8905087999999999, 1.103680614399999, -0.8322907192987303], [0.0, 1.0, 0.5, -0.25, -0.875, 0.6953125, 0.280273437499999, -1.067586244083941], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 4.0, 19.0, 91.0, 47956.0, 5274724.0, 2.1440998056117466e+20]],
    "chebyshev_polynomial_w": [[0.0, 1.0, -2.0, 5.0, -13.0, -610.0, 10946.0, 2504730781961.0], [0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0], [0.0, 1.0, 0.4, -1.24, 0.344, 1.2372224, 0.926160281600001, 0.7543351014912888], [0.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0000000000000002, -0.9999999999999991], [0.0, 1.0, 1.8, 0.4400000000000001, -1.448, 1.2177792000000003, -0.7007671296000032, -1.3103492040908302], [0.0, 1.0, 2.5, 2.75, 1.625, -2.1484375, 2.7294921875000004, -0.14770673681050983], [0.0, 1.0, 3.0, 5.0, 7.0, 15.0, 21.0, 61.0], [0.0, 1.0, 6.0, 29.0, 139.0, 73254.0, 8057274.0, 3.2751665522519776e+20]],
    "shifted_chebyshev_polynomial_t": [[0.0, 1.0, -4.0, 31.0, -244.0, -937444.0, 457470751.0, 3.829569782145419e+26], [0.0, 1.0, -3.0, 17.0, -99.0, -114243.0, 22619537.0, 4.629255216278145e+22], [0.0, 1.0, -1.6, 4.120000000000001, -11.584000000000003, -761.7577984000005, 17615.455873331215, 21864605750104.3], [0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0], [0.0, 1.0, -0.19999999999999996, -0.92, 0.5679999999999998, 0.9870208, 0.42845562880000027, -0.970753244927169], [0.0, 1.0, 0.5, -0.5, -1.0, 0.4999999999999997, -0.4999999999999983, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 4.0, 31.0, 244.0, 937444.0, 457470751.0, 3.829569782145419e+26]],
    "shifted_chebyshev_polynomial_u": [[0.0, 1.0, -8.0, 63.0, -496.0, -1905632.0, 929944511.0, 7.784732445982319e+26], [0.0, 1.0, -6.0, 35.0, -204.0, -235416.0, 46611179.0, 9.53932184918836e+22], [0.0, 1.0, -3.2, 9.240000000000002, -26.36800000000001, -1737.587916800001, 40181.299256422426, 49873717369626.67], [0.0, 1.0, -2.0, 3.0, -4.0, -8.0, 11.0, 31.0], [0.0, 1.0, -0.3999999999999999, -0.8400000000000001, 0.7359999999999999, 1.0198016, 0.6128946176000003, -1.019759255384804], [0.0, 1.0, 1.0, 0.0, -1.0, 0.9999999999999994, -0.9999999999999994, 1.0000000000000027], [0.0, 1.0, 2.0, 3.0, 4.0, 8.0, 11.0, 31.0], [0.0, 1.0, 8.0, 63.0, 496.0, 1905632.0, 929944511.0, 7.784732445982319e+26]],
    "shifted_chebyshev_polynomial_v": [[0.0, 1.0, -9.0, 71.0, -559.0, -2147679.0, 1048062951.0, 8.773523111941544e+26], [0.0, 1.0, -7.0, 41.0, -239.0, -275807.0, 54608393.0, 1.1176010726825095e+23], [0.0, 1.0, -4.2, 12.440000000000001, -35.608000000000004, -2347.481740800001, 54284.95137085443, 67379412131828.13], [0.0, 1.0, -3.0, 5.0, -7.0, -15.0, 21.0, 61.0], [0.0, 1.0, -1.4, -0.44000000000000017, 1.5759999999999998, 1.1837055999999997, 1.5350895616, -1.2647893076729753], [0.0, 1.0, 0.0, -1.0, -1.0, -6.720550198295986e-16, 1.5562250874041784e-15, 0.9999999999999991], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 7.0, 55.0, 433.0, 1663585.0, 811826071.0, 6.795941780023093e+26]],
    "shifted_chebyshev_polynomial_w": [[0.0, 1.0, -7.0, 55.0, -433.0, -1663585.0, 811826071.0, 6.795941780023093e+26], [0.0, 1.0, -5.0, 29.0, -169.0, -195025.0, 38613965.0, 7.902632971551619e+22], [0.0, 1.0, -2.2, 6.040000000000001, -17.128000000000004, -1127.6940928000004, 26077.647141990412, 32368022607425.184], [0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0], [0.0, 1.0, 0.6000000000000001, -1.24, -0.1040000000000002, 0.8558976000000001, -0.30930032639999966, -0.7747292030966328], [0.0, 1.0, 2.0, 1.0, -1.0, 2.0, -2.0, 1.0000000000000029], [0.0, 1.0, 3.0, 5.0, 7.0, 15.0, 21.0, 61.0], [0.0, 1.0, 9.0, 71.0, 559.0, 2147679.0, 1048062951.0, 8.773523111941544e+26]],
    "hermite_polynomial_h": [[0.0, 1.0, -3.0, 7.0, -9.0, -801.0, -85401.0, -3.8078521603120726e+20], [0.0, 1.0, -2.0, 2.0, 4.0, -464.0, 8224.0, -2.167464638715714e+19], [0.0, 1.0, -0.6, -1.6400000000000001, 3.384, 416.5179264, -6173.852487782402, 1.4804338784213923e+20], [0.0, 1.0, 0.0, -2.0, -0.0, -0.0, -30240.0, -2.0284320493172736e+20], [0.0, 1.0, 0.8, -1.3599999999999999, -4.288, -470.5128447999999, 8467.690759782401, 2.1984342709736892e+20], [0.0, 1.0, 1.5, 0.25, -5.625, -144.3515625, 38740.4384765625, -2.4436244793338623e+20], [0.0, 1.0, 2.0, 2.0, -4.0, 464.0, 8224.0, -2.167464638715714e+19], [0.0, 1.0, 5.0, 23.0, 95.0, -4825.0, 94135.0, -4.473384966357481e+21]],
    "hermite_polynomial_he": [[0.0, 1.0, -1.5, 1.25, 1.125, -54.4921875, -180.1669921875, 4301442176045980.0], [0.0, 1.0, -1.0, 0.0, 2.0, 20.0, 1216.0, -5730872535686144.0], [0.0, 1.0, -0.3, -0.91, 0.873, 28.7158113, -544.8086765451, 543374287809981.0], [0.0, 1.0, 0.0, -1.0, -0.0, -0.0, -945.0, -6190283353629375.0], [0.0, 1.0, 0.4, -0.84, -1.1360000000000001, -35.4934016, -267.08890634239987, 3838290863955689.0], [0.0, 1.0, 0.75, -0.4375, -1.828125, -39.30303955078125, 823.8105096817017, 3869005800950147.0], [0.0, 1.0, 1.0, 0.0, -2.0, -20.0, 1216.0, -5730872535686144.0], [0.0, 1.0, 2.5, 5.25, 8.125, -62.3046875, 220.1611328125, -1.2968983091684142e+16]],
    "laguerre_polynomial_l": [[0.0, 1.0, 2.5, 5.125, 9.4375, 63.63835100446429, 198.12750263759068, 39772.594962476556], [0.0, 1.0, 2.0, 3.5, 5.666666666666667, 25.9765873015873, 64.66662009479717, 4677.6459642800555], [0.0, 1.0, 1.3, 1.645, 2.0395, 4.214744880892858, 6.6411959059123475, 60.679821882538285], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.6, 0.27999999999999997, 0.02933333333333327, -0.4577525028571428, -0.47634761862366126, 0.36655623760983047], [0.0, 1.0, 0.25, -0.21875, -0.4765625, -0.3830861772809711, 0.037806735911539366, -0.2951141492393104], [0.0, 1.0, 0.0, -0.5, -0.6666666666666666, -0.040476190476190554, 0.41894593253968243, -0.27361242804961644], [0.0, 1.0, -1.5, -0.875, 0.2708333333333333, 0.10795665922619072, -0.8802526766660985, -0.41404537410035747]],
    "legendre_polynomial_p": [[0.0, 1.0, -1.5, 2.875, -6.1875, -192.37646484375, 2897.2815284729004, 384761001199.07983], [0.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0], [0.0, 1.0, -0.3, -0.365, 0.3825, 0.22407298125, 0.25147634951601566, 0.14665500486868718], [0.0, 1.0, 0.0, -0.5, -0.0, -0.0, -0.24609375, -0.14446444809436798], [0.0, 1.0, 0.4, -0.25999999999999995, -0.43999999999999995, -0.014590399999999925, 0.09683906439999987, -0.1508853567792315], [0.0, 1.0, 0.75, 0.34375, -0.0703125, -0.034183502197265625, 0.2643745131790638, -0.13142691593944328], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.5, 8.875, 35.3125, 12437.46337890625, 1150047.9778785706, 2.71933084611437e+19]],
}


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_airy_float64(name):
    f = getattr(_C.special, name)
    assert f is getattr(_C._special, "special_" + name)
    # Cephes' approximations: torch and _C run the same ones, so agreement is to a few ulps.
    same(f(_C.tensor(XS, dtype=_C.float64)), BESSEL[name], _C.float64, rel=1e-13, abs_=1e-300)


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_airy_float32_int_and_out(name):
    f = getattr(_C.special, name)
    r = f(_C.tensor(XS))
    assert r.dtype == _C.float32
    expected32 = [v if math.isnan(v) or math.isinf(v) or abs(v) < 3e38 else math.copysign(INF, v) for v in BESSEL[name]]
    same(r, expected32, rel=2e-6, abs_=1e-30)
    # integers give float32 (torch's unary float ops).
    ri = f(_C.tensor([1, -3]))
    assert ri.dtype == _C.float32
    same(ri, [BESSEL[name][XS.index(1.0)], BESSEL[name][XS.index(-3.0)]], rel=2e-6)
    out = _C.empty(2, dtype=_C.float64)
    assert f(_C.tensor([1.0, 2.5], dtype=_C.float64), out=out) is out
    same(out, [BESSEL[name][XS.index(1.0)], BESSEL[name][XS.index(2.5)]], rel=1e-13)


def test_bessel_differentiability_as_torch():
    x = _C.tensor([0.5, 1.5], requires_grad=True)
    # torch: scaled_modified_bessel_k0/k1, spherical_bessel_j0 and airy_ai are not differentiable
    # (no history); the others have torch's formulas (values: test_autograd.py).
    for name in ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai"):
        r = getattr(_C.special, name)(x)
        assert not r.requires_grad and r.grad_fn is None
    for name in ("bessel_j0", "modified_bessel_k1"):
        assert getattr(_C.special, name)(x).requires_grad


@pytest.mark.parametrize("name", sorted(POLY))
def test_orthogonal_polynomials_float64(name):
    f = getattr(_C.special, name)
    assert f is getattr(_C._special, "special_" + name)
    x = _C.tensor(PX, dtype=_C.float64).unsqueeze(1)
    n = _C.tensor(NS, dtype=_C.float64)
    # the closed trigonometric forms for large n go through libm's cos/acos: a few ulps.
    same(f(x, n), POLY[name], _C.float64, rel=1e-12, abs_=1e-12)
    # n as a Python number and as an int64 tensor (truncated degrees), x as a number.
    same(f(x, 3), [[row[NS.index(3)]] for row in POLY[name]], _C.float64, rel=1e-12, abs_=1e-12)
    same(f(x, _C.tensor(NS)), POLY[name], _C.float64, rel=1e-12, abs_=1e-12)
    same(f(x, _C.tensor([2.7], dtype=_C.float64)), [[row[NS.index(2)]] for row in POLY[name]], rel=1e-12, abs_=1e-12)
    r = f(0.4, _C.tensor([2.0, 3.0]))
    assert r.dtype == _C.float32
    same(r, [POLY[name][PX.index(0.4)][NS.index(2)], POLY[name][PX.index(0.4)][NS.index(3)]], rel=2e-6, abs_=1e-6)


def test_orthogonal_polynomial_dtypes_and_edge_degrees():
    f = _C.special.chebyshev_polynomial_t
    assert f(_C.tensor([1, 2]), _C.tensor([2, 3])).dtype == _C.float32
    assert f(_C.tensor([True]), _C.tensor([True])).dtype == _C.float32
    assert f(_C.tensor([0.5], dtype=_C.float64), _C.tensor([2])).dtype == _C.float64
    # torch (x86-64): a NaN or infinite degree truncates to INT64_MIN, a negative degree: 0.
    same(f(_C.tensor([0.5, 0.5]), _C.tensor([NAN, INF])), [0.0, 0.0])
    # Hermite: NaN above degree 128 in float32, 512 in float64.
    same(_C.special.hermite_polynomial_h(_C.tensor([0.5]), 129), [NAN])
    assert not math.isnan(_C.special.hermite_polynomial_he(_C.tensor([0.5], dtype=_C.float64), 129).item())
    out = _C.empty(1)
    assert _C.special.legendre_polynomial_p(_C.tensor([0.4]), 3, out=out) is out
    same(out, [POLY["legendre_polynomial_p"][PX.index(0.4)][NS.index(3)]], rel=2e-6)
    x = _C.tensor([0.5], requires_grad=True)
    r = _C.special.legendre_polynomial_p(x, 2)
    assert not r.requires_grad  # torch: not differentiable
    with pytest.raises(TypeError):
        _C.special.chebyshev_polynomial_t(_C.tensor([0.5]), "a")


# ---- torch.signal.windows ------------------------------------------------------------------------

# (name, M, keyword arguments, torch.signal.windows.<name>(M, dtype=torch.float64, **kwargs)).
WINDOWS = [
    ('bartlett', 0, {'sym': True}, []),
    ('bartlett', 0, {'sym': False}, []),
    ('bartlett', 1, {'sym': True}, [1.0]),
    ('bartlett', 1, {'sym': False}, [1.0]),
    ('bartlett', 2, {'sym': True}, [0.0, 0.0]),
    ('bartlett', 2, {'sym': False}, [0.0, 1.0]),
    ('bartlett', 7, {'sym': True}, [0.0, 0.33333333333333326, 0.6666666666666666, 1.0, 0.6666666666666666, 0.33333333333333326, 0.0]),
    ('bartlett', 7, {'sym': False}, [0.0, 0.2857142857142857, 0.5714285714285714, 0.8571428571428571, 0.8571428571428572, 0.5714285714285715, 0.2857142857142858]),
    ('blackman', 0, {'sym': True}, []),
    ('blackman', 0, {'sym': False}, []),
    ('blackman', 1, {'sym': True}, [1.0]),
    ('blackman', 1, {'sym': False}, [1.0]),
    ('blackman', 2, {'sym': True}, [-1.3877787807814457e-17, -1.3877787807814457e-17]),
    ('blackman', 2, {'sym': False}, [-1.3877787807814457e-17, 0.9999999999999999]),
    ('blackman', 7, {'sym': True}, [-1.3877787807814457e-17, 0.12999999999999995, 0.6299999999999999, 0.9999999999999999, 0.6299999999999998, 0.12999999999999995, -1.3877787807814457e-17]),
    ('blackman', 7, {'sym': False}, [-1.3877787807814457e-17, 0.09045342435412804, 0.45918295754596355, 0.9203636180999081, 0.9203636180999083, 0.45918295754596383, 0.09045342435412812]),
    ('cosine', 0, {'sym': True}, []),
    ('cosine', 0, {'sym': False}, []),
    ('cosine', 1, {'sym': True}, [1.0]),
    ('cosine', 1, {'sym': False}, [1.0]),
    ('cosine', 2, {'sym': True}, [0.7071067811865475, 0.7071067811865476]),
    ('cosine', 2, {'sym': False}, [0.49999999999999994, 1.0]),
    ('cosine', 7, {'sym': True}, [0.2225209339563144, 0.6234898018587335, 0.9009688679024191, 1.0, 0.9009688679024191, 0.6234898018587336, 0.2225209339563145]),
    ('cosine', 7, {'sym': False}, [0.19509032201612825, 0.5555702330196022, 0.8314696123025452, 0.9807852804032304, 0.9807852804032304, 0.8314696123025451, 0.5555702330196022]),
    ('exponential', 0, {'sym': True}, []),
    ('exponential', 0, {'sym': False}, []),
    ('exponential', 1, {'sym': True}, [1.0]),
    ('exponential', 1, {'sym': False}, [1.0]),
    ('exponential', 2, {'sym': True}, [0.6065306597126334, 0.6065306597126334]),
    ('exponential', 2, {'sym': False}, [0.36787944117144233, 1.0]),
    ('exponential', 7, {'sym': True}, [0.049787068367863944, 0.1353352832366127, 0.36787944117144233, 1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944]),
    ('exponential', 7, {'sym': False}, [0.0301973834223185, 0.0820849986238988, 0.22313016014842982, 0.6065306597126334, 0.6065306597126334, 0.22313016014842982, 0.0820849986238988]),
    ('exponential', 0, {'tau': 2.5, 'sym': True}, []),
    ('exponential', 0, {'tau': 2.5, 'sym': False}, []),
    ('exponential', 1, {'tau': 2.5, 'sym': True}, [1.0]),
    ('exponential', 1, {'tau': 2.5, 'sym': False}, [1.0]),
    ('exponential', 2, {'tau': 2.5, 'sym': True}, [0.8187307530779818, 0.8187307530779818]),
    ('exponential', 2, {'tau': 2.5, 'sym': False}, [0.6703200460356393, 1.0]),
    ('exponential', 7, {'tau': 2.5, 'sym': True}, [0.301194211912202, 0.44932896411722156, 0.6703200460356393, 1.0, 0.6703200460356393, 0.44932896411722156, 0.301194211912202]),
    ('exponential', 7, {'tau': 2.5, 'sym': False}, [0.24659696394160643, 0.36787944117144233, 0.5488116360940265, 0.8187307530779817, 0.8187307530779819, 0.5488116360940265, 0.36787944117144233]),
    ('exponential', 0, {'center': 1.0, 'sym': False}, []),
    ('exponential', 0, {'center': 1.0, 'sym': False}, []),
    ('exponential', 1, {'center': 1.0, 'sym': False}, [0.36787944117144233]),
    ('exponential', 1, {'center': 1.0, 'sym': False}, [0.36787944117144233]),
    ('exponential', 2, {'center': 1.0, 'sym': False}, [0.36787944117144233, 1.0]),
    ('exponential', 2, {'center': 1.0, 'sym': False}, [0.36787944117144233, 1.0]),
    ('exponential', 7, {'center': 1.0, 'sym': False}, [0.36787944117144233, 1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944, 0.01831563888873418, 0.006737946999085467]),
    ('exponential', 7, {'center': 1.0, 'sym': False}, [0.36787944117144233, 1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944, 0.01831563888873418, 0.006737946999085467]),
    ('gaussian', 0, {'sym': True}, []),
    ('gaussian', 0, {'sym': False}, []),
    ('gaussian', 1, {'sym': True}, [1.0]),
    ('gaussian', 1, {'sym': False}, [1.0]),
    ('gaussian', 2, {'sym': True}, [0.8824969025845955, 0.8824969025845955]),
    ('gaussian', 2, {'sym': False}, [0.6065306597126335, 1.0]),
    ('gaussian', 7, {'sym': True}, [0.011108996538242316, 0.13533528323661276, 0.6065306597126335, 1.0, 0.6065306597126335, 0.13533528323661276, 0.011108996538242316]),
    ('gaussian', 7, {'sym': False}, [0.002187491118182889, 0.043936933623407476, 0.32465246735834996, 0.8824969025845955, 0.8824969025845955, 0.3246524673583498, 0.043936933623407434]),
    ('gaussian', 0, {'std': 0.7, 'sym': True}, []),
    ('gaussian', 0, {'std': 0.7, 'sym': False}, []),
    ('gaussian', 1, {'std': 0.7, 'sym': True}, [1.0]),
    ('gaussian', 1, {'std': 0.7, 'sym': False}, [1.0]),
    ('gaussian', 2, {'std': 0.7, 'sym': True}, [0.7748374288832494, 0.7748374288832494]),
    ('gaussian', 2, {'std': 0.7, 'sym': False}, [0.3604477885978211, 1.0]),
    ('gaussian', 7, {'std': 0.7, 'sym': True}, [0.00010270256461965559, 0.016879884148789926, 0.3604477885978211, 1.0, 0.3604477885978211, 0.016879884148789926, 0.00010270256461965559]),
    ('gaussian', 7, {'std': 0.7, 'sym': False}, [3.726653172078691e-06, 0.0016992793655526632, 0.10066889977289795, 0.7748374288832496, 0.7748374288832491, 0.10066889977289781, 0.0016992793655526586]),
    ('general_cosine', 0, {'a': [0.46, 0.23, 0.31], 'sym': True}, []),
    ('general_cosine', 0, {'a': [0.46, 0.23, 0.31], 'sym': False}, []),
    ('general_cosine', 1, {'a': [0.46, 0.23, 0.31], 'sym': True}, [1.0]),
    ('general_cosine', 1, {'a': [0.46, 0.23, 0.31], 'sym': False}, [1.0]),
    ('general_cosine', 2, {'a': [0.46, 0.23, 0.31], 'sym': True}, [0.54, 0.54]),
    ('general_cosine', 2, {'a': [0.46, 0.23, 0.31], 'sym': False}, [0.54, 1.0]),
    ('general_cosine', 7, {'a': [0.46, 0.23, 0.31], 'sym': True}, [0.54, 0.19000000000000003, 0.4199999999999998, 1.0, 0.4199999999999997, 0.19000000000000003, 0.54]),
    ('general_cosine', 7, {'a': [0.46, 0.23, 0.31], 'sym': False}, [0.54, 0.24761585604603387, 0.2318794657602024, 0.8605046781937638, 0.860504678193764, 0.23187946576020246, 0.2476158560460337]),
    ('general_hamming', 0, {'alpha': 0.6, 'sym': True}, []),
    ('general_hamming', 0, {'alpha': 0.6, 'sym': False}, []),
    ('general_hamming', 1, {'alpha': 0.6, 'sym': True}, [1.0]),
    ('general_hamming', 1, {'alpha': 0.6, 'sym': False}, [1.0]),
    ('general_hamming', 2, {'alpha': 0.6, 'sym': True}, [0.19999999999999996, 0.19999999999999996]),
    ('general_hamming', 2, {'alpha': 0.6, 'sym': False}, [0.19999999999999996, 1.0]),
    ('general_hamming', 7, {'alpha': 0.6, 'sym': True}, [0.19999999999999996, 0.3999999999999999, 0.7999999999999999, 1.0, 0.7999999999999998, 0.3999999999999999, 0.19999999999999996]),
    ('general_hamming', 7, {'alpha': 0.6, 'sym': False}, [0.19999999999999996, 0.3506040792565065, 0.6890083735825258, 0.9603875471609676, 0.9603875471609676, 0.6890083735825259, 0.3506040792565066]),
    ('hamming', 0, {'sym': True}, []),
    ('hamming', 0, {'sym': False}, []),
    ('hamming', 1, {'sym': True}, [1.0]),
    ('hamming', 1, {'sym': False}, [1.0]),
    ('hamming', 2, {'sym': True}, [0.08000000000000007, 0.08000000000000007]),
    ('hamming', 2, {'sym': False}, [0.08000000000000007, 1.0]),
    ('hamming', 7, {'sym': True}, [0.08000000000000007, 0.31, 0.7699999999999999, 1.0, 0.7699999999999998, 0.31, 0.08000000000000007]),
    ('hamming', 7, {'sym': False}, [0.08000000000000007, 0.2531946911449826, 0.6423596296199047, 0.9544456792351128, 0.9544456792351128, 0.6423596296199048, 0.2531946911449827]),
    ('hann', 0, {'sym': True}, []),
    ('hann', 0, {'sym': False}, []),
    ('hann', 1, {'sym': True}, [1.0]),
    ('hann', 1, {'sym': False}, [1.0]),
    ('hann', 2, {'sym': True}, [0.0, 0.0]),
    ('hann', 2, {'sym': False}, [0.0, 1.0]),
    ('hann', 7, {'sym': True}, [0.0, 0.24999999999999994, 0.7499999999999999, 1.0, 0.7499999999999998, 0.24999999999999994, 0.0]),
    ('hann', 7, {'sym': False}, [0.0, 0.1882550990706332, 0.6112604669781572, 0.9504844339512095, 0.9504844339512095, 0.6112604669781573, 0.1882550990706333]),
    ('kaiser', 0, {'sym': True}, []),
    ('kaiser', 0, {'sym': False}, []),
    ('kaiser', 1, {'sym': True}, [1.0]),
    ('kaiser', 1, {'sym': False}, [1.0]),
    ('kaiser', 2, {'sym': True}, [5.2773441320097665e-05, 5.2773441320097665e-05]),
    ('kaiser', 2, {'sym': False}, [5.2773441320097665e-05, 1.0]),
    ('kaiser', 7, {'sym': True}, [5.2773441320097665e-05, 0.054759364131249516, 0.5188447216723614, 1.0, 0.5188447216723614, 0.054759364131249516, 5.2773441320097665e-05]),
    ('kaiser', 7, {'sym': False}, [5.2773441320097665e-05, 0.03276828844175176, 0.3308986366570736, 0.8888676640466566, 0.8888676640466582, 0.33089863665707414, 0.03276828844175176]),
    ('kaiser', 0, {'beta': 3.5, 'sym': True}, []),
    ('kaiser', 0, {'beta': 3.5, 'sym': False}, []),
    ('kaiser', 1, {'beta': 3.5, 'sym': True}, [1.0]),
    ('kaiser', 1, {'beta': 3.5, 'sym': False}, [1.0]),
    ('kaiser', 2, {'beta': 3.5, 'sym': True}, [0.13553434913875384, 0.13553434913875384]),
    ('kaiser', 2, {'beta': 3.5, 'sym': False}, [0.13553434913875384, 1.0]),
    ('kaiser', 7, {'beta': 3.5, 'sym': True}, [0.13553434913875384, 0.48486912419156175, 0.8459726478388895, 1.0, 0.8459726478388895, 0.48486912419156175, 0.13553434913875384]),
    ('kaiser', 7, {'beta': 3.5, 'sym': False}, [0.13553434913875384, 0.4290460539178907, 0.7551461951304805, 0.970289936102375, 0.970289936102375, 0.7551461951304805, 0.4290460539178907]),
    ('nuttall', 0, {'sym': True}, []),
    ('nuttall', 0, {'sym': False}, []),
    ('nuttall', 1, {'sym': True}, [1.0]),
    ('nuttall', 1, {'sym': False}, [1.0]),
    ('nuttall', 2, {'sym': True}, [0.0003628000000000381, 0.0003628000000000381]),
    ('nuttall', 2, {'sym': False}, [0.0003628000000000381, 1.0]),
    ('nuttall', 7, {'sym': True}, [0.0003628000000000381, 0.061334499999999986, 0.5292297999999999, 1.0, 0.5292297999999998, 0.061334499999999986, 0.0003628000000000381]),
    ('nuttall', 7, {'sym': False}, [0.0003628000000000381, 0.03777576895352025, 0.34272761996881945, 0.8918518610776603, 0.8918518610776603, 0.3427276199688196, 0.0377757689535203]),
]


@pytest.mark.parametrize("case", WINDOWS, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_window_values_float64(case):
    name, M, kwargs, expected = case
    w = getattr(_C.signal.windows, name)(M, dtype=_C.float64, **kwargs)
    assert w.shape == (M,)
    same(w, expected, _C.float64, rel=1e-13, abs_=1e-15)


def test_window_float32_default_dtype_and_keywords():
    W = _C.signal.windows
    # float32 windows round as torch's do (linspace and elementwise ops in float32).
    same(W.hann(7, dtype=_C.float32), [0.0, 0.25, 0.75, 1.0, 0.7499999403953552, 0.2500000596046448, 0.0], _C.float32, rel=1e-7, abs_=1e-7)
    same(W.kaiser(6, dtype=_C.float32, sym=False),
         [5.2773437346331775e-05, 0.05475936457514763, 0.5188445448875427, 1.0, 0.5188445448875427, 0.05475936457514763],
         _C.float32, rel=2e-6)
    same(W.gaussian(5), [0.1353352963924408, 0.6065306663513184, 1.0, 0.6065306663513184, 0.1353352963924408], _C.float32, rel=1e-7)
    w = W.hamming(4, requires_grad=True, device="cpu", layout=_C.strided)
    assert w.requires_grad and w.dtype == _C.float32
    assert set(_C.signal.windows.__all__) == {
        "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
        "hamming", "hann", "kaiser", "nuttall",
    }
    with pytest.raises(TypeError):
        W.hann(4, True)  # sym is keyword-only, as torch's


def test_window_errors():
    W = _C.signal.windows
    raises(ValueError, "hann requires non-negative window length, got M=-1".replace("hann", "general_cosine"), lambda: W.hann(-1))
    raises(ValueError, "general_cosine expects float32 or float64 dtypes, got: " + str(_C.int64), lambda: W.hann(3, dtype=_C.int64))
    raises(ValueError, "Tau must be positive, got: 0 instead.", lambda: W.exponential(3, tau=0))
    raises(ValueError, "Center must be None for symmetric windows", lambda: W.exponential(3, center=1.0))
    raises(ValueError, "Standard deviation must be positive, got: -1 instead.", lambda: W.gaussian(3, std=-1))
    raises(ValueError, "beta must be non-negative, got: -1 instead.", lambda: W.kaiser(3, beta=-1))
    raises(ValueError, "Coefficients cannot be empty", lambda: W.general_cosine(3, a=[]))
    raises(TypeError, "Coefficients must be a list/tuple", lambda: W.general_cosine(3, a=5))
    raises(ValueError, "bartlett is implemented for strided tensors only, got: sparse", lambda: W.bartlett(3, layout="sparse"))


# ---- polygamma, mvlgamma ------------------------------------------------------------------------

PGX = [-2.5, -0.5, 0.25, 1.0, 3.7, 10.0, 0.0, -1.0]
# torch.polygamma(n, torch.tensor(PGX, dtype=torch.float64)) for n = 0..4.
POLYGAMMA = [
    [1.1031566406452433, 0.03648997397857639, -4.2274535333762655, -0.5772156649015328, 1.1671535393615111, 2.251752589066721, -INF, NAN],
    [9.53924664493752, 8.934802200117687, 17.19732915341456, 1.6449340676383375, 0.3100378577128614, 0.10516633568216657, INF, 6.580790147320947e32],
    [-0.1082040516417282, -0.82879664423432, -129.32773993753688, -2.404113806319188, -0.09539530872855405, -0.011049834970802069, -INF, -INF],
    [194.74787621918756, 193.40909103400242, 1538.782144009189, 6.493939402266829, 0.05827921795656364, 0.0023199013042898686, INF, INF],
    [-0.06799599950675606, -3.4742498266672257, -24584.37538863795, -24.886266123440894, -0.05303861110795397, -0.0007299311682352869, -INF, -INF],
]


@pytest.mark.parametrize("n", range(5))
def test_polygamma_values(n):
    x = _C.tensor(PGX, dtype=_C.float64)
    # trigamma(-1): sin(-pi) is not exactly 0, so torch's reflection gives 6.6e32; same here.
    same(_C.polygamma(n, x), POLYGAMMA[n], _C.float64, rel=1e-11)
    same(x.polygamma(n), POLYGAMMA[n], _C.float64, rel=1e-11)
    assert _C.special.polygamma is _C.polygamma


def test_polygamma_dtypes_out_and_errors():
    assert _C.polygamma(2, _C.tensor([1, 2])).dtype == _C.float32
    assert _C.polygamma(2, _C.tensor([True])).dtype == _C.float32
    same(_C.polygamma(1, _C.tensor([0.3, 2.0, -1.7])), [12.245363235473633, 0.6449340581893921, 14.632208824157715], _C.float32, rel=2e-6)
    same(_C.tensor([1.5]).polygamma(3), [1.4091], rel=1e-4)
    out = _C.empty(2)
    assert _C.polygamma(2, _C.tensor([1.5, 2.5]), out=out) is out
    same(out, [-0.8288, -0.2362], rel=1e-3)
    raises(RuntimeError, "polygamma(n, x) does not support negative n.", lambda: _C.polygamma(-1, _C.tensor([1.0])))
    # Differentiable as torch (PolygammaBackward0; values in test_autograd.py).
    assert _C.polygamma(1, _C.tensor([1.0], requires_grad=True)).grad_fn.name() == "PolygammaBackward0"


def test_mvlgamma():
    same(_C.mvlgamma(_C.tensor([2.5, 3.0]), 2), [0.8570, 1.5502], _C.float32, rel=1e-4)
    same(_C.tensor([2.5, 3.0]).mvlgamma(p=3), [1.8810, 2.6949], _C.float32, rel=1e-4)
    raises(RuntimeError, "p has to be greater than or equal to 1", lambda: _C.mvlgamma(_C.tensor([2.5]), 0))


# ---- linalg.tensorinv, linalg.tensorsolve -------------------------------------------------------

# A2 = (torch.arange(16.).reshape(4, 4).sin() + 3 * torch.eye(4)).reshape(2, 2, 2, 2), float64.
TENSORINV = [[[[0.3427401171578959, -0.10960953239246851], [-0.12785135001812115, -0.028547226053822455]], [[0.08658269680428098, 0.45918154064420535], [0.04940945639459068, -0.07245612086749471]]], [[[-0.12259523871113558, -0.054910223419277225], [0.3965923313861285, 0.123268188448944]], [[0.07368449465929, -0.05406477279445951], [-0.13210713747345706, 0.24464252413069645]]]]
TENSORSOLVE = [[-0.37422190189669424, 0.8633496638064847], [1.4504340624044711, 0.5478036331727857]]
TENSORSOLVE_DIMS = [[-0.37422190189669424, 1.4504340624044711], [0.8633496638064848, 0.5478036331727856]]


def _a2():
    return (_C.arange(16.0, dtype=_C.float64).reshape(4, 4).sin() + 3 * _C.eye(4, dtype=_C.float64)).reshape(2, 2, 2, 2)


def test_tensorinv_tensorsolve_values():
    A2 = _a2()
    same(_C.linalg.tensorinv(A2), TENSORINV, _C.float64, rel=1e-12, abs_=1e-14)
    b = _C.tensor([[1.0, 2], [3, 4]], dtype=_C.float64)
    same(_C.linalg.tensorsolve(A2, b), TENSORSOLVE, _C.float64, rel=1e-12, abs_=1e-14)
    same(_C.linalg.tensorsolve(A2.permute(2, 0, 1, 3), b, dims=(0,)), TENSORSOLVE_DIMS, rel=1e-12, abs_=1e-14)
    assert _C.linalg.tensorinv(_C.eye(4).reshape(4, 2, 2), ind=1).shape == (2, 2, 4)
    assert _C.linalg.tensorsolve(_C.eye(6).reshape(2, 3, 6), _C.ones(2, 3)).shape == (6,)
    out = _C.empty(2, 2, 2, 2, dtype=_C.float64)
    assert _C.linalg.tensorinv(A2, out=out) is out
    same(out, TENSORINV, rel=1e-12, abs_=1e-14)


def test_tensorinv_tensorsolve_errors():
    raises(RuntimeError, "Expected a strictly positive integer for 'ind', but got 0", lambda: _C.linalg.tensorinv(_a2(), ind=0))
    raises(RuntimeError, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 12 != 2",
           lambda: _C.linalg.tensorinv(_C.zeros(2, 3, 4), ind=1))
    raises(_C.linalg.LinAlgError, "inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.",
           lambda: _C.linalg.tensorinv(_C.zeros(2, 2, 2, 2)))
    raises(RuntimeError, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got 12 != 2",
           lambda: _C.linalg.tensorsolve(_C.zeros(2, 3, 4), _C.zeros(2)))


# ---- broadcast_shapes ---------------------------------------------------------------------------


def test_broadcast_shapes():
    assert _C.broadcast_shapes((2,), (3, 1), (1, 1, 1)) == (1, 3, 2)
    assert _C.broadcast_shapes() == ()
    assert _C.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert _C.broadcast_shapes([2, 3], [3]) == (2, 3)
    assert _C.broadcast_shapes((2, 0), (1,)) == (2, 0)
    assert _C.broadcast_shapes((0,), (1,)) == (0,)
    assert _C.broadcast_shapes(_C.zeros(2, 1).shape, (4,)) == (2, 4)
    raises(RuntimeError, "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had (3,); "
           "but expected shape should be broadcastable to [2]", lambda: _C.broadcast_shapes((2,), (3,)))
    raises(ValueError, "Attempting to broadcast a dimension with negative length!", lambda: _C.broadcast_shapes((-1,), (3,)))
    with pytest.raises(TypeError):
        _C.broadcast_shapes("a")
    with pytest.raises(TypeError):
        _C.broadcast_shapes((2.0,))


# ---- unravel_index ------------------------------------------------------------------------------


def test_unravel_index():
    r = _C.unravel_index(_C.tensor([5, 7]), (2, 4))
    assert isinstance(r, tuple) and len(r) == 2
    same(r[0], [1, 1], _C.int64)
    same(r[1], [1, 3], _C.int64)
    r = _C.unravel_index(_C.tensor(5), 7)
    assert len(r) == 1 and r[0].shape == () and r[0].item() == 5
    # out-of-range and negative indices wrap, as torch's floor_divide and modulo.
    r = _C.unravel_index(_C.tensor([9, -1]), (2, 4))
    same(r[0], [0, 1])
    same(r[1], [1, 3])
    assert _C.unravel_index(_C.tensor([1], dtype=_C.int32), (2, 4))[0].dtype == _C.int64
    assert _C.unravel_index(_C.tensor([[3, 4]]), [2, 3])[0].shape == (1, 2)
    raises(TypeError, "expected 'indices' to be integer dtype, but got " + str(_C.float32),
           lambda: _C.unravel_index(_C.tensor([1.0]), (2,)))
    raises(ValueError, "'shape' cannot have negative values, but got (2, -1)", lambda: _C.unravel_index(_C.tensor([1]), (2, -1)))
    raises(ValueError, "'shape' cannot have zero dimensions when 'indices' is non-empty, but got (2, 0)",
           lambda: _C.unravel_index(_C.tensor([1]), (2, 0)))
    raises(TypeError, "expected 'shape' sequence to only contain ints, but got <class 'str'>",
           lambda: _C.unravel_index(_C.tensor([1]), "ab"))
    raises(TypeError, "expected 'shape' to be int or sequence of ints, but got <class 'float'>",
           lambda: _C.unravel_index(_C.tensor([1]), 2.0))


def test_huge_degrees_and_orders_do_not_hang_or_overflow():
    # torch materialises numel * p elements for mvlgamma: a huge p is an allocation error there.
    with pytest.raises((MemoryError, RuntimeError)):
        _C.mvlgamma(_C.tensor([3.0, 4.0]), 2**63 - 1)
    with pytest.raises((MemoryError, RuntimeError)):
        _C.mvlgamma(_C.tensor([3.0, 4.0]), 2**60)
    r = _C.polygamma(2**63 - 1, _C.tensor([1.5], dtype=_C.float64))
    assert r.shape == (1,)
    # int64 arithmetic on the degree wraps as torch's (no overflow panic): U_n(1) = n + 1.
    assert _C.special.chebyshev_polynomial_u(_C.tensor([1.0], dtype=_C.float64), 2**62).item() == float(2**62 + 1)
