// Returning to the system the heap memory that big requests freed, once a
// connection is idle.
//
// glibc keeps freed heap pages for reuse. After a request on a file of many
// megabytes they would stay resident (40 MiB after a miss on a 58 MiB file),
// though nothing uses them. A connection that has had nothing in flight and
// nothing to write for kIdleTrimDelay gives them back when the heap holds more
// than kIdleFreeBytes of free memory (one mallinfo2() tells, asked only then).
// The delay keeps them for a burst of big requests, which would otherwise
// fault every page in again (an 8 MiB edit repeated: 44 ms each with the pages
// kept, 75 ms with them returned at once).
#pragma once

#include <chrono>
#include <cstddef>

namespace editd {

inline constexpr std::size_t kIdleFreeBytes = std::size_t{8} << 20;
inline constexpr std::chrono::milliseconds kIdleTrimDelay{1000};

// Gives the heap's free memory back to the system (malloc_trim) when it holds
// at least kIdleFreeBytes; whether it did.
bool release_idle_memory();

}  // namespace editd
