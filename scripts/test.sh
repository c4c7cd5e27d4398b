#!/usr/bin/env bash
# Set up and build, then run the test suite (GPU tests skip, visibly, without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
ctest --preset release -j 2 "$@"
