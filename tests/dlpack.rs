//! DLPack on every device: host memory crosses as `kDLCPU`, a CUDA device's as
//! `kDLCUDA` with its index, and a GPU through wgpu, which has no DLPack address, is
//! refused. (The protocol itself, against NumPy: `tests/dlpack/numpy_dlpack.py`; its
//! pointers under Miri: the unit tests of `array::dlpack`.)
#![cfg(not(target_arch = "wasm32"))]

use nxrig::array::dlpack::{DEVICE_CPU, DEVICE_CUDA};
use nxrig::rig::RigKind;
use nxrig::{AnyArray, Array, Error, Rig};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

on_every_device! {
    fn an_array_crosses_on_its_device_and_back_without_a_copy() {
        let a = Array::<f32>::of_array(&[2, 3], &[1.0, -2.0, 3.5, 0.0, -0.0, 6.0])
            .unwrap()
            .on();
        let v = a.permute(&[1, 0]).unwrap();
        let rig = dut();
        let t = match (v.any().to_dlpack(), rig.kind()) {
            (Ok(t), RigKind::Host | RigKind::Cuda) => t,
            (Err(e @ Error::Unsupported { .. }), RigKind::Wgpu) => {
                assert!(e.to_string().contains("to the host"), "{e}");
                return;
            }
            (r, kind) => panic!("{kind:?}: {r:?}"),
        };
        // SAFETY: `t` was just made; its fields are read, then it is given up once.
        let b = unsafe {
            let d = t.as_ref().dl_tensor;
            let want = if rig.kind() == RigKind::Cuda {
                (DEVICE_CUDA, rig.name()["cuda".len()..].parse().unwrap())
            } else {
                (DEVICE_CPU, 0)
            };
            assert_eq!((d.device.device_type, d.device.device_id), want);
            assert_eq!(std::slice::from_raw_parts(d.strides, 2), [1, 3]);
            AnyArray::from_dlpack(t.as_ptr()).unwrap()
        };
        assert_eq!(b.rig().kind(), rig.kind());
        let host = Rig::host();
        let want = v.any().to_device(&host).unwrap().expect::<f32>().unwrap().to_vec().unwrap();
        let got = b.to_device(&host).unwrap().expect::<f32>().unwrap().to_vec().unwrap();
        assert_eq!(got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                   want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        // A write through the imported array is a write of `a`'s memory.
        let ones = Array::<f32>::of_array(&[3, 2], &[9.0; 6]).unwrap();
        AnyArray::transfer(ones.any(), &b).unwrap();
        drop(b);
        let back = a.any().to_device(&host).unwrap().expect::<f32>().unwrap();
        assert_eq!(back.to_vec().unwrap(), [9.0; 6]);
    }
}
