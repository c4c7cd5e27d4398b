# Source this on the device machine (the GPU host has no Debian packages):
# the carried folder .deps/root holds GoogleTest, Google Benchmark, CLI11,
# nlohmann-json, hwloc and OpenBLAS unpacked from Debian's packages
# (scripts/fetch-device-deps.sh). Their pkg-config files name /usr: the
# sysroot points them at the carried tree.
root="$(pwd)/.deps/root"
blas="$root/usr/lib/x86_64-linux-gnu/openblas-pthread"
export CMAKE_PREFIX_PATH="$root/usr:$root/usr/lib/x86_64-linux-gnu/cmake:$root/usr/share/cmake${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export PKG_CONFIG_PATH="$root/usr/lib/x86_64-linux-gnu/pkgconfig:$blas/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$root"
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0
# NCCL (opened at run time by src/collective/nccl.cpp): the GPU host has it
# in PyTorch's wheel, not in the toolkit.
nccl_lib="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)"
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$nccl_lib"
