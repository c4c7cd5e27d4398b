// baton's one exception family. Every error raised at the API boundary is a
// baton::Error with a code and the place (device, backend or input) it names.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace baton {

enum class Errc {
  invalid_argument,     // a bad value passed to the API or CLI
  bad_device_spec,      // --devices / BATON_DEVICES could not be parsed
  bad_topology,         // a topology file that is malformed or inconsistent
  backend_unavailable,  // a backend whose driver or library is missing
  out_of_memory,        // an allocation no memory could satisfy
  compile_failed,       // a kernel that failed to build (message carries the log)
  no_implementation,    // a kernel with no implementation for a device's backend
  device_failed,        // a vendor call failed on a device
  internal,             // a broken invariant inside baton
};

std::string_view to_string(Errc code);

class Error : public std::runtime_error {
 public:
  Error(Errc code, std::string where, const std::string& message);
  Errc code() const noexcept { return code_; }
  // What raised the error: a device name ("cuda0"), a backend ("opencl") or an input ("--devices").
  const std::string& where() const noexcept { return where_; }
  // The message alone, without the code and the place.
  const std::string& message() const noexcept { return message_; }

 private:
  Errc code_;
  std::string where_;
  std::string message_;
};

// All errors are thrown from here, which keeps templates and call sites small.
[[noreturn]] void raise(Errc code, std::string where, const std::string& message);

}  // namespace baton
