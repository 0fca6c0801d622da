//! src/core/ops/nn/upsample.rs: nearest and (bi)linear resampling (PyTorch: `UpSample.h`,
//! `UpSampleKernel.cpp`) — `upsample_nearest1d/2d`, `upsample_linear1d`,
//! `upsample_bilinear2d` over `(N, C, W)` / `(N, C, H, W)` inputs, and their backward. The
//! resampling is separable: each spatial dim has its own taps (two source indices and their
//! weights per output index, torch's `area_pixel_compute_source_index` and
//! `guard_index_and_lambda`); a 1-d op is the 2-d one with a height of 1.

use super::{contiguous_of, elems, float_dispatch, new_with, Float};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// One spatial dim's taps: output index `o` reads `l0[o] * x[i0[o]] + l1[o] * x[i1[o]]`.
#[derive(Clone, Debug)]
pub struct Taps {
    pub in_len: usize,
    i0: Vec<usize>,
    i1: Vec<usize>,
    l0: Vec<f64>,
    l1: Vec<f64>,
}

impl Taps {
    /// The identity of a dim of length 1 (the height of a 1-d op).
    fn unit() -> Taps {
        Taps {
            in_len: 1,
            i0: vec![0],
            i1: vec![0],
            l0: vec![1.0],
            l1: vec![0.0],
        }
    }

    fn out_len(&self) -> usize {
        self.i0.len()
    }

    /// torch's `nearest_idx` (in float arithmetic, as torch's for every dtype); `exact`: torch's
    /// `nearest_neighbor_exact_compute_source_index`, `floor((o + 0.5) * scale)`.
    pub fn nearest(in_len: usize, out_len: usize, scale: Option<f64>, exact: bool) -> Taps {
        let s: f32 = match scale {
            Some(s) if s > 0.0 => (1.0 / s) as f32,
            _ => in_len as f32 / out_len as f32,
        };
        let i0: Vec<usize> = (0..out_len)
            .map(|o| {
                if exact {
                    (((o as f32 + 0.5) * s).floor() as usize).min(in_len - 1)
                } else if out_len == in_len {
                    o
                } else if out_len == 2 * in_len {
                    o >> 1
                } else {
                    ((o as f32 * s).floor() as usize).min(in_len - 1)
                }
            })
            .collect();
        Taps {
            in_len,
            i1: i0.clone(),
            i0,
            l0: vec![1.0; out_len],
            l1: vec![0.0; out_len],
        }
    }

    /// torch's `area_pixel_compute_scale` / `area_pixel_compute_source_index` /
    /// `guard_index_and_lambda` for linear interpolation, in torch's `opmath_t` of the input:
    /// f32 for float32 input (`f32`, the source index fused when `fma`), f64 for float64 (Note
    /// [Source indices in float32]).
    pub fn linear(
        in_len: usize,
        out_len: usize,
        align_corners: bool,
        scale: Option<f64>,
        f32: bool,
        fma: bool,
    ) -> Taps {
        let mut t = Taps {
            in_len,
            i0: Vec::with_capacity(out_len),
            i1: Vec::with_capacity(out_len),
            l0: Vec::with_capacity(out_len),
            l1: Vec::with_capacity(out_len),
        };
        for o in 0..out_len {
            // torch's `compute_source_index_and_lambda`: an unchanged size copies.
            let (i, lambda0, lambda1) = if out_len == in_len {
                (o, 1.0, 0.0)
            } else if f32 {
                let (i, l) = linear_source::<f32>(in_len, out_len, align_corners, scale, o, fma);
                (i, (1.0 - l) as f64, l as f64)
            } else {
                let (i, l) = linear_source::<f64>(in_len, out_len, align_corners, scale, o, false);
                (i, 1.0 - l, l)
            };
            t.i0.push(i);
            t.i1.push(if i < in_len - 1 { i + 1 } else { i });
            t.l0.push(lambda0);
            t.l1.push(lambda1);
        }
        t
    }
}

// Note [Source indices in float32]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// torch computes the interpolation scale, each output's source index and its weights in the
// input's `opmath_t`: float for float32 input. A float64 computation picks another source pixel
// or weight wherever the float32 rounding crosses a boundary (OpInfo's 345x456 -> 270x270
// bilinear differed by 4e-4). Where the compiler contracted it, torch's source index
// `scale * (o + 0.5) - 0.5` is one fused multiply-add, which changes its last bit: checked
// against torch 2.15 (x86-64, AVX2 kernels), it is fused in the bicubic weights (python/_C/nn/
// functional.py's `_cubic_matrix`) and in the vectorised bilinear kernel
// (`cpu_upsample_linear_channels_last`, which torch picks for channels-last input with more
// than 3 channels, an output with `H + W <= 128`, or 3 channels on one thread), not in the
// generic kernel (every other bilinear, linear and trilinear call).

/// The arithmetic of [`linear_source`] in `f32` or `f64`.
trait SourceFloat: Copy + PartialOrd {
    fn of_usize(v: usize) -> Self;
    fn of_f64(v: f64) -> Self;
    fn half() -> Self;
    fn zero() -> Self;
    fn one() -> Self;
    fn times(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
    fn plus(self, o: Self) -> Self;
    fn over(self, o: Self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn floor_usize(self) -> usize;
}

macro_rules! source_float {
    ($t:ty) => {
        impl SourceFloat for $t {
            fn of_usize(v: usize) -> Self {
                v as $t
            }
            fn of_f64(v: f64) -> Self {
                v as $t
            }
            fn half() -> Self {
                0.5
            }
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
            }
            fn times(self, o: Self) -> Self {
                self * o
            }
            fn minus(self, o: Self) -> Self {
                self - o
            }
            fn plus(self, o: Self) -> Self {
                self + o
            }
            fn over(self, o: Self) -> Self {
                self / o
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
            fn floor_usize(self) -> usize {
                self.floor() as usize
            }
        }
    };
}
source_float!(f32);
source_float!(f64);

/// Output `o`'s source index and `lambda1` (the weight of the next index) in the float type
/// `F` (torch's `area_pixel_compute_scale`, `area_pixel_compute_source_index` with
/// `cubic=false`, `guard_index_and_lambda`).
fn linear_source<F: SourceFloat>(
    in_len: usize,
    out_len: usize,
    align_corners: bool,
    scale: Option<f64>,
    o: usize,
    fma: bool,
) -> (usize, F) {
    let s = if align_corners {
        if out_len > 1 {
            F::of_usize(in_len - 1).over(F::of_usize(out_len - 1))
        } else {
            F::zero()
        }
    } else {
        match scale {
            Some(s) if s > 0.0 => F::of_f64(1.0 / s),
            _ => F::of_usize(in_len).over(F::of_usize(out_len)),
        }
    };
    let real = if align_corners {
        s.times(F::of_usize(o))
    } else {
        let centre = F::of_usize(o).plus(F::half());
        let r = if fma {
            s.mul_add(centre, F::zero().minus(F::half()))
        } else {
            s.times(centre).minus(F::half())
        };
        if r < F::zero() {
            F::zero()
        } else {
            r
        }
    };
    let i = real.floor_usize().min(in_len - 1);
    let mut lambda = real.minus(F::of_usize(i));
    if lambda < F::zero() {
        lambda = F::zero();
    }
    if lambda > F::one() {
        lambda = F::one();
    }
    (i, lambda)
}

/// torch's checks of `upsample_*`'s input and output sizes (`upsample_{1,2}d_common_check`).
fn check_sizes(op: &str, input: &Tensor, output_size: &[i64], dims: usize) -> Result<()> {
    if output_size.len() != dims {
        return Err(Error::runtime(format!(
            "It is expected output_size equals to {dims}, but got size {}",
            output_size.len()
        )));
    }
    if input.dim() != dims + 2 {
        return Err(Error::runtime(format!(
            "It is expected input_size equals to {}, but got size {}",
            dims + 2,
            input.dim()
        )));
    }
    let s = input.sizes();
    let bad = s[2..].contains(&0) || output_size.iter().any(|&o| o <= 0);
    if bad || (s[0] == 0 && s[1] == 0) {
        let msg = if dims == 1 {
            format!(
                "Input and output sizes should be greater than 0, but got input (W: {}) and output (W: {})",
                s[2], output_size[0]
            )
        } else {
            format!(
                "Input and output sizes should be greater than 0, but got input (H: {}, W: {}) output (H: {}, W: {})",
                s[2], s[3], output_size[0], output_size[1]
            )
        };
        return Err(Error::runtime(msg));
    }
    let _ = op;
    Ok(())
}

/// Resamples `input` (`(N, C, W)` with `th` the unit taps, or `(N, C, H, W)`) by the taps.
pub fn resample(kernel: &str, input: &Tensor, th: &Taps, tw: &Taps) -> Result<Tensor> {
    let nd = input.dim();
    let planes: usize = input.sizes()[..2].iter().product();
    let (h, w) = (th.in_len, tw.in_len);
    let (oh, ow) = (th.out_len(), tw.out_len());
    let mut out_shape = input.sizes()[..2].to_vec();
    if nd == 4 {
        out_shape.push(oh);
    }
    out_shape.push(ow);
    float_dispatch!(input.dtype(), kernel, T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let (w0, w1): (Vec<T>, Vec<T>) = (tw.l0.iter().map(|&v| T::of(v)).collect(), tw.l1.iter().map(|&v| T::of(v)).collect());
        new_with::<T>(&out_shape, |o| {
            let mut pos = 0;
            for pl in 0..planes {
                crate::core::interrupt::checkpoint();
                let plane = &xs[pl * h * w..(pl + 1) * h * w];
                for oy in 0..oh {
                    let (r0, r1) = (&plane[th.i0[oy] * w..][..w], &plane[th.i1[oy] * w..][..w]);
                    let (h0, h1) = (T::of(th.l0[oy]), T::of(th.l1[oy]));
                    for ox in 0..ow {
                        let (a, b) = (tw.i0[ox], tw.i1[ox]);
                        o[pos] = h0 * (w0[ox] * r0[a] + w1[ox] * r0[b]) + h1 * (w0[ox] * r1[a] + w1[ox] * r1[b]);
                        pos += 1;
                    }
                }
            }
            Ok(())
        })
    })
}

/// The backward of [`resample`]: each output gradient added back at its taps, weighted.
pub fn resample_backward(
    kernel: &str,
    grad: &Tensor,
    input_sizes: &[usize],
    th: &Taps,
    tw: &Taps,
) -> Result<Tensor> {
    let planes: usize = input_sizes[..2].iter().product();
    let (h, w) = (th.in_len, tw.in_len);
    let (oh, ow) = (th.out_len(), tw.out_len());
    if grad.numel() != planes * oh * ow || grad.sizes()[..2] != input_sizes[..2] {
        return Err(Error::runtime(format!(
            "{kernel}: grad_output of size {:?} does not match the output",
            grad.sizes()
        )));
    }
    float_dispatch!(grad.dtype(), kernel, T => {
        let g = contiguous_of(&if grad.dtype() == T::DTYPE { grad.clone() } else { grad.to_dtype(T::DTYPE)? })?;
        // SAFETY: `g` is contiguous of dtype `T`.
        let gs = unsafe { elems::<T>(&g) };
        new_with::<T>(input_sizes, |o| {
            let mut pos = 0;
            for pl in 0..planes {
                crate::core::interrupt::checkpoint();
                let plane = &mut o[pl * h * w..(pl + 1) * h * w];
                for oy in 0..oh {
                    let (h0, h1) = (T::of(th.l0[oy]), T::of(th.l1[oy]));
                    let (r0, r1) = (th.i0[oy] * w, th.i1[oy] * w);
                    for ox in 0..ow {
                        let gv = gs[pos];
                        pos += 1;
                        let (a, b) = (tw.i0[ox], tw.i1[ox]);
                        let (w0, w1) = (T::of(tw.l0[ox]), T::of(tw.l1[ox]));
                        plane[r0 + a] += h0 * w0 * gv;
                        plane[r0 + b] += h0 * w1 * gv;
                        plane[r1 + a] += h1 * w0 * gv;
                        plane[r1 + b] += h1 * w1 * gv;
                    }
                }
            }
            Ok(())
        })
    })
}

/// `upsample_nearest1d`'s taps after its checks.
pub fn upsample_nearest1d_taps(
    input: &Tensor,
    output_size: &[i64],
    scales: Option<f64>,
    exact: bool,
) -> Result<(Taps, Taps)> {
    check_sizes("upsample_nearest1d", input, output_size, 1)?;
    let w = input.sizes()[2];
    Ok((
        Taps::unit(),
        Taps::nearest(w, output_size[0] as usize, scales, exact),
    ))
}

/// `upsample_nearest2d`'s taps after its checks.
pub fn upsample_nearest2d_taps(
    input: &Tensor,
    output_size: &[i64],
    scales_h: Option<f64>,
    scales_w: Option<f64>,
    exact: bool,
) -> Result<(Taps, Taps)> {
    check_sizes("upsample_nearest2d", input, output_size, 2)?;
    let (h, w) = (input.sizes()[2], input.sizes()[3]);
    Ok((
        Taps::nearest(h, output_size[0] as usize, scales_h, exact),
        Taps::nearest(w, output_size[1] as usize, scales_w, exact),
    ))
}

/// `upsample_linear1d`'s taps after its checks.
pub fn upsample_linear1d_taps(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: Option<f64>,
) -> Result<(Taps, Taps)> {
    check_sizes("upsample_linear1d", input, output_size, 1)?;
    let f32 = input.dtype() != DType::Float64;
    let w = input.sizes()[2];
    Ok((
        Taps::unit(),
        Taps::linear(
            w,
            output_size[0] as usize,
            align_corners,
            scales,
            f32,
            false,
        ),
    ))
}

/// `upsample_bilinear2d`'s taps after its checks.
pub fn upsample_bilinear2d_taps(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<(Taps, Taps)> {
    check_sizes("upsample_bilinear2d", input, output_size, 2)?;
    let f32 = input.dtype() != DType::Float64;
    // torch's choice of its vectorised kernel (`_use_vectorized_kernel_cond_2d`, and 3 channels
    // on one thread), whose source index is fused (Note [Source indices in float32]).
    let (sz, st) = (input.sizes(), input.strides());
    let channels_last = st[1] == 1 && st[3] == sz[1] as isize && st[2] == (sz[1] * sz[3]) as isize;
    let fma = f32
        && ((channels_last && sz[1] > 3)
            || output_size[0] + output_size[1] <= 128
            || (crate::core::parallel::get_num_threads() == 1 && sz[1] == 3));
    let (h, w) = (input.sizes()[2], input.sizes()[3]);
    Ok((
        Taps::linear(
            h,
            output_size[0] as usize,
            align_corners,
            scales_h,
            f32,
            fma,
        ),
        Taps::linear(
            w,
            output_size[1] as usize,
            align_corners,
            scales_w,
            f32,
            fma,
        ),
    ))
}

/// `upsample_nearest1d(input, output_size, scales=None)`: `(N, C, W)` resampled to
/// `output_size` by the nearest source element (`floor(o * in / out)`, or `floor(o / scales)`).
/// Mirrors `torch._C._nn.upsample_nearest1d`.
pub fn upsample_nearest1d(
    input: &Tensor,
    output_size: &[i64],
    scales: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_nearest1d_taps(input, output_size, scales, false)?;
    resample("upsample_nearest1d", input, &th, &tw)
}

/// `_upsample_nearest_exact1d(input, output_size, scales=None)`: as `upsample_nearest1d` with
/// the source index `floor((o + 0.5) * in / out)` (pixel centres). Mirrors
/// `torch._C._nn._upsample_nearest_exact1d`.
pub fn _upsample_nearest_exact1d(
    input: &Tensor,
    output_size: &[i64],
    scales: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_nearest1d_taps(input, output_size, scales, true)?;
    resample("_upsample_nearest_exact1d", input, &th, &tw)
}

/// `_upsample_nearest_exact2d(input, output_size, scales_h=None, scales_w=None)`: as
/// `upsample_nearest2d` with the source index `floor((o + 0.5) * in / out)` per dim. Mirrors
/// `torch._C._nn._upsample_nearest_exact2d`.
pub fn _upsample_nearest_exact2d(
    input: &Tensor,
    output_size: &[i64],
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_nearest2d_taps(input, output_size, scales_h, scales_w, true)?;
    resample("_upsample_nearest_exact2d_channels_last", input, &th, &tw)
}

/// `upsample_nearest2d(input, output_size, scales_h=None, scales_w=None)`: `(N, C, H, W)`
/// resampled by the nearest source element per dim. Mirrors `torch._C._nn.upsample_nearest2d`.
pub fn upsample_nearest2d(
    input: &Tensor,
    output_size: &[i64],
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_nearest2d_taps(input, output_size, scales_h, scales_w, false)?;
    resample("upsample_nearest2d_channels_last", input, &th, &tw)
}

/// `upsample_linear1d(input, output_size, align_corners, scales=None)`: `(N, C, W)` resampled
/// by linear interpolation. Mirrors `torch._C._nn.upsample_linear1d`.
pub fn upsample_linear1d(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_linear1d_taps(input, output_size, align_corners, scales)?;
    resample("upsample_linear1d", input, &th, &tw)
}

/// `upsample_bilinear2d(input, output_size, align_corners, scales_h=None, scales_w=None)`:
/// `(N, C, H, W)` resampled by bilinear interpolation. Mirrors
/// `torch._C._nn.upsample_bilinear2d`.
pub fn upsample_bilinear2d(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let (th, tw) = upsample_bilinear2d_taps(input, output_size, align_corners, scales_h, scales_w)?;
    resample("upsample_bilinear2d_channels_last", input, &th, &tw)
}
