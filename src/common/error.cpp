#include "baton/error.hpp"

namespace baton {

std::string_view to_string(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid argument";
    case Errc::bad_device_spec:
      return "bad device spec";
    case Errc::bad_topology:
      return "bad topology";
    case Errc::backend_unavailable:
      return "backend unavailable";
    case Errc::out_of_memory:
      return "out of memory";
    case Errc::compile_failed:
      return "kernel compilation failed";
    case Errc::no_implementation:
      return "no kernel implementation";
    case Errc::device_failed:
      return "device failed";
    case Errc::internal:
      return "internal error";
  }
  return "unknown error";
}

static std::string compose(Errc code, const std::string& where, const std::string& message) {
  std::string s{to_string(code)};
  if (!where.empty()) s += " (" + where + ")";
  return s + ": " + message;
}

Error::Error(Errc code, std::string where, const std::string& message)
    : std::runtime_error(compose(code, where, message)),
      code_(code),
      where_(std::move(where)),
      message_(message) {}

void raise(Errc code, std::string where, const std::string& message) {
  throw Error(code, std::move(where), message);
}

}  // namespace baton
