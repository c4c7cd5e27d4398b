// The one entry point of the MPI plugin (libbaton_mpi.so), opened by
// join_processes(): it initialises MPI and returns the world as a
// ProcessGroup, or nullptr with the reason written to `error`.
#pragma once

#include <cstddef>

namespace baton::collective {

class ProcessGroup;

using MpiJoin = ProcessGroup* (*)(char* error, std::size_t error_size);
inline constexpr const char* kMpiJoinSymbol = "baton_mpi_join";
inline constexpr const char* kMpiPluginName = "libbaton_mpi.so";

}  // namespace baton::collective
