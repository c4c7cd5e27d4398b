#include "collective/pieces.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "baton/error.hpp"

namespace baton::collective {

namespace {

std::uint64_t elements_in(std::uint64_t bytes, std::uint64_t element_size) {
  return std::max<std::uint64_t>(4, bytes / element_size / 4 * 4);
}

}  // namespace

std::uint64_t bucket_bytes(std::size_t ranks) {
  return std::clamp<std::uint64_t>(std::uint64_t(ranks) * (kBucketBytes / 2), kBucketBytes,
                                   4 * kBucketBytes);
}

std::vector<Piece> buckets(std::uint64_t elements, std::uint64_t element_size,
                           std::uint64_t first_bytes, std::uint64_t bytes) {
  if (element_size == 0) raise(Errc::invalid_argument, "buckets", "elements of 0 bytes");
  std::vector<Piece> out;
  std::uint64_t end = elements;
  for (std::uint64_t cap = elements_in(first_bytes, element_size); end > 0;
       cap = elements_in(bytes, element_size)) {
    // The bucket's start on a multiple of 4, counted from the gradient's start.
    const std::uint64_t begin = end > cap ? (end - cap) / 4 * 4 : 0;
    out.push_back({begin, end});
    end = begin;
  }
  return out;
}

std::vector<Piece> shares(Piece whole, const std::vector<double>& weights, std::uint64_t align) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (weights.empty() || !(total > 0))
    raise(Errc::invalid_argument, "shares", "the weights must have a positive sum");
  align = std::max<std::uint64_t>(align, 1);
  std::vector<Piece> out(weights.size());
  double before = 0;
  std::uint64_t at = whole.begin;
  for (std::size_t r = 0; r < weights.size(); ++r) {
    before += std::max(weights[r], 0.0);
    std::uint64_t end = whole.end;
    if (r + 1 < weights.size()) {
      const double cut = double(whole.begin) + double(whole.size()) * (before / total);
      end = std::clamp<std::uint64_t>(std::uint64_t(std::llround(cut / double(align))) * align, at,
                                      whole.end);
    }
    out[r] = {at, end};
    at = end;
  }
  return out;
}

std::vector<Piece> uncovered(Piece p, std::vector<Piece> done) {
  std::sort(done.begin(), done.end(), [](Piece a, Piece b) { return a.begin < b.begin; });
  std::vector<Piece> left;
  std::uint64_t at = p.begin;
  for (const Piece d : done) {
    if (d.end <= at || d.size() == 0) continue;
    if (d.begin >= p.end) break;
    if (d.begin > at) left.push_back({at, d.begin});
    at = std::max(at, d.end);
    if (at >= p.end) break;
  }
  if (at < p.end) left.push_back({at, p.end});
  return left;
}

}  // namespace baton::collective
