"""Gradient cases shared by tests/python/test_autograd.py (run on `_C`) and
tests/gen_autograd_expected.py (run on torch 2.15 to write autograd_expected.py).

Each case is `name: (input shapes, f)`: `f(M, *xs)` computes an output from float64 leaves with
module `M` (`_C` or `torch`); the checked quantity is the gradient of `sum(out * w)` for a fixed
weight `w` of out's shape, with respect to every input.
"""

import math


def values(shape, seed):
    n = 1
    for s in shape:
        n *= s
    flat = [round(math.sin(1.3 * i + seed) * 2 + 0.1 * seed, 6) for i in range(n)]
    return nest(flat, shape)


def positive(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return nest([0.5 + abs(math.sin(0.7 * i + seed)) * 2 for i in range(n)], shape)


def nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def weights(shape):
    n = 1
    for s in shape:
        n *= s
    return nest([math.cos(0.9 * i) + 0.5 for i in range(n)], list(shape))


def nn_mod(M):
    """`_C._nn` / `torch._C._nn`."""
    return M._nn if hasattr(M, "_nn") else M._C._nn


def idx(M, v):
    return M.tensor(v, dtype=M.int64)


CASES = {
    "add_broadcast_alpha": ([(2, 3), (3,)], lambda M, a, b: M.add(a, b, alpha=2.5)),
    "sub_broadcast": ([(2, 1), (1, 3)], lambda M, a, b: a - b),
    "mul": ([(2, 3), (2, 3)], lambda M, a, b: a * b),
    "mul_scalar": ([(3,)], lambda M, a: a * 1.5),
    "div": ([(2, 3), (3,)], lambda M, a, b: a / (b * b + 1)),
    "rdiv_scalar": ([(3,)], lambda M, a: 2.0 / (a * a + 1)),
    "pow_scalar": ([(4,)], lambda M, a: a ** 3),
    "pow_tensor": ([(4,), (4,)], lambda M, a, b: (a * a + 0.5) ** b),
    "rpow": ([(4,)], lambda M, a: 2.0 ** a),
    "neg_abs": ([(5,)], lambda M, a: -a.abs()),
    "exp_log": ([(4,)], lambda M, a: (a * a + 1).log() + a.exp()),
    "sqrt": ([(4,)], lambda M, a: (a * a + 0.25).sqrt()),
    "sin_cos": ([(4,)], lambda M, a: a.sin() * a.cos()),
    "tanh_sigmoid": ([(4,)], lambda M, a: a.tanh() + a.sigmoid()),
    "relu": ([(6,)], lambda M, a: a.relu()),
    "square": ([(3,)], lambda M, a: a.square()),
    "sum_all": ([(2, 3)], lambda M, a: (a * a).sum()),
    "sum_dim_keepdim": ([(2, 3, 2)], lambda M, a: (a * a).sum(1, keepdim=True)),
    "sum_dims": ([(2, 3, 2)], lambda M, a: (a * a).sum((0, 2))),
    "mean_all": ([(2, 3)], lambda M, a: (a * a).mean()),
    "mean_dim": ([(2, 3)], lambda M, a: (a * a).mean(0)),
    "matmul_2d": ([(2, 3), (3, 4)], lambda M, a, b: a @ b),
    "matmul_1d_2d": ([(3,), (3, 4)], lambda M, a, b: a @ b),
    "matmul_2d_1d": ([(2, 3), (3,)], lambda M, a, b: a @ b),
    "matmul_1d_1d": ([(3,), (3,)], lambda M, a, b: a @ b),
    "matmul_batched_broadcast": ([(2, 2, 3), (3, 2)], lambda M, a, b: a @ b),
    "mm": ([(2, 3), (3, 2)], lambda M, a, b: M.mm(a, b)),
    "dot": ([(3,), (3,)], lambda M, a, b: M.dot(a, b)),
    "view_reshape": ([(2, 3)], lambda M, a: (a.view(3, 2) * a.reshape(3, 2)).reshape(6)),
    "transpose_t_permute": ([(2, 3)], lambda M, a: a.t() * a.transpose(0, 1) + a.permute(1, 0).exp()),
    "unsqueeze_squeeze_expand": ([(3,)], lambda M, a: a.unsqueeze(0).expand(2, 3) * a.unsqueeze(1).squeeze(1)),
    "flatten": ([(2, 2, 2)], lambda M, a: a.flatten() * 2),
    "softmax": ([(2, 4)], lambda M, a: a.softmax(1)),
    "log_softmax": ([(2, 4)], lambda M, a: a.log_softmax(0)),
    "cat": ([(2, 2), (1, 2)], lambda M, a, b: M.cat([a, b * b], 0)),
    "stack": ([(3,), (3,)], lambda M, a, b: M.stack([a, b.exp()], 1)),
    "max_all": ([(5,)], lambda M, a: a.max()),
    "max_dim": ([(3, 4)], lambda M, a: a.max(1)[0]),
    "min_dim_keepdim": ([(3, 4)], lambda M, a: a.min(0, keepdim=True)[0]),
    "amax_ties": ([(4,)], lambda M, a: M.amax(M.clamp(a, min=0.0), 0)),
    "maximum_minimum": ([(4,), (4,)], lambda M, a, b: M.maximum(a, b) + M.minimum(a, b * 2)),
    "where": ([(4,), (4,)], lambda M, a, b: M.where(a > b, a * a, b)),
    "clamp": ([(6,)], lambda M, a: M.clamp(a, min=-1.0, max=1.0)),
    "masked_fill": ([(4,)], lambda M, a: a.masked_fill(a > 0, 0.0) * a),
    "index_int": ([(3, 2)], lambda M, a: a[1] * 3),
    "index_slices": ([(3, 4)], lambda M, a: a[1:, ::2]),
    "index_tensor_duplicates": ([(4,)], lambda M, a: a[idx(M, [0, 2, 0, 3])]),
    "index_mask": ([(4,)], lambda M, a: a[a > 0]),
    "gather": ([(2, 3)], lambda M, a: M.gather(a, 1, idx(M, [[0, 0], [2, 1]]))),
    "index_select": ([(3, 2)], lambda M, a: M.index_select(a, 0, idx(M, [2, 0, 2]))),
    "select_narrow": ([(3, 4)], lambda M, a: a.select(1, 2) + a.narrow(1, 1, 2).sum(1)),
    "to_float32_and_back": ([(3,)], lambda M, a: a.float().double() * a),
    "cross_entropy_by_hand": ([(4, 3)], lambda M, a: -(a.log_softmax(1).gather(1, idx(M, [[0], [2], [1], [0]]))).mean()),
    "expm1_log1p": ([(4,)], lambda M, a: a.expm1() + (a * a).log1p()),
    "log2_log10_exp2": ([(4,)], lambda M, a: (a * a + 1).log2() + (a * a + 1).log10() + a.exp2()),
    "rsqrt_reciprocal": ([(4,)], lambda M, a: (a * a + 1).rsqrt() + (a * a + 1).reciprocal()),
    "tan_atan": ([(4,)], lambda M, a: (a * 0.3).tan() + a.atan()),
    "asin_acos": ([(4,)], lambda M, a: (a * 0.2).asin() + (a * 0.3).acos()),
    "sinh_cosh": ([(4,)], lambda M, a: a.sinh() * a.cosh()),
    "frac_nan_to_num": ([(4,)], lambda M, a: a.frac() * 0 + (a.log()).nan_to_num() + a),
    "atan2_hypot": ([(4,), (4,)], lambda M, a, b: M.atan2(a, b) + M.hypot(a, b)),
    "lerp_scalar": ([(4,), (4,)], lambda M, a, b: M.lerp(a, b, 0.3)),
    "lerp_tensor": ([(4,), (4,), (4,)], lambda M, a, b, w: M.lerp(a, b, w)),
    "logsumexp": ([(2, 3)], lambda M, a: M.logsumexp(a, 1)),
    "logsumexp_keepdim": ([(2, 3)], lambda M, a: M.logsumexp(a, 0, keepdim=True)),
    "cumsum": ([(2, 3)], lambda M, a: a.cumsum(1)),
    "var_std_all": ([(2, 3)], lambda M, a: a.var() + a.std()),
    "var_dim_unbiased_false": ([(2, 3)], lambda M, a: a.var(1, unbiased=False)),
    "std_correction_keepdim": ([(2, 3)], lambda M, a: a.std(0, correction=0, keepdim=True)),
    "norm": ([(2, 3)], lambda M, a: a.norm() + a.norm(dim=1).sum()),
    "flip_roll": ([(2, 3)], lambda M, a: a.flip([1]) * a.roll(1, 1)),
    "tril_triu": ([(3, 3)], lambda M, a: a.tril() + a.triu(1) * 2),
    "trace_outer": ([(3, 3), (3,)], lambda M, a, b: M.trace(a) * M.outer(b, b)),
    "movedim": ([(2, 3, 2)], lambda M, a: a.movedim(0, 2) * 2),
    "sort_values": ([(2, 4)], lambda M, a: a.sort(1)[0] * M.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=M.float64)),
    "topk_values": ([(2, 4)], lambda M, a: a.topk(2, 1)[0]),
    "kthvalue_median_mode": ([(2, 5)], lambda M, a: a.kthvalue(2, 1)[0] + a.median(1)[0]),
    "shared_input_many_paths": ([(3,)], lambda M, a: (a * a).sum() * a + a.exp()),
    # session 2: formulas generated from src/derivatives.yaml (issue 12)
    "remainder_fmod": ([(4,), (4,)], lambda M, a, b: M.remainder(a, b * b + 0.5) + M.fmod(a, b * b + 0.5)),
    "remainder_scalar": ([(4,)], lambda M, a: a % 0.7),
    "prod_all": ([(2, 3)], lambda M, a: a.prod()),
    "prod_all_one_zero": ([(2, 3)], lambda M, a: (a - a.detach()[0, 1]).prod()),
    "prod_all_two_zeros": ([(2, 3)], lambda M, a: ((a - a.detach()[0, 1]) * (a - a.detach()[1, 2])).prod()),
    "prod_dim_zeros": ([(3, 3)], lambda M, a: ((a - a.detach()[0, 1]) * (a - a.detach()[2, 0]) * (a - a.detach()[2, 2])).prod(1)),
    "prod_dim_one_zero": ([(2, 3)], lambda M, a: (a - a.detach()[1, 2]).prod(1)),
    "prod_dim_keepdim": ([(2, 3)], lambda M, a: a.prod(0, keepdim=True)),
    "repeat": ([(2, 3)], lambda M, a: a.repeat(2, 1, 3)),
    "tile": ([(2, 3)], lambda M, a: a.tile((2,))),
    "take": ([(2, 3)], lambda M, a: M.take(a, idx(M, [[0, 5], [-1, 0]]))),
    "masked_select": ([(2, 3)], lambda M, a: M.masked_select(a, a > 0)),
    "masked_select_broadcast": ([(1, 3)], lambda M, a: M.masked_select(a, M.tensor([[True, False, True], [True, True, False]]))),
    "median_all": ([(5,)], lambda M, a: a.median()),
    "round_decimals": ([(4,)], lambda M, a: a.round(decimals=1) + a),
    "scatter_value": ([(3, 2)], lambda M, a: a.scatter(0, idx(M, [[0, 1]]), 2.0)),
    "index_fill_scalar": ([(3, 2)], lambda M, a: a.index_fill(0, idx(M, [0, 2]), -1.0)),
    "index_fill_tensor": ([(3, 2), ()], lambda M, a, v: a.index_fill(0, idx(M, [0, 2, 0]), v)),
    "index_copy": ([(3, 2), (2, 2)], lambda M, a, s: a.index_copy(0, idx(M, [2, 0]), s)),
    "masked_fill_tensor": ([(4,), ()], lambda M, a, v: a.masked_fill(a > 0, v)),
    "norm_fro": ([(2, 3)], lambda M, a: a.norm(p="fro") + a.norm(p="fro", dim=1).sum()),
    "norm_p": ([(2, 3)], lambda M, a: a.norm(p=1) + a.norm(p=3, dim=1).sum() + a.norm(p=float("inf")) + a.norm(p=0.5, dim=0, keepdim=True).sum()),
    "narrow_tensor_start": ([(4, 2)], lambda M, a: a.narrow(0, M.tensor(1), 2)),
    # session 3: the pending formulas of issue 13's ops (issue 12)
    "erf_erfc_erfinv": ([(4,)], lambda M, a: a.erf() + a.erfc() * 2 + (a * 0.3).erfinv()),
    "lgamma": ([(4,)], lambda M, a: (a * a + 0.5).lgamma()),
    "digamma": ([(5,)], lambda M, a: (a * 1.7).digamma()),
    "asinh_acosh_atanh": ([(4,)], lambda M, a: a.asinh() + (a * a + 1.5).acosh() + (a * 0.3).atanh()),
    "arcsinh_arccosh_arctanh": ([(4,)], lambda M, a: a.arcsinh() + (a * a + 1.5).arccosh() + (a * 0.3).arctanh()),
    "deg2rad_rad2deg": ([(4,)], lambda M, a: a.deg2rad() * a.rad2deg()),
    "logit": ([(5,)], lambda M, a: (a * 0.2 + 0.5).logit() + (a * 0.2 + 0.5).logit(eps=0.3)),
    "xlogy": ([(4,), (4,)], lambda M, a, b: M.xlogy(a, b * b + 0.5) + M.xlogy(a * (a > 0), b * b + 0.1)),
    "copysign": ([(4,), (4,)], lambda M, a, b: M.copysign(a, b) * a),
    "logaddexp": ([(4,), (4,)], lambda M, a, b: M.logaddexp(a, b) + M.logaddexp2(a, b * 2)),
    "fmax_fmin": ([(4,), (4,)], lambda M, a, b: M.fmax(a, b) + M.fmin(a, b * 2)),
    "fmax_fmin_ties": ([(4,)], lambda M, a: M.fmax(a, M.where(a > 0, a, a * 2)) + M.fmin(a, M.where(a > 0, a * 2, a))),
    "clamp_min_max_tensor": ([(4,), (4,)], lambda M, a, b: M.clamp_min(a, b) + M.clamp_max(a, b * 0.5)),
    "clamp_min_max_tensor_ties": ([(4,)], lambda M, a: M.clamp_min(a, M.where(a > 0, a, a * 2)) + M.clamp_max(a * 3, M.where(a > 0, a * 3, a))),
    "clamp_tensor_bounds": ([(4,), (4,), (4,)], lambda M, a, lo, hi: M.clamp(a, lo, hi) + M.clamp(a, min=lo) * 2 + M.clamp(a, max=hi) * 3 + M.clip(a, lo, hi + 1)),
    "clamp_tensor_ties": ([(4,), (4,)], lambda M, a, b: M.clamp(a, min=M.where(a > 0, a, b)) + M.clamp(a * 2, max=M.where(a > 0, a * 2, b)) + M.clamp(a, M.where(a > 0, a, b), a.detach() + 5)),
    "clamp_tensor_inplace": ([(4,), (4,)], lambda M, a, lo: (a * 1).clamp_(min=lo)),
    "clamp_min_max_scalar": ([(6,)], lambda M, a: M.clamp_min(a, 0.1) + M.clamp_max(a, 0.2) * 2),
    "clamp_ties": ([(4,)], lambda M, a: M.clamp(a - a.detach() + 1.0, min=1.0) + M.clamp(a - a.detach() - 1.0, min=-1.0, max=1.0) * 2 + M.clamp(a - a.detach(), max=0.0) * 3 + M.clamp(a, -1.0, 1.0)),
    "clamp_min_inplace": ([(6,)], lambda M, a: (a * 1).clamp_min_(0.1)),
    "addcmul_addcdiv": ([(3,), (3,), (3,)], lambda M, a, b, c: M.addcmul(a, b, c, value=0.5) + M.addcdiv(a, b, c * c + 1, value=2)),
    "addcmul_addcdiv_inplace": ([(3,), (3,), (3,)], lambda M, a, b, c: (a * 1).addcmul_(b, c, value=0.5).addcdiv_(b, c * c + 1, value=2)),
    "erf_inplace": ([(4,)], lambda M, a: (a * 1).erf_() * a),
    "rsub_true_divide": ([(4,), (4,)], lambda M, a, b: M.rsub(a, b, alpha=2) + M.true_divide(a, b * b + 1)),
    "bmm_baddbmm": ([(2, 2, 3), (2, 3, 2), (2, 2, 2)], lambda M, a, b, c: M.bmm(a, b) + M.baddbmm(c, a, b, beta=0.5, alpha=2)),
    "mv_addmv": ([(2, 3), (3,), (2,)], lambda M, a, b, c: M.mv(a, b) + M.addmv(c, a, b, beta=0.5, alpha=2)),
    "addmm": ([(2, 2), (2, 3), (3, 2)], lambda M, a, b, c: M.addmm(a, b, c, beta=0.5, alpha=2)),
    "addmm_broadcast_self": ([(2,), (2, 3), (3, 2)], lambda M, a, b, c: M.addmm(a, b, c)),
    "addr": ([(2, 3), (2,), (3,)], lambda M, a, b, c: M.addr(a, b, c, beta=0.5, alpha=2)),
    "vdot_cross": ([(3,), (3,)], lambda M, a, b: M.vdot(a, b) * M.cross(a, b * 2, dim=0)),
    "cross_batched": ([(2, 3), (2, 3)], lambda M, a, b: M.cross(a, b, dim=1)),
    "dist": ([(4,), (4,)], lambda M, a, b: M.dist(a, b) + M.dist(a, b, p=3) + M.dist(a, b, p=1) + M.dist(a, b, p=float("inf"))),
    "cdist": ([(3, 2), (4, 2)], lambda M, a, b: M.cdist(a, b)),
    "cdist_p": ([(2, 3, 2), (2, 4, 2)], lambda M, a, b: M.cdist(a, b, p=1) + M.cdist(a, b, p=3) + M.cdist(a, b, p=float("inf"))),
    "cumprod": ([(2, 3)], lambda M, a: a.cumprod(1)),
    "cumprod_zero": ([(2, 4)], lambda M, a: (a - a.detach()[0, 1]).cumprod(1) + (a - a.detach()[1, 2]).cumprod(0)),
    "cumprod_fixed_zero": ([(2, 4)], lambda M, a: (a * M.tensor([[1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]], dtype=M.float64)).cumprod(1)),
    "diag_vector": ([(3,)], lambda M, a: a.diag(1)),
    "diag_matrix": ([(3, 4)], lambda M, a: a.diag(-1) * 2 + a.diag(2) * a.diag(-2)),
    "diagonal": ([(3, 2, 4)], lambda M, a: a.diagonal(1, 0, 2) * a.diagonal(-1, 2, 0)),
    "einsum": ([(2, 3), (3, 4), (4,)], lambda M, a, b, c: M.einsum("ij,jk,k->i", a, b, c) + M.einsum("ii->i", a.narrow(1, 0, 2)).sum()),
    "einsum_batched": ([(2, 2, 3), (2, 3, 2)], lambda M, a, b: M.einsum("bij,bjk->bik", a, b) * M.einsum("bij->ji", a).sum()),
    "aminmax": ([(3, 4)], lambda M, a: M.aminmax(a, dim=1)[0] * 2 + M.aminmax(a, dim=1, keepdim=True)[1].squeeze(1) + M.aminmax(a)[1]),
    "aminmax_ties": ([(6,)], lambda M, a: M.aminmax(M.clamp(a, min=0.0, max=1.0))[0] + M.aminmax(M.clamp(a, min=0.0, max=1.0))[1] * 2),
    "split_chunk": ([(2, 5)], lambda M, a: M.cat([p * (i + 1) for i, p in enumerate(a.split(2, 1))] + [q.exp() for q in a.split([1, 4], 1)] + [r * r for r in a.chunk(3, 1)], 1)),
    "unbind": ([(3, 2)], lambda M, a: M.stack([t * (i + 1) for i, t in enumerate(a.unbind(0))], 1) + M.stack(a.unbind(1), 0) ** 2),
    "to_device_other": ([(3,), (2,)], lambda M, a, b: a.to("cpu", M.float32).double() * a.to(b) * a.to("cpu")),
    # session 4 (issue 12): torch.special, logdet, index_put_(accumulate=True)
    "special_ndtr_log_ndtr": ([(5,)], lambda M, a: M.special.ndtr(a) + M.special.log_ndtr(a * 1.5) * 2),
    "special_ndtri": ([(5,)], lambda M, a: M.special.ndtri(M.sigmoid(a))),
    "special_bessel": ([(6,)], lambda M, a: M.special.i0e(a) + M.special.i1(a) * 2 + M.special.i1e(a * 0.7) * 3 + M.i0(a * 0.5)),
    "special_bessel_at_zero": ([(3,)], lambda M, a: M.special.i1(a - a.detach()) + M.special.i1e(a - a.detach()) * 2 + M.special.i0e(a - a.detach()) * 3),
    "special_erfcx_entr": ([(5,)], lambda M, a: M.special.erfcx(a) + M.special.entr(a * a + 0.1)),
    "special_xlog1py": ([(4,), (4,)], lambda M, a, b: M.special.xlog1py(a, b * b + 0.5) + M.special.xlog1py(a * (a > 0), b * b)),
    "special_zeta": ([(4,)], lambda M, b: M.special.zeta(M.tensor([2.5, 3.0, 1.5, 4.0], dtype=M.float64), b * b + 0.5)),
    "special_multigammaln": ([(4,)], lambda M, a: M.special.multigammaln(a * a + 2.0, 3) + M.special.multigammaln(a * a + 1.0, 1)),
    "logdet": ([(3, 3)], lambda M, a: M.logdet(a @ a.transpose(0, 1) + M.eye(3, dtype=M.float64)) + (a * 0.2 + M.eye(3, dtype=M.float64) * 3).logdet()),
    "index_put_accumulate": ([(5,), (3,)], lambda M, a, v: (a * 1).index_put_((idx(M, [0, 2, 0]),), v * 2, accumulate=True) * a),
    "index_put_accumulate_broadcast": ([(3, 4), (4,)], lambda M, a, v: a.index_put((idx(M, [1, 1]), ), v * v, accumulate=True) + a.index_put((a > 0,), v[0] * 3, accumulate=True)),
    "linalg_cholesky": ([(3, 3)], lambda M, a: M.linalg.cholesky(a @ a.transpose(0, 1) + M.eye(3, dtype=M.float64)) + M.linalg.cholesky(a @ a.transpose(0, 1) + M.eye(3, dtype=M.float64) * 2, upper=True) * 2),
    "linalg_eigvalsh": ([(3, 3)], lambda M, a: M.linalg.eigvalsh(a + a.transpose(0, 1)) + M.linalg.eigvalsh(a @ a.transpose(0, 1), UPLO="U") * 2),
    "linalg_svdvals": ([(3, 2), (2, 2, 3)], lambda M, a, b: M.linalg.svdvals(a) + M.linalg.svdvals(b).sum(0)),
    "linalg_cholesky_ex_inv_ex": ([(3, 3)], lambda M, a: M.linalg.cholesky_ex(a @ a.transpose(0, 1) + M.eye(3, dtype=M.float64))[0] + M.linalg.cholesky_ex(a @ a.transpose(0, 1) + M.eye(3, dtype=M.float64), upper=True).L * 2 + M.linalg.inv_ex(a + M.eye(3, dtype=M.float64) * 4)[0]),
    "slogdet": ([(2, 3, 3)], lambda M, a: M.linalg.slogdet(a).logabsdet + M.slogdet(a * 2 + M.eye(3, dtype=M.float64))[1] * M.linalg.slogdet(a)[0]),
    "scatter_reduce": ([(3, 4), (2, 4)], lambda M, a, b: a.scatter_reduce(0, idx(M, [[0, 2, 0, 1], [0, 0, 2, 1]]), b, "sum") + a.scatter_reduce(0, idx(M, [[0, 2, 0, 1], [0, 0, 2, 1]]), b, "mean", include_self=False) * 2 + M.scatter_reduce(a, 1, idx(M, [[0, 0, 3, 3], [1, 1, 1, 0]]), b, "amax") * 3 + (a * 1).scatter_reduce_(1, idx(M, [[0, 0, 3, 3], [1, 1, 1, 0]]), b, "amin", include_self=False) * 4 + a.scatter_reduce(0, idx(M, [[1, 1, 1, 1], [2, 2, 2, 2]]), b, "mean") * 5),
    "scatter_reduce_ties": ([(2, 3), (2, 3)], lambda M, a, b: M.zeros(2, 3, dtype=M.float64).scatter_reduce(1, idx(M, [[0, 0, 1], [2, 2, 2]]), M.clamp(b, max=0.5), "amax", include_self=False) + (M.clamp(a, min=0.0) * 1).scatter_reduce(1, idx(M, [[0, 0, 0], [1, 1, 1]]), M.clamp(b, min=0.0), "amax")),
    "split_with_sizes": ([(2, 5)], lambda M, a: M.cat([p * (i + 1) for i, p in enumerate(M.split_with_sizes(a, [2, 3], 1))] + [M.cat([q.exp() for q in a.split_with_sizes([1, 1], 0)], 0)], 1)),
    "as_strided": ([(6,)], lambda M, a: (a * 1).as_strided((4, 3), (1, 1)) * 2 + M.as_strided(a, (4, 3), (1, 0), 2) * a[:3]),
    "as_strided_of_view": ([(3, 4)], lambda M, a: a.t().as_strided((3, 3), (4, 1), 1) + (a * 1).t().as_strided((3, 3), (1, 3))),
    "as_strided_overlapping_input": ([(4,)], lambda M, a: a.expand(3, 4).as_strided((2, 2), (1, 1)) * 3 + a.expand(2, 4).as_strided((2, 2), (1, 1), 1)),
    # session 5 (issue 12): the pending formulas
    "polygamma": ([(5,)], lambda M, a: M.polygamma(1, a * a + 0.5) + (a * a + 1).polygamma(2) * 2 + M.polygamma(0, a * a + 0.3) * 3 + M.special.polygamma(3, a * a + 0.7)),
    "mvlgamma": ([(4,)], lambda M, a: M.mvlgamma(a * a + 2.0, 3) + (a * a + 1.0).mvlgamma(1) * 2),
    "special_bessel_jy": ([(6,)], lambda M, a: M.special.bessel_j0(a) + M.special.bessel_j1(a) * 2 + M.special.bessel_y0(a * a + 0.5) * 3 + M.special.bessel_y1(a * a + 0.5) * 4),
    "special_modified_bessel": ([(6,)], lambda M, a: M.special.modified_bessel_i0(a) + M.special.modified_bessel_i1(a) * 2 + M.special.modified_bessel_k0(a * a + 0.5) * 3 + M.special.modified_bessel_k1(a * a + 0.5) * 4),
    "special_bessel_order1_at_zero": ([(3,)], lambda M, a: M.special.bessel_j1(a - a.detach()) + M.special.modified_bessel_i1(a - a.detach()) * 2 + M.special.bessel_j0(a - a.detach()) * 3 + M.special.modified_bessel_i0(a - a.detach()) * 4),
    "igamma_other": ([(4,)], lambda M, b: M.igamma(M.tensor([0.5, 2.0, 3.0, 1.5], dtype=M.float64), b * b + 0.5) + M.igammac(M.tensor([1.5, 0.7, 2.5, 4.0], dtype=M.float64), b * b + 0.3) * 2 + M.special.gammainc(M.tensor([2.0, 1.0, 0.5, 3.5], dtype=M.float64), b * b + 1) * 3 + M.special.gammaincc(M.tensor([1.0, 2.5, 3.0, 0.8], dtype=M.float64), b * b + 0.2) * 4 + M.tensor([1.0, 2.0, 0.5, 3.0], dtype=M.float64).igamma_(b * b + 0.1) * 5),
    "nextafter": ([(4,), (4,)], lambda M, a, b: M.nextafter(a, b) * a + a.nextafter(b * 2) * 2),
    "random_fills_inplace": ([(4,), (4,)], lambda M, a, b: a * 3 + 0 * ((a * 2).uniform_() + (a * 2).normal_(1.0, 2.0) + (a * 2).bernoulli_(0.3) + (a * 2).bernoulli_(M.sigmoid(b)) + (a * 2).exponential_() + (a * 2).random_(0, 5) + (a * 2).random_(5) + (a * 2).geometric_(0.5) + (a * 2).cauchy_() + (a * 2).log_normal_() + M.normal(a, b * b + 1))),
    "fill_value": ([(4,), (2,)], lambda M, a, b: (a * 1).fill_(b[0] * b[1]) * a + (a * 2)[1:3].fill_(b[1]).sum() * 3),
    "renorm_inplace": ([(3, 4)], lambda M, a: (a * 1).renorm_(2, 0, 1.5) + (a * 2).renorm_(1, 1, 2.0) * 2),
    "float_power_inplace": ([(4,), (4,)], lambda M, a, b: (a * a + 0.5).float_power_(b) + (a * 1).float_power_(3) * 2),
    "inplace_into_plain_self": ([(3,), (3,)], lambda M, w, v: M.ones(3, dtype=M.float64).mul_(w) * w + M.full((3,), 2.0, dtype=M.float64).div_(v * v + 1) + M.ones(3, dtype=M.float64).addcmul_(w, v)),
    "quantile_linear_dim": ([(3, 5)], lambda M, a: M.quantile(a, M.tensor([0.1, 0.5, 0.93], dtype=M.float64), dim=1) + M.quantile(a, 0.3, dim=0, keepdim=True).sum() * 2),
    "quantile_modes": ([(7,)], lambda M, a: M.stack([M.quantile(a, M.tensor([0.2, 0.55], dtype=M.float64), interpolation=m) for m in ("linear", "lower", "higher", "midpoint", "nearest")]) + a.quantile(0.5)),
    "quantile_ties": ([(2, 6)], lambda M, a: M.quantile(M.clamp(a, -1.0, 1.0), M.tensor([0.1, 0.5, 0.9], dtype=M.float64), dim=1, keepdim=True) + M.quantile(M.clamp(a, max=0.5), 0.75, interpolation="midpoint")),
    "quantile_nan": ([(2, 4)], lambda M, a: M.quantile(M.where(M.tensor([[False, True, False, False], [False, False, False, False]]), M.tensor(float("nan"), dtype=M.float64), a), 0.4, dim=1)),
    "nanquantile": ([(2, 5)], lambda M, a: M.nanquantile(M.where(M.tensor([[False, True, False, True, False], [True, True, True, True, False]]), M.tensor(float("nan"), dtype=M.float64), a), M.tensor([0.25, 0.8], dtype=M.float64), dim=1) + M.nanquantile(a, 0.6, interpolation="nearest")),
    "index_reduce": ([(4, 3), (5, 3)], lambda M, a, b: a.index_reduce(0, idx(M, [0, 2, 0, 3, 2]), b, "mean") + a.index_reduce(0, idx(M, [0, 2, 0, 3, 2]), b, "mean", include_self=False) * 2 + M.index_reduce(a, 0, idx(M, [1, 1, 0, 3, 3]), b, "amax") * 3 + (a * 1).index_reduce_(0, idx(M, [1, 1, 0, 3, 3]), b, "amin", include_self=False) * 4),
    "index_reduce_prod": ([(4, 3), (5, 3), (4, 3)], lambda M, a, b, c: (a * M.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], dtype=M.float64)).index_reduce(0, idx(M, [0, 2, 0, 3, 2]), b * M.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], dtype=M.float64), "prod") + a.index_reduce(1, idx(M, [2, 2, 0]), c * M.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], dtype=M.float64), "prod", include_self=False) * 2),
    "scatter_reduce_prod": ([(3, 4), (2, 4)], lambda M, a, b: (a * M.tensor([[1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0]], dtype=M.float64)).scatter_reduce(0, idx(M, [[0, 2, 0, 1], [0, 0, 2, 1]]), b * M.tensor([[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]], dtype=M.float64), "prod") + a.scatter_reduce(1, idx(M, [[0, 0, 3, 3], [1, 1, 1, 0]]), b, "prod", include_self=False) * 2),
    "nn_linear": ([(2, 3), (4, 3), (4,), (5, 2, 3), (3,)], lambda M, a, w, b, c, d: nn_mod(M).linear(a, w, b).sum(0) + nn_mod(M).linear(c, w).sum((0, 1)) + nn_mod(M).linear(c, w, b).sum((0, 1)) * 2 + nn_mod(M).linear(d, w, b) * 3),
    "native_norms": ([(2, 3, 4), (4,), (4,), (3,), (3,)], lambda M, x, w, b, gw, gb: M.native_layer_norm(x, [4], w, b, 1e-5)[0] + M.native_group_norm(x, gw, gb, 2, 3, 4, 1, 1e-5)[0] * 2 + M.native_batch_norm(x, gw, gb, None, None, True, 0.1, 1e-5)[0] * 3),
    "addbmm_inplace": ([(2, 3), (4, 2, 5), (4, 5, 3)], lambda M, a, b, c: (a * 1).addbmm_(b, c, beta=0.5, alpha=2) + (a * 2).addbmm_(b, c)),
}

# Cases also checked to second order (double backward through the formulas, `create_graph`):
# the gradient of sum(grad_i * w_i) over the first-order gradients, with respect to every input.
DOUBLE = [
    "mul", "div", "pow_tensor", "exp_log", "sqrt", "sin_cos", "tanh_sigmoid", "sum_all",
    "mean_dim", "matmul_2d", "matmul_1d_2d", "softmax", "log_softmax", "logsumexp",
    "logsumexp_keepdim", "var_std_all", "std_correction_keepdim", "norm", "norm_fro", "norm_p",
    "prod_all", "prod_all_one_zero", "prod_dim_keepdim", "prod_dim_one_zero", "atan2_hypot",
    "lerp_tensor", "expm1_log1p", "log2_log10_exp2", "rsqrt_reciprocal", "tan_atan", "asin_acos",
    "sinh_cosh", "cumsum", "trace_outer", "repeat", "tile", "take", "index_copy",
    "remainder_fmod", "cross_entropy_by_hand", "where", "gather", "index_select", "select_narrow",
    "erf_erfc_erfinv", "lgamma", "asinh_acosh_atanh", "deg2rad_rad2deg", "logit", "xlogy",
    "copysign", "logaddexp", "fmax_fmin", "clamp_min_max_tensor", "addcmul_addcdiv",
    "addcmul_addcdiv_inplace", "rsub_true_divide", "bmm_baddbmm", "mv_addmv", "addmm", "addr",
    "vdot_cross", "cross_batched", "dist", "cdist", "cdist_p", "cumprod", "cumprod_zero",
    "cumprod_fixed_zero", "diag_vector", "diag_matrix", "diagonal", "einsum", "einsum_batched", "aminmax",
    "split_chunk", "unbind", "special_ndtr_log_ndtr", "special_ndtri", "special_bessel",
    "special_erfcx_entr", "special_xlog1py", "special_zeta", "logdet", "linalg_cholesky",
    "linalg_cholesky_ex_inv_ex", "slogdet", "scatter_reduce",
    # session 5
    "polygamma", "special_bessel_jy", "special_modified_bessel", "igamma_other", "nextafter",
    "fill_value", "renorm_inplace", "inplace_into_plain_self", "quantile_linear_dim",
    "quantile_modes", "index_reduce", "index_reduce_prod", "scatter_reduce_prod", "nn_linear", "float_power_inplace", "addbmm_inplace",
]
