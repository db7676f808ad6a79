//! Times a checkpoint's conversion into a sink that drops its bytes: the headers read,
//! every tensor read, dequantized or cast and handed to the sink, nothing written, so
//! that the work is measured apart from the disk's writes (`benches/gguf_dequant.py`
//! sets it beside NumPy's dequantization, which writes nothing either).
//!
//!     cargo run --release --example convert_in_memory -- MODEL.gguf float16
//!
//! Prints the seconds and the bytes handed to the sink.

use std::time::Instant;

use nxrig::convert::{self, Checkpoint, Pick, Plan, Sink};
use nxrig::{AnyArray, DType, Error, Rig};

/// A sink that counts the bytes it is given and keeps none.
#[derive(Default)]
struct Dropped {
    bytes: u64,
}

impl Sink for Dropped {
    async fn open(&mut self, _name: &str) -> Result<(), Error> {
        Ok(())
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        self.bytes += a.dtype().bytes(a.shape().iter().product())? as u64;
        Ok(())
    }

    async fn close(&mut self) -> Result<(), Error> {
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), Error> {
        Ok(())
    }

    async fn abort(&mut self) {}
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, to] = args.as_slice() else {
        return Err("usage: convert_in_memory MODEL DTYPE".into());
    };
    let to: DType = to.parse()?;
    let t = Instant::now();
    let ck = Checkpoint::open_path(std::path::Path::new(input))?;
    let plan = Plan::new(&ck, &Pick::floats(to), "out.safetensors")?;
    let mut sink = Dropped::default();
    pollster::block_on(convert::run(
        &ck,
        &plan,
        &mut sink,
        &Rig::host(),
        &mut |_| {},
    ))?;
    println!(
        "{:.4} s, {} bytes out",
        t.elapsed().as_secs_f64(),
        sink.bytes
    );
    Ok(())
}
