//! The generated WGSL cast kernels on WebGPU in the browser (headless Chromium's
//! SwiftShader adapter: no f16, no i64, no f64), against the oracle vectors: every
//! source dtype into every target, on a sample of at most 4096 records a source (every
//! record of the 8-bit and 4-bit sources). Run by `wasm-pack test --headless --chrome`.
#![cfg(target_arch = "wasm32")]

mod common;

use nxrig::dtype::{read_bits, write_bits};
use nxrig::wgsl::cast_module;
use nxrig::DType;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};
use wgpu::util::DeviceExt;

wasm_bindgen_test_configure!(run_in_browser);

async fn device() -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .expect("no WebGPU adapter: the browser needs --enable-unsafe-webgpu (webdriver.json)");
    adapter
        .request_device(&wgpu::DeviceDescriptor::default())
        .await
        .expect("a device")
}

fn padded(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    v.resize(b.len().div_ceil(4).max(1) * 4, 0);
    v
}

async fn cast(
    dev: &wgpu::Device,
    q: &wgpu::Queue,
    src: DType,
    dst: DType,
    n: usize,
    sbytes: &[u8],
) -> Vec<u8> {
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(cast_module(src, dst).into()),
    });
    let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut p: Vec<u32> = vec![n as u32, 1, 0, 0, n as u32, 1, 1, 0];
    p.resize(4 + 16 * 4, 0);
    let params: Vec<u8> = p.iter().flat_map(|x| x.to_le_bytes()).collect();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let dlen = dst.bytes(n).unwrap();
    let pbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &params,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let sbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &padded(sbytes),
        usage,
    });
    let zero = padded(&vec![0u8; dlen]);
    let dbuf = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &zero,
        usage,
    });
    let rbuf = dev.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: zero.len() as u64,
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
        pass.dispatch_workgroups((n as u32).div_ceil(256).max(1), 1, 1);
    }
    enc.copy_buffer_to_buffer(&dbuf, 0, &rbuf, 0, zero.len() as u64);
    q.submit([enc.finish()]);
    let (tx, rx) = futures_channel::oneshot::channel();
    rbuf.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    rx.await.expect("map callback").expect("map");
    let out = rbuf.get_mapped_range(..).expect("mapped").to_vec();
    out[..dlen].to_vec()
}

#[wasm_bindgen_test]
async fn generated_cast_kernels_equal_the_oracle_vectors_on_webgpu() {
    let (dev, q) = device().await;
    let mut bad = Vec::new();
    for src in DType::ALL {
        let data = common::records(src);
        let rl = common::record_len(src);
        let all = data.len() / rl;
        let step = all.div_ceil(4096);
        let recs: Vec<&[u8]> = data.chunks_exact(rl).step_by(step).collect();
        let n = recs.len();
        let w = common::width(src);
        let mut sbytes = vec![0u8; src.bytes(n).unwrap()];
        for (i, rec) in recs.iter().enumerate() {
            write_bits(src, &mut sbytes, i, common::le(&rec[..w]));
        }
        let mut at = w;
        for dst in DType::ALL {
            let dw = common::width(dst);
            let out = cast(&dev, &q, src, dst, n, &sbytes).await;
            let wrong = recs
                .iter()
                .enumerate()
                .filter(|(i, rec)| read_bits(dst, &out, *i) != common::le(&rec[at..at + dw]))
                .count();
            if wrong > 0 {
                bad.push(format!("{src} -> {dst}: {wrong} of {n} wrong"));
            }
            at += dw;
        }
        console_log!("{src}: {n} records into every dtype");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
