# cmake -DINPUT=<fatbin> -DOUTPUT=<cpp> -P embed_fatbin.cmake
# Writes a C++ file defining baton::detail::builtin_cuda_fatbin() over the bytes.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
# 16 bytes a line.
set(bytes "")
foreach(at RANGE 0 ${digits} 32)
  string(SUBSTRING "${hex}" ${at} 32 line)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," line "${line}")
  string(APPEND bytes "  ${line}\n")
endforeach()
file(WRITE "${OUTPUT}" "// Generated from kernels_cuda.fatbin by embed_fatbin.cmake: do not edit.
#include \"device/cuda/builtin_fatbin.hpp\"

namespace baton::detail {

// Fatbins are read as 8-byte words by the driver.
alignas(8) static const unsigned char kFatbin[${size}] = {
${bytes}};

std::span<const unsigned char> builtin_cuda_fatbin() { return {kFatbin, sizeof kFatbin}; }

}  // namespace baton::detail
")
