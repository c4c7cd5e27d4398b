// Reading a whole input file (topology, sim machine, performance models) as
// text, refusing what is not a regular file: a path such as /dev/zero or a
// FIFO would otherwise be read forever.
#pragma once

#include <string>

#include "baton/error.hpp"

namespace baton::detail {

// The file's bytes. Throws Error(code, path) saying "cannot open the <what>"
// or "<what> is not a regular file".
std::string read_text_file(const std::string& path, Errc code, const std::string& what);

}  // namespace baton::detail
