// Files a command writes after its runs (--json-out, --trace) or steps into
// them (--checkpoint): a path that cannot be written fails before the first run.
#pragma once

#include <string>

namespace baton::cli {

// Raises invalid_argument naming `option` unless `path` could be written now:
// an existing file that is writable, or a new one in a writable folder. An
// empty path (the option not given) passes.
void check_writable(const std::string& path, const char* option);

}  // namespace baton::cli
