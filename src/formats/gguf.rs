//! GGUF, llama.cpp's format (versions 2 and 3): the header read from a file's first
//! bytes (as many as it takes, asked for in growing reads: a 100 GB file opens in the
//! time of its header), its metadata's key-values, and each tensor's ggml type, shape
//! (ggml's `ne` reversed into C order) and byte range, every claim checked against the
//! file before anything of its size is allocated.
//!
//! A tensor of a plain ggml type (F32, F16, BF16, F64, I8 to I64) is an [`Entry`] of
//! the nxrig dtype it is, read as any file's; one of a block-quantized type (Q4_K,
//! Q8_0, MXFP4, ...) is an entry whose [`Entry::ggml`] names the type, its `dtype`
//! float32 (what it dequantizes to), its bytes whole blocks.

use std::collections::BTreeMap;

use super::{Entry, Header};
use crate::dtype::DType;
use crate::error::{escaped, Error};

/// A ggml tensor type: its name and code in a GGUF file, its block (elements, and the
/// bytes a block takes), and the nxrig dtype a plain type is.
///
/// ```
/// use nxrig::formats::GgmlType;
///
/// let q = GgmlType::of_code(12).unwrap();
/// assert_eq!((q.name, q.block, q.block_bytes), ("Q4_K", 256, 144));
/// assert_eq!(GgmlType::of_code(30).unwrap().dtype, Some(nxrig::DType::Bfloat16));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GgmlType {
    /// ggml's name (`Q4_K`, `BF16`, ...).
    pub name: &'static str,
    /// Its code in a GGUF file's tensor infos.
    pub code: u32,
    /// The elements of a block (1 for a plain type).
    pub block: u32,
    /// The bytes of a block.
    pub block_bytes: u32,
    /// The nxrig dtype of a plain type (read without a copy); `None` for a quantized
    /// one.
    pub dtype: Option<DType>,
}

/// A row of the table: name, code, block, block bytes, dtype.
const fn t(
    name: &'static str,
    code: u32,
    block: u32,
    block_bytes: u32,
    dtype: Option<DType>,
) -> GgmlType {
    GgmlType {
        name,
        code,
        block,
        block_bytes,
        dtype,
    }
}

/// Every ggml type, as `gguf` 0.19's `GGML_QUANT_SIZES` gives them (`QK_K` = 256).
pub const GGML_TYPES: [GgmlType; 34] = [
    t("F32", 0, 1, 4, Some(DType::Float32)),
    t("F16", 1, 1, 2, Some(DType::Float16)),
    t("Q4_0", 2, 32, 2 + 16, None),
    t("Q4_1", 3, 32, 2 + 2 + 16, None),
    t("Q5_0", 6, 32, 2 + 4 + 16, None),
    t("Q5_1", 7, 32, 2 + 2 + 4 + 16, None),
    t("Q8_0", 8, 32, 2 + 32, None),
    t("Q8_1", 9, 32, 4 + 4 + 32, None),
    t("Q2_K", 10, 256, 2 + 2 + 16 + 64, None),
    t("Q3_K", 11, 256, 2 + 64 + 32 + 12, None),
    t("Q4_K", 12, 256, 2 + 2 + 128 + 12, None),
    t("Q5_K", 13, 256, 2 + 2 + 128 + 32 + 12, None),
    t("Q6_K", 14, 256, 2 + 128 + 64 + 16, None),
    t("Q8_K", 15, 256, 4 + 256 + 32, None),
    t("IQ2_XXS", 16, 256, 2 + 64, None),
    t("IQ2_XS", 17, 256, 2 + 64 + 8, None),
    t("IQ3_XXS", 18, 256, 2 + 64 + 32, None),
    t("IQ1_S", 19, 256, 2 + 32 + 16, None),
    t("IQ4_NL", 20, 32, 2 + 16, None),
    t("IQ3_S", 21, 256, 2 + 64 + 32 + 8 + 4, None),
    t("IQ2_S", 22, 256, 2 + 64 + 16, None),
    t("IQ4_XS", 23, 256, 2 + 2 + 128 + 4, None),
    t("I8", 24, 1, 1, Some(DType::Int8)),
    t("I16", 25, 1, 2, Some(DType::Int16)),
    t("I32", 26, 1, 4, Some(DType::Int32)),
    t("I64", 27, 1, 8, Some(DType::Int64)),
    t("F64", 28, 1, 8, Some(DType::Float64)),
    t("IQ1_M", 29, 256, 32 + 16 + 8, None),
    t("BF16", 30, 1, 2, Some(DType::Bfloat16)),
    t("TQ1_0", 34, 256, 2 + 52, None),
    t("TQ2_0", 35, 256, 2 + 64, None),
    t("MXFP4", 39, 32, 1 + 16, None),
    t("NVFP4", 40, 64, 4 + 32, None),
    t("Q1_0", 41, 128, 2 + 16, None),
];

impl GgmlType {
    /// The type of `code`, `None` for a code ggml does not give (or has retired).
    pub fn of_code(code: u32) -> Option<GgmlType> {
        GGML_TYPES.iter().copied().find(|t| t.code == code)
    }
}

/// What a GGUF file's header holds beyond its tensors: its version and alignment, and
/// its metadata as JSON values (an array of more than [`GGUF_ARRAY_SHOWN`] elements given as
/// `{"type": ..., "length": ...}`, as a vocabulary is).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GgufInfo {
    /// The file's version (2 or 3).
    pub version: u32,
    /// The alignment of its tensors' data, in bytes (`general.alignment`, 32 where it
    /// is not given).
    pub alignment: u64,
    /// Every key-value, in the file's order.
    pub values: Vec<(String, serde_json::Value)>,
}

/// The elements of an array kept in [`GgufInfo::values`]; a longer array is given as
/// its type and length.
pub const GGUF_ARRAY_SHOWN: u64 = 64;

/// GGUF's magic, `GGUF` as bytes.
pub(crate) const MAGIC: &[u8; 4] = b"GGUF";

/// Where reading stopped: the header ran past the bytes given (`Short`, with how many
/// to read next), or the file is bad (an error).
enum Stop {
    Short(u64),
    Bad(String, Option<String>),
}

/// The bytes of a header being read, and where: every read is checked against the
/// bytes given (`Short` past them) and the file's length (an error past it).
struct Cursor<'a> {
    bytes: &'a [u8],
    at: u64,
    file_len: u64,
}

impl Cursor<'_> {
    /// `n` bytes from here, `what` named where they are past the file.
    fn take(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<&[u8], Stop> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.file_len)
            .ok_or_else(|| {
                Stop::Bad(
                    format!(
                        "{} ({n} bytes at byte {}) runs past the file's end ({} bytes)",
                        what(),
                        self.at,
                        self.file_len
                    ),
                    None,
                )
            })?;
        if end > self.bytes.len() as u64 {
            // Read on: twice what was read, at least to here and a MiB more.
            let want = (2 * self.bytes.len() as u64).max(end + (1 << 20));
            return Err(Stop::Short(want.min(self.file_len)));
        }
        let s = &self.bytes[self.at as usize..end as usize];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, Stop> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &dyn Fn() -> String) -> Result<u64, Stop> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    /// A string: its `u64` length, then its bytes.
    fn string(&mut self, what: &dyn Fn() -> String) -> Result<&[u8], Stop> {
        let n = self.u64(what)?;
        self.take(n, &|| format!("the string of {}", what()))
    }
}

/// The value types of GGUF's key-values: `(code, name, bytes)`, bytes 0 for a string
/// or an array.
const VALUE_TYPES: [(u32, &str, u64); 13] = [
    (0, "uint8", 1),
    (1, "int8", 1),
    (2, "uint16", 2),
    (3, "int16", 2),
    (4, "uint32", 4),
    (5, "int32", 4),
    (6, "float32", 4),
    (7, "bool", 1),
    (8, "string", 0),
    (9, "array", 0),
    (10, "uint64", 8),
    (11, "int64", 8),
    (12, "float64", 8),
];

/// A scalar of value type `code` from `b` (its bytes) as JSON.
fn scalar(code: u32, b: &[u8]) -> serde_json::Value {
    use serde_json::Value as V;
    let u = |n: usize| -> u64 {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(w)
    };
    match code {
        0 | 2 | 4 | 10 => V::from(u(b.len())),
        1 => V::from(b[0] as i8),
        3 => V::from(i16::from_le_bytes([b[0], b[1]])),
        5 => V::from(u(4) as u32 as i32),
        11 => V::from(u(8) as i64),
        6 => float(f32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as f64),
        12 => float(f64::from_le_bytes(b[..8].try_into().expect("8 bytes"))),
        _ => V::Bool(b[0] != 0),
    }
}

/// A float as JSON: a number where finite, else its name as a string.
fn float(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x).map_or_else(
        || serde_json::Value::from(x.to_string()),
        serde_json::Value::Number,
    )
}

/// One value of type `code` read as JSON (`key` named in errors).
fn value(c: &mut Cursor<'_>, code: u32, key: &str, depth: u32) -> Result<serde_json::Value, Stop> {
    let what = || format!("the value of {}", escaped(key));
    let Some(&(_, _, bytes)) = VALUE_TYPES.iter().find(|v| v.0 == code) else {
        return Err(Stop::Bad(
            format!(
                "{} has value type {code}, which GGUF does not define",
                escaped(key)
            ),
            None,
        ));
    };
    match code {
        8 => Ok(String::from_utf8_lossy(c.string(&what)?)
            .into_owned()
            .into()),
        9 => {
            if depth > 0 {
                return Err(Stop::Bad(
                    format!(
                        "{} is an array of arrays nested deeper than nxrig reads",
                        escaped(key)
                    ),
                    None,
                ));
            }
            let of = c.u32(&what)?;
            let n = c.u64(&what)?;
            let Some(&(_, name, each)) = VALUE_TYPES.iter().find(|v| v.0 == of) else {
                return Err(Stop::Bad(
                    format!(
                        "{} is an array of value type {of}, which GGUF does not define",
                        escaped(key)
                    ),
                    None,
                ));
            };
            // Each element takes a byte at least (a string's length 8): a count the
            // file cannot hold is refused before a byte of it is allocated.
            let least = if each == 0 { 8 } else { each };
            if n.checked_mul(least).is_none_or(|b| b > c.file_len - c.at) {
                return Err(Stop::Bad(
                    format!(
                        "{} claims {n} elements of {name}, more than the file's {} bytes left hold",
                        escaped(key),
                        c.file_len - c.at
                    ),
                    None,
                ));
            }
            if each > 0 {
                // Fixed-width elements: kept whole where short, skipped where long.
                let b = c.take(n * each, &what)?;
                if n > GGUF_ARRAY_SHOWN {
                    return Ok(serde_json::json!({ "type": name, "length": n }));
                }
                return Ok(b
                    .chunks_exact(each as usize)
                    .map(|e| scalar(of, e))
                    .collect());
            }
            let mut kept = Vec::new();
            for _ in 0..n {
                let v = value(c, of, key, depth + 1)?;
                if n <= GGUF_ARRAY_SHOWN {
                    kept.push(v);
                }
            }
            if n > GGUF_ARRAY_SHOWN {
                return Ok(serde_json::json!({ "type": name, "length": n }));
            }
            Ok(kept.into())
        }
        _ => Ok(scalar(code, c.take(bytes, &what)?)),
    }
}

/// The header of a GGUF file of `file_len` bytes from its first bytes `bytes` and
/// the byte it ends at (its tensor infos' end), or how many bytes to read to go on
/// (`Ok(Err(n))`).
fn read(path: &str, bytes: &[u8], file_len: u64) -> Result<Result<(Header, u64), u64>, Error> {
    match parse(bytes, file_len) {
        Ok(r) => Ok(Ok(r)),
        Err(Stop::Short(n)) => Ok(Err(n)),
        Err(Stop::Bad(reason, tensor)) => Err(Error::Format {
            path: path.to_owned(),
            tensor,
            reason,
        }),
    }
}

/// GGUF's default alignment, where `general.alignment` is not given.
const DEFAULT_ALIGNMENT: u64 = 32;

/// The dimensions ggml gives a tensor at most.
const MAX_DIMS: u32 = 4;

/// [`read`]'s work: the header and its end, or where it stopped.
fn parse(bytes: &[u8], file_len: u64) -> Result<(Header, u64), Stop> {
    let mut c = Cursor {
        bytes,
        at: 0,
        file_len,
    };
    let head = || "the header".to_owned();
    if c.take(4, &head)? != MAGIC {
        return Err(Stop::Bad(
            "not a GGUF file: it does not begin with GGUF".into(),
            None,
        ));
    }
    let version = c.u32(&head)?;
    match version {
        2 | 3 => {}
        1 => {
            return Err(Stop::Bad(
                "GGUF version 1 (2023, 32-bit counts): nxrig reads versions 2 and 3".into(),
                None,
            ))
        }
        v if v.swap_bytes() <= 3 => {
            return Err(Stop::Bad(
                format!(
                    "a big-endian GGUF file (version {}): nxrig reads little-endian ones",
                    v.swap_bytes()
                ),
                None,
            ))
        }
        v => {
            return Err(Stop::Bad(
                format!("GGUF version {v}: nxrig reads versions 2 and 3"),
                None,
            ))
        }
    }
    let n_tensors = c.u64(&|| "the tensor count".to_owned())?;
    let n_values = c.u64(&|| "the key-value count".to_owned())?;
    // A key-value takes 12 bytes at least, a tensor's info 24.
    let left = file_len - c.at;
    if n_values.checked_mul(12).is_none_or(|b| b > left)
        || n_tensors.checked_mul(24).is_none_or(|b| b > left)
    {
        return Err(Stop::Bad(format!("the header claims {n_tensors} tensors and {n_values} key-values, more than the file's {left} bytes hold"), None));
    }
    let mut values = Vec::new();
    let mut metadata = BTreeMap::new();
    let mut alignment = DEFAULT_ALIGNMENT;
    for k in 0..n_values {
        let key_bytes = c.string(&|| format!("key-value {k}'s key"))?;
        let key = std::str::from_utf8(key_bytes)
            .map_err(|_| Stop::Bad(format!("key-value {k}'s key is not UTF-8"), None))?
            .to_owned();
        let code = c.u32(&|| format!("{}'s value type", escaped(&key)))?;
        let v = value(&mut c, code, &key, 0)?;
        if key == "general.alignment" {
            alignment = v
                .as_u64()
                .filter(|&a| code == 4 && a.is_power_of_two())
                .ok_or_else(|| {
                    Stop::Bad(
                        format!("general.alignment is {v}, not a power of two as a uint32"),
                        None,
                    )
                })?;
        }
        if values.iter().any(|(k, _): &(String, _)| *k == key) {
            return Err(Stop::Bad(
                format!("the key {} is given twice", escaped(&key)),
                None,
            ));
        }
        // A split file's own `split.*` keys say where it is among its splits, which a
        // conversion's output does not keep: they stay in the JSON only.
        if !v.is_array() && !v.is_object() && !key.starts_with("split.") {
            let text = match &v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            metadata.insert(key.clone(), text);
        }
        values.push((key, v));
    }
    let mut infos = Vec::new();
    for k in 0..n_tensors {
        let name_bytes = c.string(&|| format!("tensor {k}'s name"))?;
        let name = std::str::from_utf8(name_bytes)
            .map_err(|_| Stop::Bad(format!("tensor {k}'s name is not UTF-8"), None))?
            .to_owned();
        let bad = |reason: String| Stop::Bad(reason, Some(name.clone()));
        let what = || format!("the info of tensor {}", escaped(&name));
        let dims = c.u32(&what)?;
        if dims > MAX_DIMS {
            return Err(bad(format!(
                "{dims} dimensions; ggml gives a tensor {MAX_DIMS} at most"
            )));
        }
        let mut ne = Vec::with_capacity(dims as usize);
        for _ in 0..dims {
            ne.push(c.u64(&what)?);
        }
        let code = c.u32(&what)?;
        let ty = GgmlType::of_code(code)
            .ok_or_else(|| bad(format!("ggml type {code}, which nxrig does not know")))?;
        let offset = c.u64(&what)?;
        infos.push((name, ne, ty, offset));
    }
    let end = c.at;
    let data_start = end.next_multiple_of(alignment);
    if data_start > file_len {
        return Err(Stop::Bad(
            format!(
                "the data would start at byte {data_start}, past the file's end ({file_len} bytes)"
            ),
            None,
        ));
    }
    let data_len = file_len - data_start;
    let mut entries = Vec::with_capacity(infos.len());
    for (name, ne, ty, offset) in infos {
        let bad = |reason: String| Stop::Bad(reason, Some(name.clone()));
        if entries.iter().any(|e: &Entry| e.name == name) {
            return Err(bad("the file names it twice".into()));
        }
        let numel = ne.iter().try_fold(1u64, |a, &x| a.checked_mul(x));
        let shape: Vec<u64> = ne.iter().rev().copied().collect();
        let Some(numel) = numel else {
            return Err(bad(format!(
                "shape {shape:?} has more elements than a file holds"
            )));
        };
        if ne.first().is_some_and(|&x| x % ty.block as u64 != 0) {
            return Err(bad(format!(
                "{} blocks of {} elements do not divide its rows of {}",
                ty.name, ty.block, ne[0]
            )));
        }
        let len = numel / ty.block as u64 * ty.block_bytes as u64;
        if !offset.is_multiple_of(alignment) {
            return Err(bad(format!(
                "its data at byte {offset} of the data is not aligned to {alignment} bytes"
            )));
        }
        if offset.checked_add(len).is_none_or(|e| e > data_len) {
            return Err(bad(format!("its {len} bytes at byte {offset} of the data run past the file's end (the data holds {data_len})")));
        }
        let shape: Vec<usize> = shape
            .iter()
            .map(|&x| usize::try_from(x))
            .collect::<Result<_, _>>()
            .map_err(|_| {
                bad(format!(
                    "shape {shape:?} is larger than this platform holds"
                ))
            })?;
        let (dtype, file_bits) = match ty.dtype {
            Some(d) => (d, d.packed_bits()),
            None => (DType::Float32, 0),
        };
        entries.push(Entry {
            name,
            dtype,
            shape,
            start: data_start + offset,
            len,
            fortran: false,
            big_endian: false,
            file_bits,
            ggml: ty.dtype.is_none().then_some(ty),
        });
    }
    // No two tensors' bytes overlap.
    entries.sort_by_key(|e| (e.start, e.len));
    for w in entries.windows(2) {
        if w[0].start + w[0].len > w[1].start && w[1].len > 0 {
            return Err(Stop::Bad(
                format!("its bytes overlap those of {}", escaped(&w[0].name)),
                Some(w[1].name.clone()),
            ));
        }
    }
    let info = GgufInfo {
        version,
        alignment,
        values,
    };
    let header = Header {
        entries,
        metadata: Some(metadata),
        gguf: Some(Box::new(info)),
    };
    Ok((header, end))
}

/// How many bytes of the file's start to read for its header: the header's own length
/// where `first` holds all of it, else more than `first` holds (read them and ask
/// again).
///
/// # Errors
/// [`Error::Format`]: not GGUF, another version, a claim past the file.
pub(crate) fn header_len(path: &str, first: &[u8], file_len: u64) -> Result<usize, Error> {
    let n = match read(path, first, file_len)? {
        Ok((_, end)) => end,
        Err(n) => n,
    };
    usize::try_from(n).map_err(|_| Error::Format {
        path: path.to_owned(),
        tensor: None,
        reason: format!("a header of more than {n} bytes, more than this platform holds"),
    })
}

/// The header of a GGUF file of `file_len` bytes from its first bytes `bytes` (at
/// least [`header_len`] of them).
///
/// # Errors
/// [`Error::Format`] naming the file, and the tensor or key at fault: a truncated
/// header, a count or length past the file, an unknown ggml type or value type, a
/// tensor past the end or overlapping another, an alignment not a power of two.
pub(crate) fn read_header(path: &str, bytes: &[u8], file_len: u64) -> Result<Header, Error> {
    match read(path, bytes, file_len)? {
        Ok((header, _)) => Ok(header),
        Err(_) => Err(Error::Format {
            path: path.to_owned(),
            tensor: None,
            reason: format!(
                "nxrig bug: the header was read from {} bytes, fewer than it takes",
                bytes.len()
            ),
        }),
    }
}
