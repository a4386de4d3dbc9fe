// The method table: every method's row (server/methods/method.h), found by
// name for every front door.
//
// A method family is one file of server/methods/ (the provider-native tools'
// are their adapters here in server/doors/), and the table is one line per
// method in registry.cpp. ACP's `_meta.editd.methods`, MCP's tools/list and
// tools/call, `editd tools` and the connection's mutation and dry-run checks
// all read it. Methods are also accepted with the "_edit/" and "edit/"
// prefixes that ACP clients use for extension methods.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "server/methods/method.h"

namespace editd {

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
  // Runs `method` (one of methods()) over the operations.
  boost::asio::awaitable<Result<nlohmann::json>> run(const Method& method, RequestContext& ctx,
                                                     const nlohmann::json& params) const {
    return method.run(ops_, ctx, params);
  }

  // "_edit/read_text" and "edit/read_text" -> "read_text".
  static std::string_view bare_method(std::string_view method);

 private:
  Operations& ops_;
  std::vector<Method> methods_;
};

}  // namespace editd
