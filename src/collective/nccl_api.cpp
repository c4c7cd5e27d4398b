#include "collective/nccl_api.hpp"

#include "baton/error.hpp"
#include "vendor/cuda/library.hpp"

namespace baton::collective {

const NcclApi& nccl_api() {
  static const NcclApi loaded = [] {
    NcclApi a;
    const cuda::Library lib = cuda::open_library({"libnccl.so.2", "libnccl.so"});
    if (!lib.handle) {
      a.error = "libnccl.so.2 did not load: " + lib.error;
      return a;
    }
    cuda::resolve(lib, a.get_version, "ncclGetVersion", "NCCL", a.error);
    cuda::resolve(lib, a.error_string, "ncclGetErrorString", "NCCL", a.error);
    cuda::resolve(lib, a.get_unique_id, "ncclGetUniqueId", "NCCL", a.error);
    cuda::resolve(lib, a.comm_init_all, "ncclCommInitAll", "NCCL", a.error);
    cuda::resolve(lib, a.comm_init_rank, "ncclCommInitRank", "NCCL", a.error);
    cuda::resolve(lib, a.comm_destroy, "ncclCommDestroy", "NCCL", a.error);
    cuda::resolve(lib, a.all_reduce, "ncclAllReduce", "NCCL", a.error);
    return a;
  }();
  return loaded;
}

void nccl_check(int result, const char* call, const std::string& where) {
  if (result == 0) return;
  raise(Errc::device_failed, where,
        std::string(call) + " failed (" + std::to_string(result) +
            "): " + nccl_api().error_string(result));
}

std::string nccl_name() {
  int v = 0;
  nccl_check(nccl_api().get_version(&v), "ncclGetVersion", "nccl");
  return "nccl " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace baton::collective
