// Small kernels through baton's task graph, against the same kernels
// launched raw: 10^4 dependent saxpy kernels (each follows the last through
// the buffer it updates) submitted to a Runtime on the whole GPU, the same
// launches back to back on one stream, and the same launches captured into
// one CUDA graph. Then independent kernels over four SM partitions against
// the same kernels all on one partition: how far the partitions overlap.
//   bench_cuda_tasks [json path]
#include "baton/runtime.hpp"
#include "bench_util.hpp"
#include "workloads/balance_kernels.hpp"
#include "workloads/builtin_fatbin.hpp"

using namespace baton;
using namespace baton::bench;

namespace {

constexpr int kChain = 10000, kReps = 9;
constexpr std::uint64_t kItems = 4096;  // 16 blocks of 256: a small kernel

Runtime runtime(const std::string& devices) {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  return Runtime(o);
}

// The chain through baton: saxpy on one buffer, each task after the last.
double baton_chain(Runtime& rt, Buffer<float>& x, Buffer<float>& y, const Kernel& saxpy) {
  return seconds([&] {
    for (int i = 0; i < kChain; ++i) rt.submit({kItems}, saxpy, 1.0f, in(x), inout(y));
    rt.wait_all();
  });
}

// Independent kernels, each on its own part of `out`, placed by the policy or pinned to device 0.
double independent(Runtime& rt, const Kernel& fma, Buffer<float>& in_buf, Buffer<float>& out_buf,
                   int kernels, std::uint64_t items, int iters, bool one_device) {
  return seconds([&] {
    for (int k = 0; k < kernels; ++k) {
      const Range r{items, 0, std::uint64_t(k) * items};
      if (one_device)
        rt.submit(r, fma, in(in_buf), out(out_buf), 1.0f, 1e-7f, iters, on(0));
      else
        rt.submit(r, fma, in(in_buf), out(out_buf), 1.0f, 1e-7f, iters);
    }
    rt.wait_all();
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (detail::builtin_cuda_fatbin().empty()) {
    std::fprintf(stderr, "built without nvcc: no built-in kernels\n");
    return 1;
  }
  std::vector<Row> rows;
  std::string device;
  {
    Runtime rt = runtime("cuda:0");
    device = rt.devices()[0]->info().description;
    Kernel saxpy = workloads::saxpy_kernel();
    auto x = rt.buffer<float>(kItems), y = rt.buffer<float>(kItems);
    for (std::uint64_t i = 0; i < kItems; ++i) x.host()[i] = 1.0f, y.host()[i] = 0.0f;

    // The raw side: the same function on a stream of our own, same context.
    CudaGpu gpu;
    cuda::CudaDevice& dev = gpu.dev();
    dev.bind_thread();
    const cuda::DriverApi& d = cuda::driver();
    CUmodule module = nullptr;
    cuda::check(d.cuModuleLoadData(&module, detail::builtin_cuda_fatbin().data()),
                "cuModuleLoadData", "bench");
    CUfunction fn = nullptr;
    cuda::check(d.cuModuleGetFunction(&fn, module, "baton_saxpy"), "cuModuleGetFunction", "bench");
    CUstream stream = nullptr;
    cuda::check(d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "bench");
    DeviceMemory rx = dev.allocate(kItems * 4), ry = dev.allocate(kItems * 4);
    unsigned long long begin = 0, end = kItems;
    float a = 1.0f;
    CUdeviceptr px = reinterpret_cast<CUdeviceptr>(rx.ptr),
                py = reinterpret_cast<CUdeviceptr>(ry.ptr);
    void* params[] = {&begin, &end, &a, &px, &py};
    auto launch_all = [&] {
      for (int i = 0; i < kChain; ++i)
        d.cuLaunchKernel(fn, unsigned(kItems / 256), 1, 1, 256, 1, 1, 0, stream, params, nullptr);
    };
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    cuda::check(d.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                "cuStreamBeginCapture", "bench");
    launch_all();
    cuda::check(d.cuStreamEndCapture(stream, &graph), "cuStreamEndCapture", "bench");
    const double instantiate_s = seconds([&] {
      cuda::check(d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiate", "bench");
    });

    auto chain = side_by_side([&] { baton_chain(rt, x, y, saxpy); },
                              [&] {
                                launch_all();
                                d.cuStreamSynchronize(stream);
                              },
                              kReps);
    auto graphed = side_by_side([&] { baton_chain(rt, x, y, saxpy); },
                                [&] {
                                  d.cuGraphLaunch(exec, stream);
                                  d.cuStreamSynchronize(stream);
                                },
                                kReps);
    const double us = 1e6 / kChain;
    rows.push_back({"10^4 dependent saxpy (4096 items): vs one stream", "us/kernel",
                    chain.first * us, chain.second * us, false, 1 / 1.3});
    rows.push_back({"10^4 dependent saxpy (4096 items): vs CUDA graph", "us/kernel",
                    graphed.first * us, graphed.second * us, false, 0});
    std::printf("graph instantiation of %d launches: %.2f ms (not in the timing above)\n", kChain,
                instantiate_s * 1e3);
    // Where baton's time goes: submitting the chain alone, and independent
    // tasks of the same kernel (no dependency, no buffer state to keep).
    double submit_s = 0;
    const double whole_s = seconds([&] {
      submit_s = seconds([&] {
        for (int i = 0; i < kChain; ++i) rt.submit({kItems}, saxpy, 1.0f, in(x), inout(y));
      });
      rt.wait_all();
    });
    Kernel empty = workloads::empty_kernel();
    const double free_s = seconds([&] {
      for (int i = 0; i < kChain; ++i) rt.submit({kItems}, empty);
      rt.wait_all();
    });
    std::printf(
        "chain: submitting %.2f us/kernel of %.2f; independent empty tasks %.2f us/kernel\n",
        submit_s * us, whole_s * us, free_s * us);
    // Every task ran: y = 1 + 1 + ... once per kernel launched through baton.
    const double want = double(kChain) * (2 * kReps + 3);
    if (std::abs(y.read()[0] - want) > 0.5)
      std::printf("WRONG: y[0] = %.1f, expected %.1f\n", y.read()[0], want);

    d.cuGraphExecDestroy(exec);
    d.cuGraphDestroy(graph);
    d.cuStreamDestroy(stream);
    d.cuModuleUnload(module);
    dev.release(rx);
    dev.release(ry);
  }
  {
    // 64 independent kernels of 24 blocks, each about 40 us of dependent
    // FMAs, over four partitions of 24 SMs (the H200 partitions at most 120
    // of its 132 SMs, in eights).
    constexpr int kKernels = 64, kIters = 20000;
    constexpr std::uint64_t kPart = 24 * 256;
    Runtime rt = runtime("cuda:0/24+24+24+24");
    Kernel fma = workloads::fma_kernel(kIters);
    auto in_buf = rt.buffer<float>(kPart * kKernels), out_buf = rt.buffer<float>(kPart * kKernels);
    for (float& v : in_buf.host()) v = 0.5f;
    auto spread = side_by_side(
        [&] { independent(rt, fma, in_buf, out_buf, kKernels, kPart, kIters, false); },
        [&] { independent(rt, fma, in_buf, out_buf, kKernels, kPart, kIters, true); }, kReps);
    rows.push_back({"64 independent kernels: 4 partitions vs 1 of 24 SMs", "ms", spread.first * 1e3,
                    spread.second * 1e3, false, 0});
    std::printf("overlap: the four partitions ran the kernels %.2fx as fast as one\n",
                spread.second / spread.first);
  }
  report("Small kernels through baton's task graph vs raw launches", device, rows,
         argc > 1 ? argv[1] : "bench_cuda_tasks.json");
  return 0;
}
