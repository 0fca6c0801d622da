//! src/core/ops/nn/conv.rs: convolution (PyTorch: `native/Convolution.cpp`,
//! `ConvolutionMM2d.cpp`, `ConvolutionMM3d.cpp`) — `convolution` (the one entry a backward
//! attaches to), `conv1d`, `conv2d` and `conv3d` with int or string (`"same"`, `"valid"`)
//! padding, `conv_transpose1d/2d/3d`. The kernel is im2col (unfold the input into columns, one
//! loop for every rank: Note [conv as 3-d]) and the core's batched `matmul` per group.

use super::{contiguous_of, elems, expand_param, float_dispatch, new_with, Float};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

fn fmt_sizes(s: &[usize]) -> String {
    format!(
        "[{}]",
        s.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The spatial geometry of a 1-d, 2-d or 3-d convolution seen as 3-d (the missing leading
/// dims of size 1, kernel 1, stride 1, padding 0, dilation 1): input sizes `i`, kernel `k`,
/// stride `s`, padding `p`, dilation `d`, output sizes `o`, each (depth, height, width). One
/// generic loop serves every rank (Note [conv as 3-d] in backward.rs).
#[derive(Clone, Copy, Debug)]
pub(super) struct Win3 {
    pub(super) i: [usize; 3],
    pub(super) k: [usize; 3],
    pub(super) s: [usize; 3],
    pub(super) p: [usize; 3],
    pub(super) d: [usize; 3],
    pub(super) o: [usize; 3],
}

impl Win3 {
    /// The number of output positions (the columns' length).
    pub(super) fn l(&self) -> usize {
        self.o.iter().product()
    }
    /// The number of kernel taps.
    pub(super) fn taps(&self) -> usize {
        self.k.iter().product()
    }
    /// The input position along axis `a` of output position `o` and kernel tap `t`, or `None`
    /// when it falls in the padding.
    #[inline(always)]
    pub(super) fn at(&self, a: usize, o: usize, t: usize) -> Option<usize> {
        let v = (o * self.s[a] + t * self.d[a]) as isize - self.p[a] as isize;
        (v >= 0 && v < self.i[a] as isize).then_some(v as usize)
    }
}

/// `v` (one entry per spatial dim of a `sp`-d convolution, `sp <= 3`) as 3 entries, the
/// missing leading ones `fill`.
pub(super) fn as3(v: &[usize], fill: usize) -> [usize; 3] {
    let mut out = [fill; 3];
    out[3 - v.len()..].copy_from_slice(v);
    out
}

/// im2col of a contiguous `(N, C, D, H, W)` input (any rank seen as 3-d, see [`Win3`]):
/// columns `(N, C * kd * kh * kw, od * oh * ow)`, zero where a tap falls in the padding.
pub(super) fn im2col<T: Float>(x: &[T], n: usize, c: usize, g: &Win3, cols: &mut [T]) {
    let l = g.l();
    let vol: usize = g.i.iter().product();
    let rows = c * g.taps();
    let [_, ih, iw] = g.i;
    let [od, oh, ow] = g.o;
    for b in 0..n {
        crate::core::interrupt::checkpoint();
        for ch in 0..c {
            let vol_x = &x[(b * c + ch) * vol..(b * c + ch + 1) * vol];
            for tz in 0..g.k[0] {
                for ty in 0..g.k[1] {
                    for tx in 0..g.k[2] {
                        let r = ((ch * g.k[0] + tz) * g.k[1] + ty) * g.k[2] + tx;
                        let dst = &mut cols[(b * rows + r) * l..(b * rows + r + 1) * l];
                        for oz in 0..od {
                            let slab = &mut dst[oz * oh * ow..(oz + 1) * oh * ow];
                            let Some(iz) = g.at(0, oz, tz) else {
                                slab.iter_mut().for_each(|v| *v = T::ZERO);
                                continue;
                            };
                            let plane = &vol_x[iz * ih * iw..(iz + 1) * ih * iw];
                            for oy in 0..oh {
                                let row = &mut slab[oy * ow..(oy + 1) * ow];
                                let Some(iy) = g.at(1, oy, ty) else {
                                    row.iter_mut().for_each(|v| *v = T::ZERO);
                                    continue;
                                };
                                let src = &plane[iy * iw..(iy + 1) * iw];
                                for (ox, v) in row.iter_mut().enumerate() {
                                    *v = match g.at(2, ox, tx) {
                                        Some(ix) => src[ix],
                                        None => T::ZERO,
                                    };
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The flat positions `(N, C * taps, L)` the im2col of an `(N, C, *)` image of `g.i` reads,
/// each + 1, and 0 where a window reads padding: the float64 im2col of the element indices
/// (exact below 2^53 elements), as int64. Integer convolutions gather or scatter through it,
/// one code path for every integer dtype (they are rare: not monomorphised per dtype).
pub(super) fn im2col_positions(n: usize, c: usize, g: &Win3) -> Result<Tensor> {
    let vol: usize = g.i.iter().product();
    let ids: Vec<f64> = (1..=n * c * vol).map(|v| v as f64).collect();
    let cols = new_with::<f64>(&[n, c * g.taps(), g.l()], |cols| {
        im2col(&ids, n, c, g, cols);
        Ok(())
    })?;
    cols.to_dtype(DType::Int64)
}

/// The im2col columns `(N, C * taps, L)` of an integer `input` (zeros where a window reads
/// padding), gathered through [`im2col_positions`].
fn int_im2col(input: &Tensor, n: usize, c: usize, g: &Win3) -> Result<Tensor> {
    let pos = im2col_positions(n, c, g)?;
    let flat = ops::cat(
        &[
            ops::zeros(&[1], Some(input.dtype()))?,
            ops::reshape(input, &[-1])?,
        ],
        0,
    )?;
    let picked = ops::index_select(&flat, 0, &ops::reshape(&pos, &[-1])?)?;
    ops::reshape(&picked, &shape_of(pos.sizes()))
}

fn shape_of(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&x| x as i64).collect()
}

/// `convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
/// groups)`: the 1-d, 2-d or 3-d convolution (cross-correlation) of batched `input` `(N, C, *)` with
/// `weight` `(O, C / groups, *k)`; with `transposed`, its adjoint (`weight` `(C, O / groups,
/// *k)`, see [`conv_transpose`]). Mirrors `torch.convolution`.
#[allow(clippy::too_many_arguments)]
pub fn convolution(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
    groups: i64,
) -> Result<Tensor> {
    if transposed {
        return conv_transpose(
            input,
            weight,
            bias,
            stride,
            padding,
            dilation,
            output_padding,
            groups,
        );
    }
    let d = weight.dim();
    if !(3..=5).contains(&d) || input.dim() != d {
        return Err(Error::runtime(format!(
            "Expected {d}-dimensional input for {d}-dimensional weight {}, but got {}-dimensional input of size {} instead",
            fmt_sizes(weight.sizes()),
            input.dim(),
            fmt_sizes(input.sizes())
        )));
    }
    let sp = d - 2;
    let stride = expand_param("convolution", "stride", stride, sp, None)?;
    let padding = expand_param("convolution", "padding", padding, sp, None)?;
    let dilation = expand_param("convolution", "dilation", dilation, sp, None)?;
    if stride.iter().any(|&s| s <= 0) {
        return Err(Error::runtime("non-positive stride is not supported"));
    }
    if [&stride, &padding, &dilation]
        .iter()
        .any(|v| v.iter().any(|&x| x > super::MAX_PARAM))
    {
        return Err(Error::runtime(format!(
            "convolution: stride, padding and dilation must be at most {}",
            super::MAX_PARAM
        )));
    }
    if weight.sizes()[2..].contains(&0) {
        return Err(Error::runtime(format!(
            "convolution: weight of size {} has a zero-size kernel dimension",
            fmt_sizes(weight.sizes())
        )));
    }
    if padding.iter().any(|&p| p < 0) {
        return Err(Error::runtime("negative padding is not supported"));
    }
    if dilation.iter().any(|&p| p <= 0) {
        return Err(Error::runtime("dilation should be greater than zero"));
    }
    if groups <= 0 {
        return Err(Error::runtime("non-positive groups is not supported"));
    }
    let g = groups as usize;
    let (o, cg) = (weight.sizes()[0], weight.sizes()[1]);
    let c = input.sizes()[1];
    if o % g != 0 {
        return Err(Error::runtime(format!(
            "Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got weight of size {} instead",
            fmt_sizes(weight.sizes())
        )));
    }
    if cg * g != c {
        return Err(Error::runtime(format!(
            "Given groups={g}, weight of size {}, expected input{} to have {} channels, but got {c} channels instead",
            fmt_sizes(weight.sizes()),
            fmt_sizes(input.sizes()),
            cg * g
        )));
    }
    if let Some(b) = bias {
        if b.dim() != 1 || b.numel() != o {
            return Err(Error::runtime(format!(
                "Given weight of size {}, expected bias to be 1-dimensional with {o} elements, but got bias of size {} instead",
                fmt_sizes(weight.sizes()),
                fmt_sizes(b.sizes())
            )));
        }
    }
    if input.dtype() != weight.dtype() {
        return Err(Error::runtime(format!(
            "Input type ({}) and weight type ({}) should be the same",
            input.dtype().scalar_type_name(),
            weight.dtype().scalar_type_name()
        )));
    }
    if let Some(b) = bias {
        if b.dtype() != input.dtype() {
            return Err(Error::runtime(format!(
                "Input type ({}) and bias type ({}) should be the same",
                input.dtype().type_meta_name(),
                b.dtype().type_meta_name()
            )));
        }
    }
    // Every rank as 3-d (Note [conv as 3-d]).
    let u = |v: &[i64]| v.iter().map(|&x| x as usize).collect::<Vec<_>>();
    let mut g3 = Win3 {
        i: as3(&input.sizes()[2..], 1),
        k: as3(&weight.sizes()[2..], 1),
        s: as3(&u(&stride), 1),
        p: as3(&u(&padding), 0),
        d: as3(&u(&dilation), 1),
        o: [1; 3],
    };
    let eff: Vec<usize> = (0..3).map(|a| g3.d[a] * (g3.k[a] - 1) + 1).collect();
    if (0..3).any(|a| g3.i[a] + 2 * g3.p[a] < eff[a]) {
        let show = |v: &mut dyn Iterator<Item = usize>| {
            v.map(|x| x.to_string()).collect::<Vec<_>>().join(" x ")
        };
        let padded = show(&mut (3 - sp..3).map(|a| g3.i[a] + 2 * g3.p[a]));
        let kernel = show(&mut (3 - sp..3).map(|a| eff[a]));
        return Err(Error::runtime(format!(
            "Calculated padded input size per channel: ({padded}). Kernel size: ({kernel}). Kernel size can't be greater than actual input size"
        )));
    }
    g3.o = std::array::from_fn(|a| (g3.i[a] + 2 * g3.p[a] - eff[a]) / g3.s[a] + 1);
    let n = input.sizes()[0];
    let k = cg * g3.taps();
    let l = g3.l();
    let og = o / g;
    if !input.dtype().is_floating_point() {
        // torch's CPU convolution takes every integer dtype (wrapping on overflow), not bool.
        if input.dtype() == DType::Bool {
            let kernel = if sp == 3 {
                "compute_columns3d"
            } else {
                "slow_conv2d_cpu"
            };
            return Err(super::not_float(kernel, DType::Bool));
        }
        let cols = int_im2col(input, n, c, &g3)?;
        let cols = ops::reshape(&cols, &[n as i64, g as i64, k as i64, l as i64])?;
        let wg = ops::reshape(weight, &[g as i64, og as i64, k as i64])?;
        let y = ops::matmul(&wg, &cols)?;
        let mut shape = vec![n as i64, o as i64];
        shape.extend(g3.o[3 - sp..].iter().map(|&x| x as i64));
        let y = ops::reshape(&y, &shape)?;
        return match bias {
            None => Ok(y),
            Some(b) => {
                let mut bs = vec![1i64, o as i64];
                bs.extend(std::iter::repeat_n(1, sp));
                ops::add(&y, &ops::reshape(b, &bs)?, Scalar::Int(1))
            }
        };
    }
    let out = float_dispatch!(input.dtype(), "slow_conv2d_cpu", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let cols = new_with::<T>(&[n, c * g3.taps(), l], |cols| {
            im2col(xs, n, c, &g3, cols);
            Ok(())
        })?;
        // (N, G, K, L) @ (G, Og, K)^T: per group, W_g (Og, K) @ cols_g (K, L).
        let cols = ops::reshape(&cols, &[n as i64, g as i64, k as i64, l as i64])?;
        let wg = ops::reshape(weight, &[g as i64, og as i64, k as i64])?;
        let y = ops::matmul(&wg, &cols)?; // (N, G, Og, L)
        Ok::<Tensor, Error>(y)
    })?;
    let mut shape = vec![n as i64, o as i64];
    shape.extend(g3.o[3 - sp..].iter().map(|&x| x as i64));
    let y = ops::reshape(&out, &shape)?;
    match bias {
        None => Ok(y),
        Some(b) => {
            let mut bs = vec![1i64, o as i64];
            bs.extend(std::iter::repeat_n(1, sp));
            ops::add(&y, &ops::reshape(b, &bs)?, Scalar::Int(1))
        }
    }
}

/// The transposed convolution (`convolution(..., transposed=True)`): the adjoint of the
/// convolution of an output-sized image by `weight` `(C, O / groups, *k)`, i.e. each input
/// element's contribution `W^T x` scattered back over its window (col2im), the output size
/// `(in - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1`. torch's
/// `slow_conv_transpose2d` checks and texts.
#[allow(clippy::too_many_arguments)]
fn conv_transpose(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    output_padding: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let d = weight.dim();
    if !(3..=5).contains(&d) || input.dim() != d {
        return Err(Error::runtime(format!(
            "Expected {d}-dimensional input for {d}-dimensional weight {}, but got {}-dimensional input of size {} instead",
            fmt_sizes(weight.sizes()),
            input.dim(),
            fmt_sizes(input.sizes())
        )));
    }
    let sp = d - 2;
    let op = "conv_transpose";
    let stride = expand_param(op, "stride", stride, sp, None)?;
    let padding = expand_param(op, "padding", padding, sp, None)?;
    let dilation = expand_param(op, "dilation", dilation, sp, None)?;
    let out_pad = expand_param(op, "output_padding", output_padding, sp, None)?;
    if stride.iter().any(|&s| s <= 0) {
        return Err(Error::runtime("non-positive stride is not supported"));
    }
    if [&stride, &padding, &dilation, &out_pad]
        .iter()
        .any(|v| v.iter().any(|&x| x > super::MAX_PARAM))
    {
        return Err(Error::runtime(format!(
            "convolution: stride, padding, dilation and output_padding must be at most {}",
            super::MAX_PARAM
        )));
    }
    if padding.iter().any(|&p| p < 0) {
        return Err(Error::runtime("negative padding is not supported"));
    }
    if out_pad.iter().any(|&p| p < 0) {
        return Err(Error::runtime("negative output_padding is not supported"));
    }
    if dilation.iter().any(|&p| p <= 0) {
        return Err(Error::runtime("dilation should be greater than zero"));
    }
    if weight.sizes()[2..].contains(&0) {
        return Err(Error::runtime(format!(
            "convolution: weight of size {} has a zero-size kernel dimension",
            fmt_sizes(weight.sizes())
        )));
    }
    // torch's texts name (depth,) height and width.
    if (0..sp).any(|a| out_pad[a] >= stride[a] && out_pad[a] >= dilation[a]) {
        let names = ["depth", "height", "width"];
        let part = |what: &str, v: &[i64]| {
            let full: Vec<i64> = if sp == 1 {
                vec![if what == "output_padding" { 0 } else { 1 }, v[0]]
            } else {
                v.to_vec()
            };
            let first = 3 - full.len();
            full.iter()
                .enumerate()
                .map(|(i, x)| format!("{what}_{}: {x}", names[first + i]))
                .collect::<Vec<_>>()
                .join(" ")
        };
        return Err(Error::runtime(format!(
            "output padding must be smaller than either stride or dilation, but got {} {} {}",
            part("output_padding", &out_pad),
            part("stride", &stride),
            part("dilation", &dilation)
        )));
    }
    if groups <= 0 {
        return Err(Error::runtime("non-positive groups is not supported"));
    }
    let g = groups as usize;
    let (ci, og) = (weight.sizes()[0], weight.sizes()[1]);
    let c = input.sizes()[1];
    if ci % g != 0 {
        return Err(Error::runtime(format!(
            "Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got weight of size [{}] instead",
            fmt_sizes(weight.sizes())
        )));
    }
    if c != ci {
        return Err(Error::runtime(format!(
            "Given transposed=1, weight of size {}, expected input{} to have {ci} channels, but got {c} channels instead",
            fmt_sizes(weight.sizes()),
            fmt_sizes(input.sizes()),
        )));
    }
    let o = og * g;
    if let Some(b) = bias {
        if b.dim() != 1 || b.numel() != o {
            return Err(Error::runtime(format!(
                "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {o} elements, but got bias of size {} instead",
                fmt_sizes(weight.sizes()),
                fmt_sizes(b.sizes())
            )));
        }
    }
    if input.dtype() != weight.dtype() {
        return Err(Error::runtime(format!(
            "Input type ({}) and weight type ({}) should be the same",
            input.dtype().scalar_type_name(),
            weight.dtype().scalar_type_name()
        )));
    }
    let mut out_sizes = vec![input.sizes()[0], o];
    let mut too_small = false;
    for i in 0..sp {
        let k = weight.sizes()[2 + i] as i64;
        let len = (input.sizes()[2 + i] as i64 - 1) * stride[i] - 2 * padding[i]
            + dilation[i] * (k - 1)
            + out_pad[i]
            + 1;
        too_small |= len < 1;
        out_sizes.push(len.max(0) as usize);
    }
    if too_small {
        let show = |v: &[usize]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" x ")
        };
        let outs: Vec<i64> = (0..sp)
            .map(|i| {
                (input.sizes()[2 + i] as i64 - 1) * stride[i] - 2 * padding[i]
                    + dilation[i] * (weight.sizes()[2 + i] as i64 - 1)
                    + out_pad[i]
                    + 1
            })
            .collect();
        return Err(Error::runtime(format!(
            "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too small",
            show(&input.sizes()[2..]),
            outs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" x ")
        )));
    }
    let p = super::backward::ConvParams {
        stride,
        padding,
        dilation,
        groups,
        transposed: true,
    };
    let y = match input.dtype() {
        DType::Float32 | DType::Float64 => {
            super::backward::conv_input_grad(input, &out_sizes, weight, &p)?
        }
        // torch's CPU transposed convolution takes int64 among the integers.
        DType::Int64 => {
            if let Some(b) = bias.filter(|b| b.dtype().is_floating_point()) {
                // torch adds the bias in place into the int64 output.
                return Err(Error::runtime(format!(
                    "result type {} can't be cast to the desired output type Long",
                    b.dtype().scalar_type_name()
                )));
            }
            super::backward::conv_input_grad_int(input, &out_sizes, weight, &p)?
        }
        other => {
            let kernel = if sp == 3 {
                "slow_conv_transpose3d_out_cpu"
            } else {
                "slow_conv_transpose2d_out_cpu"
            };
            return Err(super::not_float(kernel, other));
        }
    };
    match bias {
        None => Ok(y),
        Some(b) => {
            let mut bs = vec![1i64, o as i64];
            bs.extend(std::iter::repeat_n(1, sp));
            ops::add(&y, &ops::reshape(b, &bs)?, Scalar::Int(1))
        }
    }
}

/// `input` with a batch dimension (`unbatched` says whether one was added).
fn batchify(input: &Tensor, dims: usize, op: &str) -> Result<(Tensor, bool)> {
    if input.dim() == dims + 1 {
        Ok((ops::unsqueeze(input, 0)?, true))
    } else if input.dim() == dims + 2 {
        Ok((input.alias(), false))
    } else {
        Err(Error::runtime(format!(
            "Expected {}D (unbatched) or {}D (batched) input to {op}, but got input of size: {}",
            dims + 1,
            dims + 2,
            fmt_sizes(input.sizes())
        )))
    }
}

#[allow(clippy::too_many_arguments)]
fn conv_nd(
    op: &str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let (x, unbatched) = batchify(input, dims, op)?;
    let y = convolution(
        &x,
        weight,
        bias,
        stride,
        padding,
        dilation,
        false,
        &[0],
        groups,
    )?;
    if unbatched {
        ops::squeeze_dim(&y, 0)
    } else {
        Ok(y)
    }
}

/// String padding (`"same"`, `"valid"`): the symmetric padding, after padding the input on the
/// right where `"same"` needs an odd total (torch's `_convolution_mode`).
#[allow(clippy::too_many_arguments)]
fn conv_nd_mode(
    op: &str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &str,
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    match padding {
        "valid" => conv_nd(
            op,
            dims,
            input,
            weight,
            bias,
            stride,
            &[0],
            dilation,
            groups,
        ),
        "same" => {
            let stride = expand_param(op, "stride", stride, dims, None)?;
            if stride.iter().any(|&s| s != 1) {
                return Err(Error::runtime(
                    "padding='same' is not supported for strided convolutions",
                ));
            }
            let dilation = expand_param(op, "dilation", dilation, dims, None)?;
            let wd = weight.dim();
            if wd != dims + 2 {
                return conv_nd(
                    op,
                    dims,
                    input,
                    weight,
                    bias,
                    &stride,
                    &[0],
                    &dilation,
                    groups,
                );
            }
            let mut sym = Vec::new();
            let mut extra = Vec::new();
            for (i, &dil) in dilation.iter().enumerate().take(dims) {
                let total = dil * (weight.sizes()[2 + i] as i64 - 1);
                let left = total / 2;
                sym.push(left);
                extra.push(total - 2 * left);
            }
            let x = if extra.iter().any(|&e| e > 0) {
                // F.pad order: last dim first.
                let mut pads = Vec::new();
                for i in (0..dims).rev() {
                    pads.push(0);
                    pads.push(extra[i]);
                }
                super::pad(input, &pads, "constant", None)?
            } else {
                input.alias()
            };
            conv_nd(op, dims, &x, weight, bias, &stride, &sym, &dilation, groups)
        }
        other => Err(Error::runtime(format!("Invalid padding string: '{other}'"))),
    }
}

/// `conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`. Mirrors
/// `torch.conv1d`.
pub fn conv1d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd(
        "conv1d", 1, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv1d` with `padding="same"` or `"valid"`. Mirrors `torch.conv1d`.
pub fn conv1d_padding(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &str,
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd_mode(
        "conv1d", 1, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`. Mirrors
/// `torch.conv2d`.
pub fn conv2d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd(
        "conv2d", 2, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv2d` with `padding="same"` or `"valid"`. Mirrors `torch.conv2d`.
pub fn conv2d_padding(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &str,
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd_mode(
        "conv2d", 2, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv_transpose{1,2,3}d`: a batch dim added to unbatched input, the transposed `convolution`.
#[allow(clippy::too_many_arguments)]
fn conv_transpose_nd(
    op: &str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    output_padding: &[i64],
    groups: i64,
    dilation: &[i64],
) -> Result<Tensor> {
    let (x, unbatched) = batchify(input, dims, op)?;
    let y = convolution(
        &x,
        weight,
        bias,
        stride,
        padding,
        dilation,
        true,
        output_padding,
        groups,
    )?;
    if unbatched {
        ops::squeeze_dim(&y, 0)
    } else {
        Ok(y)
    }
}

/// `conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
/// groups=1, dilation=1)`: the transposed 1-d convolution of `(N, C_in, L)` or `(C_in, L)`
/// input with weight `(C_in, C_out / groups, k)`. Mirrors `torch.conv_transpose1d`.
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose1d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    output_padding: &[i64],
    groups: i64,
    dilation: &[i64],
) -> Result<Tensor> {
    conv_transpose_nd(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )
}

/// `conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
/// groups=1, dilation=1)`: the transposed 2-d convolution of `(N, C_in, H, W)` or
/// `(C_in, H, W)` input with weight `(C_in, C_out / groups, kh, kw)`. Mirrors
/// `torch.conv_transpose2d`.
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose2d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    output_padding: &[i64],
    groups: i64,
    dilation: &[i64],
) -> Result<Tensor> {
    conv_transpose_nd(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )
}

/// `conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`: the 3-d
/// convolution of `(N, C, D, H, W)` or `(C, D, H, W)` input with weight `(O, C / groups, kd,
/// kh, kw)`. Mirrors `torch.conv3d`.
pub fn conv3d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd(
        "conv3d", 3, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv3d` with `padding="same"` or `"valid"`. Mirrors `torch.conv3d`.
pub fn conv3d_padding(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &str,
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    conv_nd_mode(
        "conv3d", 3, input, weight, bias, stride, padding, dilation, groups,
    )
}

/// `conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
/// groups=1, dilation=1)`: the transposed 3-d convolution of `(N, C_in, D, H, W)` or `(C_in, D,
/// H, W)` input with weight `(C_in, C_out / groups, kd, kh, kw)`. Mirrors
/// `torch.conv_transpose3d`.
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose3d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    output_padding: &[i64],
    groups: i64,
    dilation: &[i64],
) -> Result<Tensor> {
    conv_transpose_nd(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )
}
