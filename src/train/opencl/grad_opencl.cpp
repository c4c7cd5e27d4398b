#include "train/opencl/grad_opencl.hpp"

// The backend's OpenCL headers first: they set the API level CLBlast's see.
#include "vendor/opencl/cl_api.hpp"
// clang-format off
#include <clblast_c.h>
// clang-format on

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "baton/error.hpp"
#include "train/kernel_args.hpp"

namespace baton::train {

namespace {

// The step's OpenCL C: publish, adamw_slots (baton kernels, kernel.hpp's
// convention) and the grad kernel's elementwise steps. fp32 throughout.
const char* const kSource = R"CL(
typedef struct { ulong first; uint slot; uint tag; } PublishArgs;
typedef struct { ulong stride; uint slots; uint unused; } SlotArgs;
typedef struct { float lr, beta1, beta2, eps; } AdamWRates;
typedef struct { float weight_decay, scale, correction1, correction2; } AdamWStep;

#define SQRT_2_OVER_PI 0.7978845608028654f
#define CUBIC 0.044715f
float gelu(float z) { return 0.5f * z * (1.0f + tanh(SQRT_2_OVER_PI * (z + CUBIC * z * z * z))); }
float gelu_grad(float z) {
  const float t = tanh(SQRT_2_OVER_PI * (z + CUBIC * z * z * z));
  return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * SQRT_2_OVER_PI * (1.0f + 3 * CUBIC * z * z);
}
bool tagged(__global const float* acc, ulong params, uint tag) { return as_uint(acc[params + 1]) == tag; }

__kernel void baton_train_publish(ulong begin, ulong end, __global const float* acc,
                                  __global float* slots, __global float* losses, PublishArgs p,
                                  ulong params) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  const bool mine = tagged(acc, params, p.tag);
  slots[i] = mine ? acc[i - p.first] : 0.0f;
  if (i == p.first) losses[p.slot] = mine ? acc[params] : 0.0f;
}

__kernel void baton_train_adamw_slots(ulong begin, ulong end, __global const float* slots,
                                      __global const float* from, __global float* p,
                                      __global float* m, __global float* v, __global ushort* low,
                                      AdamWRates r, AdamWStep s, SlotArgs sl) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  float g = 0.0f;
  for (uint k = 0; k < sl.slots; ++k) g += slots[k * sl.stride + i];
  float pi = from[i], mi = m[i], vi = v[i];
  g *= s.scale;
  mi = r.beta1 * mi + (1.0f - r.beta1) * g;
  vi = r.beta2 * vi + (1.0f - r.beta2) * g * g;
  const float update = (mi / s.correction1) / (sqrt(vi / s.correction2) + r.eps);
  pi -= r.lr * (update + s.weight_decay * pi);
  p[i] = pi, m[i] = mi, v[i] = vi;
  uint u = as_uint(pi);  // bf16, nearest even (NaN stays NaN)
  low[i] = (u & 0x7fffffffu) > 0x7f800000u ? (ushort)((u >> 16) | 0x40u)
                                           : (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// The grad kernel's steps work in one scratch buffer `s` at offsets (floats).
// z (rows x cols) += bias; a = gelu(z), or z where gelu_on is 0.
__kernel void train_bias_gelu(uint cols, __global float* s, ulong z_at, ulong a_at,
                              __global const float* params, ulong bias, int gelu_on) {
  const size_t i = get_global_id(0);
  const float v = s[z_at + i] + params[bias + i % cols];
  s[z_at + i] = v;
  s[a_at + i] = gelu_on ? gelu(v) : v;
}

// dz = prediction - target; row_loss[r] = 0.5 |dz row r|^2: a work-item per row.
__kernel void train_loss(uint cols, __global float* s, ulong prediction_at,
                         __global const float* target, ulong target_at, ulong dz_at,
                         ulong row_loss_at) {
  const size_t r = get_global_id(0);
  float sum = 0.0f;
  for (uint c = 0; c < cols; ++c) {
    const size_t i = r * cols + c;
    const float d = s[prediction_at + i] - target[target_at + i];
    s[dz_at + i] = d;
    sum += 0.5f * d * d;
  }
  s[row_loss_at + r] = sum;
}

// acc[acc_at] += the sum of s[at, at + n): one work-item, in order.
__kernel void train_add_sum(uint n, __global const float* s, ulong at, __global float* acc,
                            ulong acc_at) {
  float sum = 0.0f;
  for (uint i = 0; i < n; ++i) sum += s[at + i];
  acc[acc_at] += sum;
}

// acc[bias + c] += the sum over rows of dz[r][c]: a work-item per column.
__kernel void train_bias_grad(uint rows, uint cols, __global const float* s, ulong dz_at,
                              __global float* acc, ulong bias) {
  const size_t c = get_global_id(0);
  float sum = 0.0f;
  for (uint r = 0; r < rows; ++r) sum += s[dz_at + r * cols + c];
  acc[bias + c] += sum;
}

// d *= gelu'(z), elementwise.
__kernel void train_gelu_backward(__global float* s, ulong d_at, ulong z_at) {
  const size_t i = get_global_id(0);
  s[d_at + i] *= gelu_grad(s[z_at + i]);
}
)CL";

void check(cl_int status, const char* call) {
  if (status == CL_SUCCESS) return;
  const bool memory = status == CL_OUT_OF_RESOURCES || status == CL_OUT_OF_HOST_MEMORY ||
                      status == CL_MEM_OBJECT_ALLOCATION_FAILURE;
  raise(memory ? Errc::out_of_memory : Errc::device_failed, "train.grad",
        std::string(call) + " failed (" + std::to_string(status) + ")");
}

void check_blast(CLBlastStatusCode status, const char* call) {
  if (status == CLBlastSuccess) return;
  raise(status < 0 && status > -100 ? Errc::device_failed : Errc::invalid_argument, "train.grad",
        std::string(call) + " failed (CLBlast status " + std::to_string(int(status)) + ")");
}

struct Program {
  cl_program program = nullptr;
  cl_kernel bias_gelu = nullptr, loss = nullptr, add_sum = nullptr, bias_grad = nullptr,
            gelu_backward = nullptr;
};

// What one queue keeps: the program of its context and scratch memory,
// grown as larger chunks arrive.
struct QueueState {
  cl_context context = nullptr;
  Program prog;
  cl_mem scratch = nullptr;
  std::size_t scratch_bytes = 0;
  std::map<cl_mem, std::uint32_t> tags;  // accumulator -> the accumulation it holds
  ~QueueState() {
    if (scratch) clReleaseMemObject(scratch);
    for (cl_kernel k :
         {prog.bias_gelu, prog.loss, prog.add_sum, prog.bias_grad, prog.gelu_backward})
      if (k) clReleaseKernel(k);
    if (prog.program) clReleaseProgram(prog.program);
  }
};

// The states of one grad kernel, one per queue, each made by its device's
// worker on first use. The kernel owns them: the runtime keeps its kernels
// until it goes, so a queue's handle is never seen again by another queue
// while they live (a process-wide map would hand a later runtime's queue at
// the same address a state of another context), and they go before the
// runtime's queues and contexts.
struct QueueStates {
  std::mutex mu;
  std::map<cl_command_queue, std::unique_ptr<QueueState>> by_queue;
};

QueueState& state_for(QueueStates& states, cl_command_queue queue) {
  std::lock_guard lock(states.mu);
  auto& slot = states.by_queue[queue];
  if (slot) return *slot;
  auto st = std::make_unique<QueueState>();
  check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof st->context, &st->context, nullptr),
        "clGetCommandQueueInfo");
  cl_device_id device = nullptr;
  check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr),
        "clGetCommandQueueInfo");
  cl_int status = CL_SUCCESS;
  const char* source = kSource;
  st->prog.program = clCreateProgramWithSource(st->context, 1, &source, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  if (clBuildProgram(st->prog.program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(st->prog.program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(st->prog.program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    raise(Errc::compile_failed, "train.grad", "the training kernels did not build: " + log);
  }
  auto kernel = [&](cl_kernel& k, const char* name) {
    k = clCreateKernel(st->prog.program, name, &status);
    check(status, "clCreateKernel");
  };
  kernel(st->prog.bias_gelu, "train_bias_gelu");
  kernel(st->prog.loss, "train_loss");
  kernel(st->prog.add_sum, "train_add_sum");
  kernel(st->prog.bias_grad, "train_bias_grad");
  kernel(st->prog.gelu_backward, "train_gelu_backward");
  slot = std::move(st);
  return *slot;
}

// Sets a kernel's arguments in order and enqueues it over `items` work-items.
class Launch {
 public:
  Launch(cl_command_queue q, cl_kernel k) : q_(q), k_(k) {}
  template <class T>
  Launch& arg(const T& value) {
    check(clSetKernelArg(k_, index_++, sizeof value, &value), "clSetKernelArg");
    return *this;
  }
  void run(std::size_t items) {
    check(clEnqueueNDRangeKernel(q_, k_, 1, nullptr, &items, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }

 private:
  cl_command_queue q_;
  cl_kernel k_;
  cl_uint index_ = 0;
};

cl_mem mem_of(const KernelArgs& a, std::size_t i) {
  return reinterpret_cast<cl_mem>(a[i].memory.handle);
}

void grad(const MlpLayout& layout, QueueStates& states, cl_command_queue queue, Span span,
          const KernelArgs& a) {
  if (a.size() != 7) raise(Errc::invalid_argument, "train.grad", "expects 7 arguments");
  QueueState& st = state_for(states, queue);
  const MlpShape& shape = layout.shape();
  const auto& layers = layout.layers();
  const std::uint64_t params = layout.params();
  const std::uint64_t mb = a.value<std::uint32_t>(5);
  const std::uint32_t tag = a.value<std::uint32_t>(6);
  cl_mem weights = mem_of(a, 0), x = mem_of(a, 2), y = mem_of(a, 3), acc = mem_of(a, 4);

  // The first chunk of an accumulation here overwrites the accumulator (see
  // kernel_args.hpp): weight gradients stored, sums from zero, tag set.
  const bool first_here = st.tags[acc] != tag;
  if (first_here) {
    st.tags[acc] = tag;
    const float zero = 0.0f;
    for (const Layer& l : layers)
      check(clEnqueueFillBuffer(queue, acc, &zero, sizeof zero, l.bias * 4, std::size_t(l.out) * 4,
                                0, nullptr, nullptr),
            "clEnqueueFillBuffer");
    check(clEnqueueFillBuffer(queue, acc, &zero, sizeof zero, loss_at(params) * 4, 4, 0, nullptr,
                              nullptr),
          "clEnqueueFillBuffer");
    check(clEnqueueFillBuffer(queue, acc, &tag, sizeof tag, tag_at(params) * 4, 4, 0, nullptr,
                              nullptr),
          "clEnqueueFillBuffer");
  }

  // Passes of whole micro-batches, about 1024 rows each: per layer z and a,
  // two gradient buffers and the rows' losses.
  const std::uint64_t per_pass = std::max<std::uint64_t>(1, 1024 / mb);
  std::uint64_t widest = std::uint64_t(shape.inputs);
  for (const Layer& l : layers) widest = std::max<std::uint64_t>(widest, std::uint64_t(l.out));
  for (std::uint64_t first = span.begin; first < span.end; first += per_pass) {
    const std::uint64_t count = std::min(per_pass, span.end - first);
    const std::size_t rows = std::size_t(count * mb), row0 = std::size_t(first * mb);
    std::vector<std::size_t> z_at, a_at;
    std::size_t floats = 0;
    for (const Layer& l : layers) {
      z_at.push_back(floats), floats += rows * std::size_t(l.out);
      a_at.push_back(floats), floats += rows * std::size_t(l.out);
    }
    const std::size_t grad_a = floats, grad_b = grad_a + rows * widest,
                      row_loss = grad_b + rows * widest;
    floats = row_loss + rows;
    if (floats * 4 > st.scratch_bytes) {
      if (st.scratch) {
        check(clFinish(queue), "clFinish");
        clReleaseMemObject(st.scratch);
        st.scratch = nullptr, st.scratch_bytes = 0;
      }
      cl_int status = CL_SUCCESS;
      st.scratch = clCreateBuffer(st.context, CL_MEM_READ_WRITE, floats * 4, nullptr, &status);
      check(status, "clCreateBuffer");
      st.scratch_bytes = floats * 4;
    }
    cl_mem s = st.scratch;
    const std::size_t widths_in = std::size_t(shape.inputs);
    // Forward: z = in W^T + bias, a = gelu(z) but at the output.
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      const bool from_x = i == 0;
      check_blast(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, rows,
                               std::size_t(l.out), std::size_t(l.in), 1.0f, from_x ? x : s,
                               from_x ? row0 * widths_in : a_at[i - 1], std::size_t(l.in), weights,
                               l.weight, std::size_t(l.in), 0.0f, s, z_at[i], std::size_t(l.out),
                               &queue, nullptr),
                  "CLBlastSgemm");
      Launch(queue, st.prog.bias_gelu)
          .arg(cl_uint(l.out))
          .arg(s)
          .arg(cl_ulong(z_at[i]))
          .arg(cl_ulong(a_at[i]))
          .arg(weights)
          .arg(cl_ulong(l.bias))
          .arg(cl_int(i + 1 < layers.size()))
          .run(rows * std::size_t(l.out));
    }
    // The loss and its gradient at the output.
    std::size_t dz = grad_a;
    Launch(queue, st.prog.loss)
        .arg(cl_uint(shape.outputs))
        .arg(s)
        .arg(cl_ulong(a_at.back()))
        .arg(y)
        .arg(cl_ulong(row0 * std::size_t(shape.outputs)))
        .arg(cl_ulong(dz))
        .arg(cl_ulong(row_loss))
        .run(rows);
    Launch(queue, st.prog.add_sum)
        .arg(cl_uint(rows))
        .arg(s)
        .arg(cl_ulong(row_loss))
        .arg(acc)
        .arg(cl_ulong(loss_at(params)))
        .run(1);
    // Backward, the last layer first.
    const float beta = first_here && first == span.begin ? 0.0f : 1.0f;
    for (std::size_t i = layers.size(); i-- > 0;) {
      const Layer& l = layers[i];
      const bool from_x = i == 0;
      // dW (out x in) += dz^T (out x rows) in (rows x in)
      check_blast(
          CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeYes, CLBlastTransposeNo,
                       std::size_t(l.out), std::size_t(l.in), rows, 1.0f, s, dz, std::size_t(l.out),
                       from_x ? x : s, from_x ? row0 * widths_in : a_at[i - 1], std::size_t(l.in),
                       beta, acc, l.weight, std::size_t(l.in), &queue, nullptr),
          "CLBlastSgemm");
      Launch(queue, st.prog.bias_grad)
          .arg(cl_uint(rows))
          .arg(cl_uint(l.out))
          .arg(s)
          .arg(cl_ulong(dz))
          .arg(acc)
          .arg(cl_ulong(l.bias))
          .run(std::size_t(l.out));
      if (from_x) break;
      // d in (rows x in) = dz (rows x out) W (out x in), through the previous GELU.
      const std::size_t next = dz == grad_a ? grad_b : grad_a;
      check_blast(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, rows,
                               std::size_t(l.in), std::size_t(l.out), 1.0f, s, dz,
                               std::size_t(l.out), weights, l.weight, std::size_t(l.in), 0.0f, s,
                               next, std::size_t(l.in), &queue, nullptr),
                  "CLBlastSgemm");
      Launch(queue, st.prog.gelu_backward)
          .arg(s)
          .arg(cl_ulong(next))
          .arg(cl_ulong(z_at[i - 1]))
          .run(rows * std::size_t(l.in));
      dz = next;
    }
  }
}

}  // namespace

void add_opencl_code(StepKernels& k, const MlpLayout& layout) {
  auto states = std::make_shared<QueueStates>();
  k.grad.native(BackendKind::opencl,
                [layout, states](void* queue, Span span, const KernelArgs& args) {
                  grad(layout, *states, static_cast<cl_command_queue>(queue), span, args);
                });
  k.publish.opencl(kSource, "baton_train_publish");
  k.adamw_slots.opencl(kSource, "baton_train_adamw_slots");
  k.stage.native(BackendKind::opencl, [](void*, Span, const KernelArgs&) {});
}

}  // namespace baton::train
