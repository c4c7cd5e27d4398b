// A work-stealing deque of 64-bit words: the owner pushes and pops at the
// bottom, thieves steal from the top. This follows the C11 version in Lê, Pop,
// Cohen, Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
// Models" (PPoPP 2013), Fig. 1, with one change: where the paper puts a seq_cst
// fence between the store of bottom and the load of top (pop), or the load of
// top and the load of bottom (steal), those accesses are seq_cst themselves.
// That orders them the same way (on x86 both compile to one locked
// instruction) and ThreadSanitizer, which does not model fences, can check it.
// Slots are atomics so that a thief reading a slot the owner is rewriting is
// defined behaviour; the CAS on top decides who owns the value.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace baton::detail {

class ChaseLevDeque {
 public:
  explicit ChaseLevDeque(std::int64_t capacity = 64) {
    arrays_.push_back(std::make_unique<Array>(round_up(capacity)));
    array_.store(arrays_.back().get(), std::memory_order_relaxed);
  }
  ChaseLevDeque(const ChaseLevDeque&) = delete;
  ChaseLevDeque& operator=(const ChaseLevDeque&) = delete;

  // Owner only.
  void push(std::uint64_t x) {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_acquire);
    Array* a = array_.load(std::memory_order_relaxed);
    if (b - t > a->capacity - 1) a = grow(a, t, b);
    a->put(b, x);
    bottom_.store(b + 1, std::memory_order_release);  // publishes the slot to thieves
  }

  // Owner only.
  std::optional<std::uint64_t> pop() {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    Array* a = array_.load(std::memory_order_relaxed);
    bottom_.store(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return std::nullopt;
    }
    std::uint64_t x = a->get(b);
    if (t == b) {  // last element: race the thieves for it
      bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                              std::memory_order_relaxed);
      bottom_.store(b + 1, std::memory_order_relaxed);
      if (!won) return std::nullopt;
    }
    return x;
  }

  // Any thread. Empty also when it lost a race (the caller may try elsewhere).
  std::optional<std::uint64_t> steal() {
    return steal_if([](std::uint64_t) { return true; });
  }
  // As steal(), where `wanted(x)` says yes to the value on top: a thief
  // weighs what it would take, not a guess at it. Empty where it says no.
  template <class Wanted>
  std::optional<std::uint64_t> steal_if(Wanted&& wanted) {
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return std::nullopt;
    Array* a = array_.load(std::memory_order_acquire);
    std::uint64_t x = a->get(t);
    if (!wanted(x)) return std::nullopt;
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return std::nullopt;
    return x;
  }
  // Any thread: the value on top now, which a thief may take or the owner
  // pop at any moment (a hint only).
  std::optional<std::uint64_t> peek() const {
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return std::nullopt;
    return array_.load(std::memory_order_acquire)->get(t);
  }

  // Owner only, when no thief can be looking: empties the deque.
  void reset() {
    top_.store(0, std::memory_order_relaxed);
    bottom_.store(0, std::memory_order_relaxed);
  }

  // A snapshot, exact only when no one else is operating.
  std::int64_t size() const {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_relaxed);
    return b > t ? b - t : 0;
  }

 private:
  struct Array {
    explicit Array(std::int64_t cap) : capacity(cap), slots(new std::atomic<std::uint64_t>[cap]) {}
    std::int64_t capacity;
    std::unique_ptr<std::atomic<std::uint64_t>[]> slots;
    void put(std::int64_t i, std::uint64_t x) {
      slots[i & (capacity - 1)].store(x, std::memory_order_relaxed);
    }
    std::uint64_t get(std::int64_t i) const {
      return slots[i & (capacity - 1)].load(std::memory_order_relaxed);
    }
  };

  static std::int64_t round_up(std::int64_t n) {
    std::int64_t c = 2;
    while (c < n) c *= 2;
    return c;
  }

  // Old arrays stay alive until the deque dies: a thief may still read one.
  Array* grow(Array* a, std::int64_t t, std::int64_t b) {
    arrays_.push_back(std::make_unique<Array>(a->capacity * 2));
    Array* bigger = arrays_.back().get();
    for (std::int64_t i = t; i < b; ++i) bigger->put(i, a->get(i));
    array_.store(bigger, std::memory_order_release);
    return bigger;
  }

  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  alignas(64) std::atomic<Array*> array_{nullptr};
  std::vector<std::unique_ptr<Array>> arrays_;  // owner only
};

}  // namespace baton::detail
