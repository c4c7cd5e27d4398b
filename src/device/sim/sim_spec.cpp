// The ways to describe sim devices: a list of speeds, or a JSON file (a
// preset's name stands for presets/NAME.json):
// {"about": "where the figures come from", "launch_us": 5, "wake_us": 0, "execute": true,
//  "pipeline_depth": 3,
//  "perf_models": "~/.cache/baton/perf_models.json",
//  "devices": [{"id": "gpu0", "speed": 8, "memory_gbps": 3350, "memory_gib": 80,
//               "parallel_items": 270336, "busy_items": 43008, "wave_step": 33792,
//               "pipeline_depth": 3,
//               "measured_as": "cuda0 | NVIDIA H200",
//               "changes": [{"at_s": 0.5, "speed": 2}], "fail_at_s": 1}],
//  "switches": ["nvswitch"],
//  "links":   [{"a": "gpu0", "b": "host", "kind": "pcie", "gbps": 55, "latency_us": 5}]}
// Devices without a path to host (their own link, or one through switches)
// get a default PCIe-like link.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/link.hpp"
#include "common/text_file.hpp"
#include "device/sim/sim_device.hpp"
#include "device/sim/sim_links.hpp"

namespace baton::detail {

static constexpr double kDefaultGbps = 55, kDefaultLatencyUs = 5;

static void add_default_host_links(SimMachine& m) {
  const Topology net = sim_network(m);
  for (const auto& d : m.devices)
    if (!net.path(d.id, "host"))
      m.links.push_back({d.id, "host", LinkKind::pcie, kDefaultGbps, kDefaultLatencyUs});
}

static double parse_speed(const std::string& tok, const std::string& where) {
  char* end = nullptr;
  double v = std::strtod(tok.c_str(), &end);
  if (tok.empty() || end != tok.c_str() + tok.size() || !(v > 0) || v > 1e6)
    raise(Errc::bad_device_spec, where, "'" + tok + "' is not a positive speed");
  return v;
}

static SimMachine read_sim_file(const std::string& path, const std::string& what) {
  return sim_machine_from_json(detail::read_text_file(path, Errc::bad_topology, what), path);
}

SimMachine parse_sim_args(const std::string& args) {
  if (args.empty())
    raise(Errc::bad_device_spec, "sim", "sim needs speeds or a file, e.g. sim:8,4,2,1");
  const std::string where = "sim:" + args;
  if (args.size() > 5 && args.substr(args.size() - 5) == ".json")
    return read_sim_file(args, "sim topology file");
  if (!args.empty() && std::isalpha(static_cast<unsigned char>(args[0]))) {
    const std::string path = std::string(BATON_PRESETS_DIR) + "/" + args + ".json";
    if (!std::ifstream(path))
      raise(Errc::bad_device_spec, where,
            "no preset machine '" + args + "' (the presets are the files in " +
                std::string(BATON_PRESETS_DIR) + ")");
    return read_sim_file(path, "preset");
  }
  SimMachine m;
  std::stringstream ss(args);
  for (std::string tok; std::getline(ss, tok, ',');) {
    SimDeviceSpec d;
    d.id = "sim" + std::to_string(m.devices.size());
    d.speed = parse_speed(tok, where);
    m.devices.push_back(d);
  }
  if (m.devices.size() > 1024) raise(Errc::bad_device_spec, where, "at most 1024 sim devices");
  add_default_host_links(m);
  return m;
}

SimMachine sim_machine_from_json(const std::string& text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    raise(Errc::bad_topology, origin, std::string("not valid JSON: ") + e.what());
  }
  auto bad = [&](const std::string& msg) { raise(Errc::bad_topology, origin, msg); };
  auto number = [&](const nlohmann::json& o, const char* key, double dflt, const std::string& ctx) {
    if (!o.contains(key)) return dflt;
    if (!o[key].is_number()) bad(ctx + "." + key + " must be a number");
    return o[key].get<double>();
  };
  if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array() || j["devices"].empty())
    bad("needs a non-empty \"devices\" array");
  SimMachine m;
  if (j.contains("execute")) {
    if (!j["execute"].is_boolean()) bad("execute must be true or false");
    m.execute = j["execute"].get<bool>() ? 1 : 0;
  }
  if (j.contains("launch_us")) {
    m.launch_us = number(j, "launch_us", 0, "top level");
    if (m.launch_us < 0) bad("launch_us must not be negative");
  }
  m.wake_us = number(j, "wake_us", 0, "top level");
  if (!(m.wake_us >= 0 && m.wake_us <= 1e6)) bad("wake_us must be from 0 to 10^6");
  if (j.contains("pipeline_depth")) {
    const double depth = number(j, "pipeline_depth", 1, "top level");
    if (depth != std::floor(depth) || depth < 1 || depth > 8)
      bad("pipeline_depth must be a whole number from 1 to 8");
    m.pipeline_depth = int(depth);
  }
  if (j.contains("perf_models")) {
    if (!j["perf_models"].is_string() || j["perf_models"].get<std::string>().empty())
      bad("perf_models must be the path of a performance models file");
    m.perf_models = j["perf_models"].get<std::string>();
    // Relative to the machine file, as its other paths would be.
    const std::filesystem::path file(m.perf_models);
    if (m.perf_models[0] != '~' && file.is_relative())
      m.perf_models = (std::filesystem::path(origin).parent_path() / file).string();
  }
  std::set<std::string> ids;
  for (std::size_t i = 0; i < j["devices"].size(); ++i) {
    const auto& o = j["devices"][i];
    const std::string ctx = "devices[" + std::to_string(i) + "]";
    if (!o.is_object()) bad(ctx + " must be an object");
    SimDeviceSpec d;
    d.id = o.contains("id") && o["id"].is_string() ? o["id"].get<std::string>()
                                                   : "sim" + std::to_string(i);
    if (d.id.empty() || d.id == "host" || !ids.insert(d.id).second)
      bad(ctx + ".id '" + d.id + "' is empty, 'host' or used twice");
    if (!o.contains("speed")) bad(ctx + " needs a speed");
    d.speed = number(o, "speed", 0, ctx);
    if (!(d.speed > 0)) bad(ctx + ".speed must be positive");
    d.fail_at_s = number(o, "fail_at_s", -1, ctx);
    d.memory_gbps = number(o, "memory_gbps", 0, ctx);
    if (d.memory_gbps < 0) bad(ctx + ".memory_gbps must not be negative");
    const double gib = number(o, "memory_gib", 0, ctx);
    if (!(gib >= 0 && gib <= 1 << 20)) bad(ctx + ".memory_gib must be from 0 (unbounded) to 2^20");
    d.memory_bytes = std::uint64_t(gib * double(1ull << 30));
    // A whole number from 0 to `most` (0 where absent); `range` says so.
    auto whole = [&](const char* key, double most, const char* range) {
      const double x = number(o, key, 0, ctx);
      if (!(x >= 0 && x <= most && x == std::floor(x)))
        bad(ctx + "." + key + " must be a whole number " + range);
      return std::uint64_t(x);
    };
    d.parallel_items = whole("parallel_items", 1e9, "from 0 (one at a time) to 10^9");
    d.pipeline_depth = int(whole("pipeline_depth", 8, "from 1 to 8 (0: the machine's)"));
    const double lanes = double(d.parallel_items);
    d.busy_items = whole("busy_items", lanes, "from 0 (all of parallel_items) to parallel_items");
    d.wave_step =
        whole("wave_step", lanes, "from 0 (a part of a wave as its items) to parallel_items");
    if (o.contains("measured_as")) {
      if (!o["measured_as"].is_string() || o["measured_as"].get<std::string>().empty())
        bad(ctx + ".measured_as must name a device of the performance models");
      d.measured_as = o["measured_as"].get<std::string>();
    }
    if (o.contains("changes")) {
      if (!o["changes"].is_array()) bad(ctx + ".changes must be an array");
      for (const auto& c : o["changes"]) {
        SimSpeedChange ch{number(c, "at_s", -1, ctx + ".changes"),
                          number(c, "speed", 0, ctx + ".changes")};
        if (ch.at_s < 0 || !(ch.speed > 0)) bad(ctx + ".changes need at_s >= 0 and speed > 0");
        d.changes.push_back(ch);
      }
    }
    m.devices.push_back(d);
  }
  for (const auto& d : m.devices)
    if (!d.measured_as.empty() && m.perf_models.empty())
      bad("device '" + d.id + "' is measured_as '" + d.measured_as +
          "', but the file names no perf_models");
  if (j.contains("switches")) {
    if (!j["switches"].is_array()) bad("\"switches\" must be an array of ids");
    for (std::size_t i = 0; i < j["switches"].size(); ++i) {
      const auto& o = j["switches"][i];
      const std::string ctx = "switches[" + std::to_string(i) + "]";
      if (!o.is_string() || o.get<std::string>().empty() || o.get<std::string>() == "host" ||
          !ids.insert(o.get<std::string>()).second)
        bad(ctx + " must be a new, non-empty id other than 'host'");
      m.switches.push_back(o.get<std::string>());
    }
  }
  if (j.contains("links")) {
    if (!j["links"].is_array()) bad("\"links\" must be an array");
    for (std::size_t i = 0; i < j["links"].size(); ++i) {
      const auto& o = j["links"][i];
      const std::string ctx = "links[" + std::to_string(i) + "]";
      if (!o.is_object() || !o.contains("a") || !o.contains("b") || !o["a"].is_string() ||
          !o["b"].is_string())
        bad(ctx + " needs string fields a and b");
      TopoLink l;
      l.a = o["a"].get<std::string>();
      l.b = o["b"].get<std::string>();
      for (const auto& end : {l.a, l.b})
        if (end != "host" && !ids.count(end)) bad(ctx + " names unknown node '" + end + "'");
      if (l.a == l.b) bad(ctx + " links '" + l.a + "' to itself");
      l.kind = o.contains("kind")
                   ? parse_link_kind(o["kind"].is_string() ? o["kind"].get<std::string>() : "",
                                     origin + ": " + ctx + ".kind")
                   : LinkKind::pcie;
      l.gbps = number(o, "gbps", 0, ctx);
      l.latency_us = number(o, "latency_us", 0, ctx);
      if (!(l.gbps > 0) || l.latency_us < 0) bad(ctx + " needs gbps > 0 and latency_us >= 0");
      m.links.push_back(l);
    }
  }
  add_default_host_links(m);
  return m;
}

}  // namespace baton::detail
