//! Tensors paired into groups by name (a weight with its scale, zero points, group
//! index and per-tensor scale), every pair complete and every shape what the scheme
//! and its blocks imply, checked before a byte is written.

use std::collections::{BTreeMap, BTreeSet};

use super::detect::Quantization;
use super::scheme::{GlobalOp, Nibbles, Packing, Scheme};
use crate::dtype::DType;
use crate::error::Error;
use crate::formats::Entry;

/// One tensor of a group: where it is and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The checkpoint's file that holds it (an index into its shards).
    pub shard: usize,
    /// Its index in that file's header.
    pub entry: usize,
    /// Its name.
    pub name: String,
    /// Its dtype.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<usize>,
}

/// A weight with its partners, and the tensor they make: `W = (q - z) * s [* g or
/// / g]`, each element the exact value rounded once into the target dtype.
#[derive(Clone, Debug)]
pub struct Group {
    /// The output tensor's name.
    pub name: String,
    /// Its shape (a linear layer's `[out, in]`; gpt-oss' experts `[E, in, out]`).
    pub shape: Vec<usize>,
    /// The scheme.
    pub scheme: &'static Scheme,
    /// How its weight holds its elements: the scheme's, but for DeepSeek-V4's routed
    /// experts (float4 pairs in `I8` tensors in a checkpoint of float8 blocks).
    pub packing: Packing,
    /// The packed or float8 weight.
    pub weight: Part,
    /// Its scales.
    pub scale: Part,
    /// Its zero points, where it has them.
    pub zero: Option<Part>,
    /// Its group index (the group of each input), where it has one.
    pub g_idx: Option<Part>,
    /// Its per-tensor scale, where it has one.
    pub global: Option<Part>,
    /// The tensors dropped with it (activation scales, a stored shape).
    pub dropped: Vec<Part>,
    /// The block a scale covers, `[rows, columns]` of the scale's own axes as the
    /// output holds them: a float8 scheme's block; `[1, 16]` or `[1, 32]` for FP4;
    /// `[1, group]` for the integer schemes (GPTQ's and AWQ's along the output's
    /// columns, its input axis).
    pub block: [usize; 2],
    /// The integer schemes' bits a value.
    pub bits: u32,
    /// GPTQ's zero points stored minus one.
    pub zeros_minus_one: bool,
    /// GPTQ's `sym`: every zero point `2^(bits-1)`, checked.
    pub symmetric: bool,
    /// A float4 pair's even element's nibble.
    pub nibbles: Nibbles,
}

impl Group {
    /// The output's rows and columns: its shape as `[R, C]`, every axis but the last
    /// in `R`.
    pub fn rows_cols(&self) -> (usize, usize) {
        let c = *self.shape.last().unwrap_or(&1);
        let r = self.shape.iter().rev().skip(1).product();
        (r, c)
    }

    /// What the per-tensor scale does.
    pub fn global_op(&self) -> Option<GlobalOp> {
        self.scheme.global.map(|(_, op)| op)
    }

    /// Every input tensor of the group, the weight first.
    pub fn inputs(&self) -> impl Iterator<Item = &Part> {
        [Some(&self.weight), Some(&self.scale)]
            .into_iter()
            .chain([
                self.zero.as_ref(),
                self.g_idx.as_ref(),
                self.global.as_ref(),
            ])
            .flatten()
    }
}

/// A checkpoint's tensors sorted out by a scheme: its groups, and the tensors they
/// take (every part and every dropped tensor), by `(shard, entry)`.
#[derive(Clone, Debug, Default)]
pub struct Grouping {
    /// The groups, in order of their weight's place in the checkpoint.
    pub groups: Vec<Group>,
    /// Each tensor a group takes: the group's index.
    pub taken: BTreeMap<(usize, usize), usize>,
}

fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

impl Grouping {
    /// The groups of the tensors `entries` (each with its shard's index and its index
    /// there, and the file it is in for messages) under `q`.
    ///
    /// # Errors
    /// [`Error::Format`] naming the file and the tensor: a weight without its scale
    /// (or zero points, or per-tensor scale) in any shard, a scale without its weight,
    /// a partner of a dtype the scheme does not hold, a shape other than the weight's
    /// and the blocks imply (the expected and the found shape), a packed axis that is
    /// not whole.
    pub fn new<'a>(
        entries: impl IntoIterator<Item = (usize, usize, &'a str, &'a Entry)>,
        q: &Quantization,
    ) -> Result<Grouping, Error> {
        let all: Vec<(usize, usize, &str, &Entry)> = entries.into_iter().collect();
        let by_name: BTreeMap<&str, (usize, usize, &str, &Entry)> =
            all.iter().map(|&t| (t.3.name.as_str(), t)).collect();
        let s = q.scheme;
        let part = |t: (usize, usize, &str, &Entry)| Part {
            shard: t.0,
            entry: t.1,
            name: t.3.name.clone(),
            dtype: t.3.dtype,
            shape: t.3.shape.clone(),
        };
        let mut out = Grouping::default();
        for &(shard, entry, file, e) in &all {
            let Some(module) = e.name.strip_suffix(s.weight) else {
                continue;
            };
            // DeepSeek-V4's routed experts: float4 pairs in int8 tensors, where the
            // configuration says so (`expert_dtype: "fp4"`).
            let fp4_experts =
                q.fp4_experts && s.packing == Packing::Float8 && e.dtype == DType::Int8;
            if !(s.weight_dtypes.contains(&e.dtype) || fp4_experts) || q.leaves(module) {
                continue;
            }
            let fail = |reason: String| Error::Format {
                path: file.to_owned(),
                tensor: Some(e.name.clone()),
                reason,
            };
            let find = |suffix: &str| by_name.get(format!("{module}{suffix}").as_str()).copied();
            let scale = s.scale.iter().find_map(|x| find(x)).ok_or_else(|| {
                fail(format!(
                    "a weight ({}) without its scale: no tensor {} in any file",
                    s.name,
                    s.scale
                        .iter()
                        .map(|x| format!("{:?}", format!("{module}{x}")))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ))
            })?;
            let needed = |suffix: Option<&str>, what: &str| -> Result<_, Error> {
                match suffix {
                    None => Ok(None),
                    Some(x) => find(x).map(|t| Ok(Some(t))).unwrap_or_else(|| {
                        Err(fail(format!(
                            "a weight ({}) without its {what}: no tensor {:?} in any file",
                            s.name,
                            format!("{module}{x}")
                        )))
                    }),
                }
            };
            let zero = match s.packing {
                // compressed-tensors' symmetric groups have no zero points.
                Packing::IntRows => s.zero.and_then(find),
                _ => needed(s.zero, "zero points")?,
            };
            let global = needed(s.global.map(|g| g.0), "per-tensor scale")?;
            let g_idx = s.g_idx.and_then(find);
            let dropped: Vec<Part> = s.dropped.iter().filter_map(|x| find(x)).map(part).collect();
            let mut g = Group {
                name: format!("{module}{}", s.out),
                shape: Vec::new(),
                scheme: s,
                packing: if fp4_experts { Packing::Fp4 } else { s.packing },
                weight: part((shard, entry, file, e)),
                scale: part(scale),
                zero: zero.map(part),
                g_idx: g_idx.map(part),
                global: global.map(part),
                dropped,
                block: [1, 1],
                bits: q.bits,
                zeros_minus_one: q.zeros_minus_one,
                symmetric: q.symmetric,
                nibbles: q.nibbles,
            };
            check(&mut g, q).map_err(|(t, reason)| Error::Format {
                path: file.to_owned(),
                tensor: Some(t),
                reason,
            })?;
            let k = out.groups.len();
            for p in g.inputs().chain(&g.dropped) {
                out.taken.insert((p.shard, p.entry), k);
            }
            out.groups.push(g);
        }
        // A partner whose weight is not here (or not of the scheme's dtypes).
        let taken: BTreeSet<(usize, usize)> = out.taken.keys().copied().collect();
        for &(shard, entry, file, e) in &all {
            if taken.contains(&(shard, entry)) {
                continue;
            }
            let partner = s
                .scale
                .iter()
                .copied()
                .chain(s.zero)
                .chain(s.global.map(|g| g.0))
                .find(|x| e.name.ends_with(x));
            let Some(x) = partner else { continue };
            // `.scale` ends many names (a norm's): only a UE8M0 one is a block scale.
            if x == ".scale" && e.dtype != DType::Float8E8m0fnu {
                continue;
            }
            let module = &e.name[..e.name.len() - x.len()];
            if q.leaves(module) {
                continue;
            }
            let weight = format!("{module}{}", s.weight);
            let why = match by_name.get(weight.as_str()) {
                None => format!("no tensor {weight:?} in any file"),
                Some(w) => format!(
                    "{weight:?} is {}, not {}",
                    w.3.dtype,
                    s.weight_dtypes
                        .iter()
                        .map(|d| d.name())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            };
            return Err(Error::Format {
                path: file.to_owned(),
                tensor: Some(e.name.clone()),
                reason: format!("a partner ({}) without its weight: {why}", s.name),
            });
        }
        Ok(out)
    }
}

fn shape_str(s: &[usize]) -> String {
    format!("{s:?}")
}

/// Checks a group's dtypes and shapes and sets its output shape and block: `Err`
/// names the tensor at fault and why.
fn check(g: &mut Group, q: &Quantization) -> Result<(), (String, String)> {
    let s = g.scheme;
    let w = &g.weight;
    let bad = |p: &Part, why: String| Err((p.name.clone(), why));
    if !s.scale_dtypes.contains(&g.scale.dtype) {
        return bad(
            &g.scale,
            format!(
                "a scale ({}) of {}, not {}",
                s.name,
                g.scale.dtype,
                s.scale_dtypes
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        );
    }
    let want = |p: &Part, shape: &[usize], how: &str| {
        if p.shape != shape {
            Err((
                p.name.clone(),
                format!(
                    "shape {}, expected {} ({how}, from {:?} of shape {})",
                    shape_str(&p.shape),
                    shape_str(shape),
                    w.name,
                    shape_str(&w.shape)
                ),
            ))
        } else {
            Ok(())
        }
    };
    let rank = w.shape.len();
    if let Some(gl) = &g.global {
        if numel(&gl.shape) != 1 || gl.dtype != DType::Float32 {
            return bad(
                gl,
                format!(
                    "a per-tensor scale of {} {}, expected one float32",
                    gl.dtype,
                    shape_str(&gl.shape)
                ),
            );
        }
    }
    match g.packing {
        Packing::Float8 => {
            if rank < 2 {
                return bad(
                    w,
                    format!(
                        "a float8 weight of shape {}: expected two axes or more",
                        shape_str(&w.shape)
                    ),
                );
            }
            let (m, n) = (w.shape[rank - 2], w.shape[rank - 1]);
            g.shape = w.shape.clone();
            let sc = &g.scale.shape;
            let lead = &w.shape[..rank - 2];
            let block = if q.block != [0, 0] {
                q.block
            } else if numel(sc) == 1 {
                [m.max(1), n.max(1)]
            } else if sc.len() == rank && sc[rank - 1] == 1 && sc[rank - 2] == m {
                [1, n.max(1)]
            } else {
                return bad(
                    &g.scale,
                    format!(
                        "shape {}: neither one scale, nor one a row ({:?}), and the configuration names no block",
                        shape_str(sc),
                        [lead, &[m, 1]].concat()
                    ),
                );
            };
            g.block = block;
            if numel(sc) == 1 && block == [m.max(1), n.max(1)] {
                return Ok(());
            }
            let expect = [lead, &[m.div_ceil(block[0]), n.div_ceil(block[1])]].concat();
            want(
                &g.scale,
                &expect,
                &format!("ceil(dim / block) for blocks of {block:?}"),
            )
        }
        Packing::Fp4 => {
            if rank < 2 {
                return bad(
                    w,
                    format!(
                        "a packed float4 weight of shape {}: expected two axes or more",
                        shape_str(&w.shape)
                    ),
                );
            }
            let c = w.shape[rank - 1] * 2;
            // DeepSeek-V4's experts: a UE8M0 scale each 32 inputs.
            let block = if s.block > 0 { s.block } else { 32 };
            g.shape = [&w.shape[..rank - 1], &[c]].concat();
            g.block = [1, block];
            let expect = [&w.shape[..rank - 1], &[c.div_ceil(block)]].concat();
            want(
                &g.scale,
                &expect,
                &format!("a scale for each {block} of the {c} inputs"),
            )
        }
        Packing::Fp4Experts => {
            if rank < 3 || w.shape[rank - 1] != 16 {
                return bad(
                    w,
                    format!(
                        "gpt-oss blocks of shape {}: expected [.., rows, K / 32, 16]",
                        shape_str(&w.shape)
                    ),
                );
            }
            let (n, kb) = (w.shape[rank - 3], w.shape[rank - 2]);
            let lead = &w.shape[..rank - 3];
            g.shape = [lead, &[kb * 32, n]].concat();
            g.block = [32, 1];
            want(
                &g.scale,
                &[lead, &[n, kb]].concat(),
                "a scale for each 32 inputs",
            )
        }
        Packing::IntRows | Packing::IntGptq | Packing::IntAwq => check_ints(g, q),
    }
}

fn check_ints(g: &mut Group, q: &Quantization) -> Result<(), (String, String)> {
    let w = g.weight.clone();
    let per = (32 / g.bits) as usize;
    let bad = |p: &Part, why: String| Err((p.name.clone(), why));
    if w.shape.len() != 2 {
        return bad(
            &w,
            format!(
                "a packed weight of shape {}: expected two axes",
                shape_str(&w.shape)
            ),
        );
    }
    for p in [g.zero.as_ref(), g.g_idx.as_ref()].into_iter().flatten() {
        if p.dtype != DType::Int32 {
            return bad(p, format!("{}, expected int32", p.dtype));
        }
    }
    // (out, in) of the output, and the scale's shape as stored: one axis the groups.
    let (out, inn) = match g.packing {
        Packing::IntRows => (w.shape[0], w.shape[1] * per),
        Packing::IntGptq => (w.shape[1], w.shape[0] * per),
        _ => (w.shape[1] * per, w.shape[0]),
    };
    g.shape = vec![out, inn];
    let sc = g.scale.shape.clone();
    let groups = match (g.packing, sc.as_slice()) {
        (Packing::IntRows, [o, k]) if *o == out => *k,
        (Packing::IntGptq | Packing::IntAwq, [k, o]) if *o == out => *k,
        _ => {
            let expect = if g.packing == Packing::IntRows {
                format!("[{out}, groups]")
            } else {
                format!("[groups, {out}]")
            };
            return bad(
                &g.scale,
                format!(
                    "shape {}, expected {expect} (from {:?} of shape {})",
                    shape_str(&sc),
                    w.name,
                    shape_str(&w.shape)
                ),
            );
        }
    };
    let group = if q.group > 0 {
        q.group
    } else {
        inn.div_ceil(groups.max(1)).max(1)
    };
    if groups != inn.div_ceil(group) {
        return bad(
            &g.scale,
            format!(
                "shape {}: {groups} groups, expected ceil({inn} / {group}) = {} for groups of {group}",
                shape_str(&sc),
                inn.div_ceil(group)
            ),
        );
    }
    g.block = [1, group];
    if let Some(gi) = &g.g_idx {
        if gi.shape != [inn] {
            return bad(
                gi,
                format!(
                    "shape {}, expected [{inn}] (a group for each input)",
                    shape_str(&gi.shape)
                ),
            );
        }
    }
    if let Some(z) = &g.zero {
        let expect = match g.packing {
            Packing::IntRows => vec![out.div_ceil(per), groups],
            _ => vec![groups, out.div_ceil(per)],
        };
        if z.shape != expect {
            return bad(
                z,
                format!(
                    "shape {}, expected {} (zero points packed {per} a word)",
                    shape_str(&z.shape),
                    shape_str(&expect)
                ),
            );
        }
    }
    Ok(())
}
