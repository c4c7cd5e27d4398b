#include "common/perf_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "common/text_file.hpp"

namespace baton::detail {

namespace {

int size_class(std::uint64_t items) {
  return items == 0 ? 0 : 63 - std::countl_zero(items);
}

}  // namespace

std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + path.substr(1);
}

std::string PerfModel::key(const std::string& kernel, const std::string& device, int size_class) {
  return kernel + '\t' + device + '\t' + std::to_string(size_class);
}

double PerfModel::median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double PerfModel::predict(const std::string& kernel, const std::string& device,
                          std::uint64_t items) const {
  std::lock_guard lock(mu_);
  auto it = histories_.find(key(kernel, device, size_class(items)));
  if (it == histories_.end() || it->second.per_item.size() < kMinSamples) return std::nan("");
  return median(it->second.per_item) * double(std::max<std::uint64_t>(1, items));
}

double PerfModel::predict_nearest(const std::string& kernel, const std::string& device,
                                  std::uint64_t items) const {
  std::lock_guard lock(mu_);
  const int c = size_class(items);
  const auto per_item = [&](int cls) {
    auto it = histories_.find(key(kernel, device, cls));
    return it != histories_.end() && it->second.per_item.size() >= kMinSamples
               ? median(it->second.per_item)
               : std::nan("");
  };
  const double n = double(std::max<std::uint64_t>(1, items));
  if (const double own = per_item(c); !std::isnan(own)) return own * n;
  // The nearest classes measured below and above, and their times per item.
  int below = -1, above = -1;
  double below_s = std::nan(""), above_s = std::nan("");
  for (int cls = c - 1; cls >= 0 && below < 0; --cls)
    if (below_s = per_item(cls); !std::isnan(below_s)) below = cls;
  for (int cls = c + 1; cls < 64 && above < 0; ++cls)
    if (above_s = per_item(cls); !std::isnan(above_s)) above = cls;
  if (below < 0 && above < 0) return std::nan("");
  // The line through two classes' times (at each class's middle, 1.5 x
  // 2^class items), so what a run costs whatever its size (a launch, a wait)
  // stays as it was measured instead of scaling with items.
  struct Line {
    double fixed, slope;
  };
  const auto line = [](int a, double a_s, int b, double b_s) {
    const double lo = 1.5 * std::ldexp(1.0, a), hi = 1.5 * std::ldexp(1.0, b);
    const double slope = (b_s * hi - a_s * lo) / (hi - lo);
    return Line{a_s * lo - slope * lo, slope};
  };
  if (above < 0) {
    // Above every class measured: on the line through the two largest, where
    // it shows a fixed cost a run. A chunk of ws larger than any the models
    // held, at the largest's time per item, took 7 % too long on H100
    // partitions.
    int lower = -1;
    double lower_s = std::nan("");
    for (int cls = below - 1; cls >= 0 && lower < 0; --cls)
      if (lower_s = per_item(cls); !std::isnan(lower_s)) lower = cls;
    if (lower >= 0)
      if (const Line l = line(lower, lower_s, below, below_s); l.slope > 0 && l.fixed >= 0)
        return l.fixed + l.slope * n;
    return below_s * n;
  }
  if (below < 0) return above_s * n;
  const Line l = line(below, below_s, above, above_s);
  return std::max(0.0, l.fixed + l.slope * n);
}

void PerfModel::record(const std::string& kernel, const std::string& device, std::uint64_t items,
                       double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return;
  const double per_item = seconds / double(std::max<std::uint64_t>(1, items));
  std::lock_guard lock(mu_);
  History& h = histories_[key(kernel, device, size_class(items))];
  if (h.seen++ == 0) {
    ++counts_.first_dropped;
    return;
  }
  if (h.per_item.size() >= kMinSamples) {
    const double m = median(h.per_item);
    if (per_item > 4 * m || per_item < m / 4) {
      ++counts_.outliers;
      return;
    }
  }
  if (h.per_item.size() < kKept) {
    h.per_item.push_back(per_item);
  } else {
    h.per_item[h.next] = per_item;
    h.next = (h.next + 1) % kKept;
  }
  ++counts_.kept;
  dirty_ = true;
}

PerfModel::Counts PerfModel::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

bool PerfModel::dirty() const {
  std::lock_guard lock(mu_);
  return dirty_;
}

void PerfModel::load(const std::string& path) {
  const std::string file = expand_home(path);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;  // nothing learned yet
  const std::string text =
      detail::read_text_file(file, Errc::invalid_argument, "performance model file");
  auto bad = [&](const std::string& why) {
    raise(Errc::invalid_argument, file,
          "not a baton performance model file (" + why +
              "); delete it or set BATON_PERF_MODEL_FILE to another path");
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    bad(e.what());
  }
  if (!j.is_object() || j.value("version", 0) != 1 || !j.contains("models") ||
      !j["models"].is_array())
    bad("expected {\"version\": 1, \"models\": [...]}");
  std::lock_guard lock(mu_);
  for (const auto& m : j["models"]) {
    if (!m.is_object() || !m.contains("kernel") || !m["kernel"].is_string() ||
        !m.contains("device") || !m["device"].is_string() || !m.contains("size_class") ||
        !m["size_class"].is_number_integer() || !m.contains("seconds_per_item") ||
        !m["seconds_per_item"].is_array())
      bad("a model needs kernel, device, size_class and seconds_per_item");
    History h;
    for (const auto& x : m["seconds_per_item"]) {
      if (!x.is_number() || !(x.get<double>() > 0)) bad("seconds_per_item must be positive");
      if (h.per_item.size() < kKept) h.per_item.push_back(x.get<double>());
    }
    h.seen = h.per_item.size() + 1;  // its first run was dropped back then
    histories_[key(m["kernel"], m["device"], m["size_class"].get<int>())] = std::move(h);
  }
}

bool PerfModel::save(const std::string& path) const {
  nlohmann::json j;
  j["version"] = 1;
  j["models"] = nlohmann::json::array();
  {
    std::lock_guard lock(mu_);
    for (const auto& [k, h] : histories_) {
      if (h.per_item.empty()) continue;
      const std::size_t tab1 = k.find('\t'), tab2 = k.find('\t', tab1 + 1);
      j["models"].push_back({{"kernel", k.substr(0, tab1)},
                             {"device", k.substr(tab1 + 1, tab2 - tab1 - 1)},
                             {"size_class", std::stoi(k.substr(tab2 + 1))},
                             {"seconds_per_item", h.per_item}});
    }
  }
  const std::filesystem::path file = expand_home(path);
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return false;
    out << j.dump(1) << "\n";
    if (!out) return false;
  }
  std::filesystem::rename(tmp, file, ec);
  return !ec;
}

}  // namespace baton::detail
