#include "server/doors/registry.h"

#include <algorithm>

#include "server/doors/anthropic_text_editor.h"
#include "server/doors/openai_apply_patch.h"
#include "server/methods/methods.h"

namespace editd {

Registry::Registry(Operations& ops)
    : ops_(ops),
      methods_{
          methods::read_text(),
          methods::write_text(),
          methods::create(),
          methods::set_format(),
          methods::insert(),
          methods::str_replace(),
          methods::edit_lines(),
          methods::apply_patch(),
          methods::undo(),
          methods::changes(),
          methods::revert(),
          methods::fingerprint(),
          methods::read_symbols(),
          methods::edit_symbol(),
          methods::anthropic_text_editor(),
          methods::openai_apply_patch(),
          methods::move(),
          methods::copy(),
          methods::delete_(),
          methods::list(),
          methods::search(),
      } {
  std::sort(methods_.begin(), methods_.end(),
            [](const Method& a, const Method& b) { return a.name < b.name; });
}

const Method* Registry::find(std::string_view name) const {
  name = bare_method(name);
  for (const Method& m : methods_)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const Method& m : methods_) out.push_back(m.name);
  return out;
}

std::string_view Registry::bare_method(std::string_view method) {
  for (std::string_view prefix : {std::string_view("_edit/"), std::string_view("edit/")})
    if (method.starts_with(prefix)) return method.substr(prefix.size());
  return method;
}

}  // namespace editd
