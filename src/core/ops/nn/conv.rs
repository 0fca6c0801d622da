//! src/core/ops/nn/conv.rs: convolution (PyTorch: `native/Convolution.cpp`,
//! `ConvolutionMM2d.cpp`) — `convolution` (the one entry a backward attaches to), `conv1d` and
//! `conv2d` with int or string (`"same"`, `"valid"`) padding. The kernel is im2col (unfold the
//! input into columns) and the core's batched `matmul` per group.

use super::{contiguous_of, elems, expand_param, float_dispatch, new_with, Float};
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

/// im2col of a contiguous `(N, C, H, W)` input: columns `(N, C * kh * kw, oh * ow)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn im2col<T: Float>(
    x: &[T],
    (n, c, h, w): (usize, usize, usize, usize),
    (kh, kw): (usize, usize),
    (sh, sw): (usize, usize),
    (ph, pw): (usize, usize),
    (dh, dw): (usize, usize),
    (oh, ow): (usize, usize),
    cols: &mut [T],
) {
    let l = oh * ow;
    let rows = c * kh * kw;
    for b in 0..n {
        crate::core::interrupt::checkpoint();
        for ch in 0..c {
            let plane = &x[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
            for i in 0..kh {
                for j in 0..kw {
                    let r = (ch * kh + i) * kw + j;
                    let dst = &mut cols[(b * rows + r) * l..(b * rows + r + 1) * l];
                    for oy in 0..oh {
                        let iy = (oy * sh + i * dh) as isize - ph as isize;
                        let row = &mut dst[oy * ow..(oy + 1) * ow];
                        if iy < 0 || iy >= h as isize {
                            row.iter_mut().for_each(|v| *v = T::ZERO);
                            continue;
                        }
                        let src = &plane[iy as usize * w..(iy as usize + 1) * w];
                        for (ox, v) in row.iter_mut().enumerate() {
                            let ix = (ox * sw + j * dw) as isize - pw as isize;
                            *v = if ix < 0 || ix >= w as isize {
                                T::ZERO
                            } else {
                                src[ix as usize]
                            };
                        }
                    }
                }
            }
        }
    }
}

/// `convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
/// groups)`: the 1-d or 2-d convolution (cross-correlation) of batched `input` `(N, C, *)` with
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
    if !(3..=4).contains(&d) || input.dim() != d {
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
    // 1-d as 2-d with a height of 1.
    let (h, w, kh, kw, sh, sw, ph, pw, dh, dw) = if sp == 1 {
        (
            1,
            input.sizes()[2],
            1,
            weight.sizes()[2],
            1,
            stride[0] as usize,
            0,
            padding[0] as usize,
            1,
            dilation[0] as usize,
        )
    } else {
        (
            input.sizes()[2],
            input.sizes()[3],
            weight.sizes()[2],
            weight.sizes()[3],
            stride[0] as usize,
            stride[1] as usize,
            padding[0] as usize,
            padding[1] as usize,
            dilation[0] as usize,
            dilation[1] as usize,
        )
    };
    let eff_h = dh * (kh - 1) + 1;
    let eff_w = dw * (kw - 1) + 1;
    if h + 2 * ph < eff_h || w + 2 * pw < eff_w {
        let (padded, kernel) = if sp == 1 {
            (format!("({})", w + 2 * pw), format!("({})", eff_w))
        } else {
            (
                format!("({} x {})", h + 2 * ph, w + 2 * pw),
                format!("({} x {})", eff_h, eff_w),
            )
        };
        return Err(Error::runtime(format!(
            "Calculated padded input size per channel: {padded}. Kernel size: {kernel}. Kernel size can't be greater than actual input size"
        )));
    }
    let oh = (h + 2 * ph - eff_h) / sh + 1;
    let ow = (w + 2 * pw - eff_w) / sw + 1;
    let n = input.sizes()[0];
    let k = cg * kh * kw;
    let l = oh * ow;
    let og = o / g;
    let out = float_dispatch!(input.dtype(), "slow_conv2d_cpu", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let cols = new_with::<T>(&[n, c * kh * kw, l], |cols| {
            im2col(xs, (n, c, h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow), cols);
            Ok(())
        })?;
        // (N, G, K, L) @ (G, Og, K)^T: per group, W_g (Og, K) @ cols_g (K, L).
        let cols = ops::reshape(&cols, &[n as i64, g as i64, k as i64, l as i64])?;
        let wg = ops::reshape(weight, &[g as i64, og as i64, k as i64])?;
        let y = ops::matmul(&wg, &cols)?; // (N, G, Og, L)
        Ok::<Tensor, Error>(y)
    })?;
    let mut shape = vec![n as i64, o as i64];
    if sp == 2 {
        shape.push(oh as i64);
    }
    shape.push(ow as i64);
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
    if !(3..=4).contains(&d) || input.dim() != d {
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
    // As 2-d: (height, width) of each parameter, 1-d with a height of 1.
    let hw = |v: &[i64], one: i64| if sp == 1 { (one, v[0]) } else { (v[0], v[1]) };
    let ((oph, opw), (sh, sw), (dh, dw)) = (hw(&out_pad, 0), hw(&stride, 1), hw(&dilation, 1));
    if (oph >= sh && oph >= dh) || (opw >= sw && opw >= dw) {
        return Err(Error::runtime(format!(
            "output padding must be smaller than either stride or dilation, but got output_padding_height: {oph} output_padding_width: {opw} stride_height: {sh} stride_width: {sw} dilation_height: {dh} dilation_width: {dw}"
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
    let y = super::backward::conv_input_grad(input, &out_sizes, weight, &p)?;
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

/// `conv_transpose{1,2}d`: a batch dim added to unbatched input, the transposed `convolution`.
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
