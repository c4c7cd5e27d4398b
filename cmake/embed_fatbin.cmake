# cmake -DINPUT=<fatbin> -DOUTPUT=<cpp> -DHEADER=<h> -DFUNCTION=<ns::name> -P embed_fatbin.cmake
# Writes a C++ file defining FUNCTION(), declared in HEADER, over the bytes
# (baton_cuda_fatbin in CudaFatbin.cmake runs it).
if(NOT HEADER OR NOT FUNCTION)
  message(FATAL_ERROR "embed_fatbin.cmake: give -DHEADER and -DFUNCTION")
endif()
string(REGEX REPLACE "::[^:]*$" "" ns "${FUNCTION}")
string(REGEX REPLACE "^.*::" "" name "${FUNCTION}")
get_filename_component(source "${INPUT}" NAME)
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
file(WRITE "${OUTPUT}" "// Generated from ${source} by embed_fatbin.cmake: do not edit.
#include \"${HEADER}\"

namespace ${ns} {

// Fatbins are read as 8-byte words by the driver.
alignas(8) static const unsigned char kFatbin[${size}] = {
${bytes}};

std::span<const unsigned char> ${name}() { return {kFatbin, sizeof kFatbin}; }

}  // namespace ${ns}
")
