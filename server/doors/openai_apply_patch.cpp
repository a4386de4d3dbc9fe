// OpenAI's apply_patch tool over the operations (openai_apply_patch.h).
#include "server/doors/openai_apply_patch.h"

#include "edit/text/text.h"
#include "protocol/params.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd {

using nlohmann::json;
using protocol::lenient_string;

namespace {

// The call's `operation` as the model wrote it, and the call's id when the
// host passes it; `problem` as the text editor's (anthropic_text_editor.cpp).
struct PatchOperation {
  std::string type;  // create_file | update_file | delete_file
  std::string path;
  std::optional<std::string> diff;  // V4A; none for delete_file
  std::optional<std::string> call_id;
  std::optional<std::string> problem;
};

// The apply_patch_call_output item's fields.
struct CallOutput {
  std::optional<std::string> call_id;
  std::string status;  // completed | failed
  std::string output;
};

Result<PatchOperation> decode_openai_patch(const json& p) {
  if (!p.is_object()) return invalid_param("params", "must be an object {operation, call_id?}");
  PatchOperation r;
  std::optional<std::string> problem;
  r.call_id = lenient_string(p, "call_id", problem);
  auto op = p.find("operation");
  if (op == p.end() || !op->is_object()) {
    r.problem = "operation is missing: expected {type, path, diff}";
    return r;
  }
  r.type = lenient_string(*op, "type", problem).value_or("");
  r.path = lenient_string(*op, "path", problem).value_or("");
  r.diff = lenient_string(*op, "diff", problem);
  if (!problem && r.path.empty()) problem = "operation.path is required";
  if (!problem)
    if (auto bad = protocol::path_problem(r.path)) problem = "operation.path " + *bad;
  r.problem = std::move(problem);
  return r;
}

json encode_call_output(CallOutput r) {
  json j{{"type", "apply_patch_call_output"},
         {"status", std::move(r.status)},
         {"output", std::move(r.output)}};
  if (r.call_id) j["call_id"] = std::move(*r.call_id);
  return j;
}

// The call: its operation as a one-file patch through apply_patch.
boost::asio::awaitable<Result<CallOutput>> patch_call(Operations& ops, RequestContext& ctx,
                                                      PatchOperation p) {
  CallOutput out;
  out.call_id = std::move(p.call_id);
  out.status = "failed";
  if (p.problem) {
    out.output = "Error: " + *p.problem;
    co_return out;
  }
  // The operation as one Codex patch, whose grammar V4A is: the diff is the
  // body of an Add File or Update File section.
  std::string body = p.diff.value_or("");
  if (!body.empty() && body.back() != '\n') body += '\n';
  std::string header;
  if (p.type == "create_file") {
    header = "*** Add File: ";
  } else if (p.type == "update_file") {
    header = "*** Update File: ";
  } else if (p.type == "delete_file") {
    header = "*** Delete File: ";
    body.clear();
  } else {
    out.output = "Error: unknown operation type `" + p.type +
                 "`: expected create_file, update_file or delete_file";
    co_return out;
  }
  if (p.type != "delete_file" && !p.diff) {
    out.output = "Error: operation.diff is required for " + p.type;
    co_return out;
  }
  if (p.type == "create_file") {
    // Every line of a create_file diff is an added line; an empty line is an
    // empty added line.
    std::string added;
    for (std::string_view line : text::split_lines(body)) {
      if (line.empty())
        added += "+\n";
      else if (line.front() != '+') {
        out.output = "Error: every line of a create_file diff must start with '+': " +
                     std::string(line.substr(0, 80));
        co_return out;
      } else {
        added += std::string(line) + "\n";
      }
    }
    body = std::move(added);
  }
  ops::PatchRequest q;
  q.patch = "*** Begin Patch\n" + header + p.path + "\n" + body + "*** End Patch\n";
  q.path_rule = protocol::path_problem;
  json params = {{"patch", q.patch}};
  auto r = co_await ops.apply_patch(ctx, std::move(q));
  if (!r) {
    out.output = render_error(r.error());
    while (!out.output.empty() && out.output.back() == '\n') out.output.pop_back();
    co_return out;
  }
  out.status = "completed";
  out.output = render_apply_patch(params, methods::encode_patched(std::move(*r)));
  while (!out.output.empty() && out.output.back() == '\n') out.output.pop_back();
  co_return out;
}

// The apply_patch_call_output's output: what the model reads.
std::string render_openai_patch(const json& /*params*/, const json& result) {
  return texts::string_at(result, "output");
}

}  // namespace

Method methods::openai_apply_patch() {
  using namespace schema;
  return {.name = "openai_apply_patch",
          .title = "OpenAI's apply_patch tool",
          .description =
              "For hosts of OpenAI's apply_patch tool (the Responses API's apply_patch_call): pass "
              "the call's operation exactly as the model wrote it, {type: create_file | "
              "update_file | delete_file, path, diff} with its V4A diff, and call_id optionally; "
              "the result is the apply_patch_call_output to send back (status completed or "
              "failed, and output: what was done, with the diff, or what went wrong and what to "
              "do). Chunks are found as apply_patch finds them, fidelity and checks are editd's.",
          .input_schema = object(
              {{"operation",
                {{"type", "object"},
                 {"properties",
                  {{"type",
                    {{"type", "string"}, {"enum", {"create_file", "update_file", "delete_file"}}}},
                   {"path", path_param()},
                   {"diff",
                    str("V4A: create_file, every line +; update_file, @@ anchors and context, - "
                        "and + lines.")}}},
                 {"required", {"type", "path"}},
                 {"description", "The apply_patch_call's operation, verbatim."}}},
               {"call_id", str("Optional: the call's id, echoed in the output.")}},
              {"operation"}),
          .output_schema = {{"type", "object"},
                            {"properties",
                             {{"type", {{"type", "string"}, {"enum", {"apply_patch_call_output"}}}},
                              {"call_id", {{"type", "string"}}},
                              {"status", {{"type", "string"}, {"enum", {"completed", "failed"}}}},
                              {"output", str("What the model reads.")}}},
                            {"required", {"type", "status", "output"}}},
          .mutates = true,
          .destructive = true,
          .provider_native = true,
          .render = &render_openai_patch,
          .run = &methods::run<&decode_openai_patch, &patch_call, &encode_call_output>};
}

}  // namespace editd
