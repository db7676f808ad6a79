//! Argument parsing (clap) and the three commands.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use nxrig::formats::{self, Tensor, TensorFile};
use nxrig::{AnyArray, DType, Rig};

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
    /// Print each tensor's name, dtype, shape and bytes.
    Info {
        /// A .safetensors or .npy file.
        file: PathBuf,
    },
    /// Convert floating-point tensors (or those --tensors matches) to DTYPE.
    Convert {
        /// A .safetensors or .npy file.
        input: PathBuf,
        /// The output file; its extension names the format.
        output: PathBuf,
        /// The target dtype: float16, bfloat16, float8_e4m3, float8_e5m2, float32, ...
        #[arg(long)]
        to: String,
        /// Convert the tensors whose names match this glob, whatever their dtype,
        /// instead of every floating-point tensor.
        #[arg(long)]
        tensors: Option<String>,
        /// The device to convert on: `host`, `gpu` (the first GPU), `gpu1`, ..., or a
        /// name that `nxrig devices` lists. The output is the same on every device.
        #[arg(long, default_value = "host")]
        device: String,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Devices => devices(),
        Command::Info { file } => info(&file),
        Command::Convert {
            input,
            output,
            to,
            tensors,
            device,
        } => convert(&input, &output, &to, tensors.as_deref(), &device),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nxrig: {e}");
            ExitCode::from(2)
        }
    }
}

fn devices() -> Result<(), nxrig::Error> {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let describe = |a: &nxrig::rig::wgpu::AdapterInfo| {
        format!(
            "{}, shader-f16 {}, shader-int64 {}, shader-f64 {}, max buffer {} bytes, max storage binding {} bytes",
            a.device_type,
            yes(a.shader_f16),
            yes(a.shader_int64),
            yes(a.shader_f64),
            a.max_buffer_size,
            a.max_storage_buffer_binding_size
        )
    };
    let mut k = 0;
    let mut used = Vec::new();
    for d in Rig::all() {
        match d.wgpu() {
            None => println!("{}", d.name()),
            Some(g) => {
                println!("gpu{k}: {}: {}", d.name(), describe(g.info()));
                used.push((g.info().name.clone(), g.info().backend.clone()));
                k += 1;
            }
        }
    }
    // Adapters of wgpu's secondary backends (GL) are found but not opened as devices.
    for a in nxrig::rig::wgpu::adapters() {
        if !used.contains(&(a.name.clone(), a.backend.clone())) {
            println!(
                "adapter, not a device: {} ({}): {}",
                a.name,
                a.backend,
                describe(&a)
            );
        }
    }
    Ok(())
}

fn info(file: &Path) -> Result<(), nxrig::Error> {
    let f = formats::read(file)?;
    let w = f
        .tensors
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:w$}  {:11}  {:20}  {:>12}",
        "name", "dtype", "shape", "bytes"
    );
    let mut total = 0usize;
    for t in &f.tensors {
        let bytes = t.array.dtype().bytes(t.array.layout().numel())?;
        total += bytes;
        println!(
            "{:w$}  {:11}  {:20}  {:>12}",
            t.name,
            t.array.dtype().name(),
            format!("{:?}", t.array.shape()),
            bytes
        );
    }
    println!("{} tensors, {} bytes", f.tensors.len(), total);
    Ok(())
}

fn convert(
    input: &Path,
    output: &Path,
    to: &str,
    tensors: Option<&str>,
    device: &str,
) -> Result<(), nxrig::Error> {
    let to: DType = to.parse()?;
    let device = Rig::by_name(device)?;
    let host = Rig::host();
    let pattern =
        tensors
            .map(glob::Pattern::new)
            .transpose()
            .map_err(|e| nxrig::Error::Format {
                path: "--tensors".into(),
                tensor: None,
                reason: e.to_string(),
            })?;
    let out_format = formats::Format::of_path(output)?;
    let start = Instant::now();
    let file = formats::read(input)?;
    let picked = |t: &Tensor| match &pattern {
        Some(p) => p.matches(&t.name),
        None => t.array.dtype().is_float(),
    };
    // Refuse before converting anything: the output must hold every tensor it gets.
    for t in &file.tensors {
        let d = if picked(t) { to } else { t.array.dtype() };
        if !out_format.holds(d) {
            return Err(nxrig::Error::Format {
                path: output.display().to_string(),
                tensor: Some(t.name.clone()),
                reason: format!("the {out_format:?} format cannot hold {d}"),
            });
        }
    }
    let bytes_in: usize = file
        .tensors
        .iter()
        .map(|t| t.array.dtype().bytes(t.array.layout().numel()).unwrap_or(0))
        .sum();
    let bar = ProgressBar::new(bytes_in as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if bytes_in < 64 << 20 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut out = TensorFile {
        tensors: Vec::with_capacity(file.tensors.len()),
        metadata: file.metadata.clone(),
    };
    let mut converted = 0;
    for t in &file.tensors {
        let d = t.array.dtype();
        bar.set_message(t.name.clone());
        let array = if picked(t) {
            converted += 1;
            let on = |a: &AnyArray, r: &Rig| {
                if a.rig() == r {
                    Ok(a.clone())
                } else {
                    a.to_device(r)
                }
            };
            on(&t.array, &device)
                .and_then(|a| a.cast(to))
                .and_then(|a| on(&a, &host))
                .map_err(|e| tensor_error(input, &t.name, e))?
        } else {
            t.array.clone()
        };
        bar.inc(d.bytes(t.array.layout().numel())? as u64);
        out.tensors.push(Tensor {
            name: t.name.clone(),
            array,
        });
    }
    formats::write(output, &out)?;
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let bytes_out: usize = out
        .tensors
        .iter()
        .map(|t| t.array.dtype().bytes(t.array.layout().numel()).unwrap_or(0))
        .sum();
    println!(
        "{}: {} tensors ({} converted to {to}), {} bytes in, {} bytes out, {:.3} s, {:.2} GB/s in",
        output.display(),
        out.tensors.len(),
        converted,
        bytes_in,
        bytes_out,
        secs,
        bytes_in as f64 / secs / 1e9
    );
    Ok(())
}

fn tensor_error(path: &Path, tensor: &str, e: nxrig::Error) -> nxrig::Error {
    nxrig::Error::Format {
        path: path.display().to_string(),
        tensor: Some(tensor.to_owned()),
        reason: e.to_string(),
    }
}
