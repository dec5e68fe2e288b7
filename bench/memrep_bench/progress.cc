#include "progress.h"

#include <unistd.h>

#include <cstdio>

#include "report.h"
#include "thread_runner.h"

namespace memrep::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kQuiet = std::chrono::seconds(2);  // runs shorter than this print nothing

}  // namespace

Progress::Progress(bool enabled) : enabled_(enabled), terminal_(isatty(STDERR_FILENO) == 1) {
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Progress::SetLabel(std::string label) {
  std::lock_guard<std::mutex> lock(mu_);
  label_ = std::move(label);
}

void Progress::Watch(std::vector<ThreadStats*> threads, uint64_t expected_ops) {
  std::lock_guard<std::mutex> lock(mu_);
  threads_ = std::move(threads);
  expected_ops_ = expected_ops;
  started_ = last_print_ = Clock::now();
  printed_ = false;
}

void Progress::Unwatch() {
  std::lock_guard<std::mutex> lock(mu_);
  if (printed_) Print(/*final_line=*/true);
  threads_.clear();
}

void Progress::Print(bool final_line) {
  uint64_t ops = 0;
  for (const ThreadStats* t : threads_) ops += t->published.load(std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  std::string line = "[memrep_bench] " + label_ + ":";
  if (final_line) {
    line += " done";
  } else if (expected_ops_ > 0) {
    line += " " + std::to_string(std::min<uint64_t>(100, ops * 100 / expected_ops_)) + "%";
  }
  line += "  " + FormatCount(seconds > 0 ? static_cast<double>(ops) / seconds : 0) + " ops/s  " +
          std::to_string(static_cast<int>(seconds)) + " s";
  if (terminal_) {
    std::fprintf(stderr, "\r%-78s%s", line.c_str(), final_line ? "\n" : "");
  } else if (!final_line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
  printed_ = true;
}

void Progress::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stop_ || threads_.empty()) continue;
    const Clock::time_point now = Clock::now();
    if (now - started_ < kQuiet) continue;
    if (!terminal_ && printed_ && now - last_print_ < std::chrono::seconds(10)) continue;
    last_print_ = now;
    Print(/*final_line=*/false);
  }
}

}  // namespace memrep::bench
