#!/usr/bin/env bash
# nxrig on an NVIDIA GPU (an H200 lent through the device tool): the conformance suites
# on cuda0 (CUDA through cudarc and NVRTC) and on the NVIDIA adapter through wgpu
# (Vulkan), the cast vectors on both, a real checkpoint converted on both byte-identical
# to the host, the block-scaled folders of tests/quant/dequant.py dequantized on both
# (by their kernels) byte-identical to the host, and the throughput of placement, casts, add and the transposed copy at
# 64 MiB and 1 GiB beside the H200's memory bandwidth (about 4.8 TB/s).
#
# The device machine has CUDA but no Rust toolchain, and it reaches nothing outside:
# everything is built here and carried. What a call carries and the tracked tree (32
# MB of it the conversion vectors) must stay under 64 MiB, so the checkpoint goes in
# a second call:
#
#   scripts/device-check.sh prepare   here: builds with --features cuda and packs
#                                     .device/bin (stripped, xz), .device/minilm (the
#                                     checkpoint in float8_e4m3fn, xz; the quantized
#                                     folders, .device/minilm/quant) and .gl (the
#                                     Vulkan loader's .deb), all in .gitignore
#   scripts/device-check.sh run suites|checkpoint
#                                     there, through the device tool, twice:
#     run(command="scripts/device-check.sh run suites", carry=[".device/bin", ".gl"], timeout_s=480)
#     run(command="scripts/device-check.sh run checkpoint", carry=[".device/minilm", ".device/bin/nxrig.xz", ".gl"], timeout_s=180)
#
# `run` unpacks into a temporary folder (the carried files stay as `prepare` made
# them) and removes it at the end.
#
# The two take under 8 minutes on one H200 (most of it the 1 GiB throughput rows).
# NXRIG_DEVICE_CHECK_HERE=1 runs `run` on this machine (no loader unpacked), to try
# the script: the CUDA steps then fail, saying why.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }
suites="arrays views placement door kernels ops elementwise raw_kernels dlpack"

case "${1:-}" in
prepare)
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
  rm -rf .device && mkdir -p .device/bin
  step "build: the CLI, the throughput example and the test executables, --features cuda"
  cargo build --release --features cuda --bin nxrig --example device_throughput
  args=()
  for t in $suites cast_on_devices; do args+=(--test "$t"); done
  cargo test --release --features cuda --no-run "${args[@]}" --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])' >.device/executables
  for e in $(cat .device/executables) target/release/nxrig target/release/examples/device_throughput; do
    name=$(basename "$e" | sed -E 's/-[0-9a-f]{16}$//')
    strip -o ".device/bin/$name" "$e"
  done
  rm .device/executables
  xz -T2 -6 .device/bin/*
  # The test executables read tests/vectors from the folder they were built in.
  pwd >.device/bin/root
  step "the checkpoint: MiniLM in float8_e4m3fn (the float32 file is too large to carry)"
  src=$(scripts/fetch-checkpoint.sh)
  mkdir -p .device/minilm
  ./target/release/nxrig convert "$src" .device/minilm/minilm-e4m3.safetensors --to float8_e4m3fn
  xz -T2 -6 .device/minilm/minilm-e4m3.safetensors
  step "the block-scaled folders (every published layout, small)"
  python3 tests/quant/dequant.py --write .device/minilm/quant
  step "the Vulkan loader (the machine has NVIDIA's driver, not the loader)"
  rm -rf .gl && mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64 -oAPT::Sandbox::User=root'
  # shellcheck disable=SC2086
  apt-get $o update -qq && (cd .gl && apt-get $o download libvulkan1)
  du -sh .device/bin .device/minilm .gl
  ;;

run)
  what=${2:-}
  case "$what" in suites | checkpoint) ;; *)
    echo "usage: scripts/device-check.sh run suites|checkpoint" >&2
    exit 2
    ;;
  esac
  start=$(date +%s)
  step "the machine"
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L; else echo "(no nvidia-smi)"; fi
  if [ "${NXRIG_DEVICE_CHECK_HERE:-}" != 1 ]; then
    # The Vulkan loader, unpacked into / (the device machine is a fresh one each time).
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [ -e "$icd" ]; then export VK_DRIVER_FILES=$icd; fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  export XDG_RUNTIME_DIR=$work/xdg
  mkdir -p "$XDG_RUNTIME_DIR"
  B=$work/bin
  mkdir -p "$B"
  for f in .device/bin/*.xz; do
    xz -dc "$f" >"$B/$(basename "$f" .xz)"
  done
  chmod +x "$B"/*
  $B/nxrig devices
  status=0
  if [ "$what" = suites ]; then
    # The test executables read tests/vectors from the folder they were built in.
    root=$(cat .device/bin/root)
    if [ "$root" != "$PWD" ] && [ ! -e "$root" ]; then
      mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
    fi
    step "the conformance suites on cuda0 (CUDA), then on the NVIDIA adapter through wgpu (native types, then every type emulated)"
    for t in $suites; do
      $B/$t --include-ignored ::cuda || status=1
      $B/$t ::gpu || status=1
    done
    step "the cast vectors (1,021,255 records) on the first GPU (wgpu) and on each CUDA device"
    $B/cast_on_devices --include-ignored || status=1
    step "throughput: GB/s read and written, and the share of the H200's 4800 GB/s"
    $B/device_throughput cuda0 gpu host --reps 5 --mib 64,1024 --peak 4800 || status=1
  else
    step "the checkpoint on the host, cuda0 and the wgpu GPU: byte-identical"
    ckpt=$work/minilm-e4m3.safetensors
    xz -dc .device/minilm/minilm-e4m3.safetensors.xz >"$ckpt"
    for to in float16 bfloat16 float32; do
      for dev in host cuda0 gpu; do
        $B/nxrig convert "$ckpt" "$work/$dev-$to.safetensors" --to "$to" --device "$dev" || status=1
      done
      for dev in cuda0 gpu; do
        if cmp "$work/host-$to.safetensors" "$work/$dev-$to.safetensors"; then
          echo "$to on $dev: the host's bytes"
        else
          status=1
        fi
      done
      rm -f "$work"/*-"$to".safetensors
    done
    step "the block-scaled folders on the host, cuda0 and the wgpu GPU: dequantized there, byte-identical"
    for src in .device/minilm/quant/*/; do
      name=$(basename "$src")
      case "$name" in refuse-*) continue ;; esac
      for to in bfloat16 float16 float32; do
        for dev in host cuda0 gpu; do
          $B/nxrig convert "$src" "$work/q-$dev" --to "$to" --device "$dev" >"$work/q-$dev.log" 2>&1 || {
            cat "$work/q-$dev.log"
            status=1
          }
        done
        for dev in cuda0 gpu; do
          if ! grep -Eq "dequantized from [^ ]+ (\([0-9]+ )?on $dev" "$work/q-$dev.log"; then
            echo "$name to $to: not dequantized on $dev: $(cat "$work/q-$dev.log")"
            status=1
          fi
          diff -r "$work/q-host" "$work/q-$dev" >/dev/null || {
            echo "$name to $to: $dev's files are not the host's"
            status=1
          }
        done
        rm -rf "$work"/q-*
      done
      echo "$name: bfloat16, float16, float32 on cuda0 and gpu: the host's bytes"
    done
  fi
  echo "device check: status $status in $(($(date +%s) - start)) s"
  exit $status
  ;;

*)
  echo "usage: scripts/device-check.sh prepare | run suites|checkpoint" >&2
  exit 2
  ;;
esac
