//! Errors in the caller's words: each names the function the user called (its Rust
//! path, as `AnyArray::cast`), lists only the operands the user passed, and a shape
//! mismatch gives the shapes. The refusals' kinds and their order stay the
//! specification's (the door's `Answer`s, `tests/door.rs`).

use nxrig::kernels::{add, add_donated, fill};
use nxrig::{AnyArray, Array, DType, Error, Layout, Move, Rig};

/// An array of three float32 whose buffer was freed.
fn dead() -> Array<f32> {
    let a = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap();
    a.buffer().free().unwrap();
    a
}

#[test]
fn a_dead_buffer_is_named_by_the_function_called() {
    let a = dead();
    let says = |e: Error| e.to_string();
    assert_eq!(
        says(a.to_vec().unwrap_err()),
        "Array::to_vec: the buffer is dead: freed (Buffer::free)"
    );
    assert_eq!(
        says(a.any().to_bits_vec().unwrap_err()),
        "AnyArray::to_bits_vec: the buffer is dead: freed (Buffer::free)"
    );
    let cast = says(a.any().cast(DType::Float16).unwrap_err());
    assert!(cast.starts_with("AnyArray::cast: "), "{cast}");
    assert!(
        cast.ends_with("(float32 [3])"),
        "one operand, the one given: {cast}"
    );
    let copy = says(a.any().copy().unwrap_err());
    assert!(copy.starts_with("AnyArray::copy: "), "{copy}");
    let placed = says(a.any().to_device(&Rig::host()).unwrap_err());
    assert!(placed.starts_with("AnyArray::to_device: "), "{placed}");
    let filled = says(fill(a.any(), 1.0).unwrap_err());
    assert!(filled.starts_with("fill: "), "{filled}");
}

#[test]
fn allocations_name_the_function_that_allocates() {
    let e = AnyArray::create(&Rig::host(), DType::Float64, &[usize::MAX / 4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "AnyArray::create: byte count overflows for float64"
    );
    let e = DType::Float64.bytes(usize::MAX).unwrap_err();
    assert_eq!(
        e.to_string(),
        "DType::bytes: byte count overflows for float64"
    );
    let e = Rig::by_name("gpu99").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("Rig::by_name: no device named \"gpu99\""),
        "{e}"
    );
}

#[test]
fn add_lists_the_two_operands_given_and_their_shapes() {
    let x = Array::<f32>::of_array(&[2, 3], &[0.0; 6]).unwrap();
    let y = Array::<f32>::of_array(&[3, 2], &[0.0; 6]).unwrap();
    let b = x.any().cast(DType::Bfloat16).unwrap();
    assert_eq!(
        add(x.any(), &b).unwrap_err().to_string(),
        "add: the operands' dtypes differ (cast one first) (float32 [2, 3], bfloat16 [2, 3])"
    );
    assert_eq!(
        add(x.any(), y.any()).unwrap_err().to_string(),
        "add: shape mismatch: [2, 3] and [3, 2] do not broadcast (float32 [2, 3], float32 [3, 2])"
    );
    // The donating add says its own name, whether it would write in place or not.
    assert_eq!(
        add_donated(x.any().clone(), y.any()).unwrap_err().to_string(),
        "add_donated: shape mismatch: [2, 3] and [3, 2] do not broadcast (float32 [2, 3], float32 [3, 2])"
    );
    let e = add_donated(x.any().clone(), x.any()).unwrap_err();
    assert!(e.to_string().starts_with("add_donated: "), "{e}");
}

#[test]
fn layouts_and_moves_name_theirs() {
    let e = Layout::new(&[2, 3], &[1], 0).unwrap_err();
    assert!(e.to_string().starts_with("Layout::new: "), "{e}");
    let a = Array::<i8>::of_array(&[2, 3], &[0; 6]).unwrap();
    let e = a.move_(&Move::Reshape(vec![4])).unwrap_err();
    assert!(e.to_string().starts_with("Move::Reshape: "), "{e}");
    let e = a.move_(&Move::Permute(vec![0, 0])).unwrap_err();
    assert!(e.to_string().starts_with("Move::Permute: "), "{e}");
    let e = a.any().clone().expect::<f32>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "AnyArray::expect: expected float32, found int8"
    );
}

#[test]
fn called_renames_and_detail_drops_the_name() {
    let e = dead().to_vec().unwrap_err();
    assert_eq!(e.op(), Some("Array::to_vec"));
    assert_eq!(e.detail(), "the buffer is dead: freed (Buffer::free)");
    let e = e.called("NxArray.toTypedArray");
    assert_eq!(
        e.to_string(),
        "NxArray.toTypedArray: the buffer is dead: freed (Buffer::free)"
    );
    let f = "float33".parse::<DType>().unwrap_err();
    assert_eq!(f.op(), None);
    assert_eq!(f.detail(), f.to_string());
}
