#include "table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "baton/error.hpp"
#include "sched/policy.hpp"

namespace baton::cli {

std::string Table::str() const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::string out;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    std::string line;
    for (std::size_t c = 0; c < rows_[i].size(); ++c) {
      line += rows_[i][c];
      if (c + 1 < rows_[i].size()) line += std::string(width[c] - rows_[i][c].size() + 2, ' ');
    }
    out += line + "\n";
    if (i == 0) {
      std::size_t total = 0;
      for (std::size_t w : width) total += w + 2;
      out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent(double share, int decimals) {
  return fixed(100 * share, decimals) + " %";
}

std::string bytes(std::uint64_t b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return fixed(v, u ? 1 : 0) + " " + unit[u];
}

std::vector<std::string> list_items(const std::string& list, const char* option) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = list.find(',', pos);
    out.push_back(list.substr(pos, comma == std::string::npos ? comma : comma - pos));
    if (out.back().empty()) raise(Errc::invalid_argument, option, "empty item in '" + list + "'");
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

std::string si(double v) {
  const char* unit[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (v >= 1000 && u < 4) v /= 1000, ++u;
  return fixed(v, 2) + unit[u];
}

std::string seconds(double s) {
  if (s >= 1) return fixed(s, 3) + " s";
  if (s >= 1e-3) return fixed(s * 1e3, 3) + " ms";
  return fixed(s * 1e6, 1) + " us";
}

std::string policy_help(const std::string& lead) {
  std::string help = lead;
  for (const auto& p : detail::policies()) help += "\n  " + p.name + ": " + p.description;
  return help;
}

void progress(const std::string& line) {
  if (!isatty(STDERR_FILENO)) return;
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void progress_result(const std::string& line) {
  progress_done();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void progress_done() {
  if (!isatty(STDERR_FILENO)) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace baton::cli
