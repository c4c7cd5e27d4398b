#include <cctype>

#include "baton/devices.hpp"
#include "baton/error.hpp"

namespace baton {

// An item starts with a backend word: letters, then ':' or the end.
static bool starts_item(const std::string& tok) {
  std::size_t i = 0;
  while (i < tok.size() && std::islower(static_cast<unsigned char>(tok[i]))) ++i;
  return i > 0 && (i == tok.size() || tok[i] == ':');
}

std::vector<SpecItem> parse_device_spec(const std::string& spec) {
  if (spec.empty()) raise(Errc::bad_device_spec, "--devices", "the device spec is empty");
  std::vector<SpecItem> items;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string tok =
        spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    if (tok.empty()) raise(Errc::bad_device_spec, "--devices", "empty item in '" + spec + "'");
    if (starts_item(tok)) {
      std::size_t colon = tok.find(':');
      SpecItem item{tok.substr(0, colon), colon == std::string::npos ? "" : tok.substr(colon + 1)};
      if (colon != std::string::npos && item.args.empty())
        raise(Errc::bad_device_spec, "--devices", "'" + tok + "' has nothing after ':'");
      items.push_back(std::move(item));
    } else if (!items.empty() && !items.back().args.empty() &&
               std::isdigit(static_cast<unsigned char>(tok[0]))) {
      items.back().args += "," + tok;  // "sim:8,4": the 4 belongs to sim
    } else {
      raise(Errc::bad_device_spec, "--devices",
            "'" + tok + "' is not a device (expected e.g. cpu, cpu:2, sim:8,4, cuda:0, opencl)");
    }
  }
  return items;
}

}  // namespace baton
