// Marks: one event recorded for a run of tasks, by the worker or by the
// first who must wait for it, exactly once; a failed record fails every
// waiter as the device's own events would.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "submit/mark.hpp"
#include "support/held_event.hpp"

using namespace baton;
using detail::Mark;
using test::HeldEvent;

namespace {

// The cpu device's queue, with events the test completes, counted records
// and, on request, a record that fails as on a lost device (which the real
// device cannot be made to do).
class HeldQueue final : public Queue {
 public:
  explicit HeldQueue(Queue& inner) : inner_(inner) {}
  void write(DeviceMemory d, std::size_t o, const void* h, std::size_t b, HostKind k) override {
    inner_.write(d, o, h, b, k);
  }
  void read(void* h, DeviceMemory s, std::size_t o, std::size_t b, HostKind k) override {
    inner_.read(h, s, o, b, k);
  }
  void copy(DeviceMemory d, std::size_t dof, DeviceMemory s, std::size_t sof,
            std::size_t b) override {
    inner_.copy(d, dof, s, sof, b);
  }
  void launch(const Kernel& k, Span s, const KernelArgs& a) override { inner_.launch(k, s, a); }
  EventPtr record() override {
    if (fail) {
      records.fetch_add(1);
      raise(Errc::device_failed, "held", "the device is gone");
    }
    auto e = std::make_shared<HeldEvent>();
    events.push_back(e);
    records.fetch_add(1);  // after the push: a thread that sees the count may read events
    return e;
  }
  void wait(const EventPtr& e) override { inner_.wait(e); }
  void finish() override { inner_.finish(); }

  std::atomic<int> records{0};
  bool fail = false;
  std::vector<std::shared_ptr<HeldEvent>> events;

 private:
  Queue& inner_;
};

struct MarkTest : ::testing::Test {
  DeviceSet set = open_devices("cpu");
  HeldQueue queue{set.devices[0]->queue(QueueRole::compute)};
};

}  // namespace

TEST_F(MarkTest, TasksJoinItUntilItIsRecordedAndItCompletesWithItsEvent) {
  Mark m(queue);
  EXPECT_TRUE(m.join());
  EXPECT_TRUE(m.join());
  EXPECT_FALSE(m.ready());  // ready() does not record it
  EXPECT_EQ(queue.records.load(), 0);
  m.record();
  m.record();
  ASSERT_EQ(queue.records.load(), 1);
  EXPECT_FALSE(m.join());  // recorded before a later task: it cannot stand for it
  EXPECT_FALSE(m.ready());
  EXPECT_FALSE(m.wait_for(1e-4));
  queue.events[0]->complete();
  EXPECT_TRUE(m.ready());
  EXPECT_EQ(m.recorded(), queue.events[0].get());
}

TEST_F(MarkTest, AWaiterOnAnotherThreadRecordsItAndWaitsForIt) {
  Mark m(queue);
  ASSERT_TRUE(m.join());
  std::atomic<bool> woke{false};
  std::thread waiter([&] {
    m.wait();
    woke.store(true);
  });
  while (queue.records.load() == 0) std::this_thread::yield();
  EXPECT_FALSE(woke.load());
  queue.events[0]->complete();
  waiter.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(queue.records.load(), 1);
}

TEST_F(MarkTest, ManyWaitersAtOnceRecordItOnce) {
  Mark m(queue);
  std::vector<Event*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { seen[i] = m.recorded(); });
  for (auto& t : threads) t.join();
  ASSERT_EQ(queue.records.load(), 1);
  for (Event* e : seen) EXPECT_EQ(e, queue.events[0].get());
}

TEST_F(MarkTest, AFailedRecordFailsEveryWaiterAsTheDevicesOwnEventsWould) {
  Mark m(queue);
  queue.fail = true;
  for (int i = 0; i < 2; ++i) {
    try {
      m.wait();
      FAIL() << "wait() returned on a failed mark";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::device_failed);
      EXPECT_NE(std::string(e.what()).find("the device is gone"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(m.recorded(), nullptr);
  EXPECT_THROW(m.ready(), Error);
  EXPECT_FALSE(m.join());
  EXPECT_EQ(queue.records.load(), 1);  // tried once: the failure stands
}
