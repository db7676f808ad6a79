//! The library's checkpoint converter (`nxrig::convert`), natively and in wasm32:
//! a conversion read and written a piece at a time equals the whole arrays cast at
//! once; no read is larger than a piece; offsets past 4 GiB are read on every
//! platform (a 4.5 GiB checkpoint made of nothing, its bytes made on each read); a
//! failed read or a bad index leaves nothing committed and names the file and tensor.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use nxrig::convert::{self, BufferSource, Checkpoint, MemorySink, Pick, Plan, Source, PIECE_BYTES};
use nxrig::formats::{self, Format, Tensor, TensorFile};
use nxrig::rig::Buffer;
use nxrig::{AnyArray, Array, DType, Error, Rig};

#[cfg(not(target_arch = "wasm32"))]
#[path = "common/ggml_blocks.rs"]
mod ggml_blocks;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// `f`'s output: every source and sink here answers at once, so one poll finishes it.
fn ready<T>(f: impl Future<Output = T>) -> T {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("a host conversion waited"),
    }
}

/// The byte at `at` of a made-up file's data.
fn byte_at(at: u64) -> u8 {
    (at.wrapping_mul(2654435761) >> 13) as u8
}

/// A file of `size` bytes whose first bytes are `header` and the rest `byte_at`,
/// made on each read (nothing held); reads counted, the largest kept; a read past
/// `fail_from` fails.
struct Made {
    header: Vec<u8>,
    size: u64,
    largest: Cell<usize>,
    fail_from: u64,
}

impl Made {
    fn new(header: Vec<u8>, size: u64) -> Made {
        Made {
            header,
            size,
            largest: Cell::new(0),
            fail_from: u64::MAX,
        }
    }
}

impl Source for Made {
    fn name(&self) -> &str {
        "made.safetensors"
    }

    fn size(&self) -> u64 {
        self.size
    }

    async fn read(&self, start: u64, len: usize) -> Result<Buffer, Error> {
        if start + len as u64 > self.fail_from {
            return Err(Error::Format {
                path: "made.safetensors".into(),
                tensor: None,
                reason: "the disk went away".into(),
            });
        }
        self.largest.set(self.largest.get().max(len));
        let h = self.header.len() as u64;
        let bytes: Vec<u8> = (start..start + len as u64)
            .map(|p| {
                if p < h {
                    self.header[p as usize]
                } else {
                    byte_at(p)
                }
            })
            .collect();
        Ok(Buffer::of_vec(bytes))
    }
}

/// A `.safetensors` header (length and JSON) for `tensors` laid out in turn.
fn header(tensors: &[(&str, &str, &[u64], u64)]) -> (Vec<u8>, u64) {
    let mut json = String::from("{");
    let mut at = 0;
    for (k, (name, dtype, shape, bytes)) in tensors.iter().enumerate() {
        if k > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":{shape:?},\"data_offsets\":[{at},{}]}}",
            at + bytes
        ));
        at += bytes;
    }
    json.push('}');
    while json.len() % 8 != 0 {
        json.push(' ');
    }
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    let size = out.len() as u64 + at;
    (out, size)
}

/// `ck`'s floats converted into `to` on the host, into memory (`output` the single
/// file's name).
fn to_memory<S: Source>(
    ck: &Checkpoint<S>,
    to: DType,
    output: &str,
) -> (convert::Report, MemorySink) {
    let plan = Plan::new(ck, &Pick::floats(to), output).unwrap();
    let mut sink = MemorySink::default();
    let r = ready(convert::run(
        ck,
        &plan,
        &mut sink,
        &Rig::host(),
        &mut |_| {},
    ))
    .unwrap();
    (r, sink)
}

#[test]
fn a_conversion_a_piece_at_a_time_equals_the_whole_arrays_cast() {
    // float64 of 2.5 pieces (three reads of it), float32 and int32 beside it.
    let n64 = PIECE_BYTES / 8 * 5 / 2 + 3;
    let (h, size) = header(&[
        ("big", "F64", &[n64 as u64], 8 * n64 as u64),
        ("small", "F32", &[7], 28),
        ("ids", "I32", &[5], 20),
    ]);
    let made = Made::new(h, size);
    let ck = ready(Checkpoint::open(made, Format::Safetensors)).unwrap();
    let (r, sink) = to_memory(&ck, DType::Bfloat16, "out.safetensors");
    assert_eq!((r.converted, r.tensors), (2, 3));
    let src = &ck.shards[0].source;
    assert!(
        src.largest.get() <= PIECE_BYTES,
        "a read of {} bytes",
        src.largest.get()
    );
    // The oracle: every tensor whole, cast at once, written by formats::encode.
    let whole: Vec<u8> = ready(src.read(0, size as usize))
        .unwrap()
        .read(|b| b.to_vec())
        .unwrap();
    let file = formats::read_safetensors_bytes("whole", Buffer::of_vec(whole)).unwrap();
    let cast = TensorFile {
        tensors: file
            .tensors
            .iter()
            .map(|t| Tensor {
                name: t.name.clone(),
                array: if t.array.dtype().is_float() {
                    t.array.cast(DType::Bfloat16).unwrap()
                } else {
                    t.array.clone()
                },
            })
            .collect(),
        metadata: None,
    };
    let want = formats::encode(Format::Safetensors, "out", &cast).unwrap();
    assert_eq!(sink.files.len(), 1);
    assert_eq!(sink.files[0].0, "out.safetensors");
    assert!(
        sink.files[0].1 == want,
        "the pieces' file differs from the whole arrays'"
    );
}

#[test]
fn offsets_past_4_gib_are_read_on_every_platform() {
    // 4.5 GiB of bytes before a small tensor: its offset needs 33 bits (float64s, so
    // that the element count fits wasm32's usize while the bytes do not).
    let skip = 9u64 << 29;
    let (h, size) = header(&[
        ("skip", "F64", &[skip / 8], skip),
        ("w", "F32", &[1000], 4000),
    ]);
    let data_start = h.len() as u64;
    let ck = ready(Checkpoint::open(Made::new(h, size), Format::Safetensors)).unwrap();
    let (_, e) = ck.find("w").unwrap();
    assert_eq!(e.start, data_start + skip);
    let want = |k: u64| {
        let at = data_start + skip + 4 * k;
        u32::from_le_bytes([
            byte_at(at),
            byte_at(at + 1),
            byte_at(at + 2),
            byte_at(at + 3),
        ])
    };
    let a = ready(convert::load_range(&ck, "w", 10, 20, &Rig::host())).unwrap();
    let got: Vec<u32> = a.to_bits_vec().unwrap().iter().map(|&b| b as u32).collect();
    assert_eq!(got, (10..30).map(want).collect::<Vec<_>>());
    let w = ready(convert::load(&ck, "w", &Rig::host())).unwrap();
    assert_eq!(w.shape(), [1000]);
    let bits = w.to_bits_vec().unwrap();
    assert_eq!(bits[999] as u32, want(999));
    // The range past the tensor, and a tensor not there, are refused by name.
    let e = ready(convert::load_range(&ck, "w", 990, 11, &Rig::host())).unwrap_err();
    assert!(
        e.to_string()
            .contains("tensor \"w\": elements 990..990+11 are not inside its 1000"),
        "{e}"
    );
    let e = ready(convert::load(&ck, "v", &Rig::host())).unwrap_err();
    assert!(
        e.to_string()
            .contains("tensor \"v\": no tensor of that name"),
        "{e}"
    );
}

/// On a GPU (lavapipe here) a piece's output is read back after the next piece's cast
/// is submitted: the file equals the host's byte for byte, and progress is told once a
/// piece, in the plan's order (by name), each tensor's last piece flagged (the one in
/// flight is not lost).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_conversion_on_a_gpu_writes_every_piece_once_in_order() {
    let n = PIECE_BYTES / 4 + 5; // float32: two pieces
    let (h, size) = header(&[
        ("w", "F32", &[n as u64], 4 * n as u64),
        ("v", "F32", &[3], 12),
    ]);
    let ck = ready(Checkpoint::open(Made::new(h, size), Format::Safetensors)).unwrap();
    let (_, host) = to_memory(&ck, DType::Bfloat16, "out.safetensors");
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let plan = Plan::new(&ck, &Pick::floats(DType::Bfloat16), "out.safetensors").unwrap();
    let mut sink = MemorySink::default();
    let mut told = Vec::new();
    pollster::block_on(convert::run(&ck, &plan, &mut sink, &gpu, &mut |p| {
        told.push((p.tensor.to_owned(), p.done, p.tensor_done))
    }))
    .unwrap();
    assert!(
        sink.files == host.files,
        "the GPU's file differs from the host's"
    );
    let piece = PIECE_BYTES as u64;
    let w = 4 * n as u64;
    assert_eq!(
        told,
        [
            ("v".to_owned(), 12, true),
            ("w".to_owned(), 12 + piece, false),
            ("w".to_owned(), 12 + w, true)
        ]
    );
}

/// A log of a conversion's reads (of more than a header's bytes) and of its sink's
/// reads ahead and writes.
#[cfg(not(target_arch = "wasm32"))]
type Log = std::rc::Rc<std::cell::RefCell<Vec<&'static str>>>;

/// `Made` whose reads of pieces are logged.
#[cfg(not(target_arch = "wasm32"))]
struct Logged(Made, Log);

#[cfg(not(target_arch = "wasm32"))]
impl Source for Logged {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn size(&self) -> u64 {
        self.0.size()
    }
    async fn read(&self, start: u64, len: usize) -> Result<Buffer, Error> {
        if len > 4096 {
            self.1.borrow_mut().push("read");
        }
        self.0.read(start, len).await
    }
}

/// A `MemorySink` whose reads ahead and their writes are logged.
#[cfg(not(target_arch = "wasm32"))]
struct Ahead(MemorySink, Log);

#[cfg(not(target_arch = "wasm32"))]
impl convert::Sink for Ahead {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        self.0.open(name).await
    }
    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.0.write_bytes(bytes).await
    }
    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        self.1.borrow_mut().push("write_array");
        self.0.write_array(a).await
    }
    fn read_ahead(&self, a: &AnyArray) -> Result<convert::Ahead, Error> {
        self.1.borrow_mut().push("read_ahead");
        convert::Ahead::read(a)
    }
    async fn write_ahead(&mut self, a: convert::Ahead) -> Result<(), Error> {
        self.1.borrow_mut().push("write_ahead");
        match a.landed().await? {
            convert::Landed::Bytes(b) => self.0.write_bytes(&b).await,
            convert::Landed::Array(a) => self.0.write_array(&a).await,
        }
    }
    async fn close(&mut self) -> Result<(), Error> {
        self.0.close().await
    }
    async fn commit(&mut self) -> Result<(), Error> {
        self.0.commit().await
    }
    async fn abort(&mut self) {
        self.0.abort().await
    }
}

/// On a GPU a piece's read back starts as soon as its cast is submitted, before the
/// next piece is read (so that the device casts and copies while the host reads), and
/// it is written after that next piece's cast is submitted; on the host a piece is
/// written as it is cast, nothing read ahead. The files equal the host's.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn on_a_gpu_a_pieces_read_back_starts_before_the_next_piece_is_read() {
    let n = 2 * PIECE_BYTES / 4 + 4096; // float32: three pieces
    let (h, size) = header(&[("w", "F32", &[n as u64], 4 * n as u64)]);
    let log = Log::default();
    let ck = ready(Checkpoint::open(
        Logged(Made::new(h, size), log.clone()),
        Format::Safetensors,
    ))
    .unwrap();
    let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out.safetensors").unwrap();
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let mut files = Vec::new();
    for device in [Rig::host(), gpu] {
        log.borrow_mut().clear();
        let mut sink = Ahead(MemorySink::default(), log.clone());
        pollster::block_on(convert::run(&ck, &plan, &mut sink, &device, &mut |_| {})).unwrap();
        files.push(sink.0.files);
        let want: &[&str] = if device.host_addressable() {
            &[
                "read",
                "write_array",
                "read",
                "write_array",
                "read",
                "write_array",
            ]
        } else {
            &[
                "read",
                "read_ahead",
                "read",
                "read_ahead",
                "write_ahead",
                "read",
                "read_ahead",
                "write_ahead",
                "write_ahead",
            ]
        };
        assert_eq!(*log.borrow(), want, "on {}", device.name());
    }
    assert!(
        files[0] == files[1],
        "the GPU's file differs from the host's"
    );
}

#[test]
fn a_failed_read_aborts_and_names_the_file_and_the_tensor() {
    let n = PIECE_BYTES / 4 + 100;
    let (h, size) = header(&[
        ("a", "F32", &[16], 64),
        ("b", "F32", &[n as u64], 4 * n as u64),
    ]);
    let mut made = Made::new(h, size);
    made.fail_from = size - 8;
    let ck = ready(Checkpoint::open(made, Format::Safetensors)).unwrap();
    let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out.safetensors").unwrap();
    let mut sink = MemorySink::default();
    let mut pieces = 0;
    let e = ready(convert::run(
        &ck,
        &plan,
        &mut sink,
        &Rig::host(),
        &mut |_| pieces += 1,
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "made.safetensors: tensor \"b\": the disk went away"
    );
    assert!(pieces >= 2, "the first tensor and piece went through first");
    assert!(sink.files.is_empty(), "nothing committed");
}

#[test]
fn a_sharded_checkpoint_converts_each_shard_and_its_index() {
    let shard = |name: &str, v: &[f32]| {
        let a = Array::<f32>::of_array(&[v.len()], v).unwrap();
        let f = TensorFile {
            tensors: vec![Tensor {
                name: name.into(),
                array: AnyArray::from(a),
            }],
            metadata: None,
        };
        Buffer::of_vec(formats::encode(Format::Safetensors, name, &f).unwrap())
    };
    let one = shard("a", &[1.0, 2.5]);
    let two = shard("b", &[-3.0]);
    let index = r#"{"metadata":{"total_size":12,"format":"pt"},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}}"#;
    let open = |text: &str| {
        ready(Checkpoint::open_sharded(
            "dir/model.safetensors.index.json",
            text,
            |n| match n {
                "s1.safetensors" => Ok(BufferSource::new(n, one.clone())),
                "s2.safetensors" => Ok(BufferSource::new(n, two.clone())),
                _ => Err(Error::Format {
                    path: n.into(),
                    tensor: None,
                    reason: "not given".into(),
                }),
            },
        ))
    };
    let ck = open(index).unwrap();
    let (_, sink) = to_memory(&ck, DType::Bfloat16, "out");
    let names: Vec<&str> = sink.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "s1.safetensors",
            "s2.safetensors",
            "model.safetensors.index.json"
        ]
    );
    let text = String::from_utf8(sink.files[2].1.clone()).unwrap();
    assert!(text.contains("\"total_size\": 6"), "{text}");
    // What a sink is told before a byte: every file's bytes, the index's too.
    let planned = Plan::new(&ck, &Pick::floats(DType::Bfloat16), "out").unwrap();
    let written: usize = sink.files.iter().map(|(_, b)| b.len()).sum();
    assert_eq!(planned.bytes_out(&ck), written as u64);
    assert!(text.contains("\"format\": \"pt\""), "{text}");
    // A tensor in another shard than the index says, and a shard not given.
    let moved = index.replace("\"b\":\"s2.safetensors\"", "\"b\":\"s1.safetensors\"");
    let e = open(&moved).err().unwrap();
    assert!(
        e.to_string().contains("tensor \"a\"") || e.to_string().contains("tensor \"b\""),
        "{e}"
    );
    let e = open(&index.replace("s2.safetensors", "s3.safetensors"))
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "s3.safetensors: not given");
}

#[test]
fn a_float6_tensor_is_unpacked_read_and_packed_written_across_pieces() {
    // One piece of float6 (held one a byte: PIECE_BYTES elements, 3/4 of that in the
    // file) and eight more: the second piece starts inside the file at byte 3/4 *
    // PIECE_BYTES. Element i is bits 6i..6i + 6 of the file's data, read bit by bit here.
    let n = PIECE_BYTES as u64 + 8;
    let (h, size) = header(&[("w", "F6_E2M3", &[n], n * 6 / 8)]);
    let data_start = h.len() as u64;
    let element = |i: u64| -> u8 {
        (0..6)
            .map(|b| {
                let at = 6 * i + b;
                ((byte_at(data_start + at / 8) >> (at % 8)) & 1) << b
            })
            .sum()
    };
    let ck = ready(Checkpoint::open(Made::new(h, size), Format::Safetensors)).unwrap();
    let (_, e) = ck.find("w").unwrap();
    assert_eq!((e.dtype, e.len), (DType::Float6E2m3fn, n * 6 / 8));
    let from = PIECE_BYTES as u64 - 4;
    let a = ready(convert::load_range(&ck, "w", from, 12, &Rig::host())).unwrap();
    assert_eq!(
        a.to_bytes().unwrap(),
        (from..from + 12).map(element).collect::<Vec<_>>()
    );
    let e = ready(convert::load_range(&ck, "w", 2, 4, &Rig::host())).unwrap_err();
    assert!(e.to_string().contains("multiple of 4 elements"), "{e}");
    // Unchanged (float6 into float6): read a piece at a time, unpacked, packed again:
    // the file's bytes. Into float32: each element's value, as the vectors hold it.
    let (r, sink) = to_memory(&ck, DType::Float6E2m3fn, "o.safetensors");
    assert_eq!(
        (r.converted, r.bytes_in, r.bytes_out),
        (0, n * 6 / 8, n * 6 / 8)
    );
    let out = &sink.files[0].1;
    let at = out.len() - (n * 6 / 8) as usize;
    assert!(out[at..]
        .iter()
        .enumerate()
        .all(|(k, &b)| b == byte_at(data_start + k as u64)));
    let w = ready(convert::load(&ck, "w", &Rig::host())).unwrap();
    let tail = w
        .slice(&[nxrig::Slice::new(Some(from as isize), None, 1)])
        .unwrap();
    assert_eq!(
        tail.to_bytes().unwrap(),
        (from..n).map(element).collect::<Vec<_>>()
    );
}

/// A GGUF file of one Q8_0 tensor `q` of `blocks` blocks (ne [32 * blocks]): block `k`'s
/// float16 scale `scale(k)`, its int8s `code(k, j)`; the data at 32 bytes.
fn q8_0_gguf(
    blocks: usize,
    scale: impl Fn(usize) -> f32,
    code: impl Fn(usize, usize) -> i8,
) -> Vec<u8> {
    let string = |b: &mut Vec<u8>, s: &str| {
        b.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    };
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes()); // tensors
    b.extend_from_slice(&0u64.to_le_bytes()); // key-values
    string(&mut b, "q");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&(32 * blocks as u64).to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes()); // Q8_0
    b.extend_from_slice(&0u64.to_le_bytes());
    b.resize(b.len().next_multiple_of(32), 0);
    for k in 0..blocks {
        b.extend_from_slice(&half::f16::from_f32(scale(k)).to_le_bytes());
        b.extend((0..32).map(|j| code(k, j) as u8));
    }
    b
}

/// The Q8_0 checkpoint of the GGUF tests: 5000 blocks, block `k`'s scale 1000 where
/// `k % 7 == 3` (so some values overflow float16), else small; its codes a walk of
/// every int8. With it, the float16s ggml's formula gives (`d * q`, the product exact
/// in float32, rounded once), and the tally they make.
fn q8_0_checkpoint() -> (
    Checkpoint<BufferSource>,
    Vec<half::f16>,
    Vec<convert::Overflow>,
) {
    let blocks = 5000;
    let scale = |k: usize| {
        if k % 7 == 3 {
            1000.0
        } else {
            0.01 + k as f32 * 1e-3
        }
    };
    let code = |k: usize, j: usize| ((k * 31 + j * 17) % 256) as u8 as i8;
    let bytes = q8_0_gguf(blocks, scale, code);
    let source = BufferSource::new("q.gguf", Buffer::of_vec(bytes));
    let ck = ready(Checkpoint::open(source, Format::Gguf)).unwrap();
    let want: Vec<half::f16> = (0..blocks)
        .flat_map(|k| {
            let d = half::f16::from_f32(scale(k)).to_f32();
            (0..32).map(move |j| half::f16::from_f32(d * code(k, j) as f32))
        })
        .collect();
    let inf = want.iter().filter(|x| x.is_infinite()).count() as u64;
    assert!(inf > 0);
    let overflows = vec![convert::Overflow {
        tensor: "q".into(),
        dtype: DType::Float16,
        tally: nxrig::dtype::Tally {
            overflowed: inf,
            infinities: inf,
            nans: 0,
        },
    }];
    (ck, want, overflows)
}

/// A GGUF tensor's blocks into float16 on the host (dequantized and rounded a few
/// blocks at a time, over several tasks): each value `d * q` rounded once, and the
/// tally counts exactly those that became infinities (`d` of 1000 times an int8 past
/// 65.5).
#[test]
fn gguf_blocks_into_float16_round_once_and_count_what_overflowed() {
    let (ck, want, overflows) = q8_0_checkpoint();
    let (r, sink) = to_memory(&ck, DType::Float16, "out.safetensors");
    let out = &sink.files[0].1;
    let got = &out[out.len() - 2 * want.len()..];
    assert!(
        got == bytemuck::cast_slice::<half::f16, u8>(&want),
        "the float16s differ from d * q rounded once"
    );
    assert_eq!(r.overflows, overflows);
    assert_eq!((r.dequantized, r.dequantized_on_device), (1, 0));
}

/// On a GPU (lavapipe here, told to as a GPU that is not a CPU adapter does) a GGUF
/// tensor's blocks are dequantized by the device: the same file as the host's, the
/// same tally (its peaks read back, then its values), and `load` and `load_range` the
/// same float32s as the host's.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn gguf_blocks_on_a_gpu_convert_and_load_as_on_the_host() {
    let (ck, _, overflows) = q8_0_checkpoint();
    let (_, sink) = to_memory(&ck, DType::Float16, "out.safetensors");
    std::env::set_var("NXRIG_GGML_ON_CPU", "1");
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let q8_0 = nxrig::formats::GgmlType::of_code(8).unwrap();
    assert!(nxrig::quant::dequantizes_on(q8_0, &gpu));
    let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out.safetensors").unwrap();
    let mut on_gpu = MemorySink::default();
    let r = pollster::block_on(convert::run(&ck, &plan, &mut on_gpu, &gpu, &mut |_| {})).unwrap();
    assert!(
        on_gpu.files == sink.files,
        "the GPU's file differs from the host's"
    );
    assert_eq!(r.overflows, overflows);
    assert_eq!((r.dequantized, r.dequantized_on_device), (1, 1));
    let host = ready(convert::load(&ck, "q", &Rig::host())).unwrap();
    let there = pollster::block_on(convert::load(&ck, "q", &gpu)).unwrap();
    assert_eq!(there.rig(), &gpu);
    assert!(there.to_bytes().unwrap() == host.to_bytes().unwrap());
    let part = pollster::block_on(convert::load_range(&ck, "q", 64, 96, &gpu)).unwrap();
    assert!(part.to_bytes().unwrap()[..] == host.to_bytes().unwrap()[256..640]);
}

/// Every GGUF block type's kernel on lavapipe (which a conversion does not choose: a CPU
/// adapter dequantizes on the host) equal to the host's dequantization, bit for bit.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_ggml_type_dequantizes_on_a_gpu_as_on_the_host() {
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    assert_eq!(pollster::block_on(ggml_blocks::every_type_on(&gpu)), 24);
}

/// A sink's steps as a conversion calls them, a skipped step too.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Open(String),
    Bytes(Vec<u8>),
    Close,
    Commit,
    Skip,
}

#[derive(Default)]
struct Steps(Vec<Step>);

impl convert::Sink for Steps {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        self.0.push(Step::Open(name.into()));
        Ok(())
    }
    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.0.push(Step::Bytes(bytes.to_vec()));
        Ok(())
    }
    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        self.0.push(Step::Bytes(a.to_bytes()?));
        Ok(())
    }
    async fn close(&mut self) -> Result<(), Error> {
        self.0.push(Step::Close);
        Ok(())
    }
    async fn commit(&mut self) -> Result<(), Error> {
        self.0.push(Step::Commit);
        Ok(())
    }
    async fn abort(&mut self) {}
    async fn skip(&mut self) -> Result<(), Error> {
        self.0.push(Step::Skip);
        Ok(())
    }
}

/// Two and three runs sharing one plan (`run_share`, as JavaScript's Workers do): at
/// each step exactly one run writes and the others skip, so their steps put in that
/// order are the whole run's files byte for byte (two shards and their index, written
/// by the first run only); every run casts some pieces, and their overflow tallies add
/// up to the whole's.
#[test]
fn runs_sharing_a_conversion_write_between_them_what_one_run_writes() {
    let shard = |tensors: &[(&str, Vec<f32>)]| {
        let f = TensorFile {
            tensors: tensors
                .iter()
                .map(|(name, v)| Tensor {
                    name: (*name).into(),
                    array: AnyArray::from(Array::<f32>::of_array(&[v.len()], v).unwrap()),
                })
                .collect(),
            metadata: None,
        };
        Buffer::of_vec(formats::encode(Format::Safetensors, "s", &f).unwrap())
    };
    let v = |n: usize, big: f32| -> Vec<f32> {
        (0..n)
            .map(|i| i as f32 * 0.5 + big * (i % 3) as f32)
            .collect()
    };
    let one = shard(&[("a", v(100, 0.0)), ("b", v(64, 1e6)), ("c", v(7, 0.0))]);
    let two = shard(&[("d", v(33, 7e4)), ("e", v(5, 0.0))]);
    let index = r#"{"metadata":{"total_size":836},"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s1.safetensors","d":"s2.safetensors","e":"s2.safetensors"}}"#;
    let ck = ready(Checkpoint::open_sharded(
        "m/model.safetensors.index.json",
        index,
        |n| {
            Ok(BufferSource::new(
                n,
                if n == "s1.safetensors" {
                    one.clone()
                } else {
                    two.clone()
                },
            ))
        },
    ))
    .unwrap();
    let (whole, sink) = to_memory(&ck, DType::Float16, "out");
    assert_eq!(whole.overflows.len(), 2, "b and d overflow float16");
    let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out").unwrap();
    for count in [2, 3] {
        let runs: Vec<(convert::Report, Steps)> = (0..count)
            .map(|k| {
                let mut steps = Steps::default();
                let share = convert::Share::new(k, count).unwrap();
                let r = ready(convert::run_share(
                    &ck,
                    &plan,
                    &mut steps,
                    &Rig::host(),
                    share,
                    &mut |_| {},
                ));
                (r.unwrap(), steps)
            })
            .collect();
        let len = runs[0].1 .0.len();
        assert!(
            runs.iter().all(|(_, s)| s.0.len() == len),
            "every run sees the same steps"
        );
        let mut merged = MemorySink::default();
        for i in 0..len {
            let done: Vec<&Step> = runs
                .iter()
                .map(|(_, s)| &s.0[i])
                .filter(|s| **s != Step::Skip)
                .collect();
            assert_eq!(
                done.len(),
                1,
                "{count} runs: step {i} is one run's: {done:?}"
            );
            ready(async {
                match done[0] {
                    Step::Open(n) => convert::Sink::open(&mut merged, n).await,
                    Step::Bytes(b) => convert::Sink::write_bytes(&mut merged, b).await,
                    Step::Close => convert::Sink::close(&mut merged).await,
                    Step::Commit => convert::Sink::commit(&mut merged).await,
                    Step::Skip => unreachable!(),
                }
            })
            .unwrap();
        }
        assert!(
            merged.files == sink.files,
            "{count} runs: the files differ from one run's"
        );
        for (k, (_, s)) in runs.iter().enumerate().skip(1) {
            assert!(
                s.0.iter().any(|s| matches!(s, Step::Bytes(_))),
                "run {k} of {count} cast no piece"
            );
            assert!(
                !s.0.iter()
                    .any(|s| matches!(s, Step::Open(_) | Step::Commit)),
                "run {k} of {count} opened or committed"
            );
        }
        let mut tallies: Vec<convert::Overflow> = Vec::new();
        for o in runs.iter().flat_map(|(r, _)| &r.overflows) {
            match tallies.iter_mut().find(|t| t.tensor == o.tensor) {
                Some(t) => t.tally.add(o.tally),
                None => tallies.push(o.clone()),
            }
        }
        tallies.sort_by(|a, b| a.tensor.cmp(&b.tensor));
        assert_eq!(
            tallies, whole.overflows,
            "{count} runs: the tallies add up to one run's"
        );
    }
}
