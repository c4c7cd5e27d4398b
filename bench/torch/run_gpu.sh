#!/usr/bin/env bash
# One call on the GPU host for baton.torch (issue 47): builds the Python
# package against the host's python3 (PyTorch 2.11), then the parts in PARTS:
#   ctest     the C++ tests labelled gpu, built in the same tree
#   tests     the package's gpu tests (pytest -m gpu)
#   resnet50, gpt  bench_torch.py for ResNet-50 and the GPT decoder
#   ddp       two ranks of ResNet-50 on 96 and 32 SMs (ddp_gpu.py, issue 48)
# Logs and JSON in $OUT.
#   source scripts/device-env.sh; PARTS="ctest tests resnet50 gpt ddp" bash bench/run_gpu.sh torch
set -uo pipefail
out=${OUT:-/tmp/baton-gpu}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 BATON_PERF_MODEL_FILE= PYTHONUNBUFFERED=1
{ date -u; nvidia-smi; python3 -c 'import torch; print(torch.__version__)'; } >"$out/env.log" 2>&1
start=$(date +%s)
{ cmake -S . -B build/gpu-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_BUILD_BENCH=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" &&
  ninja -C build/gpu-py baton_python; } >"$out/build_py.log" 2>&1 || { tail -40 "$out/build_py.log"; exit 1; }
echo "build ok in $(($(date +%s) - start)) s"
export PYTHONPATH=$PWD/build/gpu-py/python
for part in ${PARTS:-tests resnet50 gpt ddp}; do
  case $part in
    ctest)
      source bench/gpu_test_targets.sh
      ninja -C build/gpu-py $(gpu_test_targets build/gpu-py) >>"$out/build_py.log" 2>&1 || tail -20 "$out/build_py.log"
      (cd build/gpu-py && timeout 240 ctest -j 4 -L gpu -E python --output-on-failure --timeout 120) \
        >"$out/ctest_gpu.log" 2>&1
      grep -E "tests passed|Failed|\*\*\*" "$out/ctest_gpu.log" | tail -30 ;;
    tests)
      timeout ${PYTEST_S:-300} python3 -m pytest -q -rs -p no:cacheprovider -m gpu python/tests -s \
        >"$out/pytest_gpu.log" 2>&1
      grep -E "passed|failed|GEMM|Error" "$out/pytest_gpu.log" | tail -20 ;;
    resnet50)
      timeout ${BENCH_S:-400} python3 bench/torch/bench_torch.py --model resnet50 --batch 256 --micro-batch 16 \
        --json-out "$out/torch_resnet50.json" 2>&1 | tee "$out/torch_resnet50.log" | tail -12 ;;
    gpt)
      timeout ${BENCH_S:-400} python3 bench/torch/bench_torch.py --model gpt --batch 16 --micro-batch 1 \
        --json-out "$out/torch_gpt.json" 2>&1 | tee "$out/torch_gpt.log" | tail -12 ;;
    ddp)
      timeout ${BENCH_S:-400} python3 -m torch.distributed.run --standalone --nproc_per_node 2 \
        bench/torch/ddp_gpu.py --sms 96,32 --json-out "$out/torch_ddp.json" 2>&1 |
        tee "$out/torch_ddp.log" | tail -6 ;;
  esac
done
