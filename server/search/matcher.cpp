#define PCRE2_CODE_UNIT_WIDTH 8
#include "server/search/matcher.h"

#include <pcre2.h>
#include <string.h>

#include "protocol/error.h"

namespace editd::search {

Result<std::shared_ptr<const Matcher>> Matcher::make(const std::string& pattern, bool regex,
                                                     bool case_sensitive) {
  std::shared_ptr<Matcher> m(new Matcher());
  if (!regex && case_sensitive) {
    m->literal_ = pattern;
    return std::shared_ptr<const Matcher>(std::move(m));
  }
  // PCRE2_LITERAL takes no MULTILINE (a literal has no ^ or $ anyway).
  std::uint32_t flags = PCRE2_UTF | (regex ? PCRE2_MULTILINE : PCRE2_LITERAL);
  if (!case_sensitive) flags |= PCRE2_CASELESS;
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   flags, &err, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(err, message, sizeof message);
    const std::string what(reinterpret_cast<const char*>(message));
    Error e = invalid_param("pattern", "not a regular expression (PCRE2): " + what +
                                           " at offset " + std::to_string(offset));
    e.data["offset"] = offset;
    e.data["pcre2"] = what;
    return e;
  }
  m->code_ = code;
  // JIT where the platform has it; the interpreter otherwise.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  std::uint32_t min_length = 0;
  pcre2_pattern_info(code, PCRE2_INFO_MINLENGTH, &min_length);
  m->empty_match_ = min_length == 0;
  return std::shared_ptr<const Matcher>(std::move(m));
}

Matcher::~Matcher() {
  if (code_) pcre2_code_free(static_cast<pcre2_code*>(code_));
}

Matcher::Scratch::Scratch(const Matcher& m) {
  if (m.code_)
    match_data_ = pcre2_match_data_create_from_pattern(static_cast<pcre2_code*>(m.code_), nullptr);
}

Matcher::Scratch::~Scratch() {
  if (match_data_) pcre2_match_data_free(static_cast<pcre2_match_data*>(match_data_));
}

std::optional<std::pair<std::size_t, std::size_t>> Matcher::find(std::string_view text,
                                                                 std::size_t from,
                                                                 Scratch& scratch) const {
  if (from > text.size()) return std::nullopt;
  if (!code_) {
    if (literal_.empty()) return std::pair{from, from};
    const void* at = ::memmem(text.data() + from, text.size() - from, literal_.data(),
                              literal_.size());
    if (!at) return std::nullopt;
    const std::size_t start = static_cast<const char*>(at) - text.data();
    return std::pair{start, start + literal_.size()};
  }
  auto* md = static_cast<pcre2_match_data*>(scratch.match_data_);
  const int rc = pcre2_match(static_cast<pcre2_code*>(code_),
                             reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), from,
                             PCRE2_NO_UTF_CHECK, md, nullptr);
  if (rc < 0) return std::nullopt;  // no match, or a resource limit: none
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  return std::pair{static_cast<std::size_t>(ov[0]), static_cast<std::size_t>(ov[1])};
}

}  // namespace editd::search
