// move, copy and delete: patches built in code (edit/patch/patch.h) and
// applied as apply_patch applies one (Operations::apply_parsed): the same
// confinement, lock chains, reads, fingerprint checks, approvals, journaled
// batch, undo entry and ledger record. A move is a kMove (the batch writes the
// destination, then removes the source: never both names or neither after a
// crash), a copy a kAdd of the source's bytes, a delete a kDelete.
//
// A directory's move (or recursive delete) is one kMove (kDelete) of every
// file under it, walked without following links (FsBackend::tree) and bounded
// in files and bytes; its directories, emptied by the commit, are removed
// after it, best effort (a file put in one meanwhile keeps it). A symbolic
// link, or anything but a file or a directory, in the tree refuses the whole
// call: editd never follows, moves or removes links.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "edit/patch/patch.h"
#include "protocol/error.h"
#include "server/ops/pipeline.h"

namespace editd {

namespace {

using Kind = FsBackend::TreeEntry::Kind;
using State = patch::FileInput::State;

// What a delete without recursive looks at of a directory, to say what it holds.
constexpr std::size_t kTreeLook = 64;

// Error builders, outside the coroutines (GCC 12 and braced JSON).

Error read_only_files(const std::string& verb, const std::string& path) {
  return Error(ErrorKind::kDenied,
               "the server is read-only (--read-only): cannot " + verb + " " + path +
                   "; nothing was changed",
               {{"path", path}});
}

Error no_such(const std::string& verb, const std::string& shown) {
  return Error(ErrorKind::kNotFound,
               "cannot " + verb + " " + shown + ": no such file or directory; nothing was changed",
               {{"path", shown}});
}

Error is_link(const std::string& param, const std::string& given) {
  return Error(ErrorKind::kUnsupported,
               param + " '" + given +
                   "' is a symbolic link: move, copy and delete never follow, move or remove "
                   "links; name the file itself. Nothing was changed",
               {{"path", given}, {"param", param}, {"reason", "symlink"}});
}

Error link_in_tree(const std::string& verb, const std::string& dir, const std::string& entry,
                   bool link) {
  return Error(ErrorKind::kUnsupported,
               "cannot " + verb + " " + dir + ": " + entry + " is " +
                   (link ? "a symbolic link" : "neither a file nor a directory") +
                   ", and a directory's " + verb +
                   " never follows, moves or removes one; deal with it first. Nothing was "
                   "changed",
               {{"path", entry}, {"reason", link ? "symlink" : "special_file"}});
}

Error not_regular(const std::string& verb, const std::string& shown) {
  return Error(ErrorKind::kUnsupported,
               "cannot " + verb + " " + shown +
                   ": it is neither a file nor a directory; nothing was changed",
               {{"path", shown}, {"reason", "special_file"}});
}

Error the_root(const std::string& verb) {
  return Error(ErrorKind::kDenied,
               "cannot " + verb + " the root itself; nothing was changed",
               {{"path", "."}, {"reason", "root"}});
}

Error same_path(const std::string& verb, const std::string& shown) {
  return invalid_param("to", "names " + shown + ", the file to " + verb + " itself");
}

Error into_itself(const std::string& from, const std::string& to) {
  return invalid_param("to", "names " + to + ", inside " + from +
                                 ": a directory cannot be moved into itself");
}

Error exists_at(const std::string& verb, const std::string& from, const std::string& to,
                bool directory) {
  if (directory)
    return Error(ErrorKind::kExists,
                 "cannot " + verb + " " + from + " to " + to + ": " + to +
                     " already exists (a directory moves only to a path where nothing is); "
                     "nothing was changed",
                 {{"path", to}});
  return Error(ErrorKind::kExists,
               "cannot " + verb + " " + from + " to " + to + ": " + to +
                   " already exists; pass overwrite: true to replace it (its content then goes "
                   "to the undo). Nothing was changed",
               {{"path", to}});
}

Error to_is_directory(const std::string& verb, const std::string& from, const std::string& to) {
  return Error(ErrorKind::kIsDirectory,
               "cannot " + verb + " " + from + " to " + to + ": " + to +
                   " is a directory; give the new file's own path (" + to + "/NAME). Nothing "
                   "was changed",
               {{"path", to}});
}

Error copy_of_directory(const std::string& shown) {
  return Error(ErrorKind::kIsDirectory,
               "cannot copy " + shown + ": it is a directory, and copy takes a file; nothing "
               "was changed",
               {{"path", shown}});
}

Error fingerprint_of_directory(const std::string& shown) {
  return invalid_param("expectedFingerprint",
                       "is a file's, and " + shown + " is a directory");
}

Error no_files(const std::string& shown) {
  return Error(ErrorKind::kUnsupported,
               "cannot move " + shown +
                   ": it holds no file, and a directory is moved as its files; nothing was "
                   "changed",
               {{"path", shown}, {"reason", "no_files"}});
}

Error not_empty(const std::string& shown, std::uint64_t files, std::uint64_t entries,
                bool more) {
  return Error(ErrorKind::kDenied,
               "cannot delete " + shown + ": the directory is not empty (" +
                   (more ? "at least " : "") + std::to_string(files) + " file(s), " +
                   std::to_string(entries) +
                   " entries in all); pass recursive: true to delete it and everything in it. "
                   "Nothing was removed",
               {{"path", shown}, {"reason", "not_empty"}, {"files", files}});
}

Error past_bound(const std::string& verb, const std::string& shown, const FsBackend::Tree& t,
                 std::uint64_t max_files, std::uint64_t max_bytes) {
  const std::string at_least = t.truncated ? "at least " : "";
  return Error(ErrorKind::kTooLarge,
               "cannot " + verb + " " + shown + ": it holds " + at_least +
                   std::to_string(t.files) + " file(s) of " + at_least +
                   std::to_string(t.bytes) + " bytes, past the bound of " +
                   std::to_string(max_files) + " files and " + std::to_string(max_bytes) +
                   " bytes (maxFiles, maxBytes: at most " + std::to_string(ops::kMaxTreeFiles) +
                   " and " + std::to_string(ops::kMaxTreeBytes) +
                   "). Nothing was changed; " + verb + " it in parts",
               {{"path", shown},
                {"files", t.files},
                {"bytes", t.bytes},
                {"atLeast", t.truncated},
                {"maxFiles", max_files},
                {"maxBytes", max_bytes}});
}

Error not_removed(const std::string& shown) {
  return Error(ErrorKind::kIo,
               "could not delete " + shown + ": something was put in it meanwhile",
               {{"path", shown}});
}

Error with_context(Error e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

std::string join(const std::string& dir, const std::string& rel) {
  return dir.ends_with('/') ? dir + rel : dir + "/" + rel;
}

// Whether `given`'s last component is a symbolic link that resolve()
// followed: its parent resolved, joined with that name, is not `canonical`.
Result<bool> names_a_link(const FsBackend& backend, const std::string& given,
                          const std::string& canonical) {
  std::string path = given;
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return false;
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  Result<std::string> dir = backend.resolve(parent);
  if (!dir) return dir.error();
  return join(*dir, name) != canonical;
}

// The hook that checks, with every file held and read, what a move or copy
// found at `to` (display path `to_shown`).
struct DestinationCheck {
  std::string verb;
  std::string from_shown;
  std::string to_shown;
  bool overwrite = false;
  Result<void> operator()(const patch::Patch&,
                          const std::map<std::string, patch::FileInput>& inputs) const {
    auto from = inputs.find(from_shown);
    if (from == inputs.end() || from->second.state == State::kMissing)
      return no_such(verb, from_shown);
    if (from->second.state == State::kDirectory && verb == "copy")
      return copy_of_directory(from_shown);
    auto to = inputs.find(to_shown);
    if (to == inputs.end()) return {};
    if (to->second.state == State::kDirectory) return to_is_directory(verb, from_shown, to_shown);
    if (to->second.state == State::kFile && !overwrite)
      return exists_at(verb, from_shown, to_shown, false);
    return {};
  }
};

}  // namespace

// What a path of a move, copy or delete names: resolved in its turn, looked
// at, and refused when it is a link (which resolve() followed).
struct Operations::Named {
  std::string canonical;
  std::string shown;
  FileStat stat;
};

boost::asio::awaitable<Result<Operations::Named>> Operations::named(RequestContext& ctx,
                                                                     std::string param,
                                                                     std::string given) {
  auto c = co_await pipeline_->resolve_in_turn(ctx, given);
  if (!c) co_return c.error();
  Result<bool> link = names_a_link(ctx.backend, given, *c);
  if (!link) co_return link.error();
  Result<FileStat> st = co_await ctx.backend.stat(*c);
  if (!st) co_return st.error();
  if (*link && st->type != FileStat::Type::kMissing) co_return is_link(param, given);
  Named n;
  n.shown = ctx.backend.display_path(*c);
  n.canonical = std::move(*c);
  n.stat = std::move(*st);
  co_return n;
}

// The files under `dir`, within the bounds; refused past them, or at a link.
boost::asio::awaitable<Result<FsBackend::Tree>> Operations::bounded_tree(
    RequestContext& ctx, std::string verb, Named dir, std::uint64_t max_files,
    std::uint64_t max_bytes) {
  // Entries besides files (directories) count too: room for as many of them.
  const std::size_t limit = static_cast<std::size_t>(max_files) * 2 + 64;
  Result<FsBackend::Tree> tree = co_await ctx.backend.tree(dir.canonical, limit, max_bytes);
  if (!tree) co_return tree.error();
  if (tree->truncated || tree->files > max_files || tree->bytes > max_bytes)
    co_return past_bound(verb, dir.shown, *tree, max_files, max_bytes);
  for (const FsBackend::TreeEntry& e : tree->entries)
    if (e.kind == Kind::kLink || e.kind == Kind::kOther)
      co_return link_in_tree(verb, dir.shown, join(dir.shown, e.path), e.kind == Kind::kLink);
  co_return std::move(*tree);
}

// Removes the directories of `tree` under `dir` (innermost first) and `dir`
// itself, best effort: those that are not empty now stay.
boost::asio::awaitable<void> Operations::remove_emptied(RequestContext& ctx, Named dir,
                                                        const FsBackend::Tree& tree, bool dry_run,
                                                        ops::FilesChanged& out) {
  std::vector<std::string> dirs;
  for (const FsBackend::TreeEntry& e : tree.entries)
    if (e.kind == Kind::kDirectory) dirs.push_back(e.path);
  std::sort(dirs.begin(), dirs.end(), std::greater<>());
  dirs.push_back("");
  for (const std::string& d : dirs) {
    const std::string canonical = d.empty() ? dir.canonical : join(dir.canonical, d);
    const std::string shown = d.empty() ? dir.shown : join(dir.shown, d);
    if (dry_run) {
      out.removed_directories.push_back(shown);
      continue;
    }
    Result<void> r = co_await ctx.backend.remove_directory(canonical);
    (r ? out.removed_directories : out.kept_directories).push_back(shown);
  }
}

boost::asio::awaitable<Result<ops::FilesChanged>> Operations::move(RequestContext& ctx,
                                                                  ops::MoveRequest p) {
  if (pipeline_->options().read_only) co_return read_only_files("move", p.from);
  auto from = co_await named(ctx, "from", p.from);
  if (!from) co_return from.error();
  if (from->stat.type == FileStat::Type::kMissing) co_return no_such("move", from->shown);
  if (from->stat.type == FileStat::Type::kOther) co_return not_regular("move", from->shown);
  auto to = co_await named(ctx, "to", p.to);
  if (!to) co_return with_context(to.error(), "cannot move " + from->shown + " to " + p.to);
  if (to->canonical == from->canonical) co_return same_path("move", from->shown);
  const bool directory = from->stat.type == FileStat::Type::kDirectory;

  PatchRun run;
  run.dry_run = p.dry_run;
  run.format = false;  // a file moved, copied or deleted keeps its bytes
  run.method = "move";
  run.expectation_param = "expectedFingerprint";
  patch::Patch moves;
  ops::FilesChanged out;
  std::optional<FsBackend::Tree> tree;
  if (!directory) {
    if (p.expected_fingerprint) run.expected_fingerprints[from->canonical] = *p.expected_fingerprint;
    patch::FilePatch f;
    f.action = patch::Action::kMove;
    f.path = from->canonical;
    f.move_to = to->canonical;
    moves.files.push_back(std::move(f));
    run.check = DestinationCheck{"move", from->shown, to->shown, p.overwrite};
  } else {
    if (from->shown == ".") co_return the_root("move");
    if (p.expected_fingerprint) co_return fingerprint_of_directory(from->shown);
    if (to->canonical.starts_with(join(from->canonical, "")))
      co_return into_itself(from->shown, to->shown);
    if (to->stat.type != FileStat::Type::kMissing)
      co_return exists_at("move", from->shown, to->shown, true);
    auto walked = co_await bounded_tree(ctx, "move", *from, p.max_files, p.max_bytes);
    if (!walked) co_return walked.error();
    tree = std::move(*walked);
    for (const FsBackend::TreeEntry& e : tree->entries) {
      if (e.kind != Kind::kFile) continue;
      patch::FilePatch f;
      f.action = patch::Action::kMove;
      f.path = join(from->canonical, e.path);
      f.move_to = join(to->canonical, e.path);
      moves.files.push_back(std::move(f));
    }
    if (moves.files.empty()) co_return no_files(from->shown);
    // Nothing may stand where a file goes: the destination did not exist.
    std::string to_shown = to->shown;
    run.check = [to_shown](const patch::Patch& patch,
                           const std::map<std::string, patch::FileInput>& inputs) -> Result<void> {
      for (const patch::FilePatch& f : patch.files) {
        auto it = inputs.find(*f.move_to);
        if (it != inputs.end() && it->second.state != State::kMissing)
          return exists_at("move", f.path, *f.move_to, it->second.state == State::kDirectory);
      }
      return {};
    };
  }
  auto applied = co_await apply_parsed(ctx, std::move(moves), std::move(run));
  if (!applied) co_return applied.error();
  static_cast<ops::Patched&>(out) = std::move(*applied);
  if (tree) co_await remove_emptied(ctx, *from, *tree, p.dry_run, out);
  co_return out;
}

boost::asio::awaitable<Result<ops::FilesChanged>> Operations::copy(RequestContext& ctx,
                                                                  ops::MoveRequest p) {
  if (pipeline_->options().read_only) co_return read_only_files("copy", p.from);
  auto from = co_await named(ctx, "from", p.from);
  if (!from) co_return from.error();
  if (from->stat.type == FileStat::Type::kMissing) co_return no_such("copy", from->shown);
  if (from->stat.type == FileStat::Type::kDirectory) co_return copy_of_directory(from->shown);
  if (from->stat.type == FileStat::Type::kOther) co_return not_regular("copy", from->shown);
  auto to = co_await named(ctx, "to", p.to);
  if (!to) co_return with_context(to.error(), "cannot copy " + from->shown + " to " + p.to);
  if (to->canonical == from->canonical) co_return same_path("copy", from->shown);

  PatchRun run;
  run.dry_run = p.dry_run;
  run.format = false;  // a file moved, copied or deleted keeps its bytes
  run.method = "copy";
  run.expectation_param = "expectedFingerprint";
  if (p.expected_fingerprint) run.expected_fingerprints[from->canonical] = *p.expected_fingerprint;
  patch::Patch copy;
  // The source is touched (held and read) and left as it is: an update
  // without chunks.
  patch::FilePatch source;
  source.action = patch::Action::kUpdate;
  source.path = from->canonical;
  copy.files.push_back(std::move(source));
  patch::FilePatch added;
  added.action = patch::Action::kAdd;
  added.path = to->canonical;
  copy.files.push_back(std::move(added));
  run.copies.emplace_back(1, 0);
  run.check = DestinationCheck{"copy", from->shown, to->shown, p.overwrite};
  auto applied = co_await apply_parsed(ctx, std::move(copy), std::move(run));
  if (!applied) co_return applied.error();
  ops::FilesChanged out;
  static_cast<ops::Patched&>(out) = std::move(*applied);
  // The source, unchanged, is not part of what the copy did.
  std::erase_if(out.files, [](const ops::PatchedFile& f) { return f.unchanged; });
  co_return out;
}

boost::asio::awaitable<Result<ops::FilesChanged>> Operations::remove(RequestContext& ctx,
                                                                    ops::DeleteRequest p) {
  if (pipeline_->options().read_only) co_return read_only_files("delete", p.path);
  auto target = co_await named(ctx, "path", p.path);
  if (!target) co_return target.error();
  if (target->stat.type == FileStat::Type::kMissing) co_return no_such("delete", target->shown);
  if (target->stat.type == FileStat::Type::kOther) co_return not_regular("delete", target->shown);

  PatchRun run;
  run.dry_run = p.dry_run;
  run.format = false;  // a file moved, copied or deleted keeps its bytes
  run.method = "delete";
  run.expectation_param = "expectedFingerprint";
  patch::Patch removal;
  ops::FilesChanged out;
  std::optional<FsBackend::Tree> tree;
  if (target->stat.type == FileStat::Type::kFile) {
    if (p.expected_fingerprint)
      run.expected_fingerprints[target->canonical] = *p.expected_fingerprint;
    patch::FilePatch f;
    f.action = patch::Action::kDelete;
    f.path = target->canonical;
    removal.files.push_back(std::move(f));
  } else {
    if (target->shown == ".") co_return the_root("delete");
    if (p.expected_fingerprint) co_return fingerprint_of_directory(target->shown);
    if (!p.recursive) {
      // Enough of a look to say what is there.
      Result<FsBackend::Tree> look = co_await ctx.backend.tree(target->canonical, kTreeLook, ops::kMaxTreeBytes);
      if (!look) co_return look.error();
      if (!look->entries.empty())
        co_return not_empty(target->shown, look->files, look->entries.size(), look->truncated);
      tree = std::move(*look);
    } else {
      auto walked = co_await bounded_tree(ctx, "delete", *target, p.max_files, p.max_bytes);
      if (!walked) co_return walked.error();
      tree = std::move(*walked);
    }
    for (const FsBackend::TreeEntry& e : tree->entries) {
      if (e.kind != Kind::kFile) continue;
      patch::FilePatch f;
      f.action = patch::Action::kDelete;
      f.path = join(target->canonical, e.path);
      removal.files.push_back(std::move(f));
    }
    if (removal.files.empty()) {
      // Directories alone: nothing to commit, nothing an undo could give back.
      co_await remove_emptied(ctx, *target, *tree, p.dry_run, out);
      if (!out.kept_directories.empty()) co_return not_removed(target->shown);
      co_return out;
    }
  }
  auto applied = co_await apply_parsed(ctx, std::move(removal), std::move(run));
  if (!applied) co_return applied.error();
  static_cast<ops::Patched&>(out) = std::move(*applied);
  if (tree) co_await remove_emptied(ctx, *target, *tree, p.dry_run, out);
  co_return out;
}

}  // namespace editd
