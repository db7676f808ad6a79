//! A wgpu device for the GPU tests, and one dispatch of a generated module over the
//! bindings of `nxrig::wgsl` (0 parameters, 1 source words, 2 destination words).
//! Async, so that the same code runs natively (driven by `pollster`) and in the
//! browser (driven by its event loop).
#![allow(dead_code)]

use wgpu::util::DeviceExt;

/// A device and queue of the first adapter, and the adapter's name. A machine without
/// an adapter fails: install mesa-vulkan-drivers (lavapipe); a browser needs WebGPU.
pub async fn device() -> (wgpu::Device, wgpu::Queue, String) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .expect(
            "no GPU adapter: install mesa-vulkan-drivers (lavapipe), or give the browser WebGPU",
        );
    let name = format!(
        "{} ({:?})",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    let (d, q) = adapter
        .request_device(&wgpu::DeviceDescriptor::default())
        .await
        .expect("a device");
    (d, q, name)
}

/// The parameters of a kernel over `n` elements: rank, offsets (elements), and per
/// axis, outermost first, (extent, source stride, destination stride).
pub fn params(n: usize, offsets: (usize, usize), axes: &[(usize, isize, isize)]) -> Vec<u8> {
    let mut p: Vec<u32> = vec![
        n as u32,
        axes.len() as u32,
        offsets.0 as u32,
        offsets.1 as u32,
    ];
    for k in 0..16 {
        match axes.iter().rev().nth(k) {
            Some(&(e, s, d)) => p.extend([e as u32, s as i32 as u32, d as i32 as u32, 0]),
            None => p.extend([1, 0, 0, 0]),
        }
    }
    p.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn padded(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    v.resize(b.len().div_ceil(4).max(1) * 4, 0);
    v
}

/// Runs `module` once over `n` elements and returns the destination's bytes (as long
/// as `dst`).
pub async fn dispatch(
    dev: &wgpu::Device,
    q: &wgpu::Queue,
    module: &str,
    params: &[u8],
    n: usize,
    src: &[u8],
    dst: &[u8],
) -> Vec<u8> {
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(module.into()),
    });
    let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let pbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: params,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let (sb, db) = (padded(src), padded(dst));
    let sbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &sb,
        usage,
    });
    let dbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &db,
        usage,
    });
    let rbuf = dev.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: db.len() as u64,
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
        let groups = (n as u32).div_ceil(256).max(1);
        let (x, y) = if groups > 65535 {
            (65535, groups.div_ceil(65535))
        } else {
            (groups, 1)
        };
        pass.dispatch_workgroups(x, y, 1);
    }
    enc.copy_buffer_to_buffer(&dbuf, 0, &rbuf, 0, db.len() as u64);
    q.submit([enc.finish()]);
    let (tx, rx) = futures_channel::oneshot::channel();
    rbuf.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    // Natively the callback runs inside a poll; in the browser, from its event loop.
    #[cfg(not(target_arch = "wasm32"))]
    dev.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    rx.await.expect("map callback").expect("map");
    let out = rbuf.get_mapped_range(..).expect("mapped").to_vec();
    out[..dst.len()].to_vec()
}
