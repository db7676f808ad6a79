//! A destroyed or lost GPU device is never handed out again by name: `Rig::by_name`,
//! `Rig::gpus` and `Rig::all` open its adapter anew, and the new device works. In a
//! file of its own: the test destroys the process's first GPU, which other tests share.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::{AnyArray, DType, Rig};

#[test]
fn a_destroyed_gpu_is_opened_anew_by_name() {
    let g = Rig::by_name("gpu").expect("a GPU adapter (lavapipe): install mesa-vulkan-drivers");
    assert!(!g.is_lost());
    g.destroy();
    assert!(g.is_lost());
    let h = Rig::by_name("gpu").unwrap();
    assert!(h != g, "a new device, not the destroyed one");
    assert!(!h.is_lost());
    assert_eq!(h.name(), g.name(), "the same adapter");
    assert!(Rig::gpus().iter().all(|r| !r.is_lost()));
    assert!(Rig::all().iter().all(|r| !r.is_lost()));
    let a = AnyArray::of_bits(DType::Float32, &[2], &[0x3fc0_0000, 0xc000_0000]).unwrap();
    let b = a.to_device(&h).unwrap().cast(DType::Bfloat16).unwrap();
    assert_eq!(
        b.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap(),
        [0x3fc0, 0xc000]
    );
    // Marked lost without a destroy (a driver's report): the same.
    h.lose();
    let k = Rig::by_name("gpu").unwrap();
    assert!(k != h && !k.is_lost());
}
