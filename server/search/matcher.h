// What search looks for in a file: a literal, or a regular expression by
// PCRE2 (JIT-compiled, UTF mode).
//
// Why PCRE2: Debian's libpcre2 is the regular-expression engine most tools
// share (grep -P, git grep -P, PHP), Perl syntax models know, and its JIT
// makes it as fast as a hand-made matcher on a file buffer; with UTF mode and
// no-UTF-check on subjects already checked, one call scans a whole file.
//
// A case-sensitive literal is found with memmem (no regex engine at all); a
// caseless one is a PCRE2 literal pattern. Matches are found in the whole
// file (multiline: ^ and $ at each line), a line reported once however many
// matches it holds, by the line its match starts on.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "edit/error.h"

namespace editd::search {

class Matcher {
 public:
  // invalid_params naming "pattern" (PCRE2's message and offset) when the
  // expression does not compile.
  static Result<std::shared_ptr<const Matcher>> make(const std::string& pattern, bool regex,
                                                     bool case_sensitive);
  ~Matcher();

  // Per-thread state for find(): one a thread, made by it.
  class Scratch {
   public:
    explicit Scratch(const Matcher& m);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

   private:
    friend class Matcher;
    void* match_data_ = nullptr;
  };

  // The first match at or after `from` in `text` (valid UTF-8): its start and
  // end, or nullopt.
  std::optional<std::pair<std::size_t, std::size_t>> find(std::string_view text, std::size_t from,
                                                          Scratch& scratch) const;

 private:
  Matcher() = default;
  std::string literal_;       // used when code_ is null
  void* code_ = nullptr;      // pcre2_code_8*
  bool empty_match_ = false;  // the pattern can match the empty string
};

}  // namespace editd::search
