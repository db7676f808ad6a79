//! Driver errors in words, for the reasons nxrig gives (below every other file here).

use cudarc::driver::result::DriverError;

/// A driver error as its name and the driver's words for it
/// (`CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected`).
pub(crate) fn said(e: &DriverError) -> String {
    match (e.error_name(), e.error_string()) {
        (Ok(name), Ok(text)) => format!("{}: {}", name.to_string_lossy(), text.to_string_lossy()),
        _ => format!("{:?}", e.0),
    }
}
