// Unit tests of RandomUuid: the canonical version-4 form, no repeats across calls and
// threads, and none between a process and a child forked from it.

#include "common/uuid.h"

#include <unistd.h>

#include <array>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

namespace cairn {
namespace {

TEST(RandomUuidTest, IsCanonicalVersion4) {
  for (int i = 0; i < 100; ++i) {
    const std::string uuid = RandomUuid();
    EXPECT_THAT(uuid, ::testing::MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-"
                                              "[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  }
}

TEST(RandomUuidTest, NeverRepeatsAcrossCallsAndThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::vector<std::string>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&drawn, t] {
      for (int i = 0; i < kPerThread; ++i) drawn[t].push_back(RandomUuid());
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> distinct;
  for (const auto& some : drawn) distinct.insert(some.begin(), some.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads * kPerThread));
}

TEST(RandomUuidTest, AForkedChildDrawsOtherUuidsThanItsParent) {
  (void)RandomUuid();  // random bytes are now waiting in this thread
  std::array<int, 2> pipe_ends{};
  ASSERT_EQ(::pipe(pipe_ends.data()), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string uuid = RandomUuid();
    const bool written = ::write(pipe_ends[1], uuid.data(), uuid.size()) ==
                         static_cast<ssize_t>(uuid.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(pipe_ends[1]);
  const std::string parent = RandomUuid();
  std::string from_child(36, '\0');
  const ssize_t got = ::read(pipe_ends[0], from_child.data(), from_child.size());
  ::close(pipe_ends[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_EQ(got, 36);
  EXPECT_NE(from_child, parent);
}

}  // namespace
}  // namespace cairn
