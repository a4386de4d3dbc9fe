// Durability: how a write of the local backend reaches the disk. Every fsync
// and fdatasync editd makes is in sync.cpp, as LevelDB's are in its SyncFd;
// the writers (durable_write.cpp, batch.cpp, in_place.cpp, file_metadata.cpp)
// and the journal (journal.cpp, journal_key.cpp, journal_recovery.cpp) call
// these, each only when durability is on (--durability full), and each after
// its fault-injection hook (LocalSyscall::kFsync) where it has one.
//
// Each call retries on EINTR and returns 0 or the errno of the failure.
//
// Which sync, where. fdatasync keeps a file's bytes and what reading them
// needs (its size, its blocks), not its mode, owner, extended attributes or
// timestamps; fsync keeps those too. So:
//
// - sync_data (fdatasync), where only the bytes matter:
//   - the journal's records (Journal::write_synced): an append-only file this
//     process made 0600 with O_CREAT; its owner and mode date from its
//     creation, it is never chmodded, recovery reads its bytes, and its name
//     is made durable by the sync of its directory at its first commit.
//   - a new journal key (journal_key.cpp, make_key): written once into a file
//     made 0600, then linked to its name, whose directory is synced after.
// - sync_file (fsync), where the inode's metadata must last with the bytes:
//   - a temporary file before it is renamed over a file (durable_write.cpp,
//     LocalBackend::sync_temp; batch.cpp's through sync_all): it carries the
//     owner, mode, ACLs and other extended attributes the file keeps
//     (fill_temp), which the rename makes the file's; they must be on disk
//     before the new name is, or a crash leaves the new bytes with a
//     temporary file's mode and none of the file's attributes.
//   - a file written in place (in_place.cpp, write_in_place): the inode is
//     the file, so its mode (set-ID bits the write cleared, given back before
//     the sync) and its mtime, which make, rsync and editors go by to see
//     that a file changed, must not lag the bytes after a crash.
//   - bytes put back in place (file_metadata.cpp, replace_contents: the
//     rollback of an in-place write, and recovery at start): the same inode,
//     whose mtime must likewise not lag the bytes.
// - sync_directory (fsync of the directory): the names made, renamed or
//   removed in it. Kept fsync: the entries are the directory's content, but
//   fsync is what POSIX and every file system honour for a directory.
// - sync_all: the group before a batch's commit, and the directories after it
//   (temporary files and directories as above: fsync), up to sixteen at once.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "support/fd.h"

namespace editd {

// fdatasync(fd): its bytes and what reading them needs. 0 or errno.
int sync_data(int fd);

// fsync(fd): its bytes and all its metadata (mode, owner, extended attributes,
// timestamps). 0 or errno.
int sync_file(int fd);

// Starts the writeback of every dirty page of `fd` without waiting for it
// (sync_file_range): a sync after it mostly waits for what is under way. Not
// durability by itself; errors are ignored.
void start_writeback(int fd);

// A descriptor of the directory `dir` (any descriptor of it, O_PATH included)
// that fsync accepts; invalid, with errno set, when it cannot be opened.
Fd syncable_directory(int dir);

// Fsyncs the directory `dir` (any descriptor of it, O_PATH included): 0 or errno.
int sync_directory(int dir);

// Fsyncs each of `fds`, up to sixteen at once: a disk merges the cache flushes
// that arrive together, where one after another each waits for its own. The
// calling thread takes part, with up to fifteen short-lived helpers (the waits
// are the device's, not the CPU's); where a helper cannot be started, fewer run
// at once. Returns the index and errno of the first descriptor, in the order of
// `fds`, whose fsync failed; {fds.size(), 0} when none did.
std::pair<std::size_t, int> sync_all(std::span<const int> fds);

}  // namespace editd
