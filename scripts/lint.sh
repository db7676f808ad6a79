#!/usr/bin/env bash
# The checks CI runs before the tests (scripts/test.sh calls this; run it alone before a
# commit): formatting, clippy with warnings as errors on every target built (native
# with every feature, wasm32, aarch64), the docs with warnings as errors (native and
# wasm32, whose `web` module exists only there), the oldest Rust the crates claim
# (`rust-version`) building them, a library user's dependencies (no command line, no
# cdylib), and the crate as crates.io would get it (`cargo package`: the files, their
# size, and a build of the packaged crate).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's heading, with the seconds the step before it took (and the run so far).
step() {
  if [ -n "${step_at:-}" ]; then printf '=== (%d s; %d s in all)\n' $((SECONDS - step_at)) "$SECONDS"; fi
  step_at=$SECONDS
  printf '\n=== %s\n' "$*"
}

step "cargo fmt --check"
cargo fmt --all --check

step "clippy -D warnings: native (every target, every feature)"
cargo clippy --release --workspace --all-targets --features nxrig/cuda,nxrig-cli/cuda -- -D warnings

step "clippy -D warnings: wasm32 (the library, its browser tests, the npm package's module)"
cargo clippy --release --target wasm32-unknown-unknown -p nxrig -p nxrig-wasm --lib --tests -- -D warnings

step "clippy -D warnings: aarch64 (NEON)"
CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
  cargo clippy --release --target aarch64-unknown-linux-gnu --workspace --exclude nxrig-wasm --all-targets -- -D warnings

step "cargo doc -D warnings: native (with cuda) and wasm32"
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p nxrig --features cuda,capi
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p nxrig --target wasm32-unknown-unknown
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p nxrig-cli --bins

step "rust-version: the crates built with the oldest toolchain they claim"
rv=$(awk -F'"' '/^rust-version = / {print $2; exit}' Cargo.toml)
for m in cli/Cargo.toml wasm/Cargo.toml; do
  [ "$(awk -F'"' '/^rust-version = / {print $2; exit}' "$m")" = "$rv" ] || {
    echo "$m claims another rust-version than Cargo.toml's $rv" >&2
    exit 1
  }
done
tc=$(rustup toolchain list | awk -v rv="$rv" '$1 ~ "^"rv"(\\.0)?-" {print $1; exit}')
if [ -z "$tc" ]; then
  rustup toolchain install "$rv" --profile minimal
  tc=$rv
fi
echo "rust-version $rv: toolchain $tc ($(rustup run "$tc" rustc --version))"
rustup run "$tc" cargo check --release --workspace --all-targets --features nxrig/cuda,nxrig-cli/cuda

step "a library user's build: no command-line dependency, no cdylib"
if cargo tree -p nxrig -e normal,build --prefix none | grep -E '^(clap|indicatif|ctrlc) '; then
  echo "the library depends on the command line's crates" >&2
  exit 1
fi
if cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; m=json.load(sys.stdin); sys.exit(any("cdylib" in t["crate_types"] for p in m["packages"] if p["name"]=="nxrig" for t in p["targets"]))'; then
  echo "the library builds no cdylib"
else
  echo "the library builds a cdylib: every dependent would too" >&2
  exit 1
fi

step "cargo package: the library's files under crates.io's 10 MB, and the packaged crate builds"
cargo package -p nxrig --allow-dirty --no-verify --quiet
crate=target/package/nxrig-$(awk -F'"' '/^version = / {print $2; exit}' Cargo.toml).crate
size=$(stat -c %s "$crate")
echo "$crate: $(cargo package -p nxrig --allow-dirty --list 2>/dev/null | wc -l) files, $size bytes compressed"
[ "$size" -lt 10000000 ] || { echo "over crates.io's 10 MB" >&2; exit 1; }
cargo package -p nxrig --allow-dirty --quiet
printf '=== (%d s; %d s in all)\n' $((SECONDS - step_at)) "$SECONDS"
