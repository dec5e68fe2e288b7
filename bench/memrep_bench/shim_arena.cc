#include "shim_arena.h"

#include <new>

namespace memrep::bench {

char* ShimArena::Checked(char* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace memrep::bench
