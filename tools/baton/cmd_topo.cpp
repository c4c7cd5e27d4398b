// baton topo: the machine as a graph. Prints the nodes (which devices sit on
// each), the links with their kind, bandwidth and latency, and the matrix of
// best paths between the nodes that hold devices and host memory; --json,
// --save FILE (the topology file format, which --topology FILE and sim files
// read back), --dot (Graphviz, to draw it), --probe (each link measured by
// timed copies beside its nominal figure, far slower ones flagged; each host
// link also both ways at once).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "commands.hpp"
#include "resource/link_probe.hpp"
#include "table.hpp"
#include "topology/host_tree.hpp"

namespace baton::cli {

namespace {

struct TopoArgs {
  std::string devices = env_options().devices;
  std::string file;  // read this topology instead of discovering one
  std::string save;
  bool json = false;
  bool dot = false;
  bool probe = false;
  int probe_mib = int(detail::kProbeBytes >> 20);
};

nlohmann::json probe_json(const std::vector<detail::LinkMeasure>& probe) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : probe)
    j.push_back({{"from", m.from},
                 {"to", m.to},
                 {"route", m.route},
                 {"kind", m.kind},
                 {"nominal_gbps", m.nominal_gbps},
                 {"measured_gbps", m.measured_gbps},
                 {"slow", m.slow}});
  return j;
}

void print_probe(const std::vector<detail::LinkMeasure>& probe) {
  std::printf(
      "links measured (timed copies, the best of 3; 'both ways': a copy in beside a copy out, "
      "GB/s each way; 'slow': below half the nominal):\n");
  Table t({"from", "to", "route", "kind", "nominal GB/s", "measured GB/s", ""});
  for (const auto& m : probe)
    t.add({m.from, m.to, m.route, m.kind, m.nominal_gbps > 0 ? fixed(m.nominal_gbps, 1) : "-",
           fixed(m.measured_gbps, 1), m.slow ? "slow" : ""});
  std::fputs(t.str().c_str(), stdout);
}

// A sim machine file (a preset, or one of bench/sim/) has devices and links
// but no nodes: its topology is the graph the sim backend builds from it.
bool is_sim_machine_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;  // Topology::load says why
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.contains("devices") && !j.contains("nodes");
}

// The nodes a matrix spans: host memory, then every node a device sits on
// (or, for a file, every node but switches), in the topology's order.
std::vector<std::string> endpoints(const Topology& t,
                                   const std::map<std::string, std::vector<std::string>>& on) {
  std::vector<std::string> ids;
  for (const TopoNode& n : t.nodes())
    if (n.id == "host" || on.count(n.id) || (on.empty() && n.kind != "switch")) ids.push_back(n.id);
  return ids;
}

std::string dot_of(const Topology& t, const std::map<std::string, std::vector<std::string>>& on) {
  std::string s = "graph baton {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (const TopoNode& n : t.nodes()) {
    std::string label = n.id + " (" + n.kind + ")";
    if (auto it = on.find(n.id); it != on.end())
      for (const std::string& d : it->second) label += "\\n" + d;
    s += "  \"" + n.id + "\" [label=\"" + label + "\"" +
         (n.kind == "switch" ? ", shape=ellipse" : "") + "];\n";
  }
  for (const TopoLink& l : t.links())
    s += "  \"" + l.a + "\" -- \"" + l.b + "\" [label=\"" + std::string(to_string(l.kind)) + " " +
         fixed(l.gbps, 0) + " GB/s\"" + (l.kind == LinkKind::nvlink ? ", penwidth=3" : "") + "];\n";
  return s + "}\n";
}

void run_topo(TopoArgs a) {
  if (!a.file.empty() && is_sim_machine_file(a.file)) {
    a.devices = "sim:" + a.file;
    a.file.clear();
  }
  Topology t;
  std::map<std::string, std::vector<std::string>> on;  // node id -> devices on it
  std::string origin = a.file;
  std::vector<detail::LinkMeasure> probe;
  if (a.probe && !a.file.empty())
    raise(Errc::invalid_argument, "--probe", "measures devices: give --devices, not --topology");
  if (a.probe_mib < 1 || a.probe_mib > 4096)
    raise(Errc::invalid_argument, "--probe-mib", "must be from 1 to 4096");
  std::vector<detail::HostTreeNode> host;     // the real host's tree, where devices are real
  std::map<std::string, std::string> by_bus;  // PCI bus id -> the devices on it
  if (a.file.empty()) {
    DeviceSet set = open_devices(a.devices);
    t = set.topology;
    bool real = false;
    for (const auto& d : set.devices) {
      on[d->info().topology_id].push_back(d->name());
      real = real || d->info().backend != BackendKind::sim;
      std::string& names = by_bus[d->info().pci_bus_id];
      if (!d->info().pci_bus_id.empty()) names += (names.empty() ? "" : " ") + d->name();
    }
    if (real) host = detail::host_tree();
    origin = "discovered (" + a.devices + ")";
    if (a.probe) {
      const std::size_t bytes = std::size_t(a.probe_mib) << 20;
      probe = detail::probe_links(set, bytes, 3);
      for (auto& m : detail::probe_host_links_both_ways(set, bytes, 3)) probe.push_back(m);
    }
  } else {
    t = Topology::load(a.file);
  }
  if (!a.save.empty()) {
    // The measured figures beside the nominal ones; --topology reads the links back.
    nlohmann::json saved = nlohmann::json::parse(t.to_json());
    if (a.probe) saved["measured"] = probe_json(probe);
    std::ofstream out(a.save);
    out << saved.dump(1) << "\n";
    if (!out) raise(Errc::invalid_argument, "--save", "cannot write '" + a.save + "'");
  }
  if (a.dot) {
    std::fputs(dot_of(t, on).c_str(), stdout);
    return;
  }
  const std::vector<std::string> ids = endpoints(t, on);
  std::vector<std::vector<std::optional<PathCost>>> paths(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (const std::string& b : ids) paths[i].push_back(t.path(ids[i], b));
  if (a.json) {
    nlohmann::json j = nlohmann::json::parse(t.to_json());
    j["origin"] = origin;
    j["devices"] = nlohmann::json::object();
    for (const auto& [node, devs] : on) j["devices"][node] = devs;
    nlohmann::json m;
    m["ids"] = ids;
    for (const auto& row : paths) {
      nlohmann::json g = nlohmann::json::array(), l = nlohmann::json::array(),
                     k = nlohmann::json::array(), h = nlohmann::json::array();
      for (const auto& p : row) {
        g.push_back(p ? nlohmann::json(p->gbps) : nlohmann::json());
        l.push_back(p ? nlohmann::json(p->latency_us) : nlohmann::json());
        k.push_back(p ? nlohmann::json(std::string(to_string(p->worst))) : nlohmann::json());
        h.push_back(p ? nlohmann::json(p->hops) : nlohmann::json());
      }
      m["gbps"].push_back(g);
      m["latency_us"].push_back(l);
      m["slowest_kind"].push_back(k);
      m["hops"].push_back(h);
    }
    j["paths"] = m;
    if (a.probe) j["measured"] = probe_json(probe);
    j["host"] = nlohmann::json::array();
    for (const auto& n : host)
      j["host"].push_back({{"depth", n.depth},
                           {"kind", n.kind},
                           {"label", n.label},
                           {"pci_bus_id", n.pci_bus_id},
                           {"devices", n.pci_bus_id.empty() ? "" : by_bus[n.pci_bus_id]}});
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  if (!host.empty()) {
    std::printf("host (hwloc):\n");
    for (const auto& n : host) {
      const std::string& devs = n.pci_bus_id.empty() ? std::string() : by_bus[n.pci_bus_id];
      std::printf("  %s%s%s\n", std::string(std::size_t(n.depth) * 2, ' ').c_str(), n.label.c_str(),
                  devs.empty() ? "" : ("  <- " + devs).c_str());
    }
  }
  std::printf("topology: %zu nodes, %zu links, %s\n", t.nodes().size(), t.links().size(),
              origin.c_str());
  Table nodes({"node", "kind", "devices"});
  for (const TopoNode& n : t.nodes()) {
    std::string devs;
    if (auto it = on.find(n.id); it != on.end())
      for (const std::string& d : it->second) devs += (devs.empty() ? "" : " ") + d;
    nodes.add({n.id, n.kind, devs});
  }
  std::fputs(nodes.str().c_str(), stdout);
  Table links({"link", "kind", "GB/s", "latency us"});
  for (const TopoLink& l : t.links())
    links.add({l.a + " -- " + l.b, std::string(to_string(l.kind)), fixed(l.gbps, 1),
               fixed(l.latency_us, 1)});
  std::fputs(links.str().c_str(), stdout);
  std::printf(
      "best paths, GB/s per direction (the slowest link on the widest path; 'same': one node):\n");
  std::vector<std::string> header{""};
  header.insert(header.end(), ids.begin(), ids.end());
  Table matrix(header);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::vector<std::string> row{ids[i]};
    for (std::size_t j = 0; j < ids.size(); ++j) {
      const auto& p = paths[i][j];
      row.push_back(i == j ? "same"
                    : p    ? fixed(p->gbps, 0) + " " + std::string(to_string(p->worst))
                           : "none");
    }
    matrix.add(row);
  }
  std::fputs(matrix.str().c_str(), stdout);
  if (a.probe) print_probe(probe);
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "topo", "The machine as a graph: nodes, links, and the best path between every two");
  cmd->footer(
      "The topology file (--save writes it, --topology reads it; sim files use the same links):\n"
      "  {\"nodes\": [{\"id\": \"gpu0\", \"kind\": \"gpu\"}, ...],\n"
      "   \"links\": [{\"a\": \"gpu0\", \"b\": \"gpu1\", \"kind\": \"nvlink\", \"gbps\": 450,\n"
      "              \"latency_us\": 2}, ...]}\n"
      "kinds: nvlink, pcie, sys, virtual, net. Draw it: baton topo --dot | dot -Tsvg > "
      "machine.svg");
  auto a = std::make_shared<TopoArgs>();
  cmd->add_option("-d,--devices", a->devices, "device spec whose topology to discover")
      ->capture_default_str();
  cmd->add_option("--topology", a->file,
                  "read this topology file instead of discovering (a sim machine file: the "
                  "graph its devices make, as -d sim:FILE)");
  cmd->add_option("--save", a->save, "also write the topology to this file");
  cmd->add_flag("--json", a->json, "print JSON: nodes, links, devices per node, best paths");
  cmd->add_flag("--dot", a->dot, "print the graph in Graphviz's dot language");
  cmd->add_flag("--probe", a->probe,
                "measure each link: timed copies host <-> every device and between devices on "
                "memories of their own, beside the nominal figure (--save keeps both)");
  cmd->add_option("--probe-mib", a->probe_mib, "bytes per probing copy, MiB")
      ->capture_default_str();
  cmd->callback([a] { run_topo(*a); });
}

}  // namespace baton::cli
