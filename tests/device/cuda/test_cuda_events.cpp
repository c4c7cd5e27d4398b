// Ordering through events: across the streams of one device, across
// partitions (devices), CUDA events waited on by host threads with no CUDA
// context, and foreign (non-CUDA) events waited on by a CUDA queue.
#include <chrono>
#include <future>
#include <thread>

#include "cuda_test.hpp"

using namespace baton;
using namespace baton::test;

namespace {

// A host-side event, standing for one of the cpu backend.
class ManualEvent final : public Event {
 public:
  void set() { promise_.set_value(); }
  void wait() override { future_.wait(); }
  bool ready() override {
    return future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
};

constexpr std::size_t kN = 1 << 20;
constexpr int kSlowIters = 4000;  // several ms of work on the GPU
// x + b without a fixed point: every element ends at its own value.
constexpr float kA = 1.0f, kB = 1e-4f;

// Elements not written, plus wrong values among every 61st (the CPU
// reference of 4000 dependent FMAs per element is slow).
std::size_t wrong_values(const std::vector<float>& in, const std::vector<float>& out) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    if (out[i] == -1.0f)
      ++wrong;
    else if ((i % 61 == 0 || i == kN - 1) && out[i] != fma_ref(in[i], kA, kB, kSlowIters))
      ++wrong;
  }
  return wrong;
}

}  // namespace

TEST(CudaEvents, OrderCopyInComputeAndCopyOutStreams) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0");
  auto& dev = set[0];
  Queue &in_q = dev.queue(QueueRole::copy_in), &cq = dev.queue(QueueRole::compute),
        &out_q = dev.queue(QueueRole::copy_out);
  auto in = random_floats(kN, 21);
  std::vector<float> out(kN, -1);
  DeviceMemory din = dev.allocate(kN * 4), dout = dev.allocate(kN * 4);
  std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(kA),
                              scalar_arg(kB), scalar_arg(kSlowIters)};
  in_q.write(din, 0, in.data(), kN * 4, HostKind::pageable);
  EventPtr written = in_q.record();
  cq.wait(written);
  cq.launch(builtin("baton_fma"), Span{0, kN}, KernelArgs(args));
  EventPtr computed = cq.record();
  out_q.wait(computed);
  out_q.read(out.data(), dout, 0, kN * 4, HostKind::pageable);
  out_q.finish();
  EXPECT_TRUE(computed->ready());
  EXPECT_EQ(wrong_values(in, out), 0u);
  dev.release(din);
  dev.release(dout);
}

// Timed events give a chunk's time on the GPU (the worker's chunk times):
// two equal kernels take twice one, and the host's later look adds nothing.
TEST(CudaEvents, TimedEventsGiveTheTimeOnTheDevice) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0");
  auto& dev = set[0];
  Queue& cq = dev.queue(QueueRole::compute);
  DeviceMemory din = dev.allocate(kN * 4), dout = dev.allocate(kN * 4);
  std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(kA),
                              scalar_arg(kB), scalar_arg(kSlowIters)};
  const Kernel fma = builtin("baton_fma");
  cq.launch(fma, Span{0, kN}, KernelArgs(args));  // loads the module
  cq.finish();
  const auto host_start = std::chrono::steady_clock::now();
  EventPtr a = cq.record_timed();
  cq.launch(fma, Span{0, kN}, KernelArgs(args));
  EventPtr b = cq.record_timed();
  cq.launch(fma, Span{0, kN}, KernelArgs(args));
  EventPtr c = cq.record_timed();
  EventPtr untimed = cq.record();
  cq.finish();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double host_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
  const double one = b->seconds_since(*a), two = c->seconds_since(*a);
  EXPECT_GT(one, 0);
  EXPECT_NEAR(two / one, 2.0, 0.3);
  EXPECT_LT(two + 0.03, host_s);
  EXPECT_LT(untimed->seconds_since(*a), 0);  // recorded without timing: not known
  dev.release(din);
  dev.release(dout);
}

TEST(CudaEvents, OrderWorkAcrossPartitions) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0/8+64");
  auto &slow = set[0], &fast = set[1];  // 8 SMs produce, 64 consume
  auto in = random_floats(kN, 22);
  DeviceMemory din = slow.allocate(kN * 4), mid = slow.allocate(kN * 4);
  DeviceMemory mine = fast.allocate(kN * 4);
  std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(mid, 4), scalar_arg(kA),
                              scalar_arg(kB), scalar_arg(kSlowIters)};
  Queue& sq = slow.queue(QueueRole::compute);
  sq.write(din, 0, in.data(), kN * 4, HostKind::pageable);
  sq.launch(builtin("baton_fma"), Span{0, kN}, KernelArgs(args));
  EventPtr produced = sq.record();
  Queue& fq = fast.queue(QueueRole::copy_in);
  fq.wait(produced);
  ASSERT_TRUE(fast.copy_from_peer(fq, mine, 0, slow, mid, 0, kN * 4));
  std::vector<float> out(kN, -1);
  fq.read(out.data(), mine, 0, kN * 4, HostKind::pageable);
  fq.finish();
  EXPECT_EQ(wrong_values(in, out), 0u) << "the consumer ran before the producer";
  slow.release(din);
  slow.release(mid);
  fast.release(mine);
}

TEST(CudaEvents, HostThreadsWithoutAContextWaitForCudaEvents) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set(cuda::driver().has_green_contexts ? "0/16" : "0");
  auto& dev = set[0];
  DeviceMemory din = dev.allocate(kN * 4), dout = dev.allocate(kN * 4);
  std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(1.0f),
                              scalar_arg(0.0f), scalar_arg(kSlowIters * 4)};
  Queue& q = dev.queue(QueueRole::compute);
  q.launch(builtin("baton_fma"), Span{0, kN}, KernelArgs(args));
  EventPtr done = q.record();
  bool ready_before = true, ready_after = false;
  std::thread cpu_worker([&] {  // as a cpu-backend worker would: no CUDA context
    CUcontext current = reinterpret_cast<CUcontext>(1);
    cuda::driver().cuCtxGetCurrent(&current);
    EXPECT_EQ(current, nullptr);
    ready_before = done->ready();
    done->wait();
    ready_after = done->ready();
  });
  cpu_worker.join();
  EXPECT_FALSE(ready_before) << "the kernel should still have been running";
  EXPECT_TRUE(ready_after);
  dev.release(din);
  dev.release(dout);
}
