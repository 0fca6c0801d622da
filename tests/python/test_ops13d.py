"""tests/python/test_ops13d.py: issue 13 part 5 — the in-place samplers geometric_, cauchy_,
log_normal_, random_ (all overloads), bernoulli_ with a tensor p, multinomial; the `*_copy`
variants, unsafe_split/unsafe_chunk and fill.

Samplers are checked statistically (bounds of 6 standard errors computed from the sample size,
the seed fixed) and by torch 2.15's error texts (recorded from torch, not from _C); the copies
against the view ops they copy and against values written from torch's documentation.
"""

import math

import pytest

import _C

N = 20000


def _mean_var(v):
    m = sum(v) / len(v)
    return m, sum((x - m) ** 2 for x in v) / (len(v) - 1)


# ---- samplers ------------------------------------------------------------------------------


def test_geometric_moments_support_and_dtypes():
    _C.manual_seed(0)
    p = 0.25
    t = _C.zeros(N, dtype=_C.float64)
    assert t.geometric_(p) is t
    v = t.tolist()
    assert all(x >= 1 and x == int(x) for x in v)
    m, var = _mean_var(v)
    # Geometric on {1, 2, ...}: mean 1/p = 4, variance (1 - p)/p^2 = 12.
    se = math.sqrt(12 / N)
    assert abs(m - 4) < 6 * se
    assert abs(var - 12) < 1.5
    # Integer dtypes hold the counts (torch: any dtype but bool).
    i = _C.zeros(1000, dtype=_C.int32).geometric_(0.5)
    assert i.dtype is _C.int32 and min(i.tolist()) >= 1


def test_geometric_errors():
    for p in (0, 1, 1.5, float("nan")):
        s = "nan" if p != p else ("1.5" if p == 1.5 else str(p))
        with pytest.raises(RuntimeError, match=rf"^geometric_ expects p to be in \(0, 1\), but got p={s}$"):
            _C.zeros(3).geometric_(p)
    with pytest.raises(NotImplementedError, match="^\"geometric_cpu\" not implemented for 'Bool'$"):
        _C.zeros(3, dtype=_C.bool).geometric_(0.5)
    with pytest.raises(TypeError):
        _C.zeros(3).geometric_()


def test_cauchy_quartiles():
    _C.manual_seed(1)
    t = _C.zeros(N).cauchy_(2.0, 0.5)
    v = t.tolist()
    # Cauchy(median 2, scale 0.5): P(X < 2) = 1/2, P(X < 2.5) = 3/4.
    below_med = sum(x < 2.0 for x in v) / N
    below_q3 = sum(x < 2.5 for x in v) / N
    assert abs(below_med - 0.5) < 6 * math.sqrt(0.25 / N)
    assert abs(below_q3 - 0.75) < 6 * math.sqrt(0.75 * 0.25 / N)
    # Defaults: median 0, sigma 1.
    d = _C.zeros(N, dtype=_C.float64).cauchy_().tolist()
    assert abs(sum(x < 1.0 for x in d) / N - 0.75) < 6 * math.sqrt(0.75 * 0.25 / N)


def test_cauchy_errors():
    with pytest.raises(RuntimeError, match="^cauchy_ expects sigma > 0.0, but found sigma=0$"):
        _C.zeros(3).cauchy_(0, 0)
    with pytest.raises(RuntimeError, match="^cauchy_ expects sigma > 0.0, but found sigma=-1$"):
        _C.zeros(3).cauchy_(0, -1)
    for dt, name in ((_C.int64, "long int"), (_C.int32, "int"), (_C.int16, "short int"),
                     (_C.int8, "signed char"), (_C.uint8, "unsigned char"), (_C.bool, "bool")):
        with pytest.raises(RuntimeError, match="^Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {name}$"):
            _C.zeros(3, dtype=dt).cauchy_()


def test_log_normal_moments_of_the_log():
    _C.manual_seed(2)
    t = _C.zeros(N, dtype=_C.float64)
    assert t.log_normal_(1.0, 0.5) is t
    v = t.tolist()
    assert min(v) > 0
    m, var = _mean_var([math.log(x) for x in v])
    assert abs(m - 1.0) < 6 * 0.5 / math.sqrt(N)
    assert abs(var - 0.25) < 0.02
    # Defaults mean=1, std=2: the log has mean 1.
    d = _C.zeros(N).log_normal_().tolist()
    assert abs(sum(math.log(x) for x in d) / N - 1.0) < 6 * 2 / math.sqrt(N)


def test_log_normal_errors():
    with pytest.raises(RuntimeError, match="^log_normal_ expects std > 0.0, but found std=0$"):
        _C.zeros(3).log_normal_(1, 0)
    with pytest.raises(RuntimeError, match="^log_normal_ expects std > 0.0, but found std=nan$"):
        _C.zeros(3).log_normal_(1, float("nan"))
    with pytest.raises(NotImplementedError, match="^\"log_normal_cpu\" not implemented for 'Long'$"):
        _C.zeros(3, dtype=_C.int64).log_normal_()


def test_random_without_bounds_covers_the_dtype_range():
    _C.manual_seed(3)
    u8 = _C.zeros(N, dtype=_C.uint8).random_().tolist()
    assert min(u8) >= 0 and max(u8) <= 255 and len(set(u8)) == 256
    b = _C.zeros(1000, dtype=_C.bool).random_().tolist()
    assert set(b) == {False, True}
    f = _C.zeros(N).random_().tolist()
    # float32: integers uniform in [0, 2^24]; mean 2^23.
    assert all(x == int(x) and 0 <= x <= 2**24 for x in f)
    assert abs(sum(f) / N - 2**23) < 6 * (2**24 / math.sqrt(12)) / math.sqrt(N)
    i64 = _C.zeros(1000, dtype=_C.int64).random_().tolist()
    assert min(i64) >= 0 and max(i64) > 2**62
    d = _C.zeros(1000, dtype=_C.float64).random_().tolist()
    assert max(d) > 2**52 and max(d) <= 2**53


def test_random_from_with_to_none():
    _C.manual_seed(4)
    v = _C.zeros(N, dtype=_C.uint8).random_(250, None).tolist()
    assert set(v) == {250, 251, 252, 253, 254, 255}
    assert _C.zeros(3, dtype=_C.uint8).random_(255, None).tolist() == [255, 255, 255]
    assert _C.zeros(3, dtype=_C.bool).random_(1, None).tolist() == [True, True, True]
    f = _C.zeros(1000).random_(-5, None).tolist()
    assert min(f) >= -5 and max(f) <= 2**24
    with pytest.raises(RuntimeError, match="^from is out of bounds for unsigned char$"):
        _C.zeros(3, dtype=_C.uint8).random_(300, None)
    with pytest.raises(RuntimeError, match="^from is out of bounds for unsigned char$"):
        _C.zeros(3, dtype=_C.uint8).random_(-3, None)
    with pytest.raises(RuntimeError, match="^from is out of bounds for bool$"):
        _C.zeros(3, dtype=_C.bool).random_(2, None)
    with pytest.raises(RuntimeError, match="^random_ expects 'from' casted to dtype to be less than or equal to "
                       "'to_inc' casted to dtype, but got from=16777216 > to_inc=16777216$"):
        _C.zeros(3).random_(2**24, None)
    # The two-bound and one-bound overloads keep their meaning.
    assert set(_C.zeros(500, dtype=_C.int64).random_(2, 4).tolist()) == {2, 3}
    assert set(_C.zeros(500, dtype=_C.int64).random_(2).tolist()) == {0, 1}


def test_bernoulli_tensor_p_broadcasts():
    _C.manual_seed(5)
    p = _C.tensor([0.1, 0.9])
    t = _C.zeros(N, 2)
    assert t.bernoulli_(p) is t
    col0 = sum(r[0] for r in t.tolist()) / N
    col1 = sum(r[1] for r in t.tolist()) / N
    assert abs(col0 - 0.1) < 6 * math.sqrt(0.09 / N)
    assert abs(col1 - 0.9) < 6 * math.sqrt(0.09 / N)
    # Any self dtype, a floating p (float64 too); p of exactly 0 and 1 are exact.
    i = _C.zeros(4, dtype=_C.int32).bernoulli_(_C.tensor([1.0, 0.0, 1.0, 0.0], dtype=_C.float64))
    assert i.tolist() == [1, 0, 1, 0] and i.dtype is _C.int32
    assert _C.zeros(3, dtype=_C.bool).bernoulli_(_C.tensor(1.0)).tolist() == [True] * 3
    # The float overload still takes numbers and the p= keyword.
    assert _C.zeros(3).bernoulli_(p=1.0).tolist() == [1.0] * 3


def test_bernoulli_tensor_p_errors():
    msg = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
           "improved?  If so, please report an enhancement request to PyTorch.)")
    with pytest.raises(RuntimeError) as e:
        _C.zeros(3).bernoulli_(_C.tensor([0.5, 0.1, 2.0]))
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:
        _C.zeros(3).bernoulli_(_C.tensor([0.5, 0.1, float("nan")]))
    assert str(e.value) == msg
    for dt, name in ((_C.int64, "Long"), (_C.int32, "Int"), (_C.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"^\"bernoulli_tensor_cpu_p_\" not implemented for '{name}'$"):
            _C.zeros(3).bernoulli_(_C.ones(3, dtype=dt))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        _C.zeros(3).bernoulli_(_C.tensor([0.5, 0.1]))


def test_samplers_follow_the_seed_and_refuse_grad():
    for call in (lambda t: t.geometric_(0.3), lambda t: t.cauchy_(), lambda t: t.log_normal_(),
                 lambda t: t.random_(), lambda t: t.bernoulli_(_C.tensor([0.5]))):
        _C.manual_seed(11)
        a = call(_C.zeros(6)).tolist()
        _C.manual_seed(11)
        assert call(_C.zeros(6)).tolist() == a
        g = _C.Generator().manual_seed(11)
        t = _C.zeros(3)
        v = t._version
        call(t)
        assert t._version == v + 1
        del g
    # torch's leaf check (torch 2.15: RuntimeError "a leaf Variable that requires grad ...").
    w = _C.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        w.geometric_(0.5)
    g = _C.Generator().manual_seed(9)
    a = _C.zeros(5).cauchy_(generator=g).tolist()
    g.manual_seed(9)
    assert _C.zeros(5).cauchy_(generator=g).tolist() == a


def test_multinomial_with_replacement_frequencies():
    _C.manual_seed(6)
    w = _C.tensor([0.0, 1.0, 3.0])
    s = _C.multinomial(w, N, True)
    assert s.dtype is _C.int64 and s.shape == (N,)
    v = s.tolist()
    assert 0 not in v
    f2 = v.count(2) / N
    assert abs(f2 - 0.75) < 6 * math.sqrt(0.75 * 0.25 / N)
    # 2-D: one row per distribution; the method and the keywords.
    m = _C.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=_C.float64).multinomial(num_samples=5, replacement=True)
    assert m.tolist() == [[0] * 5, [1] * 5]


def test_multinomial_without_replacement():
    _C.manual_seed(7)
    s = _C.multinomial(_C.tensor([1.0, 2.0, 3.0, 4.0]), 4)
    assert sorted(s.tolist()) == [0, 1, 2, 3]
    # Zero weights come after every positive one (torch: multinomial([0, 1, 2], 3) -> [2, 1, 0] or [1, 2, 0]).
    for _ in range(20):
        r = _C.multinomial(_C.tensor([0.0, 1.0, 2.0]), 3).tolist()
        assert r[2] == 0 and sorted(r) == [0, 1, 2]
    # First draws are proportional to the weights.
    firsts = [_C.multinomial(_C.tensor([1.0, 3.0]), 1).item() for _ in range(4000)]
    assert abs(firsts.count(1) / 4000 - 0.75) < 6 * math.sqrt(0.75 * 0.25 / 4000)
    assert _C.multinomial(_C.ones(0, 3), 1).shape == (0, 1)
    out = _C.zeros(2, dtype=_C.int64)
    assert _C.multinomial(_C.tensor([1.0, 1.0]), 2, out=out) is out
    assert sorted(out.tolist()) == [0, 1]


def test_multinomial_errors():
    cases = [
        (lambda: _C.multinomial(_C.tensor([1, 2, 3]), 1), "multinomial only supports floating-point dtypes for input, got: Long"),
        (lambda: _C.multinomial(_C.tensor(1.0), 1), "prob_dist must be 1 or 2 dim"),
        (lambda: _C.multinomial(_C.ones(2, 2, 2), 1), "prob_dist must be 1 or 2 dim"),
        (lambda: _C.multinomial(_C.tensor([0.0, 1.0]), 0), "cannot sample n_sample <= 0 samples"),
        (lambda: _C.multinomial(_C.tensor([0.0, 1.0]), -1), "cannot sample n_sample <= 0 samples"),
        (lambda: _C.multinomial(_C.ones(2, 3), 4), "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
        (lambda: _C.multinomial(_C.tensor([0.0, -1.0, 2.0]), 1), "probability tensor contains either `inf`, `nan` or element < 0"),
        (lambda: _C.multinomial(_C.tensor([0.0, float("inf")]), 1), "probability tensor contains either `inf`, `nan` or element < 0"),
        (lambda: _C.multinomial(_C.tensor([0.0, float("nan")]), 1), "probability tensor contains either `inf`, `nan` or element < 0"),
        (lambda: _C.multinomial(_C.tensor([0.0, 0.0]), 1), "invalid multinomial distribution (sum of probabilities <= 0)"),
        (lambda: _C.multinomial(_C.tensor([[1.0, 0.0], [0.0, 0.0]]), 1, True), "invalid multinomial distribution (sum of probabilities <= 0)"),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg


# ---- the *_copy variants ---------------------------------------------------------------------


def _is_fresh_contiguous(r, x):
    """r is contiguous, not a view, and writing to it leaves x as it was."""
    before = x.tolist()
    ok = r.is_contiguous() and r._base is None
    r.fill_(-1)
    return ok and x.tolist() == before


def test_copy_variants_match_their_views_and_do_not_alias():
    x = _C.arange(24.0).reshape(2, 3, 4)
    cases = [
        (_C.view_copy(x, [6, 4]), x.view(6, 4)),
        (_C.expand_copy(x[:, :1], [2, 5, 4]), x[:, :1].expand(2, 5, 4)),
        (_C.permute_copy(x, [2, 0, 1]), x.permute(2, 0, 1)),
        (_C.t_copy(x[0]), x[0].t()),
        (_C.transpose_copy(x, 0, 2), x.transpose(0, 2)),
        (_C.unsqueeze_copy(x, 1), x.unsqueeze(1)),
        (_C.squeeze_copy(x[:1]), x[:1].squeeze()),
        (_C.squeeze_copy(x[:1], 0), x[:1].squeeze(0)),
        (_C.squeeze_copy(x[:1, :1], [0, 1]), x[:1, :1].squeeze([0, 1])),
        (_C.diagonal_copy(x, 1, 1, 2), x.diagonal(1, 1, 2)),
        (_C.select_copy(x, 1, -1), x.select(1, -1)),
        (_C.narrow_copy(x, 2, 1, 2), x.narrow(2, 1, 2)),
        (x.narrow_copy(0, 1, 1), x.narrow(0, 1, 1)),
        (_C.unfold_copy(x, 2, 2, 1), x.unfold(2, 2, 1)),
        (_C.as_strided_copy(x, [3, 2], [1, 3], 2), x.as_strided([3, 2], [1, 3], 2)),
        (_C.alias_copy(x.transpose(0, 1)), x.transpose(0, 1)),
    ]
    for r, view in cases:
        assert r.shape == view.shape and r.dtype is view.dtype
        assert r.tolist() == view.tolist()
    for r, _ in cases:
        assert _is_fresh_contiguous(r, x)
    y = _C.view_copy(x, [24])
    y[0] = 100.0
    assert x[0, 0, 0].item() == 0.0
    # torch.permute_copy(arange(6).reshape(2, 3), (1, 0)).stride() == (2, 1)
    assert _C.permute_copy(_C.arange(6).reshape(2, 3), [1, 0]).stride() == (2, 1)


def test_copy_variants_out_and_errors():
    x = _C.arange(6.0).reshape(2, 3)
    out = _C.zeros(3, 2)
    assert _C.t_copy(x, out=out) is out
    assert out.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    out = _C.zeros(6)
    _C.view_copy(x, [-1], out=out)
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    # The view ops' errors (torch's texts).
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 6"):
        _C.view_copy(x, [4])
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.transpose_copy(x, 0, 2)
    with pytest.raises(TypeError):
        _C.view_copy(x, "a")
    with pytest.raises(RuntimeError, match=r"^Expected dim < static_cast<int64_t>\(self_sizes.size\(\)\) to be true"):
        _C.narrow_copy(x, 2, 0, 1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)"):
        _C.narrow_copy(x, -3, 0, 1)
    with pytest.raises(RuntimeError, match=r"^start \(2\) \+ length \(3\) exceeds dimension size \(3\).$"):
        _C.narrow_copy(x, 1, 2, 3)


def test_copy_variants_of_lists_and_unsafe_splits():
    x = _C.arange(10.0).reshape(5, 2)
    parts = _C.unbind_copy(x, 1)
    assert [p.tolist() for p in parts] == [[0.0, 2.0, 4.0, 6.0, 8.0], [1.0, 3.0, 5.0, 7.0, 9.0]]
    parts2 = _C.split_copy(x, 2)
    assert [p.shape for p in parts2] == [(2, 2), (2, 2), (1, 2)]
    assert [p.tolist() for p in parts2] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0]]]
    assert all(_is_fresh_contiguous(p, x) for p in parts + parts2)
    parts = _C.split_with_sizes_copy(x, [1, 4])
    assert [p.tolist() for p in parts] == [[[0.0, 1.0]], [[2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]]
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 5"):
        _C.split_with_sizes_copy(x, [1, 3])
    assert [p.shape for p in _C.unsafe_split(x, 2, 1)] == [(5, 2)]
    assert [p.tolist() for p in x.unsafe_split(3)] == [x[:3].tolist(), x[3:].tolist()]
    assert [p.shape for p in _C.unsafe_chunk(x, 2)] == [(3, 2), (2, 2)]
    assert [p.shape for p in x.unsafe_chunk(2, 1)] == [(5, 1), (5, 1)]


def test_copy_variants_gradients():
    x = _C.arange(6.0).reshape(2, 3).requires_grad_()
    _C.t_copy(x).sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    x.grad = None
    (_C.select_copy(x, 0, 1) * _C.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]


def test_fill_out_of_place():
    x = _C.arange(4.0)
    r = _C.fill(x, 7)
    assert r.tolist() == [7.0] * 4 and r.dtype is _C.float32
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert _C.fill(_C.zeros(2, dtype=_C.int64), _C.tensor(3)).tolist() == [3, 3]
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."):
        _C.fill(x, _C.tensor([1.0]))


# ---- renorm, cumulative_trapezoid, combinations (values from torch 2.15) ---------------------------


def _close(a, b, tol=1e-6):
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol * max(1.0, abs(b))


def test_renorm_values_variants_and_grad():
    x = _C.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=_C.float64)
    assert _close(_C.renorm(x, 2, 0, 5).tolist(),
                  [[1.0, 2.0, 3.0], [2.2792115032187334, 2.8490143790234166, 3.4188172548281]])
    assert _close(x.renorm(1, 1, 5).tolist(),
                  [[1.0, 1.4285714081632654, 1.6666666481481482], [4.0, 3.5714285204081637, 3.3333332962962965]])
    assert _close(_C.renorm(x, float("inf"), 1, 5).tolist(), [[1.0, 2.0, 2.499999958333334], [4.0, 5.0, 4.999999916666668]])
    e = _C.renorm(_C.ones(2, 3, 4), 2, -1, 1)
    assert e.dtype is _C.float32 and _close(e[0, 0].tolist(), [0.40824827551841736] * 4)
    out = _C.zeros(2, 3, dtype=_C.float64)
    assert _C.renorm(x, 2, 0, 5, out=out) is out and _close(out.tolist(), _C.renorm(x, 2, 0, 5).tolist())
    y = x.clone()
    assert y.renorm_(2, 0, 5) is y and _close(y.tolist(), out.tolist())
    xr = x.clone().requires_grad_()
    _C.renorm(xr, 2, 0, 5).sum().backward()
    assert _close(xr.grad.tolist(), [[1.0, 1.0, 1.0], [0.12580063997779214, 0.014800081021069368, -0.09620047793565335]], 1e-5)


def test_renorm_errors():
    x = _C.ones(2, 3)
    for args, msg in (((0, 1, 5), "renorm: non-positive-norm not supported"),
                      ((-1, 1, 5), "renorm: non-positive-norm not supported"),
                      ((2, 1, -5), "renorm: expected maxnorm to be >= 0 but got -5")):
        with pytest.raises(RuntimeError) as e:
            _C.renorm(x, *args)
        assert str(e.value) == msg
    with pytest.raises(RuntimeError, match="^renorm: input needs at least 2 dimensions, got 1 dimensions$"):
        _C.renorm(_C.ones(3), 2, 0, 1)
    with pytest.raises(RuntimeError, match="^renorm: input needs at least 2 dimensions, got 0 dimensions$"):
        _C.renorm(_C.tensor(3.0), 2, 0, 1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.renorm(x, 2, 2, 5)
    with pytest.raises(NotImplementedError, match="linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"):
        _C.renorm(x.long(), 2, 0, 5)


def test_cumulative_trapezoid_values():
    y = _C.tensor([1.0, 4, 9, 16])
    assert _C.cumulative_trapezoid(y).tolist() == [2.5, 9.0, 21.5]
    assert _C.cumulative_trapezoid(y, dx=2).tolist() == [5.0, 18.0, 43.0]
    assert _C.cumulative_trapezoid(y, _C.tensor([0.0, 1, 3, 6])).tolist() == [2.5, 15.5, 53.0]
    i = _C.tensor([[1, 2, 4], [3, 3, 3]])
    r = _C.cumulative_trapezoid(i, dx=0.5)
    assert r.dtype is _C.float32 and r.tolist() == [[0.75, 2.25], [1.5, 3.0]]
    r = _C.cumulative_trapezoid(i, _C.tensor([0, 1, 3]))
    assert r.dtype is _C.float32 and r.tolist() == [[1.5, 7.5], [3.0, 9.0]]
    f = _C.tensor([[1.0, 2, 4], [3, 3, 3]])
    assert _C.cumulative_trapezoid(f, _C.tensor([[0.0, 1, 3], [0, 2, 4]]), dim=1).tolist() == [[1.5, 7.5], [6.0, 12.0]]
    assert _C.cumulative_trapezoid(f, dim=0).tolist() == [[2.0, 2.5, 3.5]]
    assert _C.cumulative_trapezoid(_C.ones(2, 0)).shape == (2, 0)
    assert _C.cumulative_trapezoid(_C.ones(2, 3), _C.tensor([1.0, 2, 4])).tolist() == [[1.0, 3.0], [1.0, 3.0]]
    g = _C.tensor([1.0, 4, 9], requires_grad=True)
    _C.cumulative_trapezoid(g).sum().backward()
    assert g.grad.tolist() == [1.0, 1.5, 0.5]


def test_cumulative_trapezoid_errors():
    with pytest.raises(RuntimeError, match="^cumulative_trapezoid: There must be one `x` value for each sample point$"):
        _C.cumulative_trapezoid(_C.ones(4), _C.tensor([0.0, 1, 3]))
    with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor.$"):
        _C.cumulative_trapezoid(_C.tensor(1.0))
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        _C.cumulative_trapezoid(_C.tensor(1.0), _C.tensor([1.0]))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.cumulative_trapezoid(_C.ones(2, 3), dim=2)
    with pytest.raises(NotImplementedError, match="^cumulative_trapezoid: received a bool input for `y`, but bool is not supported$"):
        _C.cumulative_trapezoid(_C.tensor([True, False]))
    with pytest.raises(NotImplementedError, match="^cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported$"):
        _C.cumulative_trapezoid(_C.ones(3), _C.tensor([True, False, True]))
    with pytest.raises(RuntimeError, match="^cumulative_trapezoid: Currently, we only support dx as a real number.$"):
        _C.cumulative_trapezoid(_C.ones(3), dx=True)
    with pytest.raises(TypeError):
        _C.cumulative_trapezoid(_C.ones(3), 2)


def test_combinations():
    a = _C.tensor([1, 2, 3])
    assert _C.combinations(a).tolist() == [[1, 2], [1, 3], [2, 3]]
    assert _C.combinations(a, 3).tolist() == [[1, 2, 3]]
    assert _C.combinations(a, r=2, with_replacement=True).tolist() == [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]
    assert _C.combinations(_C.tensor([1.5, 2.5, 3.5, 4.5]), 3).tolist() == [
        [1.5, 2.5, 3.5], [1.5, 2.5, 4.5], [1.5, 3.5, 4.5], [2.5, 3.5, 4.5]]
    assert _C.combinations(_C.tensor([True, False]), 2, True).tolist() == [[True, True], [True, False], [False, False]]
    assert _C.combinations(_C.tensor([1, 2]), 1).tolist() == [[1], [2]]
    e = _C.combinations(a, 4)
    assert e.shape == (0, 4) and e.dtype is _C.int64
    assert _C.combinations(a, 4, True).shape == (15, 4)
    z = _C.combinations(a, 0)
    assert z.shape == (0,) and z.dtype is _C.int64
    assert _C.combinations(_C.tensor([]), 2).shape == (0, 2)
    with pytest.raises(RuntimeError, match=r"^Expect a non-negative number, but got -1$"):
        _C.combinations(a, -1)
    with pytest.raises(RuntimeError, match=r"^Expect a 1D vector, but got shape \[2, 2\]$"):
        _C.combinations(_C.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^Expect a 1D vector, but got shape \[\]$"):
        _C.combinations(_C.tensor(1.0))
    g = _C.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _C.combinations(g).sum().backward()
    assert g.grad.tolist() == [2.0, 2.0, 2.0]


# ---- real-dtype forms of the complex ops, sgn, __rdiv__, factories (values from torch 2.15) -------


def test_real_dtype_identities_and_angle():
    x = _C.tensor([-1.5, 0.0, 2.0, float("nan"), -0.0])
    for f in (_C.real, _C.conj, _C.resolve_conj, _C.resolve_neg, _C.conj_physical,
              _C.Tensor.conj, _C.Tensor.resolve_conj, _C.Tensor.resolve_neg, _C.Tensor.conj_physical):
        assert f(x) is x
    a = _C.angle(x)
    assert a.dtype is _C.float32
    v = a.tolist()
    assert v[0] == pytest.approx(3.1415927410125732) and v[1:3] == [0.0, 0.0] and math.isnan(v[3]) and v[4] == 0.0
    assert _C.angle(_C.tensor([-1.0, 2.0], dtype=_C.float64)).dtype is _C.float64
    i = _C.angle(_C.tensor([-2, 0, 3], dtype=_C.int8))
    assert i.dtype is _C.float32 and i.tolist() == [pytest.approx(3.1415927410125732), 0.0, 0.0]
    assert _C.tensor([True, False]).angle().tolist() == [0.0, 0.0]
    out = _C.zeros(2)
    assert _C.angle(_C.tensor([-1.0, 1.0]), out=out) is out and out.tolist() == [pytest.approx(math.pi), 0.0]


def test_sgn_is_sign_for_real_dtypes():
    assert _C.sgn(_C.tensor([-1.5, 0.0, 2.0, float("nan")])).tolist() == [-1.0, 0.0, 1.0, 0.0]
    assert _C.tensor([-2, 0, 3]).sgn().tolist() == [-1, 0, 1]
    assert _C.sgn(_C.tensor([True, False])).tolist() == [True, False]
    assert _C.sgn(_C.tensor([1, 2], dtype=_C.uint8)).tolist() == [1, 1]
    t = _C.tensor([-3.0, 4.0])
    assert t.sgn_() is t and t.tolist() == [-1.0, 1.0]
    g = _C.tensor([-3.0, 4.0], requires_grad=True)
    _C.sgn(g).sum().backward()
    assert g.grad.tolist() == [0.0, 0.0]


def test_rdiv():
    assert _C.tensor([1.0, 2.0]).__rdiv__(_C.tensor([3.0, 4.0])).tolist() == [3.0, 2.0]
    assert _C.tensor([1, 2]).__rdiv__(3).tolist() == [3.0, 1.5]


def test_randint_like_new_empty_strided_empty_permuted():
    _C.manual_seed(8)
    r = _C.randint_like(_C.zeros(3), 5)
    assert r.dtype is _C.float32 and r.shape == (3,) and all(0 <= v < 5 for v in r.tolist())
    r = _C.randint_like(_C.zeros(300), 3, 5, dtype=_C.int32)
    assert r.dtype is _C.int32 and set(r.tolist()) == {3, 4}
    assert set(_C.randint_like(_C.zeros(200), low=2, high=4).tolist()) == {2.0, 3.0}
    assert set(_C.randint_like(_C.zeros(200), high=2).tolist()) == {0.0, 1.0}
    with pytest.raises(RuntimeError, match="^random_ expects 'from' to be less than 'to', but got from=5 >= to=3$"):
        _C.randint_like(_C.zeros(3), 5, 3)
    with pytest.raises(RuntimeError, match="^to - 1 is out of bounds for unsigned char$"):
        _C.randint_like(_C.zeros(3, dtype=_C.uint8), 300)
    e = _C.ones(2).new_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype is _C.float32
    assert _C.ones(2).new_empty_strided((2, 3), (1, 2), dtype=_C.int32).dtype is _C.int32
    with pytest.raises(RuntimeError, match=r"^dimensionality of sizes \(2\) must match dimensionality of strides \(1\)$"):
        _C.ones(2).new_empty_strided((2, 3), (1,))
    p = _C.empty_permuted((2, 3, 4), (0, 2, 1))
    assert p.shape == (2, 3, 4) and p.stride() == (12, 1, 3)
    assert _C.empty_permuted((2, 3), (1, 0)).stride() == (1, 2)
    assert _C.empty_permuted((), ()).shape == ()
    assert _C.empty_permuted((2, 3), (1, 0), dtype=_C.int64).dtype is _C.int64
    for args, msg in ((((2, 3), (0, 0)), "Duplicate dim not allowed"),
                      (((2, 3), (0, 1, 2)), "Number of dimensions in size does not match the length of the physical_layout; "
                                            "i.e. len(size) = 2 is not equal to len(physical_layout) = 3"),
                      (((2, 3), (0, 2)), "Dimension out of range (expected to be between 0 and 1, but got 2 at index 1).  "
                                         "NB: negative dims not currently supported; file an issue if you want it."),
                      (((2, 3), (-1, 0)), "Dimension out of range (expected to be between 0 and 1, but got -1 at index 0).  "
                                          "NB: negative dims not currently supported; file an issue if you want it.")):
        with pytest.raises(RuntimeError) as ex:
            _C.empty_permuted(*args)
        assert str(ex.value) == msg


# ---- fixed known bugs (values from torch 2.15) -----------------------------------------------------


def test_lcm_narrow_integers_as_torch():
    # torch computes |a / gcd * b| in C++'s int for int8/uint8/int16, then casts.
    a = _C.tensor([300, -300, 7, 32767, -32768, 255, 0], dtype=_C.int16)
    b = _C.tensor([301, 301, 5, 2, 3, 254, 5], dtype=_C.int16)
    assert _C.lcm(a, b).tolist() == [24764, 24764, 35, -2, -32768, -766, 0]
    a8 = _C.tensor([-128, 100, 127, 13], dtype=_C.int8)
    assert _C.lcm(a8, _C.tensor([-1, 3, 2, 11], dtype=_C.int8)).tolist() == [-128, 44, -2, -113]
    u = _C.tensor([200, 255], dtype=_C.uint8)
    assert _C.lcm(u, _C.tensor([3, 254], dtype=_C.uint8)).tolist() == [88, 2]
    i = _C.tensor([2**30 + 1, 100000], dtype=_C.int32)
    assert _C.lcm(i, _C.tensor([3, 99999], dtype=_C.int32)).tolist() == [1073741821, 1409965408]


def test_addbmm_keeps_integer_dtypes():
    b1 = _C.arange(12, dtype=_C.int32).reshape(2, 2, 3)
    b2 = _C.arange(12, dtype=_C.int32).reshape(2, 3, 2)
    r = _C.addbmm(_C.ones(2, 2, dtype=_C.int32), b1, b2)
    assert r.dtype is _C.int32 and r.tolist() == [[183, 207], [273, 315]]
    c1 = _C.full((3, 2, 2), 100, dtype=_C.int8)
    c2 = _C.full((3, 2, 2), 3, dtype=_C.int8)
    r = _C.addbmm(_C.zeros(2, 2, dtype=_C.int8), c1, c2, beta=2, alpha=2)
    assert r.dtype is _C.int8 and r.tolist() == [[16, 16], [16, 16]]
    r = _C.addbmm(_C.zeros(2, 2, dtype=_C.uint8), c1.to(_C.uint8), c2.to(_C.uint8))
    assert r.tolist() == [[8, 8], [8, 8]]
    s = _C.zeros(2, 2, dtype=_C.int8)
    assert s.addbmm_(c1, c2).tolist() == [[8, 8], [8, 8]]


# ---- igamma / igammac (special.gammainc / gammaincc), values from torch 2.15 -----------------------

A = [0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 0.1, 100.0, 3.0]
X = [0.3, 1.0, 3.0, 2.0, 12.0, 25.0, 5.0, 110.0, 1e-8]
P = [0.5614219739190003, 0.6321205588285577, 0.8008517265285442, 0.052653017343711125, 0.7576078383294875,
     0.18210391575658647, 0.9998560610341533, 0.8417213298269008, 1.6666666541666534e-25]
Q = [0.4385780260809997, 0.36787944117144245, 0.1991482734714558, 0.9473469826562889, 0.24239216167051245,
     0.8178960842434135, 0.00014393896584673433, 0.1582786701730992, 1.0]


def _rel_close(got, want, rtol):
    return all(abs(g - w) <= rtol * abs(w) + 1e-300 for g, w in zip(got, want))


def test_igamma_igammac_values():
    # Within 1e-8 relative of torch (Cephes): the series and fraction share lgamma's rounding.
    a = _C.tensor(A, dtype=_C.float64)
    x = _C.tensor(X, dtype=_C.float64)
    assert _rel_close(_C.igamma(a, x).tolist(), P, 1e-8)
    assert _rel_close(_C.igammac(a, x).tolist(), Q, 1e-8)
    assert _rel_close(_C.special.gammainc(a, x).tolist(), P, 1e-8)
    assert _rel_close(_C.special.gammaincc(a, x).tolist(), Q, 1e-8)
    assert _rel_close(a.igamma(x).tolist(), P, 1e-8) and _rel_close(a.igammac(x).tolist(), Q, 1e-8)
    f = _C.igamma(a.float(), x.float())
    assert f.dtype is _C.float32 and _rel_close(f.tolist(), P, 1e-5)
    # Integer other promotes to the float input's dtype.
    r = _C.igamma(_C.tensor([1.0, 2.0]), _C.tensor([1, 2]))
    assert r.dtype is _C.float32 and _rel_close(r.tolist(), [0.6321205588285577, 0.5939941502901619], 1e-6)
    t = a.clone()
    assert t.igamma_(x) is t and _rel_close(t.tolist(), P, 1e-8)
    out = _C.zeros(9, dtype=_C.float64)
    assert _C.igammac(a, x, out=out) is out and _rel_close(out.tolist(), Q, 1e-8)


def test_igamma_special_cases_and_errors():
    inf, nan = float("inf"), float("nan")
    a = _C.tensor([0.5, 0.0, 0.0, -1.0, 3.0, inf, 2.0, nan], dtype=_C.float64)
    x = _C.tensor([-1.0, 1.0, 0.0, 1.0, 0.0, 2.0, inf, 1.0], dtype=_C.float64)
    p = _C.igamma(a, x).tolist()
    q = _C.igammac(a, x).tolist()
    # torch: [nan, 1, nan, nan, 0, 0, 1, nan] and [nan, 0, nan, nan, 1, 1, 0, nan]
    assert [v if v == v else "nan" for v in p] == ["nan", 1.0, "nan", "nan", 0.0, 0.0, 1.0, "nan"]
    assert [v if v == v else "nan" for v in q] == ["nan", 0.0, "nan", "nan", 1.0, 1.0, 0.0, "nan"]
    with pytest.raises(NotImplementedError, match="^\"igamma_cpu\" not implemented for 'Long'$"):
        _C.igamma(_C.tensor([1, 2]), _C.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="^\"igammac_cpu\" not implemented for 'Bool'$"):
        _C.igammac(_C.tensor([True]), _C.tensor([True]))
    with pytest.raises(TypeError):
        _C.igamma(_C.tensor([1.0]), 2.0)


# ---- gradient (values from torch 2.15) -------------------------------------------------------------


def test_gradient_uniform_spacing():
    f = _C.tensor([1.0, 2, 4, 7, 11, 16])
    (g,) = _C.gradient(f)
    assert g.tolist() == [1.0, 1.5, 2.5, 3.5, 4.5, 5.0]
    for sp in (2.0, 2, [2.0], _C.tensor(2.0)):
        assert _C.gradient(f, spacing=sp)[0].tolist() == [0.5, 0.75, 1.25, 1.75, 2.25, 2.5]
    assert _C.gradient(f, edge_order=2)[0].tolist() == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    m = _C.tensor([[1, 2, 4, 8], [10, 20, 40, 80], [100, 200, 400, 800]])
    g0, g1 = _C.gradient(m)
    assert g0.dtype is _C.float32
    assert g0.tolist() == [[9.0, 18.0, 36.0, 72.0], [49.5, 99.0, 198.0, 396.0], [90.0, 180.0, 360.0, 720.0]]
    assert g1.tolist() == [[1.0, 1.5, 3.0, 4.0], [10.0, 15.0, 30.0, 40.0], [100.0, 150.0, 300.0, 400.0]]
    assert [t.tolist() for t in _C.gradient(m, dim=1)] == [g1.tolist()]
    assert [t.tolist() for t in _C.gradient(m, dim=[-1])] == [g1.tolist()]
    h0, h1 = _C.gradient(m, spacing=[1.0, 2.0])
    assert h0.tolist() == g0.tolist()
    assert h1.tolist() == [[0.5, 0.75, 1.5, 2.0], [5.0, 7.5, 15.0, 20.0], [50.0, 75.0, 150.0, 200.0]]
    k0, _ = _C.gradient(m, spacing=2, dim=(0, 1))
    assert k0.tolist() == [[4.5, 9.0, 18.0, 36.0], [24.75, 49.5, 99.0, 198.0], [45.0, 90.0, 180.0, 360.0]]
    assert _C.gradient(_C.tensor(1.0)) == ()
    assert _C.gradient(_C.ones(3, 4), dim=[]) == ()


def test_gradient_coordinates():
    f = _C.tensor([1.0, 2, 4, 7, 11, 16])
    x = _C.tensor([0.0, 1, 1.5, 3.5, 4, 6])
    assert _close(_C.gradient(f, spacing=(x,))[0].tolist(), [1.0, 3.0, 3.5, 6.7, 6.9, 2.5], 1e-6)
    assert _close(_C.gradient(f, spacing=[x], edge_order=2)[0].tolist(), [-1.0, 3.0, 3.5, 6.7, 6.9, -1.9], 1e-6)
    m = _C.tensor([[1, 2, 4, 8], [10, 20, 40, 80], [100, 200, 400, 800]])
    c0, c1 = _C.gradient(m, spacing=[_C.tensor([0.0, 1, 3]), _C.tensor([0.0, 1, 2, 4])])
    assert _close(c0.tolist(), [[9.0, 18.0, 36.0, 72.0], [21.0, 42.0, 84.0, 168.0], [45.0, 90.0, 180.0, 360.0]], 1e-6)
    assert _close(c1.tolist(), [[1.0, 1.5, 2.0, 2.0], [10.0, 15.0, 20.0, 20.0], [100.0, 150.0, 200.0, 200.0]], 1e-6)


def test_gradient_errors():
    g = _C.ones(3, 4)
    cases = [
        (lambda: _C.gradient(g, spacing=[1.0, 2.0, 3.0]),
         "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() = 2', "
         "since dim argument was not given, but got a list of length 3"),
        (lambda: _C.gradient(g, spacing=[1.0, 2.0, 3.0], dim=1),
         "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have the "
         "same length, but got a spacing argument of length 3 and a dim argument of length 1."),
        (lambda: _C.gradient(g, edge_order=3), "torch.gradient only supports edge_order=1 and edge_order=2."),
        (lambda: _C.gradient(_C.tensor([1.0, 2.0]), edge_order=2),
         "torch.gradient expected each dimension size to be at least edge_order+1"),
        (lambda: _C.gradient(_C.tensor([1.0])), "torch.gradient expected each dimension size to be at least edge_order+1"),
        (lambda: _C.gradient(g, dim=(0, 0)), "dim 0 appears multiple times in the list of dims"),
        (lambda: _C.gradient(g, spacing=[_C.ones(1, 3)], dim=0),
         "torch.gradient expected each element of spacing to have one dimension, but got an element with 2 dimensions!"),
        (lambda: _C.gradient(g, spacing=[_C.tensor(2.0), _C.tensor(3.0)]),
         "torch.gradient expected each element of spacing to have one dimension, but got an element with 0 dimensions!"),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.gradient(g, dim=2)


def test_igamma_large_a_asymptotic():
    # a > 1e6: Temme's expansion (torch: Cephes' asymptotic series); values from torch 2.15.
    a = _C.tensor([1e20, 1e7, 1e7, 1e7, 2e6], dtype=_C.float64)
    x = _C.tensor([1e20, 1e7, 1e7 + 3000, 1e7 - 5000, 2e6 + 100], dtype=_C.float64)
    p = [0.500000000013298, 0.5000420522081386, 0.8286118293315031, 0.05690507073881854, 0.5282793155743194]
    q = [0.4999999999867019, 0.4999579477918614, 0.17138817066849685, 0.9430949292611814, 0.47172068442568055]
    assert _rel_close(_C.igamma(a, x).tolist(), p, 1e-7)
    assert _rel_close(_C.igammac(a, x).tolist(), q, 1e-7)
    assert _C.igamma(a.float(), x.float())[0].item() == 0.5
    # x far below a (x / a - 1 rounds to -1): torch gives P = 0, Q = 1.
    big = _C.tensor([1e20, 1e20], dtype=_C.float64)
    assert _C.igamma(big, _C.tensor([501.0, 1001.2], dtype=_C.float64)).tolist() == [0.0, 0.0]
    assert _C.igammac(big, _C.tensor([501.0, 1001.2], dtype=_C.float64)).tolist() == [1.0, 1.0]


# ---- histogram (values from torch 2.15) ------------------------------------------------------------


def test_histogram_values():
    x = _C.tensor([1.0, 2, 1, 4, 2.5, 0.5])
    h = _C.histogram(x, 4)
    assert type(h) is _C.return_types.histogram and h.hist.tolist() == [3.0, 1.0, 1.0, 1.0]
    assert h.bin_edges.tolist() == [0.5, 1.375, 2.25, 3.125, 4.0]
    h = _C.histogram(x, 4, range=(0.0, 3.0))
    assert type(h) is _C.return_types.histogram
    assert h.hist.tolist() == [1.0, 2.0, 1.0, 1.0] and h.bin_edges.tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]
    h = _C.histogram(x, _C.tensor([0.0, 1, 2, 4]))
    assert h.hist.tolist() == [1.0, 2.0, 3.0] and h.bin_edges.tolist() == [0.0, 1.0, 2.0, 4.0]
    h = _C.histogram(x, 3, weight=_C.tensor([1.0, 2, 3, 4, 5, 6]), density=True)
    assert _close(h.hist.tolist(), [0.40816327929496765, 0.2857142984867096, 0.16326531767845154], 1e-6)
    h = _C.histogram(_C.tensor([2.0, 2.0]), 2)
    assert h.hist.tolist() == [0.0, 2.0] and h.bin_edges.tolist() == [1.5, 2.0, 2.5]
    h = _C.histogram(_C.tensor([]), 2)
    assert h.hist.tolist() == [0.0, 0.0] and h.bin_edges.tolist() == [0.0, 0.5, 1.0]
    h = _C.histogram(x.double(), 2)
    assert h.hist.dtype is _C.float64 and h.hist.tolist() == [4.0, 2.0]
    assert _C.histogram(_C.tensor([[1.0, 3.0], [2.0, 2.0]]), 2).hist.tolist() == [1.0, 3.0]
    assert x.histogram(2).hist.tolist() == [4.0, 2.0]
    assert x.histogram(bins=_C.tensor([0.0, 2.0, 4.0])).hist.tolist() == [3.0, 3.0]
    # Unsorted edges are not checked (torch's binary search): [0, 2, 1] counts [0, 1] in bin 0.
    assert _C.histogram(x, _C.tensor([0.0, 2, 1])).hist.tolist() == [3.0, 0.0]
    # Edges from float32's linspace: 0.3 falls below the second edge, as in torch.
    assert _C.histogram(_C.tensor([0.1, 0.2, 0.3, 0.7]), 3, range=(0.1, 0.7)).hist.tolist() == [2.0, 1.0, 1.0]


def test_histogram_errors():
    x = _C.tensor([1.0, 2, 1, 4, 2.5, 0.5])
    cases = [
        (lambda: _C.histogram(x, 0), "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
        (lambda: _C.histogram(x, -1), "torch.histogram(): bins must be > 0, but got -1 for dimension 0"),
        (lambda: _C.histogram(x, 2, range=(3.0, 1.0)),
         "torch.histogramdd: min should not exceed max, but got min 3 max 1 for dimension 0"),
        (lambda: _C.histogram(x, 2, range=(0.0, float("inf"))), "torch.histogramdd: dimension 0's range [0, inf] is not finite"),
        (lambda: _C.histogram(x, _C.tensor([[0.0, 2, 1]])),
         "torch.histogramdd: bins tensor should have one dimension, but got 2 dimensions in the bins tensor for dimension 0"),
        (lambda: _C.histogram(x, _C.tensor([0.0])), "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
        (lambda: _C.histogram(x, _C.tensor([0, 2])),
         "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype float and "
         "bins for dimension 0 with dtype long int"),
        (lambda: _C.histogram(x, 2, weight=_C.ones(3)),
         "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its "
         "innermost dimension, but got input with shape [6, 1] and weight with shape [3]"),
        (lambda: _C.histogram(x, 2, weight=_C.ones(6).double()),
         "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got "
         "input(float), and weight(double)"),
        (lambda: _C.histogram(_C.tensor([1.0, float("nan"), 2.0]), 2), "torch.histogramdd: dimension 0's range [nan, nan] is not finite"),
        (lambda: _C.histogram(_C.tensor([1.0, float("inf"), 2.0]), 2), "torch.histogramdd: dimension 0's range [1, inf] is not finite"),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg
    with pytest.raises(NotImplementedError, match="^\"histogramdd\" not implemented for 'Long'$"):
        _C.histogram(_C.tensor([1, 2]), 2)
    with pytest.raises(TypeError):
        _C.histogram(x, 2, range=3)


def test_huge_requests_are_memory_errors_not_crashes():
    with pytest.raises(MemoryError):
        _C.multinomial(_C.tensor([1.0, 2.0]), 2**62, True)
    with pytest.raises(MemoryError):
        _C.combinations(_C.tensor([1, 2, 3]), 2**31, with_replacement=True)
    # torch overflows building 3^40 grid points here (RuntimeError); _C needs none.
    assert _C.combinations(_C.tensor([1, 2, 3]), 40).shape == (0, 40)
    assert _C.combinations(_C.tensor([5]), 50, True).tolist() == [[5] * 50]
