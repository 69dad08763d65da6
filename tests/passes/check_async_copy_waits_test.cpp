// check_async_copy_waits: in straight-line code, an instruction that uses a tile a copy_async
// issued before it writes, with no wait between them, is reported at its line before anything
// runs; the pass never changes the kernel.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

float* no_data = nullptr;

template <class S, class... A> ir::Kernel traced(const A&... args) {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_80"}).traced(args...),
                        "check_async_copy_waits", ir::Arch::Sm80);
}

template <class S> std::string check_error() {
  const ir::Kernel k = traced<S>(no_data, no_data);
  return error_of_call([&] { passes::check_async_copy_waits(k, {ir::Arch::Sm80}); });
}

int alloc_line = 0, copy_line = 0, read_line = 0;

// One warp copies a tile to shared memory and reads it back; `Wait` waits for the copy first.
template <bool Wait> struct ReadsACopiedTile : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({32});
    copy_line = __LINE__ + 1;
    copy_async(global_view(in, {32}), tile, {0});
    copy_async_commit_group();
    if (Wait) copy_async_wait_all();
    read_line = __LINE__ + 1;
    store_global(global_view(out, {32}), load_shared(tile), {0});
  }
};

TEST(CheckAsyncCopyWaits, ReportsATileReadBeforeItsCopysWait) {
  const std::string got = check_error<ReadsACopiedTile<false>>();
  EXPECT_EQ(got,
            fmt::format("{}: load_shared uses the shared tile allocated at {}, which the copy_async at {} writes, with "
                        "no copy_async wait between them: the copy may still be landing; wait for its group "
                        "(copy_async_wait_all or copy_async_wait_group) first, and sync() when other threads issued it",
                        at(read_line), at(alloc_line), at(copy_line)));
}

TEST(CheckAsyncCopyWaits, AcceptsTheReadAfterTheWaitAndChangesNothing) {
  const ir::Kernel k = traced<ReadsACopiedTile<true>>(no_data, no_data);
  EXPECT_EQ(passes::check_async_copy_waits(k, {ir::Arch::Sm80}), k);
}

// The copy is issued in one branch and the tile read in the other, which never meet.
struct CopiesInOneBranchAndReadsInTheOther : Script {
  void operator()(Int32 n, Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto tile = shared_tensor<float>({32});
    if_(n > 0, [&] {
      copy_async(global_view(in, {32}), tile, {0});
      copy_async_commit_group();
    }).else_([&] { store_global(global_view(out, {32}), load_shared(tile), {0}); });
  }
};

TEST(CheckAsyncCopyWaits, AcceptsACopyAndAReadInDifferentBranches) {
  const ir::Kernel k = traced<CopiesInOneBranchAndReadsInTheOther>(1, no_data, no_data);
  EXPECT_EQ(passes::check_async_copy_waits(k, {ir::Arch::Sm80}), k);
}

}  // namespace
}  // namespace tessel::testing
