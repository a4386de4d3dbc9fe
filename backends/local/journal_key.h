// What makes a journal editd's own: a secret key of this OS user, kept outside
// every root, with which each journal line is tagged when it is written.
//
// A journal lies in ROOT/.editd/journal/, inside a tree that anyone may have
// made: a cloned repository, an archive, another user. No client path reaches
// .editd (backends/root_path.h), but a tree can ship one, and a journal acted
// on renames and unlinks files. Recovery therefore acts only on a journal each
// of whose lines carries the tag this key gives it (bound to the journal's
// file name and the line's place in it); any other journal is left in place,
// logged, and never followed.
//
// The key is 192 random bytes in STATE/journal-key (mode 0600), made by the
// first editd that needs it. STATE is durable, since a journal must be
// recovered after a power loss and the reboot that follows: --state-dir, else
// $XDG_STATE_HOME/editd, else $HOME/.local/state/editd, else the home
// directory of the user's passwd entry; where none can be made (no home, or a
// read-only one), the runtime directory (/tmp/editd-UID), which a reboot may
// empty: a change cut by a power loss then stays half made (logged at start).
// STATE must be a directory of this user that no one else may enter.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "backends/local/beneath.h"

namespace editd::journal {

class Key {
 public:
  static constexpr std::size_t kBytes = 192;

  // Reads STATE/journal-key from directory `state`, making it if missing (two
  // editd making it at once agree on one). 0 or errno (EPERM: the file is not
  // this user's, may be read by others, or is not of the key's size).
  static int load(int state, Key& out);

  bool valid() const { return valid_; }

  // The tag of line `index` (0 for the header) of the journal named `name`:
  // 32 hexadecimal digits.
  std::string tag(std::string_view name, std::size_t index, std::string_view line) const;

 private:
  std::array<unsigned char, kBytes> secret_{};
  bool valid_ = false;
};

// The directory that holds the key when no --state-dir is given, as the top
// of this file says, without the runtime directory's fallback: "" when no
// candidate is known.
std::string default_state_dir();

// Opens `path`, making it and its missing parents (mode 0700), and checks that
// it is a directory of this user that no one else may enter. 0 or errno
// (EPERM when the check fails).
int open_state_dir(const std::string& path, Fd& out);

}  // namespace editd::journal
