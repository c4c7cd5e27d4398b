// The JSON side of the bench commands: --json-out writes the document to a
// file, --json prints it instead of the table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace baton::cli {

// Writes `doc` to `file` (if not empty); prints it and returns true when
// `print` is set, in which case the caller prints nothing else.
bool emit_json(const nlohmann::json& doc, bool print, const std::string& file);

}  // namespace baton::cli
