#!/usr/bin/env bash
# The figures the READMEs give for a real GPU, in one run: collide-gpu's GPU
# tests, its sprite and mesh benchmarks and 3-D demo, and retarget's `--gpu`
# batch. For a machine with the GPU but without Rust or a registry, pack the
# release binaries here first, carry the archive there, and run from it:
#
#   scripts/gpu-figures.sh pack target/gpu-figures.tar.gz   # here: builds, strips, packs (~25 MB)
#   scripts/gpu-figures.sh run OUT target/gpu-figures.tar.gz # there: every figure into OUT
#   scripts/gpu-figures.sh run OUT                           # where cargo works: builds, then runs
#
# Every step's output goes to OUT/figures.log under its name; the run goes
# on past a failed step and ends non-zero if any failed. REQUIRE_GPU=1 is
# set, so a machine without an adapter fails the tests, never skips them.
set -uo pipefail
cd "$(dirname "$0")/.."

build() {
  cargo build --release --locked -p collide-bench --bin gpu_masks --bin gpu_meshes &&
    cargo build --release --locked -p collide-gpu --example meshes3d &&
    cargo build --release --locked -p retarget -p retarget-bench --bins
}

# The collide-gpu test binaries cargo builds (their names carry a hash).
test_binaries() {
  cargo test --release --locked -p collide-gpu --no-run 2>&1 |
    sed -n 's/.*(\(target\/release\/deps\/[A-Za-z0-9_-]*\)).*/\1/p'
}

case "${1:-}" in
pack)
  archive=${2:?usage: scripts/gpu-figures.sh pack ARCHIVE.tar.gz}
  build || exit 1
  staging=$(mktemp -d)
  mkdir -p "$staging/bin/tests"
  cp target/release/gpu_masks target/release/gpu_meshes target/release/examples/meshes3d \
    target/release/retarget target/release/retarget-bench "$staging/bin/"
  tests=$(test_binaries)
  [ -n "$tests" ] || { echo "no collide-gpu test binaries found" >&2; exit 1; }
  for t in $tests; do cp "$t" "$staging/bin/tests/"; done
  strip "$staging"/bin/* "$staging"/bin/tests/* 2>/dev/null
  mkdir -p "$(dirname "$archive")"
  tar -czf "$archive" -C "$staging" bin
  rm -rf "$staging"
  echo "packed $(du -h "$archive" | cut -f1) into $archive"
  ;;
run)
  out=${2:?usage: scripts/gpu-figures.sh run OUT [ARCHIVE.tar.gz]}
  mkdir -p "$out"
  if [ -n "${3:-}" ]; then
    bin=$(mktemp -d)
    tar -xzf "$3" -C "$bin" || exit 1
    bin=$bin/bin
    tests=$(ls "$bin"/tests/*)
  else
    build || exit 1
    bin=target/release
    cp target/release/examples/meshes3d target/release/meshes3d-example
    tests=$(test_binaries)
  fi
  export REQUIRE_GPU=1
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
  failed=0
  # One log (a device lease brings back few files), each step under its
  # name; the summary on the terminal.
  log=$out/figures.log
  step() {
    local name=$1
    shift
    echo "== $name: $*" | tee -a "$log"
    local start=$SECONDS
    if "$@" >"$out/step.txt" 2>&1; then
      echo "   ok in $((SECONDS - start)) s" | tee -a "$log"
    else
      echo "   FAILED (exit $?) in $((SECONDS - start)) s; the end of its output:"
      tail -20 "$out/step.txt"
      echo "   FAILED in $((SECONDS - start)) s" >>"$log"
      failed=1
    fi
    cat "$out/step.txt" >>"$log"
    rm -f "$out/step.txt"
  }
  : >"$log"
  step machine sh -c 'nvidia-smi -L || echo "no nvidia-smi"; uname -a; nproc'

  for t in $tests; do
    # The GPU tests' own output names the adapter and what its queries give.
    step "test-$(basename "$t" | sed 's/-[0-9a-f]*$//')" "$t" --nocapture
  done
  step gpu_masks "$bin/gpu_masks"
  step gpu_meshes "$bin/gpu_meshes"
  meshes3d=$bin/meshes3d
  [ -x "$meshes3d" ] || meshes3d=target/release/meshes3d-example
  # Its frames stay behind (OUT brings back few files); the timings print.
  step meshes3d "$meshes3d" "$(mktemp -d)" 60
  # retarget: four copies of the generated 4000×4000 8-bit photo (`--gpu`
  # takes 8-bit images), the device started once; RUST_LOG=info prints
  # where the time goes.
  images=$(mktemp -d)
  step retarget-images "$bin/retarget-bench" memory-images --side 4000 --dir "$images"
  for k in 1 2 3 4; do cp "$images/photo-8.png" "$images/p$k.png"; done
  mkdir -p "$images/out-gpu" "$images/out-cpu"
  export NO_COLOR=1
  step retarget-gpu env RUST_LOG=info "$bin/retarget" "$images"/p?.png --width 60% --gpu -o "$images/out-gpu"
  step retarget-cpu env RUST_LOG=info "$bin/retarget" "$images"/p?.png --width 60% -o "$images/out-cpu"
  exit $failed
  ;;
*)
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
