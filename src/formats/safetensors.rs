//! `.safetensors`: an 8-byte little-endian header length, a JSON header, then the data.
//! Parsing and validation are the `safetensors` crate's.

use safetensors::tensor::{Dtype as St, SafeTensors, TensorView};

use super::{Tensor, TensorFile};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::Buffer;

/// The safetensors dtype of `d`, `None` where the format has none.
pub fn safetensors_dtype(d: DType) -> Option<St> {
    Some(match d {
        DType::Float16 => St::F16,
        DType::Bfloat16 => St::BF16,
        DType::Float8E4m3 => St::F8_E4M3,
        DType::Float8E5m2 => St::F8_E5M2,
        DType::Float32 => St::F32,
        DType::Float64 => St::F64,
        DType::Int8 => St::I8,
        DType::Uint8 => St::U8,
        DType::Int16 => St::I16,
        DType::Uint16 => St::U16,
        DType::Int32 => St::I32,
        DType::Uint32 => St::U32,
        DType::Int64 => St::I64,
        DType::Uint64 => St::U64,
        DType::Complex64 => St::C64,
        DType::Bool => St::BOOL,
        DType::Int4 | DType::Uint4 | DType::Complex128 => return None,
    })
}

fn dtype_of(st: St) -> Option<DType> {
    DType::ALL
        .into_iter()
        .find(|&d| safetensors_dtype(d) == Some(st))
}

/// The tensors of the `.safetensors` bytes of `buffer` (named `path` in errors): views
/// of `buffer` where aligned for their dtype, copies otherwise.
///
/// # Errors
/// [`Error::Format`] for a truncated or corrupt header, offsets out of the data or
/// overlapping, a byte count that does not match the shape, or a dtype nxrig lacks.
pub fn read_safetensors_bytes(path: &str, buffer: Buffer) -> Result<TensorFile, Error> {
    let fmt = |tensor: Option<String>, reason: String| Error::Format {
        path: path.to_owned(),
        tensor,
        reason,
    };
    let (file, data_start) = buffer.read(|bytes| -> Result<_, Error> {
        let (n, meta) = SafeTensors::read_metadata(bytes).map_err(|e| fmt(None, e.to_string()))?;
        let st = SafeTensors::deserialize(bytes).map_err(|e| fmt(None, e.to_string()))?;
        let mut out = TensorFile {
            tensors: Vec::new(),
            metadata: meta.metadata().clone(),
        };
        let mut spans = Vec::new();
        for (name, info) in meta.tensors() {
            let dtype = dtype_of(info.dtype).ok_or_else(|| {
                fmt(
                    Some(name.clone()),
                    format!("dtype {:?} is not one nxrig knows", info.dtype),
                )
            })?;
            spans.push((name, dtype, info.shape.clone(), info.data_offsets));
        }
        drop(st);
        spans.sort_by_key(|s| s.3);
        out.tensors.reserve(spans.len());
        Ok(((out, spans), 8 + n))
    })??;
    let (mut out, spans) = file;
    for (name, dtype, shape, (start, end)) in spans {
        let f = |reason: String| fmt(Some(name.clone()), reason);
        let view = buffer
            .view(data_start + start, end - start)
            .map_err(|e| f(e.to_string()))?;
        let layout = Layout::contiguous(&shape).map_err(|e| f(e.to_string()))?;
        let array = match AnyArray::v(dtype, layout, view.clone()) {
            Ok(a) => a,
            // Misaligned for its dtype: copy into aligned memory.
            Err(_) => AnyArray::of_bytes(dtype, &shape, view.read(|b| b.to_vec())?)
                .map_err(|e| f(e.to_string()))?,
        };
        out.tensors.push(Tensor { name, array });
    }
    Ok(out)
}

/// The `.safetensors` bytes of `file`, tensors in order of name (the format sorts them).
pub(super) fn to_bytes(path: &str, file: &TensorFile) -> Result<Vec<u8>, Error> {
    let mut data = Vec::with_capacity(file.tensors.len());
    for t in &file.tensors {
        let d = t.array.dtype();
        let st = safetensors_dtype(d).ok_or_else(|| Error::Format {
            path: path.to_owned(),
            tensor: Some(t.name.clone()),
            reason: format!("the .safetensors format cannot hold {d}"),
        })?;
        data.push((
            t.name.clone(),
            st,
            t.array.shape().to_vec(),
            t.array.to_bytes()?,
        ));
    }
    let views = data
        .iter()
        .map(|(n, st, shape, b)| {
            TensorView::new(*st, shape.clone(), b)
                .map(|v| (n.clone(), v))
                .map_err(|e| Error::Format {
                    path: path.to_owned(),
                    tensor: Some(n.clone()),
                    reason: e.to_string(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, file.metadata.clone()).map_err(|e| Error::Format {
        path: path.to_owned(),
        tensor: None,
        reason: e.to_string(),
    })
}
