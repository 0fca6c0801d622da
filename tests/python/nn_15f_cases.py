"""Cases of session nn15f (issue 15's last nn gaps), written once for torch and _C: antialiased
``interpolate`` (bilinear / bicubic, float32 / float64 / uint8), uint8 bilinear / bicubic
without antialiasing, their input gradients. Inputs come from a fixed integer formula (exact in
every dtype, no random generator). ``gen_nn_15f_expected.py`` runs them in torch 2.15 and writes
nn_15f_expected.json; test_nn_15f.py runs them in _C and compares."""

# (id, shape, dtype, interpolate's keywords)
_RESAMPLE = [
    ("aa_bilinear_down", [2, 3, 7, 9], dict(size=(3, 4), mode="bilinear", antialias=True)),
    ("aa_bicubic_down", [2, 3, 7, 9], dict(size=(4, 3), mode="bicubic", antialias=True)),
    ("aa_bilinear_up", [1, 2, 4, 5], dict(size=(9, 7), mode="bilinear", antialias=True)),
    ("aa_bicubic_up", [1, 2, 4, 5], dict(size=(9, 7), mode="bicubic", antialias=True)),
    ("aa_bicubic_scale", [1, 2, 11, 10], dict(scale_factor=(0.45, 0.7), mode="bicubic", antialias=True)),
    ("aa_bilinear_scale_mixed", [1, 2, 6, 12], dict(scale_factor=(1.7, 0.3), mode="bilinear", antialias=True)),
    ("aa_bilinear_ac", [1, 2, 7, 9], dict(size=(3, 5), mode="bilinear", align_corners=True, antialias=True)),
    ("aa_bicubic_ac", [1, 2, 7, 9], dict(size=(5, 2), mode="bicubic", align_corners=True, antialias=True)),
    ("aa_bilinear_h_only", [1, 1, 8, 5], dict(size=(3, 5), mode="bilinear", antialias=True)),
    ("aa_bicubic_same", [1, 1, 4, 5], dict(size=(4, 5), mode="bicubic", antialias=True)),
    ("aa_bicubic_recompute", [1, 2, 9, 9], dict(scale_factor=0.35, mode="bicubic", antialias=True,
                                                recompute_scale_factor=True)),
    ("aa_bilinear_big_down", [1, 1, 40, 33], dict(size=(3, 4), mode="bilinear", antialias=True)),
    # torch computes plain interpolation's source indices and weights in float32 for float32
    # input (fused or not as its kernels: Note [Source indices in float32]): sizes where float64
    # arithmetic picks other taps or weights (no 3-channel input: torch's kernel choice for it
    # depends on the thread count).
    ("f32idx_bilinear", [1, 2, 15, 9], dict(size=(13, 33), mode="bilinear")),
    ("f32idx_bilinear_ac", [1, 1, 31, 31], dict(size=(27, 23), mode="bilinear", align_corners=True)),
    ("f32idx_bilinear_wide", [1, 1, 2, 345], dict(size=(2, 270), mode="bilinear")),
    ("f32idx_bilinear_small", [1, 2, 2, 2], dict(size=(5, 7), mode="bilinear")),
    ("f32idx_bicubic_wide", [1, 1, 2, 456], dict(size=(3, 270), mode="bicubic")),
    ("f32idx_bicubic", [1, 2, 15, 53], dict(size=(13, 71), mode="bicubic")),
    ("f32idx_linear", [1, 2, 30], dict(size=26, mode="linear")),
    ("f32idx_trilinear", [1, 1, 15, 4, 9], dict(size=(13, 3, 33), mode="trilinear")),
    ("f32idx_trilinear_small", [1, 2, 2, 2, 2], dict(size=(5, 5, 7), mode="trilinear")),
    ("f32idx_trilinear_ac", [2, 1, 3, 31, 4], dict(size=(4, 27, 5), mode="trilinear", align_corners=True)),
    ("same_size_scale_bilinear", [1, 1, 4, 5], dict(scale_factor=(1.1, 1.15), mode="bilinear")),
]
_UINT8 = [c for c in _RESAMPLE if c[2]["mode"] in ("bilinear", "bicubic")] + [
    ("bilinear_down", [1, 3, 7, 9], dict(size=(3, 4), mode="bilinear")),
    ("bilinear_up", [1, 3, 4, 5], dict(size=(9, 7), mode="bilinear")),
    ("bilinear_ac", [1, 3, 7, 9], dict(size=(4, 13), mode="bilinear", align_corners=True)),
    ("bicubic_down", [1, 3, 7, 9], dict(size=(3, 4), mode="bicubic")),
    ("bicubic_up", [1, 3, 4, 5], dict(size=(9, 7), mode="bicubic")),
    ("bicubic_ac", [1, 3, 7, 9], dict(size=(4, 13), mode="bicubic", align_corners=True)),
    ("bicubic_scale", [1, 3, 6, 7], dict(scale_factor=(1.7, 0.6), mode="bicubic")),
    ("bilinear_5ch", [1, 5, 6, 7], dict(size=(9, 4), mode="bilinear")),
    ("bicubic_5ch", [1, 5, 6, 7], dict(size=(9, 4), mode="bicubic")),
    ("aa_bicubic_5ch", [1, 5, 9, 8], dict(size=(4, 3), mode="bicubic", antialias=True)),
]


def image(lib, shape, dtype):
    """``(37 i) mod 256`` over the elements, as uint8, or divided by 16 as a float."""
    n = 1
    for s in shape:
        n *= s
    x = (lib.arange(n) * 37 % 256).reshape(shape)
    return x.to(lib.uint8) if dtype == "uint8" else x.to(getattr(lib, dtype)) / 16


def _values(lib, F, shape, dtype, kw):
    out = F.interpolate(image(lib, shape, dtype), **kw)
    return {"shape": list(out.shape), "values": out.reshape(-1).tolist()}


def _grad(lib, F, shape, kw):
    x = image(lib, shape, "float64").requires_grad_()
    out = F.interpolate(x, **kw)
    n = out.numel()
    w = ((lib.arange(n, dtype=lib.float64) * 7 % 13) - 6).reshape(list(out.shape)) / 4
    (g,) = lib.autograd.grad((out * w).sum(), [x])
    return g.reshape(-1).tolist()


CASES = {}
for _id, _shape, _kw in _RESAMPLE:
    for _dt in ("float32", "float64"):
        CASES[f"{_id}_{_dt}"] = (lambda s, d, k: lambda lib, F: _values(lib, F, s, d, k))(_shape, _dt, _kw)
    CASES[f"{_id}_grad"] = (lambda s, k: lambda lib, F: _grad(lib, F, s, k))(_shape, _kw)
for _id, _shape, _kw in _UINT8:
    CASES[f"{_id}_uint8"] = (lambda s, k: lambda lib, F: _values(lib, F, s, "uint8", k))(_shape, _kw)
