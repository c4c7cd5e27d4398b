#include <gtest/gtest.h>

#include "baton/devices.hpp"
#include "baton/error.hpp"

using baton::Errc;

static Errc spec_error(const std::string& spec) {
  try {
    baton::open_devices(spec);
  } catch (const baton::Error& e) {
    return e.code();
  }
  return Errc::internal;  // no error: the caller's EXPECT fails
}

TEST(DeviceSpec, SplitsItemsAndKeepsSimSpeedsTogether) {
  auto items = baton::parse_device_spec("sim:8,4,2,1,cpu:2,opencl:0.1");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].backend, "sim");
  EXPECT_EQ(items[0].args, "8,4,2,1");
  EXPECT_EQ(items[1].backend, "cpu");
  EXPECT_EQ(items[1].args, "2");
  EXPECT_EQ(items[2].backend, "opencl");
  EXPECT_EQ(items[2].args, "0.1");
}

TEST(DeviceSpec, MalformedSpecsNameTheBadPart) {
  for (const char* bad : {"", "cpu,,sim:1", "4,cpu", "cpu:", "CPU", "cpu;sim"}) {
    try {
      baton::parse_device_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const baton::Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_device_spec) << bad;
      EXPECT_EQ(e.where(), "--devices") << bad;
    }
  }
}

TEST(DeviceSpec, BadArgumentsOfABackendAreErrors) {
  EXPECT_EQ(spec_error("gpu"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("cpu:0"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("cpu:2x0"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("cpu:two"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("sim"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("sim:fast"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("sim:4,-1"), Errc::bad_device_spec);
  EXPECT_EQ(spec_error("sim:missing.json"), Errc::bad_topology);
  EXPECT_EQ(spec_error("cpu,cpu"), Errc::bad_device_spec);  // cpu0 twice
}

TEST(DeviceSpec, CpuFormsGiveDevicesOfThreads) {
  auto one = baton::open_devices("cpu");
  ASSERT_EQ(one.devices.size(), 1u);
  EXPECT_GE(one.devices[0]->info().compute_units, 1);
  auto three = baton::open_devices("cpu:3x2");
  ASSERT_EQ(three.devices.size(), 3u);
  for (const auto& d : three.devices) {
    EXPECT_EQ(d->info().compute_units, 2);
    EXPECT_EQ(d->info().memory_node, baton::kHostNode);
  }
  EXPECT_EQ(three.devices[2]->name(), "cpu2");
}

TEST(DeviceSpec, CpuDevicesKeepTheirPlaceAndTheirThreadsBesideSimDevices) {
  const int all = baton::open_devices("cpu").devices[0]->info().compute_units;
  // Opened after the other backends, yet placed where the spec puts them.
  auto first = baton::open_devices("cpu,sim:4,2");
  ASSERT_EQ(first.devices.size(), 3u);
  EXPECT_EQ(first.devices[0]->name(), "cpu0");
  EXPECT_EQ(first.devices[2]->name(), "sim1");
  auto last = baton::open_devices("sim:4,2,cpu:2");
  ASSERT_EQ(last.devices.size(), 4u);
  EXPECT_EQ(last.devices[0]->name(), "sim0");
  EXPECT_EQ(last.devices[3]->name(), "cpu1");
  // A sim device's worker parks on the virtual clock: it leaves the cores alone.
  EXPECT_EQ(first.devices[0]->info().compute_units, all);
}

TEST(DeviceSpec, AutoAlwaysFindsTheCpuAndExplainsMissingBackends) {
  auto set = baton::open_devices("auto");
  ASSERT_FALSE(set.devices.empty());
  EXPECT_EQ(set.devices[0]->info().backend, baton::BackendKind::cpu);
  for (const auto& note : set.notes) EXPECT_NE(note.find(':'), std::string::npos) << note;
}

TEST(DeviceSpec, HelpListsEveryCompiledBackend) {
  std::string help = baton::device_spec_help();
  for (const auto& b : baton::compiled_backends())
    EXPECT_NE(help.find("  " + b), std::string::npos) << b;
}
