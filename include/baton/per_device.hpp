// Per-device buffers: one instance on each device, never made coherent.
// Data-parallel work keeps what each device accumulates for itself so (a
// gradient summed over the micro-batches a device ran): a task, spread over
// devices or not, gets the instance of the device it runs on through
// baton::local(), and its chunks on one device add into one instance.
// Instances start zeroed; Runtime::read(b, d) copies device d's to the host;
// baton::instances() hands a kernel all of them where they share its memory.
#pragma once

#include <memory>

#include "baton/buffer.hpp"

namespace baton {

template <class T>
class PerDevice {
 public:
  PerDevice() = default;
  PerDevice(std::shared_ptr<detail::BufferState> s, std::size_t n) : state_(std::move(s)), n_(n) {}
  std::size_t size() const { return n_; }  // elements of each instance
  const std::shared_ptr<detail::BufferState>& state() const { return state_; }

 private:
  std::shared_ptr<detail::BufferState> state_;
  std::size_t n_ = 0;
};

// The launching device's instance, whole, read and written. Tasks pinned to
// one device (baton::on) follow only the earlier tasks that touched that
// device's instance, and fail if that device does; any other task follows
// all of them.
template <class T>
BufferArg local(const PerDevice<T>& b) {
  return {b.state(), Access::inout, sizeof(T), whole};
}

// Every instance, read: the kernel gets a table of their addresses, one per
// device of the runtime in device order, null where a device has none. For
// combining the instances of devices that share one memory (the cpu devices,
// the partitions of one GPU) in place; an instance in other memory is an
// error. The task follows every earlier task that touched any instance.
template <class T>
BufferArg instances(const PerDevice<T>& b) {
  return {b.state(), Access::in, sizeof(T), whole};
}

}  // namespace baton
