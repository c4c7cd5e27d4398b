#include "baton/device.hpp"
#include "baton/topology.hpp"

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
  }
  return "?";
}

}  // namespace baton
