#!/usr/bin/env bash
# Installs what nxrig's tests and main job need, skipping what is already there, so that a
# second run is fast. Run as root on Debian (CI does); nothing is downloaded but packages
# from the registries (apt, crates.io, PyPI, npm).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }

# Debian packages: the Vulkan loader and Mesa's lavapipe (native wgpu), Chromium and its
# driver (browser tests), binaryen (wasm-opt for wasm-pack build), a C compiler (cc crate);
# for the host's tests on Arm (aarch64, NEON): a cross C compiler and linker with its C
# library, and qemu-user to run them.
need_apt=()
for p in mesa-vulkan-drivers libvulkan1 chromium chromium-driver binaryen gcc clang llvm \
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
if ((${#need_apt[@]})); then
  say "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Rust: the wasm target, the desktop targets CI checks (macOS on Apple silicon,
# Windows), Linux on Arm (whose host tests run under qemu-user), wasm-pack, and
# wasm-bindgen-cli at exactly Cargo.lock's version (wasm-pack otherwise tries a
# download, which fails here).
for t in wasm32-unknown-unknown aarch64-apple-darwin x86_64-pc-windows-msvc aarch64-unknown-linux-gnu; do
  if ! rustup target list --installed | grep -qx "$t"; then
    say "rustup target add $t"
    rustup target add "$t"
  fi
done
for c in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$c"; then
    say "rustup component add $c"
    rustup component add "$c"
  fi
done
if ! command -v wasm-pack >/dev/null 2>&1; then
  say "cargo install wasm-pack"
  cargo install --locked wasm-pack
fi
wbg=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
if [ -n "$wbg" ] && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg" ]; then
  say "cargo install wasm-bindgen-cli $wbg"
  # Not --locked: its lock file names a webpki-roots that the registry no longer serves.
  cargo install --force wasm-bindgen-cli --version "$wbg"
fi

# Miri (on the nightly toolchain) checks the host runtime's unsafe code.
if ! rustup toolchain list | grep -q '^nightly'; then
  say "rustup toolchain install nightly (minimal, with miri)"
  rustup toolchain install nightly --profile minimal --component miri,rust-src
elif ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^miri'; then
  say "rustup component add miri rust-src --toolchain nightly"
  rustup component add miri rust-src --toolchain nightly
fi

# Python: the conversion oracles (gguf: llama.cpp's own package, which writes the GGUF
# files of the tests and reads their headers).
if ! python3 -c 'import numpy, ml_dtypes, gguf' >/dev/null 2>&1; then
  say "pip install numpy ml_dtypes gguf"
  python3 -m pip install -q --disable-pip-version-check numpy ml_dtypes 'gguf==0.19.0'
fi
# npm: playwright-core (drives Debian's chromium), http-server, binaryen (wasm-opt in
# the build), TypeScript and Vite (the package's checks), TensorFlow.js and
# onnxruntime-web (the web benchmarks), at package-lock.json's versions; again when the
# lock changes. No install script runs (esbuild and rollup come as their platform
# packages).
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.nxrig-lock 2>/dev/null)" != "$lock" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --ignore-scripts >/dev/null
  echo "$lock" > node_modules/.nxrig-lock
fi
say "ready"
