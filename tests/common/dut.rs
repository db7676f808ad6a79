//! The device under test of the conformance suites (arrays, views, placement,
//! kernels): `NXRIG_TEST_DEVICE` names it as `Rig::by_name` does (`host`, `gpu`, ...);
//! the host by default, and always in the browser, where a suite's blocking reads of
//! GPU memory cannot run (the browser's GPU suite is `tests/gpu_web.rs`).
#![allow(dead_code)]

use nxrig::dtype::Element;
use nxrig::{AnyArray, Array, Rig};

/// The device the suite runs on.
pub fn dut() -> Rig {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(name) = std::env::var("NXRIG_TEST_DEVICE") {
        return Rig::by_name(&name).expect("NXRIG_TEST_DEVICE names a device");
    }
    Rig::host()
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
