// Crash safety for the local backend: temporary files, the journal of
// multi-file changes, and the recovery that runs before a backend serves.
//
// Every new content is written to a temporary file `.NAME.editd-XXXXXX` next
// to its target, and its writer holds an flock on it until the rename: a
// temporary file whose flock can be taken belongs to a writer that died.
//
// apply_batch stages every new content in such a file (all written, then
// fsynced in one group with their directories and the journal's), then commits
// by appending the renames and removals to a journal
// ROOT/.editd/journal/b-PID-RANDOM and fsyncing it, then performs them, fsyncs
// each touched directory once and deletes the journal.
// The writer holds an flock on its journal too, so recovery never touches the
// journal of a live editd. The journal is text, one record per line, paths
// relative to the root ("." for the root) with '%', ' ', control and non-ASCII
// bytes %-escaped, each line ending in " TAG", the tag that this user's
// journal key gives it (backends/local/journal_key.h):
//
//   editd-journal 3
//   dir D                 directory D is about to be created for the change
//   tmp D T               temporary file T is about to be created in D
//   old D T N INO SIZE    before commit: D/N (inode INO, hard-linked) is about
//                         to be overwritten in place; T, fsynced, holds its
//                         SIZE bytes before
//   mv D T N TINO OINO    at commit: rename D/T (inode TINO) over D/N (inode
//                         OINO before the change, "-" when it did not exist)
//   rm D N INO            at commit: unlink D/N (inode INO)
//   commit K              the K mv/rm records before it are the change
//   abort                 after commit: a step failed and the change went back
//                         to the caller, which undoes what took effect
//
// Recovery acts only on a journal that is editd's own: a regular file of this
// user of at most 64 MiB, each of whose complete lines has its tag, where each
// name is one path component (a temporary file's named as temporary files
// are) and each directory is beneath the root and not .editd. Any other
// journal (a tree's, a client's, an older editd's) is left in place, named in
// the log, and never followed.
//
// A journal is committed when its "commit K" line is complete and follows K
// mv/rm records. Recovery rolls a committed journal forward: each temporary
// file that still exists (same inode) is renamed over its target if the target
// is still the one the change replaced (a change made since the crash is never
// overwritten; the temporary file is dropped instead), and each removal whose
// file is still there (same inode) is done. Any other journal is rolled back:
// each file of an old record that is still that inode gets its bytes before
// back from T (when T is whole: SIZE bytes), its temporary files are removed
// and the directories made for it are removed when empty. (A version 2
// journal, which has no old records, is read the same way.) Either way the
// directories it names are then searched for stray temporary files of dead
// writers (sparing those that any journal there names: NamedTemps), and the
// journal is deleted. ROOT/.editd
// exists only while a change is in flight (or after a crash until the next
// start) and holds a .gitignore of "*", so it never shows in `git status`.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "backends/local/beneath.h"
#include "backends/local/journal_key.h"
#include "backends/root_path.h"

namespace editd {

class StripeLocks;

namespace journal {

std::string escape(std::string_view raw);
std::optional<std::string> unescape(std::string_view escaped);

// A fresh name for a temporary file beside `target`: ".TARGET.editd-XXXXXX".
std::string temp_name(std::string_view target);

// Whether `name` has the form temp_name() gives: editd::is_temp_name
// (backends/root_path.h).

// A random suffix of letters and digits.
std::string random_suffix(std::size_t n);

// Removes `name` from directory `dir` if it is a regular file whose flock can
// be taken (its writer is dead), holding the flock across the unlink so that a
// live writer that has just created it sees it gone (st_nlink 0) and picks
// another name. True when removed.
bool remove_stale_temp(int dir, const std::string& name);

// How many entries of one directory a search for stale temporary files reads
// at most, so that a huge directory cannot hold up a start for long.
inline constexpr std::size_t kScanLimit = 100000;

// The temporary files that the journals of a root name, whoever wrote them
// and whatever key tags them: a start never removes one as stale, since the
// editd whose journal it is (another state directory's, another key's) still
// needs it to complete its change at its own next start.
// The largest journal recovery reads: a change of many thousand files. A
// larger one is not editd's.
inline constexpr std::size_t kMaxJournalBytes = 64u << 20;

struct NamedTemps {
  std::set<std::pair<std::string, std::string>> temps;  // (directory, name)
  // false: not every journal could be read (unreadable, or more than
  // kMaxJournalBytes in all): no temporary file is taken for stale then.
  bool complete = true;
  bool keeps(const std::string& dir, const std::string& name) const {
    return !complete || temps.count({dir, name}) > 0;
  }
};

// Removes the stale temporary files of directory `dir` (`rel` beneath the
// root) but those `keep` names, reading at most `limit` entries. The number
// removed.
int remove_stale_temps(int dir, const std::string& rel, const NamedTemps& keep,
                       std::size_t limit = kScanLimit);

// What a journal says.
struct Record {
  enum class Kind { kMove, kRemove };
  Kind kind = Kind::kMove;
  std::string dir, temp, name;
  std::optional<ino_t> temp_ino, old_ino;  // kMove: old_ino nullopt: the target did not exist
  ino_t ino = 0;                           // kRemove
};
// An old record: `temp` of `dir` holds the `size` bytes before of `name`.
struct Saved {
  std::string dir, temp, name;
  ino_t ino = 0;
  std::uint64_t size = 0;
};
std::string old_record(std::string_view dir, std::string_view temp, std::string_view name,
                       ino_t ino, std::uint64_t size);
struct Parsed {
  std::vector<std::string> dirs;                           // dir records, in order
  std::vector<std::pair<std::string, std::string>> temps;  // tmp records: (dir, temp)
  std::vector<Record> plan;                                // mv and rm records
  std::vector<Saved> saved;                                // old records
  bool committed = false;
  bool aborted = false;
};
// nullopt when `text` is not a journal that editd wrote under `key` with the
// file name `name` (see the top of this file).
std::optional<Parsed> parse(std::string_view text, const Key& key, std::string_view name);

std::string dir_field(std::string_view rel);  // "" -> "."

// One open journal: its file, locked by this process.
class Journal {
 public:
  bool open() const { return file_.valid(); }
  // Appends one record. 0 or errno.
  int append(std::string_view line);
  // The directories whose entries hold the journal (its own, and those made
  // for it), for a caller that fsyncs them in one group with its own files
  // before commit(); commit() then leaves them alone. Open for reading.
  // 0 or errno.
  int take_directories(std::vector<Fd>& out);
  // Appends `records` (K lines, each ending in '\n') and "commit K" in one
  // write, and makes the journal durable (file, and its directories unless
  // taken; only written, without durability). 0 or errno.
  int commit(std::string_view records);
  // Appends "abort" and syncs it (without durability, only writes it). 0 or errno.
  int abort();
  // Appends `records` (lines ending in '\n') and syncs the file (without
  // durability, only writes them): the old records, before the writes in
  // place they stand for. 0 or errno.
  int log(std::string_view records);

 private:
  friend class Journals;
  std::string tagged(std::string_view line);  // line, its tag, '\n'
  // Each line of `records` tagged; `count` says how many.
  std::string tagged_lines(std::string_view records, std::size_t& count);
  // Appends `text` and fsyncs the file (only appends it, without durability).
  int write_synced(std::string_view text);
  bool durable_ = true;
  const Key* key_ = nullptr;
  std::size_t lines_ = 0;
  Fd file_;
  Fd dir_;
  std::string name_;
  std::vector<Fd> fresh_dirs_;  // directories made to hold it, to fsync at commit
  bool dirs_taken_ = false;     // take_directories(): the caller fsyncs them
};

// The journals of one root: ROOT/.editd/journal/.
class Journals {
 public:
  // `durable` false: journals are written but never fsynced (--durability
  // none): they still see a change through a killed process, not a power loss.
  explicit Journals(const Beneath& root, bool durable = true) : root_(root), durable_(durable) {}

  // The key journals are tagged with; until it is set, begin() fails with
  // ENOKEY and recovery trusts no journal. Before the first begin().
  void set_key(const Key& key) { key_ = key; }

  // Opens a new journal. 0 or errno.
  int begin(Journal& out);
  // Deletes `j`, then ROOT/.editd if nothing else is in flight and it is empty.
  void end(Journal& j);
  // Closes `j` and leaves it for the next recovery: a change that could be
  // neither made nor put back by the process that began it.
  void abandon(Journal& j);

  struct Stats {
    int rolled_forward = 0;
    int rolled_back = 0;
    int temps_removed = 0;
    int left = 0;  // journals of live writers
    std::vector<std::string> untrusted;  // names of journals not editd's own: left in place
    NamedTemps named;  // by every journal there was, for later sweeps of this start
  };
  // Recovers every journal whose writer is dead (see the top of this file).
  // Its sweeps for stray temporary files spare those any journal names.
  // Committed journals take the cross-process locks of their targets from
  // `locks` first (named by `root_path` + "/" + relative path).
  Stats recover(StripeLocks& locks, const std::string& root_path);

 private:
  void tidy_locked();
  NamedTemps named_temps(int dir, const std::vector<std::string>& names);
  void roll_forward(const Parsed& j, StripeLocks& locks, const std::string& root_path);
  // Puts back the bytes before of the files that j's old records name.
  void restore_saved(const Parsed& j, StripeLocks& locks, const std::string& root_path);

  const Beneath& root_;
  bool durable_ = true;
  Key key_;
  std::mutex mu_;
  int in_flight_ = 0;
};

}  // namespace journal
}  // namespace editd
