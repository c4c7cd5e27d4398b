// Names of the device layer's vocabulary: backends and link kinds.
#include "baton/device.hpp"
#include "baton/error.hpp"
#include "baton/link.hpp"

namespace baton {

std::string_view to_string(BackendKind b) {
  switch (b) {
    case BackendKind::cpu:
      return "cpu";
    case BackendKind::sim:
      return "sim";
    case BackendKind::cuda:
      return "cuda";
    case BackendKind::opencl:
      return "opencl";
  }
  return "?";
}

std::string_view to_string(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink:
      return "nvlink";
    case LinkKind::pcie:
      return "pcie";
    case LinkKind::sys:
      return "sys";
    case LinkKind::virt:
      return "virtual";
    case LinkKind::net:
      return "net";
  }
  return "?";
}

LinkKind parse_link_kind(const std::string& text, const std::string& where) {
  for (LinkKind k :
       {LinkKind::nvlink, LinkKind::pcie, LinkKind::sys, LinkKind::virt, LinkKind::net})
    if (text == to_string(k)) return k;
  raise(Errc::bad_topology, where,
        "link kind '" + text + "' is not nvlink, pcie, sys, virtual or net");
}

}  // namespace baton
