//! A function that donates its input: `add_donated(x, y)` writes `x + y` over `x`'s
//! memory where the call holds it alone, and into a fresh array where something else
//! still reads it. The claims decide, so a caller that keeps a view of `x` never sees
//! it change.
//!
//!     cargo run --release --example donate

use nxrig::kernels::add_donated;
use nxrig::{Array, Error};

fn main() -> Result<(), Error> {
    let y = Array::<f32>::of_array(&[4], &[10.0, 20.0, 30.0, 40.0])?;

    // Nothing else holds x: the sum is written in place, and x's handle is spent.
    let x = Array::<f32>::of_array(&[4], &[1.0, 2.0, 3.0, 4.0])?;
    let memory = x.buffer().clone();
    let z = add_donated(x.into(), y.any())?;
    assert!(z.buffer().same_memory(&memory), "in place");
    println!("donated: {z}");
    println!("the donated buffer: {}", memory.read(|_| ()).unwrap_err());

    // A view of x is still read (a claim held across the call): x stays as it was and
    // the sum goes into a fresh array.
    let x = Array::<f32>::of_array(&[4], &[1.0, 2.0, 3.0, 4.0])?;
    let kept = x.flip(&[0])?; // a view over x's memory
    let hold = nxrig::rig::Claim::hold(&[kept.buffer()])?;
    let z = add_donated(x.any().clone(), y.any())?;
    drop(hold);
    assert!(!z.buffer().same_memory(kept.buffer()), "a fresh array");
    println!("not donated: {z}, and the view still reads {kept}");
    Ok(())
}
