// The clock memrep.Auto times sampled calls with: steady_clock in
// nanoseconds, less what a pair of its reads costs by itself. Tests install
// a fake clock, so that what they assert never depends on real timings.
#pragma once

#include <cstdint>

namespace memrep::auto_rep {

using NowFunction = uint64_t (*)();

// Nanoseconds from the installed clock (steady_clock unless a test set one).
uint64_t Now();

// The nanoseconds between two Now() readings t0 <= t1 around a call, less
// the clock's own cost (measured once: the least of a few back-to-back
// pairs; 0 under a fake clock). Never below 0.
uint64_t Elapsed(uint64_t t0, uint64_t t1);

// Tests: `now` replaces the clock for the whole process (nullptr: the steady
// clock again). Not for use while another thread times a call.
void SetClockForTesting(NowFunction now);

}  // namespace memrep::auto_rep
