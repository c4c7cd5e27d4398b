#include "submit/fault.hpp"

#include <charconv>
#include <sstream>

#include "baton/error.hpp"

namespace baton::detail {

std::vector<long long> parse_faults(const std::string& spec,
                                    const std::vector<std::string>& names) {
  std::vector<long long> after(names.size(), -1);
  std::stringstream items(spec);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty()) continue;
    const std::size_t colon = item.find(':');
    const std::string device = item.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : item.substr(colon + 1);
    long long n = -1;
    const char* num = rest.c_str() + 6;
    const char* end = rest.c_str() + rest.size();
    if (rest.rfind("after=", 0) != 0 || std::from_chars(num, end, n).ptr != end || n < 0)
      raise(Errc::invalid_argument, "BATON_FAULT",
            "'" + item + "' is not DEVICE:after=N (e.g. cpu1:after=100)");
    std::size_t d = 0;
    while (d < names.size() && names[d] != device) ++d;
    if (d == names.size()) {
      std::string known;
      for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
      raise(Errc::invalid_argument, "BATON_FAULT",
            "no device named '" + device + "' (devices: " + known + ")");
    }
    after[d] = n;
  }
  return after;
}

}  // namespace baton::detail
