// The test watchdog, linked into every GoogleTest binary of memrep
// (memrep_add_gtest in tests/CMakeLists.txt): when a test runs past its
// limit, or the whole binary past the time its ctest test allows, it prints
// the running test's full name and every thread's stack, then aborts the
// binary. So a hang in any lane says where it stopped, where ctest's own
// timeout kills the binary silently (and --gtest_brief=1 prints nothing for
// a test that never ends).
//
//   MEMREP_TEST_WATCHDOG_S        a test's limit, in seconds: default 300,
//                                 600 under a sanitizer; 0 turns it off
//   MEMREP_TEST_WATCHDOG_TOTAL_S  the binary's limit, in seconds (ctest sets
//                                 it below the test's TIMEOUT); default none
//
// The watchdog is a process, not a thread: forked when the tests start,
// before any test makes a thread, so that the test binary stays
// single-threaded for the tests that fork (the trie's crash test:
// ThreadSanitizer refuses threads in a child forked from a multi-threaded
// process). The test process writes the running test's name and start time
// into a page they share; the watchdog reads it every 100 ms. The stacks
// come from `gdb -p` (the test process lets the watchdog's children trace
// it: PR_SET_PTRACER), else `eu-stack -p`, else each thread's name, state
// and wait channel from /proc. Then the watchdog sends SIGABRT.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <thread>

namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
constexpr bool kSanitizer = true;
#else
constexpr bool kSanitizer = false;
#endif
#else
constexpr bool kSanitizer = false;
#endif

constexpr long kDefaultLimitS = kSanitizer ? 600 : 300;
// How long the stack dump may take (gdb loading a sanitizer binary's
// symbols takes seconds) before the watchdog aborts the binary anyway.
constexpr int kDumpLimitS = 60;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for both processes
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

long EnvSeconds(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n >= 0 ? n : fallback;
}

// Shared by the test process (the writer) and the watchdog (the reader).
// `version` is odd while the writer changes the rest.
struct Page {
  std::atomic<uint64_t> version{0};
  std::atomic<int64_t> test_start_ms{0};  // 0: between tests
  char name[2048] = {};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

void Say(const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Runs argv with its output on stderr, for at most kDumpLimitS; whether it
// ran and exited 0.
bool RunTool(const char* const argv[]) {
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execvp(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  const int64_t deadline = NowMs() + int64_t{kDumpLimitS} * 1000;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (r < 0 && errno != EINTR) return false;
    if (NowMs() > deadline) {
      Say("[ WATCHDOG ] " + std::string(argv[0]) + " took too long; stopped\n");
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return false;
    }
    ::usleep(50 * 1000);
  }
}

std::string ReadSmallFile(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  return out;
}

// Without a debugger: each thread's name, state and kernel wait channel
// (and its kernel stack, where /proc shows it).
void ProcThreads(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* tasks = ::opendir(dir.c_str());
  if (tasks == nullptr) return;
  while (const dirent* entry = ::readdir(tasks)) {
    const std::string tid = entry->d_name;
    if (tid.empty() || tid[0] == '.') continue;
    const std::string t = dir + "/" + tid;
    const std::string stat = ReadSmallFile(t + "/stat");
    const size_t paren = stat.rfind(')');
    const std::string state =
        paren != std::string::npos && paren + 2 < stat.size() ? stat.substr(paren + 2, 1) : "?";
    Say("Thread " + tid + " (" + ReadSmallFile(t + "/comm") + ") state " + state + ", waiting in " +
        ReadSmallFile(t + "/wchan") + "\n");
    const std::string kernel = ReadSmallFile(t + "/stack");
    if (!kernel.empty()) Say(kernel + "\n");
  }
  ::closedir(tasks);
}

// The running test's name ("" between tests) and start (0 between tests).
std::string ReadPage(Page* page, int64_t* start) {
  uint64_t before, after;
  char name[sizeof page->name];
  do {
    before = page->version.load(std::memory_order_acquire);
    *start = page->test_start_ms.load(std::memory_order_relaxed);
    std::memcpy(name, page->name, sizeof name);
    // A read-modify-write: its release half keeps the copy above before it.
    after = page->version.fetch_add(0, std::memory_order_acq_rel);
  } while ((before & 1) != 0 || before != after);
  name[sizeof name - 1] = '\0';
  return *start != 0 ? name : "";
}

[[noreturn]] void Fire(Page* page, pid_t pid, const std::string& why, const std::string& running) {
  Say("\n[ WATCHDOG ] " + why +
      "\n[ WATCHDOG ] every thread's stack follows, then the binary aborts\n");
  const std::string p = std::to_string(pid);
  const char* gdb[] = {"gdb",
                       "-p",
                       p.c_str(),
                       "-batch",
                       "-nx",
                       "-ex",
                       "set pagination off",
                       "-ex",
                       "thread apply all bt",
                       nullptr};
  const char* eu_stack[] = {"eu-stack", "-p", p.c_str(), nullptr};
  if (!RunTool(gdb) && !RunTool(eu_stack)) {
    Say("[ WATCHDOG ] no gdb or eu-stack could trace the binary; its threads from /proc:\n");
    ProcThreads(pid);
  }
  // The binary runs on while it is traced: say so if it reached another test.
  int64_t start;
  const std::string now_running = ReadPage(page, &start);
  if (now_running != running) {
    Say("[ WATCHDOG ] while the stacks were taken the binary went on to " +
        (now_running.empty() ? std::string("(between tests)") : now_running) + "\n");
  }
  Say("[ WATCHDOG ] aborting the test binary (pid " + p + ")\n");
  ::kill(pid, SIGABRT);
  ::_exit(0);
}

[[noreturn]] void Watch(Page* page, pid_t parent, long limit_s, long total_s) {
  // Goes with the test process, however that ends.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);
  const int64_t program_start = NowMs();
  for (;;) {
    ::usleep(100 * 1000);
    if (::getppid() != parent) ::_exit(0);
    int64_t start;
    const std::string name = ReadPage(page, &start);
    const int64_t now = NowMs();
    if (start != 0 && limit_s > 0 && now - start > limit_s * 1000) {
      Fire(page, parent,
           "test " + name + " has run for " + std::to_string((now - start) / 1000) +
               " s, past its limit of " + std::to_string(limit_s) + " s (MEMREP_TEST_WATCHDOG_S)",
           name);
    }
    if (total_s > 0 && now - program_start > total_s * 1000) {
      const std::string running =
          start != 0 ? "test " + name + " (for " + std::to_string((now - start) / 1000) + " s)"
                     : "(between tests)";
      Fire(page, parent,
           "the test binary has run for " + std::to_string((now - program_start) / 1000) +
               " s, past its limit of " + std::to_string(total_s) +
               " s (MEMREP_TEST_WATCHDOG_TOTAL_S); running: " + running,
           name);
    }
  }
}

class Watchdog : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    const long limit_s = EnvSeconds("MEMREP_TEST_WATCHDOG_S", kDefaultLimitS);
    const long total_s = EnvSeconds("MEMREP_TEST_WATCHDOG_TOTAL_S", 0);
    if (limit_s == 0 || watchdog_ > 0) return;
    void* mem =
        ::mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    page_ = new (mem) Page();
    const pid_t parent = ::getpid();
    std::fflush(nullptr);  // nothing buffered is written twice
    const pid_t child = ::fork();
    if (child < 0) return;
    if (child == 0) Watch(page_, parent, limit_s, total_s);
    watchdog_ = child;
    // Lets the watchdog and its children (gdb) trace this process where
    // Yama allows only ancestors to (a no-op elsewhere).
    ::prctl(PR_SET_PTRACER, static_cast<unsigned long>(child), 0, 0, 0);
  }
  void OnTestStart(const ::testing::TestInfo& info) override {
    if (page_ == nullptr) return;
    std::string name = std::string(info.test_suite_name()) + "." + info.name();
    if (info.value_param() != nullptr)
      name += std::string(" [GetParam() = ") + info.value_param() + "]";
    Write(name, NowMs());
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    if (page_ != nullptr) Write("", 0);
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    if (watchdog_ <= 0) return;
    ::kill(watchdog_, SIGKILL);
    int status;
    ::waitpid(watchdog_, &status, 0);
    watchdog_ = 0;
  }

 private:
  void Write(const std::string& name, int64_t start) {
    // A read-modify-write: its acquire half keeps the writes below after it.
    const uint64_t v = page_->version.fetch_add(1, std::memory_order_acq_rel);
    const size_t n = std::min(name.size(), sizeof page_->name - 1);
    std::memcpy(page_->name, name.data(), n);
    page_->name[n] = '\0';
    page_->test_start_ms.store(start, std::memory_order_relaxed);
    page_->version.store(v + 2, std::memory_order_release);
  }

  Page* page_ = nullptr;
  pid_t watchdog_ = 0;
};

// Registered before main: gtest_main's RUN_ALL_TESTS then reports to it.
[[maybe_unused]] const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new Watchdog);
  return true;
}();

}  // namespace

// The watchdog's own test: tests/watchdog_test.sh runs it alone with a
// limit of 1 s and checks what the watchdog printed. A test that sleeps,
// beside a second thread, far past that limit; disabled, so that only that
// script's filter runs it.
TEST(Watchdog, DISABLED_SleepsPastTheLimit) {
  std::thread other([] { std::this_thread::sleep_for(std::chrono::seconds(120)); });
  std::this_thread::sleep_for(std::chrono::seconds(120));
  other.join();
  ADD_FAILURE() << "the watchdog did not stop this test";
}
