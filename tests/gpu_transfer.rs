//! The generated WGSL transfer kernels (`nxrig::wgsl`) run on a real Vulkan device
//! through wgpu (Mesa's lavapipe here; any adapter elsewhere) and store exactly the
//! bytes the host transfer stores, neighbours' bits included, for every element width.
//! A machine without an adapter fails this test: install mesa-vulkan-drivers.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::rig::{Buffer, Kind};
use nxrig::wgsl::{transfer_module, widths};
use nxrig::{AnyArray, DType, Layout, Move, Rig, Slice};
use wgpu::util::DeviceExt;

fn device() -> (wgpu::Device, wgpu::Queue, String) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters
        .into_iter()
        .next()
        .expect("no GPU adapter: install mesa-vulkan-drivers (lavapipe)");
    let name = format!(
        "{} ({:?})",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    let (d, q) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
        .expect("a device");
    (d, q, name)
}

/// A dtype of each width.
fn dtype_of(bits: u32) -> DType {
    DType::ALL.into_iter().find(|d| d.bits() == bits).unwrap()
}

fn padded(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    v.resize(b.len().div_ceil(4).max(1) * 4, 0);
    v
}

/// Runs the transfer kernel for `src` into `dst` (host arrays whose bytes it uploads)
/// and returns the destination buffer's bytes.
fn gpu_transfer(dev: &wgpu::Device, q: &wgpu::Queue, src: &AnyArray, dst: &AnyArray) -> Vec<u8> {
    let bits = src.dtype().bits();
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("transfer"),
        source: wgpu::ShaderSource::Wgsl(transfer_module(bits).into()),
    });
    let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("transfer"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let (sl, dl) = (src.layout(), dst.layout());
    let r = sl.rank();
    let mut params: Vec<u32> = vec![
        sl.numel() as u32,
        r as u32,
        sl.offset() as u32,
        dl.offset() as u32,
    ];
    for k in 0..16 {
        if k < r {
            let a = r - 1 - k; // innermost first
            params.extend([
                sl.shape()[a] as u32,
                sl.strides()[a] as i32 as u32,
                dl.strides()[a] as i32 as u32,
                0,
            ]);
        } else {
            params.extend([1, 0, 0, 0]);
        }
    }
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let pbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("params"),
        contents: &params
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let sbytes = padded(&src.buffer().read(|b| b.to_vec()).unwrap());
    let dbytes = padded(&dst.buffer().read(|b| b.to_vec()).unwrap());
    let sbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("src"),
        contents: &sbytes,
        usage,
    });
    let dbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("dst"),
        contents: &dbytes,
        usage,
    });
    let rbuf = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: dbytes.len() as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: pbuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: sbuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: dbuf.as_entire_binding(),
            },
        ],
    });
    let mut enc = dev.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((sl.numel() as u32).div_ceil(256).max(1), 1, 1);
    }
    enc.copy_buffer_to_buffer(&dbuf, 0, &rbuf, 0, dbytes.len() as u64);
    q.submit([enc.finish()]);
    rbuf.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
    dev.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let out = rbuf.get_mapped_range(..).expect("mapped").to_vec();
    out[..dst.buffer().len()].to_vec()
}

#[test]
fn generated_transfer_kernels_equal_the_host_transfer_on_a_gpu() {
    let (dev, q, name) = device();
    eprintln!("adapter: {name}");
    for bits in widths() {
        let d = dtype_of(bits);
        // A 5 x 7 source, one element in, flipped and transposed.
        let n = 36;
        let mut bytes = vec![0u8; d.bytes(n).unwrap()];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 151 + 29) as u8;
        }
        let base = AnyArray::of_bytes(d, &[n], bytes).unwrap();
        let src = base
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
            .unwrap()
            .unwrap()
            .move_(&Move::Reshape(vec![5, 7]))
            .unwrap()
            .unwrap()
            .move_(&Move::Flip(vec![1]))
            .unwrap()
            .unwrap()
            .move_(&Move::Permute(vec![1, 0]))
            .unwrap()
            .unwrap();
        // Into a transposed destination, every other byte of its buffer a pattern.
        let dlen = d.bytes(35).unwrap() + 3;
        let dbuf = Buffer::create(&Rig::host(), dlen, Kind::Device).unwrap();
        dbuf.write(|b| {
            b.iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = if i % 2 == 0 { 0xa5 } else { 0x5a })
        })
        .unwrap();
        let dl = Layout::new(&[7, 5], &[1, 7], if d.is_sub_byte() { 1 } else { 0 }).unwrap();
        let dst = AnyArray::v(d, dl, dbuf).unwrap();
        let gpu = gpu_transfer(&dev, &q, &src, &dst);
        AnyArray::transfer(&src, &dst).unwrap();
        let host = dst.buffer().read(|b| b.to_vec()).unwrap();
        assert_eq!(gpu, host, "{bits}-bit elements on {name}");
    }
}
