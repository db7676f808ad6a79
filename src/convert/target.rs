//! The dtype a conversion writes, by name: the command line's `--to` and
//! JavaScript's `options.to`.

use crate::dtype::DType;
use crate::error::Error;
use crate::formats::GGML_TYPES;

/// The dtype `name` names (`"float16"`, `"bf16"`: any name or alias the dtype table
/// takes), the target of a conversion.
///
/// # Errors
/// [`Error::UnknownDtype`] (with every dtype's name) for a name that names none;
/// [`Error::Invalid`] (op `--to`) for one of GGUF's block-quantized types (`q8_0`,
/// `Q4_K_M`'s `Q4_K`), saying that nxrig reads and dequantizes them but writes dtypes.
///
/// ```
/// use nxrig::{convert::target_dtype, DType};
/// assert_eq!(target_dtype("bfloat16")?, DType::Bfloat16);
/// let e = target_dtype("q4_k_m").unwrap_err().to_string();
/// assert!(e.contains("Q4_K is one of GGUF's block-quantized types"), "{e}");
/// # Ok::<(), nxrig::Error>(())
/// ```
pub fn target_dtype(name: &str) -> Result<DType, Error> {
    name.parse().map_err(|e| block_type(name).unwrap_or(e))
}

/// The refusal of `name` where it is one of GGUF's block types, with or without
/// llama.cpp's mix suffix (`_S`, `_M`, `_L`).
fn block_type(name: &str) -> Option<Error> {
    let upper = name.to_ascii_uppercase();
    let base = ["_M", "_S", "_L"]
        .iter()
        .find_map(|s| upper.strip_suffix(s))
        .unwrap_or(&upper);
    let t = GGML_TYPES
        .iter()
        .find(|t| t.dtype.is_none() && (t.name == upper || t.name == base))?;
    Some(Error::Invalid {
        op: "--to",
        reason: format!(
            "{} is one of GGUF's block-quantized types, which nxrig {} but does not \
             write: --to takes a dtype (float16, bfloat16, float32, float8_e4m3fn, ...; \
             an unknown name is answered with the list)",
            t.name,
            if crate::quant::dequantizes(*t) {
                "reads and dequantizes"
            } else {
                "lists"
            }
        ),
        operands: String::new(),
    })
}
