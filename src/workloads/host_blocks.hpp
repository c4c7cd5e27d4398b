#pragma once

#include <cstdint>
#include <functional>

namespace baton::workloads {

// Runs body(begin, end) over [0, n) cut into blocks of at least `grain`, one
// a host thread (the caller's among them); returns once all have run. `body`
// must not throw. The benches' host buffers reach tens of GiBs, and filled,
// poisoned and checked on one thread they cost a sweep's memory-bound rows
// seconds each.
void for_blocks(std::uint64_t n, std::uint64_t grain,
                const std::function<void(std::uint64_t, std::uint64_t)>& body);

}  // namespace baton::workloads
