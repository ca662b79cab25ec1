#!/usr/bin/env bash
# Runs every test of the workspace. Installs the system packages it needs
# when it can (as root, with apt), or says exactly what to install.
#
#   ./scripts/test.sh            format check, clippy, then every test
#   PROPTEST_CASES=10000 ./scripts/test.sh    more property-test cases (default 256)
set -euo pipefail
cd "$(dirname "$0")/.."

have() { command -v "$1" >/dev/null 2>&1; }

# Debian packages the build needs, each with the command that shows it is there.
#   gcc: Box2D's C sources in the benchmark crate (boxdd-sys), and the linker.
missing=()
have cc || missing+=(gcc)

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ] && have apt-get; then
    echo "installing: ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    echo "missing system packages: ${missing[*]}" >&2
    echo "install them with:  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
if ! have cargo; then
  echo "cargo not found: install Rust 1.95 or later (https://rustup.rs)" >&2
  exit 1
fi

if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "skipping the format check: rustfmt is not installed (rustup component add rustfmt)"
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "skipping clippy: it is not installed (rustup component add clippy)"
fi
# Documentation links must resolve.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
# Builds every crate, example and the benchmark binary; runs every test.
cargo test --workspace --locked
