#include "output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "baton/error.hpp"

namespace baton::cli {

void check_writable(const std::string& path, const char* option) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  const auto fail = [&](const std::string& why) {
    raise(Errc::invalid_argument, option, "cannot write '" + path + "': " + why);
  };
  if (fs::is_directory(file, ec)) fail("it is a folder");
  const bool exists = fs::exists(file, ec);
  if (!exists && !fs::is_directory(folder, ec)) fail("no folder '" + folder.string() + "'");
  // Tried as it will be written, without truncating what is there; where it
  // is new, a file of a name of its own is made beside it and removed
  // (access() says yes to root on a read-only file system, and the processes
  // of a job check the same path at once).
  std::string probe = path + ".XXXXXX";
  const int fd = exists ? ::open(path.c_str(), O_WRONLY) : ::mkstemp(probe.data());
  if (fd < 0) fail(std::strerror(errno));
  ::close(fd);
  if (!exists) ::unlink(probe.c_str());
}

}  // namespace baton::cli
