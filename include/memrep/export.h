// MEMREP_EXPORT marks what memrep's shared libraries export. They are built
// with hidden visibility, so only the public API (include/memrep/) is part
// of their ABI; everything else stays private to the library.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
// The standard attribute form, so that it can sit beside [[nodiscard]].
#define MEMREP_EXPORT [[gnu::visibility("default")]]
#else
#define MEMREP_EXPORT
#endif
