// Every occurrence of a pattern, overlapping ones included: how the matcher
// tells several readings of repeated text apart from one.
//
// A pattern that overlaps itself (oldText "a\na\n" in "a\na\na\n", "aa" in
// "aaa") can be read at several places that share text. Replacing one of them
// is a guess and replacing all is undefined, so the matcher refuses both as
// `ambiguous` (docs/protocol.md, Matching); it needs every reading to say so.
// Knuth-Morris-Pratt finds them all in O(text + pattern), whatever the
// repetition, where restarting a search after each hit costs O(text x pattern).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace editd::occurrences {

// The first occurrence of `needle` in `text` at or after `from`, or npos; what
// memmem(3) finds, in linear time. glibc's memmem is fast on needles of up to
// 256 bytes and several times slower on longer ones (the two-way algorithm):
// a longer needle is looked for by Horspool's method over 4-byte grams, which
// on text that does not repeat the needle moves by nearly the needle's length
// at each step; once the comparisons it makes have cost as many bytes as the
// text, the rest of the search is memmem's.
std::size_t find(std::string_view text, std::string_view needle, std::size_t from = 0);

// The start of every occurrence of `pattern` in `text`, ascending, overlapping
// ones included; none for an empty pattern.
std::vector<std::size_t> all(std::string_view text, std::string_view pattern);

// The same over sequences of ids (a file's lines interned against oldText's
// lines, say). An id below 0 in `text` never matches.
std::vector<std::size_t> all(std::span<const std::int32_t> text,
                             std::span<const std::int32_t> pattern);

// True if consecutive starts of a pattern `length` long overlap.
bool any_overlap(const std::vector<std::size_t>& starts, std::size_t length);

}  // namespace editd::occurrences
