// Counter-based random numbers: the value for (seed, index) is the same on
// every device and in every order, so data and weights need no shared state.
#pragma once

#include <cstdint>

namespace baton::train {

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1).
inline float uniform(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = mix(mix(seed) ^ (index * 0x9e3779b97f4a7c15ull));
  return float(double(bits >> 11) * 0x1p-52 - 1.0);
}

}  // namespace baton::train
