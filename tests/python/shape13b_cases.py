"""The shape, split and strided ops of issue 13 part 3b (tensor_split, hsplit/vsplit/dsplit,
split_with_sizes, rot90, meshgrid, cartesian_prod, block_diag, diag_embed, diagflat,
sum_to_size, unfold, as_strided, empty_strided): each case calls them with `torch` (the `_C`
module or torch itself) and returns what it observed — values, shapes, dtypes, gradients, or the
error's class and text. tests/python/gen_shape13b_expected.py records torch 2.15's answers in
shape13b_expected.py; tests/python/test_shape13b.py compares `_C`'s with them."""


def summary(r):
    """A plain-data picture of a result: tensors as [shape, dtype, values]; tuples/lists as lists."""
    if isinstance(r, (tuple, list)):
        return [summary(x) for x in r]
    if hasattr(r, "tolist") and hasattr(r, "shape"):
        return [list(r.shape), str(r.dtype).split(".")[-1], r.tolist()]
    return r


def cases(torch):
    out = {}

    def run(name, f):
        try:
            out[name] = summary(f())
        except Exception as e:  # noqa: BLE001
            out[name] = f"{type(e).__name__}: {e}"

    x = torch.arange(24.0).reshape(2, 3, 4)
    m = torch.arange(6.0).reshape(2, 3)
    v = torch.arange(7)
    i64 = torch.int64

    # ---- tensor_split / hsplit / vsplit / dsplit / split_with_sizes
    run("ts_sections", lambda: torch.tensor_split(x, 3, dim=2))
    run("ts_sections_more_than_size", lambda: torch.tensor_split(x, 5, dim=2))
    run("ts_sections_method_kw", lambda: x.tensor_split(sections=2, dim=-1))
    run("ts_sections_0", lambda: torch.tensor_split(x, 0))
    run("ts_sections_neg", lambda: torch.tensor_split(x, -1))
    run("ts_indices", lambda: torch.tensor_split(x, [1, 0, 5], dim=2))
    run("ts_indices_neg", lambda: torch.tensor_split(x, [-1], dim=2))
    run("ts_indices_empty", lambda: torch.tensor_split(x, [], dim=2))
    run("ts_indices_kw", lambda: torch.tensor_split(v, indices=(2, 5)))
    run("ts_0dim", lambda: torch.tensor_split(torch.tensor(1.0), 2))
    run("ts_dim_out_of_range", lambda: torch.tensor_split(x, 2, dim=3))
    run("ts_tensor_1d", lambda: torch.tensor_split(x, torch.tensor([1, 2]), dim=2))
    run("ts_tensor_0d", lambda: torch.tensor_split(x, torch.tensor(3), dim=2))
    run("ts_tensor_kw", lambda: torch.tensor_split(v, tensor_indices_or_sections=torch.tensor([3])))
    run("ts_tensor_2d", lambda: torch.tensor_split(x, torch.tensor([[1]]), dim=2))
    run("ts_tensor_float", lambda: torch.tensor_split(x, torch.tensor([1.0]), dim=2))
    run("ts_values", lambda: torch.tensor_split(v, 3))
    run("hsplit_int", lambda: torch.hsplit(torch.arange(12).reshape(2, 6), 3))
    run("hsplit_1d", lambda: torch.hsplit(torch.arange(6), 3))
    run("hsplit_uneven", lambda: torch.hsplit(x, 2))
    run("hsplit_zero", lambda: torch.hsplit(x, 0))
    run("hsplit_neg", lambda: torch.hsplit(x, -1))
    run("hsplit_array", lambda: torch.hsplit(x, [1]))
    run("hsplit_method", lambda: m.hsplit([1, 2]))
    run("hsplit_0dim", lambda: torch.hsplit(torch.tensor(1), 4))
    run("hsplit_0dim_array", lambda: torch.hsplit(torch.tensor(1), [1]))
    run("vsplit_int", lambda: torch.vsplit(x, 2))
    run("vsplit_uneven", lambda: torch.vsplit(x, 3))
    run("vsplit_1d", lambda: torch.vsplit(torch.arange(6), 3))
    run("vsplit_array", lambda: x.vsplit([1]))
    run("dsplit_int", lambda: torch.dsplit(x, 2))
    run("dsplit_uneven", lambda: torch.dsplit(x, 3))
    run("dsplit_array", lambda: torch.dsplit(x, [1, 5]))
    run("dsplit_2d", lambda: torch.dsplit(m, [1]))
    run("dsplit_method", lambda: x.dsplit(4))
    run("sws", lambda: x.split_with_sizes([1, 2], dim=1))
    run("sws_kw", lambda: torch.split_with_sizes(x, split_sizes=[3, 1], dim=-1))
    run("sws_bad_sum", lambda: x.split_with_sizes([1, 1], dim=1))
    run("sws_negative", lambda: torch.split_with_sizes(x, [1, -1, 3], dim=1))

    # ---- repeat_interleave
    run("ri_tensor_only", lambda: torch.repeat_interleave(torch.tensor([1, 0, 2])))
    run("ri_tensor_only_size", lambda: torch.repeat_interleave(torch.tensor([1, 0, 2]), output_size=3))
    run("ri_tensor_only_bad_size", lambda: torch.repeat_interleave(torch.tensor([1, 0, 2]), output_size=4))
    run("ri_tensor_only_2d", lambda: torch.repeat_interleave(torch.tensor([[1]])))
    run("ri_tensor_only_0d", lambda: torch.repeat_interleave(torch.tensor(2)))
    run("ri_tensor_only_neg", lambda: torch.repeat_interleave(torch.tensor([1, -1])))
    run("ri_tensor_only_float", lambda: torch.repeat_interleave(torch.tensor([1.0, 2.0])))
    run("ri_tensor_only_int32", lambda: torch.repeat_interleave(torch.tensor([1, 2], dtype=torch.int32)))
    run("ri_int_flat", lambda: torch.repeat_interleave(m, 2))
    run("ri_int_dim", lambda: m.repeat_interleave(2, dim=1))
    run("ri_int_size", lambda: m.repeat_interleave(2, dim=-2, output_size=4))
    run("ri_int_bad_size", lambda: m.repeat_interleave(2, dim=0, output_size=5))
    run("ri_int_neg", lambda: m.repeat_interleave(-1))
    run("ri_int_zero", lambda: m.repeat_interleave(0, 1))
    run("ri_int_dim_range", lambda: m.repeat_interleave(2, dim=2))
    run("ri_int_0dim", lambda: torch.tensor(3.0).repeat_interleave(2))
    run("ri_t_dim0", lambda: m.repeat_interleave(torch.tensor([1, 2]), dim=0))
    run("ri_t_dim1", lambda: m.repeat_interleave(torch.tensor([1, 2, 0]), dim=1))
    run("ri_t_mismatch", lambda: m.repeat_interleave(torch.tensor([1, 2]), dim=1))
    run("ri_t_one", lambda: m.repeat_interleave(torch.tensor([2]), dim=1))
    run("ri_t_0dim", lambda: m.repeat_interleave(torch.tensor(2), dim=1))
    run("ri_t_flat", lambda: m.repeat_interleave(torch.tensor([1, 2, 0, 1, 1, 1])))
    run("ri_t_flat_mismatch", lambda: m.repeat_interleave(torch.tensor([1, 2])))
    run("ri_t_float", lambda: m.repeat_interleave(torch.tensor([1.0, 2.0]), dim=0))
    run("ri_t_kw", lambda: torch.repeat_interleave(m, repeats=torch.tensor([1, 2]), dim=0, output_size=3))

    # ---- rot90
    run("rot90_default", lambda: torch.rot90(m))
    run("rot90_k2", lambda: torch.rot90(m, 2))
    run("rot90_k3", lambda: m.rot90(3))
    run("rot90_k0", lambda: torch.rot90(m, 0))
    run("rot90_kneg_dims", lambda: torch.rot90(m, -1, [1, 0]))
    run("rot90_k5", lambda: torch.rot90(m, k=5, dims=(0, 1)))
    run("rot90_3d", lambda: torch.rot90(x, 1, [0, 2]))
    run("rot90_negdims", lambda: torch.rot90(x, 1, [-1, -3]))
    run("rot90_one_dim", lambda: torch.rot90(m, 1, [0]))
    run("rot90_same", lambda: torch.rot90(m, 1, [0, 0]))
    run("rot90_same_wrapped", lambda: torch.rot90(m, 1, [0, -2]))
    run("rot90_out_of_range", lambda: torch.rot90(m, 1, [0, 2]))
    run("rot90_1d", lambda: torch.rot90(torch.arange(3.0), 1))

    # ---- meshgrid / cartesian_prod
    a, b = torch.arange(2), torch.arange(3)
    run("meshgrid_ij", lambda: torch.meshgrid(a, b, indexing="ij"))
    run("meshgrid_list_xy", lambda: torch.meshgrid([a, b, torch.arange(2)], indexing="xy"))
    run("meshgrid_tuple_ij", lambda: torch.meshgrid((a, b), indexing="ij"))
    run("meshgrid_bad_indexing", lambda: torch.meshgrid(a, b, indexing="foo"))
    run("meshgrid_empty", lambda: torch.meshgrid([], indexing="ij"))
    run("meshgrid_dtypes", lambda: torch.meshgrid(a, torch.arange(3.0), indexing="ij"))
    run("meshgrid_0dim", lambda: torch.meshgrid(torch.tensor(1), a, indexing="ij"))
    run("meshgrid_one_xy", lambda: torch.meshgrid(a, indexing="xy"))
    run("cartesian_prod", lambda: torch.cartesian_prod(a, b))
    run("cartesian_prod3", lambda: torch.cartesian_prod(a, a, torch.tensor([5, 6])))
    run("cartesian_prod_one", lambda: torch.cartesian_prod(a))
    run("cartesian_prod_none", lambda: torch.cartesian_prod())
    run("cartesian_prod_dtypes", lambda: torch.cartesian_prod(a, torch.arange(3.0)))
    run("cartesian_prod_2d", lambda: torch.cartesian_prod(torch.zeros(2, 2), a))
    run("cartesian_prod_0d", lambda: torch.cartesian_prod(torch.tensor(1.0), a))

    # ---- block_diag / diag_embed / diagflat
    run("block_diag", lambda: torch.block_diag(torch.ones(2, 2), torch.tensor(5.0), torch.arange(3.0)))
    run("block_diag_none", lambda: torch.block_diag())
    run("block_diag_3d", lambda: torch.block_diag(torch.ones(2, 2), torch.ones(2, 2, 2)))
    run("block_diag_promote", lambda: torch.block_diag(torch.ones(2, 2, dtype=torch.int32), torch.ones(1, dtype=torch.float64)))
    run("block_diag_ints", lambda: torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3], [4]])))
    run("block_diag_empty_blocks", lambda: torch.block_diag(torch.ones(2, 0), torch.ones(0, 3)))
    run("diag_embed", lambda: torch.diag_embed(m))
    run("diag_embed_dims", lambda: torch.diag_embed(m, 1, 0, 2))
    run("diag_embed_neg", lambda: torch.diag_embed(m, -1, -1, 0))
    run("diag_embed_method", lambda: m.diag_embed(offset=1, dim1=-2, dim2=-1))
    run("diag_embed_same", lambda: torch.diag_embed(m, 0, 1, 1))
    run("diag_embed_range", lambda: torch.diag_embed(m, 0, 3, 1))
    run("diag_embed_0dim", lambda: torch.diag_embed(torch.tensor(2.0)))
    run("diag_embed_int", lambda: torch.diag_embed(torch.tensor([1, 2]), -2))
    run("diag_embed_inf", lambda: torch.diag_embed(torch.tensor([float("inf"), float("nan")])))
    run("diagflat", lambda: torch.diagflat(torch.arange(3.0)))
    run("diagflat_offset", lambda: torch.diagflat(m, 1))
    run("diagflat_negoffset", lambda: m.diagflat(offset=-2))
    run("diagflat_0dim", lambda: torch.diagflat(torch.tensor(3.0)))

    # ---- sum_to_size
    run("sts_row", lambda: m.sum_to_size(1, 3))
    run("sts_col", lambda: m.sum_to_size((2, 1)))
    run("sts_lead", lambda: m.sum_to_size(3))
    run("sts_same", lambda: m.sum_to_size(2, 3))
    run("sts_scalar", lambda: m.sum_to_size([]))
    run("sts_bad", lambda: m.sum_to_size(4))
    run("sts_too_many", lambda: m.sum_to_size(1, 1, 3))
    run("sts_kw", lambda: x.sum_to_size(size=(3, 1)))
    run("sts_int_scalar", lambda: torch.tensor(3, dtype=torch.int32).sum_to_size(()))
    run("sts_int_same", lambda: torch.ones(3, dtype=torch.int32).sum_to_size(3))
    run("sts_int", lambda: torch.ones(2, 3, dtype=torch.int32).sum_to_size(3))

    # ---- unfold
    run("unfold_1", lambda: v.unfold(0, 2, 1))
    run("unfold_step", lambda: v.unfold(0, 3, 2))
    run("unfold_2d", lambda: m.unfold(1, 2, 1))
    run("unfold_big_step", lambda: m.unfold(-1, 3, 5))
    run("unfold_dim0", lambda: x.unfold(0, 1, 1))
    run("unfold_too_big", lambda: v.unfold(0, 8, 1))
    run("unfold_size0", lambda: v.unfold(0, 0, 1))
    run("unfold_step0", lambda: v.unfold(0, 2, 0))
    run("unfold_size_neg", lambda: v.unfold(0, -1, 1))
    run("unfold_dim_range", lambda: v.unfold(1, 2, 1))
    run("unfold_0dim", lambda: torch.tensor(3.0).unfold(0, 1, 1))
    run("unfold_0dim_big", lambda: torch.tensor(3.0).unfold(0, 2, 1))
    run("unfold_kw", lambda: v.unfold(dimension=0, size=2, step=3))
    run("unfold_noncontig", lambda: m.t().unfold(0, 2, 1))

    # ---- as_strided / empty_strided
    run("as_strided", lambda: torch.as_strided(m, (2, 2), (1, 2)))
    run("as_strided_offset", lambda: torch.as_strided(m, (2, 2), (1, 2), 1))
    run("as_strided_overlap", lambda: m.as_strided((2, 3), (1, 1)))
    run("as_strided_oob", lambda: m.as_strided((2, 3), (3, 1), 1))
    run("as_strided_len", lambda: m.as_strided((2, 3), (3,)))
    run("as_strided_negstride", lambda: m.as_strided((2, 3), (3, -1)))
    run("as_strided_negsize", lambda: m.as_strided((2, -3), (3, 1)))
    run("as_strided_negoffset", lambda: m.as_strided((2, 3), (3, 1), -1))
    run("as_strided_view_offset", lambda: m[1].as_strided((2,), (1,)))
    run("as_strided_whole_storage", lambda: m[1].as_strided((6,), (1,), 0))
    run("as_strided_empty_far", lambda: m.as_strided((0, 5), (1, 100), 7))
    run("as_strided_kw", lambda: m.as_strided(size=(2,), stride=(2,), storage_offset=1))
    run("empty_strided_shape", lambda: [list(t.stride()) + [t.dtype == torch.float32] for t in [torch.empty_strided((2, 3), (1, 2))]])
    run("empty_strided_int", lambda: [list(t.stride()) + [t.dtype == torch.int32] for t in [torch.empty_strided((2, 3), (4, 2), dtype=torch.int32)]])
    run("empty_strided_len", lambda: torch.empty_strided((2, 3), (1,)))
    run("empty_strided_negstride", lambda: torch.empty_strided((2, 3), (1, -2)))
    run("empty_strided_negsize", lambda: torch.empty_strided((2, -3), (1, 2)))
    run("empty_strided_rg", lambda: torch.empty_strided((2,), (1,), requires_grad=True).requires_grad)

    # ---- scatter_reduce / index_reduce
    sv = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    si = torch.tensor([0, 1, 0, 1, 2, 1])
    sin = torch.tensor([1.0, 2.0, 3.0, 4.0])
    for red in ["sum", "prod", "mean", "amax", "amin"]:
        for inc in [True, False]:
            run(f"sr_{red}_{inc}", lambda red=red, inc=inc: sin.scatter_reduce(0, si, sv, reduce=red, include_self=inc))
    ints = torch.tensor([-1, 2, 3, 4, -5, 6])
    run("sr_int_mean", lambda: torch.scatter_reduce(torch.tensor([1, 2, 3, 4]), 0, si, ints, "mean"))
    run("sr_int_mean_noself", lambda: torch.tensor([1, 2, 3, 4]).scatter_reduce(0, si, ints, "mean", include_self=False))
    run("sr_int_amax_noself", lambda: torch.tensor([1, 2, 3, 4]).scatter_reduce(0, si, ints, "amax", include_self=False))
    run("sr_bool_sum", lambda: torch.tensor([True, False]).scatter_reduce(0, torch.tensor([0, 1]), torch.tensor([True, True]), "sum"))
    run("sr_bool_mean", lambda: torch.tensor([True, False]).scatter_reduce(0, torch.tensor([0, 1]), torch.tensor([True, True]), "mean"))
    run("sr_bad_reduce", lambda: torch.scatter_reduce(sin, 0, si, sv, "foo"))
    run("sr_dtype", lambda: sin.scatter_reduce(0, si, sv.double(), "sum"))
    run("sr_int32_index", lambda: sin.scatter_reduce(0, si.int(), sv, "sum"))
    run("sr_nan", lambda: sin.scatter_reduce(0, si, torch.tensor([float("nan"), 2, 3, 4, 5, 6]), "amax"))
    run("sr_oob", lambda: sin.scatter_reduce(0, torch.tensor([5]), torch.tensor([1.0]), "sum"))
    run("sr_inplace", lambda: sin.clone().scatter_reduce_(0, si, sv, "prod", include_self=False))
    run("sr_2d", lambda: torch.zeros(2, 3).scatter_reduce(1, torch.tensor([[0, 0], [2, 1]]), torch.ones(2, 2), "sum"))
    run("sr_out", lambda: torch.scatter_reduce(sin, 0, si, sv, "mean", out=torch.zeros(4)))
    xr = torch.arange(6.0).reshape(3, 2)
    rsrc = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    ridx = torch.tensor([0, 2, 0, 2])
    for red in ["prod", "mean", "amax", "amin"]:
        for inc in [True, False]:
            run(f"ir_{red}_{inc}", lambda red=red, inc=inc: xr.index_reduce(0, ridx, rsrc, red, include_self=inc))
    run("ir_sum", lambda: xr.index_reduce(0, ridx, rsrc, "sum"))
    run("ir_float_index", lambda: xr.index_reduce(0, ridx.float(), rsrc, "prod"))
    run("ir_int32_index", lambda: torch.index_reduce(xr, 0, ridx.int(), rsrc, "prod"))
    run("ir_count", lambda: xr.index_reduce(0, ridx[:3], rsrc, "prod"))
    run("ir_2d_index", lambda: xr.index_reduce(0, ridx.reshape(2, 2), rsrc, "prod"))
    run("ir_dtype", lambda: xr.index_reduce(0, ridx, rsrc.double(), "prod"))
    run("ir_oob", lambda: xr.index_reduce(0, torch.tensor([0, 5, 0, 1]), rsrc, "prod"))
    run("ir_neg_index", lambda: xr.index_reduce(0, torch.tensor([0, -1, 0, 1]), rsrc, "prod"))
    run("ir_dim1", lambda: xr.index_reduce(1, torch.tensor([1, 1]), torch.tensor([[9.0, 0.0], [1.0, 7.0], [5.0, 6.0]]), "amax"))
    run("ir_shape", lambda: xr.index_reduce(0, ridx, torch.ones(4, 3), "amax"))
    run("ir_dim_range", lambda: xr.index_reduce(2, ridx, rsrc, "amax"))
    run("ir_int_mean", lambda: torch.arange(6).reshape(3, 2).index_reduce(0, ridx, torch.tensor([[-1, 2], [3, 4], [-6, 6], [7, 8]]), "mean"))
    run("ir_nan", lambda: torch.tensor([1.0, 2.0]).index_reduce(0, torch.tensor([0, 0]), torch.tensor([float("nan"), 5.0]), "amin"))
    run("ir_0dim", lambda: torch.tensor(1.0).index_reduce(0, torch.tensor([0]), torch.tensor([3.0]), "prod"))
    run("ir_0dim_both", lambda: torch.tensor(2.0).index_reduce(0, torch.tensor([0]), torch.tensor(3.0), "prod"))
    run("ir_bool", lambda: torch.tensor([True]).index_reduce(0, torch.tensor([0]), torch.tensor([True]), "prod"))
    run("ir_inplace", lambda: xr.clone().index_reduce_(0, ridx, rsrc, "amax", include_self=False))
    run("ir_out", lambda: torch.index_reduce(xr, 0, ridx, rsrc, "amin", out=torch.zeros(3, 2)))

    # ---- select_scatter / slice_scatter / diagonal_scatter
    z = torch.zeros(3, 4)
    run("sel_sc", lambda: torch.select_scatter(z, torch.ones(4), 0, 1))
    run("sel_sc_neg", lambda: torch.select_scatter(z, torch.arange(3.0), 1, -1))
    run("sel_sc_shape", lambda: torch.select_scatter(z, torch.ones(3), 0, 1))
    run("sel_sc_dtype", lambda: torch.select_scatter(z, torch.arange(4, dtype=torch.float64), 0, 1))
    run("sel_sc_int", lambda: torch.select_scatter(z, torch.arange(4), 0, 1))
    run("sel_sc_bcast", lambda: torch.select_scatter(z, torch.ones(1), 0, 1))
    run("sel_sc_index", lambda: torch.select_scatter(z, torch.ones(4), 0, 3))
    run("sel_sc_dim", lambda: torch.select_scatter(z, torch.ones(4), 2, 0))
    run("sel_sc_kw", lambda: z.select_scatter(src=torch.ones(4), dim=0, index=0))
    run("sel_sc_0dim", lambda: torch.select_scatter(torch.tensor(1.0), torch.tensor(2.0), 0, 0))
    run("sl_sc", lambda: torch.slice_scatter(z, torch.ones(2, 4), 0, 1))
    run("sl_sc_step", lambda: torch.slice_scatter(z, torch.arange(6.0).reshape(3, 2), 1, 0, None, 2))
    run("sl_sc_negstart", lambda: torch.slice_scatter(z, torch.ones(3, 2), dim=1, start=-2))
    run("sl_sc_step2", lambda: torch.slice_scatter(z, torch.ones(3, 1), dim=1, start=1, end=3, step=2))
    run("sl_sc_shape", lambda: torch.slice_scatter(z, torch.ones(3, 3), dim=1, start=1, end=3))
    run("sl_sc_empty", lambda: torch.slice_scatter(z, torch.ones(3, 0), dim=1, start=5, end=9))
    run("sl_sc_step0", lambda: torch.slice_scatter(z, torch.ones(3, 2), dim=1, start=1, end=3, step=0))
    run("sl_sc_all", lambda: z.slice_scatter(torch.ones(3, 4)))
    run("sl_sc_backwards", lambda: torch.slice_scatter(z, torch.ones(3, 1), 1, 3, 1))
    run("dg_sc", lambda: torch.diagonal_scatter(z, torch.arange(3.0)))
    run("dg_sc_offset", lambda: torch.diagonal_scatter(z, torch.ones(3), 1))
    run("dg_sc_dims", lambda: z.diagonal_scatter(torch.arange(3.0), -1, 1, 0))
    run("dg_sc_shape", lambda: torch.diagonal_scatter(z, torch.ones(2)))
    run("dg_sc_same", lambda: torch.diagonal_scatter(z, torch.ones(3), 0, 0, 0))
    run("dg_sc_3d", lambda: torch.diagonal_scatter(torch.zeros(2, 2, 3), torch.ones(3, 2), 0, 0, 1))

    # ---- put / masked_scatter
    pt = torch.arange(6.0).reshape(2, 3)
    run("put", lambda: pt.put(torch.tensor([0, 5, -1]), torch.tensor([10.0, 20, 30])))
    run("put_acc", lambda: pt.put(torch.tensor([0, 0]), torch.tensor([10.0, 20]), accumulate=True))
    run("put_2d_index", lambda: torch.put(pt, torch.tensor([[1], [2]]), torch.tensor([[10.0], [20]])))
    run("put_noncontig", lambda: pt.t().put(torch.tensor([1, 4]), torch.tensor([-1.0, -2.0])))
    run("put_oob", lambda: pt.put(torch.tensor([6]), torch.tensor([1.0])))
    run("put_oob_neg", lambda: pt.put(torch.tensor([-7]), torch.tensor([1.0])))
    run("put_count", lambda: pt.put(torch.tensor([1, 2]), torch.tensor([1.0])))
    run("put_float_index", lambda: pt.put(torch.tensor([1.0]), torch.tensor([1.0])))
    run("put_dtype", lambda: pt.put(torch.tensor([1]), torch.tensor([1.0], dtype=torch.float64)))
    run("put_int32_index", lambda: pt.put(torch.tensor([1], dtype=torch.int32), torch.tensor([1.0])))
    run("put_inplace_acc", lambda: pt.clone().put_(torch.tensor([1]), torch.tensor([7.0]), True))
    run("put_inplace_kw", lambda: pt.clone().put_(index=torch.tensor([1]), source=torch.tensor([7.0]), accumulate=False))
    run("put_0dim", lambda: torch.tensor(5.0).put(torch.tensor([0]), torch.tensor([7.0])))
    run("put_empty", lambda: torch.zeros(0).put(torch.tensor([], dtype=torch.long), torch.tensor([])))
    run("put_into_empty", lambda: torch.zeros(0).put(torch.tensor([0]), torch.tensor([1.0])))
    mz = torch.zeros(2, 3)
    mk = torch.tensor([[True, False, True], [False, True, False]])
    msrc = torch.arange(1.0, 7.0).reshape(2, 3)
    run("ms", lambda: mz.masked_scatter(mk, msrc))
    run("ms_fn", lambda: torch.masked_scatter(mz, mk, msrc))
    run("ms_bcast_mask", lambda: mz.masked_scatter(torch.tensor([True, False, True]), msrc))
    run("ms_bcast_self", lambda: torch.zeros(3).masked_scatter(torch.tensor([[True, False, True], [False, True, True]]), msrc))
    run("ms_short", lambda: mz.masked_scatter(mk, torch.arange(2.0)))
    run("ms_exact", lambda: mz.masked_scatter(mk, torch.arange(3.0)))
    run("ms_int_mask", lambda: mz.masked_scatter(mk.int(), msrc))
    run("ms_dtype", lambda: mz.masked_scatter(mk, msrc.double()))
    run("ms_big_mask", lambda: mz.masked_scatter(torch.ones(3, 2, 3, dtype=torch.bool), msrc))
    run("ms_inplace", lambda: mz.clone().masked_scatter_(mk, msrc))
    run("ms_bad_bcast", lambda: mz.masked_scatter(torch.ones(4, dtype=torch.bool), msrc))
    run("ms_0dim_mask", lambda: torch.zeros(3).masked_scatter(torch.tensor(True), torch.tensor([5.0, 6, 7])))
    run("ms_noncontig", lambda: mz.t().masked_scatter(mk.t(), msrc))

    # ---- gradients (float64 leaves, a weighted sum so every element's gradient differs)
    def grad_of(f, *shape):
        n = 1
        for s in shape:
            n *= s
        leaf = (torch.arange(n, dtype=torch.float64) + 1).reshape(*shape).requires_grad_()
        r = f(leaf)
        rs = list(r) if isinstance(r, (tuple, list)) else [r]
        total = 0
        for k, t in enumerate(rs):
            w = torch.arange(t.numel(), dtype=torch.float64).reshape(t.shape) + k + 1
            total = total + (t * w).sum()
        total.backward()
        return [leaf.grad.tolist(), [t.grad_fn.name() if t.grad_fn is not None else None for t in rs][:1]]

    run("grad_tensor_split", lambda: grad_of(lambda t: t.tensor_split([1, 3], 1), 2, 4))
    run("grad_hsplit", lambda: grad_of(lambda t: torch.hsplit(t, 2), 2, 4))
    run("grad_repeat_interleave_int", lambda: grad_of(lambda t: t.repeat_interleave(2, dim=1), 2, 3))
    run("grad_repeat_interleave_t", lambda: grad_of(lambda t: t.repeat_interleave(torch.tensor([0, 3]), dim=0), 2, 3))
    run("grad_rot90", lambda: grad_of(lambda t: torch.rot90(t, 1), 2, 3)[0])
    run("grad_rot90_k2", lambda: grad_of(lambda t: torch.rot90(t, 2), 2, 3)[0])
    run("grad_meshgrid", lambda: grad_of(lambda t: torch.meshgrid(t, t[:2], indexing="xy"), 3)[0])
    run("grad_cartesian_prod", lambda: grad_of(lambda t: torch.cartesian_prod(t, t), 3)[0])
    run("grad_block_diag", lambda: grad_of(lambda t: torch.block_diag(t, t[0]), 2, 2)[0])
    run("grad_diag_embed", lambda: grad_of(lambda t: torch.diag_embed(t, 1, 0, 2), 2, 3)[0])
    run("grad_diagflat", lambda: grad_of(lambda t: torch.diagflat(t, -1), 2, 2)[0])
    run("grad_sum_to_size", lambda: grad_of(lambda t: t.sum_to_size(1, 3), 2, 3))
    run("grad_unfold", lambda: grad_of(lambda t: t.unfold(1, 3, 2), 2, 7))
    run("grad_unfold_0dim", lambda: grad_of(lambda t: t.reshape(()).unfold(0, 1, 1), 1))

    def scatter_grads(f, src_shape):
        leaf = (torch.arange(12, dtype=torch.float64) + 1).reshape(3, 4).requires_grad_()
        n = 1
        for k in src_shape:
            n *= k
        src = (torch.arange(n, dtype=torch.float64) - 2).reshape(src_shape).requires_grad_()
        r = f(leaf, src)
        w = torch.arange(12, dtype=torch.float64).reshape(3, 4) + 1
        (r * w).sum().backward()
        return [leaf.grad.tolist(), src.grad.tolist(), r.grad_fn.name()]

    def put_grads(acc):
        leaf = (torch.arange(6, dtype=torch.float64) + 1).reshape(2, 3).requires_grad_()
        src = torch.tensor([5.0, -1.0], dtype=torch.float64, requires_grad=True)
        r = leaf.put(torch.tensor([4, 0]), src, accumulate=acc)
        (r * (torch.arange(6, dtype=torch.float64).reshape(2, 3) + 1)).sum().backward()
        return [leaf.grad.tolist(), src.grad.tolist(), r.grad_fn.name()]

    run("grad_put", lambda: put_grads(False))
    run("grad_put_acc", lambda: put_grads(True))

    def ms_grads():
        leaf = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
        src = (torch.arange(8, dtype=torch.float64) + 1).reshape(2, 4).requires_grad_()
        r = leaf.masked_scatter(mk, src)
        (r * (torch.arange(6, dtype=torch.float64).reshape(2, 3) + 1)).sum().backward()
        return [leaf.grad.tolist(), src.grad.tolist(), r.grad_fn.name()]

    run("grad_masked_scatter", ms_grads)

    run("grad_select_scatter", lambda: scatter_grads(lambda t, s: torch.select_scatter(t, s, 1, -2), [3]))
    run("grad_slice_scatter", lambda: scatter_grads(lambda t, s: torch.slice_scatter(t, s, 1, 0, None, 2), [3, 2]))
    run("grad_slice_scatter_rows", lambda: scatter_grads(lambda t, s: torch.slice_scatter(t, s, 0, -2), [2, 4]))
    run("grad_diagonal_scatter", lambda: scatter_grads(lambda t, s: torch.diagonal_scatter(t, s, 1), [3]))
    run("grad_diagonal_scatter_neg", lambda: scatter_grads(lambda t, s: torch.diagonal_scatter(t, s, -1, 1, 0), [3]))

    def double_unfold():
        leaf = torch.arange(5, dtype=torch.float64).requires_grad_()
        (g,) = torch.autograd.grad((leaf.unfold(0, 2, 1) ** 2).sum(), leaf, create_graph=True)
        g.sum().backward()
        return [g.tolist(), leaf.grad.tolist()]
    run("grad_unfold_double", double_unfold)

    def inplace_piece():
        leaf = torch.arange(6, dtype=torch.float64).requires_grad_()
        y = leaf * 1
        p = y.tensor_split(2)[0]
        p.mul_(3)
        y.sum().backward()
        return [leaf.grad.tolist(), p.grad_fn.name()]
    run("tensor_split_inplace_piece", inplace_piece)
    return out
