// One launch of a task's span on a device, as far as its data goes: check a
// task's arguments against its range, make its inputs valid on the device
// (copies queued on the device's copy-in queue), fill the launch arguments,
// and after the launch record what it wrote.
#pragma once

#include <cstdint>
#include <vector>

#include "baton/args.hpp"
#include "baton/device.hpp"
#include "submit/access_tracker.hpp"

namespace baton::detail {

// Throws Error(invalid_argument) naming the argument: an empty buffer, a part
// beyond the buffer's end, a fixed-part write in a task spread over devices,
// a buffer that is not `owner`'s.
void check_args(const Kernel& kernel, const std::vector<RunArg>& args, Range range, bool spread,
                const void* owner);

// The bytes of `b` that items `span` touch.
Span byte_region(const BufferArg& b, Span span);

// The accesses of a task over `items`, for the dependency tracker. The
// instances of a per-device buffer count as `devices` consecutive pieces: a
// task pinned to one device touches its instance's, any other all of them.
void accesses_of(const std::vector<RunArg>& args, Span items, int pinned, int devices,
                 std::vector<ByteAccess>& out);

// Bytes one item moves in the buffers read per item (for ws-topo).
double bytes_per_item(const std::vector<RunArg>& args);

struct Prepared {
  std::vector<LaunchArg> launch;  // reused from launch to launch
  std::vector<EventPtr> waits;    // copies the launch must follow
  std::uint64_t bytes_in = 0;
};

// Makes what `items` read valid on `dev` (device `index` of `devices`) and
// fills `p` for the launch. Bit i of `unused`: argument i is not touched
// there (Kernel::unused): it gets no memory, and its writes are not recorded.
// A device on host memory writes it in place: its writes are claimed here,
// before the launch (BufferState::claim_host), and `p.waits` gets the copies
// home that must land first.
void prepare(Device& dev, int index, int devices, const std::vector<RunArg>& args, Span items,
             std::uint64_t unused, Prepared& p);
// `dev`'s memory becomes the holder of what `items` wrote, ready after
// `done`; with write_back, a copy home is queued behind it. Returns bytes
// queued home. Nothing for a device on host memory (prepare claimed them).
std::uint64_t record_writes(Device& dev, const std::vector<RunArg>& args, Span items,
                            std::uint64_t unused, const EventPtr& done, bool write_back);

}  // namespace baton::detail
