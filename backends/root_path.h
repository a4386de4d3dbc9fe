// A canonical path against the root it must stay under, as text: the part
// below the root, whether it is inside, and how errors show it to the client.
// Every backend judges paths by these, so that "inside" means one thing.
//
// Paths are canonical (absolute, no "." or "..", no repeated or trailing
// slash); the root is one too, "/" included.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/error.h"

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

// editd's own names, which no client path may reach (the backends' resolve()
// refuses them as `denied`):
// - ".editd" at the top of the root, and everything beneath it: the journals
//   of multi-file changes (backends/local/journal.h). Compared with ASCII case
//   folded, so that a case-insensitive directory cannot alias it.
// - a leaf named as editd's temporary files are, ".NAME.editd-XXXXXX" (six
//   letters or digits): recovery deletes such files of dead writers.
inline constexpr std::string_view kStateDirName = ".editd";
inline constexpr std::string_view kTempMark = ".editd-";
inline constexpr std::size_t kTempSuffix = 6;

inline bool is_temp_name(std::string_view name) {
  const std::size_t tail = kTempMark.size() + kTempSuffix;
  if (name.size() < 2 + tail || name.front() != '.') return false;
  std::string_view end = name.substr(name.size() - tail);
  if (end.substr(0, kTempMark.size()) != kTempMark) return false;
  return std::all_of(end.begin() + kTempMark.size(), end.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

// Whether `name`, one path component, is ".editd" (ASCII case folded).
inline bool is_state_dir_name(std::string_view name) {
  return name.size() == kStateDirName.size() &&
         std::equal(name.begin(), name.end(), kStateDirName.begin(), [](char a, char b) {
           return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b;
         });
}

// Whether `rel`, a path below the root ("" for the root), names editd's own
// state: .editd or anything under it, or a temporary file's name.
inline bool reserved_below_root(std::string_view rel) {
  if (rel.empty()) return false;
  const std::size_t slash = rel.find('/');
  if (is_state_dir_name(rel.substr(0, slash))) return true;
  const std::size_t last = rel.rfind('/');
  return is_temp_name(last == std::string_view::npos ? rel : rel.substr(last + 1));
}

// The error for a client's `path` whose canonical form `canonical` (inside
// `root`) names editd's own state; nullopt when it does not. Every backend's
// resolve() asks this, so that no method and no front door reaches it.
inline std::optional<Error> reserved_path_error(std::string_view root, std::string_view canonical,
                                                const std::string& path) {
  std::optional<std::string_view> rel = below_root(root, canonical);
  if (!rel || !reserved_below_root(*rel)) return std::nullopt;
  const std::size_t slash = rel->find('/');
  const bool state = is_state_dir_name(rel->substr(0, slash));
  return Error(ErrorKind::kDenied,
               "path " + path + " is editd's own: " +
                   (state ? std::string(kStateDirName) +
                                " at the top of the root holds editd's journals, and no request "
                                "may read or change it"
                          : std::string("names like .NAME.editd-XXXXXX are editd's temporary "
                                        "files, and no request may read or change them")) +
                   "; choose another name",
               {{"path", path}});
}

}  // namespace editd
