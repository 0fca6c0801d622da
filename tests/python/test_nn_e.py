"""_C.nn.functional, issue 15 (session nn15e): grid_sample's bicubic mode, integer inputs of the
conv and pool ops, double backward through the nn kernel nodes, max pooling's choice among NaNs.
Expected values are torch 2.15's (printed by torch and written here; torch is not imported)."""

import pytest

import _C
import _C.nn.functional as F


def close(a, b, tol=1e-12):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert abs(u - v) <= tol * (1 + abs(v)), (a, b)


# ---- grid_sample, mode='bicubic' ---------------------------------------------------------------

# torch 2.15: x = arange(12).reshape(1, 1, 3, 4) ** 1.5 / 7 (float64), the grid below; the output,
# then the gradients of (output * [1, -2, 0.5, 3]).sum() for the input and the grid.
BICUBIC = {
    (False, 'zeros'): (
        [-0.03823368196062643, 2.500742773545899, 4.569424239652578, 0.19613333771245825],
        [0.27338167968749977, 0.17905535156249877, -0.013395374999999985, 0.0, -0.1837300390625003, -1.6167475546875, 0.06801423925781243, -0.04281941894531269, -0.05790937500000005, -0.6883143749999996, 0.3608413330078128, 0.343055737304687],
        [-0.30004869196846806, -0.022169019465042263, -2.1223018264572104, -10.226567240022113, 1.6902923002517813, -3.4039675299570358, -12.799280978622004, -2.390744659121129],
    ),
    (False, 'border'): (
        [-0.1318677600856267, 2.30927758058629, 5.097531554749304, 5.416487546651343],
        [1.1814775703125004, 0.16332405468749847, -0.013395374999999985, 0.0, -0.2524715703125023, -1.6167475546875, 0.06801423925781243, -0.25388495800781435, -0.04575600000000049, -0.6053264999999979, 0.40663113574218834, 3.4681349580078136],
        [-0.053614629468467644, -0.0412476132150432, -2.9811895039490888, -7.367977869308481, 0.7256540248003286, 0.4486519084274834, -0.5399648923150435, -2.669570334900752],
    ),
    (False, 'reflection'): (
        [-0.20912953890064873, 2.30927758058629, 5.1573518092062995, 5.730852269858055],
        [1.3730794375000002, 0.031440937499998704, -0.013395374999999985, 0.0, -0.3338234375000024, -1.5938184375, 0.09491132812500003, -0.6102382031250008, -0.04575600000000049, -0.6066224999999978, 0.1974840468750019, 4.006738203124999],
        [-0.053826814859613346, 0.3691573296935883, -2.9811895039490888, -7.367977869308481, 0.7292583607068795, 0.8412223283015303, -2.597203325971673, -1.304143093014776],
    ),
    (True, 'zeros'): (
        [0.05514458622931821, 2.2663321651845125, 4.841710841684578, 3.746715802534234],
        [0.9268318828125, 0.11246796093750061, -0.0033635156249998133, -0.0023878593750002296, 0.14690394531249992, -1.8460844140625001, 0.029360617187500104, -0.06407152343749731, 0.007100742187501004, -0.4383565859374999, 0.08600605468750086, 2.5592494140624997],
        [0.204925046169369, 0.6237461935989294, -2.2371045756049734, -6.844672334431967, 1.4614820439825338, 0.47801930549180954, -24.25324634260546, -6.055555314474595],
    ),
    (True, 'border'): (
        [0.06601510085203068, 2.172659957876065, 4.291714223505259, 5.375784140239863],
        [0.9861181874999994, 0.11740579687500058, -0.0033635156249998133, -0.002160468750000228, 0.1582362109374999, -1.8460844140625001, 0.029360617187500104, -0.0942936640624973, 0.004614351562501176, -0.38633114843750077, 0.02996188281250131, 3.5065361640624935],
        [0.08796231279787198, 0.7243599445080929, -2.1742852781363404, -5.205408706534101, 0.6287499441839564, 1.0313979176947807, 0.16521247548124773, 4.691928627623052],
    ),
    (True, 'reflection'): (
        [0.01325912364151437, 2.227179900589824, 4.540376362105544, 5.115290528887594],
        [0.9268318828125, 0.2517335390625008, -0.018329320312501257, -0.006829851562503719, 0.08734862499999987, -1.786171953125001, -0.02156374999999998, 0.030137078125002374, 0.007100742187501004, -0.580290101562501, 1.0507836953125018, 2.5592494140624997],
        [-0.062025298007571866, 0.20881740586144817, -2.1903163317205405, -6.1595077040249055, 0.7422145973368742, 0.7374920691874319, -2.4263662615484916, -1.2573774686986585],
    ),
}


def _bicubic_inputs():
    x = (_C.arange(12, dtype=_C.float64).reshape(1, 1, 3, 4) ** 1.5) / 7
    grid = _C.tensor([[[[-1.1, -0.9], [-0.3, 0.2], [0.45, 0.8], [1.2, 1.05]]]], dtype=_C.float64)
    return x, grid


@pytest.mark.parametrize("key", sorted(BICUBIC))
def test_grid_sample_bicubic_values_and_gradients(key):
    align_corners, padding_mode = key
    out, gx, gg = BICUBIC[key]
    x, grid = _bicubic_inputs()
    x.requires_grad_()
    grid.requires_grad_()
    y = F.grid_sample(x, grid, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners)
    assert y.shape == (1, 1, 1, 4)
    close(y.flatten().tolist(), out)
    w = _C.tensor([1.0, -2.0, 0.5, 3.0], dtype=_C.float64).reshape(1, 1, 1, 4)
    (y * w).sum().backward()
    close(x.grad.flatten().tolist(), gx)
    close(grid.grad.flatten().tolist(), gg)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_bicubic_gradcheck(padding_mode):
    _C.manual_seed(3)
    x = _C.randn(1, 2, 3, 4, dtype=_C.float64, requires_grad=True)
    grid = (_C.rand(1, 2, 3, 2, dtype=_C.float64) * 2.2 - 1.1).requires_grad_()

    def f(a, g):
        return F.grid_sample(a, g, mode="bicubic", padding_mode=padding_mode, align_corners=False)

    assert _C.autograd.gradcheck(f, (x, grid))
    assert _C.autograd.gradgradcheck(f, (x, grid))


def test_grid_sample_bicubic_float32_and_errors():
    x, grid = _bicubic_inputs()
    y = F.grid_sample(x.float(), grid.float(), mode="bicubic", align_corners=False)
    assert y.dtype == _C.float32
    close(y.flatten().tolist(), BICUBIC[(False, "zeros")][0], tol=1e-5)
    with pytest.raises(NotImplementedError, match="\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"):
        F.grid_sample(_C.ones(1, 1, 2, 2, dtype=_C.int64), _C.zeros(1, 1, 1, 2, dtype=_C.int64), mode="bicubic",
                      align_corners=False)


# torch 2.15 (5-d input: tricubic): x = arange(24).reshape(1, 1, 2, 3, 4) ** 1.5 / 9 (float64),
# the grid below; the output, then the gradients of (output * [1, -2, 0.5]).sum().
TRICUBIC = {
    'zeros': (
        [5.004354928483457, 5.032735797925671, 0.06191765510928954],
        [-0.08306203930664124, -0.01960404688476572, 0.08105444165039066, 0.05141880000000005, 0.5355683679199216, 0.04982338265429692, -0.011792651044921337, -0.007429990781250034, 0.4290394592285158, 0.03890396118164068, -0.005450592041015197, 0.017204589843749958, -0.03260028911132838, 0.19154110737304703, -1.296423170419922, -0.8284139999999998, 0.21020051733398437, -0.0012350321191407325, 0.13380537904101664, 0.08677022484375044, 0.16838992309570328, 0.015269073486328156, -0.0007666246582029334, -0.0027252070312499955],
        [5.395215233214415, 5.589832119901613, 11.145718627742417, -6.742594607361915, -21.07187010237821, 4.491803618982162, -0.23902490676256638, -0.2738744171957313, 0.07649668908123634],
    ),
    'border': (
        [3.67008285034053, 6.211274660702975, 3.4389394179884345],
        [-0.06757360706250048, -0.020914563445312603, 0.09637494475781266, 0.05166763200000009, 0.43570187718749964, 0.04338230633593753, -0.010987408054687033, -0.01814236921875005, 0.29374972987500025, 0.02839900710937506, -0.028372712484375166, 0.5809807880000002, -0.026148455437500284, 0.24858974313281323, -1.6739258119453162, -0.9021636320000012, 0.16860031031250053, -0.005695845398437596, 0.14535100961718872, 0.08007136921875048, 0.11367014512500055, 0.010989352265625068, 0.0011849781093751688, -0.044788788000000024],
        [0.7753096009754489, 3.019617244317419, 7.391782654123018, -2.6582498870006765, -2.0053625621390476, -5.262917286016648, -0.12917778589797418, -0.30130894630481614, -0.903775159376935],
    ),
    'reflection': (
        [3.67008285034053, 6.181810218462173, 2.8270722876503163],
        [-0.06757360706250048, -0.02286245144531233, 0.10936086475781086, 0.05866559999999911, 0.43570187718749964, 0.04387219433593749, -0.0036635340234367295, -0.08862725624999995, 0.29374972987500025, 0.02839900710937506, -0.10673204948437506, 0.7685221249999998, -0.026148455437500284, 0.25572163113281277, -1.7214717319453132, -0.9277855999999998, 0.16860031031250053, -0.011369733398437378, 0.18147013558593728, 0.11229725624999962, 0.11367014512500055, 0.010989352265625068, 0.015536315109375146, -0.12032212499999964],
        [0.7753096009754489, 3.019617244317419, 7.391782654123018, -2.6610788470406717, -3.771939857033754, -6.645506932830204, -0.15247542914855708, -0.6138457257304696, -0.3138001327963484],
    ),
}


@pytest.mark.parametrize("padding_mode", sorted(TRICUBIC))
def test_grid_sample_tricubic(padding_mode):
    out, gx, gg = TRICUBIC[padding_mode]
    x = ((_C.arange(24, dtype=_C.float64).reshape(1, 1, 2, 3, 4) ** 1.5) / 9).requires_grad_()
    grid = _C.tensor([[[[[-0.7, 0.3, -0.2], [0.45, -0.8, 0.6], [1.1, 1.2, -1.05]]]]], dtype=_C.float64)
    grid.requires_grad_()
    y = F.grid_sample(x, grid, mode="bicubic", padding_mode=padding_mode, align_corners=False)
    close(y.flatten().tolist(), out)
    (y * _C.tensor([1.0, -2.0, 0.5], dtype=_C.float64)).sum().backward()
    close(x.grad.flatten().tolist(), gx)
    close(grid.grad.flatten().tolist(), gg)
    # An impulse at (1, 2, 1) sampled at the centre (1.5, 1.5, 1.5): 0.59375 ** 3 (Keys' weight
    # of the pixel at distance 0.5 is 0.59375).
    z = _C.zeros(1, 1, 4, 4, 4, dtype=_C.float64)
    z[0, 0, 1, 2, 1] = 1
    v = F.grid_sample(z, _C.zeros(1, 1, 1, 1, 3, dtype=_C.float64), mode="bicubic", align_corners=False)
    assert abs(v.item() - 0.59375 ** 3) < 1e-15


# ---- double backward through the nn kernel nodes ----------------------------------------------

import json  # noqa: E402
import os  # noqa: E402

from nn_e_cases import CASES as DOUBLE_CASES  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "nn_e_expected.json")) as _f:
    DOUBLE_EXPECTED = json.load(_f)


@pytest.mark.parametrize("name", sorted(DOUBLE_CASES))
def test_double_backward_matches_torch(name):
    firsts, seconds = DOUBLE_CASES[name](_C, F)
    want_firsts, want_seconds = DOUBLE_EXPECTED[name]
    assert len(firsts) == len(want_firsts)
    for got, want in zip(firsts, want_firsts):
        close(got, want, tol=1e-10)
    assert len(seconds) == len(want_seconds)
    for got, want in zip(seconds, want_seconds):
        if want is None or got is None:
            # torch and _C may differ in leaving an input unused (None) or giving it zeros.
            assert all(v == 0 for v in (got or want or [])), (got, want)
        else:
            close(got, want, tol=1e-10)


# ---- integer inputs of conv and the pools (torch 2.15 CPU) ------------------------------------

INTS = [_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64]


def _ints(shape, dtype, mod=7):
    n = 1
    for s in shape:
        n *= s
    vals = [(i * 5 + 3) % mod for i in range(n)]
    return _C.tensor(vals, dtype=dtype).reshape(shape)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_integer_convolution_is_the_exact_float_one(dtype, dims):
    # Small integers: the float64 convolution is exact, so it is an independent reference.
    x = _ints([2, 4] + [5] * dims, dtype)
    w = _ints([6, 2] + [2] * dims, dtype, mod=3)
    b = _C.tensor([1, 0, 2, 1, 0, 3], dtype=dtype)
    conv = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    y = conv(x, w, b, stride=2, padding=1, dilation=1, groups=2)
    want = conv(x.double(), w.double(), b.double(), stride=2, padding=1, dilation=1, groups=2)
    assert y.dtype == dtype
    assert y.tolist() == want.to(dtype).tolist()


def test_integer_convolution_wraps_as_torch():
    # torch 2.15: conv3d of uint8 ones-weighted sums 680, 696, ... wraps to 168, 184, ...
    x = _C.arange(2 * 2 * 4 * 4 * 4).reshape(2, 2, 4, 4, 4).to(_C.uint8)
    y = F.conv3d(x, _C.ones(3, 2, 2, 2, 2, dtype=_C.uint8))
    assert y.flatten()[:4].tolist() == [168, 184, 200, 232]


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_int64_transposed_convolution_is_the_exact_float_one(dims):
    x = _ints([2, 4] + [3] * dims, _C.int64)
    w = _ints([4, 3] + [2] * dims, _C.int64, mod=3)
    conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
    y = conv(x, w, _C.tensor([1, -2, 3, 0, 1, 1]), stride=2, padding=1, output_padding=1, groups=2)
    want = conv(x.double(), w.double(), _C.tensor([1.0, -2, 3, 0, 1, 1], dtype=_C.float64), stride=2, padding=1,
                output_padding=1, groups=2)
    assert y.dtype == _C.int64
    assert y.tolist() == want.long().tolist()


def test_integer_convolution_errors_as_torch():
    for dims, kernel in [(1, "slow_conv_transpose2d_out_cpu"), (2, "slow_conv_transpose2d_out_cpu"),
                         (3, "slow_conv_transpose3d_out_cpu")]:
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        for dt, name in [(_C.int32, "Int"), (_C.uint8, "Byte"), (_C.bool, "Bool")]:
            x = _C.ones([1, 2] + [3] * dims, dtype=dt)
            with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'{name}\''):
                conv(x, _C.ones([2, 2] + [2] * dims, dtype=dt))
    for dims, kernel in [(1, "slow_conv2d_cpu"), (2, "slow_conv2d_cpu"), (3, "compute_columns3d")]:
        conv = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Bool\''):
            conv(_C.ones([1, 2] + [3] * dims, dtype=_C.bool), _C.ones([2, 2] + [2] * dims, dtype=_C.bool))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_max_pools_are_the_float_ones(dtype):
    x = _ints([2, 3, 4, 5, 6], dtype, mod=11)
    for fn, inp, args in [
        (F.max_pool1d, x[0, :, 0, 0], (3, 2, 1)),
        (F.max_pool2d, x[0], (3, 2, 1)),
        (F.max_pool3d, x, (2, 2, 1)),
    ]:
        v, i = fn(inp, *args, return_indices=True)
        fv, fi = fn(inp.double(), *args, return_indices=True)
        assert v.dtype == dtype
        assert v.tolist() == fv.to(dtype).tolist()
        assert i.tolist() == fi.tolist()
    assert F.max_pool2d(x[0], 2).tolist() == F.max_pool2d(x[0].double(), 2).to(dtype).tolist()


def test_int64_max_pool_is_exact_beyond_2_to_53():
    big = 2 ** 62
    x = _C.tensor([[[big, big + 1, big + 1, big - 1, 5, -big]]])
    v, i = F.max_pool1d(x, 3, 3, return_indices=True)
    assert v.tolist() == [[[big + 1, big - 1]]]
    assert i.tolist() == [[[1, 3]]]  # the first of equal maxima, as torch


def test_integer_pool_errors_as_torch():
    x = _C.ones(1, 2, 4, dtype=_C.int64)
    with pytest.raises(NotImplementedError, match="\"max_pool1d_impl\" not implemented for 'Long'"):
        F.max_pool1d(x, 2)
    with pytest.raises(NotImplementedError, match="\"max_pool3d\" not implemented for 'Bool'"):
        F.max_pool3d(_C.ones(1, 2, 2, 2, dtype=_C.bool), 2)
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        F.avg_pool2d(_C.ones(1, 2, 2, dtype=_C.int32), 2)
    for fn, dims, kernel in [(F.max_unpool1d, 1, "max_unpool2d"), (F.max_unpool2d, 2, "max_unpool2d"),
                             (F.max_unpool3d, 3, "max_unpool3d")]:
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
            fn(_C.ones([1, 1] + [1] * dims, dtype=_C.int64), _C.zeros([1, 1] + [1] * dims, dtype=_C.int64), 2)


# torch 2.15's int64 average pools (sums divided with truncation) and lp pools (float32) of
# x2 = (arange(120).reshape(2, 3, 5, 4) * 37 % 23 - 11), x1 = x2[:, :, 0],
# x3 = (arange(120).reshape(1, 2, 3, 4, 5) * 29 % 19 - 9): (dtype, shape, values).
INT_POOLS = {
    'avg_pool1d': ('int64', [2, 3, 3], [-4, 1, 8, 0, -2, -11, 4, 2, -7, -3, -1, -3, 0, 2, 1, 4, -1, 5]),
    'avg_pool1d_pad': ('int64', [2, 3, 5], [-5, -4, -1, 1, 4, -3, 0, 2, -6, -5, -1, 4, 6, -2, -3, 0, -3, -1, 1, -1, 2, 0, 3, 5, 0, 4, 4, -4, -2, 2]),
    'avg_pool2d': ('int64', [2, 3, 3, 3], [-2, 0, 0, 0, -1, -1, 1, 1, -1, 0, 0, -2, -2, 0, 0, 0, -1, 0, 1, 0, 0, 0, -1, -1, 0, 1, 1, 0, 0, 0, 0, -2, 0, 1, 0, 0, 0, 2, 2, -1, 1, 2, -2, 0, 0, 1, 0, 0, 1, 0, -2, 0, 0, -2]),
    'avg_pool2d_nopad': ('int64', [2, 3, 3, 4], [-4, -4, 1, 1, 0, -1, -2, -1, 2, 3, 2, 1, 0, 0, -2, -6, -2, -1, 1, 2, 0, 0, -1, 0, 4, 3, 2, -2, 1, 0, -2, -4, -1, 0, 2, 3, -3, 0, -1, 1, 0, 0, -2, 0, 2, 0, -1, -3, 0, 3, 2, 5, -1, 0, 2, 3, -4, -3, -1, 0, 4, 0, -1, -2, 2, 3, 2, 1, 0, 0, 0, -1]),
    'avg_pool2d_div': ('int64', [2, 3, 4, 3], [-6, -3, 0, 0, -5, -1, 5, 0, -3, 3, 6, 2, -1, 2, -2, -3, 0, 3, -5, -1, 1, 0, -3, 0, 4, 0, -4, 2, -2, -6, 0, 3, 0, -1, 1, 5, 2, -2, 1, 0, -4, -1, -2, -6, -3, 3, 0, -5, 0, 3, 6, -2, 1, 4, -4, -1, 2, -6, -3, 0, 5, 0, -3, 3, 6, 2, 1, 4, 0, -1, 2, -2]),
    'avg_pool3d': ('int64', [1, 2, 4, 3, 3], [-2, -1, -1, 1, 2, -2, 3, 4, -9, -2, -1, 0, 1, 0, 0, 3, 0, -4, -2, -1, 0, 1, 0, 0, 4, -4, -3, -1, 0, 0, 2, 0, -1, 4, -4, -8, -1, 0, 0, 0, 0, 2, -4, -3, 2, -1, 0, 0, 0, 0, 1, -4, -3, -2, 0, 0, 1, 0, 1, -1, -3, -2, -2, 0, 0, 1, 0, 1, -2, -3, -2, 3]),
    'lp_pool2d': ('float32', [2, 3, 2, 2], [15.099669456481934, 11.832159996032715, 14.0, 12.961482048034668, 11.832159996032715, 13.711309432983398, 14.0, 12.0, 13.416407585144043, 13.416407585144043, 11.832159996032715, 13.416407585144043, 13.711309432983398, 11.832159996032715, 13.711309432983398, 12.649110794067383, 11.832159996032715, 15.099669456481934, 13.416407585144043, 12.328827857971191, 14.0, 12.961482048034668, 11.832159996032715, 15.748016357421875]),
    'lp_pool1d': ('float32', [2, 3, 1], [12.845232009887695, 10.099504470825195, 11.48912525177002, 9.949873924255371, 11.87434196472168, 12.727921485900879]),
}


def test_int64_average_and_lp_pools_as_torch():
    x2 = _C.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) * 37 % 23 - 11
    x1 = x2[:, :, 0]
    x3 = _C.arange(1 * 2 * 3 * 4 * 5).reshape(1, 2, 3, 4, 5) * 29 % 19 - 9
    got = {
        "avg_pool1d": F.avg_pool1d(x1, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        "avg_pool1d_pad": F.avg_pool1d(x1, 2, 1, 1),
        "avg_pool2d": F.avg_pool2d(x2, 3, 2, 1, ceil_mode=True),
        "avg_pool2d_nopad": F.avg_pool2d(x2, (2, 3), (2, 1), (1, 1), count_include_pad=False),
        "avg_pool2d_div": F.avg_pool2d(x2, 2, 1, divisor_override=3),
        "avg_pool3d": F.avg_pool3d(x3, (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True, count_include_pad=False),
        "lp_pool2d": F.lp_pool2d(x2, 2, 2),
        "lp_pool1d": F.lp_pool1d(x1, 2, 3, 2),
    }
    for name, (dtype, shape, values) in INT_POOLS.items():
        y = got[name]
        assert str(y.dtype).split(".")[-1] == dtype, name
        assert list(y.shape) == shape, name
        if dtype == "int64":
            assert y.flatten().tolist() == values, name
        else:
            close(y.flatten().tolist(), values, tol=1e-6)


def test_uint8_nearest_interpolation_and_integer_errors():
    u = _C.arange(2 * 2 * 3 * 3).reshape(2, 2, 3, 3).to(_C.uint8)
    # torch 2.15's first values.
    assert F.interpolate(u, size=(4, 5), mode="nearest").flatten()[:6].tolist() == [0, 0, 1, 1, 2, 0]
    assert F.interpolate(u[0], size=5, mode="nearest-exact").flatten()[:6].tolist() == [0, 0, 1, 2, 2, 3]
    y = F.interpolate(u.unsqueeze(2), size=(2, 4, 5), mode="nearest")
    assert y.dtype == _C.uint8 and y.flatten()[:6].tolist() == [0, 0, 1, 1, 2, 0]
    for inp, kernel in [(u[0].long(), "compute_indices_weights_nearest"), (u.long(), "upsample_nearest2d_channels_last"),
                        (u.unsqueeze(2).long(), "compute_indices_weights_nearest")]:
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
            F.interpolate(inp, scale_factor=2)
    for mode, name in [("reflect", "reflection_pad"), ("replicate", "replication_pad")]:
        for n in (1, 2, 3):
            b = _C.ones([1, 1] + [2] * n, dtype=_C.bool)
            with pytest.raises(NotImplementedError, match=f"\"{name}{n}d\" not implemented for 'Bool'"):
                F.pad(b, [1, 1] * n, mode=mode)


# ---- NaN among the maxima (torch: `val > maxval || isnan(val)`, the last NaN) ------------------

def test_max_pools_pick_the_last_nan():
    nan = float("nan")
    x = _C.tensor([[[1.0, nan, 3.0, nan, 2.0, 5.0, nan, nan]]])
    # torch 2.15's indices.
    assert F.max_pool1d(x, 4, return_indices=True)[1].tolist() == [[[3, 7]]]
    assert F.max_pool1d(x, 2, return_indices=True)[1].tolist() == [[[1, 3, 5, 7]]]
    assert F.max_pool2d(x.reshape(1, 1, 2, 4), 2, return_indices=True)[1].tolist() == [[[[1, 7]]]]
    assert F.adaptive_max_pool1d(x, 2, return_indices=True)[1].tolist() == [[[3, 7]]]
    assert F.adaptive_max_pool2d(x.reshape(1, 1, 2, 4), 1, return_indices=True)[1].tolist() == [[[[7]]]]
    assert F.max_pool3d(x.reshape(1, 1, 2, 2, 2), 2, return_indices=True)[1].tolist() == [[[[[7]]]]]
    assert F.adaptive_max_pool3d(x.reshape(1, 1, 2, 2, 2), 1, return_indices=True)[1].tolist() == [[[[[7]]]]]
    xx = x.double().requires_grad_()
    F.max_pool1d(xx, 4).sum().backward()
    assert xx.grad.tolist() == [[[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]]]


# ---- batch_norm of 1-d input: torch's checks ----------------------------------------------------

def test_batch_norm_of_1d_input_as_torch():
    x = _C.arange(3.0)
    cases = [
        (dict(running_mean=None, running_var=None, training=True), IndexError,
         r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"),
        (dict(running_mean=_C.zeros(3), running_var=_C.ones(3), training=True), RuntimeError,
         "running_mean should contain 0 elements not 3"),
        (dict(running_mean=_C.zeros(1), running_var=_C.ones(1), training=False), RuntimeError,
         "running_mean should contain 0 elements not 1"),
        (dict(running_mean=_C.zeros(0), running_var=_C.ones(0), training=False), IndexError, "Dimension out of range"),
        (dict(running_mean=None, running_var=None, training=False), RuntimeError,
         "running_mean must be defined in evaluation mode"),
        (dict(running_mean=None, running_var=None, weight=_C.ones(3), training=True), RuntimeError,
         "weight should contain 0 elements not 3"),
    ]
    for kw, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            F.batch_norm(x, **kw)
    with pytest.raises(IndexError, match="tuple index out of range"):
        F.batch_norm(_C.tensor(1.0), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_var must be defined in evaluation mode"):
        F.batch_norm(_C.ones(2, 3), _C.zeros(3), None, training=False)


def test_bilinear_of_integers_keeps_their_dtype():
    # torch 2.15: int32 inputs give int32; int8 arithmetic wraps modulo 256.
    x1 = _ints([2, 3], _C.int32, mod=5)
    x2 = _ints([2, 4], _C.int32, mod=4)
    w = _ints([5, 3, 4], _C.int32, mod=6)
    b = _C.tensor([1, -2, 0, 3, 1], dtype=_C.int32)
    y = F.bilinear(x1, x2, w, b)
    want = F.bilinear(x1.double(), x2.double(), w.double(), b.double())
    assert y.dtype == _C.int32
    assert y.tolist() == want.to(_C.int32).tolist()
    y8 = F.bilinear(x1.to(_C.int8) * 3, x2.to(_C.int8) * 3, w.to(_C.int8) * 3)
    want8 = F.bilinear((x1 * 3).double(), (x2 * 3).double(), (w * 3).double()).long()
    assert y8.dtype == _C.int8
    assert y8.tolist() == ((want8 + 128) % 256 - 128).tolist()
