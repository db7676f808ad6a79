//! DLPack's export and import through a producer and a consumer of the tests' own
//! (small enough for Miri, which checks the pointers' provenance and that every box is
//! freed once).

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;
use crate::dtype::DType;
use crate::{AnyArray, Array, Error, Slice};

#[test]
fn views_cross_as_their_strides_and_come_back_to_the_same_bytes() {
    let a = Array::<i16>::of_array(&[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    let v = a.flip(&[1]).unwrap().permute(&[1, 0]).unwrap();
    let t = v.any().to_dlpack().unwrap();
    // SAFETY: `t` was just made; its fields are read, not kept.
    unsafe {
        let m = t.as_ref();
        assert_eq!(m.version, VERSION);
        assert_eq!(m.flags, 0);
        let d = &m.dl_tensor;
        assert_eq!(
            (d.device, d.ndim),
            (
                DLDevice {
                    device_type: DEVICE_CPU,
                    device_id: 0
                },
                2
            )
        );
        assert_eq!(
            d.dtype,
            DLDataType {
                code: 0,
                bits: 16,
                lanes: 1
            }
        );
        assert_eq!(std::slice::from_raw_parts(d.shape, 2), [3, 2]);
        assert_eq!(std::slice::from_raw_parts(d.strides, 2), [-1, 3]);
        assert_eq!(d.byte_offset, 4); // element 2 of the buffer
                                      // Index (0, 1) is position 2 + 3 = 5: the value 6.
        let p = d
            .data
            .cast::<u8>()
            .add(d.byte_offset as usize)
            .cast::<i16>();
        assert_eq!(*p.offset(3), 6);
    }
    // SAFETY: `t` is given up once.
    let b = unsafe { AnyArray::from_dlpack(t.as_ptr()) }
        .unwrap()
        .expect::<i16>()
        .unwrap();
    assert_eq!(b.to_vec().unwrap(), v.to_vec().unwrap());
    b.set(&[0, 0], -7).unwrap();
    assert_eq!(a.get(&[0, 2]).unwrap(), -7); // the same memory: no copy
}

#[test]
fn int4_crosses_packed_and_an_odd_start_is_refused() {
    let a = AnyArray::of_bytes(DType::Int4, &[4], vec![0x21, 0x43]).unwrap();
    let t = a.to_dlpack().unwrap();
    // SAFETY: `t` was just made; then given up once.
    let b = unsafe {
        assert_eq!(
            t.as_ref().dl_tensor.dtype,
            DLDataType {
                code: 0,
                bits: 4,
                lanes: 1
            }
        );
        AnyArray::from_dlpack(t.as_ptr()).unwrap()
    };
    assert_eq!(b.to_bytes().unwrap(), [0x21, 0x43]);
    let odd = a.slice(&[Slice::new(Some(1), None, 1)]).unwrap();
    let e = odd.to_dlpack().unwrap_err();
    assert!(e.to_string().contains("high half of a byte"), "{e}");
    // A flipped view starting at an even element reaches back into the byte before.
    let f = a.slice(&[Slice::new(Some(0), Some(3), 1)]).unwrap();
    let f = f.flip(&[0]).unwrap();
    assert_eq!(f.layout().offset(), 2);
    let t = f.to_dlpack().unwrap();
    // SAFETY: given up once.
    let g = unsafe { AnyArray::from_dlpack(t.as_ptr()) }.unwrap();
    assert_eq!(g.to_bits_vec().unwrap(), f.to_bits_vec().unwrap());
}

#[test]
fn float6_crosses_padded_one_a_byte_and_packed_is_refused() {
    let a = AnyArray::of_bytes(DType::Float6E3m2fn, &[3], vec![0x01, 0x3f, 0x20]).unwrap();
    let t = a.to_dlpack().unwrap();
    // SAFETY: `t` was just made; read, then given up once.
    let b = unsafe {
        let m = t.as_ref();
        assert_eq!((m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits), (16, 6));
        assert_eq!(m.flags, FLAG_IS_SUBBYTE_TYPE_PADDED);
        AnyArray::from_dlpack(t.as_ptr()).unwrap()
    };
    assert_eq!(
        (b.dtype(), b.to_bytes().unwrap()),
        (DType::Float6E3m2fn, vec![0x01, 0x3f, 0x20])
    );
    // The legacy tensor has no flag to say it: refused, naming the versioned one.
    let e = a.to_dlpack_legacy().unwrap_err();
    assert!(e.to_string().contains("IS_SUBBYTE_TYPE_PADDED"), "{e}");
    // A producer's float6, packed (no flag), is refused; padded, taken.
    let e = once(made(vec![0; 3], (15, 6), &[4], None, 0), |a| a.unwrap_err());
    assert!(e.to_string().contains("four in three bytes"), "{e}");
    once(
        made(
            vec![1, 2, 3, 4],
            (15, 6),
            &[4],
            None,
            FLAG_IS_SUBBYTE_TYPE_PADDED,
        ),
        |a| {
            let a = a.unwrap();
            assert_eq!(
                (a.dtype(), a.to_bytes().unwrap()),
                (DType::Float6E2m3fn, vec![1, 2, 3, 4])
            );
        },
    );
}

/// int2, uint2, int1 and uint1, held one a byte, go out at their width flagged padded
/// and come back; a packed producer's tensor of them is refused, a padded one taken.
#[test]
fn narrow_integers_are_exported_padded_and_imported_so() {
    for (d, code, bits, bytes) in [
        (DType::Int2, 0, 2, vec![0x02, 0x03, 0x01]),
        (DType::Uint2, 1, 2, vec![0x03, 0x00, 0x02]),
        (DType::Int1, 0, 1, vec![0x01, 0x00, 0x01]),
        (DType::Uint1, 1, 1, vec![0x00, 0x01, 0x01]),
    ] {
        let a = AnyArray::of_bytes(d, &[3], bytes.clone()).unwrap();
        let t = a.to_dlpack().unwrap();
        // SAFETY: `t` was just made; read, then given up once.
        let b = unsafe {
            let m = t.as_ref();
            assert_eq!(
                (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits),
                (code, bits)
            );
            assert_eq!(m.flags, FLAG_IS_SUBBYTE_TYPE_PADDED);
            AnyArray::from_dlpack(t.as_ptr()).unwrap()
        };
        assert_eq!((b.dtype(), b.to_bytes().unwrap()), (d, bytes));
        assert!(a.to_dlpack_legacy().is_err());
        let e = once(made(vec![0; 1], (code, bits), &[4], None, 0), |a| {
            a.unwrap_err()
        });
        let packed = if bits == 2 {
            "four a byte"
        } else {
            "eight a byte"
        };
        assert!(e.to_string().contains(packed), "{e}");
    }
}

#[test]
fn complex32_is_dlpacks_complex_of_32_bits_and_bcomplex32_has_no_code() {
    // 1.5 - 2i and -0 + inf i in float16 parts, real first.
    let bytes = vec![0x00, 0x3e, 0x00, 0xc0, 0x00, 0x80, 0x00, 0x7c];
    let a = AnyArray::of_bytes(DType::Complex32, &[2], bytes.clone()).unwrap();
    let t = a.to_dlpack().unwrap();
    // SAFETY: `t` was just made; read, then given up once.
    let b = unsafe {
        let m = t.as_ref();
        assert_eq!((m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits), (5, 32));
        assert_eq!(m.flags & FLAG_IS_SUBBYTE_TYPE_PADDED, 0);
        AnyArray::from_dlpack(t.as_ptr()).unwrap()
    };
    assert_eq!(
        (b.dtype(), b.to_bytes().unwrap()),
        (DType::Complex32, bytes.clone())
    );
    let c = AnyArray::of_bytes(DType::Bcomplex32, &[2], bytes).unwrap();
    let e = c.to_dlpack().unwrap_err();
    assert!(e.to_string().contains("bcomplex32"), "{e}");
}

/// A producer's tensor over a `Vec` of the test's, its deleter counted.
struct Made {
    managed: Box<DLManagedTensorVersioned>,
    deleted: Arc<AtomicUsize>,
}

/// A made tensor's context: what its pointers reach, and its deleter's count (`Vec`s,
/// whose moves keep pointers into them valid).
struct Ctx {
    _bytes: Vec<u64>,
    _shape: Vec<i64>,
    _strides: Option<Vec<i64>>,
    deleted: Arc<AtomicUsize>,
}

unsafe extern "C" fn count_delete(m: *mut DLManagedTensorVersioned) {
    // SAFETY: the context is the `Ctx` leaked by `made`.
    let c = unsafe { Box::from_raw((*m).manager_ctx.cast::<Ctx>()) };
    c.deleted.fetch_add(1, Ordering::SeqCst);
}

fn made(
    bytes: Vec<u8>,
    dtype: (u8, u8),
    shape: &[i64],
    strides: Option<&[i64]>,
    flags: u64,
) -> Made {
    let deleted = Arc::new(AtomicUsize::new(0));
    // Words, so that the elements are aligned whatever the allocator gives bytes.
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    let mut c = Ctx {
        _bytes: words,
        _shape: shape.to_vec(),
        _strides: strides.map(<[i64]>::to_vec),
        deleted: deleted.clone(),
    };
    let data = c._bytes.as_mut_ptr().cast::<c_void>();
    let shape_at = c._shape.as_mut_ptr();
    let strides_at = c
        ._strides
        .as_mut()
        .map_or(std::ptr::null_mut(), |s| s.as_mut_ptr());
    let managed = Box::new(DLManagedTensorVersioned {
        version: VERSION,
        manager_ctx: Box::into_raw(Box::new(c)).cast(),
        deleter: Some(count_delete),
        flags,
        dl_tensor: DLTensor {
            data,
            device: DLDevice {
                device_type: DEVICE_CPU,
                device_id: 0,
            },
            ndim: shape.len() as i32,
            dtype: DLDataType {
                code: dtype.0,
                bits: dtype.1,
                lanes: 1,
            },
            shape: shape_at,
            strides: strides_at,
            byte_offset: 0,
        },
    });
    Made { managed, deleted }
}

/// `f` of a made tensor; the deleter runs exactly once over the call and the array's
/// life, which `f` ends.
fn once<R>(m: Made, f: impl FnOnce(Result<AnyArray, Error>) -> R) -> R {
    let mut m = m;
    // SAFETY: the tensor is given up once; its memory lives until the deleter.
    let r = f(unsafe { AnyArray::from_dlpack(&mut *m.managed) });
    assert_eq!(m.deleted.load(Ordering::SeqCst), 1, "the deleter ran once");
    r
}

#[test]
fn a_producers_tensor_is_taken_without_a_copy_and_its_deleter_runs_once() {
    let bytes: Vec<u8> = (0..12u8).collect();
    // float16 [2, 3] in C order from null strides, then a strided one.
    once(made(bytes.clone(), (2, 16), &[2, 3], None, 0), |a| {
        let a = a.unwrap();
        assert_eq!((a.dtype(), a.shape()), (DType::Float16, &[2, 3][..]));
        assert_eq!(a.to_bytes().unwrap(), bytes);
        a.buffer().write_bytes(0, &[9]).unwrap(); // writable
        let v = a.permute(&[1, 0]).unwrap(); // a view keeps it alive
        drop(a);
        assert_eq!(v.to_bytes().unwrap()[0], 9);
    });
    // Negative strides: index 0 is not the first byte.
    let mut m = made(
        bytes.clone(),
        (1, 8),
        &[3, 2],
        Some(&[-2, 1]),
        FLAG_READ_ONLY,
    );
    m.managed.dl_tensor.byte_offset = 8;
    once(m, |a| {
        let a = a.unwrap();
        assert_eq!(a.to_bytes().unwrap(), [8, 9, 6, 7, 4, 5]);
        assert!(matches!(
            a.buffer().write_bytes(0, &[0]),
            Err(Error::ReadOnly { .. })
        ));
        assert!(a.to_dlpack_legacy().is_err()); // the legacy tensor cannot say read-only
        let back = a.to_dlpack().unwrap();
        // SAFETY: read, then given up once.
        unsafe {
            assert_eq!(back.as_ref().flags, FLAG_READ_ONLY);
            drop(AnyArray::from_dlpack(back.as_ptr()).unwrap());
        }
    });
}

#[test]
fn bad_tensors_are_refused_and_their_deleter_still_runs_once() {
    let b = || vec![0u8; 8];
    let cases: Vec<(Made, &str)> = vec![
        (made(b(), (2, 8), &[8], None, 0), "type code 2 of 8 bits"),
        (made(b(), (3, 64), &[1], None, 0), "type code 3"),
        (
            made(b(), (0, 4), &[4], None, FLAG_IS_SUBBYTE_TYPE_PADDED),
            "padded",
        ),
        (made(b(), (1, 8), &[-1], None, 0), "a shape of [-1]"),
        (made(b(), (1, 8), &[2; 17], None, 0), "a rank of 17"),
        (made(b(), (2, 32), &[1], None, 0), "aligned"),
    ];
    for (mut m, said) in cases {
        if said == "aligned" {
            m.managed.dl_tensor.byte_offset = 1;
        }
        let e = once(m, |a| a.unwrap_err());
        assert!(e.to_string().contains(said), "{said}: {e}");
    }
    let mut m = made(b(), (1, 8), &[8], None, 0);
    m.managed.version.major = 2;
    let e = once(m, |a| a.unwrap_err());
    assert!(e.to_string().contains("DLPack 2.1"), "{e}");
    let mut m = made(b(), (1, 8), &[8], None, 0);
    m.managed.dl_tensor.device.device_type = 7;
    let e = once(m, |a| a.unwrap_err());
    assert!(e.to_string().contains("device type 7"), "{e}");
    // SAFETY: null is refused before anything is read.
    let e = unsafe { AnyArray::from_dlpack(std::ptr::null_mut()) }.unwrap_err();
    assert!(e.to_string().contains("null"), "{e}");
}

#[test]
fn the_legacy_tensor_crosses_both_ways() {
    let a = Array::<f64>::of_array(&[2], &[0.5, -0.0]).unwrap();
    let t = a.any().to_dlpack_legacy().unwrap();
    // SAFETY: given up once.
    let b = unsafe { AnyArray::from_dlpack_legacy(t.as_ptr()) }.unwrap();
    assert_eq!(b.to_bytes().unwrap(), a.any().to_bytes().unwrap());
    b.buffer().write_bytes(0, &2.0f64.to_le_bytes()).unwrap();
    assert_eq!(a.get(&[0]).unwrap(), 2.0); // the same memory
}

#[test]
fn no_elements_cross_as_null_data_at_any_offset() {
    let a = AnyArray::of_bytes(DType::Int4, &[3], vec![0x21, 0x03]).unwrap();
    let e = a.slice(&[Slice::new(Some(1), Some(1), 1)]).unwrap(); // empty, odd offset
    let t = e.to_dlpack().unwrap();
    // SAFETY: read, then given up once.
    let b = unsafe {
        let d = t.as_ref().dl_tensor;
        assert!(d.data.is_null());
        assert_eq!(d.byte_offset, 0);
        AnyArray::from_dlpack(t.as_ptr()).unwrap()
    };
    assert_eq!(b.shape(), [0]);
}
