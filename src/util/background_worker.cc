#include "util/background_worker.h"

namespace memrep::util {

BackgroundWorker& BackgroundWorker::Shared() {
  static BackgroundWorker* worker = new BackgroundWorker();  // never destroyed: see header
  return *worker;
}

BackgroundWorker::BackgroundWorker() : thread_([this] { Run(); }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void BackgroundWorker::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    ++submitted_;
  }
  wake_.notify_one();
}

void BackgroundWorker::SubmitAfter(std::chrono::milliseconds delay, std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    delayed_.emplace(std::chrono::steady_clock::now() + delay, std::move(task));
    ++submitted_;
  }
  wake_.notify_one();
}

void BackgroundWorker::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = submitted_;
  idle_.wait(lock, [&] { return finished_ >= target; });
}

void BackgroundWorker::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // Move delayed tasks that are due (all of them when stopping) to the queue.
    const auto now = std::chrono::steady_clock::now();
    while (!delayed_.empty() && (stop_ || delayed_.begin()->first <= now)) {
      tasks_.push_back(std::move(delayed_.begin()->second));
      delayed_.erase(delayed_.begin());
    }
    if (tasks_.empty()) {
      if (stop_) return;
      // The predicates make a notification sent before these waits impossible to lose.
      auto ready = [&] { return stop_ || !tasks_.empty(); };
      if (delayed_.empty()) {
        wake_.wait(lock, ready);
      } else {
        wake_.wait_until(lock, delayed_.begin()->first, ready);
      }
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // release captured state outside the lock
    lock.lock();
    ++finished_;
    idle_.notify_all();
  }
}

}  // namespace memrep::util
