//! src/core/ops/nn/pad.rs: `pad` (PyTorch: `native/PadNd.cpp`, `ReflectionPad.cpp`,
//! `ReplicationPadding.cpp`, `ConstantPadNd`) — constant (negative pads crop), reflect,
//! replicate and circular, the last `len(pad) / 2` dims padded, last dim first.

use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

fn fmt_sizes(s: &[usize]) -> String {
    format!(
        "[{}]",
        s.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `pad(input, pad, mode='constant', value=None)`: `input` padded by `pad` (pairs `(before,
/// after)` from the last dim backwards). `value` fills constant padding (default 0); the other
/// modes take their values from `input`. Mirrors `torch._C._nn.pad`.
pub fn pad(input: &Tensor, pad: &[i64], mode: &str, value: Option<f64>) -> Result<Tensor> {
    let mode = match mode {
        "constant" => Mode::Constant,
        "reflect" => Mode::Reflect,
        "replicate" => Mode::Replicate,
        "circular" => Mode::Circular,
        other => {
            return Err(Error::not_implemented(format!(
                "Unrecognised padding mode {other}"
            )))
        }
    };
    if !pad.len().is_multiple_of(2) {
        return Err(Error::runtime("Padding length must be divisible by 2"));
    }
    let nd = input.dim();
    let np = pad.len() / 2;
    if mode == Mode::Constant {
        if np > nd {
            return Err(Error::runtime(
                "Padding length should be less than or equal to two times the input dimension but got padding length ".to_string()
                    + &pad.len().to_string()
                    + " and input of dimension "
                    + &nd.to_string(),
            ));
        }
    } else {
        if value.is_some_and(|v| v != 0.0) {
            return Err(Error::runtime(format!(
                "Padding mode \"{}\" doesn't take in value argument",
                match mode {
                    Mode::Reflect => "reflect",
                    Mode::Replicate => "replicate",
                    _ => "circular",
                }
            )));
        }
        // torch: 1 padded dim needs a 2D/3D input, 2 a 3D/4D, 3 a 4D/5D.
        if !(1..=3).contains(&np) || !(nd == np + 1 || nd == np + 2) {
            return Err(Error::not_implemented(format!(
                "Padding size {} is not supported for {nd}D input tensor.",
                pad.len()
            )));
        }
    }
    // Per dim: (before, after), dims in order.
    let mut pads = vec![(0i64, 0i64); nd];
    for i in 0..np {
        pads[nd - 1 - i] = (pad[2 * i], pad[2 * i + 1]);
    }
    let mut out_shape = Vec::with_capacity(nd);
    for (d, &(b, a)) in pads.iter().enumerate() {
        let n = input.sizes()[d] as i64;
        let o = n
            .checked_add(b)
            .and_then(|x| x.checked_add(a))
            .ok_or_else(|| Error::runtime(format!("pad: padding ({b}, {a}) is too large")))?;
        if (b, a) != (0, 0) {
            match mode {
                Mode::Reflect if b >= n || a >= n => {
                    return Err(Error::runtime(format!(
                        "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({b}, {a}) at dimension {d} of input {}",
                        fmt_sizes(input.sizes())
                    )));
                }
                Mode::Circular if b > n || a > n => {
                    return Err(Error::runtime(
                        "Padding value causes wrapping around more than once.",
                    ));
                }
                Mode::Replicate | Mode::Reflect | Mode::Circular if n == 0 => {
                    return Err(Error::runtime(format!(
                        "Expected input to have non-zero size for padded dimensions, but got input of size {}",
                        fmt_sizes(input.sizes())
                    )));
                }
                _ => {}
            }
        }
        if o < 0 {
            return Err(Error::runtime(format!(
                "The input size {n}, plus negative padding {b} and {a} resulted in a negative output size, which is invalid. Check dimension {d} of your input."
            )));
        }
        out_shape.push(o as usize);
    }
    let fill = Scalar::Float(value.unwrap_or(0.0));
    let out = Tensor::zeros(&out_shape, input.dtype())?;
    let total = out.numel();
    if total == 0 {
        return Ok(out);
    }
    let src = input.contiguous()?;
    let in_strides = crate::core::tensor::contiguous_strides(input.sizes());
    // For each output position along each dim, the source index (or -1: the fill value).
    let maps: Vec<Vec<i64>> = (0..nd)
        .map(|d| {
            let n = input.sizes()[d] as i64;
            let b = pads[d].0;
            (0..out_shape[d] as i64)
                .map(|o| {
                    let i = o - b;
                    match mode {
                        _ if (0..n).contains(&i) => i,
                        Mode::Constant => -1,
                        Mode::Reflect => {
                            if i < 0 {
                                -i
                            } else {
                                2 * (n - 1) - i
                            }
                        }
                        Mode::Replicate => i.clamp(0, n - 1),
                        Mode::Circular => i.rem_euclid(n),
                    }
                })
                .collect()
        })
        .collect();
    crate::dispatch!(input.dtype(), T => {
        let fv: T = fill.to::<T>();
        let n_in = src.numel();
        // SAFETY: `src` is contiguous of the input's dtype `T` with `n_in` elements; `out` is
        // fresh, contiguous, of dtype `T` with `total` elements, and not shared.
        let (xs, os) = unsafe {
            (
                std::slice::from_raw_parts(src.data_ptr::<T>() as *const T, n_in),
                std::slice::from_raw_parts_mut(out.data_ptr::<T>(), total),
            )
        };
        let mut idx = vec![0usize; nd];
        for o in os.iter_mut() {
            let mut off: isize = 0;
            let mut inside = true;
            for d in 0..nd {
                let m = maps[d][idx[d]];
                if m < 0 {
                    inside = false;
                    break;
                }
                off += m as isize * in_strides[d];
            }
            *o = if inside { xs[off as usize] } else { fv };
            // Next multi-index.
            for d in (0..nd).rev() {
                idx[d] += 1;
                if idx[d] < out_shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    });
    Ok(out)
}
