#include "commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "cli_app.hpp"

namespace py = pybind11;

namespace baton::python {

namespace {

// While alive, what the process writes to stdout goes nowhere: a command's
// table, when the caller wants only its dict.
class SilencedStdout {
 public:
  SilencedStdout() {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    if (null >= 0) close(null);
  }
  ~SilencedStdout() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
    }
  }
  SilencedStdout(const SilencedStdout&) = delete;
  SilencedStdout& operator=(const SilencedStdout&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace

void bind_commands(py::module_& m) {
  m.def(
      "run_command",
      [](const std::vector<std::string>& args, bool echo) {
        py::gil_scoped_release nogil;
        if (echo) {
          cli::run_command(args);
          std::fflush(stdout);
        } else {
          SilencedStdout quiet;
          cli::run_command(args);
        }
      },
      py::arg("args"), py::arg("echo") = false,
      "Runs a baton command line (without 'baton') in this process; echo=False "
      "keeps its table off stdout. Errors raise as baton.Error's subclasses.");
}

}  // namespace baton::python
