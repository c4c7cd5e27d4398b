#!/usr/bin/env bash
# Unpacks the Debian packages the build needs into .deps/root, to be carried to
# the device machine (which reaches no package registry). Run here, not there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
(cd .deps/debs && apt-get download libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev \
  libbenchmark-dev libbenchmark1debian libhwloc-dev libhwloc15 \
  libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread libgfortran5)
for f in .deps/debs/*.deb; do dpkg -x "$f" .deps/root; done
rm -rf .deps/debs
# Only OpenBLAS's shared library is linked: its archive and the BLAS/LAPACK
# alternatives stay behind (the carry is bounded).
find .deps/root \( -name 'libopenblas*.a' -o -name 'liblapack*' -o -name 'libblas*' \) -delete
