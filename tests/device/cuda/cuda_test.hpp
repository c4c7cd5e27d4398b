// Shared pieces of the CUDA tests: skip without a driver, open devices
// through the backend as the runtime does, and build launch arguments.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "baton/error.hpp"
#include "device/backend.hpp"
#include "device/cuda/cuda_device.hpp"
#include "support/backend_fixture.hpp"
#include "workloads/builtin_fatbin.hpp"

namespace baton::test {

// Why there is no CUDA device here, or nullopt when there is one.
inline std::optional<std::string> cuda_missing() {
  try {
    cuda::driver();
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

#define BATON_REQUIRE_CUDA()                                                                  \
  do {                                                                                        \
    if (auto why = ::baton::test::cuda_missing()) GTEST_SKIP() << "no CUDA device: " << *why; \
  } while (0)

// Devices of one spec item ("0", "0/64+32"), with the topology they registered.
struct CudaSet : BackendFixture {
  detail::DeviceList devices;
  explicit CudaSet(const std::string& args) : devices(detail::cuda_backend().create(args, ctx)) {}
  cuda::CudaDevice& operator[](std::size_t i) {
    return static_cast<cuda::CudaDevice&>(*devices.at(i));
  }
};

inline Kernel builtin(const char* entry) {
  return Kernel(entry).cuda_image(detail::builtin_cuda_fatbin(), entry);
}

inline std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1, float hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// bf16 bits of `f`, rounded to nearest even; and the float such bits hold.
inline std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return std::uint16_t(u >> 16);
}
inline float from_bf16(std::uint16_t h) {
  const std::uint32_t u = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(gen());
  return v;
}

// The CPU reference of baton_fma, in the same fp32 fused arithmetic.
inline float fma_ref(float x, float a, float b, int iters) {
  for (int k = 0; k < iters; ++k) x = std::fma(x, a, b);
  return x;
}

}  // namespace baton::test
