#include <algorithm>
#include <numeric>

#include "baton/devices.hpp"

namespace baton {

std::vector<SharingGroup> sharing_groups(const std::vector<std::unique_ptr<Device>>& devices,
                                         const std::vector<int>& among) {
  const std::size_t n = among.size();
  std::vector<std::size_t> group(n);  // union-find over positions in `among`
  std::iota(group.begin(), group.end(), 0);
  auto root = [&](std::size_t d) {
    while (group[d] != d) d = group[d] = group[group[d]];
    return d;
  };
  std::vector<std::string> tie(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      for (const std::string& r : devices[std::size_t(among[a])]->info().shares) {
        const auto& other = devices[std::size_t(among[b])]->info().shares;
        if (std::find(other.begin(), other.end(), r) == other.end()) continue;
        const std::size_t ra = root(a), rb = root(b);
        if (ra != rb) group[rb] = ra;
        if (tie[ra].empty()) tie[ra] = r;
        break;
      }
  std::vector<SharingGroup> out;
  for (std::size_t d = 0; d < n; ++d) {
    if (root(d) != d || tie[d].empty()) continue;
    SharingGroup g;
    g.resource = tie[d];
    for (std::size_t m = 0; m < n; ++m)
      if (root(m) == d) g.devices.push_back(among[m]);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace baton
