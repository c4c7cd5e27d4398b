// History performance models, in the manner of StarPU's: per kernel, device
// and size class (items rounded down to a power of two), the last run times
// per item. A prediction is the median of those times the items, and none
// (NaN) until three runs were seen: the model policy then sends the task
// where it is uncalibrated. The first run of each class is dropped (module
// loads, compilation) and so are outliers once the median is known: a run
// more than 4x off it (a 70 ms run among 190 us ones once sent every GEMM of
// a StarPU user to two of eight GPUs). Models live in a JSON file between runs.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace baton::detail {

class PerfModel {
 public:
  // Seconds `device` should take for `items` of `kernel`; NaN while uncalibrated.
  double predict(const std::string& kernel, const std::string& device, std::uint64_t items) const;
  // For a simulator that stands for the device: from the size class of
  // `items` where measured, else from the line through the nearest classes
  // measured below and above it; above every class measured, from the line
  // through the two largest where it shows a fixed cost a run; else from the
  // time per item of the nearest.
  double predict_nearest(const std::string& kernel, const std::string& device,
                         std::uint64_t items) const;
  void record(const std::string& kernel, const std::string& device, std::uint64_t items,
              double seconds);

  struct Counts {
    std::uint64_t kept = 0, first_dropped = 0, outliers = 0;
  };
  Counts counts() const;

  // A missing file is an empty model; a malformed one is Error(invalid_argument)
  // naming the file. "~/" is the home directory.
  void load(const std::string& path);
  // Writes atomically (a temporary file renamed over the old one); creates
  // the directory. Returns false, without throwing, where it cannot.
  bool save(const std::string& path) const;
  bool dirty() const;

 private:
  static constexpr std::size_t kKept = 16;
  static constexpr std::size_t kMinSamples = 3;
  struct History {
    std::vector<double> per_item;  // seconds per item, the last kKept runs
    std::size_t next = 0;          // ring position once full
    std::uint64_t seen = 0;        // runs recorded, the dropped ones included
  };
  static std::string key(const std::string& kernel, const std::string& device, int size_class);
  static double median(std::vector<double> v);

  mutable std::mutex mu_;
  std::map<std::string, History> histories_;
  Counts counts_;
  bool dirty_ = false;
};

// "~/x" -> "$HOME/x"; anything else unchanged.
std::string expand_home(const std::string& path);

}  // namespace baton::detail
