#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs (those missing), then
# configures and builds one CMake preset (default: release).
#   scripts/setup.sh [preset] [extra cmake -D options...]
# BATON_SETUP=main sets up only what the main job runs (scripts/bench.sh):
# the build's own packages and the baton CLI; the default, all, adds what the
# tests and benchmarks use (competitors, Chromium, PyTorch) and builds them.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
scope="${BATON_SETUP:-all}"
need=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
      nlohmann-json3-dev libhwloc-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
      libopenblas-dev libclblast-dev openmpi-bin libopenmpi-dev)
if [ "$scope" != main ]; then
  need+=(libtbb-dev libstarpu-dev chromium
         python3-dev pybind11-dev python3-pytest python3-numpy python3-torch python3-torchvision)
fi
# The asan preset builds with clang, which also builds the libFuzzer targets.
[ "$preset" = asan ] && need+=(clang libclang-rt-14-dev)
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The main job's build is a unity build: 123 s instead of 206 s for the CLI
# on 2 cores. The tests, benchmarks and sanitizer builds compile each file
# alone, so a missing include still shows.
unity=OFF
[ "$scope" = main ] && unity=ON
cmake --preset "$preset" -DCMAKE_UNITY_BUILD="$unity" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "$@" >/dev/null
if [ "$scope" = main ]; then
  cmake --build --preset "$preset" --target baton_cli
else
  cmake --build --preset "$preset"
fi
