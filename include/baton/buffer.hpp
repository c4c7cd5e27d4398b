// Buffers: host memory plus per-device replicas kept coherent by the runtime.
// Pass them to tasks through in(), out() and inout(), saying which part the
// task touches; read results on the host through read() or host(), which wait
// for the tasks that write them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace baton {

namespace detail {
class BufferState;
// Waits for the tasks that write the buffer (for a write, also those that
// read it), makes the host copy current and returns it.
void* buffer_host(BufferState& s, bool for_write);
}  // namespace detail

enum class Access : std::uint8_t { in, out, inout };

// Which part of a buffer a task touches, which is also what its dependencies
// are computed on (tasks on disjoint parts of one buffer do not wait for
// each other):
//   Part{k} (the default, k = 1): elements [i*k, (i+1)*k) for every item i;
//   whole:                        every element;
//   elements(b, e):               elements [b, e), whatever the items.
struct Part {
  std::uint64_t per_item = 1;  // 0: the fixed elements [begin, end)
  std::uint64_t begin = 0, end = 0;
};
inline constexpr Part whole{0, 0, ~std::uint64_t{0}};
inline constexpr Part elements(std::uint64_t begin, std::uint64_t end) {
  return {0, begin, end};
}

struct BufferArg {
  std::shared_ptr<detail::BufferState> state;
  Access mode = Access::in;
  std::size_t element_size = 0;
  Part part;
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
  return {b.state(), Access::in, sizeof(T), p};
}
template <class T>
BufferArg out(const Buffer<T>& b, Part p = Part{}) {
  return {b.state(), Access::out, sizeof(T), p};
}
template <class T>
BufferArg inout(const Buffer<T>& b, Part p = Part{}) {
  return {b.state(), Access::inout, sizeof(T), p};
}

}  // namespace baton
