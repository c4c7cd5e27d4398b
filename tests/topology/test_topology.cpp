#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "baton/topology.hpp"

using baton::LinkKind;

static baton::Topology pairs() {
  baton::Topology t;
  t.add_node({"host", "host"});
  for (const char* n : {"gpu0", "gpu1", "gpu2"}) t.add_node({n, "gpu"});
  t.add_link({"gpu0", "host", LinkKind::pcie, 55, 5});
  t.add_link({"gpu1", "host", LinkKind::pcie, 55, 5});
  t.add_link({"gpu2", "host", LinkKind::pcie, 25, 5});
  t.add_link({"gpu0", "gpu1", LinkKind::nvlink, 450, 2});
  return t;
}

TEST(Topology, PrefersNvlinkAndRoutesTheRestThroughHost) {
  auto t = pairs();
  auto direct = t.path("gpu0", "gpu1");
  ASSERT_TRUE(direct);
  EXPECT_EQ(direct->worst, LinkKind::nvlink);
  EXPECT_DOUBLE_EQ(direct->gbps, 450);
  auto via = t.path("gpu0", "gpu2");
  ASSERT_TRUE(via);
  EXPECT_EQ(via->hops, 2);
  EXPECT_DOUBLE_EQ(via->gbps, 25);  // the narrowest link on the path
  EXPECT_DOUBLE_EQ(via->latency_us, 10);
  EXPECT_EQ(via->worst, LinkKind::pcie);
  EXPECT_FALSE(t.path("gpu0", "nowhere"));
  EXPECT_NEAR(direct->seconds(450e9), 1.0 + 2e-6, 1e-9);
}

// GPUs do not forward: two GPUs linked only through a third talk over PCIe
// through host, as on a DGX-1's hybrid cube-mesh; a switch forwards.
TEST(Topology, OnlyHostAndSwitchesForward) {
  baton::Topology t;
  t.add_node({"host", "host"});
  t.add_node({"nvswitch", "switch"});
  for (const char* n : {"gpu0", "gpu1", "gpu2", "gpu3", "gpu4"}) {
    t.add_node({n, "gpu"});
    t.add_link({n, "host", LinkKind::pcie, 12, 5});
  }
  t.add_link({"gpu0", "gpu1", LinkKind::nvlink, 50, 2});
  t.add_link({"gpu1", "gpu2", LinkKind::nvlink, 50, 2});
  t.add_link({"gpu3", "nvswitch", LinkKind::nvlink, 450, 1});
  t.add_link({"gpu4", "nvswitch", LinkKind::nvlink, 450, 1});
  const auto around = t.path("gpu0", "gpu2");
  ASSERT_TRUE(around);
  EXPECT_EQ(around->worst, LinkKind::pcie) << "routed through gpu1";
  EXPECT_DOUBLE_EQ(around->gbps, 12);
  const auto switched = t.path("gpu3", "gpu4");
  ASSERT_TRUE(switched);
  EXPECT_EQ(switched->worst, LinkKind::nvlink);
  EXPECT_DOUBLE_EQ(switched->gbps, 450);
  EXPECT_EQ(switched->hops, 2);
}

// A path's links, in order: what the sim's copies to host load.
TEST(Topology, RouteNamesThePathsLinksInOrder) {
  auto t = pairs();  // links: gpu0-host, gpu1-host, gpu2-host, gpu0-gpu1
  EXPECT_EQ(t.route("gpu0", "gpu1"), (std::vector<std::size_t>{3}));
  EXPECT_EQ(t.route("gpu1", "gpu2"), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(t.route("gpu2", "gpu1"), (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(t.route("gpu0", "gpu0"), std::vector<std::size_t>{});
  EXPECT_FALSE(t.route("gpu0", "nowhere"));
}

TEST(Topology, JsonRoundTrip) {
  auto t = pairs();
  auto back = baton::Topology::from_json(t.to_json(), "test");
  EXPECT_EQ(back.nodes().size(), t.nodes().size());
  ASSERT_EQ(back.links().size(), t.links().size());
  auto l = back.link("gpu1", "gpu0");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kind, LinkKind::nvlink);
  EXPECT_DOUBLE_EQ(l->latency_us, 2);
}

TEST(Topology, MalformedFilesNameTheBadField) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"{", "not valid JSON"},
      {"{\"links\": []}", "\"nodes\""},
      {"{\"nodes\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}", "nodes[1].id"},
      {"{\"nodes\": [{\"id\": \"a\"}], \"links\": [{\"a\": \"a\", \"b\": \"z\", \"kind\": "
       "\"pcie\", "
       "\"gbps\": 1, \"latency_us\": 1}]}",
       "unknown node 'z'"},
      {"{\"nodes\": [{\"id\": \"a\"}, {\"id\": \"b\"}], \"links\": [{\"a\": \"a\", \"b\": \"b\", "
       "\"kind\": "
       "\"warp\", \"gbps\": 1, \"latency_us\": 1}]}",
       "link kind 'warp'"},
      {"{\"nodes\": [{\"id\": \"a\"}, {\"id\": \"b\"}], \"links\": [{\"a\": \"a\", \"b\": \"b\", "
       "\"kind\": "
       "\"pcie\", \"gbps\": -1, \"latency_us\": 1}]}",
       "gbps > 0"},
  };
  for (const auto& c : cases) {
    try {
      baton::Topology::from_json(c.text, "t.json");
      ADD_FAILURE() << "accepted " << c.text;
    } catch (const baton::Error& e) {
      EXPECT_EQ(e.code(), baton::Errc::bad_topology);
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
      EXPECT_EQ(e.where().substr(0, 6), "t.json");
    }
  }
  EXPECT_THROW(baton::Topology::load("/nonexistent/topo.json"), baton::Error);
}
