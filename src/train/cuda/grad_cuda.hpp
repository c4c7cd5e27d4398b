// The CUDA code of the training step's kernels: grad as a native launcher
// (forward and backward of a chunk of micro-batches with bf16 GEMMs through
// cuBLASLt, fused epilogues for the bias, GELU and GELU's gradient, weight
// gradients accumulated in fp32), publish and adamw from the embedded fatbin.
#pragma once

#include "train/mlp.hpp"
#include "train/step_kernels.hpp"

namespace baton::train {

void add_cuda_code(StepKernels& kernels, const MlpLayout& layout, int micro_batch);

}  // namespace baton::train
