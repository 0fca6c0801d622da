//! src/core/ops/einsum.rs: `einsum`, Einstein summation over labelled dims (PyTorch:
//! `aten/src/ATen/native/Linear.cpp`, `einsum`).
//!
//! The equation is parsed into one label per dim of each operand (`...` stands for the broadcast
//! dims, right-aligned). Each operand is then put in a canonical form: a label repeated within
//! one operand becomes a diagonal, and a label that appears in no other operand and not in the
//! output is summed out at once. Operands are contracted pairwise, left to right; each pair is
//! one batched matrix product — batch labels (in both, still needed), left-only, right-only and
//! contracted labels (in both, no longer needed) are permuted and reshaped into
//! `[batch, left, contracted] @ [batch, contracted, right]`, torch's own reduction to `bmm`.
//! Finally the result's dims are permuted into the output order.

use super::linalg::matmul;
use super::reduce_ops::sum;
use super::view::diagonal;
use super::view::{expand, permute, reshape};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::Tensor;

/// A label: a letter, or the `i`-th broadcast dim of the ellipsis (counted from the left of a
/// block of `n` ellipsis dims shared by all operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Ellipsis(usize),
    Letter(u8),
}

/// One term of the equation: letters and at most one ellipsis, in order.
#[derive(Debug)]
enum Sub {
    Letter(u8),
    Ellipsis,
}

fn parse_term(term: &str, offset: usize) -> Result<Vec<Sub>> {
    let bytes = term.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut seen_ellipsis = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'.' {
            if !term[i..].starts_with("...") || seen_ellipsis {
                return Err(Error::runtime(
                    "einsum(): found '.' for operand that is not part of any ellipsis",
                ));
            }
            seen_ellipsis = true;
            out.push(Sub::Ellipsis);
            i += 3;
        } else if c.is_ascii_alphabetic() {
            out.push(Sub::Letter(c));
            i += 1;
        } else {
            return Err(Error::runtime(format!(
                "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                offset + i
            )));
        }
    }
    Ok(out)
}

/// The labels of an operand with `ndim` dims, given its term and the ellipsis width `n_ell`.
fn labels_of(term: &[Sub], ndim: usize, n_ell: usize, index: usize) -> Result<Vec<Label>> {
    let letters = term.iter().filter(|s| matches!(s, Sub::Letter(_))).count();
    let has_ell = term.iter().any(|s| matches!(s, Sub::Ellipsis));
    if (!has_ell && letters != ndim) || (has_ell && letters > ndim) {
        return Err(Error::runtime(format!(
            "einsum(): the number of subscripts in the equation ({letters}) does not match the number of dimensions ({ndim}) for operand {index}{}",
            if has_ell { "" } else { " and no ellipsis was given" }
        )));
    }
    let e = ndim - letters; // this operand's ellipsis dims, right-aligned in the shared block
    let mut out = Vec::with_capacity(ndim);
    for s in term {
        match s {
            Sub::Letter(c) => out.push(Label::Letter(*c)),
            Sub::Ellipsis => out.extend((n_ell - e..n_ell).map(Label::Ellipsis)),
        }
    }
    Ok(out)
}

/// An operand in canonical form: unique labels, one per dim.
struct Operand {
    t: Tensor,
    labels: Vec<Label>,
}

impl Operand {
    /// Replace each pair of equal labels by their diagonal (the label moves to the end).
    fn take_diagonals(mut self, k: &EinsumKernels) -> Result<Operand> {
        loop {
            let dup = (0..self.labels.len()).find_map(|p| {
                (p + 1..self.labels.len())
                    .find(|&q| self.labels[q] == self.labels[p])
                    .map(|q| (p, q))
            });
            let Some((p, q)) = dup else { return Ok(self) };
            if self.t.sizes()[p] != self.t.sizes()[q] {
                return Err(Error::runtime(format!(
                    "einsum(): subscript {} is repeated for operand but the sizes don't match, {} != {}",
                    label_name(self.labels[p]),
                    self.t.sizes()[p],
                    self.t.sizes()[q]
                )));
            }
            let label = self.labels[p];
            self.t = (k.diagonal)(&self.t, 0, p as i64, q as i64)?;
            self.labels.remove(q);
            self.labels.remove(p);
            self.labels.push(label);
        }
    }

    /// Sum out the dims whose labels `keep` rejects.
    fn sum_out(self, k: &EinsumKernels, keep: impl Fn(Label) -> bool) -> Result<Operand> {
        let dims: Vec<i64> = (0..self.labels.len())
            .filter(|&d| !keep(self.labels[d]))
            .map(|d| d as i64)
            .collect();
        if dims.is_empty() {
            return Ok(self);
        }
        let labels = self.labels.iter().copied().filter(|&l| keep(l)).collect();
        Ok(Operand {
            t: (k.sum)(&self.t, Some(&dims), false, None)?,
            labels,
        })
    }

    fn size_of(&self, l: Label) -> Option<usize> {
        self.labels
            .iter()
            .position(|&x| x == l)
            .map(|d| self.t.sizes()[d])
    }

    /// The tensor with its dims permuted to `order` (all of its labels) and broadcast to `sizes`,
    /// then reshaped to `groups` (a product of sizes per group).
    fn arrange(
        &self,
        k: &EinsumKernels,
        order: &[Label],
        sizes: &[usize],
        groups: &[usize],
    ) -> Result<Tensor> {
        let perm: Vec<i64> = order
            .iter()
            .map(|l| {
                self.labels
                    .iter()
                    .position(|x| x == l)
                    .expect("label present") as i64
            })
            .collect();
        let t = (k.permute)(&self.t, &perm)?;
        let t = (k.expand)(&t, &sizes.iter().map(|&s| s as i64).collect::<Vec<_>>())?;
        (k.reshape)(&t, &groups.iter().map(|&s| s as i64).collect::<Vec<_>>())
    }
}

fn label_name(l: Label) -> String {
    match l {
        Label::Letter(c) => (c as char).to_string(),
        Label::Ellipsis(i) => format!("...[{i}]"),
    }
}

/// Contract `a` and `b`, keeping the labels `keep` accepts (needed by the output or by later
/// operands): one batched matrix product.
fn contract(
    k: &EinsumKernels,
    a: Operand,
    b: Operand,
    keep: &dyn Fn(Label) -> bool,
) -> Result<Operand> {
    let in_b = |l: &Label| b.labels.contains(l);
    let batch: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && keep(*l))
        .collect();
    let contracted: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && !keep(*l))
        .collect();
    let left: Vec<Label> = a.labels.iter().copied().filter(|l| !in_b(l)).collect();
    let right: Vec<Label> = b
        .labels
        .iter()
        .copied()
        .filter(|l| !a.labels.contains(l))
        .collect();
    let mut size = |l: Label| -> Result<usize> {
        match (a.size_of(l), b.size_of(l)) {
            (Some(x), Some(y)) if x == y || y == 1 => Ok(x),
            (Some(1), Some(y)) => Ok(y),
            (Some(x), Some(y)) => Err(Error::runtime(format!(
                "einsum(): operands do not broadcast: subscript {} has size {x} for one operand and {y} for another",
                label_name(l)
            ))),
            (Some(x), None) | (None, Some(x)) => Ok(x),
            (None, None) => unreachable!("every label belongs to an operand"),
        }
    };
    let sizes = |ls: &[Label],
                 size: &mut dyn FnMut(Label) -> Result<usize>|
     -> Result<Vec<usize>> { ls.iter().map(|&l| size(l)).collect() };
    let (bs, ls, cs, rs) = (
        sizes(&batch, &mut size)?,
        sizes(&left, &mut size)?,
        sizes(&contracted, &mut size)?,
        sizes(&right, &mut size)?,
    );
    let prod = |v: &[usize]| v.iter().product::<usize>();
    let a_order: Vec<Label> = batch
        .iter()
        .chain(&left)
        .chain(&contracted)
        .copied()
        .collect();
    let a_sizes: Vec<usize> = bs.iter().chain(&ls).chain(&cs).copied().collect();
    let b_order: Vec<Label> = batch
        .iter()
        .chain(&contracted)
        .chain(&right)
        .copied()
        .collect();
    let b_sizes: Vec<usize> = bs.iter().chain(&cs).chain(&rs).copied().collect();
    let am = a.arrange(k, &a_order, &a_sizes, &[prod(&bs), prod(&ls), prod(&cs)])?;
    let bm = b.arrange(k, &b_order, &b_sizes, &[prod(&bs), prod(&cs), prod(&rs)])?;
    let out = (k.matmul)(&am, &bm)?;
    let out_sizes: Vec<i64> = bs.iter().chain(&ls).chain(&rs).map(|&s| s as i64).collect();
    let labels = batch.into_iter().chain(left).chain(right).collect();
    Ok(Operand {
        t: (k.reshape)(&out, &out_sizes)?,
        labels,
    })
}

/// `einsum(equation, tensors)`: sums the product of the operands over the labels the equation
/// contracts (torch's `torch.einsum`). Equation syntax: comma-separated subscripts of letters
/// with at most one `...` each, optionally `->` and the output subscripts (default: the
/// ellipsis dims, then the letters that appear once, in alphabetical order). Operands must have
/// one dtype. Errors are `Runtime`, with torch's texts: a subscript that is not a letter, a count
/// of subscripts that does not match an operand's dims, sizes that differ for one label, an
/// output subscript that is repeated or appears in no operand, and too many or too few operands.
pub fn einsum(equation: &str, tensors: &[Tensor]) -> Result<Tensor> {
    einsum_with(&EINSUM_BARE, equation, tensors)
}

/// `sum(input, dim, keepdim, dtype)`.
pub type SumFn = fn(&Tensor, Option<&[i64]>, bool, Option<DType>) -> Result<Tensor>;

/// The ops einsum is made of. `einsum_with` runs it over the bare ops (`EINSUM_BARE`) or over the
/// recording wrappers (`vt::einsum`, src/core/autograd/composite.rs): einsum is differentiable
/// through them, as torch's einsum (a composite there too) is.
pub struct EinsumKernels {
    pub diagonal: fn(&Tensor, i64, i64, i64) -> Result<Tensor>,
    pub sum: SumFn,
    pub permute: fn(&Tensor, &[i64]) -> Result<Tensor>,
    pub expand: fn(&Tensor, &[i64]) -> Result<Tensor>,
    pub reshape: fn(&Tensor, &[i64]) -> Result<Tensor>,
    pub matmul: fn(&Tensor, &Tensor) -> Result<Tensor>,
}

/// The bare ops (no autograd).
pub const EINSUM_BARE: EinsumKernels = EinsumKernels {
    diagonal,
    sum,
    permute,
    expand,
    reshape,
    matmul,
};

/// `einsum` over the ops `k`.
pub fn einsum_with(k: &EinsumKernels, equation: &str, tensors: &[Tensor]) -> Result<Tensor> {
    if tensors.is_empty() {
        return Err(Error::runtime(
            "einsum(): must provide at least one operand",
        ));
    }
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let mut terms = Vec::new();
    let mut offset = 0;
    for term in lhs.split(',') {
        terms.push(parse_term(term, offset)?);
        offset += term.len() + 1;
    }
    if terms.len() != tensors.len() {
        return Err(Error::runtime(if terms.len() < tensors.len() {
            "einsum(): more operands were provided than specified in the equation"
        } else {
            "einsum(): fewer operands were provided than specified in the equation"
        }));
    }
    // The ellipsis covers as many dims as the widest operand leaves to it.
    let n_ell = terms
        .iter()
        .zip(tensors)
        .filter(|(t, _)| t.iter().any(|s| matches!(s, Sub::Ellipsis)))
        .map(|(t, x)| {
            x.dim()
                .saturating_sub(t.iter().filter(|s| matches!(s, Sub::Letter(_))).count())
        })
        .max()
        .unwrap_or(0);
    let mut operands = Vec::with_capacity(tensors.len());
    for (i, (term, t)) in terms.iter().zip(tensors).enumerate() {
        let labels = labels_of(term, t.dim(), n_ell, i)?;
        operands.push(
            Operand {
                t: t.clone(),
                labels,
            }
            .take_diagonals(k)?,
        );
    }
    let output: Vec<Label> = match rhs {
        Some(r) => {
            let subs = parse_term(r, lhs.len() + 2)?;
            let mut out = Vec::new();
            for s in &subs {
                match s {
                    Sub::Letter(c) => {
                        let l = Label::Letter(*c);
                        if out.contains(&l) {
                            return Err(Error::runtime(format!(
                                "einsum(): output subscript {} appears more than once in the output",
                                *c as char
                            )));
                        }
                        if !operands.iter().any(|o| o.labels.contains(&l)) {
                            return Err(Error::runtime(format!(
                                "einsum(): output subscript {} does not appear in the equation for any input operand",
                                *c as char
                            )));
                        }
                        out.push(l);
                    }
                    Sub::Ellipsis => out.extend((0..n_ell).map(Label::Ellipsis)),
                }
            }
            // An explicit output without `...` sums the broadcast dims away, as torch does
            // (`einsum("...ij->ij", x)`); they are labels like any other absent from it.
            out
        }
        None => {
            let mut once: Vec<u8> = Vec::new();
            for c in b'A'..=b'z' {
                let n: usize = terms
                    .iter()
                    .map(|t| {
                        t.iter()
                            .filter(|s| matches!(s, Sub::Letter(x) if *x == c))
                            .count()
                    })
                    .sum();
                if n == 1 {
                    once.push(c);
                }
            }
            (0..n_ell)
                .map(Label::Ellipsis)
                .chain(once.into_iter().map(Label::Letter))
                .collect()
        }
    };
    // A label needed after operand `i`: in the output or in a later operand.
    let needed_after = |i: usize, ops: &[Operand], l: Label| {
        output.contains(&l) || ops[i + 1..].iter().any(|o| o.labels.contains(&l))
    };
    let mut ops = operands;
    for i in 0..ops.len() {
        let others: Vec<Label> = ops
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, o)| o.labels.clone())
            .collect();
        let op = std::mem::replace(
            &mut ops[i],
            Operand {
                t: tensors[0].clone(),
                labels: vec![],
            },
        );
        ops[i] = op.sum_out(k, |l| output.contains(&l) || others.contains(&l))?;
    }
    let mut acc = ops[0].t.clone();
    let mut acc_labels = ops[0].labels.clone();
    for i in 1..ops.len() {
        let rest = &ops;
        let keep = |l: Label| needed_after(i, rest, l);
        let a = Operand {
            t: acc,
            labels: acc_labels,
        };
        let b = Operand {
            t: ops[i].t.clone(),
            labels: ops[i].labels.clone(),
        };
        let c = contract(k, a, b, &keep)?;
        acc = c.t;
        acc_labels = c.labels;
    }
    let perm: Vec<i64> = output
        .iter()
        .map(|l| {
            acc_labels
                .iter()
                .position(|x| x == l)
                .expect("output labels survive") as i64
        })
        .collect();
    (k.permute)(&acc, &perm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::DType;

    fn ar(n: usize, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).map(|x| x as f32).collect::<Vec<f32>>(), shape).unwrap()
    }

    #[test]
    fn common_forms_match_torch() {
        let a = ar(6, &[2, 3]);
        let b = ar(12, &[3, 4]);
        // torch.einsum('ij,jk->ik', arange(6.).reshape(2,3), arange(12.).reshape(3,4))
        let mm = einsum("ij,jk->ik", &[a.clone(), b.clone()]).unwrap();
        assert_eq!(
            mm.to_vec::<f32>(),
            vec![20., 23., 26., 29., 56., 68., 80., 92.]
        );
        assert_eq!(
            einsum("ij,jk", &[a.clone(), b]).unwrap().to_vec::<f32>(),
            mm.to_vec::<f32>()
        );
        assert_eq!(
            einsum("ij->ji", std::slice::from_ref(&a)).unwrap().sizes(),
            &[3, 2]
        );
        assert_eq!(
            einsum("ij->", std::slice::from_ref(&a))
                .unwrap()
                .to_vec::<f32>(),
            vec![15.]
        );
        assert_eq!(
            einsum("ij->j", std::slice::from_ref(&a))
                .unwrap()
                .to_vec::<f32>(),
            vec![3., 5., 7.]
        );
        let sq = ar(9, &[3, 3]);
        assert_eq!(
            einsum("ii", std::slice::from_ref(&sq))
                .unwrap()
                .to_vec::<f32>(),
            vec![12.]
        ); // trace
        assert_eq!(
            einsum("ii->i", &[sq]).unwrap().to_vec::<f32>(),
            vec![0., 4., 8.]
        );
        let v = ar(3, &[3]);
        assert_eq!(
            einsum("i,i->", &[v.clone(), v.clone()])
                .unwrap()
                .to_vec::<f32>(),
            vec![5.]
        );
        assert_eq!(
            einsum("i,j->ij", &[v.clone(), v.clone()])
                .unwrap()
                .to_vec::<f32>()[5],
            2.
        );
        // batched matmul with ellipsis: (2,2,3) @ (3,2)
        let x = ar(12, &[2, 2, 3]);
        let y = ar(6, &[3, 2]);
        let r = einsum("...ij,jk->...ik", &[x, y]).unwrap();
        assert_eq!(r.sizes(), &[2, 2, 2]);
        assert_eq!(
            r.to_vec::<f32>(),
            vec![10., 13., 28., 40., 46., 67., 64., 94.]
        );
        assert_eq!(r.dtype(), DType::Float32);
    }

    #[test]
    fn errors() {
        let a = ar(6, &[2, 3]);
        assert!(einsum("ij,jk", std::slice::from_ref(&a))
            .unwrap_err()
            .message
            .contains("fewer operands"));
        assert!(einsum("i", std::slice::from_ref(&a))
            .unwrap_err()
            .message
            .contains("does not match the number of dimensions"));
        assert!(einsum("i1", std::slice::from_ref(&a))
            .unwrap_err()
            .message
            .contains("invalid subscript"));
        assert!(einsum("ij->k", std::slice::from_ref(&a))
            .unwrap_err()
            .message
            .contains("does not appear"));
        assert!(einsum("ij->ii", std::slice::from_ref(&a))
            .unwrap_err()
            .message
            .contains("more than once"));
        let b = ar(8, &[4, 2]);
        assert!(einsum("ij,jk", &[a, b])
            .unwrap_err()
            .message
            .contains("broadcast"));
    }
}
