#!/usr/bin/env bash
# Runs every test of the workspace. Installs the system packages it needs
# when it can (as root, with apt), or says exactly what to install.
#
#   ./scripts/test.sh            format check, clippy, then every test
#   PROPTEST_CASES=10000 ./scripts/test.sh    more property-test cases (default 256)
set -euo pipefail
cd "$(dirname "$0")/.."
# The GPU tests and window snapshots need a runtime directory of their own
# (Vulkan's loader and Mesa complain on every test without one).
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
  XDG_RUNTIME_DIR="$(mktemp -d)"
  chmod 700 "$XDG_RUNTIME_DIR"
  export XDG_RUNTIME_DIR
fi

have() { command -v "$1" >/dev/null 2>&1; }

# Debian packages the build needs, each with the command that shows it is there.
#   gcc: Box2D's C sources in the benchmark crate (boxdd-sys), and the linker.
#   python3, python3-venv: the 1€ filter's reference implementation (PyPI), in a venv.
missing=()
have cc || missing+=(gcc)
#   g++: Adobe's XMP Toolkit (C++), built by the xmp_toolkit crate (photo's metadata).
have c++ || missing+=(g++)
#   cmake, pkg-config: libheif 1.23, built by libheif-sys (Debian 12 has 1.15,
#   older than any binding supports); libde265-dev, libdav1d-dev: its HEVC
#   (HEIC) and AV1 (AVIF) decoders; libjpeg-dev: JPEG-coded HEIF.
have cmake || missing+=(cmake)
have make || missing+=(make)
have pkg-config || missing+=(pkg-config)
if have pkg-config; then
  pkg-config --exists libde265 || missing+=(libde265-dev)
  pkg-config --exists dav1d || missing+=(libdav1d-dev)
  pkg-config --exists libjpeg || missing+=(libjpeg-dev)
  #   libraw-dev: LibRaw, camera RAW previews (photo's raw/preview.c).
  pkg-config --exists libraw_r || missing+=(libraw-dev)
  #   liblcms2-dev: Little CMS, embedded colour profiles to sRGB.
  pkg-config --exists lcms2 || missing+=(liblcms2-dev)
else
  missing+=(libde265-dev libdav1d-dev libjpeg-dev libraw-dev liblcms2-dev)
fi
have python3 || missing+=(python3)
if have python3 && ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then missing+=(python3-venv); fi
#   util-linux (setpriv): as root, viewer2's unreadable-folder test runs the
#   indexer as `nobody`, since root reads any folder.
#   util-linux (prlimit): viewer2's full-disk test limits the file size.
if [ "$(id -u)" = 0 ]; then have setpriv || missing+=(util-linux); fi
have prlimit || { [[ " ${missing[*]-} " == *" util-linux "* ]] || missing+=(util-linux); }

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
# Optional: without them, the tests that need them print a SKIPPED line.
#   mesa-vulkan-drivers: lavapipe, for the GPU tests and window snapshots.
#   xvfb (+ X client libraries): viewer2's end-to-end window test.
#   openbox: the window manager its full-screen check runs under.
optional=()
have Xvfb || optional+=(xvfb libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0 libegl1)
have openbox || optional+=(openbox)
#   libimage-exiftool-perl: exiftool, the oracle the metadata tests compare with.
have exiftool || optional+=(libimage-exiftool-perl)
#   libheif-examples: heif-enc and heif-convert, which make the HEIC and AVIF
#   test files and decode them as the oracle; libjxl-tools: cjxl and djxl,
#   the same for JPEG XL.
have heif-enc || optional+=(libheif-examples)
have cjxl || optional+=(libjxl-tools)
#   imagemagick: convert, the oracle of the colour and orientation test.
convert -version 2>/dev/null | grep -q ImageMagick || optional+=(imagemagick)
#   desktop-file-utils: calculon's installed .desktop entry is validated.
have desktop-file-validate || optional+=(desktop-file-utils)
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || optional+=(mesa-vulkan-drivers)
#   fonts-dejavu-core: the labels of signals-report's plots.
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || optional+=(fonts-dejavu-core)
if ((${#optional[@]})); then
  echo "note: some tests will be skipped; for all of them: sudo apt-get install ${optional[*]}" >&2
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
# The 1€ filter's reference trace (crates/signals/tests/reference) must be what
# the authors' implementation writes today: install it from PyPI into a venv
# under target/ and compare. REQUIRE_PY_REFERENCE=1 (CI) makes a failure to
# install fatal; otherwise it is skipped with a note (the Rust test still
# replays the committed trace).
# The same venv carries pygame-ce and numpy for collide's mask comparison
# (crates/collide/tests/mask_pygame.rs runs them; it fails without them when
# REQUIRE_PY_REFERENCE=1), mpmath for calculon's digit-by-digit check
# (crates/calculon/tests/mpmath.rs) and gmpy2 (GMP) for its big integers
# (crates/calculon/tests/big_integers.rs).
venv=target/py-venv
if ! "$venv/bin/python" -c "import OneEuroFilter, pygame, numpy, mpmath, gmpy2" >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv" >/dev/null 2>&1 \
    && "$venv/bin/pip" install --quiet OneEuroFilter==0.2.1 pygame-ce==2.5.8 numpy==2.4.6 mpmath==1.3.0 gmpy2==2.3.2 || true
fi
if "$venv/bin/python" -c "import OneEuroFilter" >/dev/null 2>&1; then
  "$venv/bin/python" crates/signals/tests/reference/one_euro.py --check
elif [ "${REQUIRE_PY_REFERENCE:-0}" = 1 ]; then
  echo "could not install OneEuroFilter 0.2.1 from PyPI into $venv (network?)" >&2
  exit 1
else
  echo "skipping the 1€ reference check: OneEuroFilter 0.2.1 could not be installed from PyPI"
fi
# Documentation links must resolve.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
# Builds every crate, example and the benchmark binary; runs every test.
# Their own output is kept (a passing test's is hidden otherwise), so the
# run ends with every test that could not check what it is for, and why:
# each prints a line starting SKIPPED.
log=target/test-output.log
mkdir -p target
set +e
cargo test --workspace --locked -- --nocapture 2>&1 | tee "$log" \
  | grep -E --line-buffered '^(test result|running |error|warning: unused|thread .* panicked)'
status=${PIPESTATUS[0]}
set -e
skipped=$(grep -v '^test ' "$log" | grep -oE '(SKIPPED|skipped)[: ].*' | sort | uniq -c || true)
echo
if [ -n "$skipped" ]; then
  echo "skipped (the full output is in $log):"
  echo "$skipped"
else
  echo "no test skipped (the full output is in $log)"
fi
if [ "$status" != 0 ]; then
  grep -A40 '^failures:' "$log" >&2 || true
  echo "cargo test failed (exit $status); see $log" >&2
  exit "$status"
fi
# Every link between the markdown files resolves, and every command the
# READMEs show answers `--help` as written: its binary and flags exist.
cargo build --workspace --bins --examples --locked --quiet
python3 scripts/check_docs.py
