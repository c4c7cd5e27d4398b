// How a collective cuts a gradient: into buckets, reduced one after another
// (as PyTorch DDP does: a small first bucket, so the first reduction starts
// early, then larger ones), and each bucket into one share per rank, sized
// by what the rank can do.
#pragma once

#include <cstdint>
#include <vector>

namespace baton::collective {

// Elements [begin, end) of a gradient.
struct Piece {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t size() const { return end - begin; }
  bool operator==(const Piece&) const = default;
};

// DDP's defaults: 1 MiB for the first bucket, 25 MiB for the rest.
inline constexpr std::uint64_t kFirstBucketBytes = std::uint64_t(1) << 20;
inline constexpr std::uint64_t kBucketBytes = std::uint64_t(25) << 20;

// The bytes of each bucket after the first over `ranks` ranks: a rank's
// share of 12.5 MiB (half of DDP's 25 MiB bucket, what 2 ranks get), so that
// each of a ring's many copies and additions is long beside its start-up
// (microseconds); from 25 MiB (2 ranks) up to 100 MiB (8 ranks and more),
// so that a model of a few hundred MB still has buckets to overlap. On the
// sim:nvswitch8 and sim:cluster8x8 presets, 100 MiB beat 25 and 64 MiB at
// 8 GPUs (2.52 M samples/s against 2.26 and 2.48 M) and 256 MiB (2.11 M).
std::uint64_t bucket_bytes(std::size_t ranks);

// `elements` gradients of `element_size` bytes, laid out first layer first,
// cut from the end (backward makes the last layers' gradients first): the
// first bucket holds `first_bytes`, each later one `bytes`, the last what is
// left. Boundaries fall on multiples of 4 elements (16-byte loads).
std::vector<Piece> buckets(std::uint64_t elements, std::uint64_t element_size,
                           std::uint64_t first_bytes = kFirstBucketBytes,
                           std::uint64_t bytes = kBucketBytes);

// `whole` cut in order into one piece per weight, each about its weight's
// share, boundaries on multiples of `align` (but the last); a weight of 0 (or
// a share that rounds to nothing) gets an empty piece. Weights must not all
// be 0.
std::vector<Piece> shares(Piece whole, const std::vector<double>& weights, std::uint64_t align);

// The parts of `p` that none of `done` covers, in order (none where p is empty).
std::vector<Piece> uncovered(Piece p, std::vector<Piece> done);

}  // namespace baton::collective
