//! `ndarray` interop: zero copy in both directions.

use half::f16;
use ndarray::{ArrayD, Axis, IxDyn};
use nxrig::rig::Claim;
use nxrig::{Array, Error, Move};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[test]
fn from_ndarray_takes_the_elements_without_a_copy_strides_and_all() {
    let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).map(|x| x as f32).collect()).unwrap();
    let p = a.as_ptr() as usize;
    let n = Array::from_ndarray(a).unwrap();
    assert_eq!(n.buffer().addr(), p);
    assert_eq!(n.to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    // A reversed axis: negative stride and an offset, still no copy.
    let mut b = ArrayD::from_shape_vec(
        IxDyn(&[2, 3]),
        (0..6).map(|x| f16::from_f32(x as f32)).collect(),
    )
    .unwrap();
    b.invert_axis(Axis(1));
    let want: Vec<f16> = b.iter().copied().collect();
    let m = Array::from_ndarray(b).unwrap();
    assert_eq!(m.layout().strides(), [3, -1]);
    assert_eq!(m.to_vec().unwrap(), want);
}

#[test]
fn read_nd_lends_a_view_under_a_read_claim() {
    let x = Array::<i32>::of_array(&[2, 2], &[1, 2, 3, 4]).unwrap();
    let (sum, excl) = x
        .read_nd(|v| {
            (
                v.sum(),
                Claim::with(&[], &[x.buffer()], |c| c.exclusive(x.buffer())).unwrap(),
            )
        })
        .unwrap();
    assert_eq!(sum, 10);
    assert!(!excl, "no donation writes what the view reads");
    x.write_nd(|mut v| v[[1, 1]] = 40).unwrap();
    assert_eq!(x.get(&[1, 1]).unwrap(), 40);
    let t = x.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
    assert!(matches!(
        t.read_nd(|_| ()),
        Err(Error::Invalid {
            op: "Array::read_nd",
            ..
        })
    ));
    assert_eq!(
        t.to_ndarray().unwrap(),
        ndarray::arr2(&[[1, 3], [2, 40]]).into_dyn()
    );
}

#[test]
fn bigarray_exports_the_memory_for_good() {
    let x = Array::<f64>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap();
    let e = x.bigarray().unwrap();
    e.view_mut(|mut v| v[[0]] = 10.0).unwrap();
    assert_eq!(e.view(|v| v.sum()).unwrap(), 15.0);
    assert_eq!(x.get(&[0]).unwrap(), 10.0, "writes through it write x");
    assert!(
        !Claim::with(&[], &[x.buffer()], |c| c.exclusive(x.buffer())).unwrap(),
        "never exclusive again"
    );
    let t = Array::<f64>::of_array(&[2, 2], &[0.0; 4])
        .unwrap()
        .move_(&Move::Permute(vec![1, 0]))
        .unwrap()
        .unwrap();
    assert!(matches!(
        t.bigarray(),
        Err(Error::Invalid {
            op: "Array::bigarray",
            ..
        })
    ));
}
