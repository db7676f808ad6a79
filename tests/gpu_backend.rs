//! The GPU backend through the runtime, natively (lavapipe here): GPU devices, memory
//! padded to words without the padding showing, placement between host and GPU and
//! between two GPU devices bit for bit (NaN payloads included), the strided blit over
//! any layout and every dtype against the host's transfer, cast and fill against the
//! host, and device loss with a read pending. A machine without an adapter fails.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::kernels::{add, fill};
use nxrig::rig::wgpu::Options;
use nxrig::rig::{Buffer, Kind, RigKind};
use nxrig::{AnyArray, DType, Error, Move, Rig, Slice};

fn gpu() -> Rig {
    Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)")
}

fn host() -> Rig {
    Rig::host()
}

/// `n` elements of `d` with varied bits (NaN payloads, odd nibbles), from a
/// xorshift generator.
fn varied(d: DType, shape: &[usize], seed: u64) -> AnyArray {
    let n: usize = shape.iter().product();
    let mut s = seed | 1;
    let bits: Vec<u128> = (0..n)
        .map(|_| {
            let mut w = 0u128;
            for _ in 0..2 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                w = (w << 64) | s as u128;
            }
            // A float6's in its six bits (the byte's top two zero, as nxrig holds it).
            w & (u128::MAX >> (128 - d.packed_bits()))
        })
        .collect();
    AnyArray::of_bits(d, shape, &bits).unwrap()
}

fn bytes_of(b: &Buffer) -> Vec<u8> {
    b.read(|x| x.to_vec()).unwrap()
}

#[test]
fn gpu_devices_are_listed_named_by_adapter_and_backend() {
    let all = Rig::all();
    assert_eq!(all[0], host());
    let g: Vec<&Rig> = all.iter().filter(|r| r.kind() == RigKind::Wgpu).collect();
    assert!(!g.is_empty(), "no GPU device in {all:?}");
    assert!(g[0].name().ends_with(')'), "{}", g[0].name());
    assert_eq!(Rig::by_name(g[0].name()).unwrap(), gpu());
    assert!(!gpu().host_addressable());
    let info = gpu().wgpu().unwrap().info().clone();
    assert!(
        gpu().name().contains(&info.backend),
        "{} / {info:?}",
        gpu().name()
    );
}

/// A 5x5 uint8 array (25 bytes) and 5 int4 (3 bytes) uploaded and read back give
/// exactly those bytes: the padding to 4-byte words never shows.
#[test]
fn padding_to_words_never_shows() {
    // 25 bytes of uint8 and 5 int4 (3 bytes), uploaded and read back.
    let u8s: Vec<u128> = (0..25).map(|i| 200 + i as u128).collect();
    let a = AnyArray::of_bits(DType::Uint8, &[5, 5], &u8s).unwrap();
    let g = a.to_device(&gpu()).unwrap();
    assert_eq!(g.buffer().len(), 25);
    let back = pollster::block_on(g.buffer().read_async()).unwrap();
    assert_eq!(back.len(), 25);
    assert_eq!(back, bytes_of(a.buffer()));
    assert_eq!(g.to_bits_vec().unwrap(), u8s);
    let i4: Vec<u128> = vec![0x8, 0x9, 0x7, 0xF, 0x1];
    let b = AnyArray::of_bits(DType::Int4, &[5], &i4).unwrap();
    let gb = b.to_device(&gpu()).unwrap();
    assert_eq!(gb.buffer().len(), 3);
    assert_eq!(bytes_of(gb.buffer()), [0x98, 0xF7, 0x01]);
    // An unaligned write changes no neighbouring byte, the word's padding included.
    let m = Buffer::create(&gpu(), 7, Kind::Device).unwrap();
    m.write_bytes(0, &[9; 7]).unwrap();
    m.write_bytes(1, &[1, 2, 3]).unwrap();
    m.write_bytes(6, &[6]).unwrap();
    assert_eq!(bytes_of(&m), [9, 1, 2, 3, 9, 9, 6]);
    assert_eq!(bytes_of(&m.view(3, 3).unwrap()), [3, 9, 9]);
    assert!(matches!(
        m.write_bytes(5, &[0; 3]),
        Err(Error::Invalid { .. })
    ));
}

/// NaN payloads (float64 bits 0x7FF0000000000001, float32 0x7F802000) survive every
/// placement between the host and GPUs, never quietened.
#[test]
fn nan_payloads_survive_every_placement() {
    let d64 = AnyArray::of_bits(
        DType::Float64,
        &[3],
        &[0x7FF0000000000001, 0xFFF0000000000002, 1],
    )
    .unwrap();
    let d32 =
        AnyArray::of_bits(DType::Float32, &[3], &[0x7F802000, 0xFF800001, 0x7FC00000]).unwrap();
    let other = Rig::gpu_with(&Options::default()).unwrap();
    for a in [d64, d32] {
        let want = a.to_bits_vec().unwrap();
        let on = a.to_device(&gpu()).unwrap();
        assert_eq!(on.to_bits_vec().unwrap(), want, "host -> GPU");
        let copied = on.copy().unwrap();
        assert_eq!(copied.to_bits_vec().unwrap(), want, "copy on the GPU");
        let flipped = on.move_(&Move::Flip(vec![0])).unwrap().unwrap();
        let out = AnyArray::create(&gpu(), a.dtype(), &[3]).unwrap();
        AnyArray::transfer(&flipped, &out).unwrap();
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(out.to_bits_vec().unwrap(), rev, "transfer on the GPU");
        let there = on.to_device(&other).unwrap();
        assert_eq!(there.rig(), &other);
        assert_eq!(there.to_bits_vec().unwrap(), want, "GPU -> GPU");
        let back = there.to_device(&host()).unwrap();
        assert_eq!(back.to_bits_vec().unwrap(), want, "GPU -> host");
        let back = pollster::block_on(out.to_device_async(&host())).unwrap();
        assert_eq!(back.to_bits_vec().unwrap(), rev, "GPU -> host, async");
    }
}

/// A float32 arange of shape [27, 31, 31] permuted [1, 2, 0] and made contiguous on
/// the GPU: element [30, 30, 26] is 25946, and every element is the source's.
#[test]
fn an_odd_sized_permutation_made_contiguous_on_the_gpu() {
    let n = 27 * 31 * 31;
    let bits: Vec<u128> = (0..n).map(|i| (i as f32).to_bits() as u128).collect();
    let a = AnyArray::of_bits(DType::Float32, &[27, 31, 31], &bits).unwrap();
    let p = a
        .to_device(&gpu())
        .unwrap()
        .move_(&Move::Permute(vec![1, 2, 0]))
        .unwrap()
        .unwrap();
    let c = p.copy().unwrap();
    assert_eq!(c.rig(), &gpu());
    assert_eq!(c.shape(), [31, 31, 27]);
    let got = c.to_bits_vec().unwrap();
    let want = a
        .move_(&Move::Permute(vec![1, 2, 0]))
        .unwrap()
        .unwrap()
        .to_bits_vec()
        .unwrap();
    let at = (30 * 31 + 30) * 27 + 26;
    assert_eq!(f32::from_bits(got[at] as u32), 25946.0);
    assert_eq!(got, want);
}

/// Views of a `[6, 7]` array that reach elements by flips, negative and zero strides,
/// odd offsets and steps.
fn views(a: &AnyArray) -> Vec<AnyArray> {
    let mv = |m: Move| a.move_(&m).unwrap().unwrap();
    vec![
        a.clone(),
        mv(Move::Permute(vec![1, 0])),
        mv(Move::Flip(vec![0, 1])),
        mv(Move::Slice(vec![
            Slice::new(Some(1), Some(6), 2),
            Slice::new(Some(5), None, -2),
        ])),
        a.move_(&Move::Slice(vec![Slice::new(Some(3), Some(4), 1)]))
            .unwrap()
            .unwrap()
            .move_(&Move::Expand(vec![4, 7]))
            .unwrap()
            .unwrap(),
    ]
}

#[test]
fn the_strided_blit_equals_the_host_transfer_for_every_dtype_and_layout() {
    for d in DType::ALL {
        let src = varied(d, &[6, 7], d.code() as u64 + 1);
        let on = src.to_device(&gpu()).unwrap();
        for (k, (hv, gv)) in views(&src).iter().zip(views(&on)).enumerate() {
            // Into a destination with neighbours: every other element of a larger
            // array, reversed, at an odd offset; the neighbours' bits must stay.
            let shape = hv.shape().to_vec();
            let big = [shape[0], shape[1] * 2 + 1];
            let hd = varied(d, &big, 99);
            let gd = hd.to_device(&gpu()).unwrap();
            let pick = Move::Slice(vec![
                Slice::new(None, None, 1),
                Slice::new(Some(-1), Some(0), -2),
            ]);
            let (ht, gt) = (
                hd.move_(&pick).unwrap().unwrap(),
                gd.move_(&pick).unwrap().unwrap(),
            );
            AnyArray::transfer(hv, &ht).unwrap();
            AnyArray::transfer(&gv, &gt).unwrap();
            assert_eq!(
                bytes_of(gd.buffer()),
                bytes_of(hd.buffer()),
                "{d}, view {k}: the destination's buffer differs"
            );
            // A copy of the view, and its placement back on the host.
            let gc = gv.copy().unwrap();
            assert_eq!(
                gc.to_bits_vec().unwrap(),
                hv.to_bits_vec().unwrap(),
                "{d} view {k} copy"
            );
            let hc = gv.to_device(&host()).unwrap();
            assert_eq!(
                hc.to_bits_vec().unwrap(),
                hv.to_bits_vec().unwrap(),
                "{d} view {k} to host"
            );
        }
    }
}

#[test]
fn sub_byte_elements_at_odd_offsets_keep_their_neighbours() {
    for d in [DType::Int4, DType::Uint4] {
        let src = varied(d, &[9], 5);
        let dst = varied(d, &[11], 6);
        let gs = src.to_device(&gpu()).unwrap();
        let gd = dst.to_device(&gpu()).unwrap();
        let tail = |a: &AnyArray, lo: isize, hi: isize| {
            a.move_(&Move::Slice(vec![Slice::new(Some(lo), Some(hi), 1)]))
                .unwrap()
                .unwrap()
        };
        AnyArray::transfer(&tail(&src, 1, 6), &tail(&dst, 3, 8)).unwrap();
        AnyArray::transfer(&tail(&gs, 1, 6), &tail(&gd, 3, 8)).unwrap();
        assert_eq!(bytes_of(gd.buffer()), bytes_of(dst.buffer()), "{d}");
    }
}

/// Every pair's strided cast, over a flipped view or a stepped slice (each pair one of
/// them, alternating, so each dtype goes through both as a source and as a target:
/// the walk depends on the widths, the conversion on the pair, which
/// `cast_on_devices` holds to the vectors), equals the host's.
#[test]
fn cast_on_the_gpu_equals_the_host_for_every_pair_over_views() {
    for s in DType::ALL {
        let src = varied(s, &[6, 7], 7 + s.code() as u64);
        let on = src.to_device(&gpu()).unwrap();
        let (hvs, gvs) = (views(&src), views(&on));
        for d in DType::ALL {
            let k = 2 + (s.code() + d.code()) as usize % 2;
            let h = hvs[k].cast(d).unwrap();
            let g = gvs[k].cast(d).unwrap();
            assert_eq!(g.rig(), &gpu());
            assert_eq!(bytes_of(g.buffer()), bytes_of(h.buffer()), "{s} -> {d}");
        }
    }
}

#[test]
fn fill_and_add_on_the_gpu_equal_the_host() {
    for d in DType::ALL {
        let h = varied(d, &[6, 7], 3);
        let g = h.to_device(&gpu()).unwrap();
        let pick = Move::Slice(vec![
            Slice::new(Some(5), None, -2),
            Slice::new(Some(1), None, 3),
        ]);
        fill(&h.move_(&pick).unwrap().unwrap(), -2.5).unwrap();
        fill(&g.move_(&pick).unwrap().unwrap(), -2.5).unwrap();
        assert_eq!(bytes_of(g.buffer()), bytes_of(h.buffer()), "fill {d}");
        let y = varied(d, &[7], 4);
        let hs = add(&h, &y).unwrap();
        let gs = add(&g, &y.to_device(&gpu()).unwrap()).unwrap();
        assert_eq!(gs.rig(), &gpu());
        assert_eq!(
            gs.to_bits_vec().unwrap(),
            hs.to_bits_vec().unwrap(),
            "add {d}"
        );
    }
}

#[test]
fn blits_between_host_and_gpu_and_within_one_gpu_memory() {
    let data: Vec<u8> = (0..40).collect();
    let h = Buffer::of_vec(data.clone());
    let g = Buffer::create(&gpu(), 40, Kind::Device).unwrap();
    Buffer::blit(&h, 3, &g, 5, 30).unwrap();
    let mut want = vec![0u8; 40];
    want[5..35].copy_from_slice(&data[3..33]);
    assert_eq!(bytes_of(&g), want);
    // Overlapping ranges of one GPU memory move as memmove does.
    Buffer::blit(&g, 5, &g, 7, 30).unwrap();
    want.copy_within(5..35, 7);
    assert_eq!(bytes_of(&g), want);
    let back = Buffer::create(&host(), 40, Kind::Device).unwrap();
    Buffer::copy(&g, &back).unwrap();
    assert_eq!(bytes_of(&back), want);
    // Back into a view of host memory at an offset, from an offset: read straight
    // into those bytes, the others untouched.
    let mem = Buffer::of_vec(vec![0xEEu8; 48]);
    let part = mem.view(4, 40).unwrap();
    Buffer::blit(&g, 9, &part, 6, 20).unwrap();
    let mut host_want = vec![0xEEu8; 48];
    host_want[10..30].copy_from_slice(&want[9..29]);
    assert_eq!(bytes_of(&mem), host_want);
    Buffer::fill(&g.view(1, 6).unwrap(), 0xAB).unwrap();
    want[1..7].fill(0xAB);
    assert_eq!(bytes_of(&g), want);
    assert_eq!(g.borrow(&host()).unwrap().map(|b| b.len()), None);
    assert!(g.borrow(&gpu()).unwrap().is_some());
    assert_eq!(h.borrow(&gpu()).unwrap().map(|b| b.len()), None);
}

/// A read of device memory started, then the device lost: the read settles with
/// `Error::Lost`, and later operations on the device fail at once.
#[test]
fn a_read_pending_when_the_device_is_lost_settles_lost() {
    let dev = Rig::gpu_with(&Options::default()).unwrap();
    let a = varied(DType::Float32, &[1 << 16], 1)
        .to_device(&dev)
        .unwrap();
    let pending = a.buffer().read_async();
    dev.destroy();
    let r = pollster::block_on(pending);
    assert!(matches!(r, Err(Error::Lost { .. })), "{r:?}");
    // Later operations on that device fail at once.
    assert!(matches!(a.to_bits_vec(), Err(Error::Lost { .. })));
    assert!(matches!(a.copy(), Err(Error::Lost { .. })));
    assert!(matches!(
        Buffer::create(&dev, 4, Kind::Device),
        Err(Error::Lost { .. })
    ));
    assert!(matches!(
        pollster::block_on(a.buffer().read_async()),
        Err(Error::Lost { .. })
    ));
    assert!(matches!(
        pollster::block_on(a.buffer().wait_async(false)),
        Ok(()) | Err(Error::Lost { .. })
    ));
    // The other devices carry on.
    assert_eq!(
        a.to_device(&host())
            .err()
            .map(|e| matches!(e, Error::Lost { .. })),
        Some(true)
    );
    assert_eq!(
        varied(DType::Int8, &[3], 2)
            .to_device(&gpu())
            .unwrap()
            .to_bits_vec()
            .unwrap()
            .len(),
        3
    );
}

/// Operand pairs for `d`: every pair of the 4-bit and 8-bit dtypes; otherwise the
/// pairs of a list of special values (zeros, subnormals, extremes, infinities, NaNs)
/// and 2^16 random pairs, half of them near-cancelling (`y` is `x` with the sign
/// flipped and the low bits changed).
fn add_pairs(d: DType) -> (Vec<u128>, Vec<u128>) {
    use nxrig::dtype::bits_of_f64;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    if d.bits() <= 8 {
        for a in 0..1u128 << d.bits() {
            for b in 0..1u128 << d.bits() {
                xs.push(a);
                ys.push(b);
            }
        }
        return (xs, ys);
    }
    let special: Vec<u128> = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1.5,
        6.1e-5,
        6e-8,
        -6e-8,
        65504.0,
        1e30,
        -1e30,
        3.4e38,
        1.2e-38,
        1e-40,
        -1e-45,
        5e-324,
        2.2e-308,
        1.7e308,
        -1.7e308,
        0.1,
        -0.1000001,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ]
    .iter()
    .map(|&v| bits_of_f64(d, v))
    .collect();
    for &a in &special {
        for &b in &special {
            xs.push(a);
            ys.push(b);
        }
    }
    let r = varied(d, &[1 << 16], 11).to_bits_vec().unwrap();
    let s = varied(d, &[1 << 16], 12).to_bits_vec().unwrap();
    let sign = if d.class() == nxrig::dtype::Class::Complex {
        0
    } else {
        1u128 << (d.bits() - 1)
    };
    for (i, (&a, &b)) in r.iter().zip(&s).enumerate() {
        xs.push(a);
        ys.push(if i % 2 == 0 {
            b
        } else {
            (a ^ sign ^ (b & 0xff)) & ((1u128 << d.bits()) - 1)
        });
    }
    (xs, ys)
}

#[test]
fn add_on_the_gpu_equals_the_host_native_and_emulated() {
    let emulated = Rig::gpu_with(&Options {
        emulate: true,
        ..Options::default()
    })
    .unwrap();
    let native = Rig::gpu_with(&Options::default()).unwrap();
    assert!(
        native.wgpu().unwrap().native().f32,
        "a device uses native f32 by default"
    );
    eprintln!(
        "native float32 sums probed exact: {}",
        native.wgpu().unwrap().native().f32_exact
    );
    let guarded = Rig::gpu_with(&Options {
        skip_probe: true,
        ..Options::default()
    })
    .unwrap();
    assert!(!guarded.wgpu().unwrap().native().f32_exact);
    assert_eq!(
        emulated.wgpu().unwrap().native(),
        nxrig::rig::wgpu::Native::NONE
    );
    let mut bad = Vec::new();
    let mut runs = 0;
    for d in DType::ALL {
        let (xs, ys) = add_pairs(d);
        let n = xs.len();
        let x = AnyArray::of_bits(d, &[n], &xs).unwrap();
        let y = AnyArray::of_bits(d, &[n], &ys).unwrap();
        let want = add(&x, &y).unwrap().to_bits_vec().unwrap();
        // A dtype's kernel is written from what it uses of the device's native types
        // alone (`Native::for_dtype`): devices that agree there run the same WGSL, so
        // each distinct kernel runs once (three times for float32, once for int8).
        let mut seen = Vec::new();
        for dev in [native.clone(), guarded.clone(), emulated.clone()] {
            let uses = dev.wgpu().unwrap().native().for_dtype(d);
            if seen.contains(&uses) {
                continue;
            }
            seen.push(uses);
            runs += 1;
            let got = add(&x.to_device(&dev).unwrap(), &y.to_device(&dev).unwrap())
                .unwrap()
                .to_bits_vec()
                .unwrap();
            let wrong: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
            if let Some(&i) = wrong.first() {
                bad.push(format!(
                    "{d} on {:?} ({:?}): {} of {n} wrong, first {:#x} + {:#x} = {:#x}, want {:#x}",
                    dev,
                    dev.wgpu().unwrap().native().for_dtype(d),
                    wrong.len(),
                    xs[i],
                    ys[i],
                    got[i],
                    want[i]
                ));
            }
        }
    }
    eprintln!("{runs} kernels over {} dtypes", DType::ALL.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn add_in_place_and_donated_on_the_gpu() {
    let x = varied(DType::Float32, &[5, 3], 1);
    let y = varied(DType::Float32, &[3], 2);
    let want = add(&x, &y).unwrap().to_bits_vec().unwrap();
    let gx = x.to_device(&gpu()).unwrap();
    let gy = y.to_device(&gpu()).unwrap();
    nxrig::kernels::add_into(&gx, &gx, &gy).unwrap();
    assert_eq!(gx.to_bits_vec().unwrap(), want);
    let gx = x.to_device(&gpu()).unwrap();
    let keep = gx.buffer().clone();
    let z = nxrig::kernels::add_donated(gx, &gy).unwrap();
    assert!(z.buffer().same_memory(&keep), "written in place");
    assert!(keep
        .dead()
        .is_some_and(|w| w.contains("donated to add_donated")));
    assert_eq!(z.to_bits_vec().unwrap(), want);
}

/// Contiguous 32-bit operands take the kernels' four-at-a-time form where their
/// offsets allow, the last elements walked: the same bits as the host, whatever the
/// offset and length.
#[test]
fn contiguous_32_bit_kernels_at_every_offset_and_length() {
    for d in [DType::Float32, DType::Int32, DType::Uint32] {
        let x = varied(d, &[1003], 21);
        let y = varied(d, &[1003], 22);
        let (gx, gy) = (x.to_device(&gpu()).unwrap(), y.to_device(&gpu()).unwrap());
        for (lo, hi) in [(0, 1003), (4, 1003), (2, 1001), (8, 12), (4, 7), (0, 1000)] {
            let s = Move::Slice(vec![Slice::new(Some(lo), Some(hi), 1)]);
            let part = |a: &AnyArray| a.move_(&s).unwrap().unwrap();
            let want = add(&part(&x), &part(&y)).unwrap().to_bits_vec().unwrap();
            let got = add(&part(&gx), &part(&gy)).unwrap().to_bits_vec().unwrap();
            assert_eq!(got, want, "add {d} [{lo}:{hi}]");
            for t in [DType::Float32, DType::Int32, DType::Uint32] {
                let want = part(&x).cast(t).unwrap().to_bits_vec().unwrap();
                let got = part(&gx).cast(t).unwrap().to_bits_vec().unwrap();
                assert_eq!(got, want, "cast {d} -> {t} [{lo}:{hi}]");
            }
        }
    }
}

#[test]
fn an_error_of_submitted_work_is_that_submits_and_no_later_calls() {
    let gpu = gpu();
    let g = gpu.wgpu().unwrap();
    let b = Buffer::create(&gpu, 16, Kind::Device).unwrap();
    // A module that does not parse, made inside the work.
    let r = gpu.submit(&[], &[&b], || {
        let _module = g
            .device()
            .create_shader_module(nxrig::wgpu::ShaderModuleDescriptor {
                label: Some("broken"),
                source: nxrig::wgpu::ShaderSource::Wgsl("fn main( {".into()),
            });
        Ok(())
    });
    match r {
        Err(Error::Device { op, reason, .. }) => {
            assert_eq!(op, "Rig::submit");
            assert!(reason.contains("broken"), "{reason}");
        }
        r => panic!("{r:?}"),
    }
    // The next calls, an allocation first, see nothing of it.
    let c = Buffer::create(&gpu, 16, Kind::Device).unwrap();
    assert_eq!(c.read(|x| x.to_vec()).unwrap(), [0; 16]);
    let x = AnyArray::create(&gpu, DType::Float32, &[4]).unwrap();
    add(&x, &x).unwrap();
}

#[test]
fn operands_on_two_devices_are_refused_in_one_wording_naming_the_function() {
    let h = AnyArray::create(&host(), DType::Float32, &[4]).unwrap();
    let g = AnyArray::create(&gpu(), DType::Float32, &[4]).unwrap();
    let b = AnyArray::create(&host(), DType::Bool, &[4]).unwrap();
    let xy1 = nxrig::kernels::Elementwise::<f32>::new("xy1")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl("z = x * y + 1.0;")
        .host(|i, o| {
            for ((z, x), y) in o[0].iter_mut().zip(i[0]).zip(i[1]) {
                *z = x * y + 1.0
            }
        });
    let refusals = [
        ("add", add(&h, &g).map(drop)),
        ("add", add(&g, &h).map(drop)),
        ("sub", nxrig::kernels::sub(&h, &g).map(drop)),
        ("mul_into", nxrig::kernels::mul_into(&g, &h, &h)),
        ("select", nxrig::kernels::select(&b, &g, &g).map(drop)),
        ("Elementwise::call", xy1.call(&[&h, &g]).map(drop)),
    ];
    for (op, r) in refusals {
        match r {
            Err(Error::Invalid { op: o, reason, .. }) => {
                assert_eq!(o, op);
                assert!(
                    reason.contains("the operands are on ")
                        && reason.contains(&gpu().name().to_string())
                        && reason.ends_with(": move one onto the other's device first (to_device)"),
                    "{op}: {reason}"
                );
            }
            other => panic!("{op}: expected the refusal, got {other:?}"),
        }
    }
}
