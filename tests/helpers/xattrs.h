// Test support: a file's extended attributes, and POSIX ACLs written as the
// bytes of their xattrs (system.posix_acl_access / _default), so that tests
// need neither libacl nor setfacl. Header-only.
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace editd::test {

// Every extended attribute of `path` (not following a link): name -> value.
inline std::map<std::string, std::string> xattrs_of(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  std::vector<char> names(65536);
  ssize_t n = ::llistxattr(path.c_str(), names.data(), names.size());
  for (ssize_t i = 0; i < n;) {
    std::string name(names.data() + i);
    i += static_cast<ssize_t>(name.size()) + 1;
    std::vector<char> value(65536);
    ssize_t size = ::lgetxattr(path.c_str(), name.c_str(), value.data(), value.size());
    if (size >= 0) out[name] = std::string(value.data(), static_cast<std::size_t>(size));
  }
  return out;
}

inline bool set_xattr(const std::filesystem::path& path, const std::string& name,
                      const std::string& value) {
  return ::lsetxattr(path.c_str(), name.c_str(), value.data(), value.size(), 0) == 0;
}

// One entry of a POSIX ACL: the kernel's tags (ACL_USER_OBJ 0x01, ACL_USER
// 0x02, ACL_GROUP_OBJ 0x04, ACL_GROUP 0x08, ACL_MASK 0x10, ACL_OTHER 0x20),
// permissions rwx = 4|2|1, and the id of a named user or group.
struct AclEntry {
  std::uint16_t tag;
  std::uint16_t perm;
  std::uint32_t id = 0xffffffff;
};
inline constexpr std::uint16_t kAclUserObj = 0x01, kAclUser = 0x02, kAclGroupObj = 0x04,
                               kAclMask = 0x10, kAclOther = 0x20;

// The xattr value of an ACL (version 2, little-endian; entries in the
// kernel's order: by tag, then id).
inline std::string posix_acl(const std::vector<AclEntry>& entries) {
  std::string out;
  auto put = [&out](std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(2, 4);
  for (const AclEntry& e : entries) {
    put(e.tag, 2);
    put(e.perm, 2);
    put(e.id, 4);
  }
  return out;
}

// An ACL that grants user `uid` read and write besides the owner, group and others' `mode`.
inline std::string acl_granting(std::uint32_t uid, unsigned mode) {
  return posix_acl({{kAclUserObj, static_cast<std::uint16_t>((mode >> 6) & 7)},
                    {kAclUser, 6, uid},
                    {kAclGroupObj, static_cast<std::uint16_t>((mode >> 3) & 7)},
                    {kAclMask, 6},
                    {kAclOther, static_cast<std::uint16_t>(mode & 7)}});
}

// Whether the filesystem of `dir` takes user.* attributes and ACLs: what the
// tests of them need (tmpfs and ext4 do).
inline bool supports_acls(const std::filesystem::path& dir) {
  const std::filesystem::path probe = dir / ".xattr-probe";
  { std::ofstream(probe).put('x'); }
  const bool ok = set_xattr(probe, "user.probe", "1") &&
                  set_xattr(probe, "system.posix_acl_access", acl_granting(4242, 0644));
  std::filesystem::remove(probe);
  return ok;
}

}  // namespace editd::test

// In a test case: ends it, saying why, when the filesystem of `dir` takes no
// user.* attributes or ACLs.
#define SKIP_UNLESS_ACLS(dir)                                                              \
  if (!editd::test::supports_acls(dir)) {                                                  \
    MESSAGE("skipped: the filesystem of " << (dir) << " has no user.* xattrs or ACLs");      \
    return;                                                                                \
  }
