// A canonical path against the root it must stay under, as text: the part
// below the root, whether it is inside, and how errors show it to the client.
// Every backend judges paths by these, so that "inside" means one thing.
//
// Paths are canonical (absolute, no "." or "..", no repeated or trailing
// slash); the root is one too, "/" included.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace editd {

// The part of `path` below `root`: "" for the root itself, nullopt for a path
// outside it.
inline std::optional<std::string_view> below_root(std::string_view root, std::string_view path) {
  if (path == root) return std::string_view();
  if (root == "/") {
    if (path.starts_with('/')) return path.substr(1);
    return std::nullopt;
  }
  if (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/')
    return path.substr(root.size() + 1);
  return std::nullopt;
}

inline bool inside_root(std::string_view root, std::string_view path) {
  return below_root(root, path).has_value();
}

// How a message shows `path`: relative to the root ("." for the root), or
// whole when it is outside.
inline std::string shown_path(std::string_view root, std::string_view path) {
  std::optional<std::string_view> rel = below_root(root, path);
  if (!rel) return std::string(path);
  if (rel->empty()) return ".";
  return std::string(*rel);
}

}  // namespace editd
