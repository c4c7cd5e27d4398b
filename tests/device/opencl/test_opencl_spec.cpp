// Device-spec parsing (on made-up platforms, so every case runs without a
// driver), status names, and the devices the backend opens on this machine.
#include <gtest/gtest.h>

#include <set>

#include "device/opencl/cl_error.hpp"
#include "device/opencl/opencl_spec.hpp"
#include "opencl_test_support.hpp"

namespace baton::detail::opencl {
namespace {

ClPlatform fake_platform(std::string name, int devices) {
  ClPlatform p;
  p.name = std::move(name);
  for (int d = 0; d < devices; ++d) {
    p.devices.push_back(nullptr);
    p.device_names.push_back("dev" + std::to_string(d));
  }
  return p;
}

const std::vector<ClPlatform> kTwoPlatforms = {fake_platform("Portable Computing Language", 2),
                                               fake_platform("NVIDIA CUDA", 1)};

Error error_of(const std::string& args, const std::vector<ClPlatform>& platforms) {
  try {
    select_devices(args, platforms);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "opencl:" << args << " was accepted";
  return Error(Errc::internal, "", "");
}

TEST(OpenclSpec, EmptySelectsEveryDeviceOfEveryPlatform) {
  const std::vector<ClDeviceIndex> all = {{0, 0}, {0, 1}, {1, 0}};
  EXPECT_EQ(select_devices("", kTwoPlatforms), all);
}

TEST(OpenclSpec, PlatformAloneSelectsItsDevices) {
  const std::vector<ClDeviceIndex> p0 = {{0, 0}, {0, 1}}, p1 = {{1, 0}};
  EXPECT_EQ(select_devices("0", kTwoPlatforms), p0);
  EXPECT_EQ(select_devices("1", kTwoPlatforms), p1);
}

TEST(OpenclSpec, PlatformDotDeviceSelectsOne) {
  const std::vector<ClDeviceIndex> one = {{0, 1}};
  EXPECT_EQ(select_devices("0.1", kTwoPlatforms), one);
}

TEST(OpenclSpec, PlatformOutOfRangeListsThePlatforms) {
  const Error e = error_of("3.0", {fake_platform("Portable Computing Language", 1)});
  EXPECT_EQ(e.code(), Errc::bad_device_spec);
  EXPECT_NE(std::string(e.what()).find(
                "opencl:3.0: there are 1 platforms (0: Portable Computing Language)"),
            std::string::npos)
      << e.what();
}

TEST(OpenclSpec, DeviceOutOfRangeListsTheDevices) {
  const Error e = error_of("0.5", kTwoPlatforms);
  EXPECT_EQ(e.code(), Errc::bad_device_spec);
  EXPECT_NE(std::string(e.what()).find("opencl:0.5: platform 0 (Portable Computing Language) has "
                                       "2 devices (0: dev0, 1: dev1)"),
            std::string::npos)
      << e.what();
}

TEST(OpenclSpec, MalformedArgumentsAreBadSpecs) {
  for (const char* args : {"x", "0.", ".0", "-1", "+1", "0.1.2", "0.-1", " 0", "0x1", "1e3"}) {
    const Error e = error_of(args, kTwoPlatforms);
    EXPECT_EQ(e.code(), Errc::bad_device_spec) << args;
    EXPECT_NE(std::string(e.what()).find("expected opencl, opencl:P or opencl:P.D"),
              std::string::npos)
        << e.what();
  }
}

TEST(OpenclSpec, NoDeviceAnywhereIsUnavailable) {
  const std::vector<ClPlatform> empty = {fake_platform("Empty", 0)};
  EXPECT_EQ(error_of("", empty).code(), Errc::backend_unavailable);
  EXPECT_EQ(error_of("0", empty).code(), Errc::backend_unavailable);
  EXPECT_EQ(error_of("0.0", empty).code(), Errc::bad_device_spec);
}

TEST(OpenclErrors, CodesAreSortedIntoUsageErrorsAndDeviceFaults) {
  EXPECT_EQ(classify(CL_INVALID_KERNEL_NAME), Errc::invalid_argument);
  EXPECT_EQ(classify(CL_INVALID_ARG_SIZE), Errc::invalid_argument);
  EXPECT_EQ(classify(CL_INVALID_WORK_GROUP_SIZE), Errc::invalid_argument);
  EXPECT_EQ(classify(CL_BUILD_PROGRAM_FAILURE), Errc::compile_failed);
  EXPECT_EQ(classify(CL_MEM_OBJECT_ALLOCATION_FAILURE), Errc::out_of_memory);
  EXPECT_EQ(classify(CL_OUT_OF_RESOURCES), Errc::device_failed);
  EXPECT_EQ(classify(CL_DEVICE_NOT_AVAILABLE), Errc::device_failed);
  EXPECT_EQ(classify(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST), Errc::device_failed);
}

TEST(OpenclErrors, StatusNames) {
  EXPECT_EQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(cl_error_name(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
  EXPECT_EQ(cl_error_name(CL_PLATFORM_NOT_FOUND_KHR), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(cl_error_name(-4242), "CL_ERROR(-4242)");
  try {
    check(CL_INVALID_VALUE, "clEnqueueWriteBuffer", "opencl0.0");
    FAIL() << "check() let a failure through";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);  // a usage error, not a device fault
    EXPECT_EQ(e.where(), "opencl0.0");
    EXPECT_NE(std::string(e.what()).find("clEnqueueWriteBuffer: CL_INVALID_VALUE"),
              std::string::npos);
  }
}

TEST(OpenclBackend, OpensEveryDeviceWithItsOwnMemoryNodeAndTopologyNode) {
  BATON_REQUIRE_OPENCL();
  const auto& opened = test::opencl_devices();
  std::set<MemoryNode> nodes;
  for (const auto& device : opened.devices) {
    const DeviceInfo& info = device->info();
    SCOPED_TRACE(info.name);
    EXPECT_EQ(info.name.rfind("opencl", 0), 0u);
    EXPECT_EQ(info.backend, BackendKind::opencl);
    EXPECT_NE(info.memory_node, kHostNode);
    EXPECT_TRUE(nodes.insert(info.memory_node).second) << "memory node shared";
    EXPECT_GT(info.compute_units, 0);
    EXPECT_GT(info.peak_gflops, 0);
    EXPECT_GT(info.memory_bytes, 0u);
    EXPECT_EQ(info.pipeline_depth, 2);
    EXPECT_TRUE(opened.topology.has_node(info.topology_id));
    const auto link = opened.topology.link("host", info.topology_id);
    ASSERT_TRUE(link.has_value());
    EXPECT_GT(link->gbps, 0);
    EXPECT_GT(link->latency_us, 0);
  }
  EXPECT_EQ(opened.devices.front()->name(), "opencl0.0");
}

TEST(OpenclBackend, RealSpecsOutOfRangeAreBadSpecs) {
  BATON_REQUIRE_OPENCL();
  test::BackendFixture f;
  BackendContext& ctx = f.ctx;
  for (const char* args : {"99", "99.0", "0.99"}) {
    try {
      opencl_backend().create(args, ctx);
      ADD_FAILURE() << "opencl:" << args << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_device_spec) << e.what();
    }
  }
}

TEST(OpenclBackend, OneDeviceSpecOpensThatDevice) {
  BATON_REQUIRE_OPENCL();
  test::BackendFixture f;
  BackendContext& ctx = f.ctx;
  const DeviceList one = opencl_backend().create("0.0", ctx);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]->name(), "opencl0.0");
}

}  // namespace
}  // namespace baton::detail::opencl
