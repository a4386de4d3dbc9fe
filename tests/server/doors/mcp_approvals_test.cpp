// MCP approvals' pure parts: the capability, the question's text and what an
// answer means.
#include "server/doors/mcp_approvals.h"

#include <doctest/doctest.h>

using namespace editd;
using nlohmann::json;

namespace {

PendingChange approval_change(std::string shown, PendingChange::Kind kind,
                              std::optional<std::string> old_text, std::string new_text) {
  PendingChange c;
  c.shown = std::move(shown);
  c.kind = kind;
  c.change.canonical = "/root/" + c.shown;
  c.change.old_text = std::move(old_text);
  c.change.new_text = std::move(new_text);
  return c;
}

}  // namespace

TEST_CASE("form elicitation is offered by elicitation {} or {form}, not by {url} alone") {
  auto caps = [](json e) { return json{{"capabilities", {{"elicitation", std::move(e)}}}}; };
  CHECK(mcp::offers_form_elicitation(caps(json::object())));
  CHECK(mcp::offers_form_elicitation(caps({{"form", json::object()}, {"url", json::object()}})));
  CHECK_FALSE(mcp::offers_form_elicitation(caps({{"url", json::object()}})));
  CHECK_FALSE(mcp::offers_form_elicitation(caps(true)));
  CHECK_FALSE(mcp::offers_form_elicitation(json{{"capabilities", json::object()}}));
  CHECK_FALSE(mcp::offers_form_elicitation(json::array()));
}

TEST_CASE("visible() escapes what acts on a display and keeps the rest") {
  CHECK(mcp::visible("a\tb\nc") == "a\tb\nc");
  CHECK(mcp::visible("\x1b[2J\r\x7f") == "\\x1b[2J\\x0d\\x7f");
  CHECK(mcp::visible("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(mcp::visible("\xe2\x80\xae" "x\xe2\x81\xa6") == "\\u202ex\\u2066");
  CHECK(mcp::visible("\xc2\x9b") == "\\u009b");            // C1 CSI
  CHECK(mcp::visible("\xff\xc3") == "\\xff\\xc3");         // not UTF-8
  CHECK(mcp::visible("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");  // overlong
}

TEST_CASE("the question lists every file and cuts the diffs within the budget") {
  std::string big;
  for (int i = 0; i < 1000; ++i) big += "line " + std::to_string(i) + "\n";
  std::vector<PendingChange> changes = {
      approval_change("a.txt", PendingChange::Kind::kUpdate, "x\n", "y\n"),
      approval_change("n.txt", PendingChange::Kind::kCreate, std::nullopt, big),
      approval_change("g.txt", PendingChange::Kind::kRemove, "bye\n", ""),
      approval_change("bin", PendingChange::Kind::kUpdate, std::string("a\0b", 3), "c"),
  };
  const std::string m = mcp::approval_message("apply_patch", changes);
  CHECK(m.find("4 files:\n") != std::string::npos);
  CHECK(m.find("  changed \"a.txt\" (+1 -1)\n") != std::string::npos);
  CHECK(m.find("  new \"n.txt\" (+1000 -0)\n") != std::string::npos);
  CHECK(m.find("  removed \"g.txt\" (+0 -1)\n") != std::string::npos);
  CHECK(m.find("  changed \"bin\" (binary)\n") != std::string::npos);
  CHECK(m.find("-x\n+y\n") != std::string::npos);
  CHECK(m.find("[diff cut here: ") != std::string::npos);
  CHECK(m.size() < mcp::kApprovalDiffBytes + 1024);
  // Nothing is shown after the cut, even a small diff.
  CHECK(m.find("-bye") == std::string::npos);
}

TEST_CASE("what an answer means") {
  std::vector<PendingChange> one = {
      approval_change("a.txt", PendingChange::Kind::kUpdate, "x\n", "y\n")};
  auto reason = [&](const Result<json>& answer) {
    Result<void> r = mcp::approval_outcome(answer, one);
    if (r) return std::string("approved");
    if (r.error().kind != ErrorKind::kDenied) return "kind " + std::string(kind_name(r.error().kind));
    return r.error().data["reason"].get<std::string>();
  };
  CHECK(reason(json{{"action", "accept"}}) == "approved");
  CHECK(reason(json{{"action", "accept"}, {"content", {{"approve", true}}}}) == "approved");
  CHECK(reason(json{{"action", "accept"}, {"content", {{"approve", false}}}}) == "declined");
  CHECK(reason(json{{"action", "decline"}}) == "declined");
  CHECK(reason(json{{"action", "cancel"}}) == "cancelled");
  CHECK(reason(json{{"action", 1}}) == "invalid_answer");
  CHECK(reason(json::array()) == "invalid_answer");
  CHECK(reason(Error(ErrorKind::kTimeout, "late")) == "timeout");
  CHECK(reason(Error(ErrorKind::kDelegateFailed, "nope", {{"code", -32601}})) == "error");
  CHECK(reason(Error(ErrorKind::kCancelled, "gone")) == "kind cancelled");  // the request's, as is
}
