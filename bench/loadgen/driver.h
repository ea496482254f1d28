#pragma once

/// \file
/// \brief Running coroutines: `RunBlocking` for one-off setup calls, `RunWorkers` for a
/// fixed set of closed-loop workers spread over one io_context per thread.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/format.h>

#include "common/result.h"

namespace cairn::bench {

using Clock = std::chrono::steady_clock;

/// \brief The measured window of a timed run: requests that start before `start` are
/// warm-up (not recorded); none starts at or after `end`.
struct Window {
  Clock::time_point start;
  Clock::time_point end;

  /// \brief From now: `warmup_s` of warm-up, then `duration_s` measured.
  static Window FromNow(double warmup_s, double duration_s) {
    const auto seconds = [](double s) {
      return std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(s));
    };
    const auto start = Clock::now() + seconds(warmup_s);
    return {start, start + seconds(duration_s)};
  }
};

/// \brief Waits `delay`; workers pause after a transport error so that a refused
/// connect does not spin.
inline boost::asio::awaitable<void> Pause(std::chrono::milliseconds delay) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, delay);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

/// \brief Runs `task` to completion on a private io_context and returns its value.
/// Exceptions from the task propagate.
template <class T>
T RunBlocking(boost::asio::awaitable<T> task) {
  boost::asio::io_context io(1);
  std::optional<T> out;
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(task)); },
      [](const std::exception_ptr& error) {
        if (error) std::rethrow_exception(error);
      });
  io.run();
  return std::move(*out);
}

/// \brief Spreads `workers` coroutines round-robin over `threads` io_contexts (each run
/// by its own thread, so workers on one thread share its `State` without locks) and
/// returns the per-thread states for the caller to merge. `make(executor, worker, state)`
/// returns the worker's `awaitable<void>`. A worker that throws is logged and makes the
/// whole run an kInternal error.
template <class State, class Make>
Result<std::vector<State>> RunWorkers(int threads, int workers, Make make) {
  const int thread_count = std::clamp(threads, 1, std::max(1, workers));
  std::vector<State> states(static_cast<size_t>(thread_count));
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
  contexts.reserve(states.size());
  for (int t = 0; t < thread_count; ++t) {
    // Concurrency hint 1: each context is run by exactly one thread, so asio can skip
    // its internal locking.
    contexts.push_back(std::make_unique<boost::asio::io_context>(1));
  }
  std::atomic<bool> failed{false};
  for (int w = 0; w < workers; ++w) {
    const auto t = static_cast<size_t>(w % thread_count);
    boost::asio::co_spawn(*contexts[t], make(contexts[t]->get_executor(), w, states[t]),
                          [w, &failed](const std::exception_ptr& error) {
                            if (!error) return;
                            failed = true;
                            try {
                              std::rethrow_exception(error);
                            } catch (const std::exception& e) {
                              fmt::print(stderr, "worker {} failed: {}\n", w, e.what());
                            } catch (...) {
                              fmt::print(stderr, "worker {} failed\n", w);
                            }
                          });
  }
  std::vector<std::thread> pool;
  for (size_t t = 1; t < contexts.size(); ++t) {
    pool.emplace_back([&context = *contexts[t]] { context.run(); });
  }
  contexts[0]->run();
  for (auto& thread : pool) thread.join();
  if (failed) return Internal("a worker failed (see the log above)");
  return states;
}

}  // namespace cairn::bench
