// What the training step's GEMMs cost beyond their own work (no CUDA headers:
// the command line reads it).
#pragma once

#include <cstdint>

namespace baton::train {

struct GemmCounts {
  std::uint64_t fused = 0, unfused = 0;  // with cuBLASLt's epilogue, or a kernel of ours after
  std::uint64_t searches = 0;            // cuBLASLt heuristic queries (one per new bucket of rows)
  std::uint64_t checks = 0;              // a bucket's algorithm checked for a new count of rows
  double host_seconds = 0;               // spent on both, on the workers' threads
};

// Over all streams, so far.
GemmCounts cuda_gemm_counts();

}  // namespace baton::train
