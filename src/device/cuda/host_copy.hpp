// memcpy between pageable and pinned host memory on several threads: one
// core's copy bandwidth is below a PCIe Gen5 x16 link, so the staged
// transfers would otherwise be bound by the CPU, not the link.
#pragma once

#include <cstddef>

namespace baton::cuda {

// Copies n bytes, splitting copies of 1 MiB and more over a small pool of
// threads (the caller takes one part; BATON_CUDA_COPY_THREADS sets how many
// copy in all). Returns when all parts are done.
void parallel_memcpy(void* dst, const void* src, std::size_t n);

}  // namespace baton::cuda
