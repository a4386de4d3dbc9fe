#include "edit/text/fingerprint.h"

#include <xxhash.h>

#include <cstdio>
#include <memory>
#include <new>

namespace editd {

namespace {

std::string format(XXH64_hash_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "xxh3:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string fingerprint(std::string_view bytes) {
  return format(XXH3_64bits(bytes.data(), bytes.size()));
}

std::string fingerprint(const std::vector<std::string_view>& pieces) {
  if (pieces.size() == 1) return fingerprint(pieces[0]);
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                        XXH3_freeState);
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  for (std::string_view p : pieces) XXH3_64bits_update(state.get(), p.data(), p.size());
  return format(XXH3_64bits_digest(state.get()));
}

}  // namespace editd
