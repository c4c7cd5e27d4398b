// Plain-text tables, number formatting and option lists for the CLI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str() const;  // columns padded, a rule under the header

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string fixed(double v, int decimals);
std::string percent(double share, int decimals);  // 0.123 -> "12.3 %"
std::string bytes(std::uint64_t b);               // "1.5 GiB"
std::string si(double v);                         // "1.25 G"
std::string seconds(double s);                    // "12.3 ms"

// `lead`, then a line per policy: "  name: description" (for --help).
std::string policy_help(const std::string& lead);

// The items of a comma-separated list ("static,ws"); an empty item
// ("1,,2", "ws,") is an error naming `option`.
std::vector<std::string> list_items(const std::string& list, const char* option);

// A progress line on stderr, rewritten in place, only when stderr is a terminal.
void progress(const std::string& line);
void progress_done();
// A line on stderr that stays (a finished step of a long run), terminal or not:
// a run cut short still leaves what it measured.
void progress_result(const std::string& line);

}  // namespace baton::cli
