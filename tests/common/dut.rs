//! The device under test of the conformance suites (arrays, views, placement, door,
//! kernels). Each test is written once, in [`on_every_device!`], which makes it a
//! module of tests, one per kind of device, named for it:
//!
//! - `<test>::host`: the host;
//! - `<test>::host_virtual`: a second host device (`Rig::virtual_host`), of its own
//!   identity and timeline over host memory: the suites through the seam on a device
//!   that is not `Rig::host`, whose arrays' sources (made on the host) are another
//!   device's;
//! - `<test>::gpu`: every GPU device through wgpu the machine has (`Rig::gpus`: one
//!   per adapter), in turn;
//! - `<test>::gpu_emulated`: the first adapter opened again with every type emulated
//!   (the browsers' path, forced);
//! - `<test>::cuda` (cargo feature `cuda`): every CUDA device (`Rig::cudas`), in turn.
//!
//! A test of the host's own machinery (its thread pool's split) is written in
//! [`on_the_hosts!`], which makes `host` and `host_virtual` only.
//!
//! In the browser only `host` is made (a suite's blocking reads of GPU memory cannot
//! run there; the browser's GPU suite is `tests/webgpu.rs`). A GPU test fails where
//! the machine has no GPU; it never passes without running. A CUDA test is reported
//! ignored, with the reason, where the machine that built it has no CUDA driver or no
//! NVRTC (`build.rs`); elsewhere it fails without a CUDA device. `cargo test -- ::gpu`
//! runs one kind; `NXRIG_TEST_DEVICE=host|host_virtual|gpu|gpu_emulated|cuda` also
//! narrows a run: the other kinds' tests then return at once, saying so on standard
//! error.
#![allow(dead_code)]

use std::cell::RefCell;

use nxrig::dtype::Element;
use nxrig::{AnyArray, Array, Rig};

thread_local! {
    static DUT: RefCell<Option<Rig>> = const { RefCell::new(None) };
}

/// The device the running test is on.
///
/// # Panics
/// Off the test's own thread (a thread a test spawns gets its arrays, not `dut()`).
pub fn dut() -> Rig {
    DUT.with(|d| d.borrow().clone())
        .expect("dut() is called on the test's own thread, inside on_every_device!")
}

/// The kinds of device a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Host,
    HostVirtual,
    Gpu,
    GpuEmulated,
    Cuda,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Host => "host",
            Kind::HostVirtual => "host_virtual",
            Kind::Gpu => "gpu",
            Kind::GpuEmulated => "gpu_emulated",
            Kind::Cuda => "cuda",
        }
    }

    /// The devices of this kind on this machine.
    fn devices(self) -> Vec<Rig> {
        match self {
            Kind::Host => vec![Rig::host()],
            Kind::HostVirtual => {
                static VIRTUAL: std::sync::OnceLock<Rig> = std::sync::OnceLock::new();
                vec![VIRTUAL
                    .get_or_init(|| Rig::virtual_host("host-virtual"))
                    .clone()]
            }
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Gpu => Rig::gpus(),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Cuda => cudas(),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::GpuEmulated => {
                static TWIN: std::sync::OnceLock<Result<Rig, String>> = std::sync::OnceLock::new();
                let twin = TWIN.get_or_init(|| {
                    let o = nxrig::rig::wgpu::Options {
                        emulate: true,
                        ..Default::default()
                    };
                    Rig::gpu_with(&o).map_err(|e| e.to_string())
                });
                if let Ok(t) = twin {
                    let native = t.wgpu().expect("a wgpu device").native();
                    assert_eq!(
                        native,
                        nxrig::rig::wgpu::Native::NONE,
                        "the twin emulates every type"
                    );
                }
                twin.iter().cloned().collect()
            }
            #[cfg(target_arch = "wasm32")]
            _ => Vec::new(),
        }
    }
}

/// Runs `body` once on each device of `kind`, [`dut`] naming it.
///
/// # Panics
/// Where the machine has no device of `kind` (install mesa-vulkan-drivers for
/// lavapipe), and where `body` panics (after a line naming the device).
pub fn run_on(kind: Kind, body: fn()) {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(only) = std::env::var("NXRIG_TEST_DEVICE") {
        if only != kind.name() {
            eprintln!("not run on {}: NXRIG_TEST_DEVICE={only}", kind.name());
            return;
        }
    }
    let devices = kind.devices();
    assert!(
        !devices.is_empty(),
        "no {} device on this machine: install a Vulkan driver (mesa-vulkan-drivers: lavapipe)",
        kind.name()
    );
    for rig in devices {
        let emulated = if kind == Kind::GpuEmulated {
            " (every type emulated)"
        } else {
            ""
        };
        eprintln!("on {}{emulated}", rig.name());
        DUT.with(|d| *d.borrow_mut() = Some(rig.clone()));
        body();
        DUT.with(|d| *d.borrow_mut() = None);
    }
}

/// A conformance test, written once, run on every kind of device (see the module's
/// docs): `on_every_device! { fn name() { ... } }` makes `name::host`, `name::host_virtual`,
/// `name::gpu`, `name::gpu_emulated` and (cargo feature `cuda`) `name::cuda`.
/// Attributes before `fn` (`cfg`, docs) go on the module.
///
/// `on_every_device! { @casts fn name() { ... } }`: the same but `gpu_emulated`, for a
/// test whose GPU work is casts and copies alone: their WGSL does not depend on the
/// device's native types (`wgsl/cast.rs`), so the emulated device ran the very kernels
/// of the native one.
#[macro_export]
macro_rules! on_every_device {
    (@casts $(#[$m:meta])* fn $name:ident() $body:block) => {
        $crate::on_every_device! { @with {} $(#[$m])* fn $name() $body }
    };
    (@with { $($more:tt)* } $(#[$m:meta])* fn $name:ident() $body:block) => {
        $crate::on_the_hosts! {
            @and {
                #[cfg(not(target_arch = "wasm32"))]
                #[test]
                fn gpu() {
                    $crate::dut::run_on($crate::dut::Kind::Gpu, body)
                }

                $crate::cuda_test! {
                    fn cuda() {
                        $crate::dut::run_on($crate::dut::Kind::Cuda, body)
                    }
                }

                $($more)*
            }
            $(#[$m])* fn $name() $body
        }
    };
    ($(#[$m:meta])* fn $name:ident() $body:block) => {
        $crate::on_every_device! {
            @with {
                #[cfg(not(target_arch = "wasm32"))]
                #[test]
                fn gpu_emulated() {
                    $crate::dut::run_on($crate::dut::Kind::GpuEmulated, body)
                }
            }
            $(#[$m])* fn $name() $body
        }
    };
}

/// A conformance test of the host's own machinery (its thread pool's split, its typed
/// loops), which a GPU or CUDA device does not run: `on_the_hosts! { fn name() { ... } }`
/// makes `name::host` (in the browser too) and `name::host_virtual` only. (`@and { ... }`
/// first adds the other devices' tests to the module: [`on_every_device!`].)
#[macro_export]
macro_rules! on_the_hosts {
    ($(#[$m:meta])* fn $name:ident() $body:block) => {
        $crate::on_the_hosts! { @and {} $(#[$m])* fn $name() $body }
    };
    (@and { $($more:tt)* } $(#[$m:meta])* fn $name:ident() $body:block) => {
        $(#[$m])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn body() $body

            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            fn host() {
                $crate::dut::run_on($crate::dut::Kind::Host, body)
            }

            #[cfg(not(target_arch = "wasm32"))]
            #[test]
            fn host_virtual() {
                $crate::dut::run_on($crate::dut::Kind::HostVirtual, body)
            }

            $($more)*
        }
    };
}

/// A test of CUDA devices (cargo feature `cuda`, native only): reported ignored,
/// saying why, where the machine that built it has no CUDA driver or no NVRTC
/// (`build.rs`); run, and failing without a device, elsewhere.
#[macro_export]
macro_rules! cuda_test {
    ($(#[$m:meta])* fn $name:ident() $body:block) => {
        $(#[$m])*
        #[cfg(all(not(target_arch = "wasm32"), feature = "cuda"))]
        #[test]
        #[cfg_attr(
            nx_cuda_no_driver,
            ignore = "skipped: no CUDA driver where this test was built (libcuda not found)"
        )]
        #[cfg_attr(
            nx_cuda_no_nvrtc,
            ignore = "skipped: no NVRTC where this test was built (libnvrtc not found)"
        )]
        fn $name() $body
    };
}

/// The CUDA devices of the machine.
///
/// # Panics
/// Where there is none, saying why.
#[cfg(not(target_arch = "wasm32"))]
pub fn cudas() -> Vec<Rig> {
    let cudas = Rig::cudas();
    assert!(
        !cudas.is_empty(),
        "no CUDA device on this machine: {}",
        Rig::cuda_unavailable().unwrap_or_default()
    );
    cudas
}

/// Arrays placed on the device under test.
pub trait On {
    /// The array, bit for bit, on [`dut`].
    fn on(self) -> Self;
}

impl<E: Element> On for Array<E> {
    fn on(self) -> Self {
        self.any().to_device(&dut()).unwrap().expect::<E>().unwrap()
    }
}

impl On for AnyArray {
    fn on(self) -> Self {
        self.to_device(&dut()).unwrap()
    }
}
