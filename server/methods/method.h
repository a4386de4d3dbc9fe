// A method: one row of the table every front door reads (server/doors/
// registry.h), and the helper that runs it.
//
// A method family lives in one file of server/methods/ (str_replace.cpp,
// symbols.cpp...): its row (name, the description written for a model, a
// flat JSON Schema of its params and one of its result, its flags), its
// decode of the params straight into the operation's request
// (server/ops/requests.h; a bad param is invalid_params naming it), its
// encode of the operation's outcome, and its result as text. The core never
// sees JSON; nothing but the method's own file spells its params. ACP's
// `_meta.editd.methods`, MCP's tools/list and tools/call, `editd tools` and
// the connection's mutation and dry-run checks all read the rows.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "server/ops/operations.h"

namespace editd {

struct Method {
  // Decodes the params, runs the operation, encodes its outcome.
  using Run = boost::asio::awaitable<Result<nlohmann::json>> (*)(Operations&, RequestContext&,
                                                                 const nlohmann::json& params);
  // The result as text complete on its own (MCP's text content): `params` as
  // the method received them, `result` as it encoded it.
  using Render = std::string (*)(const nlohmann::json& params, const nlohmann::json& result);

  std::string name;
  std::string title;
  std::string description;
  // Flat: type object, properties, required, additionalProperties false; no
  // anyOf/oneOf/$ref/$defs/type arrays/$schema (hosts reject or mangle them).
  // Connection-level params (sessionId, _meta) are not listed.
  nlohmann::json input_schema;
  nlohmann::json output_schema;  // of the whole result
  bool mutates = false;          // may write files (read-only otherwise)
  bool idempotent = false;       // repeating the call with the same params changes nothing more
  bool destructive = false;      // may overwrite or remove what is there
  // MCP pages the result by default (read_text's lines, read_symbols'
  // symbols): see server/doors/mcp.h.
  bool paged = false;
  // The input is a provider's tool input, verbatim (anthropic_text_editor,
  // openai_apply_patch): it has no dryRun, and failures are results.
  bool provider_native = false;
  // Works only where a language server (--lsp) covers the file: MCP lists it
  // only when one is configured.
  bool needs_language_server = false;
  // A call of this mutating method that writes nothing, besides a dry run
  // (the text editor's `view`). Optional.
  bool (*reads_only)(const nlohmann::json& params) = nullptr;
  Render render = nullptr;
  Run run = nullptr;

  // A mutation asked to write nothing (`dryRun: true`).
  bool dry_run(const nlohmann::json& params) const;
  // A call that will write nothing: a read, a dry run, or reads_only.
  bool writes_nothing(const nlohmann::json& params) const;
};

namespace methods {

// The Run of a method that decodes its params into a request (`decode`:
// Result<Request>(const json&)), hands it to `operation` (a member of
// Operations taking (RequestContext&, Request), or a function taking
// (Operations&, RequestContext&, Request)) and encodes the outcome
// (`encode`: json(Outcome)). Not a lambda: GCC 12 miscompiles lambda
// coroutines.
template <auto decode, auto operation, auto encode>
boost::asio::awaitable<Result<nlohmann::json>> run(Operations& ops, RequestContext& ctx,
                                                   const nlohmann::json& params) {
  auto request = decode(params);
  if (!request) co_return request.error();
  auto outcome = co_await std::invoke(operation, ops, ctx, std::move(*request));
  if (!outcome) co_return outcome.error();
  co_return encode(std::move(*outcome));
}

}  // namespace methods
}  // namespace editd
