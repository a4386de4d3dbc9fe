// The doors' translation between the wire and the core: every mode string
// into its enum, every outcome back into the wire's result.
#include "server/doors/bindings.h"

#include <doctest/doctest.h>

#include "protocol/params.h"

using namespace editd;
using nlohmann::json;

TEST_CASE("each mode string of the wire becomes its enum, once, at the door") {
  protocol::ReadTextParams read;
  read.path = "a";
  CHECK(to_ops(read).format == ops::ReadFormat::kPlain);
  read.format = "plain";
  CHECK(to_ops(read).format == ops::ReadFormat::kPlain);
  read.format = "hashline";
  read.line = 3;
  read.limit = 2;
  ops::ReadRequest r = to_ops(read);
  CHECK(r.format == ops::ReadFormat::kHashline);
  CHECK(r.first_line == 3u);
  CHECK(r.line_limit == 2u);

  protocol::SetFormatParams format;
  CHECK_FALSE(to_ops(format).line_endings.has_value());
  format.line_endings = "crlf";
  CHECK(to_ops(format).line_endings == text::Eol::kCrLf);
  format.line_endings = "lf";
  CHECK(to_ops(format).line_endings == text::Eol::kLf);

  protocol::StrReplaceParams replace;
  CHECK_FALSE(to_ops(replace).matching.has_value());
  replace.matching = "exact";
  CHECK(to_ops(replace).matching == match::Mode::kExact);
  replace.matching = "standard";
  CHECK(to_ops(replace).matching == match::Mode::kStandard);
  replace.matching = "fuzzy";
  CHECK(to_ops(replace).matching == match::Mode::kFuzzy);

  protocol::EditLinesParams lines;
  lines.path = "a";
  lines.expected_fingerprint = "fp";
  lines.dry_run = true;
  lines.edits = {{"replace", "1~ab", "2~cd", "x"}, {"insertAfter", "3~ef", {}, "y"},
                 {"insertBefore", "4~gh", {}, "z"}};
  ops::LineEditsRequest e = to_ops(lines);
  CHECK(e.path == "a");
  CHECK(e.expected_fingerprint == "fp");
  CHECK(e.dry_run);
  REQUIRE(e.edits.size() == 3);
  CHECK(e.edits[0].kind == hashline::Kind::kReplace);
  CHECK(e.edits[0].end == "2~cd");
  CHECK(e.edits[1].kind == hashline::Kind::kInsertAfter);
  CHECK(e.edits[2].kind == hashline::Kind::kInsertBefore);
  CHECK(e.edits[2].start == "4~gh");

  protocol::InsertParams insert;
  insert.line = 7;
  CHECK(to_ops(insert).after_line == 7u);
  // A patch's paths are held to the rule the path params are held to.
  const bool held = to_ops(protocol::ApplyPatchParams{}).path_rule == &protocol::path_problem;
  CHECK(held);
}

TEST_CASE("each outcome of the core reads on the wire as before") {
  ops::Read plain;
  plain.content = "x\n";
  plain.first_line = 4;
  json j = protocol::to_json(to_wire(plain));
  CHECK_FALSE(j.contains("format"));
  CHECK(j["line"] == 4);
  ops::Read hashed = plain;
  hashed.format = ops::ReadFormat::kHashline;
  CHECK(protocol::to_json(to_wire(hashed))["format"] == "hashline");

  ops::Patched patched;
  for (patch::Action a : {patch::Action::kAdd, patch::Action::kUpdate, patch::Action::kDelete,
                          patch::Action::kMove})
    patched.files.push_back(ops::PatchedFile{.path = "f", .action = a});
  diagnostics::Report report;
  report.status = diagnostics::Status::kTimeout;
  report.detail = "slow";
  report.introduced.push_back({.line = 2, .severity = "error", .message = "m", .source = "s"});
  patched.files[1].diagnostics = report;
  json p = protocol::to_json(to_wire(patched));
  REQUIRE(p["files"].size() == 4);
  CHECK(p["files"][0]["action"] == "add");
  CHECK(p["files"][1]["action"] == "update");
  CHECK(p["files"][2]["action"] == "delete");
  CHECK(p["files"][3]["action"] == "move");
  CHECK(p["files"][1]["diagnosticsStatus"] == "timeout");
  CHECK(p["files"][1]["diagnosticsDetail"] == "slow");
  REQUIRE(p["files"][1]["introduced"].size() == 1);
  CHECK(p["files"][1]["introduced"][0]["line"] == 2);
  CHECK(p["files"][1]["introduced"][0]["severity"] == "error");
  CHECK_FALSE(p["files"][0].contains("diagnosticsStatus"));

  ops::Mutation m;
  m.lines = std::vector<ops::LineRange>{{2, 3}};
  m.rebased = std::vector<ops::RebasedAnchor>{{"5~ab", 6}};
  json w = protocol::to_json(to_wire(m));
  CHECK(w["lines"] == json::parse(R"([{"startLine":2,"endLine":3}])"));
  CHECK(w["rebased"][0]["anchor"] == "5~ab");
  CHECK(w["rebased"][0]["line"] == 6);
}
