//! src/core/format.rs: the text of a tensor exactly as torch's `repr` prints it (PyTorch:
//! `torch/_tensor_str.py`, default print options; `ATen/core/Formatting.cpp` in C++), and of a
//! single value in that style.

use crate::core::dtype::DType;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// Digits after the decimal point (torch's `precision`).
const PRECISION: usize = 4;
/// More elements than this are summarised with "..." (torch's `threshold`).
const THRESHOLD: usize = 1000;
/// Items kept at each end of a summarised dim (torch's `edgeitems`).
const EDGEITEMS: usize = 3;
/// Target line width (torch's `linewidth`).
const LINEWIDTH: usize = 80;

/// `{:.<prec>f}` as Python formats a float: "nan", "inf", "-inf" for non-finite values.
fn fixed(v: f64, prec: usize) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{v:.prec$}")
    }
}

/// `{:.<prec>e}` as Python formats a float: the exponent has a sign and at least two digits
/// ("1.0000e-05"); "nan", "inf", "-inf" for non-finite values.
fn scientific(v: f64, prec: usize) -> String {
    if !v.is_finite() {
        return fixed(v, prec);
    }
    let s = format!("{v:.prec$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", e.unsigned_abs())
        }
        None => s,
    }
}

/// Python's `str()` of a non-float value: ints plainly, bools as `True`/`False`.
fn plain(v: Scalar) -> String {
    match v {
        Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => fixed(f, PRECISION),
    }
}

/// torch's `_Formatter`: one style and one width for every element shown.
struct Formatter {
    floating: bool,
    /// Every finite non-zero value is a whole number: printed as "3." (or sci).
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
}

impl Formatter {
    /// The formatter for the shown `values` of a tensor whose dtype is floating or not.
    fn new(values: &[Scalar], floating: bool) -> Formatter {
        let mut f = Formatter {
            floating,
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        if !floating {
            for &v in values {
                f.max_width = f.max_width.max(plain(v).len());
            }
            return f;
        }
        let nonzero_finite: Vec<f64> = values
            .iter()
            .map(|v| v.to_f64())
            .filter(|x| x.is_finite() && *x != 0.0)
            .collect();
        if nonzero_finite.is_empty() {
            return f;
        }
        let (mut min, mut max) = (f64::INFINITY, 0.0f64);
        for x in &nonzero_finite {
            min = min.min(x.abs());
            max = max.max(x.abs());
        }
        f.int_mode = nonzero_finite.iter().all(|x| *x == x.ceil());
        let wide_range = max / min > 1000.0 || max > 1.0e8;
        let width_of: fn(f64) -> usize = if f.int_mode {
            if wide_range {
                f.sci_mode = true;
                |x| scientific(x, PRECISION).len()
            } else {
                // The "." appended to whole numbers counts in the width.
                |x| fixed(x, 0).len() + 1
            }
        } else if wide_range || min < 1.0e-4 {
            f.sci_mode = true;
            |x| scientific(x, PRECISION).len()
        } else {
            |x| fixed(x, PRECISION).len()
        };
        for &x in &nonzero_finite {
            f.max_width = f.max_width.max(width_of(x));
        }
        f
    }

    /// One value, right-aligned to the common width.
    fn format(&self, v: Scalar) -> String {
        let s = if self.floating {
            let x = v.to_f64();
            if self.sci_mode {
                scientific(x, PRECISION)
            } else if self.int_mode {
                let mut s = fixed(x, 0);
                if x.is_finite() {
                    s.push('.');
                }
                s
            } else {
                fixed(x, PRECISION)
            }
        } else {
            plain(v)
        };
        format!("{s:>width$}", width = self.max_width)
    }
}

/// The indices of a dim of size `n` that are shown: all, or the first and last `EDGEITEMS`
/// when summarising a dim longer than `2 * EDGEITEMS`.
fn shown_indices(n: usize, summarize: bool) -> Vec<usize> {
    if summarize && n > 2 * EDGEITEMS {
        (0..EDGEITEMS).chain(n - EDGEITEMS..n).collect()
    } else {
        (0..n).collect()
    }
}

/// The shown elements in logical order (torch's `get_summarized_data`, flattened).
fn collect_shown(t: &Tensor, index: &mut Vec<usize>, summarize: bool, out: &mut Vec<Scalar>) {
    let depth = index.len();
    if depth == t.dim() {
        out.push(t.get(index));
        return;
    }
    for i in shown_indices(t.sizes()[depth], summarize) {
        index.push(i);
        collect_shown(t, index, summarize, out);
        index.pop();
    }
}

/// torch's `_tensor_str_with_formatter` for the sub-tensor at `index`, written into `out`.
fn write_body(
    t: &Tensor,
    index: &mut Vec<usize>,
    indent: usize,
    summarize: bool,
    f: &Formatter,
    out: &mut String,
) {
    let depth = index.len();
    let remaining = t.dim() - depth;
    if remaining == 0 {
        out.push_str(&f.format(t.get(index)));
        return;
    }
    let n = t.sizes()[depth];
    let elided = summarize && n > 2 * EDGEITEMS;
    let shown = shown_indices(n, summarize);
    out.push('[');
    if remaining == 1 {
        // A row: elements joined by ", ", wrapped so each line holds as many as fit.
        let element_length = f.max_width + 2;
        let per_line = ((LINEWIDTH as isize - indent as isize).div_euclid(element_length as isize))
            .max(1) as usize;
        let mut items: Vec<String> = Vec::with_capacity(shown.len() + 1);
        for (k, &i) in shown.iter().enumerate() {
            if elided && k == EDGEITEMS {
                items.push(" ...".to_string());
            }
            index.push(i);
            items.push(f.format(t.get(index)));
            index.pop();
        }
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                if k % per_line == 0 {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent + 1));
                } else {
                    out.push_str(", ");
                }
            }
            out.push_str(item);
        }
    } else {
        let separator = format!(",{}{}", "\n".repeat(remaining - 1), " ".repeat(indent + 1));
        for (k, &i) in shown.iter().enumerate() {
            if k > 0 {
                out.push_str(&separator);
            }
            if elided && k == EDGEITEMS {
                out.push_str("...");
                out.push_str(&separator);
            }
            index.push(i);
            write_body(t, index, indent + 1, summarize, f, out);
            index.pop();
        }
    }
    out.push(']');
}

/// torch's `_tensor_str` for a non-empty tensor whose text starts at column `indent`.
fn tensor_str(t: &Tensor, indent: usize) -> String {
    let summarize = t.numel() > THRESHOLD;
    let mut shown = Vec::new();
    collect_shown(t, &mut Vec::new(), summarize, &mut shown);
    let f = Formatter::new(&shown, t.dtype().is_floating_point());
    let mut out = String::new();
    write_body(t, &mut Vec::new(), indent, summarize, &f, &mut out);
    out
}

/// Python's `str(tuple(sizes))`: "(0, 3)", "(0,)", "()".
fn tuple_str(sizes: &[usize]) -> String {
    match sizes {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// torch's `_add_suffixes`: ", suffix" on the last line while it fits in the line width,
/// otherwise on a new line indented by `indent`; then the closing ")".
fn add_suffixes(mut s: String, suffixes: &[String], indent: usize) -> String {
    // Python: len(s) - s.rfind("\n") + 1, with rfind giving -1 when there is no newline.
    let mut last_line_len = match s.rfind('\n') {
        Some(p) => s.len() - p + 1,
        None => s.len() + 2,
    };
    for suffix in suffixes {
        if last_line_len + suffix.len() + 2 > LINEWIDTH {
            s.push_str(",\n");
            s.push_str(&" ".repeat(indent));
            s.push_str(suffix);
            last_line_len = indent + suffix.len();
        } else {
            s.push_str(", ");
            s.push_str(suffix);
            last_line_len += suffix.len() + 2;
        }
    }
    s.push(')');
    s
}

/// `repr(tensor)` exactly as torch prints it with its default print options (precision 4,
/// threshold 1000, edgeitems 3, linewidth 80, automatic scientific notation), e.g.
/// `tensor([[1., 2.],\n        [3., 4.]])`, `tensor([1.5000, 2.2500])`, `tensor(3.5000)`,
/// `tensor([1, 2, 3], dtype=_C.int32)`, `tensor([], size=(0, 3))`.
///
/// `module` is the prefix of dtype names in the suffix: "_C" gives ", dtype=_C.int32" (an empty
/// `module` gives the bare name). The dtype is shown unless it is float32, int64 or bool (torch's
/// defaults); for empty tensors it is shown unless it is float32, and the size unless 1-D.
/// Any shape, dtype and strides; never fails.
pub fn format_tensor(t: &Tensor, module: &str) -> String {
    const PREFIX: &str = "tensor(";
    let indent = PREFIX.len();
    let dtype = t.dtype();
    let dtype_suffix = if module.is_empty() {
        format!("dtype={}", dtype.name())
    } else {
        format!("dtype={module}.{}", dtype.name())
    };
    let mut suffixes = Vec::new();
    let body = if t.numel() == 0 {
        if t.dim() != 1 {
            suffixes.push(format!("size={}", tuple_str(t.sizes())));
        }
        if dtype != DType::DEFAULT_FLOAT {
            suffixes.push(dtype_suffix);
        }
        "[]".to_string()
    } else {
        if !matches!(dtype, DType::DEFAULT_FLOAT | DType::Int64 | DType::Bool) {
            suffixes.push(dtype_suffix);
        }
        tensor_str(t, indent)
    };
    // torch's autograd suffix: the node that made the tensor, or the leaf's flag.
    if let Some(node) = t.grad_fn() {
        suffixes.push(format!("grad_fn=<{}>", node.name()));
    } else if t.requires_grad() {
        suffixes.push("requires_grad=True".to_string());
    }
    add_suffixes(format!("{PREFIX}{body}"), &suffixes, indent)
}

/// One value formatted as torch prints a 0-dim tensor holding it: `3.5000`, `3.`, `1.0000e-05`,
/// `nan`, `7`, `True`.
pub fn format_scalar_value(v: Scalar) -> String {
    Formatter::new(&[v], v.is_floating_point()).format(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }
    fn fmt(x: &Tensor) -> String {
        format_tensor(x, "_C")
    }

    #[test]
    fn basic_floats() {
        assert_eq!(
            fmt(&t(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])),
            "tensor([[1., 2.],\n        [3., 4.]])"
        );
        assert_eq!(
            fmt(&t(vec![1.5f32, 2.25], &[2])),
            "tensor([1.5000, 2.2500])"
        );
        assert_eq!(
            fmt(&t(vec![1e-5f32, 1.0], &[2])),
            "tensor([1.0000e-05, 1.0000e+00])"
        );
        assert_eq!(fmt(&t(vec![3.5f32], &[])), "tensor(3.5000)");
        assert_eq!(fmt(&t(vec![3.0f32], &[])), "tensor(3.)");
        assert_eq!(fmt(&t(vec![1e-5f32], &[])), "tensor(1.0000e-05)");
        assert_eq!(
            fmt(&t(vec![0.1f32, -2.5], &[2])),
            "tensor([ 0.1000, -2.5000])"
        );
        assert_eq!(
            fmt(&t(vec![1.0f64, 2.0], &[2])),
            "tensor([1., 2.], dtype=_C.float64)"
        );
        assert_eq!(
            fmt(&t(vec![1e10f32, 2e10, 3e10], &[3])),
            "tensor([1.0000e+10, 2.0000e+10, 3.0000e+10])"
        );
        assert_eq!(
            fmt(&t(vec![1.0f32, 10000.0], &[2])),
            "tensor([1.0000e+00, 1.0000e+04])"
        );
        assert_eq!(
            fmt(&t(vec![1.0f32, 1000.0], &[2])),
            "tensor([   1., 1000.])"
        );
        assert_eq!(fmt(&t(vec![0.0f32, -0.0], &[2])), "tensor([0., -0.])");
        assert_eq!(
            fmt(&t(vec![0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0], &[2, 3])),
            "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"
        );
    }

    #[test]
    fn non_finite() {
        assert_eq!(
            fmt(&t(vec![1.5f32, f32::NAN], &[2])),
            "tensor([1.5000,    nan])"
        );
        assert_eq!(fmt(&t(vec![f32::NAN], &[1])), "tensor([nan])");
        assert_eq!(
            fmt(&t(vec![1.0f32, f32::INFINITY, 100.0], &[3])),
            "tensor([  1.,  inf, 100.])"
        );
        assert_eq!(
            fmt(&t(vec![f32::NEG_INFINITY, 1e-5], &[2])),
            "tensor([      -inf, 1.0000e-05])"
        );
        assert_eq!(
            fmt(&t(vec![f64::NAN], &[])),
            "tensor(nan, dtype=_C.float64)"
        );
    }

    #[test]
    fn ints_and_bools() {
        assert_eq!(
            fmt(&t(vec![1i32, 2, 3], &[3])),
            "tensor([1, 2, 3], dtype=_C.int32)"
        );
        assert_eq!(fmt(&t(vec![1i64, -20, 3], &[3])), "tensor([  1, -20,   3])");
        assert_eq!(fmt(&t(vec![true, false], &[2])), "tensor([ True, False])");
        assert_eq!(fmt(&t(vec![7u8], &[])), "tensor(7, dtype=_C.uint8)");
        assert_eq!(fmt(&t(vec![true], &[])), "tensor(True)");
        assert_eq!(
            format_tensor(&t(vec![1i8], &[1]), ""),
            "tensor([1], dtype=int8)"
        );
    }

    #[test]
    fn empty() {
        assert_eq!(
            fmt(&Tensor::zeros(&[0], DType::Float32).unwrap()),
            "tensor([])"
        );
        assert_eq!(
            fmt(&Tensor::zeros(&[0, 3], DType::Float32).unwrap()),
            "tensor([], size=(0, 3))"
        );
        assert_eq!(
            fmt(&Tensor::zeros(&[0], DType::Int64).unwrap()),
            "tensor([], dtype=_C.int64)"
        );
        assert_eq!(
            fmt(&Tensor::zeros(&[2, 0], DType::Bool).unwrap()),
            "tensor([], size=(2, 0), dtype=_C.bool)"
        );
    }

    #[test]
    fn three_d_and_strided() {
        let x = t((0..8i64).collect(), &[2, 2, 2]);
        assert_eq!(
            fmt(&x),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"
        );
        // Transposed view prints in logical order.
        let m = t((0..6i64).collect(), &[2, 3]);
        let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            fmt(&mt),
            "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])"
        );
    }

    #[test]
    fn wrapping_rows() {
        let x = t((0..20).map(|v| v as f32).collect(), &[20]);
        assert_eq!(
            fmt(&x),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n        14., 15., 16., 17., 18., 19.])"
        );
        let x = t((0..20).map(|v| v as f32 + 0.5).collect(), &[20]);
        assert_eq!(
            fmt(&x),
            "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n         8.5000,  9.5000, 10.5000, 11.5000, 12.5000, 13.5000, 14.5000, 15.5000,\n        16.5000, 17.5000, 18.5000, 19.5000])"
        );
        // The dtype suffix moves to its own line when the last line is full.
        let x = t((0..18i32).collect(), &[18]);
        assert_eq!(
            fmt(&x),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17],\n       dtype=_C.int32)"
        );
        let x = t((0..20i32).collect(), &[20]);
        assert_eq!(
            fmt(&x),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19], dtype=_C.int32)"
        );
    }

    #[test]
    fn summarised() {
        let x = t((0..2002i64).collect(), &[2, 1001]);
        assert_eq!(
            fmt(&x),
            "tensor([[   0,    1,    2,  ...,  998,  999, 1000],\n        [1001, 1002, 1003,  ..., 1999, 2000, 2001]])"
        );
        let x = t((0..1100i64).collect(), &[100, 11]);
        assert_eq!(
            fmt(&x),
            "tensor([[   0,    1,    2,  ...,    8,    9,   10],\n        [  11,   12,   13,  ...,   19,   20,   21],\n        [  22,   23,   24,  ...,   30,   31,   32],\n        ...,\n        [1067, 1068, 1069,  ..., 1075, 1076, 1077],\n        [1078, 1079, 1080,  ..., 1086, 1087, 1088],\n        [1089, 1090, 1091,  ..., 1097, 1098, 1099]])"
        );
        let x = t((0..1001).map(|v| v as f32).collect(), &[1001]);
        assert_eq!(
            fmt(&x),
            "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"
        );
        // Only the shown elements decide the style: 1e-9 in the middle does not force sci mode.
        let mut v = vec![1.5f32; 2000];
        v[1000] = 1e-9;
        assert_eq!(
            fmt(&t(v, &[2000])),
            "tensor([1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000])"
        );
    }

    #[test]
    fn scalar_values() {
        assert_eq!(format_scalar_value(Scalar::Float(3.5)), "3.5000");
        assert_eq!(format_scalar_value(Scalar::Float(3.0)), "3.");
        assert_eq!(format_scalar_value(Scalar::Float(1e-5)), "1.0000e-05");
        assert_eq!(
            format_scalar_value(Scalar::Float(f64::NEG_INFINITY)),
            "-inf"
        );
        assert_eq!(format_scalar_value(Scalar::Int(-7)), "-7");
        assert_eq!(format_scalar_value(Scalar::Bool(false)), "False");
    }
}
