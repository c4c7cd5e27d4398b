// Opens a Runtime for a test written once per backend: null, with the reason
// in `skip_reason`, where the backend is not on this machine (the test skips
// visibly); any other error is the test's.
#pragma once

#include <memory>
#include <string>

#include "baton/error.hpp"
#include "baton/runtime.hpp"

namespace baton::test {

inline std::unique_ptr<Runtime> open_or_skip(const Options& options, std::string& skip_reason) {
  try {
    return std::make_unique<Runtime>(options);
  } catch (const Error& e) {
    if (e.code() != Errc::backend_unavailable) throw;
    skip_reason = e.what();
    return nullptr;
  }
}

}  // namespace baton::test
