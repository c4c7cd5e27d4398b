// Topology files: {"nodes": [{"id": "gpu0", "kind": "gpu"}],
//                  "links": [{"a": "gpu0", "b": "gpu1", "kind": "nvlink", "gbps": 450,
//                  "latency_us": 2}]}
#include <set>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/topology.hpp"
#include "common/text_file.hpp"

namespace baton {

std::string Topology::to_json() const {
  nlohmann::json j;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : nodes_) j["nodes"].push_back({{"id", n.id}, {"kind", n.kind}});
  j["links"] = nlohmann::json::array();
  for (const auto& l : links_)
    j["links"].push_back({{"a", l.a},
                          {"b", l.b},
                          {"kind", std::string(to_string(l.kind))},
                          {"gbps", l.gbps},
                          {"latency_us", l.latency_us}});
  return j.dump(2);
}

Topology Topology::from_json(const std::string& text, const std::string& origin) {
  auto bad = [&](const std::string& msg) { raise(Errc::bad_topology, origin, msg); };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    bad("needs a \"nodes\" array");
  Topology t;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& n = j["nodes"][i];
    const std::string ctx = "nodes[" + std::to_string(i) + "]";
    if (!n.is_object() || !n.contains("id") || !n["id"].is_string() ||
        n["id"].get<std::string>().empty())
      bad(ctx + " needs a non-empty string id");
    std::string id = n["id"].get<std::string>();
    if (!ids.insert(id).second) bad(ctx + ".id '" + id + "' is used twice");
    std::string kind =
        n.contains("kind") && n["kind"].is_string() ? n["kind"].get<std::string>() : "";
    t.add_node({id, kind});
  }
  if (j.contains("links")) {
    if (!j["links"].is_array()) bad("\"links\" must be an array");
    for (std::size_t i = 0; i < j["links"].size(); ++i) {
      const auto& l = j["links"][i];
      const std::string ctx = "links[" + std::to_string(i) + "]";
      if (!l.is_object()) bad(ctx + " must be an object");
      for (const char* key : {"a", "b", "kind"})
        if (!l.contains(key) || !l[key].is_string()) bad(ctx + " needs a string field " + key);
      for (const char* key : {"gbps", "latency_us"})
        if (!l.contains(key) || !l[key].is_number()) bad(ctx + " needs a number field " + key);
      TopoLink link{l["a"].get<std::string>(), l["b"].get<std::string>(),
                    parse_link_kind(l["kind"].get<std::string>(), origin + ": " + ctx),
                    l["gbps"].get<double>(), l["latency_us"].get<double>()};
      for (const auto& end : {link.a, link.b})
        if (!ids.count(end)) bad(ctx + " names unknown node '" + end + "'");
      if (!(link.gbps > 0) || link.latency_us < 0) bad(ctx + " needs gbps > 0 and latency_us >= 0");
      t.add_link(link);
    }
  }
  return t;
}

Topology Topology::load(const std::string& path) {
  return from_json(detail::read_text_file(path, Errc::bad_topology, "topology file"), path);
}

}  // namespace baton
