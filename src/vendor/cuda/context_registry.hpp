// What code above the backends may learn of the CUDA context current on its
// thread, by its handle: the SMs it may use (all of its GPU's, or a green
// context's share), and a call when it is destroyed, for state a library
// keeps per context (cuBLAS handles). The CUDA backend registers each context
// it makes; training and collectives ask here, with no backend header.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace baton::cuda {

struct ContextFacts {
  int sm_count = 0;
  bool green = false;  // a green context: `sm_count` of its GPU's SMs
};

// By the backend: `ctx` is live with these facts until forget_context(id).
// Where two registrations share a handle (a primary context), the latest one answers.
std::uint64_t register_context(CUcontext ctx, ContextFacts facts);
// The registration ends; returns the calls to make, with the context still
// current, before it is destroyed.
std::vector<std::function<void()>> forget_context(std::uint64_t id);

std::optional<ContextFacts> context_facts(CUcontext ctx);
// `fn` runs when the latest registration of `ctx` ends; false where none is live.
bool on_context_destroyed(CUcontext ctx, std::function<void()> fn);

}  // namespace baton::cuda
