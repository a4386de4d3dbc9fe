// OpenAI's apply_patch tool over the operations (openai_apply_patch.h).
#include "server/doors/openai_apply_patch.h"

#include "edit/text/text.h"
#include "protocol/params.h"
#include "server/doors/bindings.h"
#include "server/doors/tool_text.h"

namespace editd {

using nlohmann::json;

boost::asio::awaitable<Result<protocol::ApplyPatchCallOutput>> openai_apply_patch(
    Operations& ops, RequestContext& ctx, protocol::OpenAiPatchParams p) {
  protocol::ApplyPatchCallOutput out;
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
  out.output = render_apply_patch(params, protocol::to_json(to_wire(std::move(*r))));
  while (!out.output.empty() && out.output.back() == '\n') out.output.pop_back();
  co_return out;
}

}  // namespace editd
