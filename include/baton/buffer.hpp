// Buffers: host memory plus per-device replicas kept coherent by the runtime.
// Pass them to parallel_for through in(), out() and inout(); read results on
// the host through read() or host().
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace baton {

namespace detail {
class BufferState;
void* buffer_host(BufferState& s, bool for_write);
std::size_t buffer_bytes(const BufferState& s);
}  // namespace detail

enum class Access : std::uint8_t { in, out, inout };

// Which part of a buffer work item i touches: elements [i*per_item, (i+1)*per_item),
// or (per_item == 0) the whole buffer.
struct Part {
  std::uint64_t per_item = 1;
};
inline constexpr Part whole{0};

struct BufferArg {
  std::shared_ptr<detail::BufferState> state;
  Access mode = Access::in;
  std::size_t element_size = 0;
  std::uint64_t per_item = 1;
};

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<detail::BufferState> s, std::size_t n) : state_(std::move(s)), n_(n) {}
  std::size_t size() const { return n_; }
  // The host copy, made current; other replicas are invalidated (the caller may write).
  std::span<T> host() { return {static_cast<T*>(detail::buffer_host(*state_, true)), n_}; }
  // The host copy, made current; replicas stay valid.
  std::span<const T> read() const {
    return {static_cast<const T*>(detail::buffer_host(*state_, false)), n_};
  }
  const std::shared_ptr<detail::BufferState>& state() const { return state_; }

 private:
  std::shared_ptr<detail::BufferState> state_;
  std::size_t n_ = 0;
};

template <class T>
BufferArg in(const Buffer<T>& b, Part p = Part{}) {
  return {b.state(), Access::in, sizeof(T), p.per_item};
}
template <class T>
BufferArg out(const Buffer<T>& b, Part p = Part{}) {
  return {b.state(), Access::out, sizeof(T), p.per_item};
}
template <class T>
BufferArg inout(const Buffer<T>& b, Part p = Part{}) {
  return {b.state(), Access::inout, sizeof(T), p.per_item};
}

}  // namespace baton
