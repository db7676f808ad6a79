//! NumPy's `.npy`: one array, a header naming its dtype, shape and order.
//!
//! The header's dict is parsed by the `npyz` crate, guarded before the call: its
//! length must fit in the file (npyz allocates what the length field says) and its
//! brackets may nest at most [`MAX_DEPTH`] deep (npyz's parser takes time exponential
//! in the nesting). Every dtype NumPy writes for nxrig's dtypes is read: either byte
//! order (big-endian data swapped once, on read), the byte-order marks writers put on
//! one-byte dtypes (`<u1`, `>i1`, `|b1`), C and Fortran order.

use std::io::Cursor;

use super::{Entry, Header, Planned};
use crate::dtype::DType;
use crate::error::Error;

/// How deep brackets may nest in a header nxrig reads: the dict, the shape's tuple,
/// and two more than nxrig's dtypes need.
const MAX_DEPTH: usize = 4;

/// The longest header nxrig reads, NumPy's own default (`max_header_size`): the
/// parser's time and memory grow faster than the header.
const MAX_HEADER: usize = 10_000;

/// The `.npy` type string of `d` (`"<f4"`: its row's), `None` where NumPy has no such
/// dtype.
pub fn npy_descr(d: DType) -> Option<&'static str> {
    d.row().npy
}

/// The dtype a `.npy` type string names, and whether its data is big-endian.
fn dtype_of(descr: &str) -> Option<(DType, bool)> {
    let mut c = descr.chars();
    let order = c.next()?;
    let rest = c.as_str();
    let d = DType::ALL
        .into_iter()
        .find(|&d| npy_descr(d).is_some_and(|s| &s[1..] == rest))?;
    let one_byte = d.storage_bytes() == 1;
    match order {
        // `|` ("not applicable") NumPy reads as the machine's order, little-endian.
        '<' | '=' | '|' => Some((d, false)),
        '>' => Some((d, !one_byte)),
        _ => None,
    }
}

/// The width in bytes of a void type string's elements (`|V2`, `<V1`: raw bytes, as
/// NumPy writes a dtype it does not know, ml_dtypes' among them), `None` for another.
fn void_width(descr: &str) -> Option<usize> {
    let rest = descr
        .strip_prefix(['<', '>', '|', '='])?
        .strip_prefix('V')?;
    match rest.parse::<usize>() {
        Ok(w @ (1 | 2 | 4 | 8 | 16)) => Some(w),
        _ => None,
    }
}

/// The magic and length fields of a `.npy` file: its header's length and where the
/// header starts.
fn lengths(bytes: &[u8]) -> Result<(usize, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    match bytes[6] {
        1 => Ok((u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)),
        2 | 3 if bytes.len() >= 12 => Ok((
            u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize,
            12,
        )),
        v => Err(format!(
            ".npy version {v}.{} is not one nxrig reads",
            bytes[7]
        )),
    }
}

/// The prefix of a `.npy` file: the header's text and where the data starts.
fn prefix(bytes: &[u8]) -> Result<(&[u8], usize), String> {
    let (len, at) = lengths(bytes)?;
    match bytes.get(at..at.saturating_add(len)) {
        Some(h) => Ok((h, at + len)),
        None => Err(format!(
            "the header's length field says {len} bytes, but the file has {} after it",
            bytes.len().saturating_sub(at)
        )),
    }
}

/// The bytes the prefix and header of a `.npy` file take, from its first bytes.
///
/// # Errors
/// [`Error::Format`] naming the file and the tensor: no magic, an unknown version, a
/// header longer than NumPy reads.
pub(crate) fn header_len(
    path: &str,
    name: &str,
    first: &[u8],
    file_len: u64,
) -> Result<usize, Error> {
    let fmt = |reason: String| Error::Format {
        path: path.to_owned(),
        tensor: Some(name.to_owned()),
        reason,
    };
    let (len, at) = lengths(first).map_err(fmt)?;
    let after = file_len.saturating_sub(at as u64);
    if len as u64 > after {
        return Err(fmt(format!(
            "the header's length field says {len} bytes, but the file has {after} after it"
        )));
    }
    if len > MAX_HEADER {
        return Err(fmt(format!(
            "a header of {len} bytes: more than NumPy reads ({MAX_HEADER})"
        )));
    }
    Ok(at + len)
}

/// The dimensions of the `'shape'` tuple in the header dictionary `header`, where
/// every one is a whole number (`None` otherwise: the parser then says what is wrong).
fn shape_in(header: &[u8]) -> Option<Vec<u64>> {
    let text = std::str::from_utf8(header).ok()?;
    let at = text.find("'shape'").or_else(|| text.find("\"shape\""))?;
    let rest = &text[at + 7..];
    let open = rest.find('(')?;
    let close = rest[open..].find(')')? + open;
    rest[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<u64>().ok())
        .collect()
}

/// How deep brackets nest in `header`, outside quoted strings.
fn depth(header: &[u8]) -> usize {
    let (mut d, mut most, mut quote) = (0usize, 0usize, None);
    for &b in header {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'(' | b'[' | b'{') => {
                d += 1;
                most = most.max(d);
            }
            (None, b')' | b']' | b'}') => d = d.saturating_sub(1),
            _ => {}
        }
    }
    most
}

/// The header of the `.npy` bytes (named `path` in errors) as tensor `name`: its dtype,
/// shape, byte range, Fortran order and byte order; void elements (`|V1`, `<V2`, raw
/// bytes: NumPy's way of saving ml_dtypes' bfloat16, float8s, int4) read as `void_as`,
/// a dtype held in as many bytes (int4, uint4 and float4_e2m1fn one a byte, as
/// ml_dtypes holds them: packed two a byte when the array is made). Reads only the
/// header.
///
/// # Errors
/// [`Error::Format`] naming the file and the tensor: no magic, an unknown version, a
/// header length past the file, a header nested deeper than nxrig reads or that does
/// not parse (the parser's first line), a dtype nxrig does not read (structured,
/// object), void elements (`|V1`, `<V2`) without `void_as` or of another width than
/// its, `void_as` for a file whose type string names its dtype, a shape too large,
/// data shorter than the shape needs.
pub fn read_header(
    path: &str,
    name: &str,
    bytes: &[u8],
    file_len: u64,
    void_as: Option<DType>,
) -> Result<Header, Error> {
    let fmt = |reason: String| Error::Format {
        path: path.to_owned(),
        tensor: Some(name.to_owned()),
        reason,
    };
    let (text, start) = prefix(bytes).map_err(fmt)?;
    let rest = file_len.saturating_sub(start as u64);
    if text.len() > MAX_HEADER {
        return Err(fmt(format!(
            "a header of {} bytes: more than NumPy reads ({MAX_HEADER})",
            text.len()
        )));
    }
    let deep = depth(text);
    if deep > MAX_DEPTH {
        return Err(fmt(format!(
            "the header nests brackets {deep} deep; nxrig reads at most {MAX_DEPTH}"
        )));
    }
    // The parser multiplies the shape's dimensions unchecked: a product past 2^64 is
    // refused before it reads them.
    if let Some(shape) = shape_in(text) {
        super::shape_bytes(&shape, DType::Uint8).map_err(fmt)?;
    }
    let h = npyz::NpyHeader::from_reader(&mut Cursor::new(&bytes[..start])).map_err(|e| {
        let e = e.to_string();
        fmt(format!(
            "bad .npy header: {}",
            e.lines().next().unwrap_or("")
        ))
    })?;
    let descr = h.dtype().descr().trim_matches('\'').to_owned();
    let (dtype, big, file_bits) = match (void_width(&descr), void_as) {
        (Some(w), Some(d)) if d.storage_bytes() == w => (d, false, 8 * w as u32),
        (Some(w), Some(d)) => {
            return Err(fmt(format!(
                "its elements are {descr}, {w} bytes each, and {d} is held in {} (name a dtype of {w})",
                d.storage_bytes()
            )))
        }
        (Some(w), None) => {
            return Err(fmt(format!(
                "its elements are {descr}: {w} raw bytes each, as NumPy saves ml_dtypes' arrays (bfloat16, the float8s, int4, ...); name their dtype (--npy-dtype on the command line, options.npyDtype of openCheckpoint in JavaScript)"
            )))
        }
        (None, Some(d)) => {
            return Err(fmt(format!(
                "{d} was named for void elements (|V1, <V2), and the file's are {descr}, which it names itself"
            )))
        }
        (None, None) => {
            let (d, big) = dtype_of(&descr).ok_or_else(|| {
                fmt(format!(
                    "dtype {descr} is not one nxrig reads (it reads f2 f4 f8 i1 u1 i2 u2 i4 u4 i8 u8 c8 c16 b1, either byte order, and V1 V2 V4 V8 V16 with a dtype named)"
                ))
            })?;
            (d, big, d.bits())
        }
    };
    let (shape, _) = super::shape_bytes(h.shape(), dtype).map_err(fmt)?;
    let numel = super::planned_numel(&shape).unwrap_or(0);
    let len = u64::try_from((numel as u128 * file_bits as u128).div_ceil(8))
        .map_err(|_| fmt(format!("shape {shape:?} has more bytes than a file holds")))?;
    if rest < len {
        return Err(fmt(format!(
            "data of {rest} bytes is shorter than shape {shape:?} of {dtype} needs ({len})"
        )));
    }
    Ok(Header {
        entries: vec![Entry {
            name: name.to_owned(),
            dtype,
            shape,
            start: start as u64,
            len,
            fortran: h.order() == npyz::Order::Fortran,
            big_endian: big,
            file_bits,
            ggml: None,
        }],
        metadata: None,
        gguf: None,
    })
}

/// The `.npy` header bytes (magic, version, length, dict, padding) of `t`, C order.
///
/// # Errors
/// [`Error::Format`] naming the tensor: a dtype `.npy` cannot hold (bfloat16, the
/// float8s, int4, uint4).
pub(crate) fn header_bytes(path: &str, t: &Planned) -> Result<Vec<u8>, Error> {
    let descr = npy_descr(t.dtype).ok_or_else(|| Error::Format {
        path: path.to_owned(),
        tensor: Some(t.name.clone()),
        reason: format!("the .npy format cannot hold {}", t.dtype),
    })?;
    let shape_s = match t.shape.as_slice() {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_s}, }}");
    // Version 1.0 while the header's length fits 16 bits, else 2.0 (32 bits); the
    // whole prefix padded to 64 bytes.
    let v1 = 10 + h.len() < 65536 - 64;
    let fixed = if v1 { 10 } else { 12 };
    let pad = (64 - (fixed + h.len() + 1) % 64) % 64;
    h.push_str(&" ".repeat(pad));
    h.push('\n');
    let mut out = Vec::with_capacity(fixed + h.len());
    if v1 {
        out.extend_from_slice(b"\x93NUMPY\x01\x00");
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(b"\x93NUMPY\x02\x00");
        out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(h.as_bytes());
    Ok(out)
}
