// FsBackend: where file bytes come from and go to.
//
// The edit operations are composed above this interface (resolve, read,
// transform in edit/, write), so the same operation runs against the local
// disk, against an ACP client's buffers, or against memory in tests. Every
// method is a coroutine on the caller's executor; a backend that blocks (the
// local one) moves its work to a thread pool itself, so no caller ever blocks
// the I/O thread.
//
// Threading: a backend may be called concurrently for different paths, and for
// reads of one path. Callers never run a mutation of a path beside any other
// call on it (support/lock_chain.h); a backend need not serialise.
//
// Paths: resolve() turns a client path into the canonical absolute path that
// identifies the file (the lock chain key and the argument to every other
// method). Other methods take only canonical paths. A backend that follows
// links in resolve() follows none that appear later: a method whose path has
// changed into a link since fails with io (data.errno "ELOOP") instead of
// reaching wherever the link points.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"
#include "support/fd.h"

namespace editd {

// A file's permission bits and owner, on a medium that has them.
struct FileAttributes {
  std::uint32_t mode = 0;  // the permission bits (07777 of st_mode)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool operator==(const FileAttributes&) const = default;
};

// `mode` with the execute bits set where its read bits are (`executable`), or
// every execute bit cleared: what a git mode change (100755, 100644) does to a
// file's permission bits.
inline std::uint32_t with_executable(std::uint32_t mode, bool executable) {
  return executable ? mode | ((mode & 0444) >> 2) : mode & ~std::uint32_t{0111};
}

// A change of one file, the one name for it from the operations down to the
// backends: the file becomes `bytes` (with its mode, owner and executable bit
// as asked), or goes. apply_batch() writes a list of them as one change; the
// operations' commit (server/ops/commit.h) stages each with what it needs
// around it (the file before, how it is shown).
struct FileChange {
  enum class Kind { kWrite, kRemove };
  Kind kind = Kind::kWrite;
  std::string canonical;
  std::string bytes;  // kWrite: the new content
  // kWrite: the mode and owner the written file gets (a moved file's, a
  // deleted file's put back), on a medium that has them; nullopt: as
  // write() (an existing file's own, a new file the medium's default). The
  // mode is always given; the owner only where the medium's user may give
  // it (the superuser; otherwise the file gets the medium's user, and a
  // set-user-ID or set-group-ID bit is then dropped, never handed to it).
  std::optional<FileAttributes> attributes;
  // kWrite: then made executable or not (with_executable), on a medium
  // with modes; nullopt: left as the rest of the change makes it.
  std::optional<bool> executable;
  // kWrite of a file that does not exist yet: the canonical path of the file
  // whose extended attributes (ACLs among them) it takes, a Move's source,
  // where the medium has them; "": none.
  std::string metadata_from = {};
};

struct FileStat {
  enum class Type { kMissing, kFile, kDirectory, kOther };
  Type type = Type::kMissing;
  std::uint64_t size = 0;
  // A file's mode and owner; nullopt where the medium has none (an ACP
  // client) and for anything but a file.
  std::optional<FileAttributes> attributes;
  // What changes when the file's bytes do, as far as the medium tells
  // (server/ops/last_seen.h compares it before reading a file again);
  // nullopt where it tells nothing (an ACP client, memory) and for anything
  // but a file.
  struct Stamp {
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Stamp&) const = default;
  };
  std::optional<Stamp> stamp;
};

class FsBackend {
 public:
  virtual ~FsBackend() = default;

  // Resolves `path` (relative to the root, or absolute) to its canonical
  // absolute form. The path need not exist. Fails with outside_root when the
  // resolved path leaves every root, not_found when a parent is a regular file,
  // io (data.errno) on a symlink loop or other OS failure.
  // Synchronous and cheap (metadata lookups at most): a request resolves its
  // path before its first suspension, so it joins its lock chain in the order
  // the request arrived. A failure may be the tree as it was before requests
  // still running (Pipeline::resolve_in_turn resolves again after them).
  virtual Result<std::string> resolve(const std::string& path) const = 0;

  // The path as shown to clients (relative to the root when inside it).
  virtual std::string display_path(const std::string& canonical) const = 0;

  // Type, size and, for a file on a medium with modes, its attributes; a
  // missing file is a success with Type::kMissing.
  virtual boost::asio::awaitable<Result<FileStat>> stat(std::string canonical) = 0;

  // The size a read() of `canonical` would return now, for accounting before
  // the read (support/byte_budget.h): synchronous and cheap (one metadata
  // lookup at most), never a confinement check and never shown to a client.
  // 0 for anything a read would not return bytes of (missing, a directory);
  // nullopt when the medium cannot tell without reading (the default).
  virtual std::optional<std::uint64_t> size_hint(const std::string& canonical) const {
    return std::nullopt;
  }

  // The file's exact bytes. not_found if missing, is_directory for a directory,
  // not_text for a FIFO, socket or device (never opened for a blocking read),
  // too_large past the size limit, io otherwise.
  virtual boost::asio::awaitable<Result<std::string>> read(std::string canonical) = 0;

  // Replaces or creates the file with `bytes`, atomically where the medium
  // allows (readers see the old or the new content, never a mix), keeping an
  // existing file's mode bits and creating missing parent directories. A
  // failed write leaves nothing behind: no partial file, no directory it made.
  // denied when the backend is read-only, or when the medium's user may not
  // write the file (data.errno "EACCES"; nothing changes); too_large past the
  // size limit; is_directory when the path is a directory; io otherwise.
  virtual boost::asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) = 0;

  // write() of the pieces' concatenation, which need not be made: an edit of a
  // big file passes the runs of the old bytes it keeps and the new text between
  // them. The pieces are views: what they show must stay valid until the
  // returned awaitable completes. The default joins them and calls write().
  virtual boost::asio::awaitable<Result<void>> write_pieces(std::string canonical,
                                                            std::vector<std::string_view> pieces);

  // Deletes a regular file. not_found if missing, is_directory for a directory,
  // denied when read-only or when the medium's user may not write the file
  // (data.errno "EACCES").
  virtual boost::asio::awaitable<Result<void>> remove(std::string canonical) = 0;

  // False when the medium has no way to delete a file (remove() then always
  // fails with denied): a multi-file operation asks before changing anything.
  virtual bool can_remove() const { return true; }

  // True when files have modes (and owners) that stat() reports and a batch
  // write sets (FileChange::attributes); false for a medium without them (an ACP
  // client), where attributes are never reported and always ignored.
  virtual bool has_modes() const { return false; }

  // The directories that write(canonical, ...) would create, outermost first;
  // empty when the parent exists or the medium has no directories.
  // Synchronous and cheap, like resolve(). A rolled-back write removes them
  // again with remove_directory(), innermost first.
  virtual std::vector<std::string> missing_directories(const std::string& canonical) const = 0;

  // Removes an empty directory. not_found if missing, io (data.errno
  // "ENOTEMPTY") when it holds anything, denied when read-only.
  virtual boost::asio::awaitable<Result<void>> remove_directory(std::string canonical) = 0;

  // A directory's entries, for a view of a directory (Anthropic's text editor
  // tool): each entry's path relative to the listed directory ('/'-separated)
  // and whether it is a directory.
  struct DirEntry {
    std::string path;
    bool directory = false;
  };
  struct Listing {
    std::vector<DirEntry> entries;  // sorted by path
    bool truncated = false;         // more than `limit` entries were there
  };
  // The entries of directory `canonical` and of its subdirectories down to
  // `depth` levels (1: its own entries only), hidden names (a leading '.')
  // and their contents left out, symbolic links listed and never followed;
  // at most `limit` entries. not_found if missing, io (data.errno "ENOTDIR")
  // for a file. The default: denied (reason "unsupported"), for media with
  // no listing (an ACP client).
  virtual boost::asio::awaitable<Result<Listing>> list(std::string canonical, unsigned depth,
                                                       std::size_t limit);

  // A descriptor of directory `canonical` (O_RDONLY | O_DIRECTORY, close-on-
  // exec) reached beneath the root without following any link, for the
  // walks of list and search (server/search/), which go on from it with
  // openat(O_NOFOLLOW) alone; and the root's canonical path in `root`.
  // not_found if missing, io (data.errno "ENOTDIR") for a file, io
  // ("ELOOP") where a link stands on the way. The default: denied (reason
  // "unsupported"), for media with no descriptors (an ACP client, memory).
  virtual Result<Fd> open_directory(const std::string& canonical, std::string& root) const;
  // Cross-process exclusion for read-modify-write cycles. The lock chains
  // (support/lock_chain.h) serialise one process; lock() extends that to every
  // process that shares the medium (two editd on one root, or on a root and a
  // subdirectory of it): it waits until no other process holds any of
  // `canonicals` (sorted, unique) and holds them until the returned handle is
  // destroyed. A caller takes its lock chains first, then lock(), then reads,
  // checks fingerprints, writes, and only then releases. The default (media
  // that one process owns: memory, an ACP client) holds nothing. io on failure.
  class Lock {
   public:
    virtual ~Lock() = default;
  };
  virtual boost::asio::awaitable<Result<std::unique_ptr<Lock>>> lock(
      std::vector<std::string> canonicals);

  // Applies `ops` (each path at most once) as one change. On success every op
  // is applied, each write with its attributes where the medium has modes. On
  // failure the error (kinds as write() and remove()) names data.path, and
  // `applied` holds the indices of the ops that did take effect, for the
  // caller to undo; the backend never undoes them itself. Crash safety (kill
  // -9, power loss) is the backend's: a medium that can journal (the local
  // disk) makes a change interrupted at any point come out whole or not at all
  // when a backend is next made over it. The default runs write() and remove()
  // in order, ignoring attributes (a medium without modes), and stops at the
  // first failure.
  virtual boost::asio::awaitable<Result<void>> apply_batch(std::vector<FileChange> ops,
                                                           std::vector<std::size_t>& applied);

  // Everything under directory `canonical`, for a move or a removal of the
  // whole tree (move, delete): every entry, hidden ones included, with its
  // path relative to `canonical` ('/'-separated), sorted by path. Symbolic
  // links are listed as links and never followed. At most `limit` entries
  // and files of `max_bytes` in all: past either the walk stops and
  // `truncated` says so (the counts then are of what was seen). not_found if
  // missing, io (data.errno "ENOTDIR") for a file. The default: denied
  // (reason "unsupported"), for media with no listing (an ACP client).
  struct TreeEntry {
    enum class Kind { kFile, kDirectory, kLink, kOther };
    std::string path;
    Kind kind = Kind::kFile;
    std::uint64_t size = 0;  // a file's
  };
  struct Tree {
    std::vector<TreeEntry> entries;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    bool truncated = false;
  };
  virtual boost::asio::awaitable<Result<Tree>> tree(std::string canonical, std::size_t limit,
                                                    std::uint64_t max_bytes);
};

}  // namespace editd
