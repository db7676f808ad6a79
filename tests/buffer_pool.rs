//! The GPU device's pool of freed buffers (natively, lavapipe here): memory given back
//! is reused for the next allocation of its size, an array created over it reads 0
//! (the specification leaves a fresh array's elements unspecified; nxrig's are 0 everywhere),
//! a kernel's output over it is right, the pool keeps no more than its cap, and
//! emptying it or destroying the device drops what it keeps, and exported memory never
//! goes back to it. Each test opens its own
//! device, so that the counts are its own.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::rig::wgpu::Options;
use nxrig::{AnyArray, DType, Rig};

fn device(cache_bytes: Option<u64>) -> Rig {
    Rig::gpu_with(&Options {
        cache_bytes,
        ..Options::default()
    })
    .expect("a GPU device: install mesa-vulkan-drivers (lavapipe)")
}

fn cached(r: &Rig) -> u64 {
    r.wgpu().unwrap().cached_bytes()
}

/// 1024 float32 of varied bits (no zero among them).
fn varied() -> AnyArray {
    let bits: Vec<u128> = (0..1024u128).map(|i| 0x3f80_0000 + i * 0x1_0001).collect();
    AnyArray::of_bits(DType::Float32, &[1024], &bits).unwrap()
}

#[test]
fn freed_memory_is_reused_and_a_created_array_over_it_reads_zero() {
    let r = device(None);
    let a = varied().to_device(&r).unwrap();
    // (The probe of the device's float32 sums, at open, may have left a buffer.)
    let before = cached(&r);
    drop(a);
    assert_eq!(cached(&r), before + 4096, "the freed memory is kept");
    let z = AnyArray::create(&r, DType::Float32, &[1024]).unwrap();
    assert_eq!(cached(&r), before, "the kept buffer is reused");
    let back = z.to_device(&Rig::host()).unwrap();
    assert!(back.to_bits_vec().unwrap().iter().all(|&b| b == 0));
}

#[test]
fn a_kernel_output_over_reused_memory_is_right() {
    let r = device(None);
    let host = varied();
    let x = host.to_device(&r).unwrap();
    for d in [DType::Int32, DType::Float16, DType::Float32] {
        // A freed buffer of the output's size full of other bits comes first.
        let junk = AnyArray::of_bits(d, &[1024], &vec![0x5a5a_5a5a; 1024]).unwrap();
        drop(junk.to_device(&r).unwrap());
        let before = cached(&r);
        let got = x.cast(d).unwrap();
        assert!(
            cached(&r) < before,
            "{d}: the output reuses the freed buffer"
        );
        let want = host.cast(d).unwrap();
        assert_eq!(
            got.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap(),
            want.to_bits_vec().unwrap(),
            "{d}"
        );
    }
}

#[test]
fn the_pool_keeps_no_more_than_its_cap() {
    let r = device(Some(8192));
    let arrays: Vec<AnyArray> = (0..3).map(|_| varied().to_device(&r).unwrap()).collect();
    drop(arrays);
    assert_eq!(cached(&r), 8192, "two of three 4096-byte buffers kept");
    r.wgpu().unwrap().empty_cache();
    assert_eq!(cached(&r), 0);
    let none = device(Some(0));
    drop(varied().to_device(&none).unwrap());
    assert_eq!(cached(&none), 0);
}

#[test]
fn reads_reuse_their_staging_buffers_and_destroy_empties_the_pool() {
    let r = device(None);
    let a = varied().to_device(&r).unwrap();
    let first = a.to_device(&Rig::host()).unwrap();
    let kept = cached(&r);
    assert!(kept >= 4096, "the staging buffer is kept: {kept}");
    let again = a.to_device(&Rig::host()).unwrap();
    assert_eq!(cached(&r), kept, "the second read reuses it");
    assert_eq!(first.to_bits_vec().unwrap(), again.to_bits_vec().unwrap());
    r.destroy();
    assert_eq!(cached(&r), 0);
    drop(a);
    assert_eq!(
        cached(&r),
        0,
        "memory freed after the device is destroyed is not kept"
    );
}

#[test]
fn an_async_read_of_a_view_reads_only_its_own_bytes() {
    let r = device(None);
    let big: Vec<u128> = (0..(1u128 << 18)).collect();
    let a = AnyArray::of_bits(DType::Float32, &[1 << 18], &big)
        .unwrap()
        .to_device(&r)
        .unwrap();
    // A view at the start of the memory was read whole once (its layout is
    // contiguous from offset 0); one further in goes through no copy now.
    for start in [0, 1000] {
        let view = a
            .move_(&nxrig::Move::Slice(vec![nxrig::Slice::new(
                Some(start),
                Some(start + 3),
                1,
            )]))
            .unwrap()
            .unwrap();
        let before = cached(&r);
        let back = pollster::block_on(view.to_device_async(&Rig::host())).unwrap();
        let want: Vec<u128> = (start as u128..start as u128 + 3).collect();
        assert_eq!(back.to_bits_vec().unwrap(), want);
        let staged = cached(&r) - before;
        assert!(
            staged <= 16,
            "{staged} bytes staged to read 12 (not the whole 1 MiB memory)"
        );
    }
}

/// Exported memory (handed to another library: `Buffer::export`, what `gpuBuffer`
/// does in the browser) never goes back to the pool, so no later array reuses buffers
/// another library may still hold; memory not exported does.
#[test]
fn exported_memory_never_goes_back_to_the_pool() {
    let gpu = device(None);
    let a = varied().to_device(&gpu).unwrap();
    a.buffer().export().unwrap();
    let before = cached(&gpu); // staging buffers of the upload, kept
    drop(a);
    assert_eq!(cached(&gpu), before, "exported: not kept for reuse");
    let b = varied().to_device(&gpu).unwrap();
    let before = cached(&gpu);
    drop(b);
    assert_eq!(cached(&gpu), before + 4096, "not exported: kept");
}
