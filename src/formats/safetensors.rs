//! `.safetensors`: an 8-byte little-endian header length, a JSON header, then the data.
//!
//! nxrig reads and writes the header itself (JSON through `serde_json`) rather than
//! through the `safetensors` crate, whose reader names no tensor in several errors and
//! takes seconds and a gigabyte on a legal header of a million tensors, and whose
//! writer orders `__metadata__` by a hash map (so the same conversion wrote different
//! bytes) and needs every tensor's bytes at once (a writer that streams writes the
//! header first). The rules are the format's: every tensor's bytes inside the data, in
//! one piece, none overlapping another, no byte of the data unowned; the header at most
//! 100 MB; `__metadata__` a map of strings.

use std::collections::BTreeMap;

use super::{escaped, Entry, Header, Planned};
use crate::dtype::DType;
use crate::error::Error;

/// The largest header nxrig reads (the format's own limit).
const MAX_HEADER: usize = 100_000_000;

/// The safetensors dtype name of `d` (its row's), `None` where the format has none.
pub fn safetensors_dtype(d: DType) -> Option<&'static str> {
    d.row().safetensors
}

/// Why a `.safetensors` file cannot hold `d` (a dtype without a code), naming the
/// dtype of the same widths that has one, where one does: no file changes meaning
/// silently (OCP's E4M3, `F8_E4M3`, is float8_e4m3fn, not the IEEE-like float8_e4m3).
fn no_code(d: DType) -> String {
    let widths = |o: DType| o.float_format().map(|f| (f.exponent_bits, f.fraction_bits));
    let twin = widths(d).and_then(|w| {
        DType::ALL
            .into_iter()
            .find(|&o| o != d && o.class() == d.class() && widths(o) == Some(w))
    });
    match twin.and_then(|o| Some((o, safetensors_dtype(o)?))) {
        Some((o, code)) => format!(
            "the .safetensors format has no code for {d}; its {code} is {o}, of the same widths but other special values (cast to {o} to write one)"
        ),
        None => format!("the .safetensors format cannot hold {d}"),
    }
}

/// The bytes of a tensor of `shape` and `dtype` as the format holds it: `numel *
/// packed_bits / 8`, which must be whole (a float4 tensor of an odd count has a half
/// byte, a float6 one of other than a multiple of four a part of one, which the format
/// refuses); or why not.
fn whole_bytes(shape: &[usize], dtype: DType) -> Result<u64, String> {
    let numel = super::planned_numel(shape)
        .ok_or_else(|| format!("shape {shape:?} has more elements than this platform holds"))?;
    let bits = numel as u128 * dtype.packed_bits() as u128;
    if !bits.is_multiple_of(8) {
        let per = 8 / gcd(8, dtype.packed_bits());
        return Err(format!(
            "shape {shape:?} of {dtype} is {numel} elements of {} bits, not a whole number of bytes (the .safetensors format packs {dtype} {}, and holds no part of a byte: its count must be a multiple of {per})",
            dtype.packed_bits(),
            match dtype.packed_bits() {
                6 => "four in three bytes",
                2 => "four a byte",
                1 => "eight a byte",
                _ => "two a byte",
            },
        ));
    }
    u64::try_from(bits / 8).map_err(|_| format!("shape {shape:?} has more bytes than a file holds"))
}

/// The greatest common divisor of `a` and `b`.
const fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The order the `safetensors` crate writes tensors in (the reverse of its `Dtype`
/// enum's order, widest first; then by name), kept so that nxrig's files stay byte for
/// byte what that crate writes. Its whole enum, so that a dtype nxrig adds is in it.
fn rank(d: DType) -> usize {
    const ENUM: [&str; 22] = [
        "BOOL",
        "F4",
        "F6_E2M3",
        "F6_E3M2",
        "U8",
        "I8",
        "F8_E5M2",
        "F8_E4M3",
        "F8_E8M0",
        "F8_E4M3FNUZ",
        "F8_E5M2FNUZ",
        "I16",
        "U16",
        "F16",
        "BF16",
        "I32",
        "U32",
        "F32",
        "C64",
        "F64",
        "I64",
        "U64",
    ];
    let name = safetensors_dtype(d).unwrap_or("");
    ENUM.iter()
        .rev()
        .position(|&x| x == name)
        .unwrap_or(ENUM.len())
}

/// One tensor's entry as the header writes it.
#[derive(serde::Deserialize)]
struct Info {
    dtype: String,
    shape: Vec<u64>,
    data_offsets: [u64; 2],
}

/// The bytes the header of a `.safetensors` file takes (the length field and the
/// JSON), from the file's first 8 bytes `first` (named `path` in errors).
///
/// # Errors
/// [`Error::Format`]: fewer than 8 bytes, a header over the format's 100 MB.
pub fn header_len(path: &str, first: &[u8]) -> Result<usize, Error> {
    let Some(len) = first.get(..8) else {
        return Err(Error::Format {
            path: path.to_owned(),
            tensor: None,
            reason: format!("{} bytes: too short for a header", first.len()),
        });
    };
    let n = u64::from_le_bytes(len.try_into().expect("8 bytes"));
    if n > MAX_HEADER as u64 {
        // Most often another format: say which, where its first bytes tell.
        let other = match first {
            [b'P', b'K', 3, 4, ..] => {
                " but a zip archive, as PyTorch's .bin and .pt are (nxrig reads .safetensors and .npy)"
            }
            [0x80, 2..=5, ..] => " but a Python pickle (nxrig reads .safetensors and .npy)",
            [b'G', b'G', b'U', b'F', ..] => " but a GGUF file (read as one where opened as a checkpoint)",
            _ => "",
        };
        return Err(Error::Format {
            path: path.to_owned(),
            tensor: None,
            reason: format!(
                "not a .safetensors file{other}: its first 8 bytes give a header of {n} bytes, more than the format's 100 MB"
            ),
        });
    }
    Ok(8 + n as usize)
}

/// The header of a `.safetensors` file of `file_len` bytes whose first bytes are
/// `bytes` (at least the header; named `path` in errors): each tensor's dtype, shape
/// and absolute byte range, in the header's order, and the metadata. Checks every
/// tensor's range against the data's `file_len - 8 - n` bytes.
///
/// # Errors
/// [`Error::Format`] naming the file, and the tensor at fault where one is: a
/// truncated file or header, a header over 100 MB or not a JSON object, a dtype nxrig
/// does not read, a shape whose byte count is not its range's, a range outside the
/// data, overlapping another, or leaving bytes unowned, a name given twice.
pub fn read_header(path: &str, bytes: &[u8], file_len: u64) -> Result<Header, Error> {
    let fmt = |tensor: Option<&str>, reason: String| Error::Format {
        path: path.to_owned(),
        tensor: tensor.map(str::to_owned),
        reason,
    };
    let n = header_len(path, bytes)? - 8;
    let Some(text) = bytes.get(8..8 + n).filter(|_| (8 + n) as u64 <= file_len) else {
        return Err(fmt(
            None,
            format!("a header of {n} bytes in a file of {file_len} bytes"),
        ));
    };
    let data_start = 8 + n as u64;
    let data_len = file_len - data_start;
    let text = std::str::from_utf8(text)
        .map_err(|e| fmt(None, format!("the header is not UTF-8: {e}")))?;
    let top = entries_of(text.trim_end())
        .map_err(|e| fmt(None, format!("the header is not a JSON object: {e}")))?
        .map_err(|name| fmt(Some(&name), "the header names it twice".into()))?;
    let mut metadata = None;
    let mut entries = Vec::with_capacity(top.len());
    for (name, v) in top {
        if name == "__metadata__" {
            let m: BTreeMap<String, String> = serde_json::from_str(v.get())
                .map_err(|e| fmt(None, format!("__metadata__ is not a map of strings: {e}")))?;
            metadata = Some(m);
            continue;
        }
        let f = |reason: String| fmt(Some(&name), reason);
        let info: Info = serde_json::from_str(v.get()).map_err(|e| f(format!("bad entry: {e}")))?;
        let dtype = DType::ALL
            .into_iter()
            .find(|&d| safetensors_dtype(d) == Some(info.dtype.as_str()))
            .ok_or_else(|| {
                f(format!(
                    "dtype {} is not one nxrig reads",
                    escaped(&format!("{:?}", info.dtype))
                ))
            })?;
        let (shape, _) = super::shape_bytes(&info.shape, dtype).map_err(&f)?;
        let need = whole_bytes(&shape, dtype).map_err(f)?;
        let [b, e] = info.data_offsets;
        if b > e {
            return Err(f(format!("data_offsets [{b}, {e}] end before they begin")));
        }
        if e > data_len {
            return Err(f(format!(
                "data_offsets [{b}, {e}] end past the data ({data_len} bytes): the file is {} bytes short of them (truncated?)",
                e - data_len
            )));
        }
        if e - b != need {
            return Err(f(format!(
                "data_offsets [{b}, {e}] hold {} bytes; shape {shape:?} of {dtype} needs {need}",
                e - b
            )));
        }
        entries.push(Entry {
            name,
            dtype,
            shape,
            start: data_start + b,
            len: need,
            fortran: false,
            big_endian: false,
            file_bits: dtype.packed_bits(),
            ggml: None,
        });
    }
    // Every byte of the data owned by one tensor.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| (entries[i].start, entries[i].len));
    let mut at = data_start;
    for &i in &order {
        let t = &entries[i];
        if t.start < at {
            return Err(fmt(
                Some(&t.name),
                format!(
                    "its bytes from {} overlap another tensor's (to {})",
                    t.start - data_start,
                    at - data_start
                ),
            ));
        }
        if t.start > at && t.len > 0 {
            return Err(fmt(
                Some(&t.name),
                format!(
                    "{} bytes of the data before it belong to no tensor",
                    t.start - at
                ),
            ));
        }
        at = at.max(t.start + t.len);
    }
    if at != file_len {
        return Err(fmt(
            None,
            format!(
                "{} bytes of the data after the last tensor belong to no tensor",
                file_len - at
            ),
        ));
    }
    entries.sort_by_key(|t| t.start);
    Ok(Header {
        entries,
        metadata,
        gguf: None,
    })
}

/// An entry's JSON text, borrowed from the header (parsed one entry at a time, so
/// that a header of a million tensors costs its own size, not a tree of values).
type Raw<'a> = &'a serde_json::value::RawValue;

/// The top-level entries of the JSON object `text`, in order; `Ok(Err(name))` for a
/// key given twice (serde_json's maps would keep the last silently).
fn entries_of(text: &str) -> serde_json::Result<Result<Vec<(String, Raw<'_>)>, String>> {
    struct Entries;
    impl<'de> serde::de::Visitor<'de> for Entries {
        type Value = Result<Vec<(String, Raw<'de>)>, String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(k) = m.next_key::<String>()? {
                out.push((k, m.next_value::<Raw<'de>>()?));
            }
            let mut names: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
            names.sort_unstable();
            if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                return Ok(Err(w[0].to_owned()));
            }
            Ok(Ok(out))
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let v = serde::Deserializer::deserialize_map(&mut de, Entries)?;
    de.end()?;
    Ok(v)
}

/// The header bytes (length, JSON, padding to 8) of a file holding `plan`'s tensors
/// and `metadata`, and the order the data holds them in (the `safetensors` crate's:
/// widest dtype first, then by name) as `(index into plan, byte count)`.
///
/// # Errors
/// [`Error::Format`] naming the tensor: a dtype the format cannot hold, a name the
/// format reserves (`__metadata__`) or gives twice, a shape too large.
pub(crate) fn header_bytes(
    path: &str,
    plan: &[Planned],
    metadata: Option<&BTreeMap<String, String>>,
) -> Result<(Vec<u8>, super::Order), Error> {
    let fmt = |tensor: &str, reason: String| Error::Format {
        path: path.to_owned(),
        tensor: Some(tensor.to_owned()),
        reason,
    };
    let mut order: Vec<usize> = (0..plan.len()).collect();
    order.sort_by(|&a, &b| {
        (rank(plan[a].dtype), &plan[a].name).cmp(&(rank(plan[b].dtype), &plan[b].name))
    });
    let mut json = String::from("{");
    if let Some(m) = metadata {
        json.push_str("\"__metadata__\":");
        json.push_str(&serde_json::to_string(m).expect("strings serialize"));
    }
    let mut lens = vec![0u64; plan.len()];
    let mut at = 0u64;
    for (k, &i) in order.iter().enumerate() {
        let t = &plan[i];
        let st = safetensors_dtype(t.dtype).ok_or_else(|| fmt(&t.name, no_code(t.dtype)))?;
        if t.name == "__metadata__" {
            return Err(fmt(
                &t.name,
                "the .safetensors format reserves this name for its metadata".into(),
            ));
        }
        if k > 0 && plan[order[k - 1]].name == t.name {
            return Err(fmt(&t.name, "two tensors have this name".into()));
        }
        let len = whole_bytes(&t.shape, t.dtype).map_err(|e| fmt(&t.name, e))?;
        if metadata.is_some() || k > 0 {
            json.push(',');
        }
        json.push_str(&serde_json::to_string(&t.name).expect("strings serialize"));
        json.push_str(&format!(
            ":{{\"dtype\":\"{st}\",\"shape\":{},\"data_offsets\":[{at},{}]}}",
            serde_json::to_string(&t.shape).expect("numbers serialize"),
            at + len
        ));
        lens[i] = len;
        at += len;
    }
    json.push('}');
    let pad = (8 - json.len() % 8) % 8;
    json.push_str(&" ".repeat(pad));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    Ok((out, order.iter().map(|&i| (i, lens[i])).collect()))
}
