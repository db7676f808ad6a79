//! `nxrig convert INPUT OUTPUT --to DTYPE`: a file into a file, or a sharded
//! checkpoint's index into a folder (each shard converted, a new index written). The
//! input's headers are read and checked, and the output planned (formats, names,
//! dtypes), before a device opens or a byte is written; then each tensor is converted
//! and written in turn, a piece of at most [`PIECE`] elements at a time (so a tensor
//! of any size converts in bounded memory), and the files go in place only once all
//! are whole.

/// Elements converted at a time.
const PIECE: usize = 1 << 24;

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use nxrig::formats::{self, index::Index, Format, Opened, Pending, Planned};
use nxrig::{AnyArray, DType, Error, Rig};

use crate::info::open_shards;
use crate::process::{say, without_driver_chatter};

/// What to convert: every floating-point tensor, or those a glob matches.
struct Pick {
    to: DType,
    pattern: Option<glob::Pattern>,
}

impl Pick {
    fn dtype(&self, name: &str, d: DType) -> DType {
        let picked = match &self.pattern {
            Some(p) => p.matches(name),
            None => d.is_float(),
        };
        if picked {
            self.to
        } else {
            d
        }
    }
}

/// One output file: its input, its path and its tensors.
struct Job {
    input: Opened,
    output: PathBuf,
    plan: Vec<Planned>,
}

impl Job {
    /// The job for `input` into `output`, checked: the output's format holds every
    /// tensor's dtype, and its names are ones the format can write.
    fn new(input: Opened, output: PathBuf, pick: &Pick) -> Result<Job, Error> {
        let plan: Vec<Planned> = input
            .header
            .entries
            .iter()
            .map(|e| Planned {
                name: e.name.clone(),
                dtype: pick.dtype(&e.name, e.dtype),
                shape: e.shape.clone(),
            })
            .collect();
        Format::of_path(&output)?.header_bytes(
            &output.display().to_string(),
            &plan,
            input.header.metadata.as_ref(),
        )?;
        Ok(Job {
            input,
            output,
            plan,
        })
    }

    fn bytes_in(&self) -> usize {
        self.input.header.entries.iter().map(|e| e.len).sum()
    }

    fn bytes_out(&self) -> usize {
        self.plan
            .iter()
            .map(|p| {
                nxrig::layout::numel(&p.shape)
                    .and_then(|n| p.dtype.bytes(n))
                    .unwrap_or(0)
            })
            .sum()
    }

    /// Converts and writes, tensor by tensor and piece by piece, under a temporary
    /// name; returns the file to put in place and how many tensors were converted.
    fn run(&self, device: &Rig, bar: &ProgressBar) -> Result<(Pending, usize), Error> {
        let mut converted = 0;
        let input = &self.input;
        let pending = formats::write_pending(
            &self.output,
            &self.plan,
            input.header.metadata.as_ref(),
            |i, sink| {
                let e = &input.header.entries[i];
                bar.set_message(formats::escaped(&e.name));
                let to = self.plan[i].dtype;
                if to != e.dtype {
                    converted += 1;
                }
                let cast = |a: AnyArray| -> Result<AnyArray, Error> {
                    if to == e.dtype {
                        return Ok(a);
                    }
                    cast_on(a, device, to).map_err(|err| Error::Format {
                        path: input.path.clone(),
                        tensor: Some(e.name.clone()),
                        reason: err.to_string(),
                    })
                };
                if e.fortran {
                    // Its C-order pieces are not runs of the file: whole, through its
                    // layout.
                    sink.put(&cast(input.array(i)?)?)?;
                    bar.inc(e.len as u64);
                } else {
                    let n: usize = e.shape.iter().product();
                    let mut from = 0;
                    while from < n {
                        let k = PIECE.min(n - from);
                        sink.put(&cast(e.piece(&input.path, &input.bytes, from, k)?)?)?;
                        bar.inc(e.dtype.bytes(k)? as u64);
                        from += k;
                    }
                }
                pause_for_tests();
                Ok(())
            },
        )?;
        Ok((pending, converted))
    }
}

/// `a` cast into `to` on `device` and brought back to the host.
fn cast_on(a: AnyArray, device: &Rig, to: DType) -> Result<AnyArray, Error> {
    let host = Rig::host();
    let on = |a: AnyArray, r: &Rig| if a.rig() == r { Ok(a) } else { a.to_device(r) };
    on(on(a, device)?.cast(to)?, &host)
}

pub fn convert(
    input: &Path,
    output: &Path,
    to: &str,
    tensors: Option<&str>,
    device: &str,
) -> Result<(), Error> {
    let pick = Pick {
        to: to.parse()?,
        pattern: tensors
            .map(glob::Pattern::new)
            .transpose()
            .map_err(|e| Error::Format {
                path: "--tensors".into(),
                tensor: None,
                reason: e.to_string(),
            })?,
    };
    let start = Instant::now();
    let sharded = input.extension().and_then(|e| e.to_str()) == Some("json");
    let (jobs, index) = if sharded {
        let (jobs, index) = shard_jobs(input, output, &pick)?;
        (jobs, Some(index))
    } else {
        let opened = formats::open(input)?;
        if same_file(input, output) {
            return Err(Error::Format {
                path: output.display().to_string(),
                tensor: None,
                reason: "the output is the input: write the conversion elsewhere".into(),
            });
        }
        (vec![Job::new(opened, output.to_owned(), &pick)?], None)
    };
    let device = if device == "host" {
        Rig::host()
    } else {
        without_driver_chatter(|| Rig::by_name(device))?
    };
    let bytes_in: usize = jobs.iter().map(Job::bytes_in).sum();
    let bar = ProgressBar::new(bytes_in as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if bytes_in < 64 << 20 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // Every file whole under a temporary name, then all put in place: a failure or
    // an interrupt part way leaves none of them (nor a folder made for them).
    let made_dir = sharded && !output.exists();
    let written = (|| -> Result<usize, Error> {
        let mut converted = 0;
        let mut pending = Vec::with_capacity(jobs.len());
        if made_dir {
            formats::remove_on_interrupt(output);
            std::fs::create_dir_all(output).map_err(|source| Error::Io {
                path: output.display().to_string(),
                source,
            })?;
        }
        for j in &jobs {
            let (p, n) = j.run(&device, &bar)?;
            pending.push(p);
            converted += n;
        }
        for p in pending {
            p.commit()?;
        }
        if let Some(mut index) = index {
            let total: usize = jobs.iter().map(Job::bytes_out).sum();
            index.metadata.insert("total_size".into(), total.into());
            let name = input.file_name().expect("an index is a file");
            write_text(&output.join(name), &index.to_text())?;
        }
        Ok(converted)
    })();
    let converted = match written {
        Ok(n) => n,
        Err(e) => {
            if made_dir {
                let _ = std::fs::remove_dir(output);
            }
            return Err(e);
        }
    };
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let tensors: usize = jobs.iter().map(|j| j.plan.len()).sum();
    let bytes_out: usize = jobs.iter().map(Job::bytes_out).sum();
    say(&format!(
        "{}: {}{tensors} tensors ({converted} converted to {}), {bytes_in} bytes in, {bytes_out} bytes out, {secs:.3} s, {:.2} GB/s in",
        formats::escaped(&output.display().to_string()),
        if sharded { format!("{} shards, ", jobs.len()) } else { String::new() },
        pick.to,
        bytes_in as f64 / secs / 1e9
    ));
    Ok(())
}

/// The jobs of a sharded checkpoint: each shard of the index at `input` into the
/// folder `output` (made later if missing), under its own name.
fn shard_jobs(input: &Path, output: &Path, pick: &Pick) -> Result<(Vec<Job>, Index), Error> {
    let (index, shards) = open_shards(input)?;
    let jobs: Vec<(Opened, PathBuf)> = shards
        .into_iter()
        .map(|(shard, o)| (o, output.join(shard)))
        .collect();
    let ext = output.extension().and_then(|e| e.to_str());
    if !output.is_dir() && matches!(ext, Some("safetensors" | "npy" | "json")) {
        return Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason:
                "a sharded checkpoint converts into a folder (its shards and index), not a file"
                    .into(),
        });
    }
    if input.parent().map(|p| p.canonicalize().ok()) == Some(output.canonicalize().ok())
        && output.exists()
    {
        return Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason: "the output folder is the input's: the shards would overwrite themselves"
                .into(),
        });
    }
    if output.exists() && !output.is_dir() {
        return Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason: "the output exists and is not a folder".into(),
        });
    }
    let jobs = jobs
        .into_iter()
        .map(|(o, out)| Job::new(o, out, pick))
        .collect::<Result<_, _>>()?;
    Ok((jobs, index))
}

/// Whether `a` and `b` are the same file (through links too); false where `b` does
/// not exist.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            x.dev() == y.dev() && x.ino() == y.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => a.canonicalize().ok() == b.canonicalize().ok(),
        _ => false,
    }
}

/// Sleeps `NXRIG_TEST_TENSOR_DELAY_MS` after each tensor, where the variable is set:
/// the tests' way to interrupt a conversion part way (tests/files.rs).
fn pause_for_tests() {
    if let Some(ms) = std::env::var("NXRIG_TEST_TENSOR_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Writes `text` to `path` through a temporary beside it.
fn write_text(path: &Path, text: &str) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let tmp = path.with_extension("json.nxrig-tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}
