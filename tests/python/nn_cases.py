"""The cases of the _C.nn.functional tests (tests/python/test_nn_*.py), shared with the script
that records torch's answers (tests/python/gen_nn_expected.py → nn_expected.json).

A case is a snippet of Python run once with ``F = torch.nn.functional, T = torch`` (by the
generator, with torch 2.15) and once with ``F = _C.nn.functional, T = _C`` (by the tests, which
never import torch); the snippet reads the inputs ``a``, ``b``, ... (tensors made from the
recorded values) and leaves its answer in ``out`` (a tensor, a tuple of tensors, a number), or
raises. The tests compare values (dtype, shape, elements within a tolerance) or the exception's
type and text.

Each family is a list of (id, inputs, code); inputs maps a name to (shape, dtype, kind) where
kind is ``"randn"``, ``"rand"`` (uniform [0, 1)), ``"int:N"`` (integers in [0, N)) or a literal
list of values.
"""

F32, F64 = "float32", "float64"


def _acts():
    cases = []
    for dt in (F32, F64):
        x = {"a": ([3, 5], dt, "randn")}
        big = {"a": ([4, 6], dt, [-30.0, -20.0, -5.0, -3.0, -2.5, -1.0, -0.5, -1e-4, 0.0, 1e-4, 0.5, 1.0,
                                   2.5, 3.0, 5.0, 19.0, 21.0, 30.0, -0.1, 0.1, 6.0, 7.0, -7.0, 2.0])}
        for src, inp in (("", x), ("big_", big)):
            for name, code in [
                ("relu", "out = F.relu(a)"),
                ("relu6", "out = F.relu6(a)"),
                ("leaky_relu", "out = F.leaky_relu(a)"),
                ("leaky_relu_slope", "out = F.leaky_relu(a, 0.2)"),
                ("elu", "out = F.elu(a)"),
                ("elu_alpha", "out = F.elu(a, alpha=0.5)"),
                ("selu", "out = F.selu(a)"),
                ("celu", "out = F.celu(a, alpha=2.0)"),
                ("gelu", "out = F.gelu(a)"),
                ("gelu_tanh", "out = F.gelu(a, approximate='tanh')"),
                ("silu", "out = F.silu(a)"),
                ("mish", "out = F.mish(a)"),
                ("softplus", "out = F.softplus(a)"),
                ("softplus_beta", "out = F.softplus(a, beta=2, threshold=5)"),
                ("softsign", "out = F.softsign(a)"),
                ("hardtanh", "out = F.hardtanh(a)"),
                ("hardtanh_range", "out = F.hardtanh(a, -2.0, 0.5)"),
                ("hardsigmoid", "out = F.hardsigmoid(a)"),
                ("hardswish", "out = F.hardswish(a)"),
                ("logsigmoid", "out = F.logsigmoid(a)"),
                ("threshold", "out = F.threshold(a, 0.1, 20.0)"),
                ("sigmoid", "out = F.sigmoid(a)"),
                ("tanh", "out = F.tanh(a)"),
                ("softmax", "out = F.softmax(a, dim=1)"),
                ("softmax0", "out = F.softmax(a, 0)"),
                ("softmin", "out = F.softmin(a, dim=1)"),
                ("log_softmax", "out = F.log_softmax(a, dim=-1)"),
            ]:
                cases.append((f"{src}{name}_{dt}", inp, code))
        for name, code in [
            ("relu_inplace", "r = F.relu(a, inplace=True); out = (r, a, r is a)"),
            ("relu_", "r = F.relu_(a); out = (r, a, r is a)"),
            ("leaky_relu_inplace", "r = F.leaky_relu(a, 0.3, inplace=True); out = (r, a, r is a)"),
            ("elu_inplace", "r = F.elu(a, 0.7, inplace=True); out = (r, a, r is a)"),
            ("selu_inplace", "r = F.selu(a, inplace=True); out = (r, a, r is a)"),
            ("celu_inplace", "r = F.celu(a, 1.5, inplace=True); out = (r, a, r is a)"),
            ("silu_inplace", "r = F.silu(a, inplace=True); out = (r, a, r is a)"),
            ("mish_inplace", "r = F.mish(a, inplace=True); out = (r, a, r is a)"),
            ("hardtanh_inplace", "r = F.hardtanh(a, -0.5, 0.5, inplace=True); out = (r, a, r is a)"),
            ("hardtanh_", "r = F.hardtanh_(a, -0.5, 0.5); out = (r, a, r is a)"),
            ("relu6_inplace", "r = F.relu6(a, inplace=True); out = (r, a, r is a)"),
            ("hardsigmoid_inplace", "r = F.hardsigmoid(a, inplace=True); out = (r, a, r is a)"),
            ("hardswish_inplace", "r = F.hardswish(a, inplace=True); out = (r, a, r is a)"),
            ("threshold_inplace", "r = F.threshold(a, 0.0, -1.0, inplace=True); out = (r, a, r is a)"),
            ("noncontig", "out = F.gelu(a.t())"),
            ("noncontig_silu", "out = F.silu(a.t())"),
            ("glu", "out = F.glu(a, 0)"),
            ("glu_last", "out = F.glu(T.cat([a, a * 2], 1))"),
        ]:
            cases.append((f"{name}_{dt}", {"a": ([4, 3], dt, "randn")}, code))
    ints = {"a": ([4], "int64", [-2, -1, 0, 3])}
    cases += [
        ("hardtanh_int", ints, "out = F.hardtanh(a)"),
        ("relu6_int", ints, "out = F.relu6(a)"),
        ("threshold_int", ints, "out = F.threshold(a, 0, 7)"),
        ("err_gelu_int", ints, "out = F.gelu(a)"),
        ("err_silu_int", ints, "out = F.silu(a)"),
        ("err_elu_int", ints, "out = F.elu(a)"),
        ("err_selu_int", ints, "out = F.selu(a)"),
        ("err_leaky_relu_int", ints, "out = F.leaky_relu(a)"),
        ("err_softplus_int", ints, "out = F.softplus(a)"),
        ("err_mish_int", ints, "out = F.mish(a)"),
        ("err_hardsigmoid_int", ints, "out = F.hardsigmoid(a)"),
        ("err_hardswish_int", ints, "out = F.hardswish(a)"),
        ("err_logsigmoid_int", ints, "out = F.logsigmoid(a)"),
        ("err_gelu_approx", {"a": ([3], F32, "randn")}, "out = F.gelu(a, approximate='foo')"),
        ("err_hardtanh_range", {"a": ([3], F32, "randn")}, "out = F.hardtanh(a, 2.0, 1.0)"),
        ("err_glu_odd", {"a": ([2, 3], F32, "randn")}, "out = F.glu(a)"),
        ("err_glu_scalar", {"a": ([], F32, "randn")}, "out = F.glu(a)"),
        ("empty_gelu", {"a": ([0, 3], F32, "randn")}, "out = F.gelu(a)"),
    ]
    return cases


def _linear():
    cases = []
    for dt in (F32, F64):
        cases += [
            (f"linear_{dt}", {"a": ([4, 3], dt, "randn"), "w": ([5, 3], dt, "randn"), "b": ([5], dt, "randn")},
             "out = F.linear(a, w, b)"),
            (f"linear_nobias_{dt}", {"a": ([2, 4, 3], dt, "randn"), "w": ([5, 3], dt, "randn")},
             "out = F.linear(a, w)"),
            (f"linear_1d_{dt}", {"a": ([3], dt, "randn"), "w": ([2, 3], dt, "randn"), "b": ([2], dt, "randn")},
             "out = F.linear(a, w, b)"),
            (f"bilinear_{dt}", {"a": ([4, 3], dt, "randn"), "c": ([4, 2], dt, "randn"),
                                "w": ([5, 3, 2], dt, "randn"), "b": ([5], dt, "randn")},
             "out = F.bilinear(a, c, w, b)"),
            (f"bilinear_batch_{dt}", {"a": ([2, 4, 3], dt, "randn"), "c": ([2, 4, 2], dt, "randn"),
                                      "w": ([5, 3, 2], dt, "randn")},
             "out = F.bilinear(a, c, w)"),
        ]
    cases += [
        ("err_linear_shape", {"a": ([2, 3], F32, "randn"), "w": ([4, 2], F32, "randn")}, "out = F.linear(a, w)"),
        ("err_linear_shape_3d", {"a": ([5, 2, 3], F32, "randn"), "w": ([4, 2], F32, "randn")}, "out = F.linear(a, w)"),
        ("err_linear_shape_1d", {"a": ([3], F32, "randn"), "w": ([4, 2], F32, "randn")}, "out = F.linear(a, w)"),
    ]
    return cases


def _losses():
    cases = []
    for dt in (F32, F64):
        xy = {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        for red in ("mean", "sum", "none"):
            cases += [
                (f"mse_{red}_{dt}", xy, f"out = F.mse_loss(a, b, reduction='{red}')"),
                (f"l1_{red}_{dt}", xy, f"out = F.l1_loss(a, b, reduction='{red}')"),
                (f"smooth_l1_{red}_{dt}", xy, f"out = F.smooth_l1_loss(a, b, reduction='{red}', beta=0.5)"),
                (f"huber_{red}_{dt}", xy, f"out = F.huber_loss(a, b, reduction='{red}', delta=0.7)"),
                (f"kl_div_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "rand")},
                 f"out = F.kl_div(F.log_softmax(a, 1), b, reduction='{red}')"),
                (f"bce_{red}_{dt}", {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand")},
                 f"out = F.binary_cross_entropy(a, b, reduction='{red}')"),
                (f"bce_logits_{red}_{dt}", xy,
                 f"out = F.binary_cross_entropy_with_logits(a, T.sigmoid(b), reduction='{red}')"),
                (f"nll_{red}_{dt}", {"a": ([6, 4], dt, "randn"), "t": ([6], "int64", [0, 3, 1, 1, 2, 0])},
                 f"out = F.nll_loss(F.log_softmax(a, 1), t, reduction='{red}')"),
                (f"nll_weight_ignore_{red}_{dt}",
                 {"a": ([6, 4], dt, "randn"), "t": ([6], "int64", [0, 3, 1, 1, 2, 0]), "w": ([4], dt, "rand")},
                 f"out = F.nll_loss(F.log_softmax(a, 1), t, weight=w, ignore_index=1, reduction='{red}')"),
                (f"ce_{red}_{dt}", {"a": ([6, 4], dt, "randn"), "t": ([6], "int64", [0, 3, 1, 1, 2, 0])},
                 f"out = F.cross_entropy(a, t, reduction='{red}')"),
                (f"ce_weight_ignore_ls_{red}_{dt}",
                 {"a": ([6, 4], dt, "randn"), "t": ([6], "int64", [0, 3, 1, 1, 2, 0]), "w": ([4], dt, "rand")},
                 f"out = F.cross_entropy(a, t, weight=w, ignore_index=2, label_smoothing=0.2, reduction='{red}')"),
                (f"ce_ls_{red}_{dt}", {"a": ([6, 4], dt, "randn"), "t": ([6], "int64", [0, 3, 1, 1, 2, 0])},
                 f"out = F.cross_entropy(a, t, label_smoothing=0.1, reduction='{red}')"),
                (f"ce_probs_{red}_{dt}", {"a": ([5, 4], dt, "randn"), "p": ([5, 4], dt, "rand")},
                 f"out = F.cross_entropy(a, F.softmax(p, 1), reduction='{red}')"),
                (f"ce_probs_w_ls_{red}_{dt}",
                 {"a": ([5, 4], dt, "randn"), "p": ([5, 4], dt, "rand"), "w": ([4], dt, "rand")},
                 f"out = F.cross_entropy(a, F.softmax(p, 1), weight=w, label_smoothing=0.3, reduction='{red}')"),
                (f"ce_2d_{red}_{dt}", {"a": ([2, 3, 2, 2], dt, "randn"), "t": ([2, 2, 2], "int64", "int:3")},
                 f"out = F.cross_entropy(a, t, reduction='{red}')"),
            ]
        cases += [
            (f"bce_weight_{dt}", {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand"), "w": ([5], dt, "rand")},
             "out = F.binary_cross_entropy(a, b, weight=w)"),
            (f"bce_logits_pos_weight_{dt}",
             {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "rand"), "w": ([4, 5], dt, "rand"), "p": ([5], dt, "rand")},
             "out = F.binary_cross_entropy_with_logits(a, b, weight=w, pos_weight=p * 3)"),
            (f"kl_div_batchmean_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "rand")},
             "out = F.kl_div(F.log_softmax(a, 1), b, reduction='batchmean')"),
            (f"kl_div_log_target_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")},
             "out = F.kl_div(F.log_softmax(a, 1), F.log_softmax(b, 1), reduction='sum', log_target=True)"),
            (f"ce_1d_{dt}", {"a": ([4], dt, "randn"), "t": ([], "int64", [2])}, "out = F.cross_entropy(a, t)"),
            (f"mse_weight_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "w": ([4, 5], dt, "rand")},
             "out = F.mse_loss(a, b, weight=w)"),
            (f"huber_big_{dt}", {"a": ([6], dt, [-3.0, -1.0, 0.0, 0.2, 1.5, 4.0]), "b": ([6], dt, [0.0] * 6)},
             "out = F.huber_loss(a, b, reduction='none')"),
            (f"smooth_l1_beta0_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")},
             "out = F.smooth_l1_loss(a, b, beta=0.0)"),
        ]
    e = {"a": ([2, 3], F32, "randn"), "b": ([2, 3], F32, "randn")}
    cases += [
        ("legacy_size_average", e, "out = F.mse_loss(a, b, size_average=False)"),
        ("legacy_reduce", e, "out = F.l1_loss(a, b, reduce=False)"),
        ("err_reduction", e, "out = F.mse_loss(a, b, reduction='foo')"),
        ("err_broadcast", {"a": ([2, 3], F32, "randn"), "b": ([3, 3], F32, "randn")}, "out = F.mse_loss(a, b)"),
        ("err_nll_target_oob", {"a": ([2, 3], F32, "randn"), "t": ([2], "int64", [0, 5])}, "out = F.nll_loss(a, t)"),
        ("err_nll_batch", {"a": ([2, 3], F32, "randn"), "t": ([3], "int64", [0, 1, 2])}, "out = F.nll_loss(a, t)"),
        ("err_ce_ls", {"a": ([2, 3], F32, "randn"), "t": ([2], "int64", [0, 1])},
         "out = F.cross_entropy(a, t, label_smoothing=1.5)"),
        ("err_bce_range", {"a": ([2], F32, [0.5, 2.0]), "b": ([2], F32, [0.0, 1.0])}, "out = F.binary_cross_entropy(a, b)"),
        ("err_bce_size", {"a": ([2], F32, [0.5, 0.2]), "b": ([3], F32, [0.0, 1.0, 1.0])}, "out = F.binary_cross_entropy(a, b)"),
        ("err_bce_logits_size", {"a": ([2], F32, [0.5, 0.2]), "b": ([3], F32, [0.0, 1.0, 1.0])},
         "out = F.binary_cross_entropy_with_logits(a, b)"),
        ("nll_all_ignored", {"a": ([2, 3], F32, "randn"), "t": ([2], "int64", [1, 1])},
         "out = F.nll_loss(a, t, ignore_index=1)"),
    ]
    return cases


def _norms():
    cases = []
    for dt in (F32, F64):
        cases += [
            (f"layer_norm_{dt}", {"a": ([3, 4, 5], dt, "randn")}, "out = F.layer_norm(a, (5,))"),
            (f"layer_norm_affine_{dt}", {"a": ([3, 4, 5], dt, "randn"), "w": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")},
             "out = F.layer_norm(a, [4, 5], w, b, eps=1e-3)"),
            (f"native_layer_norm_{dt}", {"a": ([3, 4, 5], dt, "randn"), "w": ([5], dt, "randn"), "b": ([5], dt, "randn")},
             "out = tuple(T.native_layer_norm(a, [5], w, b, 1e-5))"),
            (f"group_norm_{dt}", {"a": ([2, 6, 3, 2], dt, "randn"), "w": ([6], dt, "randn"), "b": ([6], dt, "randn")},
             "out = F.group_norm(a, 3, w, b)"),
            (f"group_norm_plain_{dt}", {"a": ([2, 4, 5], dt, "randn")}, "out = F.group_norm(a, 2)"),
            (f"native_group_norm_{dt}", {"a": ([2, 6, 3], dt, "randn")},
             "out = tuple(T.native_group_norm(a, None, None, 2, 6, 3, 3, 1e-5))"),
            (f"rms_norm_{dt}", {"a": ([3, 4], dt, "randn"), "w": ([4], dt, "randn")}, "out = F.rms_norm(a, [4], w)"),
            (f"rms_norm_eps_{dt}", {"a": ([3, 4], dt, "randn")}, "out = F.rms_norm(a, (4,), eps=0.5)"),
            (f"batch_norm_train_{dt}",
             {"a": ([4, 3, 2], dt, "randn"), "m": ([3], dt, "randn"), "v": ([3], dt, "rand"),
              "w": ([3], dt, "randn"), "b": ([3], dt, "randn")},
             "r = F.batch_norm(a, m, v, w, b, training=True, momentum=0.2); out = (r, m, v)"),
            (f"batch_norm_eval_{dt}",
             {"a": ([4, 3, 2], dt, "randn"), "m": ([3], dt, "randn"), "v": ([3], dt, "rand")},
             "r = F.batch_norm(a, m, v); out = (r, m, v)"),
            (f"batch_norm_nostats_{dt}", {"a": ([5, 3], dt, "randn")},
             "out = F.batch_norm(a, None, None, training=True)"),
            (f"normalize_{dt}", {"a": ([3, 4], dt, "randn")}, "out = F.normalize(a)"),
            (f"normalize_p1_{dt}", {"a": ([3, 4], dt, "randn")}, "out = F.normalize(a, p=1.0, dim=0)"),
        ]
    cases += [
        ("err_layer_norm_shape", {"a": ([2, 3], F32, "randn")}, "out = F.layer_norm(a, (4,))"),
        ("err_group_norm_groups", {"a": ([2, 6, 3], F32, "randn")}, "out = F.group_norm(a, 4)"),
        ("err_batch_norm_size", {"a": ([2, 3], F32, "randn"), "m": ([4], F32, "randn"), "v": ([4], F32, "rand")},
         "out = F.batch_norm(a, m, v)"),
        ("err_batch_norm_one", {"a": ([1, 3], F32, "randn")}, "out = F.batch_norm(a, None, None, training=True)"),
    ]
    return cases


def _misc():
    cases = [
        ("dropout_eval", {"a": ([3, 4], F32, "randn")}, "out = F.dropout(a, 0.5, training=False)"),
        ("dropout_p0", {"a": ([3, 4], F32, "randn")}, "out = F.dropout(a, 0.0)"),
        ("dropout_p1", {"a": ([3, 4], F32, "randn")}, "out = F.dropout(a, 1.0)"),
        ("err_dropout_p", {"a": ([3, 4], F32, "randn")}, "out = F.dropout(a, 1.5)"),
        ("embedding", {"w": ([5, 3], F32, "randn"), "i": ([2, 3], "int64", [0, 4, 2, 2, 1, 0])},
         "out = F.embedding(i, w)"),
        ("embedding_padding", {"w": ([5, 3], F64, "randn"), "i": ([4], "int64", [0, 4, 2, 2])},
         "out = F.embedding(i, w, padding_idx=2)"),
        ("embedding_max_norm", {"w": ([5, 3], F64, "randn"), "i": ([4], "int64", [0, 4, 2, 2])},
         "r = F.embedding(i, w, max_norm=0.5); out = (r, w)"),
        ("err_embedding_oob", {"w": ([3, 2], F32, "randn"), "i": ([2], "int64", [0, 5])}, "out = F.embedding(i, w)"),
        ("one_hot", {"i": ([4], "int64", [0, 2, 1, 2])}, "out = F.one_hot(i)"),
        ("one_hot_n", {"i": ([2, 2], "int64", [0, 2, 1, 2])}, "out = F.one_hot(i, 5)"),
        ("err_one_hot_small", {"i": ([2], "int64", [0, 3])}, "out = F.one_hot(i, 2)"),
        ("err_one_hot_float", {"i": ([2], F32, [0.0, 3.0])}, "out = F.one_hot(i)"),
    ]
    for dt in (F32, F64):
        cases += [
            (f"cosine_similarity_{dt}", {"a": ([3, 4], dt, "randn"), "b": ([3, 4], dt, "randn")},
             "out = F.cosine_similarity(a, b)"),
            (f"cosine_similarity_dim0_{dt}", {"a": ([3, 4], dt, "randn"), "b": ([1, 4], dt, "randn")},
             "out = F.cosine_similarity(a, b, dim=0)"),
            (f"pairwise_distance_{dt}", {"a": ([3, 4], dt, "randn"), "b": ([3, 4], dt, "randn")},
             "out = F.pairwise_distance(a, b)"),
            (f"pairwise_distance_p1_{dt}", {"a": ([3, 4], dt, "randn"), "b": ([3, 4], dt, "randn")},
             "out = F.pairwise_distance(a, b, p=1.0, keepdim=True)"),
        ]
    return cases


def _pad():
    cases = []
    for dt in (F32, F64):
        x3 = {"a": ([1, 2, 4], dt, "randn")}
        x4 = {"a": ([1, 2, 3, 4], dt, "randn")}
        cases += [
            (f"pad_constant_{dt}", x3, "out = F.pad(a, (1, 2))"),
            (f"pad_constant_value_{dt}", x4, "out = F.pad(a, (1, 2, 0, 1), value=3.5)"),
            (f"pad_constant_crop_{dt}", x4, "out = F.pad(a, (-1, 1, 1, -1))"),
            (f"pad_constant_all_{dt}", x3, "out = F.pad(a, (1, 1, 1, 1, 1, 1))"),
            (f"pad_reflect1d_{dt}", x3, "out = F.pad(a, (3, 2), mode='reflect')"),
            (f"pad_reflect2d_{dt}", x4, "out = F.pad(a, (1, 2, 2, 1), mode='reflect')"),
            (f"pad_replicate1d_{dt}", x3, "out = F.pad(a, (3, 5), mode='replicate')"),
            (f"pad_replicate2d_{dt}", x4, "out = F.pad(a, (1, 2, 3, 1), mode='replicate')"),
            (f"pad_circular1d_{dt}", x3, "out = F.pad(a, (2, 3), mode='circular')"),
            (f"pad_circular2d_{dt}", x4, "out = F.pad(a, (1, 2, 2, 1), mode='circular')"),
        ]
    cases += [
        ("pad_int", {"a": ([2, 2], "int64", [1, 2, 3, 4])}, "out = F.pad(a, (1, 1), value=7)"),
        ("err_pad_odd", {"a": ([2, 3], F32, "randn")}, "out = F.pad(a, (1,))"),
        ("err_pad_reflect_big", {"a": ([2, 3], F32, "randn")}, "out = F.pad(a, (3, 3), mode='reflect')"),
        ("err_pad_mode", {"a": ([2, 3], F32, "randn")}, "out = F.pad(a, (1, 1), mode='foo')"),
        ("err_pad_reflect_1d", {"a": ([3], F32, "randn")}, "out = F.pad(a, (1, 1), mode='reflect')"),
    ]
    return cases


def _conv_pool():
    cases = []
    for dt in (F32, F64):
        x = {"a": ([2, 3, 7, 6], dt, "randn"), "w": ([4, 3, 3, 2], dt, "randn"), "b": ([4], dt, "randn")}
        cases += [
            (f"conv2d_{dt}", x, "out = F.conv2d(a, w, b)"),
            (f"conv2d_stride_pad_{dt}", x, "out = F.conv2d(a, w, b, stride=2, padding=1)"),
            (f"conv2d_pairs_{dt}", x, "out = F.conv2d(a, w, None, stride=(2, 1), padding=(1, 2), dilation=(2, 1))"),
            (f"conv2d_same_{dt}", x, "out = F.conv2d(a, w, b, padding='same')"),
            (f"conv2d_same_dil_{dt}", x, "out = F.conv2d(a, w, b, padding='same', dilation=2)"),
            (f"conv2d_valid_{dt}", x, "out = F.conv2d(a, w, b, padding='valid')"),
            (f"conv2d_groups_{dt}", {"a": ([2, 4, 5, 5], dt, "randn"), "w": ([6, 2, 3, 3], dt, "randn")},
             "out = F.conv2d(a, w, groups=2, padding=1)"),
            (f"conv2d_unbatched_{dt}", {"a": ([3, 5, 5], dt, "randn"), "w": ([2, 3, 3, 3], dt, "randn")},
             "out = F.conv2d(a, w)"),
            (f"conv1d_{dt}", {"a": ([2, 3, 9], dt, "randn"), "w": ([4, 3, 3], dt, "randn"), "b": ([4], dt, "randn")},
             "out = F.conv1d(a, w, b, stride=2, padding=1, dilation=2)"),
            (f"conv1d_same_{dt}", {"a": ([2, 3, 9], dt, "randn"), "w": ([4, 3, 4], dt, "randn")},
             "out = F.conv1d(a, w, padding='same')"),
            (f"conv1d_groups_unbatched_{dt}", {"a": ([4, 9], dt, "randn"), "w": ([2, 2, 3], dt, "randn")},
             "out = F.conv1d(a, w, groups=2)"),
        ]
        p = {"a": ([2, 3, 7, 6], dt, "randn")}
        cases += [
            (f"max_pool2d_{dt}", p, "out = F.max_pool2d(a, 2)"),
            (f"max_pool2d_args_{dt}", p, "out = F.max_pool2d(a, (3, 2), stride=(2, 1), padding=1)"),
            (f"max_pool2d_ceil_{dt}", p, "out = F.max_pool2d(a, 3, stride=2, ceil_mode=True)"),
            (f"max_pool2d_dilation_{dt}", p, "out = F.max_pool2d(a, 2, stride=1, dilation=2)"),
            (f"max_pool2d_indices_{dt}", p, "out = tuple(F.max_pool2d(a, 3, 2, 1, return_indices=True))"),
            (f"max_pool2d_unbatched_{dt}", {"a": ([3, 5, 5], dt, "randn")}, "out = F.max_pool2d(a, 2, return_indices=True)"),
            (f"avg_pool2d_{dt}", p, "out = F.avg_pool2d(a, 2)"),
            (f"avg_pool2d_pad_{dt}", p, "out = F.avg_pool2d(a, 3, stride=2, padding=1)"),
            (f"avg_pool2d_nopadcount_{dt}", p, "out = F.avg_pool2d(a, 3, stride=2, padding=1, count_include_pad=False)"),
            (f"avg_pool2d_ceil_{dt}", p, "out = F.avg_pool2d(a, 3, stride=2, ceil_mode=True)"),
            (f"avg_pool2d_divisor_{dt}", p, "out = F.avg_pool2d(a, 2, divisor_override=3)"),
            (f"adaptive_avg_pool2d_{dt}", p, "out = F.adaptive_avg_pool2d(a, (3, 4))"),
            (f"adaptive_avg_pool2d_int_{dt}", p, "out = F.adaptive_avg_pool2d(a, 5)"),
            (f"adaptive_avg_pool2d_none_{dt}", p, "out = F.adaptive_avg_pool2d(a, (None, 2))"),
            (f"adaptive_avg_pool2d_1_{dt}", p, "out = F.adaptive_avg_pool2d(a, 1)"),
        ]
    cases += [
        ("err_conv2d_channels", {"a": ([1, 3, 5, 5], F32, "randn"), "w": ([2, 4, 3, 3], F32, "randn")},
         "out = F.conv2d(a, w)"),
        ("err_conv2d_kernel", {"a": ([1, 3, 5, 5], F32, "randn"), "w": ([2, 3, 7, 7], F32, "randn")},
         "out = F.conv2d(a, w)"),
        ("err_conv2d_same_stride", {"a": ([1, 3, 5, 5], F32, "randn"), "w": ([2, 3, 3, 3], F32, "randn")},
         "out = F.conv2d(a, w, padding='same', stride=2)"),
        ("err_conv2d_padding_str", {"a": ([1, 3, 5, 5], F32, "randn"), "w": ([2, 3, 3, 3], F32, "randn")},
         "out = F.conv2d(a, w, padding='foo')"),
        ("err_max_pool_pad", {"a": ([1, 1, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 2, padding=2)"),
        ("err_max_pool_small", {"a": ([1, 1, 1, 1], F32, "randn")}, "out = F.max_pool2d(a, 3)"),
        ("err_avg_pool_pad", {"a": ([1, 1, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, 2, padding=2)"),
    ]
    # Transposed convolution (issue 15 part 3).
    for dt in (F32, F64):
        t2 = {"a": ([2, 4, 5, 4], dt, "randn"), "w": ([4, 3, 3, 2], dt, "randn"), "b": ([3], dt, "randn")}
        t1 = {"a": ([2, 4, 6], dt, "randn"), "w": ([4, 3, 3], dt, "randn"), "b": ([3], dt, "randn")}
        cases += [
            (f"conv_transpose2d_{dt}", t2, "out = F.conv_transpose2d(a, w, b)"),
            (f"conv_transpose2d_stride_pad_{dt}", t2,
             "out = F.conv_transpose2d(a, w, b, stride=2, padding=1, output_padding=1)"),
            (f"conv_transpose2d_pairs_{dt}", t2,
             "out = F.conv_transpose2d(a, w, None, stride=(2, 3), padding=(1, 0), output_padding=(0, 2), dilation=(2, 1))"),
            (f"conv_transpose2d_groups_{dt}", {"a": ([2, 4, 3, 3], dt, "randn"), "w": ([4, 2, 2, 3], dt, "randn"),
                                               "b": ([4], dt, "randn")},
             "out = F.conv_transpose2d(a, w, b, stride=2, groups=2)"),
            (f"conv_transpose2d_dil_outpad_{dt}", t2,
             "out = F.conv_transpose2d(a, w, b, stride=1, output_padding=1, dilation=2)"),
            (f"conv_transpose2d_unbatched_{dt}", {"a": ([4, 3, 3], dt, "randn"), "w": ([4, 2, 2, 2], dt, "randn")},
             "out = F.conv_transpose2d(a, w, stride=2)"),
            (f"conv_transpose1d_{dt}", t1, "out = F.conv_transpose1d(a, w, b, stride=3, padding=1, output_padding=2)"),
            (f"conv_transpose1d_groups_unbatched_{dt}", {"a": ([4, 5], dt, "randn"), "w": ([4, 1, 3], dt, "randn")},
             "out = F.conv_transpose1d(a, w, groups=2, dilation=2)"),
        ]
    # interpolate / upsample (issue 15 part 3).
    for dt in (F32, F64):
        im = {"a": ([2, 3, 5, 4], dt, "randn")}
        sq = {"a": ([2, 3, 5], dt, "randn")}
        cases += [
            (f"interp_nearest_size_{dt}", im, "out = F.interpolate(a, size=(7, 3))"),
            (f"interp_nearest_scale_{dt}", im, "out = F.interpolate(a, scale_factor=2)"),
            (f"interp_nearest_scale_frac_{dt}", im, "out = F.interpolate(a, scale_factor=(1.7, 0.6))"),
            (f"interp_nearest_recompute_{dt}", im, "out = F.interpolate(a, scale_factor=1.7, recompute_scale_factor=True)"),
            (f"interp_nearest1d_{dt}", sq, "out = F.interpolate(a, size=8)"),
            (f"interp_nearest1d_scale_{dt}", sq, "out = F.interpolate(a, scale_factor=0.7)"),
            (f"interp_linear_{dt}", sq, "out = F.interpolate(a, size=9, mode='linear')"),
            (f"interp_linear_ac_{dt}", sq, "out = F.interpolate(a, size=9, mode='linear', align_corners=True)"),
            (f"interp_linear_down_{dt}", sq, "out = F.interpolate(a, scale_factor=0.5, mode='linear')"),
            (f"interp_bilinear_{dt}", im, "out = F.interpolate(a, size=(8, 7), mode='bilinear')"),
            (f"interp_bilinear_ac_{dt}", im, "out = F.interpolate(a, size=(8, 7), mode='bilinear', align_corners=True)"),
            (f"interp_bilinear_ac_one_{dt}", im, "out = F.interpolate(a, size=(1, 3), mode='bilinear', align_corners=True)"),
            (f"interp_bilinear_scale_{dt}", im, "out = F.interpolate(a, scale_factor=(1.5, 2.5), mode='bilinear')"),
            (f"interp_bilinear_down_{dt}", im, "out = F.interpolate(a, size=(2, 3), mode='bilinear')"),
            (f"interp_area_{dt}", im, "out = F.interpolate(a, size=(3, 2), mode='area')"),
            (f"interp_nearest_exact_{dt}", im, "out = F.interpolate(a, size=(7, 3), mode='nearest-exact')"),
            (f"interp_nearest_exact_scale_{dt}", im, "out = F.interpolate(a, scale_factor=(1.7, 0.6), mode='nearest-exact')"),
            (f"interp_nearest_exact1d_{dt}", sq, "out = F.interpolate(a, size=8, mode='nearest-exact')"),
            (f"interp_area_scale_{dt}", im, "out = F.interpolate(a, scale_factor=0.5, mode='area')"),
            (f"upsample_{dt}", im, "out = F.upsample(a, scale_factor=2, mode='bilinear')"),
            (f"upsample_nearest_{dt}", im, "out = F.upsample_nearest(a, size=6)"),
            (f"upsample_bilinear_{dt}", im, "out = F.upsample_bilinear(a, scale_factor=2)"),
        ]
    e4 = {"a": ([1, 2, 3, 3], F32, "randn")}
    cases += [
        ("err_interp_align_nearest", e4, "out = F.interpolate(a, size=4, align_corners=True)"),
        ("err_interp_both", e4, "out = F.interpolate(a, size=4, scale_factor=2)"),
        ("err_interp_neither", e4, "out = F.interpolate(a)"),
        ("err_interp_size_len", e4, "out = F.interpolate(a, size=(4, 4, 4))"),
        ("err_interp_scale_len", e4, "out = F.interpolate(a, scale_factor=(2.0,))"),
        ("err_interp_size_type", e4, "out = F.interpolate(a, size=(4.0, 4))"),
        ("err_interp_recompute_size", e4, "out = F.interpolate(a, size=4, recompute_scale_factor=True)"),
        ("err_interp_linear_4d", e4, "out = F.interpolate(a, size=4, mode='linear')"),
        ("err_interp_bilinear_3d", {"a": ([1, 2, 3], F32, "randn")}, "out = F.interpolate(a, size=4, mode='bilinear')"),
        ("err_interp_2d", {"a": ([2, 3], F32, "randn")}, "out = F.interpolate(a, size=4)"),
        ("err_interp_zero", e4, "out = F.interpolate(a, size=(0, 2))"),
        ("err_interp_antialias", e4, "out = F.interpolate(a, size=4, antialias=True)"),
    ]
    x4 = {"a": ([2, 4, 5, 5], F32, "randn"), "w": ([4, 3, 3, 3], F32, "randn")}
    cases += [
        ("err_conv_transpose2d_outpad", x4, "out = F.conv_transpose2d(a, w, output_padding=1)"),
        ("err_conv_transpose2d_outpad_stride", x4, "out = F.conv_transpose2d(a, w, stride=2, output_padding=2)"),
        ("err_conv_transpose2d_channels", {"a": ([2, 4, 5, 5], F32, "randn"), "w": ([3, 3, 3, 3], F32, "randn")},
         "out = F.conv_transpose2d(a, w)"),
        ("err_conv_transpose2d_bias", {**x4, "b": ([4], F32, "randn")}, "out = F.conv_transpose2d(a, w, b)"),
        ("err_conv_transpose2d_negpad", x4, "out = F.conv_transpose2d(a, w, padding=-1)"),
        ("err_conv_transpose2d_dim", {"a": ([5, 5], F32, "randn"), "w": ([4, 3, 3, 3], F32, "randn")},
         "out = F.conv_transpose2d(a, w)"),
        ("err_conv_transpose2d_stride", x4, "out = F.conv_transpose2d(a, w, stride=0)"),
        ("err_conv_transpose1d_channels", {"a": ([4, 5, 5], F32, "randn"), "w": ([4, 3, 3], F32, "randn")},
         "out = F.conv_transpose1d(a, w)"),
    ]
    return cases


def _more_acts():
    cases = []
    for dt in (F32, F64):
        x = {"a": ([4, 6], dt, "randn")}
        cases += [
            (f"softshrink_{dt}", x, "out = F.softshrink(a, 0.3)"),
            (f"hardshrink_{dt}", x, "out = F.hardshrink(a)"),
            (f"tanhshrink_{dt}", x, "out = F.tanhshrink(a)"),
            (f"prelu_{dt}", {"a": ([2, 3, 4], dt, "randn"), "w": ([3], dt, "rand")}, "out = F.prelu(a, w)"),
            (f"prelu_one_{dt}", {"a": ([2, 3], dt, "randn"), "w": ([1], dt, "rand")}, "out = F.prelu(a, w)"),
            (f"rrelu_eval_{dt}", x, "out = F.rrelu(a)"),
        ]
    cases += [
        ("err_softshrink", {"a": ([3], F32, "randn")}, "out = F.softshrink(a, -1.0)"),
        ("err_prelu_channels", {"a": ([2, 3], F32, "randn"), "w": ([2], F32, "rand")}, "out = F.prelu(a, w)"),
    ]
    return cases


def _more_losses():
    cases = []
    for dt in (F32, F64):
        xy = {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        for red in ("mean", "sum", "none"):
            cases += [
                (f"poisson_nll_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "rand")},
                 f"out = F.poisson_nll_loss(a, b * 4, reduction='{red}')"),
                (f"poisson_nll_full_{red}_{dt}", {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand")},
                 f"out = F.poisson_nll_loss(a, b * 4, log_input=False, full=True, reduction='{red}')"),
                (f"gaussian_nll_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "v": ([4, 5], dt, "rand")},
                 f"out = F.gaussian_nll_loss(a, b, v, reduction='{red}')"),
                (f"gaussian_nll_hetero_full_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "v": ([4], dt, "rand")},
                 f"out = F.gaussian_nll_loss(a, b, v, full=True, reduction='{red}')"),
                (f"cosine_embedding_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                 f"out = F.cosine_embedding_loss(a, b, y, margin=0.1, reduction='{red}')"),
                (f"hinge_embedding_{red}_{dt}",
                 {"a": ([4], dt, "randn"), "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                 f"out = F.hinge_embedding_loss(a, y, margin=0.5, reduction='{red}')"),
                (f"margin_ranking_{red}_{dt}",
                 {"a": ([4], dt, "randn"), "b": ([4], dt, "randn"), "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                 f"out = F.margin_ranking_loss(a, b, y, margin=0.2, reduction='{red}')"),
                (f"soft_margin_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "y": ([4, 5], dt, [1.0, -1.0] * 10)},
                 f"out = F.soft_margin_loss(a, y, reduction='{red}')"),
                (f"multilabel_soft_margin_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "y": ([4, 5], dt, [1.0, 0.0, 0.0, 1.0] * 5), "w": ([5], dt, "rand")},
                 f"out = F.multilabel_soft_margin_loss(a, y, weight=w, reduction='{red}')"),
                (f"triplet_margin_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")},
                 f"out = F.triplet_margin_loss(a, p, n, margin=2.0, reduction='{red}')"),
                (f"triplet_margin_swap_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")},
                 f"out = F.triplet_margin_loss(a, p, n, p=1, swap=True, reduction='{red}')"),
            ]
    cases += [
        ("err_gaussian_var_size", {"a": ([4, 5], F32, "randn"), "b": ([4, 5], F32, "randn"), "v": ([3], F32, "rand")},
         "out = F.gaussian_nll_loss(a, b, v)"),
        ("err_gaussian_var_negative", {"a": ([2], F32, "randn"), "b": ([2], F32, "randn"), "v": ([2], F32, [1.0, -1.0])},
         "out = F.gaussian_nll_loss(a, b, v)"),
        ("err_triplet_margin", {"a": ([2, 3], F32, "randn")}, "out = F.triplet_margin_loss(a, a, a, margin=0.0)"),
    ]
    return cases


def _more_layers():
    cases = []
    for dt in (F32, F64):
        cases += [
            (f"instance_norm_{dt}", {"a": ([2, 3, 4, 2], dt, "randn"), "w": ([3], dt, "randn"), "b": ([3], dt, "randn")},
             "out = F.instance_norm(a, weight=w, bias=b)"),
            (f"instance_norm_running_{dt}",
             {"a": ([2, 3, 5], dt, "randn"), "m": ([3], dt, "randn"), "v": ([3], dt, "rand")},
             "r = F.instance_norm(a, m, v, momentum=0.3); out = (r, m, v)"),
            (f"instance_norm_eval_{dt}",
             {"a": ([2, 3, 5], dt, "randn"), "m": ([3], dt, "randn"), "v": ([3], dt, "rand")},
             "out = F.instance_norm(a, m, v, use_input_stats=False)"),
            (f"pixel_shuffle_{dt}", {"a": ([2, 8, 2, 3], dt, "randn")}, "out = F.pixel_shuffle(a, 2)"),
            (f"pixel_unshuffle_{dt}", {"a": ([1, 2, 4, 6], dt, "randn")}, "out = F.pixel_unshuffle(a, 2)"),
            (f"channel_shuffle_{dt}", {"a": ([2, 6, 2], dt, "randn")}, "out = F.channel_shuffle(a, 3)"),
            (f"max_pool1d_{dt}", {"a": ([2, 3, 9], dt, "randn")}, "out = tuple(F.max_pool1d(a, 3, 2, 1, return_indices=True))"),
            (f"avg_pool1d_{dt}", {"a": ([2, 3, 9], dt, "randn")}, "out = F.avg_pool1d(a, 3, 2, 1, count_include_pad=False)"),
            (f"adaptive_avg_pool1d_{dt}", {"a": ([3, 9], dt, "randn")}, "out = F.adaptive_avg_pool1d(a, 4)"),
            (f"lp_pool2d_{dt}", {"a": ([1, 2, 4, 4], dt, "rand")}, "out = F.lp_pool2d(a, 2, 2)"),
            (f"lp_pool1d_{dt}", {"a": ([1, 2, 6], dt, "rand")}, "out = F.lp_pool1d(a, 3, 2)"),
            (f"pdist_{dt}", {"a": ([4, 3], dt, "randn")}, "out = F.pdist(a)"),
            (f"pdist_p1_{dt}", {"a": ([5, 2], dt, "randn")}, "out = F.pdist(a, 1)"),
            (f"sdpa_{dt}", {"q": ([2, 3, 4, 8], dt, "randn"), "k": ([2, 3, 5, 8], dt, "randn"), "v": ([2, 3, 5, 6], dt, "randn")},
             "out = F.scaled_dot_product_attention(q, k, v)"),
            (f"sdpa_causal_{dt}", {"q": ([2, 3, 4, 8], dt, "randn"), "k": ([2, 3, 4, 8], dt, "randn"), "v": ([2, 3, 4, 6], dt, "randn")},
             "out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)"),
            (f"sdpa_bool_mask_{dt}",
             {"q": ([2, 4, 8], dt, "randn"), "k": ([2, 5, 8], dt, "randn"), "v": ([2, 5, 6], dt, "randn"),
              "m": ([4, 5], "int64", "int:2")},
             "out = F.scaled_dot_product_attention(q, k, v, attn_mask=(m + T.eye(4, 5, dtype=T.int64)) > 0)"),
            (f"sdpa_float_mask_{dt}",
             {"q": ([2, 4, 8], dt, "randn"), "k": ([2, 5, 8], dt, "randn"), "v": ([2, 5, 6], dt, "randn"),
              "m": ([4, 5], dt, "randn")},
             "out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)"),
            (f"sdpa_gqa_{dt}", {"q": ([1, 4, 3, 8], dt, "randn"), "k": ([1, 2, 5, 8], dt, "randn"), "v": ([1, 2, 5, 6], dt, "randn")},
             "out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)"),
        ]
    cases += [
        ("err_pixel_shuffle", {"a": ([1, 3, 2, 2], F32, "randn")}, "out = F.pixel_shuffle(a, 2)"),
        ("err_channel_shuffle", {"a": ([1, 3, 2], F32, "randn")}, "out = F.channel_shuffle(a, 2)"),
        ("err_pdist_dim", {"a": ([3], F32, "randn")}, "out = F.pdist(a)"),
    ]
    return cases


# ---- gradients (issue 15 part 2: the nn backward kernels) ----------------------------------
# Each case makes the named inputs require grad, runs the op, backpropagates the non-uniform
# `y.sin().sum()` (so every output element has its own gradient) and answers the inputs'
# gradients.


def _grad_case(cid, inputs, expr, wrt, pre=""):
    req = "".join(f"{n}.requires_grad_(); " for n in wrt)
    grads = ", ".join(f"{n}.grad" for n in wrt)
    code = f"{pre}{req}y = {expr}; y.sin().sum().backward(); out = ({grads},)"
    return (cid, inputs, code)


_CNN_STEPS = """
def net(x):
    h = F.conv2d(x, w1, b1, padding=1)
    h = F.batch_norm(h, rm, rv, g1, be1, training=True)
    h = F.relu(h)
    h = F.max_pool2d(h, 2)
    h = F.gelu(F.conv2d(h, w2, None, stride=1, padding=1, groups=2))
    h = F.layer_norm(h.reshape(h.shape[0], -1), [64], ln_w, ln_b)
    e = F.embedding(tok, emb, padding_idx=0).sum(1)
    return F.linear(F.silu(h) + e, w3, b3)
params = [w1, b1, g1, be1, w2, ln_w, ln_b, emb, w3, b3]
for p in params:
    p.requires_grad_()
losses = []
for step in range(4):
    loss = F.cross_entropy(net(x), tgt, label_smoothing=0.1)
    for p in params:
        p.grad = None
    loss.backward()
    with T.no_grad():
        for p in params:
            p -= 0.1 * p.grad
    losses.append(loss.item())
out = (T.tensor(losses, dtype=T.float64), w1.detach().clone(), emb.detach().clone(), rm.clone(), rv.clone())
"""


def _grads():
    cases = []
    F64_ = F64
    for dt in (F32, F64):
        x = {"a": ([3, 5], dt, "randn")}
        big = {"a": ([4, 6], dt, [-30.0, -20.0, -5.0, -3.0, -2.5, -1.0, -0.5, -1e-4, 0.0, 1e-4, 0.5, 1.0,
                                   2.5, 3.0, 5.0, 19.0, 21.0, 30.0, -0.1, 0.1, 6.0, 7.0, -7.0, 2.0])}
        for src, inp in (("", x), ("big_", big)):
            for name, expr in [
                ("relu", "F.relu(a)"),
                ("relu6", "F.relu6(a)"),
                ("leaky_relu", "F.leaky_relu(a)"),
                ("leaky_relu_slope", "F.leaky_relu(a, 0.2)"),
                ("elu", "F.elu(a)"),
                ("elu_alpha", "F.elu(a, alpha=0.5)"),
                ("selu", "F.selu(a)"),
                ("celu", "F.celu(a, alpha=2.0)"),
                ("gelu", "F.gelu(a)"),
                ("gelu_tanh", "F.gelu(a, approximate='tanh')"),
                ("silu", "F.silu(a)"),
                ("mish", "F.mish(a)"),
                ("softplus", "F.softplus(a)"),
                ("softplus_beta", "F.softplus(a, beta=2, threshold=5)"),
                ("hardtanh", "F.hardtanh(a)"),
                ("hardtanh_range", "F.hardtanh(a, -2.0, 0.5)"),
                ("hardsigmoid", "F.hardsigmoid(a)"),
                ("hardswish", "F.hardswish(a)"),
                ("logsigmoid", "F.logsigmoid(a)"),
                ("threshold", "F.threshold(a, 0.1, 20.0)"),
                ("softmax", "F.softmax(a, dim=1)"),
                ("log_softmax", "F.log_softmax(a, dim=-1)"),
            ]:
                cases.append(_grad_case(f"{src}{name}_{dt}", inp, expr, ["a"]))
        # Losses: gradients of input and target.
        pair = {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        for red in ("none", "mean", "sum"):
            for name, expr in [
                ("mse", f"F.mse_loss(a, b, reduction='{red}')"),
                ("l1", f"F.l1_loss(a, b, reduction='{red}')"),
                ("smooth_l1", f"F.smooth_l1_loss(a, b, reduction='{red}')"),
                ("smooth_l1_beta", f"F.smooth_l1_loss(a, b, reduction='{red}', beta=0.5)"),
                ("huber", f"F.huber_loss(a, b, reduction='{red}')"),
                ("huber_delta", f"F.huber_loss(a, b, reduction='{red}', delta=0.3)"),
            ]:
                cases.append(_grad_case(f"{name}_{red}_{dt}", pair, expr, ["a", "b"]))
        prob = {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand"), "w": ([5], dt, "rand"), "pw": ([5], dt, "rand")}
        for red in ("none", "mean", "sum"):
            cases += [
                _grad_case(f"bce_{red}_{dt}", prob, f"F.binary_cross_entropy(a * 0.9 + 0.05, b, reduction='{red}')", ["a"]),
                _grad_case(f"bce_weight_{red}_{dt}", prob,
                           f"F.binary_cross_entropy(a * 0.9 + 0.05, b, weight=w, reduction='{red}')", ["a"]),
                _grad_case(f"bce_logits_{red}_{dt}", pair,
                           f"F.binary_cross_entropy_with_logits(a, b.sigmoid(), reduction='{red}')", ["a"]),
                _grad_case(f"bce_logits_pw_{red}_{dt}", {**pair, "w": ([5], dt, "rand"), "pw": ([5], dt, "rand")},
                           f"F.binary_cross_entropy_with_logits(a, b.sigmoid(), weight=w, pos_weight=pw, reduction='{red}')",
                           ["a"]),
                _grad_case(f"kl_div_{red}_{dt}", prob, f"F.kl_div(a.log(), b, reduction='{red}')", ["a"]),
            ]
        cases += [
            _grad_case(f"kl_div_batchmean_log_target_{dt}", pair,
                       "F.kl_div(a.log_softmax(1), b.log_softmax(1), reduction='batchmean', log_target=True)", ["a"]),
            _grad_case(f"glu_{dt}", {"a": ([3, 4, 6], dt, "randn")}, "F.glu(a, 1)", ["a"]),
            _grad_case(f"glu_last_{dt}", {"a": ([3, 4, 6], dt, "randn")}, "F.glu(a)", ["a"]),
        ]
        cases.append(_grad_case(f"mse_broadcast_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([5], dt, "randn")},
                                "F.mse_loss(a, b.expand(4, 5))", ["a", "b"]))
        lg = {"a": ([6, 5], dt, "randn"), "t": ([6], "int64", [0, 4, 2, 2, 1, 3]), "w": ([5], dt, "rand")}
        lg3 = {"a": ([2, 4, 3], dt, "randn"), "t": ([2, 3], "int64", [0, 3, 1, 2, 2, 0]), "w": ([4], dt, "rand")}
        for red in ("none", "mean", "sum"):
            cases += [
                _grad_case(f"nll_{red}_{dt}", lg, f"F.nll_loss(a.log_softmax(1), t, reduction='{red}')", ["a"]),
                _grad_case(f"nll_weight_ignore_{red}_{dt}", lg,
                           f"F.nll_loss(a, t, weight=w, ignore_index=2, reduction='{red}')", ["a"]),
                _grad_case(f"nll_3d_{red}_{dt}", lg3, f"F.nll_loss(a, t, weight=w, reduction='{red}')", ["a"]),
                _grad_case(f"ce_{red}_{dt}", lg, f"F.cross_entropy(a, t, reduction='{red}')", ["a"]),
                _grad_case(f"ce_weight_ignore_{red}_{dt}", lg,
                           f"F.cross_entropy(a, t, weight=w, ignore_index=2, reduction='{red}')", ["a"]),
                _grad_case(f"ce_smooth_{red}_{dt}", lg,
                           f"F.cross_entropy(a, t, weight=w, ignore_index=4, reduction='{red}', label_smoothing=0.2)",
                           ["a"]),
                _grad_case(f"ce_3d_smooth_{red}_{dt}", lg3,
                           f"F.cross_entropy(a, t, reduction='{red}', label_smoothing=0.1)", ["a"]),
                _grad_case(f"ce_prob_{red}_{dt}", {"a": ([6, 5], dt, "randn"), "p": ([6, 5], dt, "rand"), "w": ([5], dt, "rand")},
                           f"F.cross_entropy(a, p.softmax(1), weight=w, reduction='{red}', label_smoothing=0.3)",
                           ["a", "p"]),
            ]
        cases.append(_grad_case(f"nll_1d_{dt}", {"a": ([5], dt, "randn"), "t": ([], "int64", [3])},
                                "F.nll_loss(a, t)", ["a"]))
        cases.append(_grad_case(f"ce_1d_{dt}", {"a": ([5], dt, "randn"), "t": ([], "int64", [1])},
                                "F.cross_entropy(a, t, label_smoothing=0.2)", ["a"]))
        # Normalisation.
        ln = {"a": ([3, 4, 5], dt, "randn"), "w": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        cases += [
            _grad_case(f"layer_norm_{dt}", ln, "F.layer_norm(a, [4, 5], w, b)", ["a", "w", "b"]),
            _grad_case(f"layer_norm_last_{dt}", {"a": ([3, 4, 5], dt, "randn"), "w": ([5], dt, "randn")},
                       "F.layer_norm(a, [5], w, eps=1e-3)", ["a", "w"]),
            _grad_case(f"layer_norm_plain_{dt}", ln, "F.layer_norm(a, [5])", ["a"]),
            _grad_case(f"layer_norm_bias_only_{dt}", ln, "F.layer_norm(a, [4, 5], None, b)", ["a", "b"]),
            _grad_case(f"rms_norm_{dt}", {"a": ([3, 4, 5], dt, "randn"), "w": ([5], dt, "randn")},
                       "F.rms_norm(a, [5], w)", ["a", "w"]),
            _grad_case(f"rms_norm_eps_{dt}", ln, "F.rms_norm(a, [4, 5], eps=0.1)", ["a"]),
            _grad_case(f"group_norm_{dt}", {"a": ([2, 6, 3, 2], dt, "randn"), "w": ([6], dt, "randn"),
                                            "b": ([6], dt, "randn")},
                       "F.group_norm(a, 3, w, b)", ["a", "w", "b"]),
            _grad_case(f"group_norm_plain_{dt}", {"a": ([2, 4, 5], dt, "randn")}, "F.group_norm(a, 2)", ["a"]),
        ]
        bn = {"a": ([4, 3, 2, 2], dt, "randn"), "w": ([3], dt, "randn"), "b": ([3], dt, "randn"),
              "rm": ([3], dt, "randn"), "rv": ([3], dt, "rand")}
        cases += [
            _grad_case(f"batch_norm_train_{dt}", bn, "F.batch_norm(a, rm, rv, w, b, training=True)", ["a", "w", "b"]),
            _grad_case(f"batch_norm_train_nostats_{dt}", bn, "F.batch_norm(a, None, None, training=True)", ["a"]),
            _grad_case(f"batch_norm_eval_{dt}", bn, "F.batch_norm(a, rm, rv, w, b, eps=0.1)", ["a", "w", "b"]),
            _grad_case(f"batch_norm_2d_{dt}", {"a": ([5, 3], dt, "randn"), "w": ([3], dt, "randn")},
                       "F.batch_norm(a, None, None, w, training=True, eps=1e-3)", ["a", "w"]),
        ]
        # Convolution and pooling.
        cv = {"a": ([2, 4, 6, 5], dt, "randn"), "w": ([6, 2, 3, 2], dt, "randn"), "b": ([6], dt, "randn")}
        cases += [
            _grad_case(f"conv2d_{dt}", {"a": ([2, 3, 5, 5], dt, "randn"), "w": ([4, 3, 3, 3], dt, "randn"),
                                        "b": ([4], dt, "randn")},
                       "F.conv2d(a, w, b, padding=1)", ["a", "w", "b"]),
            _grad_case(f"conv2d_groups_{dt}", cv,
                       "F.conv2d(a, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)", ["a", "w", "b"]),
            _grad_case(f"conv2d_nobias_{dt}", cv, "F.conv2d(a, w, None, stride=2, groups=2)", ["a", "w"]),
            _grad_case(f"conv2d_weight_only_{dt}", cv, "F.conv2d(a, w, groups=2)", ["w"]),
            _grad_case(f"conv2d_unbatched_{dt}", {"a": ([3, 5, 4], dt, "randn"), "w": ([2, 3, 2, 2], dt, "randn")},
                       "F.conv2d(a, w, padding=1)", ["a", "w"]),
            _grad_case(f"conv2d_same_{dt}", {"a": ([1, 2, 5, 6], dt, "randn"), "w": ([3, 2, 2, 4], dt, "randn"),
                                             "b": ([3], dt, "randn")},
                       "F.conv2d(a, w, b, padding='same', dilation=(1, 2))", ["a", "w", "b"]),
            _grad_case(f"conv1d_{dt}", {"a": ([2, 4, 9], dt, "randn"), "w": ([6, 2, 3], dt, "randn"),
                                        "b": ([6], dt, "randn")},
                       "F.conv1d(a, w, b, stride=2, padding=2, dilation=2, groups=2)", ["a", "w", "b"]),
            _grad_case(f"conv1d_same_{dt}", {"a": ([4, 7], dt, "randn"), "w": ([2, 4, 4], dt, "randn")},
                       "F.conv1d(a, w, padding='same')", ["a", "w"]),
            _grad_case(f"max_pool2d_{dt}", {"a": ([2, 3, 6, 6], dt, "randn")}, "F.max_pool2d(a, 2)", ["a"]),
            _grad_case(f"max_pool2d_overlap_{dt}", {"a": ([2, 2, 7, 6], dt, "randn")},
                       "F.max_pool2d(a, 3, stride=2, padding=1)", ["a"]),
            _grad_case(f"max_pool2d_ceil_dil_{dt}", {"a": ([1, 2, 7, 7], dt, "randn")},
                       "F.max_pool2d(a, (2, 3), stride=(2, 2), dilation=(2, 1), ceil_mode=True)", ["a"]),
            _grad_case(f"max_pool2d_unbatched_ties_{dt}", {"a": ([1, 4, 4], dt, [1.0, 1.0, 2.0, 0.0] * 4)},
                       "F.max_pool2d(a, 2, stride=1)", ["a"]),
            # Embedding, dropout (eval), pad.
            _grad_case(f"embedding_{dt}", {"w": ([6, 3], dt, "randn"), "i": ([2, 4], "int64", [1, 0, 5, 1, 2, 1, 0, 3])},
                       "F.embedding(i, w)", ["w"]),
            _grad_case(f"embedding_padding_{dt}", {"w": ([6, 3], dt, "randn"), "i": ([2, 4], "int64", [1, 0, 5, 1, 2, 1, 0, 3])},
                       "F.embedding(i, w, padding_idx=1)", ["w"]),
            _grad_case(f"embedding_freq_{dt}", {"w": ([6, 3], dt, "randn"), "i": ([8], "int64", [1, 0, 5, 1, 2, 1, 0, 3])},
                       "F.embedding(i, w, padding_idx=-1, scale_grad_by_freq=True)", ["w"]),
            _grad_case(f"dropout_eval_{dt}", x, "F.dropout(a, 0.5, training=False) * 2", ["a"]),
            _grad_case(f"pad_constant_{dt}", {"a": ([2, 3, 4], dt, "randn")}, "F.pad(a, (1, 2, -1, 1), value=3.0)", ["a"]),
            _grad_case(f"pad_reflect_{dt}", {"a": ([2, 3, 4], dt, "randn")}, "F.pad(a, (3, 2), mode='reflect')", ["a"]),
            _grad_case(f"pad_reflect2d_{dt}", {"a": ([1, 2, 3, 4], dt, "randn")}, "F.pad(a, (1, 2, 2, 1), mode='reflect')",
                       ["a"]),
            _grad_case(f"pad_replicate_{dt}", {"a": ([1, 2, 3, 4], dt, "randn")},
                       "F.pad(a, (2, 1, 0, 3), mode='replicate')", ["a"]),
            _grad_case(f"pad_circular_{dt}", {"a": ([1, 2, 3, 4], dt, "randn")}, "F.pad(a, (2, 1, 1, 2), mode='circular')",
                       ["a"]),
        ]
    # Issue 15 part 3: the pools' backward kernels (avg, adaptive avg, the 1-d forms, indices),
    # bilinear / cosine_similarity / pairwise_distance, and the losses' target gradients.
    for dt in (F32, F64):
        img = {"a": ([2, 3, 7, 6], dt, "randn")}
        seq = {"a": ([2, 3, 9], dt, "randn")}
        prob = {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand"), "w": ([5], dt, "rand"), "pw": ([5], dt, "rand")}
        pair = {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        cases += [
            _grad_case(f"avg_pool2d_{dt}", img, "F.avg_pool2d(a, 2)", ["a"]),
            _grad_case(f"avg_pool2d_pad_{dt}", img, "F.avg_pool2d(a, 3, stride=2, padding=1)", ["a"]),
            _grad_case(f"avg_pool2d_pad_exclude_{dt}", img,
                       "F.avg_pool2d(a, 3, stride=2, padding=1, count_include_pad=False)", ["a"]),
            _grad_case(f"avg_pool2d_ceil_{dt}", img, "F.avg_pool2d(a, (3, 2), stride=(2, 3), padding=1, ceil_mode=True)",
                       ["a"]),
            _grad_case(f"avg_pool2d_ceil_exclude_{dt}", img,
                       "F.avg_pool2d(a, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)", ["a"]),
            _grad_case(f"avg_pool2d_divisor_{dt}", img, "F.avg_pool2d(a, 2, stride=1, divisor_override=3)", ["a"]),
            _grad_case(f"avg_pool2d_unbatched_{dt}", {"a": ([3, 5, 5], dt, "randn")}, "F.avg_pool2d(a, 2, stride=1)", ["a"]),
            _grad_case(f"avg_pool1d_{dt}", seq, "F.avg_pool1d(a, 3, stride=2, padding=1, ceil_mode=True)", ["a"]),
            _grad_case(f"avg_pool1d_exclude_{dt}", seq, "F.avg_pool1d(a, 4, padding=2, count_include_pad=False)", ["a"]),
            _grad_case(f"adaptive_avg_pool2d_{dt}", img, "F.adaptive_avg_pool2d(a, (3, 4))", ["a"]),
            _grad_case(f"adaptive_avg_pool2d_none_{dt}", img, "F.adaptive_avg_pool2d(a, (None, 4))", ["a"]),
            _grad_case(f"adaptive_avg_pool2d_up_{dt}", {"a": ([1, 2, 3, 2], dt, "randn")}, "F.adaptive_avg_pool2d(a, 5)", ["a"]),
            _grad_case(f"adaptive_avg_pool2d_one_{dt}", img, "F.adaptive_avg_pool2d(a, 1)", ["a"]),
            _grad_case(f"adaptive_avg_pool1d_{dt}", seq, "F.adaptive_avg_pool1d(a, 4)", ["a"]),
            _grad_case(f"max_pool1d_{dt}", seq, "F.max_pool1d(a, 3, stride=2, padding=1)", ["a"]),
            _grad_case(f"max_pool1d_indices_{dt}", seq, "F.max_pool1d(a, 2, return_indices=True)[0]", ["a"]),
            _grad_case(f"max_pool2d_indices_{dt}", img, "F.max_pool2d(a, 2, return_indices=True)[0]", ["a"]),
            _grad_case(f"lp_pool2d_{dt}", {"a": ([1, 2, 4, 4], dt, "rand")}, "F.lp_pool2d(a + 0.1, 2, 2)", ["a"]),
            _grad_case(f"bilinear_{dt}", {"a": ([4, 3], dt, "randn"), "b": ([4, 5], dt, "randn"),
                                          "w": ([2, 3, 5], dt, "randn"), "c": ([2], dt, "randn")},
                       "F.bilinear(a, b, w, c)", ["a", "b", "w", "c"]),
            _grad_case(f"bilinear_3d_nobias_{dt}", {"a": ([2, 3, 3], dt, "randn"), "b": ([2, 3, 4], dt, "randn"),
                                                    "w": ([5, 3, 4], dt, "randn")},
                       "F.bilinear(a, b, w)", ["a", "b", "w"]),
            _grad_case(f"cosine_similarity_{dt}", pair, "F.cosine_similarity(a, b)", ["a", "b"]),
            _grad_case(f"cosine_similarity_bcast_{dt}", {"a": ([3, 4, 5], dt, "randn"), "b": ([4, 1], dt, "randn")},
                       "F.cosine_similarity(a, b, dim=-1)", ["a", "b"]),
            _grad_case(f"cosine_similarity_eps_{dt}", {"a": ([2, 3], dt, [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]),
                                                       "b": ([2, 3], dt, "randn")},
                       "F.cosine_similarity(a, b, eps=0.5)", ["a", "b"]),
            _grad_case(f"pairwise_distance_{dt}", pair, "F.pairwise_distance(a, b)", ["a", "b"]),
            _grad_case(f"pairwise_distance_p1_keepdim_{dt}", pair, "F.pairwise_distance(a, b, p=1.0, keepdim=True)",
                       ["a", "b"]),
            _grad_case(f"pairwise_distance_p3_{dt}", pair, "F.pairwise_distance(a, b, p=3.0, eps=0.1)", ["a", "b"]),
            _grad_case(f"interp_nearest_{dt}", img, "F.interpolate(a, size=(9, 4))", ["a"]),
            _grad_case(f"interp_nearest_scale_{dt}", img, "F.interpolate(a, scale_factor=(0.6, 1.5))", ["a"]),
            _grad_case(f"interp_nearest1d_{dt}", seq, "F.interpolate(a, size=13)", ["a"]),
            _grad_case(f"interp_nearest_exact_{dt}", img, "F.interpolate(a, size=(4, 9), mode='nearest-exact')", ["a"]),
            _grad_case(f"interp_nearest_exact1d_{dt}", seq, "F.interpolate(a, scale_factor=0.7, mode='nearest-exact')", ["a"]),
            _grad_case(f"interp_linear_{dt}", seq, "F.interpolate(a, size=13, mode='linear')", ["a"]),
            _grad_case(f"interp_linear_ac_down_{dt}", seq, "F.interpolate(a, size=4, mode='linear', align_corners=True)", ["a"]),
            _grad_case(f"interp_bilinear_{dt}", img, "F.interpolate(a, size=(10, 5), mode='bilinear')", ["a"]),
            _grad_case(f"interp_bilinear_ac_{dt}", img, "F.interpolate(a, scale_factor=1.5, mode='bilinear', align_corners=True)",
                       ["a"]),
            _grad_case(f"interp_bilinear_scale_{dt}", img, "F.interpolate(a, scale_factor=(0.5, 2.0), mode='bilinear')", ["a"]),
            _grad_case(f"conv_transpose2d_{dt}", {"a": ([2, 4, 3, 4], dt, "randn"), "w": ([4, 3, 3, 2], dt, "randn"),
                                                  "c": ([3], dt, "randn")},
                       "F.conv_transpose2d(a, w, c, stride=2, padding=1, output_padding=1)", ["a", "w", "c"]),
            _grad_case(f"conv_transpose2d_groups_dil_{dt}", {"a": ([1, 4, 3, 3], dt, "randn"),
                                                             "w": ([4, 2, 2, 3], dt, "randn")},
                       "F.conv_transpose2d(a, w, groups=2, output_padding=1, dilation=2)", ["a", "w"]),
            _grad_case(f"conv_transpose1d_unbatched_{dt}", {"a": ([4, 6], dt, "randn"), "w": ([4, 2, 3], dt, "randn"),
                                                            "c": ([2], dt, "randn")},
                       "F.conv_transpose1d(a, w, c, stride=2, output_padding=1)", ["a", "w", "c"]),
        ]
        for red in ("none", "mean", "sum"):
            cases += [
                _grad_case(f"bce_target_{red}_{dt}", prob,
                           f"F.binary_cross_entropy(a * 0.9 + 0.05, b, weight=w, reduction='{red}')", ["a", "b"]),
                _grad_case(f"bce_target_only_{red}_{dt}", prob,
                           f"F.binary_cross_entropy(a * 0.9 + 0.05, b, reduction='{red}')", ["b"]),
                _grad_case(f"bce_logits_target_{red}_{dt}", pair,
                           f"F.binary_cross_entropy_with_logits(a, b.sigmoid(), reduction='{red}')", ["a", "b"]),
                _grad_case(f"bce_logits_pw_target_{red}_{dt}", {**pair, "w": ([5], dt, "rand"), "pw": ([5], dt, "rand")},
                           f"F.binary_cross_entropy_with_logits(a, b, weight=w, pos_weight=pw, reduction='{red}')",
                           ["a", "b"]),
                _grad_case(f"kl_div_target_{red}_{dt}", prob, f"F.kl_div(a.log(), b, reduction='{red}')", ["a", "b"]),
                _grad_case(f"kl_div_log_target_{red}_{dt}", pair,
                           f"F.kl_div(a, b.log_softmax(1), reduction='{red}', log_target=True)", ["a", "b"]),
            ]
        cases += [
            _grad_case(f"kl_div_target_batchmean_{dt}", prob, "F.kl_div(a.log(), b, reduction='batchmean')", ["a", "b"]),
            _grad_case(f"kl_div_target_zero_{dt}", {"a": ([2, 3], dt, "rand"), "b": ([2, 3], dt, [0.0, 0.5, 0.5, 0.2, 0.0, 0.8])},
                       "F.kl_div(a.log(), b, reduction='sum')", ["a", "b"]),
            _grad_case(f"bce_weight_requires_grad_{dt}", prob, "F.binary_cross_entropy(a * 0.9 + 0.05, b, weight=w)",
                       ["a", "w"]),
            _grad_case(f"bce_logits_pos_weight_requires_grad_{dt}", prob,
                       "F.binary_cross_entropy_with_logits(a, b, pos_weight=pw)", ["a", "pw"]),
        ]
    # A small CNN trained for a few SGD steps from torch's initial weights (float64).
    cnn = {
        "x": ([6, 2, 8, 8], F64_, "randn"), "tgt": ([6], "int64", "int:5"), "tok": ([6, 3], "int64", "int:7"),
        "w1": ([4, 2, 3, 3], F64_, "randn"), "b1": ([4], F64_, "randn"), "g1": ([4], F64_, "rand"),
        "be1": ([4], F64_, "randn"), "rm": ([4], F64_, "randn"), "rv": ([4], F64_, "rand"),
        "w2": ([4, 2, 3, 3], F64_, "randn"), "ln_w": ([64], F64_, "rand"), "ln_b": ([64], F64_, "randn"),
        "emb": ([7, 64], F64_, "randn"), "w3": ([5, 64], F64_, "randn"), "b3": ([5], F64_, "randn"),
    }
    cases.append(("cnn_training_float64", cnn, _CNN_STEPS))
    return cases



# ---- issue 15 part 4: unfold/fold, unpooling, adaptive max pooling, LRN, the margin losses ----
# Values and errors ("part4"), and gradients ("part4_grad", the _grad_case form) of the
# functions added in part 4 and of the part-3 compositions whose gradients were not yet
# checked against torch.


def _part4():
    cases = []
    for dt in (F32, F64):
        img = {"a": ([2, 3, 7, 8], dt, "randn")}
        cols = {"c": ([2, 12, 20], dt, "randn")}
        seq = {"a": ([2, 3, 9], dt, "randn")}
        cases += [
            (f"unfold_{dt}", img, "out = F.unfold(a, 2)"),
            (f"unfold_all_{dt}", img, "out = F.unfold(a, (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))"),
            (f"unfold_unbatched_{dt}", {"a": ([2, 4, 5], dt, "randn")}, "out = F.unfold(a, 3, padding=1)"),
            (f"unfold_empty_batch_{dt}", {"a": ([0, 3, 5, 6], dt, "randn")}, "out = F.unfold(a, 2)"),
            (f"fold_{dt}", cols, "out = F.fold(c, (5, 6), 2)"),
            (f"fold_all_{dt}", {"c": ([2, 12, 12], dt, "randn")},
             "out = F.fold(c, (7, 8), (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))"),
            (f"fold_unbatched_{dt}", {"c": ([12, 20], dt, "randn")}, "out = F.fold(c, [5, 6], 2)"),
            (f"fold_unfold_{dt}", img, "out = F.fold(F.unfold(a, 3, stride=2), (7, 8), 3, stride=2)"),
            (f"max_unpool2d_{dt}", img,
             "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i, 2)"),
            (f"max_unpool2d_size_{dt}", img,
             "y, i = F.max_pool2d(a, 3, 2, 1, return_indices=True); out = F.max_unpool2d(y, i, 3, 2, 1, output_size=a.shape)"),
            (f"max_unpool2d_unbatched_{dt}", {"a": ([3, 4, 6], dt, "randn")},
             "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i, 2, output_size=(5, 7))"),
            (f"max_unpool1d_{dt}", seq,
             "y, i = F.max_pool1d(a, 2, return_indices=True); out = F.max_unpool1d(y, i, 2, output_size=[9])"),
            (f"max_unpool1d_stride_{dt}", seq,
             "y, i = F.max_pool1d(a, 3, 2, return_indices=True); out = F.max_unpool1d(y, i, 3, 2)"),
            (f"max_pool1d_with_indices_{dt}", seq, "out = tuple(F.max_pool1d_with_indices(a, 3, 2))"),
            (f"adaptive_max_pool2d_{dt}", img, "out = tuple(F.adaptive_max_pool2d(a, (3, 5), return_indices=True))"),
            (f"adaptive_max_pool2d_up_{dt}", {"a": ([1, 2, 3, 2], dt, "randn")}, "out = F.adaptive_max_pool2d(a, 4)"),
            (f"adaptive_max_pool2d_none_{dt}", img, "out = tuple(F.adaptive_max_pool2d_with_indices(a, (None, 3)))"),
            (f"adaptive_max_pool2d_unbatched_{dt}", {"a": ([3, 5, 5], dt, "randn")},
             "out = tuple(F.adaptive_max_pool2d(a, 2, True))"),
            (f"adaptive_max_pool2d_ties_{dt}", {"a": ([1, 1, 4, 4], dt, [1.0, 2.0, 2.0, 0.0] * 4)},
             "out = tuple(F.adaptive_max_pool2d(a, 3, return_indices=True))"),
            (f"adaptive_max_pool2d_zero_{dt}", img, "out = tuple(F.adaptive_max_pool2d(a, (0, 2), return_indices=True))"),
            (f"adaptive_max_pool1d_{dt}", seq, "out = tuple(F.adaptive_max_pool1d(a, 4, return_indices=True))"),
            (f"adaptive_max_pool1d_unbatched_{dt}", {"a": ([3, 7], dt, "randn")}, "out = F.adaptive_max_pool1d(a, 3)"),
            (f"lrn_3d_{dt}", {"a": ([2, 6, 5], dt, "randn")}, "out = F.local_response_norm(a, 3)"),
            (f"lrn_4d_{dt}", {"a": ([2, 5, 3, 4], dt, "randn")}, "out = F.local_response_norm(a, 2, alpha=0.1, beta=0.5, k=2.0)"),
            (f"lrn_5d_{dt}", {"a": ([1, 4, 2, 3, 2], dt, "randn")}, "out = F.local_response_norm(a, 4)"),
            (f"alpha_dropout_eval_{dt}", {"a": ([3, 4], dt, "randn")}, "r = F.alpha_dropout(a, 0.3); out = (r, r is a)"),
            (f"alpha_dropout_p0_{dt}", {"a": ([3, 4], dt, "randn")}, "r = F.alpha_dropout(a, 0.0, True); out = (r, r is a)"),
            (f"alpha_dropout_p1_{dt}", {"a": ([3, 4], dt, "randn")}, "out = F.alpha_dropout(a, 1.0, True)"),
            (f"feature_alpha_dropout_eval_{dt}", {"a": ([3, 4], dt, "randn")},
             "r = F.feature_alpha_dropout(a, 0.3, False); out = (r, r is a)"),
            (f"celu__{dt}", {"a": ([3, 4], dt, "randn")}, "r = F.celu_(a, 1.5); out = (r, a, r is a)"),
            (f"selu__{dt}", {"a": ([3, 4], dt, "randn")}, "r = F.selu_(a); out = (r, a, r is a)"),
            (f"rrelu__{dt}", {"a": ([3, 4], dt, "randn")}, "r = F.rrelu_(a); out = (r, a, r is a)"),
            (f"triplet_distance_{dt}", {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")},
             "out = F.triplet_margin_with_distance_loss(a, p, n)"),
            (f"triplet_distance_fn_swap_{dt}",
             {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")},
             "out = F.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y), "
             "margin=0.5, swap=True, reduction='none')"),
        ]
        for red in ("mean", "sum", "none"):
            cls = {"a": ([5, 4], dt, "randn"), "y": ([5], "int64", [0, 3, 1, 1, 2]), "w": ([4], dt, "rand")}
            ml = {"a": ([4, 5], dt, "randn"),
                  "y": ([4, 5], "int64", [3, 0, -1, 1, 2, 0, 1, 2, 3, 4, 1, 1, -1, 0, 0, -1, 2, 3, 4, 0])}
            cases += [
                (f"multi_margin_{red}_{dt}", cls, f"out = F.multi_margin_loss(a, y, reduction='{red}')"),
                (f"multi_margin_p2_w_{red}_{dt}", cls,
                 f"out = F.multi_margin_loss(a, y, p=2, margin=0.7, weight=w, reduction='{red}')"),
                (f"multilabel_margin_{red}_{dt}", ml, f"out = F.multilabel_margin_loss(a, y, reduction='{red}')"),
                (f"triplet_distance_{red}_{dt}",
                 {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")},
                 f"out = F.triplet_margin_with_distance_loss(a, p, n, margin=2.0, swap=True, reduction='{red}')"),
            ]
        cases += [
            (f"multi_margin_1d_{dt}", {"a": ([4], dt, "randn"), "y": ([1], "int64", [2])},
             "out = F.multi_margin_loss(a, y, reduction='none')"),
            (f"multi_margin_0d_target_{dt}", {"a": ([4], dt, "randn"), "y": ([], "int64", [2])},
             "out = (F.multi_margin_loss(a, y, reduction='none'), F.multi_margin_loss(a, y))"),
            (f"multilabel_margin_1d_{dt}", {"a": ([4], dt, "randn"), "y": ([4], "int64", [2, 0, -1, 1])},
             "out = (F.multilabel_margin_loss(a, y, reduction='none'), F.multilabel_margin_loss(a, y, reduction='sum'))"),
            (f"multi_margin_legacy_{dt}", {"a": ([5, 4], dt, "randn"), "y": ([5], "int64", [0, 3, 1, 1, 2])},
             "out = F.multi_margin_loss(a, y, size_average=False)"),
        ]
    x4 = {"a": ([2, 3, 5, 6], F32, "randn")}
    c3 = {"c": ([2, 12, 20], F32, "randn")}
    cases += [
        ("err_unfold_2d", {"a": ([5, 6], F32, "randn")}, "out = F.unfold(a, 2)"),
        ("err_unfold_5d", {"a": ([2, 5, 6, 7, 8], F32, "randn")}, "out = F.unfold(a, 2)"),
        ("err_unfold_5d_kernel", {"a": ([2, 5, 6, 7, 8], F32, "randn")}, "out = F.unfold(a, 0)"),
        ("err_unfold_big_kernel", x4, "out = F.unfold(a, 7)"),
        ("err_unfold_kernel", x4, "out = F.unfold(a, 0)"),
        ("err_unfold_stride", x4, "out = F.unfold(a, 2, stride=0)"),
        ("err_unfold_dilation", x4, "out = F.unfold(a, 2, stride=0, dilation=0, padding=-1)"),
        ("err_unfold_padding", x4, "out = F.unfold(a, 2, stride=0, padding=-1)"),
        ("err_unfold_empty_channels", {"a": ([2, 0, 5, 6], F32, "randn")}, "out = F.unfold(a, 2)"),
        ("err_unfold_kernel_len", x4, "out = F.unfold(a, (2, 3, 4))"),
        ("err_unfold_kernel_len1", x4, "out = F.unfold(a, [2])"),
        ("err_unfold_int", {"a": ([1, 1, 3, 3], "int64", "int:3")}, "out = F.unfold(a, 2)"),
        ("err_fold_divisible", c3, "out = F.fold(c, (5, 6), 3)"),
        ("err_fold_blocks", c3, "out = F.fold(c, (1, 1), 2)"),
        ("err_fold_blocks_neg", c3, "out = F.fold(c, (0, 6), 2)"),
        ("err_fold_1d", {"c": ([12], F32, "randn")}, "out = F.fold(c, (5, 6), 2)"),
        ("err_fold_empty", {"c": ([2, 12, 0], F32, "randn")}, "out = F.fold(c, (1, 6), 2)"),
        ("err_fold_kernel", c3, "out = F.fold(c, (5, 6), 0)"),
        ("err_fold_stride", c3, "out = F.fold(c, (5, 6), 2, stride=0, dilation=0, padding=-1)"),
        ("err_fold_dilation", c3, "out = F.fold(c, (5, 6), 2, dilation=0, padding=-1)"),
        ("err_fold_padding", c3, "out = F.fold(c, (5, 6), 2, padding=-1)"),
        ("err_fold_output_len", c3, "out = F.fold(c, (5, 6, 7), 2)"),
        ("err_fold_int", {"c": ([2, 12, 20], "int64", "int:3")}, "out = F.fold(c, (5, 6), 2)"),
        ("err_unpool_float_indices", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i.float(), 2)"),
        ("err_unpool_indices_shape", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i[0], 2)"),
        ("err_unpool_2d", x4, "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y[0, 0], i[0, 0], 2)"),
        ("err_unpool_output_size", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i, 2, output_size=(9, 9))"),
        ("err_unpool_output_size_len", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); out = F.max_unpool2d(y, i, 2, output_size=(1, 2, 3))"),
        ("err_unpool_index_high", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); i[1, 2, 0, 1] = 100; out = F.max_unpool2d(y, i, 2)"),
        ("err_unpool_index_negative", x4,
         "y, i = F.max_pool2d(a, 2, return_indices=True); i[0, 1, 1, 2] = -3; out = F.max_unpool2d(y, i, 2)"),
        ("err_unpool_empty", {"a": ([2, 0, 2, 2], F32, "randn"), "i": ([2, 0, 2, 2], "int64", "int:4")},
         "out = F.max_unpool2d(a, i, 2)"),
        ("err_unpool1d_1d", {"a": ([4], F32, "randn"), "i": ([4], "int64", "int:4")}, "out = F.max_unpool1d(a, i, 2)"),
        ("err_unpool1d_index", {"a": ([3, 4], F32, "randn"), "i": ([3, 4], "int64", [0] * 11 + [9])},
         "out = F.max_unpool1d(a, i, 2)"),
        ("err_adaptive_max_2d", {"a": ([5, 6], F32, "randn")}, "out = F.adaptive_max_pool2d(a, 2)"),
        ("err_adaptive_max_5d", {"a": ([1, 2, 5, 6, 7], F32, "randn")}, "out = F.adaptive_max_pool2d(a, 2)"),
        ("err_adaptive_max_size_len", x4, "out = F.adaptive_max_pool2d(a, (2, 3, 4))"),
        ("err_adaptive_max_negative", x4, "out = F.adaptive_max_pool2d(a, -1)"),
        ("err_adaptive_max_empty", {"a": ([2, 0, 5, 6], F32, "randn")}, "out = F.adaptive_max_pool2d(a, 2)"),
        ("err_adaptive_max_int", {"a": ([1, 1, 3, 3], "int64", "int:3")}, "out = F.adaptive_max_pool2d(a, 2)"),
        ("err_adaptive_max1d_1d", {"a": ([5], F32, "randn")}, "out = F.adaptive_max_pool1d(a, 2)"),
        ("err_adaptive_max1d_4d", {"a": ([2, 3, 5, 4], F32, "randn")}, "out = F.adaptive_max_pool1d(a, 2)"),
        ("err_adaptive_max1d_size", {"a": ([2, 3, 5], F32, "randn")}, "out = F.adaptive_max_pool1d(a, (2, 3))"),
        ("err_adaptive_max1d_empty", {"a": ([2, 0, 5], F32, "randn")}, "out = F.adaptive_max_pool1d(a, 2)"),
        ("err_lrn_2d", {"a": ([3, 4], F32, "randn")}, "out = F.local_response_norm(a, 2)"),
        ("err_alpha_dropout_p", {"a": ([3, 4], F32, "randn")}, "out = F.alpha_dropout(a, 1.5)"),
        ("err_feature_alpha_dropout_p", {"a": ([3, 4], F32, "randn")}, "out = F.feature_alpha_dropout(a, -0.1)"),
        ("err_feature_alpha_dropout_1d", {"a": ([3], F32, "randn")}, "out = F.feature_alpha_dropout(a, 0.5, True)"),
        ("err_gumbel_eps", {"a": ([3, 4], F32, "randn")}, "T.manual_seed(0); out = F.gumbel_softmax(a, eps=1e-3).sum(-1)"),
    ]
    # The part-3 compositions, corrected after torch's OpInfo samples (tests/conformance).
    nan = {"a": ([6], F32, [float("nan"), -1.0, -0.2, 0.0, 0.3, 2.0])}
    cases += [
        ("softshrink_nan", nan, "out = F.softshrink(a, 0.5)"),
        ("hardshrink_nan", nan, "out = F.hardshrink(a, 0.5)"),
        ("prelu_0d", {"a": ([], F32, [-2.0]), "w": ([1], F32, [0.25])}, "out = F.prelu(a, w)"),
        ("err_prelu_weight_2d", {"a": ([2, 8, 3], F32, "randn"), "w": ([2, 4], F32, "rand")}, "out = F.prelu(a, w)"),
        ("softmin_uint8_dtype", {"a": ([3, 4], "int64", [0, 1, 2, 250, 3, 4, 200, 5, 9, 8, 7, 6])},
         "out = F.softmin(a.to(T.uint8), 1, dtype=T.float64)"),
        ("normalize_0d", {"a": ([], F64, [-3.0])}, "out = F.normalize(a, p=1.2, dim=0)"),
        ("margin_ranking_int", {"a": ([4], "int64", "int:5"), "b": ([4], "int64", "int:5"), "y": ([4], "int64", [1, -1, 1, -1])},
         "out = (F.margin_ranking_loss(a, b, y), F.margin_ranking_loss(a, b, y, reduction='none'))"),
    ]
    # The 1-d pools' own checks (torch's check_max_pool1d / checkDimRange / check1d), the 2-d
    # pools' check order, and more texts found by torch's OpInfo error inputs.
    s3 = {"a": ([2, 3, 4], F32, "randn")}
    cases += [
        ("err_max_pool1d_empty_channels", {"a": ([0, 10], F32, "randn")}, "out = F.max_pool1d(a, 1)"),
        ("err_max_pool1d_1d", {"a": ([10], F32, "randn")}, "out = F.max_pool1d(a, 1)"),
        ("err_max_pool1d_4d", {"a": ([2, 3, 4, 5], F32, "randn")}, "out = F.max_pool1d(a, 1)"),
        ("err_max_pool1d_empty_length", {"a": ([2, 3, 0], F32, "randn")}, "out = F.max_pool1d(a, 2)"),
        ("max_pool1d_empty_batch", {"a": ([0, 3, 4], F32, "randn")}, "out = F.max_pool1d(a, 2)"),
        ("err_max_pool1d_kernel_len", s3, "out = F.max_pool1d(a, (1, 2))"),
        ("err_max_pool1d_stride_len", s3, "out = F.max_pool1d(a, 2, (1, 2))"),
        ("err_max_pool1d_padding_len", s3, "out = F.max_pool1d(a, 2, 1, (1, 2))"),
        ("err_max_pool1d_dilation_len", s3, "out = F.max_pool1d(a, 2, 1, 0, (1, 2))"),
        ("err_max_pool1d_kernel", s3, "out = F.max_pool1d(a, 0)"),
        ("err_max_pool1d_stride", s3, "out = F.max_pool1d(a, 2, 0)"),
        ("err_max_pool1d_stride_grad", s3, "a.requires_grad_(); out = F.max_pool1d(a, 2, 0)"),
        ("err_max_pool1d_padding_negative", s3, "out = F.max_pool1d(a, 2, 1, -1)"),
        ("err_max_pool1d_padding_half", s3, "out = F.max_pool1d(a, 2, 1, 2)"),
        ("err_max_pool1d_dilation", s3, "out = F.max_pool1d(a, 2, 1, 0, 0)"),
        ("err_max_pool1d_output", s3, "out = F.max_pool1d(a, 5)"),
        ("err_max_pool1d_indices_1d", {"a": ([10], F32, "randn")}, "out = F.max_pool1d(a, 1, return_indices=True)"),
        ("err_max_pool1d_indices_empty", {"a": ([0, 10], F32, "randn")}, "out = F.max_pool1d(a, 1, return_indices=True)"),
        ("err_max_pool1d_indices_kernel_len", s3, "out = F.max_pool1d(a, (1, 2), return_indices=True)"),
        ("err_max_pool1d_indices_kernel", s3, "out = F.max_pool1d(a, 0, return_indices=True)"),
        ("err_max_pool1d_indices_stride", s3, "out = F.max_pool1d(a, 2, 0, return_indices=True)"),
        ("err_avg_pool1d_1d", {"a": ([10], F32, "randn")}, "out = F.avg_pool1d(a, 1)"),
        ("err_avg_pool1d_empty", {"a": ([0, 10], F32, "randn")}, "out = F.avg_pool1d(a, 1)"),
        ("err_avg_pool1d_4d", {"a": ([2, 3, 4, 5], F32, "randn")}, "out = F.avg_pool1d(a, 1)"),
        ("err_avg_pool1d_kernel_len", s3, "out = F.avg_pool1d(a, (1, 2))"),
        ("err_avg_pool1d_stride_len", s3, "out = F.avg_pool1d(a, 2, (1, 2))"),
        ("err_avg_pool1d_padding_len", s3, "out = F.avg_pool1d(a, 2, 1, (1, 2))"),
        ("err_avg_pool1d_kernel", s3, "out = F.avg_pool1d(a, 0)"),
        ("err_avg_pool1d_padding", s3, "out = F.avg_pool1d(a, 2, 1, -1)"),
        ("err_adaptive_avg_pool1d_size0", s3, "out = F.adaptive_avg_pool1d(a, ())"),
        ("err_adaptive_avg_pool1d_size2", s3, "out = F.adaptive_avg_pool1d(a, (1, 2))"),
        ("err_adaptive_avg_pool1d_1d", {"a": ([4], F32, "randn")}, "out = F.adaptive_avg_pool1d(a, 2)"),
        ("err_adaptive_avg_pool1d_negative", s3, "out = F.adaptive_avg_pool1d(a, -1)"),
        ("adaptive_avg_pool1d_empty_channels", {"a": ([2, 0, 4], F32, "randn")}, "out = F.adaptive_avg_pool1d(a, 2)"),
        ("err_adaptive_avg_pool2d_negative", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.adaptive_avg_pool2d(a, -1)"),
        ("err_lp_pool1d_1d", {"a": ([10], F32, "randn")}, "out = F.lp_pool1d(a, 2, 2)"),
        ("err_avg_pool2d_kernel", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, 0)"),
        ("err_avg_pool2d_stride", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, 2, 0)"),
        ("err_avg_pool2d_padding", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, 2, 1, -1)"),
        ("err_avg_pool2d_empty_channels", {"a": ([2, 0, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, 2)"),
        ("err_avg_pool2d_kernel_width", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.avg_pool2d(a, (1, 0), 1)"),
        ("err_max_pool2d_kernel", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 0)"),
        ("err_max_pool2d_stride", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 2, 0, return_indices=True)"),
        ("err_max_pool2d_padding", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 2, 1, -1)"),
        ("err_max_pool2d_empty", {"a": ([0, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 2)"),
        ("err_max_pool2d_dilation", {"a": ([2, 3, 4, 4], F32, "randn")}, "out = F.max_pool2d(a, 2, 1, 0, 0)"),
        ("err_max_pool2d_padding_undilated", {"a": ([2, 3, 9, 9], F32, "randn")}, "out = F.max_pool2d(a, 2, 1, 2, 3)"),
        ("err_channel_shuffle_2d", {"a": ([2, 6], F32, "randn")}, "out = F.channel_shuffle(a, 3)"),
        ("err_channel_shuffle_1d", {"a": ([6], F32, "randn")}, "out = F.channel_shuffle(a, 3)"),
        ("err_lrn_size0", {"a": ([2, 3, 4], F32, "randn")}, "out = F.local_response_norm(a, 0)"),
        ("err_lrn_size0_4d", {"a": ([2, 3, 4, 5], F32, "randn")}, "out = F.local_response_norm(a, 0)"),
        ("lrn_big_size", {"a": ([2, 3, 4], F32, "randn")}, "out = F.local_response_norm(a, 8)"),
        ("err_group_norm_no_channels", {"a": ([1, 0, 2], F32, "randn")}, "out = F.group_norm(a, 1)"),
        ("err_group_norm_empty_hxw", {"a": ([2, 3, 0], F32, "randn")}, "out = F.group_norm(a, 2)"),
        ("err_group_norm_empty_hxw_4d", {"a": ([2, 4, 0, 3], F32, "randn")}, "out = F.group_norm(a, 2)"),
        ("layer_norm_constant_row", {"a": ([2, 3], F32, [3.0, 3.0, 3.0, 0.1, 0.1, 0.1]), "w": ([3], F32, [2.0, 1.0, 0.5]),
                                     "b": ([3], F32, [0.5, 0.0, -1.0])},
         "out = (F.layer_norm(a, (3,), w, b), F.layer_norm(a[:, :1], (1,)))"),
        ("err_soft_margin_sizes", {"a": ([3], F32, "randn")}, "out = F.soft_margin_loss(a, T.ones(4))"),
        ("err_gaussian_reduction", {"a": ([3, 2], F32, "randn")}, "out = F.gaussian_nll_loss(a, a, T.ones(3, 2), reduction='max')"),
        ("gaussian_bcast_var", {"a": ([4, 3, 5], F64, "randn"), "b": ([4, 3, 5], F64, "randn"), "v": ([4, 1, 5], F64, "rand")},
         "out = F.gaussian_nll_loss(a, b, v, reduction='none')"),
        ("err_gaussian_negative_before_size", {"a": ([4, 3], F32, "randn")},
         "out = F.gaussian_nll_loss(a, a, -T.ones(4, 3, 2))"),
        ("pad_circular_negative", {"a": ([1, 3, 4, 4], F32, "randn")}, "out = F.pad(a, (-1, 1, -2, 1), 'circular')"),
        ("adaptive_avg_pool3d_f32", {"a": ([2, 3, 5, 4, 7], F32, "randn")}, "out = F.adaptive_avg_pool3d(a, (2, 3, 4))"),
        ("adaptive_avg_pool3d_f64", {"a": ([2, 3, 5, 4, 7], F64, "randn")}, "out = F.adaptive_avg_pool3d(a, (3, 5, 2))"),
        ("adaptive_avg_pool3d_unbatched", {"a": ([2, 3, 4, 4], F64, "randn")}, "out = F.adaptive_avg_pool3d(a, 2)"),
        ("adaptive_avg_pool3d_none", {"a": ([1, 2, 3, 4, 4], F64, "randn")}, "out = F.adaptive_avg_pool3d(a, (None, 2, 1))"),
        ("adaptive_avg_pool3d_one", {"a": ([1, 2, 3, 4, 4], F64, "randn")}, "out = F.adaptive_avg_pool3d(a, 1)"),
        ("adaptive_avg_pool3d_zero", {"a": ([2, 3, 5, 4, 6], F64, "randn")}, "out = F.adaptive_avg_pool3d(a, (2, 3, 0))"),
        ("err_adaptive_avg_pool3d_2d", {"a": ([4, 4], F32, "randn")}, "out = F.adaptive_avg_pool3d(a, 2)"),
        ("err_adaptive_avg_pool3d_negative", {"a": ([1, 2, 4, 4, 4], F32, "randn")}, "out = F.adaptive_avg_pool3d(a, -1)"),
        ("err_adaptive_avg_pool3d_len", {"a": ([1, 2, 4, 4, 4], F32, "randn")}, "out = F.adaptive_avg_pool3d(a, (2, 2))"),
        ("err_adaptive_avg_pool3d_empty", {"a": ([1, 2, 0, 4, 4], F32, "randn")}, "out = F.adaptive_avg_pool3d(a, 2)"),
        ("err_adaptive_avg_pool3d_int", {"a": ([1, 1, 4, 4, 4], "int64", "int:3")}, "out = F.adaptive_avg_pool3d(a, 2)"),
        ("pad_circular_negative_3d", {"a": ([2, 5, 6], F64, "randn")}, "out = F.pad(a, (2, -3), mode='circular')"),
    ]
    mm = {"a": ([3, 4], F32, "randn"), "y": ([3], "int64", [0, 3, 1])}
    cases += [
        ("err_multi_margin_p", mm, "out = F.multi_margin_loss(a, y, p=3)"),
        ("err_multi_margin_weight_dim", mm, "out = F.multi_margin_loss(a, y, weight=T.ones(2, 2))"),
        ("err_multi_margin_weight_size", mm, "out = F.multi_margin_loss(a, y, weight=T.ones(3))"),
        ("err_multi_margin_target_high", mm, "out = F.multi_margin_loss(a, y + 1)"),
        ("err_multi_margin_target_negative", mm, "out = F.multi_margin_loss(a, y - 1)"),
        ("err_multi_margin_target_size", mm, "out = F.multi_margin_loss(a, y[:2])"),
        ("err_multi_margin_3d", {"a": ([2, 3, 4], F32, "randn"), "y": ([3], "int64", [0, 3, 1])},
         "out = F.multi_margin_loss(a, y)"),
        ("err_multi_margin_empty_classes", {"a": ([3, 0], F32, "randn"), "y": ([3], "int64", [0, 3, 1])},
         "out = F.multi_margin_loss(a, y)"),
        ("err_multi_margin_float_target", mm, "out = F.multi_margin_loss(a, y.float())"),
        ("err_multi_margin_reduction", mm, "out = F.multi_margin_loss(a, y, reduction='max')"),
    ]
    ml = {"a": ([3, 4], F32, "randn"), "y": ([3, 4], "int64", [3, 0, -1, 1, 0, 1, 2, 3, 1, -1, 0, 0])}
    cases += [
        ("err_multilabel_target_size", ml, "out = F.multilabel_margin_loss(a, y[:2])"),
        ("err_multilabel_target_high", ml, "out = F.multilabel_margin_loss(a, y + 1)"),
        ("err_multilabel_target_low", ml, "out = F.multilabel_margin_loss(a, y - 1)"),
        ("err_multilabel_3d", {"a": ([2, 3, 4], F32, "randn"), "y": ([3, 4], "int64", "int:4")},
         "out = F.multilabel_margin_loss(a, y)"),
        ("err_multilabel_float_target", ml, "out = F.multilabel_margin_loss(a, y.float())"),
        ("err_multilabel_1d_target", {"a": ([4], F32, "randn"), "y": ([3, 4], "int64", "int:4")},
         "out = F.multilabel_margin_loss(a, y)"),
        ("err_triplet_distance_reduction", {"a": ([2, 3], F32, "randn")},
         "out = F.triplet_margin_with_distance_loss(a, a, a, reduction='x')"),
        ("err_triplet_distance_margin", {"a": ([2, 3], F32, "randn")},
         "out = F.triplet_margin_with_distance_loss(a, a, a, margin=0)"),
        ("err_triplet_distance_dims", {"a": ([2, 3], F32, "randn")},
         "out = F.triplet_margin_with_distance_loss(a, a, a[0])"),
    ]
    return cases


def _part4_grads():
    cases = []
    for dt in (F32, F64):
        img = {"a": ([2, 3, 7, 8], dt, "randn")}
        seq = {"a": ([2, 3, 9], dt, "randn")}
        pair = {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn")}
        trip = {"a": ([4, 5], dt, "randn"), "p": ([4, 5], dt, "randn"), "n": ([4, 5], dt, "randn")}
        cases += [
            _grad_case(f"unfold_{dt}", img, "F.unfold(a, (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))", ["a"]),
            _grad_case(f"unfold_overlap_{dt}", img, "F.unfold(a, 3, padding=1)", ["a"]),
            _grad_case(f"fold_{dt}", {"c": ([2, 12, 20], dt, "randn")}, "F.fold(c, (5, 6), 2)", ["c"]),
            _grad_case(f"fold_all_{dt}", {"c": ([2, 12, 12], dt, "randn")},
                       "F.fold(c, (7, 8), (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))", ["c"]),
            _grad_case(f"max_unpool2d_{dt}", img,
                       "F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2)", ["a"]),
            _grad_case(f"max_unpool1d_{dt}", seq,
                       "F.max_unpool1d(*F.max_pool1d(a, 3, 2, return_indices=True), 3, 2)", ["a"]),
            _grad_case(f"adaptive_max_pool2d_{dt}", img, "F.adaptive_max_pool2d(a, (3, 5))", ["a"]),
            _grad_case(f"adaptive_max_pool2d_up_{dt}", {"a": ([1, 2, 3, 2], dt, "randn")}, "F.adaptive_max_pool2d(a, 4)", ["a"]),
            _grad_case(f"adaptive_max_pool1d_{dt}", seq, "F.adaptive_max_pool1d(a, 4)", ["a"]),
            _grad_case(f"lrn_3d_{dt}", {"a": ([2, 6, 5], dt, "randn")}, "F.local_response_norm(a, 3)", ["a"]),
            _grad_case(f"lrn_4d_{dt}", {"a": ([2, 5, 3, 4], dt, "randn")},
                       "F.local_response_norm(a, 2, alpha=0.1, beta=0.5, k=2.0)", ["a"]),
            _grad_case(f"pixel_shuffle_{dt}", {"a": ([2, 8, 2, 3], dt, "randn")}, "F.pixel_shuffle(a, 2)", ["a"]),
            _grad_case(f"pixel_unshuffle_{dt}", {"a": ([1, 2, 4, 6], dt, "randn")}, "F.pixel_unshuffle(a, 2)", ["a"]),
            _grad_case(f"channel_shuffle_{dt}", {"a": ([2, 6, 2], dt, "randn")}, "F.channel_shuffle(a, 3)", ["a"]),
            _grad_case(f"pdist_{dt}", {"a": ([4, 3], dt, "randn")}, "F.pdist(a)", ["a"]),
            _grad_case(f"pdist_p1_{dt}", {"a": ([5, 2], dt, "randn")}, "F.pdist(a, 1)", ["a"]),
            _grad_case(f"lp_pool1d_{dt}", {"a": ([1, 2, 6], dt, "rand")}, "F.lp_pool1d(a + 0.1, 3, 2)", ["a"]),
            _grad_case(f"softmin_{dt}", pair, "F.softmin(a, 1)", ["a"]),
            _grad_case(f"glu_{dt}", pair, "F.glu(T.cat([a, b], 1))", ["a", "b"]),
            _grad_case(f"rrelu_eval_{dt}", pair, "F.rrelu(a)", ["a"]),
            _grad_case(f"prelu_{dt}", {"a": ([2, 3, 4], dt, "randn"), "w": ([3], dt, "rand")}, "F.prelu(a, w)", ["a", "w"]),
            _grad_case(f"softshrink_{dt}", pair, "F.softshrink(a, 0.3)", ["a"]),
            _grad_case(f"hardshrink_{dt}", pair, "F.hardshrink(a)", ["a"]),
            _grad_case(f"tanhshrink_{dt}", pair, "F.tanhshrink(a)", ["a"]),
            _grad_case(f"instance_norm_{dt}", {"a": ([2, 3, 4, 2], dt, "randn"), "w": ([3], dt, "randn"),
                                               "b": ([3], dt, "randn")},
                       "F.instance_norm(a, weight=w, bias=b)", ["a", "w", "b"]),
            _grad_case(f"sdpa_{dt}", {"q": ([2, 3, 4, 8], dt, "randn"), "k": ([2, 3, 5, 8], dt, "randn"),
                                      "v": ([2, 3, 5, 6], dt, "randn")},
                       "F.scaled_dot_product_attention(q, k, v)", ["q", "k", "v"]),
            _grad_case(f"gaussian_nll_small_var_{dt}",
                       {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "v": ([4, 5], dt, "rand")},
                       "F.gaussian_nll_loss(a, b, v * 0.01, eps=0.005)", ["a", "v"]),
            _grad_case(f"pad_circular_negative_{dt}", {"a": ([1, 2, 4, 5], dt, "randn")},
                       "F.pad(a, (-1, 2, 1, -2), mode='circular')", ["a"]),
            _grad_case(f"max_pool1d_checked_{dt}", seq, "F.max_pool1d(a, 3, 2, 1, ceil_mode=True)", ["a"]),
            _grad_case(f"adaptive_avg_pool3d_{dt}", {"a": ([2, 2, 5, 4, 3], dt, "randn")},
                       "F.adaptive_avg_pool3d(a, (3, 2, 2))", ["a"]),
            _grad_case(f"sdpa_causal_{dt}", {"q": ([2, 4, 8], dt, "randn"), "k": ([2, 4, 8], dt, "randn"),
                                             "v": ([2, 4, 6], dt, "randn")},
                       "F.scaled_dot_product_attention(q, k, v, is_causal=True)", ["q", "k", "v"]),
        ]
        for red in ("mean", "sum", "none"):
            cls = {"a": ([5, 4], dt, "randn"), "y": ([5], "int64", [0, 3, 1, 1, 2]), "w": ([4], dt, "rand")}
            ml = {"a": ([4, 5], dt, "randn"),
                  "y": ([4, 5], "int64", [3, 0, -1, 1, 2, 0, 1, 2, 3, 4, 1, 1, -1, 0, 0, -1, 2, 3, 4, 0])}
            cases += [
                _grad_case(f"multi_margin_{red}_{dt}", cls, f"F.multi_margin_loss(a, y, reduction='{red}')", ["a"]),
                _grad_case(f"multi_margin_p2_w_{red}_{dt}", cls,
                           f"F.multi_margin_loss(a, y, p=2, margin=0.7, weight=w, reduction='{red}')", ["a"]),
                _grad_case(f"multilabel_margin_{red}_{dt}", ml, f"F.multilabel_margin_loss(a, y, reduction='{red}')", ["a"]),
                _grad_case(f"triplet_distance_{red}_{dt}", trip,
                           f"F.triplet_margin_with_distance_loss(a, p, n, margin=2.0, swap=True, reduction='{red}')",
                           ["a", "p", "n"]),
                _grad_case(f"triplet_margin_{red}_{dt}", trip, f"F.triplet_margin_loss(a, p, n, margin=2.0, reduction='{red}')",
                           ["a", "p", "n"]),
                _grad_case(f"poisson_nll_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "rand")},
                           f"F.poisson_nll_loss(a, b * 4, reduction='{red}')", ["a", "b"]),
                _grad_case(f"poisson_nll_full_{red}_{dt}", {"a": ([4, 5], dt, "rand"), "b": ([4, 5], dt, "rand")},
                           f"F.poisson_nll_loss(a + 0.1, b * 4, log_input=False, full=True, reduction='{red}')", ["a"]),
                _grad_case(f"gaussian_nll_{red}_{dt}",
                           {"a": ([4, 5], dt, "randn"), "b": ([4, 5], dt, "randn"), "v": ([4, 5], dt, "rand")},
                           f"F.gaussian_nll_loss(a, b, v + 0.1, reduction='{red}')", ["a", "b", "v"]),
                _grad_case(f"cosine_embedding_{red}_{dt}",
                           {**pair, "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                           f"F.cosine_embedding_loss(a, b, y, margin=0.1, reduction='{red}')", ["a", "b"]),
                _grad_case(f"hinge_embedding_{red}_{dt}", {"a": ([4], dt, "randn"), "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                           f"F.hinge_embedding_loss(a, y, margin=0.5, reduction='{red}')", ["a"]),
                _grad_case(f"margin_ranking_{red}_{dt}",
                           {"a": ([4], dt, "randn"), "b": ([4], dt, "randn"), "y": ([4], dt, [1.0, -1.0, -1.0, 1.0])},
                           f"F.margin_ranking_loss(a, b, y, margin=0.2, reduction='{red}')", ["a", "b"]),
                _grad_case(f"soft_margin_{red}_{dt}", {"a": ([4, 5], dt, "randn"), "y": ([4, 5], dt, [1.0, -1.0] * 10)},
                           f"F.soft_margin_loss(a, y, reduction='{red}')", ["a"]),
                _grad_case(f"multilabel_soft_margin_{red}_{dt}",
                           {"a": ([4, 5], dt, "randn"), "y": ([4, 5], dt, [1.0, 0.0, 0.0, 1.0] * 5), "w": ([5], dt, "rand")},
                           f"F.multilabel_soft_margin_loss(a, y, weight=w, reduction='{red}')", ["a"]),
            ]
    return cases


# ---- issue 15 part 5: the 3-d family ------------------------------------------------------


def _part5():
    cases = []
    for dt in (F32, F64):
        vol = {"a": ([2, 3, 5, 6, 7], dt, "randn")}
        cw = {"a": ([2, 4, 5, 4, 6], dt, "randn"), "w": ([3, 4, 2, 3, 2], dt, "randn"), "b": ([3], dt, "randn")}
        tw = {"a": ([2, 4, 3, 4, 3], dt, "randn"), "w": ([4, 3, 2, 3, 2], dt, "randn"), "b": ([3], dt, "randn")}
        cases += [
            (f"conv3d_{dt}", cw, "out = F.conv3d(a, w, b)"),
            (f"conv3d_all_{dt}", cw, "out = F.conv3d(a, w, None, stride=(2, 1, 2), padding=(1, 1, 2), dilation=(1, 2, 1))"),
            (f"conv3d_same_{dt}", cw, "out = F.conv3d(a, w, b, padding='same', dilation=(2, 1, 1))"),
            (f"conv3d_valid_{dt}", cw, "out = F.conv3d(a, w, b, padding='valid')"),
            (f"conv3d_groups_{dt}", {"a": ([2, 4, 4, 3, 5], dt, "randn"), "w": ([6, 2, 2, 2, 3], dt, "randn")},
             "out = F.conv3d(a, w, groups=2, padding=1)"),
            (f"conv3d_unbatched_{dt}", {"a": ([4, 5, 4, 6], dt, "randn"), "w": ([3, 4, 2, 3, 2], dt, "randn")},
             "out = F.conv3d(a, w, stride=2)"),
            (f"conv_transpose3d_{dt}", tw, "out = F.conv_transpose3d(a, w, b)"),
            (f"conv_transpose3d_all_{dt}", tw,
             "out = F.conv_transpose3d(a, w, None, stride=(2, 3, 1), padding=(1, 0, 1), output_padding=(1, 2, 0), dilation=(1, 1, 2))"),
            (f"conv_transpose3d_groups_{dt}", {"a": ([1, 4, 3, 2, 3], dt, "randn"), "w": ([4, 2, 2, 2, 3], dt, "randn"),
                                               "b": ([4], dt, "randn")},
             "out = F.conv_transpose3d(a, w, b, stride=2, groups=2)"),
            (f"conv_transpose3d_unbatched_{dt}", {"a": ([4, 3, 2, 3], dt, "randn"), "w": ([4, 2, 2, 2, 2], dt, "randn")},
             "out = F.conv_transpose3d(a, w, stride=2, output_padding=1)"),
            (f"max_pool3d_{dt}", vol, "out = F.max_pool3d(a, 2)"),
            (f"max_pool3d_all_{dt}", vol,
             "out = F.max_pool3d(a, (3, 2, 3), (2, 1, 2), (1, 0, 1), (1, 2, 1), ceil_mode=True, return_indices=True)"),
            (f"max_pool3d_indices_{dt}", vol, "out = F.max_pool3d(a, 3, 2, 1, return_indices=True)"),
            (f"max_pool3d_unbatched_{dt}", {"a": ([2, 4, 5, 3], dt, "randn")}, "out = F.max_pool3d(a, 2, 1, return_indices=True)"),
            (f"max_pool3d_ties_{dt}", {"a": ([1, 1, 2, 2, 2], dt, [1.0, 3.0, 3.0, 0.0, 3.0, 2.0, 3.0, 3.0])},
             "out = F.max_pool3d(a, 2, return_indices=True)"),
            (f"max_pool3d_empty_batch_{dt}", {"a": ([0, 2, 4, 4, 4], dt, "randn")}, "out = F.max_pool3d(a, 2, return_indices=True)"),
            (f"avg_pool3d_{dt}", vol, "out = F.avg_pool3d(a, 2)"),
            (f"avg_pool3d_all_{dt}", vol, "out = F.avg_pool3d(a, (3, 2, 3), (2, 1, 2), (1, 0, 1), ceil_mode=True)"),
            (f"avg_pool3d_nopad_{dt}", vol,
             "out = F.avg_pool3d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False)"),
            (f"avg_pool3d_divisor_{dt}", vol, "out = F.avg_pool3d(a, 3, 2, 1, ceil_mode=True, divisor_override=5)"),
            (f"avg_pool3d_unbatched_{dt}", {"a": ([2, 4, 5, 3], dt, "randn")}, "out = F.avg_pool3d(a, (2, 3, 2), 1)"),
            (f"adaptive_max_pool3d_{dt}", vol, "out = F.adaptive_max_pool3d(a, (3, 4, 2), return_indices=True)"),
            (f"adaptive_max_pool3d_up_{dt}", {"a": ([1, 2, 2, 3, 2], dt, "randn")},
             "out = F.adaptive_max_pool3d(a, (3, None, 4), return_indices=True)"),
            (f"adaptive_max_pool3d_int_{dt}", {"a": ([2, 4, 5, 3], dt, "randn")}, "out = F.adaptive_max_pool3d(a, 2)"),
            (f"lp_pool3d_{dt}", {"a": ([1, 2, 4, 5, 4], dt, "rand")}, "out = F.lp_pool3d(a, 2, 2)"),
            (f"lp_pool3d_stride_{dt}", {"a": ([2, 4, 5, 4], dt, "rand")}, "out = F.lp_pool3d(a, 3, (2, 3, 2), 1, ceil_mode=True)"),
            (f"max_unpool3d_{dt}", vol,
             "y, i = F.max_pool3d(a, 2, return_indices=True); out = F.max_unpool3d(y, i, 2, output_size=a.shape[2:])"),
            (f"max_unpool3d_size_{dt}", vol,
             "y, i = F.max_pool3d(a, 3, 2, 1, return_indices=True); out = F.max_unpool3d(y, i, 3, 2, 1, output_size=a.shape)"),
            (f"max_unpool3d_unbatched_{dt}", {"a": ([2, 4, 5, 3], dt, "randn")},
             "y, i = F.max_pool3d(a, 2, return_indices=True); out = F.max_unpool3d(y, i, 2, output_size=(4, 5, 3))"),
        ]
    for dt in (F32, F64):
        v = {"a": ([2, 2, 3, 4, 5], dt, "randn")}
        im = {"a": ([2, 3, 4, 5], dt, "randn")}
        cases += [
            (f"interp_trilinear_{dt}", v, "out = F.interpolate(a, (5, 3, 7), mode='trilinear')"),
            (f"interp_trilinear_ac_{dt}", v, "out = F.interpolate(a, (5, 3, 7), mode='trilinear', align_corners=True)"),
            (f"interp_trilinear_scale_{dt}", v, "out = F.interpolate(a, scale_factor=(1.5, 0.75, 2.3), mode='trilinear')"),
            (f"interp_trilinear_scale_rc_{dt}", v,
             "out = F.interpolate(a, scale_factor=1.7, mode='trilinear', recompute_scale_factor=True)"),
            (f"interp_nearest3d_{dt}", v, "out = F.interpolate(a, (5, 3, 7))"),
            (f"interp_nearest3d_scale_{dt}", v, "out = F.interpolate(a, scale_factor=(2, 0.5, 1.3))"),
            (f"interp_nearest_exact3d_{dt}", v, "out = F.interpolate(a, (6, 3, 8), mode='nearest-exact')"),
            (f"interp_area3d_{dt}", v, "out = F.interpolate(a, (2, 3, 3), mode='area')"),
            (f"interp_bicubic_{dt}", im, "out = F.interpolate(a, (7, 9), mode='bicubic')"),
            (f"interp_bicubic_ac_{dt}", im, "out = F.interpolate(a, (7, 9), mode='bicubic', align_corners=True)"),
            (f"interp_bicubic_down_{dt}", im, "out = F.interpolate(a, (3, 2), mode='bicubic')"),
            (f"interp_bicubic_scale_{dt}", im, "out = F.interpolate(a, scale_factor=(1.7, 2.5), mode='bicubic')"),
            (f"interp_bicubic_scale_ac_{dt}", im,
             "out = F.interpolate(a, scale_factor=0.6, mode='bicubic', align_corners=True)"),
            (f"interp_bicubic_one_{dt}", {"a": ([1, 2, 1, 4], dt, "randn")},
             "out = F.interpolate(a, (3, 1), mode='bicubic', align_corners=True)"),
        ]
    cases += [
        ("err_interp_bicubic_int", {"a": ([1, 2, 3, 4], "int64", "int:5")}, "out = F.interpolate(a, 5, mode='bicubic')"),
        ("err_interp_bicubic_zero", {"a": ([1, 2, 3, 4], F32, "randn")}, "out = F.interpolate(a, (0, 2), mode='bicubic')"),
        ("err_interp_trilinear_zero", {"a": ([1, 2, 2, 3, 4], F32, "randn")},
         "out = F.interpolate(a, (0, 2, 2), mode='trilinear')"),
        ("err_interp_bicubic_3d", {"a": ([1, 2, 3], F32, "randn")}, "out = F.interpolate(a, 5, mode='bicubic')"),
        ("err_interp_trilinear_4d", {"a": ([1, 2, 3, 4], F32, "randn")}, "out = F.interpolate(a, 5, mode='trilinear')"),
    ]
    for dt in (F32, F64):
        th2 = {"t": ([2, 2, 3], dt, "randn")}
        th3 = {"t": ([2, 3, 4], dt, "randn")}
        gs2 = {"a": ([2, 3, 4, 5], dt, "randn"), "g": ([2, 3, 6, 2], dt, "randn")}
        gs3 = {"a": ([2, 2, 3, 4, 5], dt, "randn"), "g": ([2, 2, 3, 4, 3], dt, "randn")}
        cases += [
            (f"affine_grid_{dt}", th2, "out = F.affine_grid(t, [2, 3, 4, 5], align_corners=False)"),
            (f"affine_grid_ac_{dt}", th2, "out = F.affine_grid(t, (2, 1, 3, 6), align_corners=True)"),
            (f"affine_grid_unit_{dt}", th2, "out = F.affine_grid(t, [2, 1, 1, 4], align_corners=False)"),
            (f"affine_grid_3d_{dt}", th3, "out = F.affine_grid(t, [2, 3, 2, 4, 3], align_corners=False)"),
            (f"affine_grid_3d_ac_{dt}", th3, "out = F.affine_grid(t, [2, 3, 3, 2, 4], align_corners=True)"),
            (f"affine_grid_default_{dt}", th2, "out = F.affine_grid(t, [2, 3, 4, 5])"),
            (f"grid_sample_affine_{dt}", {"a": ([2, 3, 5, 6], dt, "randn"), "t": ([2, 2, 3], dt, "randn")},
             "out = F.grid_sample(a, F.affine_grid(t * 0.6, [2, 3, 4, 7], align_corners=False), align_corners=False)"),
        ]
        for m in ("bilinear", "nearest"):
            for pm in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    cases += [
                        (f"grid_sample_{m}_{pm}_{int(ac)}_{dt}", gs2,
                         f"out = F.grid_sample(a, g * 1.3, mode='{m}', padding_mode='{pm}', align_corners={ac})"),
                        (f"grid_sample_3d_{m}_{pm}_{int(ac)}_{dt}", gs3,
                         f"out = F.grid_sample(a, g * 1.3, mode='{m}', padding_mode='{pm}', align_corners={ac})"),
                    ]
        cases += [
            (f"grid_sample_default_{dt}", gs2, "out = F.grid_sample(a, g)"),
            (f"grid_sample_far_reflection_{dt}", gs2,
             "out = F.grid_sample(a, g * 5, padding_mode='reflection', align_corners=False)"),
            (f"grid_sample_far_reflection_ac_{dt}", gs2,
             "out = F.grid_sample(a, g * 5, padding_mode='reflection', align_corners=True)"),
            (f"grid_sample_unit_reflection_{dt}", {"a": ([1, 2, 1, 4], dt, "randn"), "g": ([1, 3, 2, 2], dt, "randn")},
             "out = F.grid_sample(a, g * 2, padding_mode='reflection', align_corners=True)"),
        ]
    gs = {"a": ([2, 3, 4, 5], F32, "randn"), "g": ([2, 3, 6, 2], F32, "randn")}
    cases += [
        ("err_affine_grid_int", {"t": ([2, 2, 3], "int64", "int:3")}, "out = F.affine_grid(t, [2, 3, 4, 5], align_corners=False)"),
        ("err_affine_grid_shape", {"t": ([2, 3, 3], F32, "randn")}, "out = F.affine_grid(t, [2, 3, 4, 5], align_corners=False)"),
        ("err_affine_grid_shape3d", {"t": ([2, 2, 3], F32, "randn")}, "out = F.affine_grid(t, [2, 3, 4, 5, 6], align_corners=False)"),
        ("err_affine_grid_rank", {"t": ([2, 2, 3], F32, "randn")}, "out = F.affine_grid(t, [2, 3, 4], align_corners=False)"),
        ("err_affine_grid_zero", {"t": ([2, 2, 3], F32, "randn")}, "out = F.affine_grid(t, [2, 3, 0, 5], align_corners=False)"),
        ("err_affine_grid_batch", {"t": ([3, 2, 3], F32, "randn")}, "out = F.affine_grid(t, [2, 3, 4, 5], align_corners=False)"),
        ("err_grid_sample_mode", gs, "out = F.grid_sample(a, g, mode='linear', align_corners=False)"),
        ("err_grid_sample_padding", gs, "out = F.grid_sample(a, g, padding_mode='circular', align_corners=False)"),
        ("err_grid_sample_dtype", {"a": ([2, 3, 4, 5], F32, "randn"), "g": ([2, 3, 6, 2], F64, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_batch", {"a": ([2, 3, 4, 5], F32, "randn"), "g": ([3, 3, 6, 2], F32, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_last", {"a": ([2, 3, 4, 5], F32, "randn"), "g": ([2, 3, 6, 3], F32, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_rank", {"a": ([2, 3, 4, 5], F32, "randn"), "g": ([2, 3, 2], F32, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_empty", {"a": ([2, 3, 0, 5], F32, "randn"), "g": ([2, 3, 6, 2], F32, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_3d_rank", {"a": ([2, 3, 4, 5, 2], F32, "randn"), "g": ([2, 3, 6, 2], F32, "randn")},
         "out = F.grid_sample(a, g, align_corners=False)"),
        ("err_grid_sample_int", {"a": ([2, 3, 4, 5], "int64", "int:5"), "g": ([2, 3, 6, 2], "int64", "int:2")},
         "out = F.grid_sample(a, g, align_corners=False)"),
    ]
    idx1 = {"i": ([9], "int64", [1, 2, 4, 5, 4, 3, 2, 9, 0])}
    for dt in (F32, F64):
        w = {"w": ([10, 3], dt, "randn")}
        cases += [
            (f"embedding_bag_mean_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 4, 4])},
             "out = F.embedding_bag(i, w, o)"),
            (f"embedding_bag_sum_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 2, 6])},
             "out = F.embedding_bag(i, w, o, mode='sum')"),
            (f"embedding_bag_max_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 2, 6])},
             "out = F.embedding_bag(i, w, o, mode='max')"),
            (f"embedding_bag_max_empty_{dt}", {**w, **idx1, "o": ([4], "int64", [0, 2, 2, 9])},
             "out = F.embedding_bag(i, w, o, mode='max')"),
            (f"embedding_bag_2d_{dt}", {**w, "i": ([3, 4], "int64", "int:10")}, "out = F.embedding_bag(i, w)"),
            (f"embedding_bag_2d_max_{dt}", {**w, "i": ([3, 4], "int64", "int:10")}, "out = F.embedding_bag(i, w, mode='max')"),
            (f"embedding_bag_psw_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 2, 6]), "p": ([9], dt, "randn")},
             "out = F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p)"),
            (f"embedding_bag_psw_2d_{dt}", {**w, "i": ([3, 4], "int64", "int:10"), "p": ([3, 4], dt, "randn")},
             "out = F.embedding_bag(i, w, mode='sum', per_sample_weights=p)"),
            (f"embedding_bag_last_offset_{dt}", {**w, **idx1, "o": ([4], "int64", [0, 2, 6, 9])},
             "out = F.embedding_bag(i, w, o, include_last_offset=True)"),
            (f"embedding_bag_last_offset_sum_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 3, 9])},
             "out = F.embedding_bag(i, w, o, mode='sum', include_last_offset=True)"),
            (f"embedding_bag_padding_mean_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 2, 6])},
             "out = F.embedding_bag(i, w, o, padding_idx=4)"),
            (f"embedding_bag_padding_max_{dt}", {**w, **idx1, "o": ([3], "int64", [0, 2, 6])},
             "out = F.embedding_bag(i, w, o, mode='max', padding_idx=-8)"),
            (f"embedding_bag_padding_all_{dt}", {**w, "i": ([4], "int64", [2, 2, 1, 2]), "o": ([2], "int64", [0, 2])},
             "out = F.embedding_bag(i, w, o, padding_idx=2)"),
            (f"embedding_bag_int32_{dt}", {**w, "i": ([5], "int64", [1, 2, 3, 4, 5]), "o": ([2], "int64", [0, 3])},
             "out = F.embedding_bag(i.int(), w, o.int(), mode='sum')"),
            (f"embedding_bag_max_norm_{dt}", {**w, "i": ([5], "int64", [1, 2, 3, 1, 5]), "o": ([2], "int64", [0, 3])},
             "w2 = w * 3; out = (F.embedding_bag(i, w2, o, max_norm=1.5), w2)"),
        ]
    ew = {"w": ([10, 3], F32, "randn"), "i": ([5], "int64", [1, 2, 3, 4, 5]), "o": ([2], "int64", [0, 3])}
    cases += [
        ("err_embedding_bag_psw_shape", {**ew, "p": ([4], F32, "randn")},
         "out = F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p)"),
        ("err_embedding_bag_psw_mode", {**ew, "p": ([5], F32, "randn")},
         "out = F.embedding_bag(i, w, o, per_sample_weights=p)"),
        ("err_embedding_bag_weight_dim", ew, "out = F.embedding_bag(i, w[0], o)"),
        ("err_embedding_bag_no_offsets", ew, "out = F.embedding_bag(i, w)"),
        ("err_embedding_bag_offsets_dim", ew, "out = F.embedding_bag(i, w, o.reshape(1, 2))"),
        ("err_embedding_bag_input_dim", ew, "out = F.embedding_bag(i.reshape(1, 1, 5), w)"),
        ("err_embedding_bag_mode", ew, "out = F.embedding_bag(i, w, o, mode='min')"),
        ("err_embedding_bag_max_freq", ew, "out = F.embedding_bag(i, w, o, mode='max', scale_grad_by_freq=True)"),
        ("err_embedding_bag_max_sparse", ew, "out = F.embedding_bag(i, w, o, mode='max', sparse=True)"),
        ("err_embedding_bag_float_idx", ew, "out = F.embedding_bag(i.float(), w.long(), o)"),
        ("err_embedding_bag_first_offset", {**ew, "o": ([2], "int64", [1, 3])}, "out = F.embedding_bag(i, w, o)"),
        ("err_embedding_bag_last_offset", {**ew, "o": ([2], "int64", [0, 7])}, "out = F.embedding_bag(i, w, o)"),
        ("err_embedding_bag_padding_range", ew, "out = F.embedding_bag(i, w, o, padding_idx=10)"),
        ("err_embedding_bag_int_weight", ew, "out = F.embedding_bag(i, w.long(), o)"),
    ]
    for dt in (F32, F64):
        img = {"a": ([2, 3, 9, 10], dt, "randn"), "u": ([2, 3, 2], dt, "rand")}
        vol5 = {"a": ([2, 2, 7, 8, 9], dt, "randn"), "u": ([2, 2, 3], dt, "rand")}
        cases += [
            (f"fractional_max_pool2d_{dt}", img,
             "out = F.fractional_max_pool2d(a, 3, output_size=(4, 5), return_indices=True, _random_samples=u)"),
            (f"fractional_max_pool2d_ratio_{dt}", img,
             "out = F.fractional_max_pool2d(a, (2, 3), output_ratio=(0.5, 0.6), return_indices=True, _random_samples=u)"),
            (f"fractional_max_pool2d_unbatched_{dt}", {"a": ([3, 9, 10], dt, "randn"), "u": ([1, 3, 2], dt, "rand")},
             "out = F.fractional_max_pool2d(a, 2, output_size=5, _random_samples=u)"),
            (f"fractional_max_pool2d_one_{dt}", img,
             "out = F.fractional_max_pool2d(a, 2, output_size=(1, 8), _random_samples=u)"),
            (f"fractional_max_pool3d_{dt}", vol5,
             "out = F.fractional_max_pool3d(a, (2, 3, 2), output_size=(4, 5, 6), return_indices=True, _random_samples=u)"),
            (f"fractional_max_pool3d_ratio_{dt}", vol5,
             "out = F.fractional_max_pool3d(a, 2, output_ratio=0.5, _random_samples=u)"),
        ]
    fm = {"a": ([2, 3, 9, 10], F32, "randn"), "u": ([2, 3, 2], F32, "rand")}
    cases += [
        ("err_fractional_max_pool2d_no_size", fm, "out = F.fractional_max_pool2d(a, 2, _random_samples=u)"),
        ("err_fractional_max_pool2d_too_large", fm, "out = F.fractional_max_pool2d(a, 3, output_size=(8, 5), _random_samples=u)"),
        ("err_fractional_max_pool2d_dim", {"a": ([9, 10], F32, "randn"), "u": ([1, 3, 2], F32, "rand")},
         "out = F.fractional_max_pool2d(a, 2, output_size=3, _random_samples=u)"),
        ("err_fractional_max_pool3d_no_size", {"a": ([2, 2, 7, 8, 9], F32, "randn")}, "out = F.fractional_max_pool3d(a, 2)"),
        ("err_fractional_max_pool3d_too_large", {"a": ([2, 2, 7, 8, 9], F32, "randn"), "u": ([2, 2, 3], F32, "rand")},
         "out = F.fractional_max_pool3d(a, 2, output_size=(4, 8, 4), _random_samples=u)"),
    ]
    for dt in (F32, F64):
        mha = {"q": ([4, 2, 6], dt, "randn"), "k": ([5, 2, 6], dt, "randn"), "v": ([5, 2, 6], dt, "randn"),
               "w": ([18, 6], dt, "randn"), "b": ([18], dt, "randn"), "ow": ([6, 6], dt, "randn"), "ob": ([6], dt, "randn")}
        args = "w, b, None, None, False, 0.0, ow, ob"
        cases += [
            (f"mha_{dt}", mha, f"out = F.multi_head_attention_forward(q, k, v, 6, 2, {args})"),
            (f"mha_self_{dt}", mha, f"out = F.multi_head_attention_forward(q, q, q, 6, 3, {args}, average_attn_weights=False)"),
            (f"mha_kv_{dt}", mha, f"out = F.multi_head_attention_forward(q, k, k, 6, 2, {args}, need_weights=False)[0]"),
            (f"mha_masks_{dt}", {**mha, "m": ([4, 5], dt, "randn"), "p": ([2, 5], "int64", [0, 1, 0, 0, 1, 0, 0, 0, 1, 0])},
             f"out = F.multi_head_attention_forward(q, k, v, 6, 2, {args}, attn_mask=m, key_padding_mask=p.bool())"),
            (f"mha_bool_mask_noweights_{dt}", {**mha, "m": ([4, 5], "int64", [0, 1, 0, 0, 1] * 4)},
             f"out = F.multi_head_attention_forward(q, k, v, 6, 2, {args}, attn_mask=m.bool(), need_weights=False)[0]"),
            (f"mha_bias_kv_zero_{dt}", {**mha, "bk": ([1, 1, 6], dt, "randn"), "bv": ([1, 1, 6], dt, "randn"),
                                        "p": ([2, 5], "int64", [0, 1, 0, 0, 1, 0, 0, 0, 1, 0])},
             "out = F.multi_head_attention_forward(q, k, v, 6, 2, w, b, bk, bv, True, 0.0, ow, ob, "
             "key_padding_mask=p.bool())"),
            (f"mha_separate_{dt}", {**mha, "wq": ([6, 6], dt, "randn"), "wk": ([6, 4], dt, "randn"), "wv": ([6, 3], dt, "randn"),
                                    "k2": ([5, 2, 4], dt, "randn"), "v2": ([5, 2, 3], dt, "randn")},
             "out = F.multi_head_attention_forward(q, k2, v2, 6, 2, None, b, None, None, False, 0.0, ow, ob, "
             "use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv)"),
            (f"mha_unbatched_{dt}", mha, f"out = F.multi_head_attention_forward(q[:, 0], k[:, 0], v[:, 0], 6, 2, {args})"),
            (f"mha_causal_{dt}", {**mha, "m": ([4, 5], "int64", [0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1])},
             f"out = F.multi_head_attention_forward(q, k, v, 6, 2, {args}, attn_mask=m.bool(), is_causal=True, need_weights=False)[0]"),
            (f"mha_eval_dropout_{dt}", mha,
             "out = F.multi_head_attention_forward(q, k, v, 6, 2, w, b, None, None, False, 0.5, ow, ob, training=False)"),
        ]
    mh = {"q": ([4, 2, 6], F32, "randn"), "k": ([5, 2, 6], F32, "randn"), "w": ([18, 6], F32, "randn"), "ow": ([6, 6], F32, "randn")}
    cases += [
        ("err_mha_embed", mh, "out = F.multi_head_attention_forward(q, k, k, 8, 2, w, None, None, None, False, 0.0, ow, None)"),
        ("err_mha_heads", mh, "out = F.multi_head_attention_forward(q, k, k, 6, 4, w, None, None, None, False, 0.0, ow, None)"),
        ("err_mha_dims", mh, "out = F.multi_head_attention_forward(q, k[0], k, 6, 2, w, None, None, None, False, 0.0, ow, None)"),
        ("err_mha_mask_shape", {**mh, "m": ([4, 4], F32, "randn")},
         "out = F.multi_head_attention_forward(q, k, k, 6, 2, w, None, None, None, False, 0.0, ow, None, attn_mask=m)"),
        ("err_mha_causal", mh,
         "out = F.multi_head_attention_forward(q, k, k, 6, 2, w, None, None, None, False, 0.0, ow, None, is_causal=True)"),
        ("err_mha_kv_shape", mh, "out = F.multi_head_attention_forward(q, k, k[:4], 6, 2, w, None, None, None, False, 0.0, ow, None)"),
        ("err_mha_int_mask", {**mh, "m": ([4, 5], "int64", "int:2")},
         "out = F.multi_head_attention_forward(q, k, k, 6, 2, w, None, None, None, False, 0.0, ow, None, attn_mask=m)"),
    ]
    for dt in (F32, F64):
        ctc = {"x": ([7, 3, 5], dt, "randn"), "y": ([3, 4], "int64", [1, 2, 2, 3, 4, 4, 1, 0, 3, 1, 3, 2])}
        il, tl = "[7, 6, 5]", "[4, 3, 2]"
        cases += [
            (f"ctc_mean_{dt}", ctc, f"out = F.ctc_loss(x.log_softmax(2), y, {il}, {tl})"),
            (f"ctc_sum_{dt}", ctc, f"out = F.ctc_loss(x.log_softmax(2), y, {il}, {tl}, reduction='sum')"),
            (f"ctc_none_{dt}", ctc, f"out = F.ctc_loss(x.log_softmax(2), y, {il}, {tl}, reduction='none')"),
            (f"ctc_blank_{dt}", ctc, f"out = F.ctc_loss(x.log_softmax(2), y, {il}, {tl}, blank=4, reduction='none')"),
            (f"ctc_tensor_lengths_{dt}", ctc,
             f"out = F.ctc_loss(x.log_softmax(2), y, T.tensor({il}), T.tensor({tl}), reduction='none')"),
            (f"ctc_concat_{dt}", {"x": ([7, 3, 5], dt, "randn"), "y": ([9], "int64", [1, 2, 2, 3, 4, 4, 1, 3, 1])},
             f"out = F.ctc_loss(x.log_softmax(2), y, {il}, {tl}, reduction='none')"),
            (f"ctc_empty_target_{dt}", ctc, "out = F.ctc_loss(x.log_softmax(2), y, [7, 6, 5], [4, 0, 2], reduction='none')"),
            (f"ctc_all_empty_{dt}", ctc, "out = F.ctc_loss(x.log_softmax(2), y, [7, 6, 5], [0, 0, 0], reduction='none')"),
            (f"ctc_zero_input_{dt}", ctc, "out = F.ctc_loss(x.log_softmax(2), y, [7, 0, 5], [4, 0, 2], reduction='none')"),
            (f"ctc_impossible_{dt}", ctc, "out = F.ctc_loss(x.log_softmax(2), y, [7, 3, 5], [4, 3, 2], reduction='none')"),
            (f"ctc_zero_infinity_{dt}", ctc, "out = F.ctc_loss(x.log_softmax(2), y, [7, 3, 5], [4, 3, 2], zero_infinity=True)"),
            (f"ctc_unbatched_{dt}", {"x": ([6, 5], dt, "randn"), "y": ([3], "int64", [1, 1, 3])},
             "out = F.ctc_loss(x.log_softmax(1), y, T.tensor(6), T.tensor(3))"),
            (f"ctc_int32_targets_{dt}", ctc, f"out = F.ctc_loss(x.log_softmax(2), y.int(), {il}, {tl})"),
        ]
    ce = {"x": ([6, 2, 5], F32, "randn"), "y": ([2, 3], "int64", [1, 2, 3, 2, 1, 1])}
    cases += [
        ("err_ctc_empty", ce, "out = F.ctc_loss(x[:0], y, [0, 0], [0, 0])"),
        ("err_ctc_blank", ce, "out = F.ctc_loss(x, y, [6, 5], [3, 2], blank=5)"),
        ("err_ctc_input_lengths_size", ce, "out = F.ctc_loss(x, y, [6], [3, 2])"),
        ("err_ctc_target_lengths_size", ce, "out = F.ctc_loss(x, y, [6, 5], [3])"),
        ("err_ctc_input_too_long", ce, "out = F.ctc_loss(x, y, [7, 5], [3, 2])"),
        ("err_ctc_target_too_long", ce, "out = F.ctc_loss(x, y, [6, 5], [4, 2])"),
        ("err_ctc_concat_size", ce, "out = F.ctc_loss(x, y.reshape(-1)[:4], [6, 5], [3, 2])"),
        ("err_ctc_reduction", ce, "out = F.ctc_loss(x, y, [6, 5], [3, 2], reduction='x')"),
        ("err_ctc_int", ce, "out = F.ctc_loss(x.long(), y, [6, 5], [3, 2])"),
        ("err_ctc_negative_input", ce, "out = F.ctc_loss(x, y, [-1, 5], [3, 2])"),
        ("err_ctc_negative_target", ce, "out = F.ctc_loss(x, y, [6, 5], [-1, 2])"),
    ]
    x5 = {"a": ([1, 2, 3, 3, 3], F32, "randn"), "w": ([2, 2, 2, 2, 2], F32, "randn")}
    p5 = {"a": ([1, 2, 4, 5, 6], F32, "randn")}
    cases += [
        ("err_conv3d_channels", {"a": ([1, 3, 3, 3, 3], F32, "randn"), "w": ([2, 4, 2, 2, 2], F32, "randn")},
         "out = F.conv3d(a, w)"),
        ("err_conv3d_kernel", {"a": ([1, 2, 3, 3, 3], F32, "randn"), "w": ([2, 2, 1, 5, 1], F32, "randn")},
         "out = F.conv3d(a, w)"),
        ("err_conv3d_dim", {"a": ([2, 3, 3], F32, "randn"), "w": ([2, 2, 2, 2, 2], F32, "randn")}, "out = F.conv3d(a, w)"),
        ("err_conv3d_same_stride", x5, "out = F.conv3d(a, w, padding='same', stride=2)"),
        ("err_conv3d_bias", {**x5, "b": ([3], F32, "randn")}, "out = F.conv3d(a, w, b)"),
        ("err_conv3d_groups", x5, "out = F.conv3d(a, w, groups=2)"),
        ("err_conv_transpose3d_outpad", x5, "out = F.conv_transpose3d(a, w, output_padding=1)"),
        ("err_conv_transpose3d_outpad_w", x5, "out = F.conv_transpose3d(a, w, stride=2, output_padding=(0, 0, 2))"),
        ("err_conv_transpose3d_small", x5, "out = F.conv_transpose3d(a, w, padding=3)"),
        ("err_conv_transpose3d_dim", {"a": ([2, 3, 3], F32, "randn"), "w": ([2, 2, 2, 2, 2], F32, "randn")},
         "out = F.conv_transpose3d(a, w)"),
        ("err_max_pool3d_dim", {"a": ([4, 5, 6], F32, "randn")}, "out = F.max_pool3d(a, 2)"),
        ("err_max_pool3d_pad", p5, "out = F.max_pool3d(a, 2, padding=2)"),
        ("err_max_pool3d_stride", p5, "out = F.max_pool3d(a, 2, stride=0)"),
        ("err_max_pool3d_small", p5, "out = F.max_pool3d(a, 7)"),
        ("err_max_pool3d_dilation", p5, "out = F.max_pool3d(a, 2, dilation=0)"),
        ("err_max_pool3d_kernel_len", p5, "out = F.max_pool3d(a, (2, 2))"),
        ("err_max_pool3d_empty", {"a": ([2, 0, 4, 4, 4], F32, "randn")}, "out = F.max_pool3d(a, 2)"),
        ("err_avg_pool3d_dim", {"a": ([4, 5, 6], F32, "randn")}, "out = F.avg_pool3d(a, 2)"),
        ("err_avg_pool3d_pad", p5, "out = F.avg_pool3d(a, 2, padding=2)"),
        ("err_avg_pool3d_small", p5, "out = F.avg_pool3d(a, 7)"),
        ("err_avg_pool3d_divisor", p5, "out = F.avg_pool3d(a, 2, divisor_override=0)"),
        ("err_avg_pool3d_empty", {"a": ([2, 0, 4, 4, 4], F32, "randn")}, "out = F.avg_pool3d(a, 2)"),
        ("err_adaptive_max_pool3d_dim", {"a": ([4, 5, 6], F32, "randn")}, "out = F.adaptive_max_pool3d(a, 2)"),
        ("err_adaptive_max_pool3d_size", p5, "out = F.adaptive_max_pool3d(a, (2, 2))"),
        ("err_adaptive_max_pool3d_int", {"a": ([1, 2, 4, 5, 6], "int64", "int:5")}, "out = F.adaptive_max_pool3d(a, 2)"),
        ("err_max_unpool3d_dim", {"a": ([4, 5, 6], F32, "randn"), "i": ([4, 5, 6], "int64", "int:5")},
         "out = F.max_unpool3d(a, i, 2)"),
        ("err_max_unpool3d_stride", {"a": ([1, 2, 2, 2, 2], F32, "randn"), "i": ([1, 2, 2, 2, 2], "int64", [0] * 16)},
         "out = F.max_unpool3d(a, i, 2, stride=(1, 0, 1))"),
        ("err_max_unpool3d_index", {"a": ([1, 2, 2, 2, 2], F32, "randn"), "i": ([1, 2, 2, 2, 2], "int64", [1000] * 16)},
         "out = F.max_unpool3d(a, i, 2)"),
    ]
    return cases


def _part5_grads():
    cases = []
    for dt in (F32, F64):
        vol = {"a": ([2, 2, 5, 4, 5], dt, "randn")}
        cases += [
            _grad_case(f"conv3d_{dt}", {"a": ([2, 4, 4, 3, 5], dt, "randn"), "w": ([6, 2, 2, 2, 3], dt, "randn"),
                                        "c": ([6], dt, "randn")},
                       "F.conv3d(a, w, c, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1), groups=2)", ["a", "w", "c"]),
            _grad_case(f"conv3d_same_{dt}", {"a": ([1, 2, 4, 3, 4], dt, "randn"), "w": ([3, 2, 2, 3, 2], dt, "randn")},
                       "F.conv3d(a, w, padding='same')", ["a", "w"]),
            _grad_case(f"conv_transpose3d_{dt}", {"a": ([2, 4, 2, 3, 2], dt, "randn"), "w": ([4, 3, 2, 2, 3], dt, "randn"),
                                                  "c": ([6], dt, "randn")},
                       "F.conv_transpose3d(a, w, c, stride=2, padding=(1, 0, 1), output_padding=1, groups=2)",
                       ["a", "w", "c"]),
            _grad_case(f"max_pool3d_{dt}", vol, "F.max_pool3d(a, 3, 2, 1, ceil_mode=True)", ["a"]),
            _grad_case(f"max_pool3d_dil_{dt}", vol, "F.max_pool3d(a, 2, 1, 0, (2, 1, 2))", ["a"]),
            _grad_case(f"avg_pool3d_{dt}", vol, "F.avg_pool3d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False)", ["a"]),
            _grad_case(f"avg_pool3d_divisor_{dt}", vol, "F.avg_pool3d(a, (2, 3, 2), 1, (1, 0, 1), divisor_override=3)", ["a"]),
            _grad_case(f"adaptive_max_pool3d_{dt}", vol, "F.adaptive_max_pool3d(a, (2, 3, 3))", ["a"]),
            _grad_case(f"lp_pool3d_{dt}", {"a": ([1, 2, 4, 4, 4], dt, "rand")}, "F.lp_pool3d(a + 0.1, 2, 2)", ["a"]),
            _grad_case(f"interp_trilinear_{dt}", vol, "F.interpolate(a, (3, 6, 7), mode='trilinear')", ["a"]),
            _grad_case(f"interp_trilinear_ac_{dt}", vol,
                       "F.interpolate(a, scale_factor=1.5, mode='trilinear', align_corners=True)", ["a"]),
            _grad_case(f"interp_nearest3d_{dt}", vol, "F.interpolate(a, (7, 3, 6))", ["a"]),
            _grad_case(f"interp_bicubic_{dt}", {"a": ([2, 2, 4, 5], dt, "randn")},
                       "F.interpolate(a, (7, 3), mode='bicubic')", ["a"]),
            _grad_case(f"interp_bicubic_ac_{dt}", {"a": ([2, 2, 4, 5], dt, "randn")},
                       "F.interpolate(a, scale_factor=1.6, mode='bicubic', align_corners=True)", ["a"]),
            _grad_case(f"affine_grid_{dt}", {"t": ([2, 2, 3], dt, "randn")},
                       "F.affine_grid(t, [2, 1, 3, 4], align_corners=False)", ["t"]),
            _grad_case(f"affine_grid_3d_{dt}", {"t": ([2, 3, 4], dt, "randn")},
                       "F.affine_grid(t, [2, 1, 2, 3, 2], align_corners=True)", ["t"]),
            _grad_case(f"grid_sample_zeros_{dt}", {"a": ([2, 2, 4, 5], dt, "randn"), "g": ([2, 3, 4, 2], dt, "randn")},
                       "F.grid_sample(a, g * 1.2, align_corners=False)", ["a", "g"]),
            _grad_case(f"grid_sample_border_ac_{dt}", {"a": ([2, 2, 4, 5], dt, "randn"), "g": ([2, 3, 4, 2], dt, "randn")},
                       "F.grid_sample(a, g * 1.2, padding_mode='border', align_corners=True)", ["a", "g"]),
            _grad_case(f"grid_sample_reflection_{dt}", {"a": ([2, 2, 4, 5], dt, "randn"), "g": ([2, 3, 4, 2], dt, "randn")},
                       "F.grid_sample(a, g * 2.5, padding_mode='reflection', align_corners=False)", ["a", "g"]),
            _grad_case(f"grid_sample_nearest_{dt}", {"a": ([2, 2, 4, 5], dt, "randn"), "g": ([2, 3, 4, 2], dt, "randn")},
                       "F.grid_sample(a, g, mode='nearest', align_corners=False)", ["a", "g"]),
            _grad_case(f"grid_sample_3d_{dt}", {"a": ([1, 2, 3, 4, 5], dt, "randn"), "g": ([1, 2, 3, 2, 3], dt, "randn")},
                       "F.grid_sample(a, g * 1.2, padding_mode='reflection', align_corners=True)", ["a", "g"]),
            _grad_case(f"embedding_bag_mean_{dt}", {"w": ([10, 3], dt, "randn"), "i": ([9], "int64", [1, 2, 4, 5, 4, 3, 2, 9, 0]),
                                                    "o": ([3], "int64", [0, 4, 4])},
                       "F.embedding_bag(i, w, o, padding_idx=2)", ["w"]),
            _grad_case(f"embedding_bag_max_{dt}", {"w": ([10, 3], dt, "randn"), "i": ([3, 4], "int64", "int:10")},
                       "F.embedding_bag(i, w, mode='max')", ["w"]),
            _grad_case(f"embedding_bag_psw_{dt}", {"w": ([10, 3], dt, "randn"), "i": ([9], "int64", [1, 2, 4, 5, 4, 3, 2, 9, 0]),
                                                   "o": ([3], "int64", [0, 2, 9]), "p": ([9], dt, "randn")},
                       "F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p, include_last_offset=True)", ["w", "p"]),
            _grad_case(f"embedding_bag_freq_{dt}", {"w": ([10, 3], dt, "randn"), "i": ([3, 4], "int64", [1, 1, 2, 3, 1, 2, 5, 5, 9, 1, 0, 2])},
                       "F.embedding_bag(i, w, scale_grad_by_freq=True)", ["w"]),
            _grad_case(f"fractional_max_pool2d_{dt}", {"a": ([2, 3, 9, 10], dt, "randn"), "u": ([2, 3, 2], dt, "rand")},
                       "F.fractional_max_pool2d(a, 3, output_size=(4, 5), _random_samples=u)", ["a"]),
            _grad_case(f"fractional_max_pool3d_{dt}", {"a": ([1, 2, 5, 6, 7], dt, "randn"), "u": ([1, 2, 3], dt, "rand")},
                       "F.fractional_max_pool3d(a, 2, output_size=(3, 4, 5), _random_samples=u)", ["a"]),
            _grad_case(f"mha_{dt}", {"q": ([4, 2, 6], dt, "randn"), "k": ([5, 2, 6], dt, "randn"), "w": ([18, 6], dt, "randn"),
                                     "b": ([18], dt, "randn"), "ow": ([6, 6], dt, "randn"), "m": ([4, 5], dt, "randn")},
                       "F.multi_head_attention_forward(q, k, k, 6, 2, w, b, None, None, False, 0.0, ow, None, attn_mask=m)[0]",
                       ["q", "k", "w", "b", "ow"]),
            _grad_case(f"ctc_logits_{dt}", {"x": ([7, 3, 5], dt, "randn"), "y": ([3, 4], "int64", [1, 2, 2, 3, 4, 4, 1, 0, 3, 1, 3, 2])},
                       "F.ctc_loss(x.log_softmax(2), y, [7, 6, 5], [4, 3, 2])", ["x"]),
            _grad_case(f"ctc_log_probs_{dt}", {"x": ([7, 3, 5], dt, "randn"), "y": ([3, 4], "int64", [1, 2, 2, 3, 4, 4, 1, 0, 3, 1, 3, 2])},
                       "F.ctc_loss(x, y, [7, 6, 5], [4, 3, 2], reduction='sum')", ["x"],
                       pre="x = x.log_softmax(2).detach(); "),
            _grad_case(f"ctc_zero_infinity_{dt}", {"x": ([7, 3, 5], dt, "randn"), "y": ([3, 4], "int64", [1, 2, 2, 3, 4, 4, 1, 0, 3, 1, 3, 2])},
                       "F.ctc_loss(x.log_softmax(2), y, [7, 3, 5], [4, 3, 2], zero_infinity=True, reduction='none')", ["x"]),
            _grad_case(f"max_unpool3d_{dt}", vol,
                       "F.max_unpool3d(*F.max_pool3d(a, 2, return_indices=True), 2, output_size=a.shape)", ["a"]),
        ]
    return cases


FAMILIES = {
    "activation": _acts(),
    "linear": _linear(),
    "loss": _losses(),
    "norm": _norms(),
    "misc": _misc(),
    "pad": _pad(),
    "conv_pool": _conv_pool(),
    "more_activation": _more_acts(),
    "more_loss": _more_losses(),
    "more_layers": _more_layers(),
    "grad": _grads(),
    "part4": _part4(),
    "part4_grad": _part4_grads(),
    "part5": _part5(),
    "part5_grad": _part5_grads(),
}
