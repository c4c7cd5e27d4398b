// Index spaces: a Range is what the user asks for, a Span is one piece of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baton {

// Half-open interval [begin, end) of work items.
struct Span {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  friend bool operator==(const Span&, const Span&) = default;
};

// n work items, numbered first, first+1, ..., first+n-1: kernels see these
// numbers and index buffers with them, so tasks over different parts of one
// buffer (micro-batches, say) are ranges with different `first`. A task spread
// over devices (baton::split) is cut into chunks of at most `chunk` items
// (0: let the policy choose); ws scales the bound per device by its share of
// the total rate, so that a chunk takes about as long on a fast device as on
// a slow one.
struct Range {
  std::uint64_t n = 0;
  std::uint64_t chunk = 0;
  std::uint64_t first = 0;
};

}  // namespace baton
