#include "server/session/memory.h"

#include <malloc.h>

namespace editd {

bool release_idle_memory() {
  if (::mallinfo2().fordblks < kIdleFreeBytes) return false;
  ::malloc_trim(0);
  return true;
}

}  // namespace editd
