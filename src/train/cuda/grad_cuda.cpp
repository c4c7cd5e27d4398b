#include "train/cuda/grad_cuda.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "baton/error.hpp"
#include "train/cuda/lt_gemm.hpp"
#include "train/cuda/stream_state.hpp"
#include "train/cuda/train_fatbin.hpp"
#include "train/cuda/update_cuda.hpp"
#include "train/step_kernels.hpp"

namespace baton::train {

namespace {

using namespace cuda_step;

constexpr const char* kWhere = "train.grad";

using bf16 = std::uint16_t;  // storage of __nv_bfloat16

// A layer's forward: z = W a + b (column-major: out x rows), into `a`
// through GELU (its pre-activation kept in z) but at the output.
Gemm forward_gemm(const Layer& l, bool hidden, int rows, const bf16* weights, const bf16* input,
                  bf16* a, bf16* z) {
  Gemm g;
  g.ta = true;
  g.m = l.out, g.n = rows, g.k = l.in;
  g.a = weights + l.weight, g.lda = l.in;
  g.b = input, g.ldb = l.in;
  g.d = a, g.ldd = l.out;
  g.bias = weights + l.bias;
  g.epilogue = hidden ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_BIAS;
  if (hidden) g.aux = z, g.aux_ld = l.out;
  return g;
}

// A layer's weight gradient: dW (column-major in x out) = in (in x rows)
// dz^T (rows x out) + beta dW, in fp32.
Gemm weight_grad_gemm(const Layer& l, int rows, const bf16* in, const bf16* dz, float* acc,
                      float beta) {
  Gemm g;
  g.tb = true;
  g.m = l.in, g.n = l.out, g.k = rows;
  g.rows_in = RowsIn::k;
  g.a = in, g.lda = l.in;
  g.b = dz, g.ldb = l.out;
  g.d = acc + l.weight, g.ldd = l.in, g.d_type = CUDA_R_32F;
  g.beta = beta;
  return g;
}

// The data gradient below a layer: d in (in x rows) = W (in x out) dz,
// through the previous layer's GELU (its pre-activation z_prev).
Gemm data_grad_gemm(const Layer& l, int rows, const bf16* weights, const bf16* dz, bf16* next,
                    bf16* z_prev) {
  Gemm g;
  g.m = l.in, g.n = rows, g.k = l.out;
  g.a = weights + l.weight, g.lda = l.in;
  g.b = dz, g.ldb = l.out;
  g.d = next, g.ldd = l.in;
  g.epilogue = CUBLASLT_EPILOGUE_DGELU;
  g.aux = z_prev, g.aux_ld = l.in;
  return g;
}

// Loads, on a few rows, the algorithm of every GEMM of a pass for each
// bucket of rows a chunk may have (load_algorithm), writing scratch and the
// accumulator's weight gradients, which the accumulation's first pass then
// overwrites.
void load_algorithms(StreamState& st, CUstream stream, const MlpLayout& layout, std::uint64_t mb,
                     const bf16* weights, float* acc, bf16* scratch_a, bf16* scratch_b) {
  const auto& layers = layout.layers();
  const int few = int(mb);
  auto load = [&](const Gemm& g) {
    if (!load_algorithm(st, stream, g, few)) load_algorithm(st, stream, plain_of(g), few);
  };
  int loaded = 0;  // the largest bucket loaded so far
  for (std::uint64_t count = 1; count <= micro_batches_per_pass(int(mb)); ++count) {
    const int rows = int(count * mb);
    if (bucket_rows(rows) <= loaded) continue;
    loaded = bucket_rows(rows);
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      load(forward_gemm(l, i + 1 < layers.size(), rows, weights, scratch_a, scratch_b, scratch_a));
      for (float beta : {0.0f, 1.0f})
        load(weight_grad_gemm(l, rows, scratch_a, scratch_b, acc, beta));
      if (i > 0) load(data_grad_gemm(l, rows, weights, scratch_a, scratch_b, scratch_a));
    }
  }
}

void grad(const MlpLayout& layout, CUstream stream, Span span, const KernelArgs& args) {
  if (args.size() != 7) raise(Errc::invalid_argument, kWhere, "expects 7 arguments");
  const MlpShape& shape = layout.shape();
  for (int v : {shape.inputs, shape.width, shape.outputs})
    if (v % 8)
      raise(Errc::invalid_argument, kWhere,
            "on CUDA the model's inputs, width and outputs must be multiples of 8 (cuBLASLt's "
            "bf16 alignment); got " +
                std::to_string(v));
  StreamState& st = state_for(stream, kWhere);
  const std::uint64_t params = layout.params();
  const std::uint64_t mb = args.value<std::uint32_t>(5);
  const std::uint32_t tag = args.value<std::uint32_t>(6);
  const auto* weights = static_cast<const bf16*>(args[1].memory.ptr);
  auto* acc = static_cast<float*>(args[4].memory.ptr);

  // The first chunk of an accumulation here overwrites the accumulator: its
  // first weight gradients are stored (beta 0), the sums made by atomics
  // (bias gradients, the loss) start from zero, and the tag is set.
  const bool first_here = st.tags[acc] != tag;
  if (first_here) {
    st.tags[acc] = tag;
    auto zero = [&](std::uint64_t at, std::uint64_t n) {
      BATON_CU(kWhere, cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(acc + at), 0u, n, stream);
    };
    for (const Layer& l : layout.layers()) zero(l.bias, std::uint64_t(l.out));
    zero(loss_at(params), 1);
    BATON_CU(kWhere, cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(acc + tag_at(params)), tag, 1,
             stream);
  }

  const std::uint64_t per_pass = micro_batches_per_pass(int(mb));
  const auto& layers = layout.layers();
  int widest = shape.inputs;
  for (const Layer& l : layers) widest = std::max(widest, l.out);
  // Carve the scratch: the input, each layer's output and pre-activation,
  // two gradient buffers, each for a full pass, whatever this chunk's size:
  // it is allocated once per stream, not again (with a stream and a device
  // synchronisation) each time a policy hands out a larger chunk.
  const std::uint64_t pass_rows = per_pass * mb;
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
  auto carve = [&](std::uint64_t elements) {
    offsets.push_back(total);
    total += aligned(elements * sizeof(bf16));
  };
  carve(pass_rows * shape.inputs);
  for (const Layer& l : layers) {
    carve(pass_rows * l.out);
    carve(pass_rows * l.out);
  }
  carve(pass_rows * widest);
  carve(pass_rows * widest);
  char* base = reinterpret_cast<char*>(st.activations.at_least(total, stream, kWhere));
  auto piece = [&](std::size_t i) { return reinterpret_cast<bf16*>(base + offsets[i]); };
  // Once per stream and model, while this accumulation's weight gradients
  // are still to be overwritten.
  const std::array<std::int64_t, 5> model{shape.inputs, shape.width, shape.depth, shape.outputs,
                                          std::int64_t(mb)};
  if (first_here && st.loaded.insert(model).second)
    load_algorithms(st, stream, layout, mb, weights, acc, piece(1 + 2 * layers.size()),
                    piece(2 + 2 * layers.size()));
  for (std::uint64_t first = span.begin; first < span.end; first += per_pass) {
    const std::uint64_t count = std::min(per_pass, span.end - first);
    const int rows = int(count * mb);
    const std::uint64_t row0 = first * mb;
    bf16* x = piece(0);
    bf16 *grad_a = piece(1 + 2 * layers.size()), *grad_b = piece(2 + 2 * layers.size());

    {
      std::uint64_t n = std::uint64_t(rows) * shape.inputs;
      const void* in = static_cast<const float*>(args[2].memory.ptr) + row0 * shape.inputs;
      void* out = x;
      launch(st.fn.to_bf16, stream, blocks_for(n), 1, {&n, &in, &out}, kWhere);
    }
    // Forward.
    const bf16* input = x;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      const bool hidden = i + 1 < layers.size();
      bf16* a = piece(1 + 2 * i);
      bf16* z = piece(2 + 2 * i);
      run_gemm_or(
          st, stream, forward_gemm(l, hidden, rows, weights, input, a, z),
          [&] {
            std::uint64_t n = std::uint64_t(rows) * l.out;
            unsigned cols = unsigned(l.out);
            void* zp = a;
            void* aux = hidden ? z : nullptr;
            const void* bias = weights + l.bias;
            int gelu_on = hidden;
            launch(st.fn.bias_gelu, stream, blocks_for(n), 1,
                   {&n, &cols, &zp, &aux, &bias, &gelu_on}, kWhere);
          },
          kWhere, "a layer's GEMM");
      input = a;
    }
    // The loss and its gradient at the output.
    bf16* dz = grad_a;
    {
      std::uint64_t n = std::uint64_t(rows) * shape.outputs;
      const void* prediction = input;
      const void* target = static_cast<const float*>(args[3].memory.ptr) + row0 * shape.outputs;
      void* d = dz;
      void* loss = acc + params;
      launch(st.fn.loss, stream, blocks_for(n), 1, {&n, &prediction, &target, &d, &loss}, kWhere);
    }
    // Backward, the last layer first.
    for (std::size_t i = layers.size(); i-- > 0;) {
      const Layer& l = layers[i];
      const bf16* in = i == 0 ? x : piece(1 + 2 * (i - 1));
      const float beta = first_here && first == span.begin ? 0.0f : 1.0f;
      if (!run_gemm(st, stream, weight_grad_gemm(l, rows, in, dz, acc, beta)))
        raise(Errc::invalid_argument, kWhere, "cuBLASLt has no algorithm for a weight gradient");
      {  // db += the sum of dz over rows
        unsigned r = unsigned(rows), cols = unsigned(l.out);
        const void* d = dz;
        void* db = acc + l.bias;
        const unsigned slices = unsigned(std::clamp(rows / 64, 1, 64));
        launch(st.fn.bias_grad, stream, (cols + 255) / 256, slices, {&r, &cols, &d, &db}, kWhere);
      }
      if (i == 0) break;
      bf16* next = dz == grad_a ? grad_b : grad_a;
      bf16* z_prev = piece(2 + 2 * (i - 1));
      run_gemm_or(
          st, stream, data_grad_gemm(l, rows, weights, dz, next, z_prev),
          [&] {
            std::uint64_t n = std::uint64_t(rows) * l.in;
            void* d = next;
            const void* aux = z_prev;
            launch(st.fn.gelu_backward, stream, blocks_for(n), 1, {&n, &d, &aux}, kWhere);
          },
          kWhere, "a data gradient");
      dz = next;
    }
  }
}

}  // namespace

void add_cuda_code(StepKernels& k, const MlpLayout& layout, int micro_batch) {
  const auto image = train_cuda_fatbin();
  if (image.empty()) return;
  k.grad.native(
      BackendKind::cuda,
      [layout](void* stream, Span span, const KernelArgs& args) {
        grad(layout, static_cast<CUstream>(stream), span, args);
      },
      micro_batches_per_pass(micro_batch));
  add_cuda_update(k);
  k.losses_shared.cuda_image(image, "baton_train_losses_shared");
  k.publish.cuda_image(image, "baton_train_publish");
}

}  // namespace baton::train
