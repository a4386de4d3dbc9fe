#include "server/dispatcher.h"

namespace editd {

template <class Params, class R>
boost::asio::awaitable<Result<nlohmann::json>> Dispatcher::invoke(
    Result<Params> (*decode)(const nlohmann::json&),
    boost::asio::awaitable<Result<R>> (Operations::*op)(RequestContext&, Params), RequestContext& ctx,
    const nlohmann::json& raw) {
  auto params = decode(raw);
  if (!params) co_return params.error();
  Result<R> result = co_await (ops_.*op)(ctx, std::move(*params));
  if (!result) co_return result.error();
  co_return protocol::to_json(*result);
}

// The handler itself is not a coroutine: GCC 12 miscompiles lambda coroutines.
template <class Params, class R>
void Dispatcher::bind(const std::string& name, Result<Params> (*decode)(const nlohmann::json&),
                      boost::asio::awaitable<Result<R>> (Operations::*op)(RequestContext&, Params)) {
  handlers_[name] = [this, decode, op](RequestContext& ctx, const nlohmann::json& raw) {
    return invoke(decode, op, ctx, raw);
  };
}

Dispatcher::Dispatcher(Operations& ops) : ops_(ops) {
  bind("read_text", &protocol::decode_read_text, &Operations::read_text);
  bind("write_text", &protocol::decode_write_text, &Operations::write_text);
  bind("create", &protocol::decode_create, &Operations::create);
  bind("insert", &protocol::decode_insert, &Operations::insert);
  bind("str_replace", &protocol::decode_str_replace, &Operations::str_replace);
  bind("edit_lines", &protocol::decode_edit_lines, &Operations::edit_lines);
  bind("fingerprint", &protocol::decode_fingerprint, &Operations::fingerprint);
  bind("apply_patch", &protocol::decode_apply_patch, &Operations::apply_patch);
  bind("undo", &protocol::decode_undo, &Operations::undo);
}

const Dispatcher::Handler* Dispatcher::find(std::string_view method) const {
  auto it = handlers_.find(bare_method(method));
  return it == handlers_.end() ? nullptr : &it->second;
}

std::vector<std::string> Dispatcher::methods() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : handlers_) out.push_back(name);
  return out;
}

std::string_view Dispatcher::bare_method(std::string_view method) {
  for (std::string_view prefix : {std::string_view("_edit/"), std::string_view("edit/")})
    if (method.starts_with(prefix)) return method.substr(prefix.size());
  return method;
}

}  // namespace editd
