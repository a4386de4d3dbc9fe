#include "server/memory.h"

#include <malloc.h>

namespace editd {

std::size_t heap_free_bytes() { return ::mallinfo2().fordblks; }

bool release_idle_memory() {
  if (heap_free_bytes() < kIdleFreeBytes) return false;
  ::malloc_trim(0);
  return true;
}

}  // namespace editd
