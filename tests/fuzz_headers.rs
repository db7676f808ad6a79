//! The file readers under mutated input (fuzzing, bounded for CI): valid
//! `.safetensors`, `.npy` and GGUF files with bytes of their length field, header and
//! data changed, cut short or spliced. Whatever the bytes, reading the header returns (no
//! panic, no allocation the file does not justify), an error is one line with no
//! control character that names the file, and a header read is sound: every tensor's
//! range inside the file, and its array made from it.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::convert::{BufferSource, Checkpoint};
use nxrig::formats::{arrays, Format, Header};
use nxrig::rig::Buffer;
use proptest::prelude::*;

fn safetensors_file() -> Vec<u8> {
    let h = r#"{"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"BF16","shape":[3],"data_offsets":[16,22]},"c":{"dtype":"I8","shape":[2],"data_offsets":[22,24]}}"#;
    let mut b = (h.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(h.as_bytes());
    b.extend((0..24u8).map(|x| x.wrapping_mul(37)));
    b
}

fn npy_file(version: u8) -> Vec<u8> {
    let mut h = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }".to_owned();
    let fixed = if version == 1 { 10 } else { 12 };
    let pad = (64 - (fixed + h.len() + 1) % 64) % 64;
    h.push_str(&" ".repeat(pad));
    h.push('\n');
    let mut b = b"\x93NUMPY".to_vec();
    b.extend_from_slice(&[version, 0]);
    if version == 1 {
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
    } else {
        b.extend_from_slice(&(h.len() as u32).to_le_bytes());
    }
    b.extend_from_slice(h.as_bytes());
    b.extend((0..24u8).map(|x| x.wrapping_mul(91)));
    b
}

/// A GGUF file (version 3) as llama.cpp's writer lays one out: three key-values (an
/// alignment of 32, a string, an array of strings), an F32 tensor of ne [2, 2] and a
/// Q8_0 tensor of one block, the data at the alignment.
fn gguf_file() -> Vec<u8> {
    fn string(b: &mut Vec<u8>, s: &str) {
        b.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    }
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    b.extend_from_slice(&3u64.to_le_bytes());
    string(&mut b, "general.alignment");
    b.extend_from_slice(&4u32.to_le_bytes());
    b.extend_from_slice(&32u32.to_le_bytes());
    string(&mut b, "general.name");
    b.extend_from_slice(&8u32.to_le_bytes());
    string(&mut b, "tiny");
    string(&mut b, "tokenizer.ggml.tokens");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    string(&mut b, "a");
    string(&mut b, "bc");
    for (name, ne, ty, offset) in [("w", &[2u64, 2][..], 0u32, 0u64), ("q", &[32][..], 8, 32)] {
        string(&mut b, name);
        b.extend_from_slice(&(ne.len() as u32).to_le_bytes());
        for x in ne {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&ty.to_le_bytes());
        b.extend_from_slice(&offset.to_le_bytes());
    }
    b.resize(b.len().next_multiple_of(32), 0);
    b.extend((0..16u8).map(|x| x.wrapping_mul(29)));
    b.resize(b.len() + 16, 0);
    b.extend((0..34u8).map(|x| x.wrapping_mul(53)));
    b
}

/// A mutation: bytes set at positions, then a cut and a splice.
#[derive(Debug, Clone)]
struct Mutation {
    sets: Vec<(usize, u8)>,
    cut: Option<usize>,
    splice: Option<(usize, Vec<u8>)>,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop::collection::vec((0usize..200, any::<u8>()), 0..6),
        prop::option::of(0usize..220),
        prop::option::of((
            0usize..200,
            prop::collection::vec(
                prop::sample::select(b"[]{}()\"':,0123456789-eE.\\ufx\n\x00".to_vec()),
                1..40,
            ),
        )),
    )
        .prop_map(|(sets, cut, splice)| Mutation { sets, cut, splice })
}

fn apply(mut b: Vec<u8>, m: &Mutation) -> Vec<u8> {
    for &(i, x) in &m.sets {
        if i < b.len() {
            b[i] = x;
        }
    }
    if let Some((i, s)) = &m.splice {
        let i = (*i).min(b.len());
        b.splice(i..i, s.iter().copied());
    }
    if let Some(c) = m.cut {
        b.truncate(c);
    }
    b
}

/// The header of `bytes` as a file named `path` in `format`, read as every opener
/// reads it (the first bytes, then as many as the header takes).
fn read_header(format: Format, path: &str, bytes: &[u8]) -> Result<Header, nxrig::Error> {
    let source = BufferSource::new(path, Buffer::of_vec(bytes.to_vec()));
    let mut ck = pollster::block_on(Checkpoint::open(source, format))?;
    Ok(ck.shards.remove(0).header)
}

fn check(format: Format, bytes: Vec<u8>) {
    let len = bytes.len();
    let r = read_header(format, "fuzz.file", &bytes);
    match r {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("fuzz.file: "), "{msg}");
            assert!(!msg.chars().any(char::is_control), "{msg:?}");
        }
        Ok(h) => {
            for e in &h.entries {
                assert!(e.start + e.len <= len as u64, "{e:?} past {len} bytes");
            }
            // A GGUF file's block-quantized tensors are dequantized, not read as arrays.
            let h = Header {
                entries: h.entries.into_iter().filter(|e| e.ggml.is_none()).collect(),
                ..h
            };
            let file = arrays("fuzz.file", h, &Buffer::of_vec(bytes)).unwrap();
            for t in &file.tensors {
                t.array.to_bytes().unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_safetensors_headers_never_panic(m in mutation()) {
        check(Format::Safetensors, apply(safetensors_file(), &m));
    }

    #[test]
    fn mutated_npy_headers_never_panic(m in mutation(), v in 1u8..=3) {
        check(Format::Npy, apply(npy_file(v), &m));
    }

    #[test]
    fn mutated_gguf_headers_never_panic(m in mutation()) {
        check(Format::Gguf, apply(gguf_file(), &m));
    }
}

#[test]
fn the_unmutated_files_read() {
    let h = read_header(Format::Safetensors, "f", &safetensors_file()).unwrap();
    assert_eq!(h.entries.len(), 3);
    let h = read_header(Format::Gguf, "f", &gguf_file()).unwrap();
    let got: Vec<_> = h
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.type_name(), e.shape.clone(), e.len))
        .collect();
    assert_eq!(
        got,
        [
            ("w", "float32", vec![2, 2], 16),
            ("q", "Q8_0", vec![32], 34)
        ]
    );
    let g = h.gguf.as_ref().unwrap();
    assert_eq!((g.version, g.alignment, g.values.len()), (3, 32, 3));
    assert_eq!(g.values[2].1, serde_json::json!(["a", "bc"]));
    assert_eq!(h.metadata.as_ref().unwrap()["general.name"], "tiny");
    let h = read_header(Format::Npy, "f", &npy_file(2)).unwrap();
    assert_eq!(
        (h.entries[0].shape.clone(), h.entries[0].fortran),
        (vec![2, 3], true)
    );
}
