#include "server/checks/launch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

namespace editd::launch {

namespace fs = std::filesystem;

namespace {

Error refused(const diagnostics::Spec& spec, const std::string& why) {
  return Error(ErrorKind::kInvalidParams,
               std::string(diagnostics::option_flag(spec)) + " " + spec.option + ": " + why);
}

bool under(const fs::path& root, const fs::path& p) {
  auto q = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++q)
    if (q == p.end() || *q != *r) return false;
  return true;
}

// Whether absolute `p` is in the root, as written or with its links resolved.
bool in_root(const fs::path& root, const fs::path& p) {
  std::error_code ec;
  return under(root, p.lexically_normal()) || under(root, fs::weakly_canonical(p, ec));
}

// The first of `p` and the directories above it that a user other than
// editd's and root may change (or that cannot be examined): whoever may
// change a directory may put another program or module in its place. A
// sticky directory that others may write (/tmp) is safe for an entry of
// editd's user or root: no one else may rename or remove that entry.
std::optional<std::string> changeable_by_others(const fs::path& p) {
  bool child_trusted = false;  // the entry below q is editd's user's or root's
  bool first = true;
  for (fs::path q = p;; q = q.parent_path()) {
    struct stat st;
    if (::lstat(q.c_str(), &st) != 0) return q.string() + " (" + std::strerror(errno) + ")";
    const bool owner_ok = st.st_uid == 0 || st.st_uid == ::geteuid();
    const bool group_ok = !(st.st_mode & S_IWGRP) || st.st_gid == 0 || st.st_gid == ::getegid();
    const bool others_write = !group_ok || (st.st_mode & S_IWOTH);
    const bool sticky_guard = !first && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) && child_trusted;
    if (!S_ISLNK(st.st_mode) && (!owner_ok || (others_write && !sticky_guard)))
      return q.string();
    child_trusted = owner_ok;
    first = false;
    if (q == q.parent_path()) return std::nullopt;
  }
}

// `list` (a ':'-separated search path) without its relative entries (an
// empty one is the working directory) and those in the root.
std::string outside_root(const fs::path& root, const std::string& var, const std::string& list,
                         std::vector<std::string>& removed) {
  std::string kept;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t colon = list.find(':', pos);
    const std::string entry = list.substr(pos, colon == std::string::npos ? colon : colon - pos);
    if (entry.starts_with('/') && !in_root(root, entry)) {
      kept += (kept.empty() ? "" : ":") + entry;
    } else {
      removed.push_back(var + " entry '" + entry + "'");
    }
    if (colon == std::string::npos) return kept;
    pos = colon + 1;
  }
}

// Where posix_spawnp finds `name` on the (pinned) PATH.
std::optional<fs::path> on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string list = path ? path : "/bin:/usr/bin";
  std::size_t pos = 0;
  for (;;) {
    const std::size_t colon = list.find(':', pos);
    fs::path candidate =
        fs::path(list.substr(pos, colon == std::string::npos ? colon : colon - pos)) / name;
    std::error_code ec;
    if (candidate.is_absolute() && fs::is_regular_file(candidate, ec) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string::npos) return std::nullopt;
    pos = colon + 1;
  }
}

// The absolute path of `word`, a program (or a script a program runs), as
// editd will name it; nullopt when a bare name is not on PATH.
Result<std::optional<fs::path>> locate(const diagnostics::Spec& spec, const fs::path& root,
                                       const std::string& word) {
  std::optional<fs::path> found;
  if (word.find('/') == std::string::npos) {
    found = on_path(word);
    if (!found) return std::optional<fs::path>();
  } else if (word.starts_with('/')) {
    found = fs::path(word);
  } else {
    return refused(spec, "'" + word + "' is a relative path, which the tree could provide: name "
                         "it by its absolute path, outside the root, or by a name on PATH");
  }
  // Also one that does not exist yet: a client could write it.
  if (in_root(root, *found))
    return refused(spec, "'" + word + "' is " + found->string() +
                         ", inside the root: a program editd runs must not be the tree's; "
                         "install it outside the root");
  std::error_code ec;
  const fs::path real = fs::canonical(*found, ec);
  if (ec) return found;  // it fails when run, as one not found
  for (const fs::path& p : {found->parent_path(), real})
    if (auto who = changeable_by_others(p))
      return refused(spec, "'" + word + "' is " + real.string() + ", and " + *who +
                           " may be changed by other users than editd's: install it where "
                           "only root or editd's user may write");
  return found;
}

std::string base_name(const std::string& word) {
  return fs::path(word).filename().string();
}

// Whether `word` names typescript-language-server: its bin link, or a file
// of its package (node .../typescript-language-server/lib/cli.mjs).
bool names_typescript_server(const std::string& word) {
  const fs::path p(word);
  return std::find(p.begin(), p.end(), fs::path("typescript-language-server")) != p.end();
}

// typescript-language-server runs the tsserver that initializationOptions
// names, else the first node_modules/typescript/lib/tsserver.js in the root
// or above it, else its own: editd names the one installed beside it, found
// as Node.js resolves `typescript` from the server's own script.
Result<void> pin_typescript(diagnostics::Spec& spec, const fs::path& root, std::size_t word) {
  auto script = locate(spec, root, spec.argv[word]);
  if (!script) return script.error();
  std::error_code ec;
  const fs::path real = *script ? fs::canonical(**script, ec) : fs::path();
  if (!*script || ec)
    return refused(spec, "cannot find '" + spec.argv[word] +
                         "' (no such file, or not on PATH), so not which TypeScript it would "
                         "run: name the installed server by its absolute path");
  // typescript-language-server takes a tsserver.js whose package.json (two
  // levels up) has a version; any other it ignores, and looks in the root.
  auto valid = [](const fs::path& js) {
    std::ifstream in(js.parent_path().parent_path() / "package.json");
    const auto package = nlohmann::json::parse(in, nullptr, false);
    return package.is_object() && package.value("version", nlohmann::json()).is_string();
  };
  std::optional<fs::path> tsserver;
  for (fs::path dir = real.parent_path(); !tsserver; dir = dir.parent_path()) {
    const fs::path candidate = fs::canonical(dir / "node_modules/typescript/lib/tsserver.js", ec);
    if (!ec && fs::is_regular_file(candidate, ec) && valid(candidate)) tsserver = candidate;
    if (dir == dir.parent_path()) break;
  }
  if (!tsserver)
    return refused(spec, "no TypeScript is installed beside " + real.string() +
                         " (node_modules/typescript/lib/tsserver.js in its directory or one "
                         "above it): install typescript with typescript-language-server, "
                         "outside the root");
  if (in_root(root, *tsserver))
    return refused(spec, "the TypeScript beside typescript-language-server, " +
                         tsserver->string() + ", is inside the root: install both outside it");
  // Also where tsserver looks for the plugins a tsconfig.json names: its
  // installation's node_modules and the directories above it.
  if (auto who = changeable_by_others(*tsserver))
    return refused(spec, "the TypeScript beside typescript-language-server, " +
                         tsserver->string() + ", and the plugins it may load can be changed "
                         "by other users than editd's (" + *who +
                         "): install both where only root or editd's user may write");
  spec.initialization_options["tsserver"] = {{"path", tsserver->string()}};
  spec.initialization_options["plugins"] = nlohmann::json::array();
  return {};
}

// clangd runs the compiler a compile_commands.json or .clangd names when it
// matches a --query-driver pattern: only exact names keep that choice editd's.
Result<void> pin_clangd(const diagnostics::Spec& spec) {
  for (std::size_t i = 1; i < spec.argv.size(); ++i) {
    std::string arg = spec.argv[i];
    if (arg.starts_with("--")) arg.erase(0, 1);
    if (!arg.starts_with("-query-driver")) continue;
    std::string globs = arg == "-query-driver" && i + 1 < spec.argv.size() ? spec.argv[i + 1]
                        : arg.starts_with("-query-driver=") ? arg.substr(14)
                                                            : "";
    std::size_t pos = 0;
    do {
      const std::size_t comma = globs.find(',', pos);
      const std::string glob = globs.substr(pos, comma == std::string::npos ? comma : comma - pos);
      if (!glob.starts_with('/') || glob.find_first_of("*?[{\\") != std::string::npos)
        return refused(spec, "clangd runs a compiler that the tree's compile_commands.json or "
                             ".clangd names when it matches --query-driver; '" + glob +
                             "' lets the tree choose it: name each compiler by its absolute path");
      pos = comma == std::string::npos ? comma : comma + 1;
    } while (pos != std::string::npos);
  }
  return {};
}

}  // namespace

std::vector<std::string> pin_environment(const fs::path& root) {
  std::vector<std::string> removed;
  for (const char* var : {"PATH", "PYTHONPATH", "NODE_PATH"})
    if (const char* value = std::getenv(var)) {
      const std::string kept = outside_root(root, var, value, removed);
      // An empty PATH would be searched as the working directory.
      if (kept.empty()) ::unsetenv(var);
      else if (kept != value) ::setenv(var, kept.c_str(), 1);
    }
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME"})
    if (const char* value = std::getenv(var);
        value && (value[0] != '/' || in_root(root, value))) {
      removed.push_back(std::string(var) + " '" + value + "'");
      ::unsetenv(var);
    }
  // Python 3.11 and later: `python3 -m X` does not import X from the
  // working directory, `python3 script` nothing from the script's directory.
  ::setenv("PYTHONSAFEPATH", "1", 1);
  // The go command runs the toolchain it has, never one a go.mod asks for.
  ::setenv("GOTOOLCHAIN", "local", 1);
  return removed;
}

Result<void> pin_programs(std::vector<diagnostics::Spec>& specs, const fs::path& root) {
  for (diagnostics::Spec& spec : specs) {
    // Runs no program of its own: the --lsp that covers the file, pinned as such.
    if (diagnostics::by_lsp(spec)) continue;
    auto program = locate(spec, root, spec.argv[0]);
    if (!program) return program.error();
    if (*program) spec.argv[0] = (*program)->string();
    if (!spec.lsp) continue;
    if (base_name(spec.argv[0]).starts_with("clangd"))
      if (auto r = pin_clangd(spec); !r) return r.error();
    for (std::size_t i = 0; i < spec.argv.size(); ++i)
      if (names_typescript_server(spec.argv[i])) {
        if (auto r = pin_typescript(spec, root, i); !r) return r.error();
        break;
      }
  }
  return {};
}

}  // namespace editd::launch
