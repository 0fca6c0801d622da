//! src/core/ops/nn/pool.rs: 2-d pooling (PyTorch: `native/DilatedMaxPool2d.cpp`,
//! `AveragePool2d.cpp`, `AdaptiveAveragePooling.cpp`, `Pool.h`) — `max_pool2d_with_indices`
//! (the argmax a backward scatters into), `max_pool2d`, `avg_pool2d`, `adaptive_avg_pool2d`,
//! over `(C, H, W)` or `(N, C, H, W)` inputs.

use super::{contiguous_of, elems, expand_param, float_dispatch, new_with, Float};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// torch's `pooling_output_shape`.
fn pool_out(input: i64, k: i64, pad: i64, stride: i64, dilation: i64, ceil: bool) -> i64 {
    let num = input + 2 * pad - dilation * (k - 1) - 1 + if ceil { stride - 1 } else { 0 };
    let mut out = num.div_euclid(stride) + 1;
    if ceil && (out - 1) * stride >= input + pad {
        out -= 1;
    }
    out
}

/// The pooling geometry: `(planes, h, w, oh, ow)` and the normalised parameters, after torch's
/// checks (`pool2d_shape_check`).
pub(super) struct Geo {
    pub(super) planes: usize,
    pub(super) h: usize,
    pub(super) w: usize,
    pub(super) oh: usize,
    pub(super) ow: usize,
    pub(super) k: [usize; 2],
    pub(super) s: [usize; 2],
    pub(super) p: [usize; 2],
    pub(super) d: [usize; 2],
    pub(super) out_shape: Vec<usize>,
}

/// `sizes` are the input's (the backward kernels pass the saved input shape).
#[allow(clippy::too_many_arguments)]
pub(super) fn geometry(
    op: &str,
    sizes: &[usize],
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Geo> {
    let k = expand_param(op, "kernel_size", kernel_size, 2, None)?;
    let s = expand_param(op, "stride", stride, 2, Some(&k))?;
    let p = expand_param(op, "padding", padding, 2, None)?;
    let d = expand_param(op, "dilation", dilation, 2, None)?;
    if [&k, &s, &p, &d]
        .iter()
        .any(|v| v.iter().any(|&x| x > super::MAX_PARAM))
    {
        return Err(Error::runtime(format!(
            "{op}: kernel_size, stride, padding and dilation must be at most {}",
            super::MAX_PARAM
        )));
    }
    if !(3..=4).contains(&sizes.len()) {
        return Err(Error::runtime(format!(
            "non-empty 3D or 4D (batch mode) tensor expected for input, but got: {sizes:?}"
        )));
    }
    // torch's order: `pooling_output_shape` per dim (H, then W: a zero stride, a negative or too
    // large padding), then `pool2d_shape_check` (kernel, stride, dilation, empty dims, padding
    // against the undilated kernel, the output size).
    let nd = sizes.len();
    let (h, w) = (sizes[nd - 2] as i64, sizes[nd - 1] as i64);
    let mut outs = [0i64; 2];
    for (i, n) in [h, w].into_iter().enumerate() {
        if s[i] == 0 {
            return Err(Error::runtime("stride should not be zero"));
        }
        if p[i] < 0 {
            return Err(Error::runtime(format!(
                "pad must be non-negative, but got pad: {}",
                p[i]
            )));
        }
        if p[i] > (d[i] * (k[i] - 1) + 1) / 2 {
            return Err(Error::runtime(format!(
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                p[i], k[i], d[i]
            )));
        }
        outs[i] = pool_out(n, k[i], p[i], s[i], d[i], ceil_mode);
    }
    let [oh, ow] = outs;
    if k.iter().any(|&x| x <= 0) {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            k[0], k[1]
        )));
    }
    if s.iter().any(|&x| x <= 0) {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got dH: {} dW: {}",
            s[0], s[1]
        )));
    }
    if d.iter().any(|&x| x <= 0) {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            d[0], d[1]
        )));
    }
    let valid_dims = sizes[nd - 2] != 0 && sizes[nd - 1] != 0;
    if !(valid_dims && sizes[nd - 3] != 0) {
        return Err(Error::runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{sizes:?}"
        )));
    }
    if k[1] / 2 < p[1] || k[0] / 2 < p[0] {
        return Err(Error::runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, kH = {}",
            p[1], p[0], k[1], k[0]
        )));
    }
    let c = sizes[nd - 3];
    if oh < 1 || ow < 1 {
        return Err(Error::runtime(format!(
            "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
        )));
    }
    let mut out_shape = sizes[..nd - 2].to_vec();
    out_shape.extend([oh as usize, ow as usize]);
    let u = |v: &[i64]| [v[0] as usize, v[1] as usize];
    Ok(Geo {
        planes: sizes[..nd - 2].iter().product(),
        h: h as usize,
        w: w as usize,
        oh: oh as usize,
        ow: ow as usize,
        k: u(&k),
        s: u(&s),
        p: u(&p),
        d: u(&d),
        out_shape,
    })
}

/// The taps `i` in `0..k` of a window starting at `start` with dilation `d` whose position
/// `start + i d` lies in `0..n`.
fn taps(start: isize, d: usize, k: usize, n: usize) -> std::ops::Range<usize> {
    let d = d as isize;
    let first = if start < 0 { ((-start) + d - 1) / d } else { 0 };
    let end = if (n as isize) > start {
        ((n as isize - start + d - 1) / d).min(k as isize)
    } else {
        0
    };
    first as usize..(end.max(first)) as usize
}

/// `max_pool2d_with_indices(input, kernel_size, stride=[], padding=0, dilation=1,
/// ceil_mode=False)`: the max over each window, and the flat index (into the `H * W` plane) of
/// the element chosen (NaN wins). `stride` defaults to `kernel_size`. Mirrors
/// `torch._C._nn.max_pool2d_with_indices`.
pub fn max_pool2d_with_indices(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let g = geometry(
        "max_pool2d",
        input.sizes(),
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
    )?;
    float_dispatch!(input.dtype(), "max_pool2d", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let mut idx: Vec<i64> = super::super::try_vec(g.planes * g.oh * g.ow, "max_pool2d")?;
        let out = new_with::<T>(&g.out_shape, |o| {
            let mut pos = 0;
            for pl in 0..g.planes {
                crate::core::interrupt::checkpoint();
                let plane = &xs[pl * g.h * g.w..(pl + 1) * g.h * g.w];
                for oy in 0..g.oh {
                    let y0 = (oy * g.s[0]) as isize - g.p[0] as isize;
                    for ox in 0..g.ow {
                        let x0 = (ox * g.s[1]) as isize - g.p[1] as isize;
                        let mut best = T::neg_infinity();
                        let mut bi: i64 = -1;
                        // Only the kernel taps that land inside the input.
                        let (ir, jr) = (
                            taps(y0, g.d[0], g.k[0], g.h),
                            taps(x0, g.d[1], g.k[1], g.w),
                        );
                        for i in ir {
                            let y = (y0 + (i * g.d[0]) as isize) as usize;
                            for j in jr.clone() {
                                let at = y * g.w + (x0 + (j * g.d[1]) as isize) as usize;
                                let v = plane[at];
                                // torch's `(val > maxval) || isnan(val)`: among NaNs the
                                // last one, among equal maxima the first.
                                if bi < 0 || v > best || v.is_nan() {
                                    best = v;
                                    bi = at as i64;
                                }
                            }
                        }
                        o[pos] = best;
                        idx.push(bi);
                        pos += 1;
                    }
                }
            }
            Ok(())
        })?;
        let indices = Tensor::from_vec(idx, &g.out_shape)?;
        Ok((out, indices))
    })
}

/// `max_pool2d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)`: the
/// values of `max_pool2d_with_indices`. Mirrors `torch.max_pool2d`.
pub fn max_pool2d(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Tensor> {
    Ok(max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)?.0)
}

/// `avg_pool2d(input, kernel_size, stride=[], padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)`: the mean over each window (the divisor is
/// `divisor_override`, or the window's size including padding, or only the elements inside the
/// input). Mirrors `torch._C._nn.avg_pool2d`.
pub fn avg_pool2d(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    if divisor_override == Some(0) {
        return Err(Error::runtime("divisor must be not zero"));
    }
    let g = geometry(
        "avg_pool2d",
        input.sizes(),
        kernel_size,
        stride,
        padding,
        &[1],
        ceil_mode,
    )?;
    float_dispatch!(input.dtype(), "avg_pool2d", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        new_with::<T>(&g.out_shape, |o| {
            let mut pos = 0;
            let (h, w) = (g.h as isize, g.w as isize);
            let (ph, pw) = (g.p[0] as isize, g.p[1] as isize);
            for pl in 0..g.planes {
                crate::core::interrupt::checkpoint();
                let plane = &xs[pl * g.h * g.w..(pl + 1) * g.h * g.w];
                for oy in 0..g.oh {
                    for ox in 0..g.ow {
                        let mut hs = (oy * g.s[0]) as isize - ph;
                        let mut ws = (ox * g.s[1]) as isize - pw;
                        let mut he = (hs + g.k[0] as isize).min(h + ph);
                        let mut we = (ws + g.k[1] as isize).min(w + pw);
                        let pool_size = (he - hs) * (we - ws);
                        hs = hs.max(0);
                        ws = ws.max(0);
                        he = he.min(h);
                        we = we.min(w);
                        let mut sum = 0.0f64;
                        for y in hs..he {
                            for xx in ws..we {
                                sum += plane[y as usize * g.w + xx as usize].f64();
                            }
                        }
                        let div = match divisor_override {
                            Some(d) => d as f64,
                            None if count_include_pad => pool_size as f64,
                            None => ((he - hs) * (we - ws)) as f64,
                        };
                        o[pos] = T::of(sum / div);
                        pos += 1;
                    }
                }
            }
            Ok(())
        })
    })
}

/// `adaptive_avg_pool2d(input, output_size)`: the mean over windows `[floor(i H / oh),
/// ceil((i + 1) H / oh))` (and likewise in W). Mirrors `torch._C._nn.adaptive_avg_pool2d`.
pub fn adaptive_avg_pool2d(input: &Tensor, output_size: &[i64]) -> Result<Tensor> {
    let os = expand_param("adaptive_avg_pool2d", "output_size", output_size, 2, None)?;
    // torch's composite checks the sizes first, then its kernel the input (only the two pooled
    // dims must be non-empty).
    if os.iter().any(|&x| x < 0) {
        return Err(Error::runtime(format!(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
            os[0], os[1]
        )));
    }
    let nd = input.dim();
    if !(3..=4).contains(&nd) {
        return Err(Error::runtime(format!(
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {:?}",
            input.sizes()
        )));
    }
    for i in nd - 2..nd {
        if input.sizes()[i] == 0 {
            return Err(Error::runtime(format!(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {:?} with dimension {i} being empty",
                input.sizes()
            )));
        }
    }
    let (oh, ow) = (os[0] as usize, os[1] as usize);
    let (h, w) = (input.sizes()[nd - 2], input.sizes()[nd - 1]);
    let planes: usize = input.sizes()[..nd - 2].iter().product();
    let mut out_shape = input.sizes()[..nd - 2].to_vec();
    out_shape.extend([oh, ow]);
    float_dispatch!(input.dtype(), "adaptive_avg_pool2d", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        new_with::<T>(&out_shape, |o| {
            let mut pos = 0;
            for pl in 0..planes {
                let plane = &xs[pl * h * w..(pl + 1) * h * w];
                for oy in 0..oh {
                    let (hs, he) = (oy * h / oh, ((oy + 1) * h).div_ceil(oh));
                    for ox in 0..ow {
                        let (ws, we) = (ox * w / ow, ((ox + 1) * w).div_ceil(ow));
                        let mut sum = 0.0f64;
                        for y in hs..he {
                            for xx in ws..we {
                                sum += plane[y * w + xx].f64();
                            }
                        }
                        o[pos] = T::of(sum / ((he - hs) * (we - ws)) as f64);
                        pos += 1;
                    }
                }
            }
            Ok(())
        })
    })
}
