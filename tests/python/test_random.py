"""Random numbers: _C.Generator, the default generator, and the random ops (rand, randn, randint,
randperm, normal, bernoulli, rand_like, randn_like).

tensorbind's generator is Philox4x32-10 (src/core/random.rs), not torch's CPU mt19937, so the
numbers differ from torch's; the golden values below are computed by an independent pure-Python
implementation of the documented algorithm, and pinned literally, so a change of algorithm is
caught. Statistical checks use 100k samples and tolerances of several standard errors.
"""

import math

import pytest

import _C

# ---- an independent implementation of the documented stream --------------------------------

M32 = 0xFFFFFFFF


def philox(counter, key):
    c, k = list(counter), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
    return c


def words(seed, n, block=0):
    key = [seed & M32, seed >> 32]
    out = []
    while len(out) < n:
        out += philox([block & M32, (block >> 32) & M32, 0, 0], key)
        block += 1
    return out[:n]


def test_philox_known_answer():
    # Random123 kat_vectors, philox4x32_10.
    assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_rand_golden_float32():
    t = _C.rand((5,), generator=_C.Generator(0))
    expected = [(w >> 8) / 2**24 for w in words(0, 5)]
    assert t.dtype is _C.float32
    assert t.tolist() == expected
    assert t.tolist()[:3] == [0.3990464210510254, 0.8805201649665833, 0.7357127666473389]


def test_rand_golden_float64():
    w = words(123, 6)
    expected = [(((w[2 * i + 1] << 32) | w[2 * i]) >> 11) / 2**53 for i in range(3)]
    t = _C.rand((3,), generator=_C.Generator(123), dtype=_C.float64)
    assert t.dtype is _C.float64
    assert t.tolist() == expected


def test_randn_golden():
    w = words(0, 8)
    u = [(((w[2 * i + 1] << 32) | w[2 * i]) >> 11) / 2**53 for i in range(4)]
    expected = []
    for a, b in ((u[0], u[1]), (u[2], u[3])):
        r = math.sqrt(-2.0 * math.log(1.0 - a))
        expected += [r * math.cos(2 * math.pi * b), r * math.sin(2 * math.pi * b)]
    t = _C.randn((4,), generator=_C.Generator(0), dtype=_C.float64)
    assert t.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert t.tolist() == pytest.approx(
        [-1.62496344087104, -1.2683492025469478, 0.9225813876375342, 0.21900507737292066],
        rel=1e-12,
    )


def test_randint_and_randperm_golden():
    # Rejection sampling on u64 = (second word << 32) | first word, threshold 2**64 % range.
    ws = words(0, 64)
    expected, pos = [], 0
    while len(expected) < 6:
        x = (ws[pos + 1] << 32) | ws[pos]
        pos += 2
        if x >= (2**64) % 10:
            expected.append(x % 10)
    assert _C.randint(10, (6,), generator=_C.Generator(0)).tolist() == expected
    assert expected == [9, 8, 8, 1, 9, 9]
    perm = list(range(6))
    pos = 0
    for i in range(5, 0, -1):
        while True:
            x = (ws[pos + 1] << 32) | ws[pos]
            pos += 2
            if x >= (2**64) % (i + 1):
                break
        j = x % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    assert _C.randperm(6, generator=_C.Generator(0)).tolist() == perm == [4, 2, 1, 0, 5, 3]


# ---- seeding and generators -------------------------------------------------------------------


def test_same_seed_same_numbers_different_seeds_differ():
    a = _C.rand((100,), generator=_C.Generator(7)).tolist()
    b = _C.rand((100,), generator=_C.Generator(7)).tolist()
    c = _C.rand((100,), generator=_C.Generator(8)).tolist()
    assert a == b
    assert a != c


def test_manual_seed_default_generator():
    g = _C.manual_seed(42)
    assert g is _C.default_generator
    assert _C.initial_seed() == 42
    a = _C.rand((10,)).tolist()
    b = _C.randn((10,)).tolist()
    _C.manual_seed(42)
    assert _C.rand((10,)).tolist() == a
    assert _C.randn((10,)).tolist() == b
    _C.manual_seed(42)
    # generator=_C.default_generator and generator=None draw from the same stream.
    assert _C.rand((10,), generator=_C.default_generator).tolist() == a


def test_generator_independent_of_default():
    _C.manual_seed(1)
    a = _C.rand((5,)).tolist()
    _C.manual_seed(1)
    g = _C.Generator(99)
    _C.rand((50,), generator=g)
    assert _C.rand((5,)).tolist() == a
    # and the default stream does not disturb g
    g1, g2 = _C.Generator(3), _C.Generator(3)
    x = _C.rand((4,), generator=g1).tolist()
    _C.rand((4,))
    assert _C.rand((4,), generator=g2).tolist() == x


def test_consecutive_calls_continue_the_stream():
    g = _C.Generator(5)
    a = _C.rand((3,), generator=g).tolist()
    b = _C.rand((3,), generator=g).tolist()
    assert a != b
    # Each op starts on a fresh Philox block: the second call starts at block 1.
    assert b == [(w >> 8) / 2**24 for w in words(5, 3, block=1)]


def test_generator_seed_methods():
    g = _C.Generator()
    assert g.initial_seed() == 67280421310721  # torch's default seed
    assert _C.Generator(seed=11).initial_seed() == 11
    assert _C.Generator("cpu").initial_seed() == 67280421310721
    assert _C.Generator(device="cpu", seed=2).initial_seed() == 2
    assert g.manual_seed(17) is g
    assert g.initial_seed() == 17
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert g.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2**64
    assert g.initial_seed() == s
    assert g.seed() != s
    assert g.device == "cpu"
    s = _C.seed()
    assert _C.initial_seed() == s


def test_generator_errors():
    with pytest.raises(TypeError, match="manual_seed expected a long, but got float"):
        _C.Generator().manual_seed(1.5)
    with pytest.raises(TypeError, match="manual_seed expected a long"):
        _C.manual_seed("1")
    with pytest.raises(OverflowError):
        _C.Generator().manual_seed(2**64)
    with pytest.raises(ValueError, match="'cpu'"):
        _C.Generator("cuda")
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        _C.Generator(foo=1)
    with pytest.raises(TypeError, match="_C.Generator"):
        _C.rand((2,), generator=3)


def test_get_set_state_round_trip():
    g = _C.Generator(10)
    _C.rand((7,), generator=g)
    state = g.get_state()
    assert state.dtype is _C.uint8
    assert state.shape == (29,)
    a = _C.randn((5,), generator=g).tolist()
    b = _C.randint(100, (5,), generator=g).tolist()
    assert g.set_state(state) is g
    assert _C.randn((5,), generator=g).tolist() == a
    assert _C.randint(100, (5,), generator=g).tolist() == b
    # a state moves between generators, seed included
    h = _C.Generator(0).set_state(state)
    assert h.initial_seed() == 10
    assert _C.randn((5,), generator=h).tolist() == a
    # the default generator too
    _C.manual_seed(3)
    st = _C.default_generator.get_state()
    x = _C.rand((3,)).tolist()
    _C.default_generator.set_state(st)
    assert _C.rand((3,)).tolist() == x


def test_set_state_errors():
    g = _C.Generator(1)
    good = g.get_state()
    with pytest.raises(RuntimeError, match="expected a state of 29 bytes"):
        g.set_state(_C.zeros((5,), dtype=_C.uint8))
    bad = good.tolist()
    bad[0] = 0
    with pytest.raises(RuntimeError, match="bad magic"):
        g.set_state(_C.tensor(bad, dtype=_C.uint8))
    bad = good.tolist()
    bad[4] = 9
    with pytest.raises(RuntimeError, match="unsupported state version 9"):
        g.set_state(_C.tensor(bad, dtype=_C.uint8))
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(_C.zeros((29,)))
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(b"x" * 29)
    # a failed set_state leaves the generator unchanged
    assert g.initial_seed() == 1
    assert g.get_state().tolist() == good.tolist()


# ---- distributions ----------------------------------------------------------------------------

N = 100_000


def mean_std(values):
    m = sum(values) / len(values)
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / len(values))


@pytest.mark.parametrize("dtype", [_C.float32, _C.float64])
def test_rand_statistics(dtype):
    v = _C.rand((N,), generator=_C.Generator(2024), dtype=dtype).tolist()
    assert min(v) >= 0.0 and max(v) < 1.0
    m, s = mean_std(v)
    assert abs(m - 0.5) < 0.005
    assert abs(s - 0.2887) < 0.005


@pytest.mark.parametrize("dtype", [_C.float32, _C.float64])
def test_randn_statistics(dtype):
    v = _C.randn((N,), generator=_C.Generator(2025), dtype=dtype).tolist()
    m, s = mean_std(v)
    assert abs(m) < 0.015
    assert abs(s - 1.0) < 0.015
    within1 = sum(1 for x in v if abs(x) < 1.0) / N
    assert abs(within1 - 0.6827) < 0.01


def test_randint_statistics():
    v = _C.randint(-3, 7, (N,), generator=_C.Generator(1)).tolist()
    assert min(v) == -3 and max(v) == 6
    counts = [v.count(k) for k in range(-3, 7)]
    # 10 buckets of expected 10000, sd ~95
    assert all(abs(c - N / 10) < 600 for c in counts)


def test_normal_statistics():
    v = _C.normal(3.0, 2.0, (N,), generator=_C.Generator(4)).tolist()
    m, s = mean_std(v)
    assert abs(m - 3.0) < 0.03 and abs(s - 2.0) < 0.03


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_probabilities(p):
    t = _C.bernoulli(_C.full((N,), p), generator=_C.Generator(6))
    assert t.dtype is _C.float32
    frac = sum(t.tolist()) / N
    assert abs(frac - p) < 0.006
    u = _C.bernoulli(_C.zeros((N,), dtype=_C.int64), p, generator=_C.Generator(6))
    assert u.dtype is _C.int64
    assert abs(sum(u.tolist()) / N - p) < 0.006


# ---- shapes, dtypes, values -------------------------------------------------------------------


def test_shapes_and_default_dtypes():
    g = _C.Generator(0)
    assert _C.rand((2, 3), generator=g).shape == (2, 3)
    assert _C.rand(4).shape == (4,)
    assert _C.rand((0, 3)).shape == (0, 3)
    assert _C.rand(()).shape == ()
    assert _C.randn((2, 3)).dtype is _C.float32
    assert _C.randint(5, (2, 2)).dtype is _C.int64
    assert _C.randint(1, 5, (2, 2)).dtype is _C.int64
    assert _C.randperm(4).dtype is _C.int64
    assert _C.normal(0.0, 1.0, (3,)).dtype is _C.float32
    assert _C.normal(0.0, 1.0, (3,), dtype=_C.float64).dtype is _C.float64


@pytest.mark.parametrize(
    "dtype", [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float32, _C.float64]
)
def test_randint_dtypes(dtype):
    hi = 2 if dtype is _C.bool else 50
    t = _C.randint(hi, (1000,), dtype=dtype)
    assert t.dtype is dtype
    vals = [int(x) for x in t.tolist()]
    assert min(vals) >= 0 and max(vals) < hi
    assert len(set(vals)) == hi


def test_like_ops():
    x = _C.zeros((3, 2), dtype=_C.float64)
    assert _C.rand_like(x).dtype is _C.float64
    assert _C.rand_like(x).shape == (3, 2)
    assert _C.randn_like(x, dtype=_C.float32).dtype is _C.float32
    _C.manual_seed(9)
    a = _C.rand_like(_C.zeros((4,))).tolist()
    _C.manual_seed(9)
    assert _C.rand((4,)).tolist() == a
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        _C.rand_like(_C.zeros((2,), dtype=_C.int64))


def test_randperm_is_permutation():
    for n in (0, 1, 2, 10, 1000):
        v = _C.randperm(n, generator=_C.Generator(n)).tolist()
        assert sorted(v) == list(range(n))
    assert sorted(_C.randperm(5, dtype=_C.float32).tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert _C.randperm(256, dtype=_C.uint8).dtype is _C.uint8


def test_normal_overloads():
    g = _C.Generator(0)
    mean = _C.tensor([[0.0], [10.0]])
    std = _C.tensor([0.0, 0.0, 0.0])
    t = _C.normal(mean, std, generator=g)
    assert t.shape == (2, 3)
    assert t.tolist() == [[0.0, 0.0, 0.0], [10.0, 10.0, 10.0]]
    assert _C.normal(_C.tensor([1.0, 2.0]), 0.0).tolist() == [1.0, 2.0]
    assert _C.normal(_C.tensor([1.0, 2.0])).shape == (2,)
    assert _C.normal(5.0, _C.tensor([0.0, 0.0], dtype=_C.float64)).tolist() == [5.0, 5.0]
    assert _C.normal(5.0, _C.tensor([0.0], dtype=_C.float64)).dtype is _C.float64
    a = _C.normal(mean, _C.tensor([1.0, 1.0, 1.0]), generator=_C.Generator(3)).tolist()
    b = _C.normal(mean, _C.tensor([1.0, 1.0, 1.0]), generator=_C.Generator(3)).tolist()
    assert a == b


def test_bernoulli_values_and_method():
    p = _C.tensor([0.0, 1.0, 0.0, 1.0], dtype=_C.float64)
    t = _C.bernoulli(p, generator=_C.Generator(0))
    assert t.dtype is _C.float64
    assert t.tolist() == [0.0, 1.0, 0.0, 1.0]
    assert p.bernoulli().tolist() == [0.0, 1.0, 0.0, 1.0]
    assert _C.zeros((3,)).bernoulli(1.0).tolist() == [1.0, 1.0, 1.0]
    assert _C.zeros((2,), dtype=_C.bool).bernoulli(1.0).tolist() == [True, True]


# ---- errors (torch's texts) -------------------------------------------------------------------


@pytest.mark.parametrize("dtype,name", [(_C.int64, "Long"), (_C.bool, "Bool"), (_C.uint8, "Byte")])
def test_float_only_errors(dtype, name):
    with pytest.raises(NotImplementedError, match=f"\"check_uniform_bounds\" not implemented for '{name}'"):
        _C.rand((2,), dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"\"normal_kernel_cpu\" not implemented for '{name}'"):
        _C.randn((2,), dtype=dtype)


def test_errors():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        _C.rand((-1,))
    with pytest.raises(
        RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=5"
    ):
        _C.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        _C.randint(0, (2,))
    with pytest.raises(RuntimeError, match="^to - 1 is out of bounds for unsigned char$"):
        _C.randint(300, (2,), dtype=_C.uint8)
    with pytest.raises(RuntimeError, match="^from is out of bounds for unsigned char$"):
        _C.randint(-1, 5, (2,), dtype=_C.uint8)
    with pytest.raises(RuntimeError, match="n must be non-negative, got-1"):
        _C.randperm(-1)
    with pytest.raises(NotImplementedError, match="\"randperm\" not implemented for 'Bool'"):
        _C.randperm(3, dtype=_C.bool)
    with pytest.raises(RuntimeError, match="n is too large for result tensor type"):
        _C.randperm(257, dtype=_C.uint8)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        _C.normal(0.0, -1.0, (2,))
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        _C.normal(_C.zeros((2,)), _C.tensor([1.0, -1.0]))
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"):
        _C.normal(_C.zeros((2,), dtype=_C.int64), _C.ones((2,)))
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"):
        _C.bernoulli(_C.zeros((2,)), 1.5)
    with pytest.raises(RuntimeError, match="p_in >= 0 && p_in <= 1"):
        _C.bernoulli(_C.tensor([0.5, 2.0]))
    with pytest.raises(
        NotImplementedError, match="\"bernoulli_tensor_cpu_self_\" not implemented for 'Long'"
    ):
        _C.bernoulli(_C.zeros((2,), dtype=_C.int64))
