#include "report/recording.hpp"

#include "output_file.hpp"
#include "report/html_report.hpp"

namespace baton::cli {

namespace {
std::string g_command_line;
}

const std::string& command_line() {
  return g_command_line;
}

void set_command_line(int argc, const char* const* argv) {
  g_command_line = "baton";
  for (int i = 1; i < argc; ++i) g_command_line.append(" ").append(argv[i]);
}

Recording::Recording(std::string trace, std::string report)
    : trace_(std::move(trace)), report_(std::move(report)) {
  check_writable(trace_, "--trace");
  if (!report_.empty()) {
    prepare_report_dir(report_);
    if (trace_.empty()) trace_ = report_trace_path(report_);
  }
}

void Recording::start(Runtime& rt) {
  if (on()) traced_.emplace(rt);
}

void Recording::stop() {
  if (traced_) traced_->write(trace_);
  traced_.reset();
}

void Recording::report(const nlohmann::json& results) const {
  if (report_.empty()) return;
  write_report(report_, command_line(), results, read_trace_events(trace_));
}

}  // namespace baton::cli
