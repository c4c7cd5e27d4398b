#include "device/cuda/green_partition.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "baton/error.hpp"

namespace baton::cuda {

std::vector<int> parse_partition_sizes(const std::string& text, const std::string& where,
                                       std::vector<bool>* skipped) {
  std::vector<int> sizes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('+', pos), text.size());
    const bool skip = pos < end && text[pos] == '~';
    if (skip && !skipped)
      raise(Errc::bad_device_spec, where, "'~' (a partition set aside) is not allowed here");
    if (skipped) skipped->push_back(skip);
    if (skip) ++pos;
    int v = 0;
    const char* first = text.data() + pos;
    const char* last = text.data() + end;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (first == last || ec != std::errc() || ptr != last || v <= 0)
      raise(Errc::bad_device_spec, where,
            "partition sizes are SM counts joined by '+', e.g. cuda:0/64+32+16+8; got '" +
                text.substr(pos, end - pos) + "'");
    sizes.push_back(v);
    pos = end + 1;
  }
  if (skipped && std::find(skipped->begin(), skipped->end(), false) == skipped->end())
    raise(Errc::bad_device_spec, where,
          "every partition is set aside ('~'): name at least one without it");
  return sizes;
}

void check_partition_sizes(const std::vector<int>& sizes, int sm_count, int unit, int groups,
                           const std::string& where) {
  const std::string gpu = " on this GPU (" + std::to_string(sm_count) + " SMs)";
  for (int s : sizes) {
    if (s % unit == 0 && s > 0) continue;
    const int below = s / unit * unit, above = below + unit;
    std::string hint =
        below > 0 ? std::to_string(below) + " or " + std::to_string(above) : std::to_string(above);
    raise(Errc::bad_device_spec, where,
          "partitions come in multiples of " + std::to_string(unit) + " SMs" + gpu + ": try " +
              hint + " instead of " + std::to_string(s));
  }
  const int sum = std::accumulate(sizes.begin(), sizes.end(), 0);
  if (sum > groups * unit)
    raise(Errc::bad_device_spec, where,
          "the partitions ask for " + std::to_string(sum) + " SMs, but at most " +
              std::to_string(groups * unit) + " can be partitioned" + gpu + ", in multiples of " +
              std::to_string(unit));
}

std::vector<std::shared_ptr<Context>> create_partitions(const std::shared_ptr<Gpu>& gpu,
                                                        const std::vector<int>& sizes,
                                                        const std::vector<bool>& skipped,
                                                        const std::string& where) {
  const DriverApi& d = driver();
  if (!d.has_green_contexts)
    raise(Errc::bad_device_spec, where,
          "SM partitions need green contexts (a CUDA 12.4 or newer driver); this driver is CUDA " +
              std::to_string(d.driver_version / 1000) + "." +
              std::to_string(d.driver_version % 1000 / 10));
  const std::string& name = gpu->name();
  ContextGuard guard(gpu->primary());
  CUdevResource all{};
  BATON_CU(name, cuDeviceGetDevResource, gpu->device(), &all, CU_DEV_RESOURCE_TYPE_SM);
  const int unit = int(std::max(all.sm.minSmPartitionSize, all.sm.smCoscheduledAlignment));
  // First ask how many groups of `unit` SMs the GPU splits into.
  unsigned groups = 0;
  BATON_CU(name, cuDevSmResourceSplitByCount, nullptr, &groups, &all, nullptr, 0u, unsigned(unit));
  check_partition_sizes(sizes, int(all.sm.smCount), unit, int(groups), where);

  std::vector<CUdevResource> parts(groups);
  CUdevResource rest{};
  BATON_CU(name, cuDevSmResourceSplitByCount, parts.data(), &groups, &all, &rest, 0u,
           unsigned(unit));

  std::vector<std::shared_ptr<Context>> out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const int size = sizes[i];
    const std::size_t first = next;
    int sms = 0;
    while (sms < size && next < groups) sms += int(parts[next++].sm.smCount);
    if (sms != size)
      raise(Errc::bad_device_spec, where,
            "the driver split this GPU into groups that cannot make " + std::to_string(size) +
                " SMs");
    if (skipped[i]) {
      out.push_back(nullptr);
      continue;
    }
    CUdevResourceDesc desc = nullptr;
    BATON_CU(name, cuDevResourceGenerateDesc, &desc, parts.data() + first, unsigned(next - first));
    CUgreenCtx green = nullptr;
    BATON_CU(name, cuGreenCtxCreate, &green, desc, gpu->device(), CU_GREEN_CTX_DEFAULT_STREAM);
    out.push_back(Context::green(gpu, green, sms));
  }
  return out;
}

}  // namespace baton::cuda
