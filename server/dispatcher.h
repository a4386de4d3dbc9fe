// Method binding: wire method names to typed operation handlers.
//
// Each entry decodes the params into the method's struct (a bad param becomes
// invalid_params naming it), calls the typed operation and encodes its result;
// the core never sees JSON. Methods are also accepted with the "_edit/" and
// "edit/" prefixes that ACP clients use for extension methods.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "server/operations.h"

namespace editd {

class Dispatcher {
 public:
  using Handler =
      std::function<boost::asio::awaitable<Result<nlohmann::json>>(RequestContext&, const nlohmann::json&)>;

  explicit Dispatcher(Operations& ops);

  // The handler for a method name (prefixes stripped), or nullptr.
  const Handler* find(std::string_view method) const;
  // Every edit method's bare name, sorted.
  std::vector<std::string> methods() const;

  // "_edit/read_text" and "edit/read_text" -> "read_text".
  static std::string_view bare_method(std::string_view method);

 private:
  template <class Params, class R>
  void bind(const std::string& name, Result<Params> (*decode)(const nlohmann::json&),
            boost::asio::awaitable<Result<R>> (Operations::*op)(RequestContext&, Params));

  template <class Params, class R>
  boost::asio::awaitable<Result<nlohmann::json>> invoke(
      Result<Params> (*decode)(const nlohmann::json&),
      boost::asio::awaitable<Result<R>> (Operations::*op)(RequestContext&, Params),
      RequestContext& ctx, const nlohmann::json& raw);

  Operations& ops_;
  std::map<std::string, Handler, std::less<>> handlers_;
};

}  // namespace editd
