//! Arrays as text: the dtype, the shape, the device and the first elements, numbers
//! written as JavaScript writes them (`Display` of [`AnyArray`] and [`Array`], and
//! `toString` in JavaScript).

use std::fmt;

use super::any::AnyArray;
use super::placement::PositionIter;
use super::typed::Array;
use crate::dtype::{f64_of_bits, read_bits, Class, DType, Element};

/// Elements the text shows.
const SHOWN: usize = 8;

/// `float32 [2, 3] on host: 1, -2, 3, 4, 5, 6`: the first elements of a host array
/// in C order (`, ...` past 8); `off_host` in their place for an array whose memory
/// the host does not address (reading it would wait for the device).
pub(crate) fn text(a: &AnyArray, off_host: &str) -> String {
    let head = format!("{} {:?} on {}", a.dtype(), a.shape(), a.rig().name());
    let n = a.layout().numel();
    if !a.rig().host_addressable() {
        return format!("{head}: {off_host}");
    }
    match first_values(a, n.min(SHOWN)) {
        Some(v) => {
            let more = if n > SHOWN { ", ..." } else { "" };
            format!("{head}: {}{more}", v.join(", "))
        }
        None => format!("{head}: unreadable"),
    }
}

/// `AnyArray(float32 [3] on host: 1, 2.5, -3)`: the dtype, the shape, the device and
/// the first 8 elements in C order. A GPU array's elements are not read (that would
/// wait for the device): place it on the host to see them.
///
/// ```
/// use nxrig::Array;
/// let a = Array::<f32>::of_array(&[3], &[1.0, 2.5, -3.0])?;
/// assert_eq!(a.to_string(), "Array(float32 [3] on host: 1, 2.5, -3)");
/// assert_eq!(a.any().to_string(), "AnyArray(float32 [3] on host: 1, 2.5, -3)");
/// # Ok::<(), nxrig::Error>(())
/// ```
impl fmt::Display for AnyArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyArray({})", text(self, OFF_HOST))
    }
}

/// As [`AnyArray`]'s, named `Array`.
impl<E: Element> fmt::Display for Array<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array({})", text(self.any(), OFF_HOST))
    }
}

/// What Rust's text says of a GPU array's elements.
const OFF_HOST: &str = "elements on the device: to_device(&Rig::host()) to read them";

/// Element bits as text: numbers as JavaScript writes them (the shortest digits that
/// read back, `NaN`, `Infinity`, exponent form outside 1e-7..1e21), `true` and
/// `false`, `re+imj` for complex.
fn element(d: DType, bits: u128) -> String {
    match d.class() {
        Class::Bool => (bits != 0).to_string(),
        Class::Signed if d.bits() == 64 => (bits as u64 as i64).to_string(),
        Class::Unsigned if d.bits() == 64 => (bits as u64).to_string(),
        Class::Complex => {
            let half = d.bits() / 2;
            let part = crate::dtype::component(d);
            let re = f64_of_bits(part, bits & ((1u128 << half) - 1));
            let im = f64_of_bits(part, bits >> half);
            let sign = if im.is_sign_negative() && !im.is_nan() {
                ""
            } else {
                "+"
            };
            let n = |x: f64| if half <= 32 { num32(x as f32) } else { num(x) };
            format!("{}{sign}{}j", n(re), n(im))
        }
        // float32 and narrower: the shortest text that reads back as the float32.
        Class::Float if d.bits() <= 32 => num32(f64_of_bits(d, bits) as f32),
        _ => num(f64_of_bits(d, bits)),
    }
}

/// A float64 as JavaScript would write it: exponent form outside 1e-7..1e21.
fn num(x: f64) -> String {
    shortest(x, x)
}

/// A float32 as [`num`] writes a float64, with the float32's shortest digits.
fn num32(x: f32) -> String {
    shortest(x, x as f64)
}

/// `x` in its own type's shortest digits (`v` is its value), as JavaScript writes
/// numbers: `NaN`, `Infinity`, exponent form outside 1e-7..1e21.
fn shortest<T: std::fmt::Display + std::fmt::LowerExp>(x: T, v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if v != 0.0 && (v.abs() >= 1e21 || v.abs() < 1e-7) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The first `k` elements of a host array in C order, as text.
fn first_values(a: &AnyArray, k: usize) -> Option<Vec<String>> {
    let mut walk = PositionIter::new(a.layout());
    a.buffer()
        .read(|b| {
            (0..k)
                .map(|_| element(a.dtype(), read_bits(a.dtype(), b, walk.next_position())))
                .collect()
        })
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_complex_dtype_writes_its_parts_in_their_format() {
        // 1.5 - 2.25i, and +inf + 0.1i (0.1 rounded into the part's format), real first;
        // parts of 32 bits or fewer as float32's shortest digits, as float16's own text.
        let cases: [(DType, u128, u128, &str); 4] = [
            (
                DType::Complex32,
                0x3e00 | 0xc080 << 16,
                0x7c00 | 0x2e66 << 16,
                "0.099975586",
            ),
            (
                DType::Bcomplex32,
                0x3fc0 | 0xc010 << 16,
                0x7f80 | 0x3dcd << 16,
                "0.100097656",
            ),
            (
                DType::Complex64,
                0x3fc0_0000 | 0xc010_0000 << 32,
                0x7f80_0000 | (0.1f32.to_bits() as u128) << 32,
                "0.1",
            ),
            (
                DType::Complex128,
                1.5f64.to_bits() as u128 | ((-2.25f64).to_bits() as u128) << 64,
                f64::INFINITY.to_bits() as u128 | (0.1f64.to_bits() as u128) << 64,
                "0.1",
            ),
        ];
        for (d, a, b, tenth) in cases {
            assert_eq!(element(d, a), "1.5-2.25j", "{d}");
            assert_eq!(element(d, b), format!("Infinity+{tenth}j"), "{d}");
        }
    }
}
