// MEMREP_ASSERT: checks a precondition or an invariant in builds configured
// with MEMREP_ASSERTS=ON (the sanitizer and clang lanes of scripts/test.sh);
// compiled out otherwise, so release builds pay nothing. A failed check
// prints the condition and its place, then aborts.
#pragma once

#include <cstdio>
#include <cstdlib>

#if defined(MEMREP_ENABLE_ASSERTS)
#define MEMREP_ASSERT(condition)                                                       \
  do {                                                                                 \
    if (!(condition)) {                                                                \
      std::fprintf(stderr, "%s:%d: memrep assertion failed: %s\n", __FILE__, __LINE__, \
                   #condition);                                                        \
      std::abort();                                                                    \
    }                                                                                  \
  } while (false)
#else
#define MEMREP_ASSERT(condition) \
  do {                           \
    (void)sizeof(condition);     \
  } while (false)
#endif
