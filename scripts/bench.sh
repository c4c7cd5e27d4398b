#!/usr/bin/env bash
# The main job: set up and build, then the training benchmark on every
# detected device (GPUs, the CPU, OpenCL devices that can train): data-parallel
# training of an MLP on 1, 2, 4, ... of them under each policy beside static.
# Arguments go to `baton train` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the job runs: the CLI (scripts/test.sh builds the rest).
BATON_SETUP=main scripts/setup.sh release >/dev/null
exec build/release/baton train --devices "${BATON_DEVICES:-auto}" "$@"
