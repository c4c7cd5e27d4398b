#include "json_output.hpp"

#include <cstdio>
#include <fstream>

#include "baton/error.hpp"

namespace baton::cli {

bool emit_json(const nlohmann::json& doc, bool print, const std::string& file) {
  if (!file.empty()) {
    std::ofstream f(file);
    if (!f) raise(Errc::invalid_argument, "--json-out", "cannot write " + file);
    f << doc.dump(2) << "\n";
  }
  if (print) std::printf("%s\n", doc.dump(2).c_str());
  return print;
}

}  // namespace baton::cli
