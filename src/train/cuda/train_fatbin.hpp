// The training step's CUDA kernels (train_kernels.cu) as one fatbin embedded
// in baton_train.
#pragma once

#include <span>

namespace baton::train {

std::span<const unsigned char> train_cuda_fatbin();

}  // namespace baton::train
