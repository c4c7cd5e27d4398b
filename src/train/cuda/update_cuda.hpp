// The AdamW update on CUDA: native launchers of the fused update kernels,
// sized to the device rather than one thread per parameter.
#pragma once

#include "train/step_kernels.hpp"

namespace baton::train {

// Gives k.adamw_shared and k.adamw_slots their CUDA code.
void add_cuda_update(StepKernels& k);

}  // namespace baton::train
