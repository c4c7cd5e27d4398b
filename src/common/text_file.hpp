// Reading a whole input file (topology, sim machine, performance models) as
// text, refusing what is not a regular file: a path such as /dev/zero or a
// FIFO would otherwise be read forever.
#pragma once

#include <string>

#include "baton/error.hpp"

namespace baton::detail {

// Throws Error(code, path) saying "cannot open the <what>" or "the <what> is
// not a regular file" (a device such as /dev/zero, a FIFO, a folder).
void require_regular_file(const std::string& path, Errc code, const std::string& what);
// The file's bytes, once require_regular_file() let it through.
std::string read_text_file(const std::string& path, Errc code, const std::string& what);

}  // namespace baton::detail
