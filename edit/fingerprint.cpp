#include "edit/fingerprint.h"

#include <xxhash.h>

#include <cstdio>

namespace editd {

std::string fingerprint(std::string_view bytes) {
  XXH64_hash_t h = XXH3_64bits(bytes.data(), bytes.size());
  char buf[24];
  std::snprintf(buf, sizeof buf, "xxh3:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace editd
