// The layout algebra's laws, checked exhaustively on small shapes.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/layout/layout.hpp"

namespace tessel {

void PrintTo(const Layout& l, std::ostream* os) { *os << l.str(); }

namespace {

// The mapping a layout denotes: (thread, slot) -> coordinates.
std::map<std::pair<int, int>, std::vector<int>> mapping(const Layout& l) {
  std::map<std::pair<int, int>, std::vector<int>> m;
  for (int t = 0; t < l.num_threads(); ++t)
    for (int s = 0; s < l.local_size(); ++s) m[{t, s}] = l.coords(t, s);
  return m;
}

std::vector<Layout> atoms() {
  std::vector<Layout> out;
  for (int a : {1, 2, 4})
    for (int b : {1, 2, 3}) {
      out.push_back(Layout::local({a, b}));
      out.push_back(Layout::spatial({a, b}));
    }
  out.push_back(Layout::replicated(2, 2));
  return out;
}

TEST(LayoutLaws, EveryElementHasExactlyTheExpectedOwners) {
  for (const Layout& a : atoms())
    for (const Layout& b : atoms())
      for (const Layout& c : atoms()) {
        const Layout l = a * b * c;
        int replication = l.num_threads() * l.local_size() / l.num_elements();
        std::map<std::vector<int>, int> owners;
        for (auto& [key, coords] : mapping(l)) {
          ++owners[coords];
          int slot = -1;
          ASSERT_TRUE(l.holds(key.first, coords, &slot)) << l.str();
          EXPECT_EQ(slot, key.second) << l.str();
        }
        EXPECT_EQ(int(owners.size()), l.num_elements()) << l.str();
        for (auto& [coords, n] : owners) EXPECT_EQ(n, replication) << l.str();
      }
}

TEST(LayoutLaws, CompositionIsAssociative) {
  for (const Layout& a : atoms())
    for (const Layout& b : atoms())
      for (const Layout& c : atoms()) {
        const Layout left = (a * b) * c, right = a * (b * c);
        EXPECT_EQ(left.str(), right.str());
        EXPECT_EQ(mapping(left), mapping(right));
      }
}

TEST(LayoutLaws, CanonicalFormsOfEqualMappingsAreEqual) {
  // Different constructions of the same mappings.
  EXPECT_EQ(Layout::local({2, 1}) * Layout::local({2, 4}), Layout::local({4, 4}));
  // Same factors, other order: slot digits interleave, so the mapping (and form) differ.
  EXPECT_NE((Layout::local({2, 4}) * Layout::local({2, 1})).str(), Layout::local({4, 4}).str());
  EXPECT_EQ(Layout::spatial({4, 1}) * Layout::spatial({2, 8}), Layout::spatial({8, 8}));
  EXPECT_EQ(Layout::local({1, 1}) * Layout::spatial({3, 2}), Layout::spatial({3, 2}));
  EXPECT_EQ(Layout::replicated(2, 2) * Layout::replicated(2, 4), Layout::replicated(2, 8));
  // And the converse: equal canonical forms denote equal mappings, over all small compositions.
  std::map<std::string, std::map<std::pair<int, int>, std::vector<int>>> seen;
  for (const Layout& a : atoms())
    for (const Layout& b : atoms()) {
      const Layout l = a * b;
      auto [it, fresh] = seen.try_emplace(l.str(), mapping(l));
      if (!fresh) EXPECT_EQ(it->second, mapping(l)) << l.str();
    }
}

TEST(LayoutLaws, DivisionUndoesComposition) {
  for (const Layout& a : atoms())
    for (const Layout& b : atoms())
      for (const Layout& c : atoms()) {
        const Layout x = a * b;
        EXPECT_EQ((x * c).divide(c), x) << (x * c).str() << " / " << c.str();
      }
  // Merged modes are split again: local(4,1) is local(2,1) * local(2,1).
  EXPECT_EQ(Layout::local({4, 1}).divide(Layout::local({2, 1})), Layout::local({2, 1}));
  EXPECT_EQ(Layout::replicated(2, 8).divide(Layout::replicated(2, 2)), Layout::replicated(2, 4));
  // Not an inner factor: the thread digits of spatial(2, 4) are not the inner ones of local * spatial.
  EXPECT_THROW((Layout::spatial({2, 4}) * Layout::local({2, 2})).divide(Layout::spatial({2, 4})), Error);
  EXPECT_THROW(Layout::local({3, 1}).divide(Layout::local({2, 1})), Error);
}

TEST(LayoutLaws, PermuteSqueezeAndUnsqueezeMoveCoordinatesOnly) {
  const Layout l = Layout::local({2, 1, 3}) * Layout::spatial({4, 8, 1}) * Layout::local({1, 2, 1});
  const Layout p = l.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (std::vector<int>{3, 8, 16}));
  for (int t = 0; t < l.num_threads(); ++t)
    for (int s = 0; s < l.local_size(); ++s) {
      const auto c = l.coords(t, s);
      EXPECT_EQ(p.coords(t, s), (std::vector<int>{c[2], c[0], c[1]}));
    }
  EXPECT_EQ(p.permute({1, 2, 0}), l);
  const Layout r = l.reduced(2).squeeze(2);
  EXPECT_EQ(r.shape(), (std::vector<int>{8, 16}));
  EXPECT_EQ(r.unsqueeze(2), l.reduced(2));
  EXPECT_THROW(l.squeeze(0), Error);
  EXPECT_THROW(l.permute({0, 0, 1}), Error);
}

TEST(LayoutLaws, ComposeThenDivideGivesBackTheOperand) {
  // Dividing a composition by its outer factor: the inner layout is what a cell of the outer one
  // sees, i.e. coordinates modulo the inner extents with the thread and slot digits of the inner part.
  for (const Layout& a : atoms())
    for (const Layout& b : atoms()) {
      const Layout l = a * b;
      for (int t = 0; t < l.num_threads(); ++t)
        for (int s = 0; s < l.local_size(); ++s) {
          const auto c = l.coords(t, s);
          const auto inner = b.coords(t % b.num_threads(), s % b.local_size());
          const auto outer = a.coords(t / b.num_threads(), s / b.local_size());
          for (int d = 0; d < 2; ++d) {
            EXPECT_EQ(c[d] % b.shape()[d], inner[d]) << l.str();
            EXPECT_EQ(c[d] / b.shape()[d], outer[d]) << l.str();
          }
        }
    }
}

TEST(LayoutLaws, ReductionReplicatesTheThreadsOfTheReducedDimension) {
  const Layout l = Layout::local({2, 1}) * Layout::spatial({4, 8}) * Layout::local({1, 4});
  const Layout r = l.reduced(1);
  EXPECT_EQ(r.shape(), (std::vector<int>{8, 1}));
  EXPECT_EQ(r.num_threads(), 32);
  EXPECT_EQ(r.local_size(), 2);
  for (int t = 0; t < 32; ++t)
    for (int s = 0; s < 2; ++s) {
      auto c = l.coords(t, s * 4);
      c[1] = 0;
      EXPECT_EQ(r.coords(t, s), c);
    }
  const auto spans = l.thread_spans(1);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].stride, 1);
  EXPECT_EQ(spans[0].size, 8);
}

TEST(LayoutLaws, DistributedLayoutsCoverTheTileWithContiguousVectors) {
  for (int threads : {32, 128})
    for (std::vector<int> shape : {std::vector<int>{64, 32}, {16, 128}, {7, 12}, {2048}, {3}}) {
      const Layout l = Layout::distributed(shape, threads, 4);
      EXPECT_EQ(l.shape(), shape);
      EXPECT_EQ(l.num_threads(), threads);
      std::set<std::vector<int>> covered;
      for (auto& [key, c] : mapping(l)) covered.insert(c);
      EXPECT_EQ(int(covered.size()), l.num_elements()) << l.str();
    }
  EXPECT_EQ(Layout::distributed({2048}, 128, 4).str(), "layout[2048](d0=4x128x4; threads=d0.1; local=d0.0,d0.2)");
}

TEST(LayoutLaws, PrintedFormNamesModesAndDigits) {
  const Layout l = Layout::local({2, 1}) * Layout::spatial({8, 4}) * Layout::local({1, 2});
  EXPECT_EQ(l.str(), "layout[16,8](d0=2x8 d1=4x2; threads=d0.1,d1.0; local=d0.0,d1.1)");
  // The worked example of the header comment: thread 5, register 3 -> (9, 3).
  EXPECT_EQ(l.coords(5, 3), (std::vector<int>{9, 3}));
  EXPECT_EQ(l.coord_exprs("t", "l")[0], "(t / 4) + (l / 2) * 8");
}

int row_major_index(const std::vector<int>& coords, const std::vector<int>& shape) {
  int index = 0;
  for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + coords[d];
  return index;
}

// Every shape of 1 to 3 dimensions with `count` elements.
std::vector<std::vector<int>> shapes_of(int count) {
  std::vector<std::vector<int>> out;
  for (int a = 1; a <= count; ++a) {
    if (count % a) continue;
    out.push_back({a, count / a});
    for (int b = 1; b <= count / a; ++b)
      if ((count / a) % b == 0) out.push_back({a, b, count / a / b});
  }
  out.push_back({count});
  return out;
}

TEST(LayoutLaws, ReshapeKeepsEveryElementAtItsRowMajorIndex) {
  int reshaped = 0, refused = 0;
  for (const Layout& a : atoms())
    for (const Layout& b : atoms())
      for (const Layout& c : {Layout::local({1, 1}), Layout::local({2, 3}), Layout::spatial({3, 2})}) {
        const Layout l = a * b * c;
        const auto before = mapping(l);
        for (const std::vector<int>& shape : shapes_of(l.num_elements())) {
          Layout r;
          try {
            r = l.reshape(shape);
          } catch (const Error&) {
            ++refused;
            continue;
          }
          ++reshaped;
          ASSERT_EQ(r.shape(), shape) << l.str();
          ASSERT_EQ(r.num_threads(), l.num_threads()) << l.str();
          ASSERT_EQ(r.local_size(), l.local_size()) << l.str();
          for (const auto& [key, coords] : before)
            ASSERT_EQ(row_major_index(r.coords(key.first, key.second), shape), row_major_index(coords, l.shape()))
                << l.str() << " as " << r.str();
          EXPECT_EQ(r.reshape(l.shape()), l) << "round trip through " << r.str();
        }
        // Merging dimensions never cuts a mode.
        EXPECT_NO_THROW(l.reshape({l.num_elements()})) << l.str();
      }
  EXPECT_GT(reshaped, 500);
  EXPECT_GT(refused, 0);
}

TEST(LayoutLaws, ReshapeSplitsADimensionAtAModeBoundary) {
  const Layout rows = Layout::spatial({4, 8}) * Layout::local({2, 4});  // [8, 32]
  EXPECT_EQ(rows.reshape({8, 8, 4}).str(), (Layout::spatial({4, 8, 1}) * Layout::local({2, 1, 4})).str());
  // dim 0 = 4 threads x 2 registers: its inner 4 rows are 2 threads x 2 registers.
  EXPECT_EQ(rows.reshape({2, 4, 32}).str(), (Layout::spatial({2, 2, 8}) * Layout::local({1, 2, 4})).str());
  EXPECT_EQ(rows.reshape({256}).reshape({8, 32}).str(), rows.str());
}

TEST(LayoutLaws, ReshapeRefusesToCutAModeThatDoesNotDivide) {
  const Layout l = Layout::spatial({3}) * Layout::local({2});
  try {
    l.reshape({2, 3});
    FAIL() << "reshaped";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot reshape layout[6](d0=3x2; threads=d0.0; local=d0.1) to [2, 3]: a mode of size 2 straddles "
              "dimension 1");
  }
  EXPECT_THROW(l.reshape({4}), Error);
}

TEST(LayoutLaws, SliceKeepsEachElementInTheThreadAndRegisterThatHeldIt) {
  int sliced = 0, refused = 0;
  for (const Layout& a : atoms())
    for (const Layout& b : atoms()) {
      const Layout l = a * b;
      for (int r = 1; r <= l.shape()[0]; ++r)
        for (int c = 1; c <= l.shape()[1]; ++c)
          for (int r0 = 0; r0 + r <= l.shape()[0]; ++r0)
            for (int c0 = 0; c0 + c <= l.shape()[1]; ++c0) {
              Layout part;
              try {
                part = l.slice({r0, c0}, {r, c});
              } catch (const Error&) {
                ++refused;
                continue;
              }
              ++sliced;
              ASSERT_EQ(part.shape(), (std::vector<int>{r, c})) << l.str();
              ASSERT_EQ(part.num_threads(), l.num_threads()) << l.str();
              const std::vector<int> registers = l.slice_registers({r0, c0}, part);
              for (const auto& [key, coords] : mapping(part)) {
                const auto [thread, slot] = key;
                ASSERT_EQ(l.coords(thread, registers[size_t(slot)]), (std::vector<int>{coords[0] + r0, coords[1] + c0}))
                    << l.str() << " sliced to " << part.str();
              }
            }
    }
  EXPECT_GT(sliced, 300);
  EXPECT_GT(refused, 0);
}

TEST(LayoutLaws, SliceCutsOnlyRegisterModes) {
  // An mma accumulator's columns: 8-column atoms in registers, 4 threads x 2 registers inside each.
  const Layout acc = Layout::spatial({8, 1}) * Layout::local({1, 4}) * Layout::spatial({1, 4}) * Layout::local({1, 2});
  EXPECT_EQ(acc.slice({0, 16}, {8, 16}).str(),
            (Layout::spatial({8, 1}) * Layout::local({1, 2}) * Layout::spatial({1, 4}) * Layout::local({1, 2})).str());
  EXPECT_EQ(acc.slice({0, 16}, {8, 16}).str(), acc.slice({0, 0}, {8, 16}).str());
  try {
    acc.slice({0, 0}, {4, 32});
    FAIL() << "sliced across threads";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot slice [4, 32] at [0, 0] out of " + acc.str() +
                                         ": dimension 0 is spread over threads outside the slice");
  }
  // Atoms 1 and 2: the atom digit is cut to a range of 2.
  EXPECT_EQ(acc.slice({0, 8}, {8, 16}).str(), acc.slice({0, 0}, {8, 16}).str());
  EXPECT_THROW(acc.slice({0, 4}, {8, 16}), Error);  // starts inside an atom's 4 threads
  EXPECT_THROW(acc.slice({0, 0}, {8, 12}), Error);  // 12 columns straddle an atom
  // A register mode is cut to any range of it: three words a thread, as two and one.
  const Layout words = Layout::spatial({32, 1}) * Layout::local({1, 3});
  EXPECT_EQ(words.slice({0, 0}, {32, 2}).str(), (Layout::spatial({32, 1}) * Layout::local({1, 2})).str());
  EXPECT_EQ(words.slice_registers({0, 1}, words.slice({0, 1}, {32, 2})), (std::vector<int>{1, 2}));
  EXPECT_EQ(words.slice_registers({0, 2}, words.slice({0, 2}, {32, 1})), (std::vector<int>{2}));
}

}  // namespace
}  // namespace tessel
