#include "train/process_shares.hpp"

#include <algorithm>
#include <numeric>

#include "baton/error.hpp"

namespace baton::train {

std::vector<int> split_micro_batches(int total, const std::vector<double>& rates) {
  const int k = int(rates.size());
  if (k == 0 || total < k)
    raise(Errc::invalid_argument, "batch",
          "the batch has " + std::to_string(total) + " micro-batches, fewer than the " +
              std::to_string(k) + " processes (each runs at least one)");
  const double sum = std::accumulate(rates.begin(), rates.end(), 0.0);
  if (!(sum > 0)) raise(Errc::invalid_argument, "rates", "every process's rate is 0");
  // One each, then the rest by largest remainders of the shares.
  const int rest = total - k;
  std::vector<int> split(std::size_t(k), 1);
  std::vector<std::pair<double, int>> remainders;
  int given = 0;
  for (int p = 0; p < k; ++p) {
    const double share = double(rest) * std::max(0.0, rates[std::size_t(p)]) / sum;
    const int whole = int(share);
    split[std::size_t(p)] += whole;
    given += whole;
    remainders.push_back({share - whole, -p});  // ties: the lower rank first
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (int i = 0; given < rest; ++i, ++given)
    ++split[std::size_t(-remainders[std::size_t(i)].second)];
  return split;
}

ProcessShares::ProcessShares(collective::ProcessGroup& group, int micro_batches, double first_guess)
    : group_(group), micro_batches_(micro_batches) {
  const double mine[] = {std::max(first_guess, 1e-9)};
  rates_ = group_.gather(mine);
  split_micro_batches(micro_batches_, rates_);  // fewer micro-batches than processes: said now
  seen_.resize(rates_.size());
}

const std::vector<int>& ProcessShares::split(int step) {
  auto it = splits_.find(step);
  if (it == splits_.end()) {
    it = splits_.emplace(step, split_micro_batches(micro_batches_, rates_)).first;
    // Only this step and the next are ever asked for again.
    splits_.erase(splits_.begin(), splits_.lower_bound(step - 1));
  }
  return it->second;
}

ProcessShares::Share ProcessShares::of(int step) {
  const std::vector<int>& s = split(step);
  const int r = group_.rank();
  return {std::accumulate(s.begin(), s.begin() + r, 0), s[std::size_t(r)]};
}

double ProcessShares::learn(double loss, double rate) {
  const double mine[] = {loss, rate};
  const std::vector<double> all = group_.gather(mine);
  double total = 0;
  for (std::size_t p = 0; p < rates_.size(); ++p) {
    total += all[2 * p];
    const double r = all[2 * p + 1];
    if (r > 0) rates_[p] = seen_[p].add(r);
  }
  return total;
}

void ProcessShares::restore(const std::vector<double>& rates) {
  if (rates.size() == rates_.size() &&
      std::any_of(rates.begin(), rates.end(), [](double r) { return r > 0; }))
    rates_ = rates;
  for (auto& s : seen_) s.clear();
  splits_.clear();
}

}  // namespace baton::train
