# Sourced: `gpu_test_targets DIR` prints what the tests labelled gpu need in
# the configured build DIR: the CLI, the README example and each gpu test's
# executable (tests/<its name>), one a line, so that a call builds those and
# no more.
gpu_test_targets() {
  local name
  printf "%s\n" baton_cli tests/readme_example
  for name in $(cd "$1" && ctest -N -L gpu | awk '/Test +#/ {print $3}'); do
    ninja -C "$1" -t query "tests/$name" >/dev/null 2>&1 && echo "tests/$name"
  done
}
