#!/usr/bin/env bash
# The main job: set up and build, then balance one compute-bound kernel over
# every detected device (the CPU, OpenCL devices, GPUs) under each policy.
# Arguments go to `baton bench balance` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release >/dev/null
exec build/release/baton bench balance --devices "${BATON_DEVICES:-auto}" "$@"
