// What a file carries besides its bytes, mode and owner, for the writes of the
// local backend: its extended attributes (POSIX ACLs are the xattr
// system.posix_acl_access, security labels security.*), copied from the file a
// write replaces to the temporary file renamed over it; and its other names,
// for a file with several hard links, which a write keeps by editing it in
// place (batch.cpp) when every one of them is inside the root.
// docs/protocol.md, "Byte fidelity", says what survives which write.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "backends/local/beneath.h"

namespace editd::local_backend_detail {

// What copy_xattrs copies at most: a hostile tree may carry many, or large,
// attributes (the kernel allows 64 KiB a value, more in total on some
// filesystems). A file over either bound is refused, never copied in part.
inline constexpr std::size_t kMaxXattrs = 1024;
inline constexpr std::size_t kMaxXattrBytes = 1 << 20;

// Opens `name` of `dir` (with `flags`, never following a link) when it is
// still the regular file `st` describes; a file that may not be read opens
// O_PATH for O_RDONLY. Invalid, with errno (ESTALE: another file is there
// now), when not.
Fd open_same_file(int dir, const std::string& name, const struct stat& st, int flags);

// Copies every extended attribute of `from` to `to` (open files; `from` may
// be O_PATH), the access ACL included; when `from` has no access ACL, removes the one `to`
// took from its directory's default ACL (which would grant what the file never
// did). An attribute the process may not set because it grants a privilege the
// kernel itself drops when an unprivileged process writes the file
// (security.capability, like the set-user-ID bit) is left out. 0, or the errno
// of the first attribute that could not be read or set (its name in `failed`);
// E2BIG when `from` has more than the bounds above. Call it after any fchown
// (a change of owner clears security.capability) and before the fchmod that
// sets the mode (which then sets the ACL mask from the group bits, as the
// original's are).
int copy_xattrs(int from, int to, std::string& failed);

// Removes the access ACL that a file created by editd took from its
// directory's default ACL: for a file whose mode editd then sets itself (one
// put back or moved), so that the mode alone says who may read it. 0 or errno.
int drop_inherited_acl(int fd);

// Searches the root (at most `limit` entries, never following a link) for
// the names of the regular files `files` describe: how many it finds of each,
// up to its st_nlink. Where that is all of them, no name of the file lies
// outside the root.
std::vector<std::size_t> names_inside(const Beneath& root, const std::vector<struct stat>& files,
                                      std::size_t limit);

// Makes the file `to` hold exactly the bytes of `from` (read from its start),
// in place, then fsyncs it when `durable`: how a hard-linked file's old bytes
// are saved, and put back. 0 or errno.
int replace_contents(int to, int from, bool durable);

// Writes every byte of `bytes` to `fd` from offset `at`, again after EINTR:
// 0 or errno.
int write_all_at(int fd, std::string_view bytes, off_t at);

}  // namespace editd::local_backend_detail
