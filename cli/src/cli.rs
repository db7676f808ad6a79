//! Argument parsing (clap), the `devices` command, and errors as one line: `nxrig:
//! FILE: tensor "NAME": REASON` on standard error, exit status 2.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nxrig::Rig;

use crate::process::{install_handlers, say, without_driver_chatter};

/// n-dimensional arrays over device buffers: inspect and convert tensor files.
#[derive(Parser)]
#[command(name = "nxrig", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the devices nxrig can use.
    Devices,
    /// Print each tensor's name, dtype, shape and bytes (from the headers alone).
    Info {
        /// A .safetensors, .npy or .gguf file (a split GGUF by any of its splits: its
        /// ggml types shown), a sharded checkpoint's index (model.safetensors.index.json),
        /// or a model's folder (its tensors with its config.json: the scheme of its
        /// block-scaled weights and their pairs are printed too).
        file: PathBuf,
        /// Print JSON: every tensor's name, dtype, shape, bytes and offset (and shard),
        /// and the metadata.
        #[arg(long)]
        json: bool,
        /// The dtype of a .npy file's void elements (|V1, <V2: raw bytes, as NumPy saves
        /// ml_dtypes' bfloat16, float8s, int4, ...), by name or alias; a file whose
        /// header names its dtype is refused with it.
        #[arg(long, value_name = "DTYPE")]
        npy_dtype: Option<String>,
        /// The scheme of block-scaled weights, over what the folder's files say (see
        /// `nxrig convert --help`).
        #[arg(long, value_name = "SCHEME")]
        scheme: Option<String>,
    },
    /// Convert floating-point tensors (or those --tensors matches) to DTYPE.
    Convert {
        /// A .safetensors, .npy or .gguf file (its block-quantized tensors dequantized; a
        /// split GGUF by any of its splits, into a folder), a sharded checkpoint's index
        /// (model.safetensors.index.json), or a model's folder (its tensors, config.json
        /// and other files; block-scaled weights are dequantized as its configuration
        /// says).
        input: PathBuf,
        /// The output file, its extension naming the format; for an index or a folder,
        /// the folder the new shards, index and other files go into.
        output: PathBuf,
        /// The target dtype, by name or alias (bfloat16, bf16, float8_e4m3fn, ...); an
        /// unknown one is refused with the list of every name.
        #[arg(long)]
        to: String,
        /// Convert the tensors whose names match this glob, whatever their dtype,
        /// instead of every floating-point tensor.
        #[arg(long)]
        tensors: Option<String>,
        /// The device to convert on: `host`, `gpu` (the first GPU), `gpu1`, ..., `cuda0`,
        /// `cuda1`, ... (a build with the cargo feature `cuda`), or a name that `nxrig
        /// devices` lists. The output is the same on every device.
        #[arg(long, default_value = "host")]
        device: String,
        /// The dtype of a .npy file's void elements (|V1, <V2: raw bytes, as NumPy saves
        /// ml_dtypes' bfloat16, float8s, int4, ...), by name or alias; a file whose
        /// header names its dtype is refused with it.
        #[arg(long, value_name = "DTYPE")]
        npy_dtype: Option<String>,
        /// Saturate: a value past the target dtype's largest finite (and an infinity)
        /// becomes that largest finite of its sign, not an infinity or a NaN (a NaN
        /// stays a NaN). Without it, a warning names the tensors where any did.
        #[arg(long)]
        saturate: bool,
        /// The scheme of block-scaled weights, over what config.json and
        /// hf_quant_config.json say: fp8-block, fp8, mxfp4, nvfp4, nvfp4-pack-quantized,
        /// mxfp4-pack-quantized, pack-quantized, gptq (zero points stored minus one),
        /// gptq-v2 (stored as they are), awq (`none`: cast every tensor as it is,
        /// dequantizing nothing).
        #[arg(long, value_name = "SCHEME")]
        scheme: Option<String>,
        /// Which nibble of a byte of two float4s holds the even element: low-first (every
        /// published layout nxrig knows) or high-first.
        #[arg(long, value_name = "ORDER", default_value = "low-first")]
        nibbles: String,
        /// Leave the block-scaled weights whose output names match this glob packed, with
        /// their scales, as they are (the folder's config.json then keeps its
        /// quantization_config).
        #[arg(long, value_name = "GLOB")]
        keep_quantized: Option<String>,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    install_handlers();
    let r = match cli.command {
        Command::Devices => devices(),
        Command::Info {
            file,
            json,
            npy_dtype,
            scheme,
        } => crate::info::info(&file, json, npy_dtype.as_deref(), scheme.as_deref()),
        Command::Convert {
            input,
            output,
            to,
            tensors,
            device,
            npy_dtype,
            saturate,
            scheme,
            nibbles,
            keep_quantized,
        } => crate::convert::convert(crate::convert::Args {
            input: &input,
            output: &output,
            to: &to,
            tensors: tensors.as_deref(),
            device: &device,
            npy_dtype: npy_dtype.as_deref(),
            saturate,
            scheme: scheme.as_deref(),
            nibbles: &nibbles,
            keep_quantized: keep_quantized.as_deref(),
        }),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!, which panics when standard error cannot be written.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "nxrig: {e}");
            ExitCode::from(2)
        }
    }
}

fn devices() -> Result<(), nxrig::Error> {
    let mut k = 0;
    let mut used = Vec::new();
    for d in without_driver_chatter(Rig::all) {
        match d.describe() {
            None => say(d.name()),
            Some(what) => {
                say(&format!("gpu{k}: {}: {what}", d.name()));
                used.push(d.name().to_owned());
                k += 1;
            }
        }
    }
    // Adapters of wgpu's secondary backends (GL) are found but not opened as devices
    // (a device's name is its adapter's name and backend).
    for a in without_driver_chatter(nxrig::rig::wgpu::adapters) {
        if !used.contains(&format!("{} ({})", a.name, a.backend)) {
            say(&format!(
                "adapter, not a device: {} ({}): {}",
                a.name,
                a.backend,
                a.describe()
            ));
        }
    }
    // Why no CUDA device is listed, where none is.
    if let Some(why) = Rig::cuda_unavailable() {
        say(&format!("no CUDA device: {why}"));
    }
    Ok(())
}
