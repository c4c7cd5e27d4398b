# Sourced by the bench/*/run_gpu.sh scripts on the GPU host: $out (from $OUT),
# the machine in env.log, a release build in build/gpu, and the test suite
# with each skip's reason unless TESTS=0 (TESTS=gpu: the tests labelled gpu).
out=${OUT:-/tmp/baton-gpu}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 BATON_PERF_MODEL_FILE=
{ date -u; nvidia-smi; nproc; } >"$out/env.log" 2>&1
# TESTS=gpu or 0 builds the CLI and the gpu tests' executables only (each
# is tests/<its name>, the README example's tests/readme_example): the device
# time a build of every test takes goes to the runs instead.
targets=()
if [ "${TESTS:-1}" != 1 ]; then
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1
  source bench/gpu_test_targets.sh
  mapfile -t targets < <(gpu_test_targets build/gpu)
fi
start=$(date +%s)
{ cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build/gpu "${targets[@]}"; } \
  >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build ok in $(($(date +%s) - start)) s"
if [ "${TESTS:-1}" != 0 ]; then
  label=()
  [ "${TESTS:-1}" = gpu ] && label=(-L gpu)
  (cd build/gpu && ctest -j 4 "${label[@]}" --output-on-failure --timeout 240) >"$out/tests.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*|Passed" "$out/tests.log" | tail -60
  # Why tests skipped (ctest says "Skipped" only where every case of an executable did).
  grep -A1 ": Skipped$" build/gpu/Testing/Temporary/LastTest.log | grep -vE "^--$|: Skipped$" |
    sort | uniq -c | head -20
fi
