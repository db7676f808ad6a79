//! A kernel of your own on the host, through the door: `out = a * x + y` over float32
//! arrays of one shape. The door claims `out` for writing and `x`, `y` for reading (or
//! refuses, naming the reason, without running the kernel), so the kernel never races
//! a donation or another writer.
//!
//!     cargo run --release --example own_kernel

use nxrig::array::{door, refused, Answer};
use nxrig::{AnyArray, Array, Error, Rig};

/// `out = a * x + y`, elementwise, for C-contiguous float32 host arrays of one shape.
fn axpy(a: f32, x: &Array<f32>, y: &Array<f32>, out: &Array<f32>) -> Result<(), Error> {
    const NAME: &str = "axpy";
    let shown: [&AnyArray; 3] = [out.any(), x.any(), y.any()];
    if x.shape() != out.shape() || y.shape() != out.shape() {
        return Err(refused(NAME, Answer::ShapeMismatch, &shown));
    }
    let mut result = Ok(());
    let answer = door(&[out.any()], &[x.any(), y.any()], || {
        // Under the claims: read x and y, write out (host memory, read in C order).
        result = (|| {
            let (xs, ys) = (x.to_vec()?, y.to_vec()?);
            let sum: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
            out.buffer()
                .write(|b| b.copy_from_slice(bytemuck::cast_slice(&sum)))
        })();
    })?;
    match answer {
        Answer::Done => result,
        refusal => Err(refused(NAME, refusal, &shown)),
    }
}

fn main() -> Result<(), Error> {
    let x = Array::<f32>::of_array(&[4], &[1.0, 2.0, 3.0, 4.0])?;
    let y = Array::<f32>::of_array(&[4], &[0.5; 4])?;
    let out: Array<f32> = AnyArray::create(&Rig::host(), nxrig::DType::Float32, &[4])?.expect()?;
    axpy(2.0, &x, &y, &out)?;
    println!("{out}");
    assert_eq!(out.to_vec()?, [2.5, 4.5, 6.5, 8.5]);

    // Refused, with the reason: out written while it is also read reversed.
    let e = axpy(2.0, &out.flip(&[0])?, &y, &out).unwrap_err();
    println!("refused: {e}");
    Ok(())
}
