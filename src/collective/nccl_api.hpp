// NCCL's entry points, opened at run time (libnccl.so.2), for the
// communicators within a process (nccl.hpp) and between processes
// (nccl_processes.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace baton::collective {

// ncclUniqueId: what the first rank makes and every other rank is given.
struct NcclUniqueId {
  char internal[128];
};

// The few entry points used, with NCCL's ABI in plain types (enums are ints:
// ncclFloat32 is 7, ncclSum 0; handles are pointers).
struct NcclApi {
  int (*get_version)(int*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*get_unique_id)(NcclUniqueId*) = nullptr;
  int (*comm_init_all)(void** comms, int ranks, const int* devices) = nullptr;
  int (*comm_init_rank)(void** comm, int ranks, NcclUniqueId id, int rank) = nullptr;
  int (*comm_destroy)(void* comm) = nullptr;
  int (*all_reduce)(const void* send, void* recv, std::size_t count, int type, int op, void* comm,
                    void* stream) = nullptr;
  std::string error;  // why it did not load
};
inline constexpr int kNcclFloat32 = 7, kNcclSum = 0;

const NcclApi& nccl_api();

// Error(device_failed, where) naming `call` and NCCL's reason, unless `result` is 0.
void nccl_check(int result, const char* call, const std::string& where);

// "nccl 2.27.7"
std::string nccl_name();

}  // namespace baton::collective
