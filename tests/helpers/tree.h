// Test support: the whole state of a directory tree, to compare before and
// after, and the leftovers a crash may leave in it. Header-only.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace editd::test {

// Every entry below `root`, relative path -> content: a file's bytes, "/" for
// a directory, "-> TARGET" for a symbolic link (never followed).
inline std::map<std::string, std::string> tree_state(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(root, ec))) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::string rel = fs::relative(p, root, ec).string();
    fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_symlink(st)) {
      out[rel] = "-> " + fs::read_symlink(p, ec).string();
    } else if (fs::is_directory(st)) {
      out[rel] = "/";
    } else {
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      out[rel] = ss.str();
    }
  }
  return out;
}

// The entries of a tree_state() that editd would have left: temporary files
// (".NAME.editd-XXXXXX") and its journal directory (.editd).
inline std::vector<std::string> editd_leftovers(const std::map<std::string, std::string>& tree) {
  std::vector<std::string> out;
  for (const auto& [rel, content] : tree) {
    std::string leaf = std::filesystem::path(rel).filename().string();
    bool temp =
        leaf.size() > 14 && leaf[0] == '.' && leaf.compare(leaf.size() - 13, 7, ".editd-") == 0;
    if (temp || rel == ".editd" || rel.rfind(".editd/", 0) == 0) out.push_back(rel);
  }
  return out;
}

// The permission bits of `path` (not following a link).
inline unsigned mode_of(const std::filesystem::path& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

}  // namespace editd::test
