//! NumPy's `.npy`: one array, a header naming its dtype, shape and order. The header is
//! parsed by the `npyz` crate; the data stays where it is.

use std::io::Cursor;

use super::{Tensor, TensorFile};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::Buffer;

/// The `.npy` type string of `d` (`"<f4"`), `None` where NumPy has no such dtype.
pub fn npy_descr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Float16 => "<f2",
        DType::Float32 => "<f4",
        DType::Float64 => "<f8",
        DType::Int8 => "|i1",
        DType::Uint8 => "|u1",
        DType::Int16 => "<i2",
        DType::Uint16 => "<u2",
        DType::Int32 => "<i4",
        DType::Uint32 => "<u4",
        DType::Int64 => "<i8",
        DType::Uint64 => "<u8",
        DType::Complex64 => "<c8",
        DType::Complex128 => "<c16",
        DType::Bool => "|b1",
        DType::Bfloat16 | DType::Float8E4m3 | DType::Float8E5m2 | DType::Int4 | DType::Uint4 => {
            return None
        }
    })
}

/// The one array of the `.npy` bytes of `buffer` (named `path` in errors) as a tensor
/// named `name`: a view of `buffer` (Fortran order as reversed strides) where aligned,
/// a copy otherwise.
///
/// # Errors
/// [`Error::Format`] for a truncated or corrupt header, a dtype nxrig does not read
/// (big-endian, structured, object arrays), or data shorter than the shape needs.
pub fn read_npy_bytes(path: &str, name: &str, buffer: Buffer) -> Result<TensorFile, Error> {
    let fmt = |reason: String| Error::Format {
        path: path.to_owned(),
        tensor: Some(name.to_owned()),
        reason,
    };
    let (header, start) = buffer.read(|bytes| {
        let mut cur = Cursor::new(bytes);
        let h = npyz::NpyHeader::from_reader(&mut cur)
            .map_err(|e| fmt(format!("bad .npy header: {e}")))?;
        Ok::<_, Error>((h, cur.position() as usize))
    })??;
    let descr = header.dtype().descr().trim_matches('\'').to_owned();
    let dtype = DType::ALL
        .into_iter()
        .find(|&d| {
            npy_descr(d) == Some(descr.as_str())
                || npy_descr(d).map(|s| s.replacen('<', "=", 1)) == Some(descr.clone())
        })
        .ok_or_else(|| fmt(format!("dtype {descr} is not one nxrig reads")))?;
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&n| usize::try_from(n).map_err(|_| fmt("shape too large".into())))
        .collect::<Result<_, _>>()?;
    let mut layout = Layout::contiguous(&shape)?;
    if header.order() == npyz::Order::Fortran {
        let mut rev = shape.clone();
        rev.reverse();
        let c = Layout::contiguous(&rev)?;
        let strides: Vec<isize> = c.strides().iter().rev().copied().collect();
        layout = Layout::new(&shape, &strides, 0)?;
    }
    let len = dtype.bytes(layout.numel())?;
    let view = buffer.view(start, len).map_err(|_| {
        fmt(format!(
            "data of {} bytes is shorter than shape {shape:?} of {dtype} needs ({len})",
            buffer.len().saturating_sub(start)
        ))
    })?;
    let array = match AnyArray::v(dtype, layout, view.clone()) {
        Ok(a) => a,
        Err(_) => AnyArray::v(dtype, layout, Buffer::of_vec(view.read(|b| b.to_vec())?))?,
    };
    Ok(TensorFile {
        tensors: vec![Tensor {
            name: name.to_owned(),
            array,
        }],
        metadata: None,
    })
}

/// The `.npy` bytes of `file`'s one tensor, in C order.
pub(super) fn to_bytes(path: &str, file: &TensorFile) -> Result<Vec<u8>, Error> {
    let [t] = file.tensors.as_slice() else {
        return Err(Error::Format {
            path: path.to_owned(),
            tensor: None,
            reason: format!("a .npy file holds one array, not {}", file.tensors.len()),
        });
    };
    let d = t.array.dtype();
    let descr = npy_descr(d).ok_or_else(|| Error::Format {
        path: path.to_owned(),
        tensor: Some(t.name.clone()),
        reason: format!("the .npy format cannot hold {d}"),
    })?;
    let shape = t.array.shape();
    let shape_s = match shape {
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
    // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
    let pad = (64 - (10 + h.len() + 1) % 64) % 64;
    h.push_str(&" ".repeat(pad));
    h.push('\n');
    let mut out = Vec::with_capacity(10 + h.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    let hl = u16::try_from(h.len()).map_err(|_| Error::Format {
        path: path.to_owned(),
        tensor: Some(t.name.clone()),
        reason: "header too long for .npy version 1.0".into(),
    })?;
    out.extend_from_slice(&hl.to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(&t.array.to_bytes()?);
    Ok(out)
}
