//! Converts a checkpoint's floating-point tensors to bfloat16 on the first GPU (the host
//! where there is none): the headers read first, the output planned and checked, then
//! each tensor read, cast and written a piece at a time into a temporary file renamed
//! once whole. What `nxrig convert` does, through the library.
//!
//!     cargo run --release --example convert_checkpoint -- IN.safetensors OUT.safetensors
//!
//! Without arguments it converts a small checkpoint it writes first, in a temporary
//! folder removed after.

use std::path::{Path, PathBuf};

use nxrig::convert::{self, Checkpoint, FileSink, Pick, Plan};
use nxrig::formats::{self, Tensor, TensorFile};
use nxrig::{Array, DType, Rig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scratch = std::env::temp_dir().join(format!("nxrig-example-{}", std::process::id()));
    let (input, output) = match args.as_slice() {
        [i, o] => (PathBuf::from(i), PathBuf::from(o)),
        [] => {
            std::fs::create_dir_all(&scratch)?;
            let input = scratch.join("model.safetensors");
            write_sample(&input)?;
            (input, scratch.join("model.bf16.safetensors"))
        }
        _ => return Err("usage: convert_checkpoint [IN.safetensors OUT.safetensors]".into()),
    };
    let r = convert_file(&input, &output);
    let _ = std::fs::remove_dir_all(&scratch);
    r
}

fn convert_file(input: &Path, output: &Path) -> Result<(), Box<dyn std::error::Error>> {
    // The headers only: the tensors' bytes are read when the conversion reaches them.
    let checkpoint = Checkpoint::open_path(input)?;
    for (_, e) in checkpoint.tensors() {
        println!("{}: {} {:?}, {} bytes", e.name, e.dtype, e.shape, e.len);
    }
    // Every float tensor to bfloat16, the others kept; checked before a byte is written.
    let plan = Plan::new(
        &checkpoint,
        &Pick::floats(DType::Bfloat16),
        &output.display().to_string(),
    )?;
    let device = Rig::by_name("gpu").unwrap_or_else(|_| Rig::host());
    let mut sink = FileSink::file(output);
    let report = pollster::block_on(convert::run(
        &checkpoint,
        &plan,
        &mut sink,
        &device,
        &mut |p| {
            if p.tensor_done {
                println!("  {} converted ({} of {} bytes)", p.tensor, p.done, p.total);
            }
        },
    ))?;
    println!(
        "{} on {}: {} tensors ({} converted), {} bytes in, {} bytes out",
        output.display(),
        device.name(),
        report.tensors,
        report.converted,
        report.bytes_in,
        report.bytes_out
    );
    Ok(())
}

/// A small checkpoint: a float32 matrix, a float16 vector and an int64 one (kept).
fn write_sample(path: &Path) -> Result<(), nxrig::Error> {
    let w: Vec<f32> = (0..64 * 32).map(|i| (i as f32 * 0.37).sin()).collect();
    let tensors = vec![
        Tensor {
            name: "encoder.weight".into(),
            array: Array::of_array(&[64, 32], &w)?.into(),
        },
        Tensor {
            name: "encoder.bias".into(),
            array: Array::<f32>::of_array(&[32], &w[..32])?
                .any()
                .cast(DType::Float16)?,
        },
        Tensor {
            name: "position_ids".into(),
            array: Array::<i64>::of_array(&[8], &[0, 1, 2, 3, 4, 5, 6, 7])?.into(),
        },
    ];
    formats::write(
        path,
        &TensorFile {
            tensors,
            metadata: None,
        },
    )
}
