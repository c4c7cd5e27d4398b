#include "common/text_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace baton::detail {

void require_regular_file(const std::string& path, Errc code, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) raise(code, path, "cannot open the " + what);
  if (!std::filesystem::is_regular_file(status))
    raise(code, path, "the " + what + " is not a regular file");
}

std::string read_text_file(const std::string& path, Errc code, const std::string& what) {
  require_regular_file(path, code, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) raise(code, path, "cannot open the " + what);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace baton::detail
