// The method registry: every operation declared once, and everything derived from it.
//
// A Method holds what each front door needs: its wire name, a title and a
// description written for a model (when to use it, what its errors mean), a
// flat JSON Schema of its params and one of its result, its flags, the typed
// binding (decode the params into the method's struct, a bad param becomes
// invalid_params naming it; translate them into the operation's request,
// server/doors/bindings.h; run the operation; translate its outcome and encode
// it; the core never sees JSON nor the wire's structs) and how its result reads as text. ACP's
// `_meta.editd.methods`, MCP's tools/list and tools/call, and the connection's
// mutation and dry-run checks all read it: adding a method is one `add` in
// registry.cpp. Methods are also accepted with the "_edit/" and "edit/"
// prefixes that ACP clients use for extension methods.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/ops/operations.h"

namespace editd {

struct Method {
  using Handler = std::function<boost::asio::awaitable<Result<nlohmann::json>>(
      RequestContext&, const nlohmann::json&)>;
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
  Render render = nullptr;
  Handler run{};

  // A mutation asked to write nothing (`dryRun: true`).
  bool dry_run(const nlohmann::json& params) const;
  // A call that will write nothing: a dry run, or the text editor's `view`.
  bool writes_nothing(const nlohmann::json& params) const;
};

class Registry {
 public:
  explicit Registry(Operations& ops);

  // The method for a name (prefixes stripped), or nullptr.
  const Method* find(std::string_view name) const;
  // Every method, sorted by name.
  const std::vector<Method>& methods() const { return methods_; }
  std::vector<std::string> names() const;
  // Whether any --lsp is configured (the symbol tools work somewhere).
  bool has_language_servers() const { return ops_.has_language_servers(); }

  // "_edit/read_text" and "edit/read_text" -> "read_text".
  static std::string_view bare_method(std::string_view method);

 private:
  // `op` runs the method over the operations: a member of Operations taking
  // (RequestContext&, Params), or an adapter taking (Operations&,
  // RequestContext&, Params) (the provider tools).
  template <class Params, class Op>
  void add(Method m, Result<Params> (*decode)(const nlohmann::json&), Op op);

  template <class Params, class Op>
  boost::asio::awaitable<Result<nlohmann::json>> invoke(
      Result<Params> (*decode)(const nlohmann::json&), Op op, RequestContext& ctx,
      const nlohmann::json& raw);

  Operations& ops_;
  std::vector<Method> methods_;
};

}  // namespace editd
