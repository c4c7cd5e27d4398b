// The model's host math: its gradient against finite differences, micro-
// batches that add up to the whole batch, backward a layer at a time, and a
// loss that falls under AdamW.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "baton/error.hpp"
#include "train/adamw.hpp"
#include "train/mlp_cpu.hpp"
#include "train/step_kernels.hpp"
#include "train/teacher.hpp"

using namespace baton;
using namespace baton::train;

namespace {

struct Data {
  std::vector<float> x, y;
  Data(const Teacher& t, const MlpShape& s, std::uint64_t step, int rows)
      : x(std::size_t(rows) * s.inputs), y(std::size_t(rows) * s.outputs) {
    t.batch(step, 0, rows, x.data(), y.data());
  }
};

double loss_of(const MlpLayout& m, const std::vector<float>& p, const Data& d, int rows) {
  std::vector<float> grad(m.params()), ws;
  return loss_and_grad_cpu(m, p.data(), d.x.data(), d.y.data(), rows, grad.data(), ws);
}

}  // namespace

TEST(MlpCpu, GradientMatchesFiniteDifferences) {
  const MlpShape shape{5, 7, 2, 3};
  MlpLayout m(shape);
  std::vector<float> p(m.params());
  init_params(m, 1, p);
  for (const Layer& l : m.layers())  // non-zero biases, so their gradients are exercised off zero
    for (std::size_t i = l.bias; i < l.end(); ++i) p[i] = 0.1f * float(i % 5) - 0.2f;
  Teacher teacher(shape, 2);
  const int rows = 6;
  Data d(teacher, shape, 0, rows);
  std::vector<float> grad(m.params(), 0.0f), ws;
  loss_and_grad_cpu(m, p.data(), d.x.data(), d.y.data(), rows, grad.data(), ws);
  // Every parameter of a small model, by central differences in float.
  const float h = 1e-2f;
  for (std::size_t i = 0; i < m.params(); ++i) {
    std::vector<float> up = p, down = p;
    up[i] += h;
    down[i] -= h;
    const double numeric = (loss_of(m, up, d, rows) - loss_of(m, down, d, rows)) / (2 * h);
    EXPECT_NEAR(grad[i], numeric, 2e-3 + 2e-2 * std::abs(numeric)) << "parameter " << i;
  }
}

TEST(MlpCpu, MicroBatchesAddUpToTheWholeBatch) {
  const MlpShape shape{16, 32, 3, 4};
  MlpLayout m(shape);
  std::vector<float> p(m.params());
  init_params(m, 3, p);
  Teacher teacher(shape, 4);
  const int rows = 96;
  std::vector<float> x(std::size_t(rows) * shape.inputs), y(std::size_t(rows) * shape.outputs);
  teacher.batch(5, 0, rows, x.data(), y.data());
  std::vector<float> whole(m.params(), 0.0f), parts(m.params(), 0.0f), ws;
  const double whole_loss =
      loss_and_grad_cpu(m, p.data(), x.data(), y.data(), rows, whole.data(), ws);
  // Uneven micro-batches, each made on its own (the teacher gives the same rows).
  double parts_loss = 0;
  for (auto [first, n] : std::vector<std::pair<int, int>>{{0, 7}, {7, 41}, {48, 1}, {49, 47}}) {
    std::vector<float> px(std::size_t(n) * shape.inputs), py(std::size_t(n) * shape.outputs);
    teacher.batch(5, std::uint64_t(first), n, px.data(), py.data());
    parts_loss += loss_and_grad_cpu(m, p.data(), px.data(), py.data(), n, parts.data(), ws);
  }
  EXPECT_NEAR(parts_loss, whole_loss, 1e-4 * whole_loss);
  for (std::size_t i = 0; i < m.params(); ++i)
    ASSERT_NEAR(parts[i], whole[i], 1e-4f + 1e-4f * std::abs(whole[i])) << "parameter " << i;
}

// A layer at a time, from the last down (each layer's gradient added to
// another array's, written over the layer's parameters only), is the whole
// backward: the same bits, and the same loss.
TEST(MlpCpu, LayerByLayerIsTheWholeBackward) {
  const MlpShape shape{9, 24, 3, 5};
  MlpLayout m(shape);
  std::vector<float> p(m.params());
  init_params(m, 5, p);
  Teacher teacher(shape, 6);
  const int rows = 11;
  Data d(teacher, shape, 1, rows);
  std::vector<float> earlier(m.params());  // an accumulator's earlier micro-batches
  for (std::size_t i = 0; i < earlier.size(); ++i) earlier[i] = 0.01f * float(i % 13) - 0.05f;
  std::vector<float> whole = earlier, ws;
  const double loss =
      loss_and_grad_cpu(m, p.data(), d.x.data(), d.y.data(), rows, whole.data(), ws);
  std::vector<float> saved(m.workspace(rows)), slot(m.params(), -7.0f);
  forward_saved_cpu(m, p.data(), d.x.data(), rows, saved.data());
  double layered_loss = 0;
  for (std::size_t i = m.layers().size(); i-- > 0;) {
    layered_loss += backward_layer_cpu(m, i, p.data(), d.x.data(), d.y.data(), rows, saved.data(),
                                       earlier.data(), slot.data());
    // Only layer i and the ones above it are written so far.
    for (std::size_t j = 0; j < m.layers()[i].weight; ++j) ASSERT_EQ(slot[j], -7.0f) << j;
  }
  EXPECT_EQ(layered_loss, loss);
  for (std::size_t i = 0; i < m.params(); ++i) ASSERT_EQ(slot[i], whole[i]) << "parameter " << i;
  // Added to nothing (null), it is the micro-batch's gradient alone.
  std::vector<float> alone(m.params(), 0.0f), fresh(m.params(), 3.0f);
  loss_and_grad_cpu(m, p.data(), d.x.data(), d.y.data(), rows, alone.data(), ws);
  forward_saved_cpu(m, p.data(), d.x.data(), rows, saved.data());
  for (std::size_t i = m.layers().size(); i-- > 0;)
    backward_layer_cpu(m, i, p.data(), d.x.data(), d.y.data(), rows, saved.data(), nullptr,
                       fresh.data());
  for (std::size_t i = 0; i < m.params(); ++i) ASSERT_EQ(fresh[i], alone[i]) << "parameter " << i;
}

// Forward a layer at a time is forward whole, each layer reading only its
// own weights (the others here are NaN): a layer may start before the later
// layers' weights are there.
TEST(MlpCpu, ForwardALayerAtATimeReadsOnlyThatLayersWeights) {
  const MlpShape shape{12, 24, 3, 5};
  MlpLayout m(shape);
  std::vector<float> p(m.params());
  init_params(m, 8, p);
  Teacher teacher(shape, 9);
  const int rows = 7;
  Data d(teacher, shape, 1, rows);
  std::vector<float> whole(m.workspace(rows), 0.0f), layered(m.workspace(rows), 0.0f);
  forward_saved_cpu(m, p.data(), d.x.data(), rows, whole.data());
  for (std::size_t i = 0; i < m.layers().size(); ++i) {
    const Layer& l = m.layers()[i];
    std::vector<float> only(m.params(), std::numeric_limits<float>::quiet_NaN());
    std::copy(p.begin() + std::ptrdiff_t(l.weight), p.begin() + std::ptrdiff_t(l.end()),
              only.begin() + std::ptrdiff_t(l.weight));
    forward_layer_cpu(m, i, only.data(), d.x.data(), rows, layered.data());
  }
  for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(layered[i], whole[i]) << i;
}

// A layer larger than a bucket is computed in parts of its weights' rows
// (the last with the bias), then the gradient below it: together they are
// the layer's whole gradient, the parts writing only their own elements.
TEST(MlpCpu, ALayerInPartsIsTheWholeLayer) {
  const MlpShape shape{16, 512, 2, 8};
  MlpLayout m(shape);
  const std::uint64_t bucket = 256 << 10;  // layer 1, 512 x 512 fp32, is 4 of them
  const std::size_t big = 1;
  const std::vector<OutRows> parts = backward_parts(m, big, bucket);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(backward_parts(m, 0, bucket).size(), 1u) << "a layer under two buckets is one part";
  const Layer& l = m.layers()[big];
  EXPECT_EQ(part_elements(l, parts.front()).first, l.weight);
  EXPECT_EQ(part_elements(l, parts.back()).second, l.end());
  for (std::size_t j = 1; j < parts.size(); ++j)
    EXPECT_EQ(part_elements(l, parts[j]).first, part_elements(l, parts[j - 1]).second);

  std::vector<float> p(m.params());
  init_params(m, 3, p);
  Teacher teacher(shape, 4);
  const int rows = 5;
  Data d(teacher, shape, 1, rows);
  std::vector<float> whole(m.params(), 0.0f), ws;
  const double loss =
      loss_and_grad_cpu(m, p.data(), d.x.data(), d.y.data(), rows, whole.data(), ws);
  std::vector<float> saved(m.workspace(rows)), slot(m.params(), -7.0f);
  forward_saved_cpu(m, p.data(), d.x.data(), rows, saved.data());
  double parted_loss = 0;
  for (std::size_t i = m.layers().size(); i-- > 0;) {
    const Layer& li = m.layers()[i];
    const std::vector<OutRows> layer_parts = backward_parts(m, i, bucket);
    for (auto part = layer_parts.rbegin(); part != layer_parts.rend(); ++part) {
      parted_loss += layer_rows_cpu(m, i, d.x.data(), d.y.data(), rows, saved.data(), nullptr,
                                    slot.data(), *part);
      // Nothing before the part is written yet.
      const std::size_t begin = part_elements(li, *part).first;
      if (begin > li.weight) {
        ASSERT_EQ(slot[begin - 1], -7.0f) << "layer " << i << ", part " << part->begin;
      }
    }
    if (i > 0) below_layer_cpu(m, i, p.data(), rows, saved.data());
  }
  EXPECT_NEAR(parted_loss, loss, 1e-9 * loss);
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < m.params(); ++k) {
    diff += (double(slot[k]) - whole[k]) * (double(slot[k]) - whole[k]);
    norm += double(whole[k]) * whole[k];
  }
  EXPECT_LT(std::sqrt(diff / norm), 1e-6);
}

TEST(MlpCpu, TheLossFallsUnderAdamW) {
  const MlpShape shape{32, 64, 2, 8};
  MlpLayout m(shape);
  std::vector<float> p(m.params()), mom(m.params(), 0.0f), var(m.params(), 0.0f), ws;
  init_params(m, 7, p);
  Teacher teacher(shape, 8);
  const int rows = 64;
  std::vector<float> x(std::size_t(rows) * shape.inputs), y(std::size_t(rows) * shape.outputs);
  double first = 0, last = 0;
  for (int step = 1; step <= 200; ++step) {
    teacher.batch(std::uint64_t(step), 0, rows, x.data(), y.data());
    std::vector<float> grad(m.params(), 0.0f);
    const double loss = loss_and_grad_cpu(m, p.data(), x.data(), y.data(), rows, grad.data(), ws);
    if (step == 1) first = loss;
    last = loss;
    adamw_cpu(AdamW{}, step, 1.0f / rows, p, grad, mom, var);
  }
  EXPECT_LT(last, 0.2 * first) << "first " << first << ", last " << last;
}

TEST(MlpCpu, ABadShapeIsNamed) {
  try {
    MlpLayout m(MlpShape{8, 0, 2, 4});
    FAIL() << "a zero width was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model width"), std::string::npos) << e.what();
  }
}

TEST(Bf16, RoundsToNearestEven) {
  auto bits = [](std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return bf16_bits(f);
  };
  EXPECT_EQ(bits(0x3f800000u), 0x3f80u);            // 1.0
  EXPECT_EQ(bits(0x3f808000u), 0x3f80u);            // half-way, even below: down
  EXPECT_EQ(bits(0x3f818000u), 0x3f82u);            // half-way, odd below: up
  EXPECT_EQ(bits(0x3f808001u), 0x3f81u);            // past half-way: up
  EXPECT_EQ(bits(0xbf800000u), 0xbf80u);            // -1.0
  EXPECT_EQ(bits(0x7fc00001u) & 0x7fc0u, 0x7fc0u);  // NaN stays NaN
}
