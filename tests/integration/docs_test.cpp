// docs/protocol.md cannot drift: every ```jsonrpc block in it is replayed
// against the real binary and each reply must equal the documented one.
//
// Block format: "-> LINE" is sent as is; the "<- JSON" line after it is the
// reply it must get (requests and invalid lines get one, notifications none).
// An HTML comment right before a block may give files to create first
// (<!-- files: {"name": "content"} -->) or extra arguments (<!-- args: [...] -->).
// The root directory's path is written $ROOT. An undoId ("undo-XXXXXXXX-N") is
// written "undo-$RUN-N": the reply's 8 hex digits become $RUN, and $RUN in a
// later request of the block becomes those digits again.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "helpers/process.h"

using namespace editd::test;

namespace {

struct Example {
  int line = 0;  // in the markdown file, for messages
  json files = json::object();
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::optional<std::string>>> exchanges;  // sent, expected
};

std::vector<Example> load_examples(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::vector<Example> out;
  std::string line, last_comment;
  int n = 0;
  Example* cur = nullptr;
  while (std::getline(in, line)) {
    ++n;
    if (!cur) {
      if (line.rfind("<!--", 0) == 0) {
        last_comment += line;
        continue;
      }
      if (line == "```jsonrpc") {
        out.emplace_back();
        cur = &out.back();
        cur->line = n;
        auto take = [&](const std::string& key) -> std::optional<json> {
          auto at = last_comment.find("<!-- " + key + ":");
          if (at == std::string::npos) return std::nullopt;
          auto start = at + key.size() + 6;
          auto end = last_comment.find("-->", start);
          return json::parse(last_comment.substr(start, end - start));
        };
        if (auto f = take("files")) cur->files = *f;
        if (auto a = take("args")) cur->args = a->get<std::vector<std::string>>();
      }
      if (!line.empty()) last_comment.clear();
      continue;
    }
    if (line == "```") {
      cur = nullptr;
      continue;
    }
    if (line.rfind("-> ", 0) == 0) {
      cur->exchanges.emplace_back(line.substr(3), std::nullopt);
    } else if (line.rfind("<- ", 0) == 0) {
      REQUIRE_MESSAGE(!cur->exchanges.empty(), path << ":" << n << ": a reply before any request");
      cur->exchanges.back().second = line.substr(3);
    }
  }
  return out;
}

// Whether editd answers this line: anything but a well-formed notification.
bool expects_reply(const std::string& sent) {
  json m = json::parse(sent, nullptr, false);
  return m.is_discarded() || !m.is_object() || m.contains("id") || !m.contains("method");
}

}  // namespace

TEST_CASE("every example exchange in docs/protocol.md is what the binary does") {
  auto examples = load_examples(std::string(EDITD_SOURCE_DIR) + "/docs/protocol.md");
  REQUIRE(examples.size() >= 9);
  for (const Example& ex : examples) {
    CAPTURE(ex.line);
    TempDir root;
    for (auto it = ex.files.begin(); it != ex.files.end(); ++it) root.write(it.key(), it.value().get<std::string>());
    Process p = spawn_editd(root, ex.args);
    std::string run;  // the process's undoId digits, once a reply showed them
    for (const auto& [documented_sent, expected] : ex.exchanges) {
      std::string sent = documented_sent;
      for (auto at = sent.find("$RUN"); !run.empty() && at != std::string::npos; at = sent.find("$RUN"))
        sent.replace(at, 4, run);
      CAPTURE(sent);
      p.write_raw(sent + "\n");
      if (!expects_reply(sent)) {
        CHECK_MESSAGE(!expected, "docs/protocol.md:" << ex.line << ": a notification gets no reply");
        continue;
      }
      REQUIRE_MESSAGE(expected.has_value(), "docs/protocol.md:" << ex.line << ": no documented reply for " << sent);
      // The root is a fresh temporary directory: documented as $ROOT.
      std::string raw = p.read_message().dump();
      for (auto at = raw.find(root.str()); at != std::string::npos; at = raw.find(root.str()))
        raw.replace(at, root.str().size(), "$ROOT");
      static const std::regex undo_id("undo-([0-9a-f]{8})-");
      if (std::smatch m; std::regex_search(raw, m, undo_id)) run = m[1];
      raw = std::regex_replace(raw, undo_id, "undo-$$RUN-");
      json got = json::parse(raw);
      CHECK_MESSAGE(got == json::parse(*expected), "docs/protocol.md:" << ex.line << "\n  documented: " << *expected
                                                                     << "\n  actual:     " << got.dump());
    }
  }
}
