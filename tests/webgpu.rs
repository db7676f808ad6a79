//! The GPU backend in the browser (headless Chromium's WebGPU on SwiftShader: no f16,
//! no i64, no f64), through the runtime and nothing blocking: a device from
//! `Rig::gpu_async`, uploads, kernels, `to_device_async` and `read_async` back. Cast
//! against the oracle vectors (on at most 4096 records a source: every record of the
//! 4-bit and 8-bit sources; the pairs of [`CAST_SPINE`]), NaN payloads, odd tails, the
//! 4-byte padding, a read pending at a device loss. Run by
//! `wasm-pack test --headless --chrome`.
#![cfg(target_arch = "wasm32")]

mod common;
#[path = "common/ggml_blocks.rs"]
mod ggml_blocks;
#[path = "common/zoo.rs"]
mod zoo;

use nxrig::rig::wgpu::Options;
use nxrig::rig::{Buffer, Kind};
use nxrig::{AnyArray, DType, Error, Move, Rig};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

async fn gpu() -> Rig {
    Rig::gpu_async(&Options::default())
        .await
        .expect("a WebGPU adapter: run Chromium with the flags of webdriver.json")
}

async fn bits_back(a: &AnyArray) -> Vec<u128> {
    a.to_device_async(&Rig::host())
        .await
        .unwrap()
        .to_bits_vec()
        .unwrap()
}

/// The dtypes every source is cast into on WebGPU (the converter's usual targets);
/// float32 goes into every dtype, and each source into itself and the dtype after it
/// in code order too, so each dtype's decoder runs in the browser in at least five
/// casts and its encoder in at least three. Each cast is a kernel SwiftShader compiles (about half a second
/// in this Chromium), so every pair would grow with the square of the table (576
/// pairs took 640 s of the suite, 361 took 252 s); the native GPU suites
/// (`cast_on_devices`) hold every pair, on the same WGSL, to the vectors.
const CAST_SPINE: [DType; 4] = [
    DType::Float32,
    DType::Float16,
    DType::Bfloat16,
    DType::Int32,
];

/// The targets of `src`'s vectors on WebGPU (see [`CAST_SPINE`]).
fn cast_targets(src: DType) -> Vec<DType> {
    if src == DType::Float32 {
        return DType::ALL.to_vec();
    }
    let i = src as usize;
    let n = DType::ALL.len();
    DType::ALL
        .into_iter()
        .enumerate()
        .filter(|&(j, d)| CAST_SPINE.contains(&d) || (j + n - i) % n <= 1)
        .map(|(_, d)| d)
        .collect()
}

#[wasm_bindgen_test]
async fn cast_on_webgpu_equals_the_oracle_vectors() {
    let gpu = gpu().await;
    console_log!("device: {}", gpu.name());
    let mut bad = Vec::new();
    let start = js_sys::Date::now();
    for src in DType::ALL {
        let data = common::records(src);
        let rl = common::record_len(src);
        let all = data.len() / rl;
        let step = all.div_ceil(4096);
        let recs: Vec<&[u8]> = data.chunks_exact(rl).step_by(step).collect();
        let n = recs.len();
        let w = common::width(src);
        let bits: Vec<u128> = recs.iter().map(|r| common::le(&r[..w])).collect();
        let a = AnyArray::of_bits(src, &[n], &bits)
            .unwrap()
            .to_device(&gpu)
            .unwrap();
        let mut at = w;
        let targets = cast_targets(src);
        for dst in DType::ALL {
            let dw = common::width(dst);
            if !targets.contains(&dst) {
                at += dw;
                continue;
            }
            let got = bits_back(&a.cast(dst).unwrap()).await;
            let wrong = recs
                .iter()
                .enumerate()
                .filter(|(i, rec)| {
                    // A cast into the same dtype is a copy: bit for bit.
                    let want = if dst == src {
                        &rec[..w]
                    } else {
                        &rec[at..at + dw]
                    };
                    got[*i] != common::le(want)
                })
                .count();
            if wrong > 0 {
                bad.push(format!("{src} -> {dst}: {wrong} of {n} wrong"));
            }
            at += dw;
        }
        console_log!(
            "{src}: {n} records into {} dtypes ({:.0} s so far)",
            targets.len(),
            (js_sys::Date::now() - start) / 1e3
        );
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Placement on WebGPU: a 5x5 uint8 array (25 bytes) and 5 int4 (3 bytes) read back
/// exactly those bytes, the 4-byte padding never showing; NaN payloads (float32 bits
/// 0x7F802000) survive placement and copies; a float32 arange of shape [27, 31, 31]
/// permuted [1, 2, 0] and made contiguous has element [30, 30, 26] = 25946, every
/// element the source's.
#[wasm_bindgen_test]
async fn placement_on_webgpu_keeps_bytes_payloads_and_odd_tails() {
    let gpu = gpu().await;
    // 25 bytes of uint8 and 5 int4 (3 bytes): exactly those bytes come back.
    let u8s: Vec<u128> = (0..25).map(|i| 200 + i as u128).collect();
    let a = AnyArray::of_bits(DType::Uint8, &[5, 5], &u8s)
        .unwrap()
        .to_device(&gpu)
        .unwrap();
    let back = a.buffer().read_async().await.unwrap();
    assert_eq!(back, (200..225).collect::<Vec<u8>>());
    let b = AnyArray::of_bits(DType::Int4, &[5], &[8, 9, 7, 15, 1])
        .unwrap()
        .to_device(&gpu)
        .unwrap();
    assert_eq!(b.buffer().read_async().await.unwrap(), [0x98, 0xF7, 0x01]);
    let m = Buffer::create(&gpu, 7, Kind::Device).unwrap();
    m.write_bytes(0, &[9; 7]).unwrap();
    m.write_bytes(1, &[1, 2, 3]).unwrap();
    assert_eq!(m.read_async().await.unwrap(), [9, 1, 2, 3, 9, 9, 9]);
    // NaN payloads kept by placement and copies on the GPU.
    let nan = AnyArray::of_bits(DType::Float64, &[2], &[0x7FF0000000000001, 1]).unwrap();
    let on = nan.to_device(&gpu).unwrap();
    assert_eq!(
        bits_back(&on.copy().unwrap()).await,
        [0x7FF0000000000001, 1]
    );
    let f = AnyArray::of_bits(DType::Float32, &[1], &[0x7F802000]).unwrap();
    assert_eq!(bits_back(&f.to_device(&gpu).unwrap()).await, [0x7F802000]);
    // A permuted odd-sized arange made contiguous on the GPU.
    let n = 27 * 31 * 31;
    let bits: Vec<u128> = (0..n).map(|i| (i as f32).to_bits() as u128).collect();
    let x = AnyArray::of_bits(DType::Float32, &[27, 31, 31], &bits).unwrap();
    let p = Move::Permute(vec![1, 2, 0]);
    let c = x
        .to_device(&gpu)
        .unwrap()
        .move_(&p)
        .unwrap()
        .unwrap()
        .copy()
        .unwrap();
    let got = bits_back(&c).await;
    assert_eq!(
        f32::from_bits(got[(30 * 31 + 30) * 27 + 26] as u32),
        25946.0
    );
    assert_eq!(got, x.move_(&p).unwrap().unwrap().to_bits_vec().unwrap());
}

/// A read of device memory started, then the device lost: the read settles with
/// `Error::Lost`, and later operations on the device fail at once.
#[wasm_bindgen_test]
async fn a_read_pending_when_the_device_is_lost_settles_lost() {
    let gpu = gpu().await;
    let a = AnyArray::of_bits(DType::Int32, &[1 << 16], &vec![7; 1 << 16])
        .unwrap()
        .to_device(&gpu)
        .unwrap();
    let pending = a.buffer().read_async();
    gpu.destroy();
    let r = pending.await;
    assert!(matches!(r, Err(Error::Lost { .. })), "{r:?}");
    assert!(matches!(a.copy(), Err(Error::Lost { .. })));
    assert!(matches!(
        a.buffer().read_async().await,
        Err(Error::Lost { .. })
    ));
    assert!(matches!(
        Buffer::create(&gpu, 4, Kind::Device),
        Err(Error::Lost { .. })
    ));
    // Reading GPU memory blockingly is refused in the browser, never a hang.
    let other = self::gpu().await;
    let b = a.to_device(&Rig::host());
    assert!(matches!(b, Err(Error::Lost { .. })));
    let c = AnyArray::of_bits(DType::Int8, &[3], &[1, 2, 3])
        .unwrap()
        .to_device(&other)
        .unwrap();
    match c.to_bits_vec() {
        Err(e @ Error::Unsupported { .. }) => assert!(e.to_string().contains("read_async"), "{e}"),
        other => panic!("a blocking read in the browser gave {other:?}"),
    }
    assert_eq!(bits_back(&c).await, [1, 2, 3]);
}

/// float32 add on WebGPU equals the host's on sums whose operands or results are
/// subnormal (SwiftShader flushes them in native arithmetic), near-cancelling pairs,
/// NaNs and infinities; float16 and int32 beside it.
#[wasm_bindgen_test]
async fn add_on_webgpu_is_exact_on_subnormals() {
    let gpu = gpu().await;
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for d in [DType::Float32, DType::Float16, DType::Int32] {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let mask = (1u128 << d.bits()) - 1;
        for i in 0..40_000u64 {
            let r = next();
            // Small exponents most of the time: subnormals and their neighbours.
            let x = if d == DType::Float32 && i % 4 != 3 {
                (r as u128) & 0x80ff_ffff
            } else {
                r as u128 & mask
            };
            let y = match i % 3 {
                0 => {
                    (next() as u128)
                        & if d == DType::Float32 {
                            0x81ff_ffff
                        } else {
                            mask
                        }
                }
                1 => x ^ (1u128 << (d.bits() - 1)) ^ (next() as u128 & 0xf),
                _ => next() as u128 & mask,
            };
            xs.push(x & mask);
            ys.push(y & mask);
        }
        let n = xs.len();
        let x = AnyArray::of_bits(d, &[n], &xs).unwrap();
        let y = AnyArray::of_bits(d, &[n], &ys).unwrap();
        let want = nxrig::kernels::add(&x, &y).unwrap().to_bits_vec().unwrap();
        let sum =
            nxrig::kernels::add(&x.to_device(&gpu).unwrap(), &y.to_device(&gpu).unwrap()).unwrap();
        let got = bits_back(&sum).await;
        if let Some(m) = common::add_passes::wrong(d.name(), &xs, &ys, &got, &want) {
            panic!("{m}");
        }
        console_log!(
            "{d}: {n} sums equal the host's (native float32 probed exact: {})",
            gpu.wgpu().unwrap().native().f32_exact
        );
    }
}

/// float32 add, sub and mul on SwiftShader, which flushes subnormals (so nxrig
/// computes natively first and runs the exact kernel only over pieces that need it):
/// normal operands only, zeros, and one element needing the exact result among
/// 100,003 that do not, at the start, inside and at the end; each equals the host's.
#[wasm_bindgen_test]
async fn float32_add_in_two_passes_on_webgpu() {
    let gpu = gpu().await;
    for (name, xs, ys) in common::add_passes::cases() {
        let n = xs.len();
        let x = AnyArray::of_bits(DType::Float32, &[n], &xs).unwrap();
        let y = AnyArray::of_bits(DType::Float32, &[n], &ys).unwrap();
        let (gx, gy) = (x.to_device(&gpu).unwrap(), y.to_device(&gpu).unwrap());
        for (op, f) in common::add_passes::float32_ops() {
            let want = f(&x, &y).unwrap().to_bits_vec().unwrap();
            let got = bits_back(&f(&gx, &gy).unwrap()).await;
            if let Some(m) =
                common::add_passes::wrong(&format!("{op} {name}"), &xs, &ys, &got, &want)
            {
                panic!("{m}");
            }
        }
    }
    console_log!(
        "float32 add in two passes: every case equals the host (native float32 probed exact: {})",
        gpu.wgpu().unwrap().native().f32_exact
    );
}

/// The 8- and 16-bit floats' add, sub, mul and div on SwiftShader: native float32
/// first (every finite float8 pair; bfloat16 near float32's subnormals, which
/// SwiftShader flushes, flagged), the exact kernel over pieces that need it; each
/// case equals the host's operation. `sub` of bfloat16 alone: each operation and
/// dtype is two kernels SwiftShader compiles (`sub`'s took about 10 s a dtype, the
/// cases after the first 0.1 s), and `sub` is `add`'s arithmetic with `y`'s sign
/// flipped (`shaders/ops_float.wgsl`'s `sub_float`), which `tests/add_passes.rs`
/// holds to the host for every dtype.
#[wasm_bindgen_test]
async fn narrow_floats_compute_in_two_passes_on_webgpu() {
    let gpu = gpu().await;
    for (name, d, xs, ys) in common::add_passes::narrow_cases() {
        let n = xs.len();
        let x = AnyArray::of_bits(d, &[n], &xs).unwrap();
        let y = AnyArray::of_bits(d, &[n], &ys).unwrap();
        let (gx, gy) = (x.to_device(&gpu).unwrap(), y.to_device(&gpu).unwrap());
        for (op, f) in common::add_passes::narrow_ops() {
            if op == "sub" && d != DType::Bfloat16 {
                continue;
            }
            let want = f(&x, &y).unwrap().to_bits_vec().unwrap();
            let got = bits_back(&f(&gx, &gy).unwrap()).await;
            if let Some(m) =
                common::add_passes::wrong(&format!("{op} {name}"), &xs, &ys, &got, &want)
            {
                panic!("{m}");
            }
        }
    }
}

/// One placement, every form, in the browser: every view of the zoo
/// (flipped, permuted, stepped, broadcast over strided axes, empty at offsets,
/// sub-byte at odd offsets) from the host and WebGPU to each, by `to_device_async`
/// and, where nothing blocks, `to_device`, `transfer` and `copy`.
#[wasm_bindgen_test]
async fn every_placement_of_every_view_on_webgpu() {
    let gpu = gpu().await;
    let bad = zoo::every_form(&[Rig::host(), gpu]).await;
    assert!(
        bad.is_empty(),
        "{} placements wrong:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// What an operation gave, brought back: its values, or `Lost`.
async fn settled(bad: &mut Vec<String>, what: &str, r: Result<AnyArray, Error>, want: &[u128]) {
    let back = match r {
        Ok(a) => a.to_device_async(&Rig::host()).await,
        Err(e) => Err(e),
    };
    match back.and_then(|h| h.to_bits_vec()) {
        Ok(v) if v == want => {}
        Err(Error::Lost { .. }) => {}
        Ok(_) => bad.push(format!("{what}: wrong values")),
        Err(e) => bad.push(format!("{what}: {e}")),
    }
}

/// Device loss at every point of a script of operations, in the browser's one
/// thread: reads pending, kernels queued, placements started before,
/// between and after `destroy` each settle with their values or `Error::Lost`,
/// never a panic (which aborts the wasm test) nor wgpu's validation text.
#[wasm_bindgen_test]
async fn loss_at_every_point_settles_each_operation_with_values_or_lost() {
    let (rows, cols) = (64usize, 33usize);
    let n = rows * cols;
    let bits: Vec<u128> = (0..n as u128).collect();
    let host = AnyArray::of_bits(DType::Int32, &[rows, cols], &bits).unwrap();
    let twice: Vec<u128> = bits.iter().map(|b| 2 * b).collect();
    let transposed: Vec<u128> = (0..n).map(|k| bits[(k % rows) * cols + k / rows]).collect();
    let floats: Vec<u128> = bits.iter().map(|&b| (b as f32).to_bits() as u128).collect();
    let bytes: Vec<u8> = bits
        .iter()
        .flat_map(|&b| (b as u32).to_le_bytes())
        .collect();
    let mut bad = Vec::new();
    for at in 0..9 {
        let gpu = gpu().await;
        let mut k = 0;
        let mut tick = || {
            if k == at {
                gpu.destroy();
            }
            k += 1;
        };
        tick();
        let a = host.to_device(&gpu);
        match &a {
            Ok(_) | Err(Error::Lost { .. }) => {}
            Err(e) => bad.push(format!("upload, destroyed at {at}: {e}")),
        }
        tick();
        let on = |f: &dyn Fn(&AnyArray) -> Result<AnyArray, Error>| match &a {
            Ok(a) => f(a),
            Err(_) => Err(Error::Lost {
                op: "the upload",
                device: String::new(),
            }),
        };

        let sum = on(&|a| nxrig::kernels::add(a, a));
        tick();
        let cast = on(&|a| a.cast(DType::Float32));
        tick();
        let t = on(&|a| a.move_(&Move::Permute(vec![1, 0]))?.unwrap().copy());
        tick();
        let pending = a.as_ref().ok().map(|a| a.buffer().read_async());
        tick();
        let view = on(&|a| Ok(a.move_(&Move::Flip(vec![0, 1]))?.unwrap()));
        let flipped_back = view.and_then(|v| Ok(v.move_(&Move::Flip(vec![0, 1]))?.unwrap()));
        tick();
        let written = on(&|a| {
            let c = a.copy()?;
            c.buffer().write_bytes(0, &[0, 0, 0, 0])?;
            Ok(c)
        });
        tick();
        settled(&mut bad, &format!("add, destroyed at {at}"), sum, &twice).await;
        tick();
        settled(&mut bad, &format!("cast, destroyed at {at}"), cast, &floats).await;
        settled(
            &mut bad,
            &format!("copy, destroyed at {at}"),
            t,
            &transposed,
        )
        .await;
        settled(
            &mut bad,
            &format!("flip, destroyed at {at}"),
            flipped_back,
            &bits,
        )
        .await;
        settled(
            &mut bad,
            &format!("write, destroyed at {at}"),
            written,
            &bits,
        )
        .await;
        if let Some(p) = pending {
            match p.await {
                Ok(v) if v == bytes => {}
                Err(Error::Lost { .. }) => {}
                r => bad.push(format!("read_async, destroyed at {at}: {r:?}")),
            }
        }
        gpu.destroy();
        assert!(matches!(host.to_device(&gpu), Err(Error::Lost { .. })));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A GPU allocation the browser cannot make in the buffers it first tries (SwiftShader
/// admits a `maxBufferSize` of 1 GiB but cannot allocate one such buffer, and then
/// loses the device when the failure is not awaited) is made of smaller buffers by
/// `Buffer::create_async`: 1 GiB and 12 bytes, its first and last bytes written and
/// read back, every buffer within the device's limit, the device usable after.
#[wasm_bindgen_test]
async fn a_gpu_allocation_the_browser_refuses_is_made_again_of_smaller_buffers() {
    let gpu = gpu().await;
    let most = gpu.wgpu().unwrap().limits().max_buffer_size;
    let len = (1usize << 30) + 12;
    let b = Buffer::create_async(&gpu, len, Kind::Device)
        .await
        .expect("1 GiB and 12 bytes of GPU memory, in buffers the device can make");
    let sizes: Vec<u64> = {
        let (m, _) = b.wgpu_memory().unwrap();
        m.buffers().iter().map(|b| b.size()).collect()
    };
    console_log!("maxBufferSize {most}: buffers of {sizes:?}");
    assert!(sizes.iter().all(|&s| s <= most), "{sizes:?} over {most}");
    assert!(sizes.iter().sum::<u64>() >= len as u64);
    let head: Vec<u8> = (1..=16).collect();
    let tail: Vec<u8> = (101..=116).collect();
    b.write_bytes(0, &head).unwrap();
    b.write_bytes(len - 16, &tail).unwrap();
    assert_eq!(b.view(0, 16).unwrap().read_async().await.unwrap(), head);
    assert_eq!(
        b.view(len - 16, 16).unwrap().read_async().await.unwrap(),
        tail
    );
    drop(b);
    let a = AnyArray::of_bits(DType::Float32, &[3], &[0x3f80_0000, 0x4000_0000, 0])
        .unwrap()
        .to_device_async(&gpu)
        .await
        .unwrap();
    let c = a.cast(DType::Bfloat16).unwrap();
    assert_eq!(bits_back(&c).await, vec![0x3f80, 0x4000, 0]);
}

#[wasm_bindgen_test]
async fn a_kernel_of_your_own_runs_on_webgpu_as_on_the_host_and_says_its_wgsl_errors() {
    use nxrig::kernels::Elementwise;
    let gpu = gpu().await;
    let k = Elementwise::<f32>::new("xy1")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl("z = x * y + 1.0;")
        .host(|i, o| {
            for (j, z) in o[0].iter_mut().enumerate() {
                *z = i[0][j] * i[1][j] + 1.0;
            }
        });
    // bfloat16 and int4-free float8: normal values, strided and broadcast.
    for d in [DType::Bfloat16, DType::Float8E4m3fn, DType::Float16] {
        let n = 3 * 40;
        let bits: Vec<u128> = (0..n as u128)
            .map(|k| match d {
                DType::Float8E4m3fn => 0x30 + (k * 7) % 0x30,
                _ => 0x3e00 + (k * 37) % 0x0300,
            })
            .collect();
        let x = AnyArray::of_bits(d, &[3, 40], &bits).unwrap();
        let x = x
            .slice(&[nxrig::Slice::FULL, nxrig::Slice::new(None, None, 2)])
            .unwrap();
        let y = AnyArray::of_bits(d, &[20], &bits[..20]).unwrap();
        let want = k.call(&[&x, &y]).unwrap().remove(0).to_bits_vec().unwrap();
        let (xg, yg) = (
            x.to_device_async(&gpu).await.unwrap(),
            y.to_device_async(&gpu).await.unwrap(),
        );
        let z = k.call_async(&[&xg, &yg]).await.unwrap().remove(0);
        assert_eq!(bits_back(&z).await, want, "{d}: WebGPU against the host");
    }
    let x = AnyArray::create(&gpu, DType::Float32, &[4]).unwrap();
    let bad = Elementwise::<f32>::new("typo")
        .input("x", "T")
        .output("z", "T")
        .wgsl("let t = x;\nz = t * ;");
    let e = bad.call_async(&[&x]).await.unwrap_err().to_string();
    assert!(e.contains("line 2 of the WGSL body"), "{e}");
    // The device is still good.
    let ok = Elementwise::<f32>::new("ok")
        .input("x", "T")
        .output("z", "T")
        .wgsl("z = x + 2.0;");
    let z = ok.call_async(&[&x]).await.unwrap().remove(0);
    assert_eq!(bits_back(&z).await, vec![0x4000_0000; 4]);
}

/// A raw kernel on WebGPU: a reversal of a strided bfloat16 view times 2 and an int4
/// output at an odd nibble (exact, so the oracle is the bits moved), and a module's
/// WGSL error at its line, through Tint.
#[wasm_bindgen_test]
async fn a_raw_kernel_runs_on_webgpu_and_says_its_wgsl_errors() {
    use nxrig::kernels::RawKernel;
    let gpu = gpu().await;
    let k = RawKernel::<f32>::new("reverse2")
        .input("x", "T")
        .input("k", DType::Int4)
        .output("z", "T")
        .output("n", DType::Int4)
        .wgsl(
            "@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < numel_z()) {
        store_z(i, load_x(numel_x() - 1u - i) * 2.0);
        store_n(i, -load_k(i % numel_k()));
    }
}",
        );
    let n = 300;
    let bits: Vec<u128> = (0..2 * n as u128)
        .map(|k| 0x3e00 + (k * 37) % 0x0300)
        .collect();
    let x = AnyArray::of_bits(DType::Bfloat16, &[2 * n], &bits).unwrap();
    let x = x.slice(&[nxrig::Slice::new(None, None, 2)]).unwrap();
    let xg = x.to_device_async(&gpu).await.unwrap();
    let kb: Vec<u128> = (1..=5).collect();
    let kg = AnyArray::of_bits(DType::Int4, &[5], &kb)
        .unwrap()
        .to_device_async(&gpu)
        .await
        .unwrap();
    let z = AnyArray::create(&gpu, DType::Bfloat16, &[n]).unwrap();
    let whole = AnyArray::of_bits(DType::Int4, &[n + 2], &vec![0x7; n + 2])
        .unwrap()
        .to_device_async(&gpu)
        .await
        .unwrap();
    let nv = whole
        .slice(&[nxrig::Slice::new(Some(1), Some(n as isize + 1), 1)])
        .unwrap();
    k.call_async(&[&xg, &kg], &[&z, &nv], [(n as u32).div_ceil(64), 1, 1])
        .await
        .unwrap();
    let want: Vec<u128> = (0..n)
        .map(|i| {
            let b = bits[2 * (n - 1 - i)] as u32;
            ((f32::from_bits(b << 16) * 2.0).to_bits() >> 16) as u128
        })
        .collect();
    assert_eq!(bits_back(&z).await, want, "the reversal times 2");
    let got = bits_back(&whole).await;
    assert_eq!(
        (got[0], got[n + 1]),
        (7, 7),
        "the neighbours keep their bits"
    );
    for i in 0..n {
        assert_eq!(got[i + 1], (16 - kb[i % 5]) & 0xf, "int4 element {i}");
    }
    let bad = RawKernel::<f32>::new("typo").input("x", "T").output("z", "T").wgsl(
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    store_z(id.x, load_x(id.x) * );\n}\n",
    );
    let e = bad
        .call_async(&[&xg], &[&z], [1, 1, 1])
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3 of the WGSL module"), "{e}");
}

/// nxrig's operations on WebGPU give the host's bits (which `tests/ops.rs` holds to
/// its oracle): `mul`, `div`, `maximum` and `lt` of every dtype that takes them, and
/// every operation of four dtypes (a float, an integer, a complex, bool), on 256 pseudo-random
/// pairs (the first the corners: zero, all ones) broadcast over a flipped column,
/// through Tint's compiler. (Every operation of every dtype took 97 s on SwiftShader,
/// most of it compiling; natively `tests/ops.rs` runs them all.)
#[wasm_bindgen_test]
async fn operations_on_webgpu_equal_the_hosts() {
    use nxrig::kernels::{self as k, Operation};
    let f = |op: Operation, x: &AnyArray, y: &AnyArray| k::operation(op, &[x, y][..op.arity()]);
    let gpu = gpu().await;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s as u128 | (s.rotate_left(29) as u128) << 64
    };
    let mut ran = 0;
    for d in DType::ALL {
        // A float6's patterns in its six bits (the byte's top two zero, as nxrig holds
        // it: another byte is no float6).
        let mask = if d.bits() == 128 {
            u128::MAX
        } else {
            (1u128 << d.packed_bits()) - 1
        };
        let mut xs: Vec<u128> = (0..16).map(|_| next() & mask).collect();
        xs[..4].copy_from_slice(&[0, mask, mask >> 1, 1]);
        let ys: Vec<u128> = (0..16).map(|_| next() & mask).collect();
        let x = AnyArray::of_bits(d, &[16, 1], &xs)
            .unwrap()
            .move_(&Move::Flip(vec![0]))
            .unwrap()
            .unwrap();
        let y = AnyArray::of_bits(d, &[16], &ys).unwrap();
        let (gx, gy) = (x.to_device(&gpu).unwrap(), y.to_device(&gpu).unwrap());
        let all = matches!(
            d,
            DType::Bfloat16 | DType::Int64 | DType::Complex128 | DType::Bool
        );
        for &op in Operation::ALL {
            let name = op.name();
            if !all && !matches!(name, "mul" | "div" | "maximum" | "lt") {
                continue;
            }
            let Ok(want) = f(op, &x, &y) else {
                // Not taken by d (the host refuses as the GPU does).
                let e =
                    f(op, &gx, &gy).expect_err(&format!("{name} {d}: refused on the host only"));
                assert_eq!(e.op(), Some(name), "{e}");
                continue;
            };
            let got = bits_back(&f(op, &gx, &gy).unwrap()).await;
            assert_eq!(got, want.to_bits_vec().unwrap(), "{name} {d}");
            ran += 1;
        }
    }
    let c = AnyArray::of_bits(DType::Bool, &[3], &[1, 0, 1]).unwrap();
    let v = AnyArray::of_bits(DType::Bfloat16, &[3], &[0x3f80, 0x7fc1, 0x8000]).unwrap();
    let w = AnyArray::of_bits(DType::Bfloat16, &[1], &[0x4000]).unwrap();
    let on = |a: &AnyArray| a.to_device(&gpu).unwrap();
    let got = bits_back(&k::select(&on(&c), &on(&v), &on(&w)).unwrap()).await;
    assert_eq!(got, [0x3f80, 0x4000, 0x8000]);
    console_log!("{ran} operations and dtypes on WebGPU equal the host's");
}

/// Every GGUF block type's kernel compiled by the browser's WebGPU (Tint) and run on it,
/// equal to the host's dequantization in wasm bit for bit.
#[wasm_bindgen_test]
async fn every_ggml_type_dequantizes_on_webgpu_as_on_the_host() {
    let gpu = gpu().await;
    assert_eq!(ggml_blocks::every_type_on(&gpu).await, 24);
}
