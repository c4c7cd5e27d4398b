#include "device/cuda/context.hpp"

namespace baton::cuda {

std::shared_ptr<Context> Context::primary(std::shared_ptr<Gpu> gpu) {
  CUcontext ctx = gpu->primary();
  const int sms = gpu->props().sm_count;
  return std::shared_ptr<Context>(new Context(std::move(gpu), ctx, nullptr, sms));
}

std::shared_ptr<Context> Context::green(std::shared_ptr<Gpu> gpu, CUgreenCtx green, int sm_count) {
  CUcontext ctx = nullptr;
  CUresult r = driver().cuCtxFromGreenCtx(&ctx, green);
  if (r != CUDA_SUCCESS) {
    driver().cuGreenCtxDestroy(green);
    check(r, "cuCtxFromGreenCtx", gpu->name());
  }
  return std::shared_ptr<Context>(new Context(std::move(gpu), ctx, green, sm_count));
}

Context::Context(std::shared_ptr<Gpu> gpu, CUcontext ctx, CUgreenCtx green, int sm_count)
    : gpu_(std::move(gpu)),
      ctx_(ctx),
      green_(green),
      sm_count_(sm_count),
      registration_(register_context(ctx, {sm_count, green != nullptr})) {}

Context::~Context() {
  const std::vector<std::function<void()>> calls = forget_context(registration_);
  const DriverApi& d = driver();
  {
    ContextGuard guard(ctx_);
    for (const auto& fn : calls) fn();
    for (CUevent e : events_) d.cuEventDestroy(e);
    for (CUevent e : timed_events_) d.cuEventDestroy(e);
  }
  if (green_) d.cuGreenCtxDestroy(green_);
}

CUstream Context::create_stream() {
  CUstream s = nullptr;
  if (green_) {
    // Green-context streams must not synchronise with the NULL stream.
    BATON_CU(gpu_->name(), cuGreenCtxStreamCreate, &s, green_, CU_STREAM_NON_BLOCKING, 0);
  } else {
    ContextGuard guard(ctx_);
    BATON_CU(gpu_->name(), cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  }
  return s;
}

CUevent Context::take_event(bool timed) {
  {
    std::lock_guard lock(mu_);
    std::vector<CUevent>& pool = timed ? timed_events_ : events_;
    if (!pool.empty()) {
      CUevent e = pool.back();
      pool.pop_back();
      return e;
    }
  }
  ContextGuard guard(ctx_);
  CUevent e = nullptr;
  BATON_CU(gpu_->name(), cuEventCreate, &e, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  return e;
}

void Context::give_event(CUevent e, bool timed) {
  std::lock_guard lock(mu_);
  (timed ? timed_events_ : events_).push_back(e);
}

}  // namespace baton::cuda
