// The OpenCL code of the training step's kernels, in fp32: grad as a native
// launcher (GEMMs through CLBlast, the elementwise steps in OpenCL C on the
// launching queue), publish and adamw_slots as OpenCL C. OpenCL memory has no
// addresses to put in a table, so an OpenCL device always reduces through
// the slots.
#pragma once

#include "train/mlp.hpp"
#include "train/step_kernels.hpp"

namespace baton::train {

void add_opencl_code(StepKernels& kernels, const MlpLayout& layout);

}  // namespace baton::train
