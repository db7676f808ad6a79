#!/usr/bin/env bash
# Every test of nxrig, after installing what is missing (scripts/setup.sh):
#   0. the checks (scripts/lint.sh): cargo fmt, clippy -D warnings on every target built,
#      the docs with warnings as errors, the claimed rust-version built, a library
#      user's dependencies, cargo package;
#   1. cargo tests (unit, vectors, layouts, CLI, the C header against the vectors, the
#      GPU runtime on lavapipe with native types; the conformance suites, arrays, views,
#      placement, door and kernels, on every device: the host, each GPU, the first GPU
#      with every type emulated, each CUDA device: ignored, saying why, without CUDA);
#      the CUDA kernel sources run on the host over every vector; DLPack with NumPy 2
#      through the C API (tests/dlpack/numpy_dlpack.py); the GPU tests again
#      with every type emulated (NXRIG_EMULATE=1);
#      the library and the CLI checked for aarch64-apple-darwin and x86_64-pc-windows-msvc;
#      the host's suites (conversion vectors, layouts, arrays, views, placement, door,
#      kernels) built for aarch64-unknown-linux-gnu and run under qemu-user: the typed
#      loops and the transposes' vectors in NEON;
#   2. the checkpoint test: the real MiniLM checkpoint converted to float16, bfloat16,
#      float8_e4m3fn and float8_e5m2, every byte checked against ml_dtypes' astype, and
#      converted again on the GPU (lavapipe): byte-identical to the host's file; then
#      split into three shards and converted through its index (shards and index
#      checked); the field's newer dtypes, ml_dtypes' .npy files, and --saturate with
#      its overflow warning, each against NumPy and ml_dtypes; block-scaled model folders
#      in every published layout (tests/quant/dequant.py) dequantized on the host and the
#      GPU, every byte against an exact oracle, and the refusals;
#   3. the web: the npm package built (wasm-pack, wasm-opt), the demo page's end-to-end
#      test in headless Chromium (www/e2e.mjs: the JS API's cases and conventions, 600 MiB
#      arrays, the checkpoint converted on WebGPU and on the CPU byte-identical to nxrig
#      convert, the npm tarball used from a fresh project: the README's TypeScript under
#      tsc --strict, a Vite build and its page, a Node script; checkpoints of 5 GiB and a
#      sharded 4 GiB one made at test time, converted from Files and URLs on the host and
#      WebGPU into streams and OPFS, and in Node, byte-identical to nxrig convert);
#      the wasm tests in headless Chromium (wasm-pack test --headless --chrome): the
#      conversion vectors, array tests and the converter compiled to wasm32;
#   4. the GPU runtime on WebGPU in headless Chromium (SwiftShader): cast against the
#      vectors, float32 add exact on subnormals where SwiftShader flushes them,
#      placement (NaN payloads, odd tails, padding), a read pending at a loss;
#   5. the claims under loom (every interleaving of two or three threads), the host
#      runtime and DLPack's export and import under Miri.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
# The GiB free on the file system that holds $1.
free_gib() { df -Pk "$1" | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }
# Each step's heading, with the seconds the step before it took (and the run so far),
# and the disk left here and in TMPDIR (the web tests make 1.2 GiB of sparse
# checkpoints there and write outputs of up to 2.5 GiB, one at a time).
step() {
  if [ -n "${step_at:-}" ]; then printf '=== (%d s; %d s in all; %s GiB free here, %s GiB in %s)\n' $((SECONDS - step_at)) "$SECONDS" "$(free_gib .)" "$(free_gib "${TMPDIR:-/tmp}")" "${TMPDIR:-/tmp}"; fi
  step_at=$SECONDS
  printf '\n=== %s\n' "$*"
}

step setup
scripts/setup.sh

scripts/lint.sh

step "cargo test (with the CUDA backend: its device tests say they are skipped where there is no CUDA)"
cargo test --release --features cuda

step "the examples: a checkpoint converted on the GPU, a donating function, a kernel of your own"
for e in convert_checkpoint donate own_kernel; do
  cargo run --release --features cuda --quiet --example "$e"
done

step "DLPack: NumPy 2 and nxrig, both ways, through the C API's shared library and ctypes"
cargo build --release -p nxrig-capi
python3 tests/dlpack/numpy_dlpack.py target/release/libnxrig_capi.so

step "the GPU tests again, every type emulated (the browsers' path, forced)"
# (Less the add test that opens its own native and emulated devices: here it would run
# emulated three times.)
NXRIG_EMULATE=1 cargo test --release --features cuda --test gpu_backend --test cast_on_devices --test large_arrays --test cli \
  -- --skip add_on_the_gpu_equals_the_host_native_and_emulated

step "desktop builds: the library and the CLI type-check for macOS (Metal) and Windows (DX12, Vulkan)"
# Dependencies' build scripts compile a little C for the target (psm, stacker through
# pest): Debian's clang does it, with a stand-in for the one Windows SDK header asked
# for (nothing is linked). nxrig's own C host kernels are left out of these builds.
CC_aarch64_apple_darwin=clang AR_aarch64_apple_darwin=llvm-ar \
  cargo check --release --target aarch64-apple-darwin --lib --bins
CC_x86_64_pc_windows_msvc=clang AR_x86_64_pc_windows_msvc=llvm-ar \
  CFLAGS_x86_64_pc_windows_msvc="-isystem $PWD/scripts/cross/msvc" \
  cargo check --release --target x86_64-pc-windows-msvc --lib --bins

step "Arm: the host's suites built for aarch64 (NEON) and run under qemu-user (no GPU there: the GPU variants skipped)"
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
  CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
  cargo test --release --target aarch64-unknown-linux-gnu --test vectors --test layout \
  --test arrays --test views --test placement --test door --test kernels --test convert -- --skip gpu

step "checkpoint: float16, bfloat16, the float8s of safetensors against ml_dtypes, on the host and the GPU"
src=$(scripts/fetch-checkpoint.sh)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for to in float16 bfloat16 float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz; do
  ./target/release/nxrig convert "$src" "$out/$to.safetensors" --to "$to"
  python3 tests/checkpoint/check.py "$src" "$out/$to.safetensors" "$to"
  ./target/release/nxrig convert "$src" "$out/gpu-$to.safetensors" --to "$to" --device gpu
  cmp "$out/$to.safetensors" "$out/gpu-$to.safetensors"
  echo "the GPU's $to file is the host's, byte for byte"
done

step "a file of the field's newer dtypes (F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, F4, F6_E2M3, F6_E3M2 beside I8, F32): listed, converted to bfloat16, float4_e2m1fn and float6_e3m2fn on the host and the GPU, every byte against ml_dtypes"
python3 tests/checkpoint/field_dtypes.py "$out/field.safetensors"
./target/release/nxrig info "$out/field.safetensors"
for to in bfloat16 float4_e2m1fn float6_e3m2fn; do
  ./target/release/nxrig convert "$out/field.safetensors" "$out/field-$to.safetensors" --to $to
  python3 tests/checkpoint/check.py "$out/field.safetensors" "$out/field-$to.safetensors" $to
  ./target/release/nxrig convert "$out/field.safetensors" "$out/gpu-field-$to.safetensors" --to $to --device gpu
  cmp "$out/field-$to.safetensors" "$out/gpu-field-$to.safetensors"
done
echo "the GPU's files are the host's, byte for byte"

step ".npy files of ml_dtypes' arrays (void elements, |V1 and <V2): listed and converted with --npy-dtype, every value against ml_dtypes"
python3 tests/checkpoint/npy_void.py ./target/release/nxrig "$out"

step "--saturate: bfloat16 past float16's and float8_e4m3fn's largest finite, on the host and the GPU, every byte against NumPy and ml_dtypes, the overflow warning's counts NumPy's"
python3 tests/checkpoint/saturate.py ./target/release/nxrig "$out" host gpu

step "block-scaled checkpoints (DeepSeek-V3/V4's FP8 blocks and FP4 experts, gpt-oss' MXFP4, ModelOpt's NVFP4, compressed-tensors' FP8, NVFP4, MXFP4 and integer groups, GPTQ v1 and v2, AWQ): model folders dequantized into bfloat16, float16 and float32 on the host and the GPU (its kernels asserted to run), every byte against an exact oracle; the refusals, nothing written"
python3 tests/quant/dequant.py ./target/release/nxrig "$out/quant" host gpu

step "GGUF files written by llama.cpp's gguf package: info's tensors and metadata against GGUFReader, the plain tensors converted into float16 against NumPy and ml_dtypes, 24 block-quantized types dequantized on the host, the GPU and the GPU's own kernels against gguf.quants.dequantize (Q1_0 against its formula), a split file of three, the refusals (a block type as --to, a type not dequantized, a split missing, a cut header, a tensor past the end, an unknown type, a bad alignment)"
python3 tests/gguf/gguf_check.py ./target/release/nxrig "$out/gguf" host gpu gpu:kernel

step "a sharded checkpoint: the MiniLM split into three shards, converted through its index, every byte against ml_dtypes"
python3 tests/checkpoint/shard.py split "$src" "$out/shards" 3
./target/release/nxrig info "$out/shards/model.safetensors.index.json" | tail -1
./target/release/nxrig convert "$out/shards/model.safetensors.index.json" "$out/shards-bf16" --to bfloat16
python3 tests/checkpoint/shard.py check "$out/shards" "$out/shards-bf16" bfloat16

step "the web: npm run build, then the end-to-end test of the demo page in headless Chromium"
npm run build
NXRIG_CHECKPOINT="$src" NXRIG_BIN=./target/release/nxrig npm test

step "wasm32 in headless Chromium"
# The driver's requests wait for the page, which a long synchronous test holds (the
# kernels suite's longest is about 20 s on a loaded 2-core machine; the default is 20).
export WASM_BINDGEN_TEST_DRIVER_TIMEOUT=300
wasm-pack test --headless --chrome --release -- -p nxrig --test vectors --test arrays --test views --test placement --test door --test kernels --test interop --test convert

step "WebGPU in headless Chromium: cast against the vectors, exact add on subnormals, placement, a read pending at a loss"
WASM_BINDGEN_TEST_TIMEOUT=900 wasm-pack test --headless --chrome --release -- -p nxrig --test webgpu

step "loom: the claims racing on two and three threads"
CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" cargo test --release --test claims_loom

step "miri: the host runtime and DLPack's export and import"
cargo +nightly miri test --lib -- rig array::dlpack

step "all tests passed"
