// prettier as a --format, run so that the tree tunes it and never runs code
// through it.
//
// prettier looks for its configuration next to the file and above it, and a
// configuration may be JavaScript (prettier.config.mjs, .prettierrc.js...),
// which it executes, or may name plugins, which it imports: a cloned
// repository would choose code for editd to run. So editd never lets prettier
// look: it runs it with --no-config, finds the configuration itself (the same
// names, in prettier's order, from the file's directory up to the root and
// never above it), reads it only when it is JSON (.prettierrc holding JSON,
// .prettierrc.json, package.json's "prettier"), and passes on the formatting
// options it knows as command-line flags, the matching `overrides` applied.
// Everything else (plugins, a parser that is not one of prettier's own, an
// option it does not know, a configuration in YAML, TOML, JSON5 or code) is
// left out, and said. An operator who gives --config or --no-config chooses
// for themselves. Pure: the caller reads the files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace editd::prettier {

// Whether `argv` runs prettier: its program, or the script a `node` runs, is
// named prettier (its npm bin link) or prettier.cjs (what the link points to).
bool runs_prettier(const std::vector<std::string>& argv);

// Whether the operator's command chooses the configuration already
// (--config, --config=..., --no-config).
bool chooses_config(const std::vector<std::string>& argv);

// The names prettier looks for in each directory, in its order.
const std::vector<std::string_view>& config_names();

// What editd makes of a configuration file's text.
struct Flags {
  // The flags for the file: empty when the configuration sets nothing editd
  // passes on. Always preceded by --no-config (added by the caller).
  std::vector<std::string> flags;
  // Whether the file is a configuration at all (package.json without a
  // "prettier" member is not: the search goes on).
  bool is_config = true;
  // What was left out ("plugins", "option foo", "a YAML configuration"), for
  // the log.
  std::vector<std::string> left_out;
};

// The flags that `text`, the content of configuration file `name` (one of
// config_names()), sets for the file `rel` (its path relative to the
// configuration's directory, '/'-separated).
Flags flags_for(std::string_view name, std::string_view text, std::string_view rel);

}  // namespace editd::prettier
