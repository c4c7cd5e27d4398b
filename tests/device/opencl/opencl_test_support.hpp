// What the OpenCL tests share: the devices of every platform, opened once per
// test binary (a context per platform, so each program builds once), and a
// skip, with the reason, where no OpenCL device exists.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "baton/error.hpp"
#include "device/backend.hpp"
#include "device/opencl/opencl_device.hpp"
#include "support/backend_fixture.hpp"

namespace baton::test {

struct OpenclDevices {
  BackendFixture backend;
  Topology topology;  // what the backend described
  detail::DeviceList devices;
  std::string unavailable;  // why there are none
};

inline OpenclDevices& opencl_devices() {
  static OpenclDevices* opened = [] {
    // Never destroyed: at exit the OpenCL driver may be torn down before us.
    auto* d = new OpenclDevices;
    try {
      d->devices = detail::opencl_backend().create("", d->backend.ctx);
      d->topology = d->backend.topology();
    } catch (const Error& e) {
      if (e.code() != Errc::backend_unavailable) throw;
      d->unavailable = e.what();
    }
    return d;
  }();
  return *opened;
}

inline detail::opencl::ClDevice& cl_device(std::size_t i) {
  return dynamic_cast<detail::opencl::ClDevice&>(*opencl_devices().devices.at(i));
}

}  // namespace baton::test

// At the top of a test that needs an OpenCL device.
#define BATON_REQUIRE_OPENCL()                                                             \
  do {                                                                                     \
    if (::baton::test::opencl_devices().devices.empty())                                   \
      GTEST_SKIP() << "no OpenCL device: " << ::baton::test::opencl_devices().unavailable; \
  } while (0)

// At the top of a test that needs two OpenCL devices in one context.
#define BATON_REQUIRE_TWO_OPENCL_DEVICES()                                                      \
  do {                                                                                          \
    BATON_REQUIRE_OPENCL();                                                                     \
    auto& all = ::baton::test::opencl_devices().devices;                                        \
    if (all.size() < 2 ||                                                                       \
        &::baton::test::cl_device(0).context() != &::baton::test::cl_device(1).context())       \
      GTEST_SKIP() << "needs two OpenCL devices on one platform (PoCL: POCL_DEVICES=\"pthread " \
                      "pthread\")";                                                             \
  } while (0)
