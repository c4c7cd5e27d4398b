#include "device/opencl/opencl_spec.hpp"

#include <charconv>
#include <optional>

#include "baton/error.hpp"

namespace baton::detail::opencl {

namespace {

const std::string kWhere = "opencl";

// A plain decimal index: digits only, no sign, no blanks.
std::optional<int> parse_index(std::string_view text) {
  int value = 0;
  if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "0: Portable Computing Language, 1: NVIDIA CUDA"
std::string listing(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + std::to_string(i) + ": " + names[i];
  return s;
}

std::string platform_listing(const std::vector<ClPlatform>& platforms) {
  std::vector<std::string> names;
  for (const ClPlatform& p : platforms) names.push_back(p.name);
  return "there are " + std::to_string(platforms.size()) + " platforms (" + listing(names) + ")";
}

void add_platform(std::vector<ClDeviceIndex>& out, const std::vector<ClPlatform>& platforms,
                  int p) {
  for (int d = 0; d < int(platforms[p].devices.size()); ++d) out.push_back({p, d});
}

}  // namespace

std::vector<ClDeviceIndex> select_devices(const std::string& args,
                                          const std::vector<ClPlatform>& platforms) {
  const std::string spec = args.empty() ? "opencl" : "opencl:" + args;
  std::vector<ClDeviceIndex> out;
  if (args.empty()) {
    for (int p = 0; p < int(platforms.size()); ++p) add_platform(out, platforms, p);
    if (out.empty())
      raise(Errc::backend_unavailable, kWhere,
            "no OpenCL device: " + platform_listing(platforms) + ", none with a device");
    return out;
  }

  const std::size_t dot = args.find('.');
  const std::optional<int> p = parse_index(std::string_view(args).substr(0, dot));
  const std::optional<int> d =
      dot == std::string::npos ? std::optional<int>(-1) : parse_index(args.substr(dot + 1));
  if (!p || !d)
    raise(Errc::bad_device_spec, kWhere,
          spec + ": expected opencl, opencl:P or opencl:P.D (P, D: platform and device numbers)");
  if (*p >= int(platforms.size()))
    raise(Errc::bad_device_spec, kWhere, spec + ": " + platform_listing(platforms));

  const ClPlatform& platform = platforms[*p];
  const std::string devices = std::to_string(platform.devices.size()) + " devices";
  if (*d < 0) {
    add_platform(out, platforms, *p);
    if (out.empty())
      raise(Errc::backend_unavailable, kWhere,
            spec + ": platform " + args + " (" + platform.name + ") has no devices");
    return out;
  }
  if (*d >= int(platform.devices.size()))
    raise(Errc::bad_device_spec, kWhere,
          spec + ": platform " + std::to_string(*p) + " (" + platform.name + ") has " + devices +
              (platform.devices.empty() ? "" : " (" + listing(platform.device_names) + ")"));
  out.push_back({*p, *d});
  return out;
}

}  // namespace baton::detail::opencl
