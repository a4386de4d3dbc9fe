// Content fingerprints: the token a client passes back as expectedFingerprint to
// prove it saw the current bytes. XXH3-64 over the file's exact bytes (BOM and
// line endings included), with no seed, so it is the same across processes and
// runs. The "xxh3:" prefix leaves room for another algorithm later; clients
// treat the whole string as opaque.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace editd {

std::string fingerprint(std::string_view bytes);

// The fingerprint of the pieces' concatenation, without making it.
std::string fingerprint(const std::vector<std::string_view>& pieces);

}  // namespace editd
