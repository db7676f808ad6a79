//! One placement, every form: every view of a zoo (flipped, permuted,
//! sliced with steps, broadcast with strided axes, empty at offsets, sub-byte at odd
//! offsets, rank 0, overlapping), of seven dtypes, placed from each device to each by
//! `to_device` and `to_device_async` (which must agree on the layout too), `transfer`
//! (into C-contiguous and flipped arrays) and `copy`, against the bits computed apart
//! (`tests/common/zoo.rs`). Natively the devices are the host, a second host device,
//! the GPU and a second GPU with every type emulated; the browser runs the same check
//! in `tests/webgpu.rs`.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/zoo.rs"]
mod zoo;

use nxrig::rig::wgpu::Options;
use nxrig::Rig;

#[test]
fn every_placement_of_every_view_on_every_device() {
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let emulated = Rig::gpu_with(&Options {
        emulate: true,
        ..Options::default()
    })
    .unwrap();
    let rigs = [Rig::host(), Rig::virtual_host("host2"), gpu, emulated];
    let bad = pollster::block_on(zoo::every_form(&rigs));
    assert!(
        bad.is_empty(),
        "{} placements wrong:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
