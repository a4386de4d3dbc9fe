#include "server/checks/prettier.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "server/checks/diagnostics.h"

namespace editd::prettier {

namespace {

using nlohmann::json;

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

bool is_prettier_name(const std::string& word) {
  const std::string name = file_name(word);
  return name == "prettier" || name == "prettier.cjs" || name == "prettier.js" ||
         name == "prettier.mjs";
}

// The formatting options editd passes on, and how each is a flag.
enum class Type { kInt, kTrueFlag, kFalseFlag, kEnum };
struct Option {
  std::string_view name;  // in the configuration
  std::string_view flag;  // on the command line
  Type type;
  std::vector<std::string_view> values;  // kEnum
};

const std::vector<Option>& options() {
  static const std::vector<Option> all = {
      {"printWidth", "--print-width", Type::kInt, {}},
      {"tabWidth", "--tab-width", Type::kInt, {}},
      // Default false: the flag sets true.
      {"useTabs", "--use-tabs", Type::kTrueFlag, {}},
      {"singleQuote", "--single-quote", Type::kTrueFlag, {}},
      {"jsxSingleQuote", "--jsx-single-quote", Type::kTrueFlag, {}},
      {"bracketSameLine", "--bracket-same-line", Type::kTrueFlag, {}},
      {"singleAttributePerLine", "--single-attribute-per-line", Type::kTrueFlag, {}},
      {"vueIndentScriptAndStyle", "--vue-indent-script-and-style", Type::kTrueFlag, {}},
      {"experimentalTernaries", "--experimental-ternaries", Type::kTrueFlag, {}},
      // Default true: the flag sets false.
      {"semi", "--no-semi", Type::kFalseFlag, {}},
      {"bracketSpacing", "--no-bracket-spacing", Type::kFalseFlag, {}},
      {"quoteProps", "--quote-props", Type::kEnum, {"as-needed", "consistent", "preserve"}},
      {"trailingComma", "--trailing-comma", Type::kEnum, {"all", "es5", "none"}},
      {"arrowParens", "--arrow-parens", Type::kEnum, {"always", "avoid"}},
      {"proseWrap", "--prose-wrap", Type::kEnum, {"always", "never", "preserve"}},
      {"htmlWhitespaceSensitivity", "--html-whitespace-sensitivity", Type::kEnum,
       {"css", "strict", "ignore"}},
      {"endOfLine", "--end-of-line", Type::kEnum, {"lf", "crlf", "cr", "auto"}},
      {"embeddedLanguageFormatting", "--embedded-language-formatting", Type::kEnum,
       {"auto", "off"}},
      {"objectWrap", "--object-wrap", Type::kEnum, {"preserve", "collapse"}},
      {"experimentalOperatorPosition", "--experimental-operator-position", Type::kEnum,
       {"start", "end"}},
      // prettier's own parsers only: a parser a plugin provides (or a path
      // to one) is code the tree chooses.
      {"parser", "--parser", Type::kEnum,
       {"flow", "babel", "babel-flow", "babel-ts", "typescript", "acorn", "espree", "meriyah", "css",
        "less", "scss", "json", "json5", "jsonc", "json-stringify", "graphql", "markdown", "mdx",
        "vue", "yaml", "glimmer", "html", "angular", "lwc", "mjml"}},
  };
  return all;
}

const Option* find_option(std::string_view name) {
  for (const Option& o : options())
    if (o.name == name) return &o;
  return nullptr;
}

// Whether `v` is a value editd passes on for `o`.
bool valid(const Option& o, const json& v) {
  switch (o.type) {
    case Type::kInt:
      return v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 10000;
    case Type::kTrueFlag:
    case Type::kFalseFlag:
      return v.is_boolean();
    case Type::kEnum:
      return v.is_string() && std::find(o.values.begin(), o.values.end(),
                                        v.get<std::string>()) != o.values.end();
  }
  return false;
}

// The options of one object (the top level, or an override's `options`)
// merged into `into`; what is left out is noted.
void take(const json& object, std::map<std::string_view, json>& into,
          std::vector<std::string>& left_out) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key == "overrides" || key == "$schema") continue;
    if (key == "plugins") {
      left_out.push_back("plugins");
      continue;
    }
    const Option* o = find_option(key);
    if (!o) {
      left_out.push_back("option " + key);
      continue;
    }
    if (!valid(*o, it.value())) {
      left_out.push_back("option " + key + " (its value)");
      continue;
    }
    into[o->name] = it.value();
  }
}

// Whether an override's `files` (a glob or a list) matches `rel` and its
// `excludeFiles` does not, as prettier matches them (a glob without '/'
// against the file's name).
bool matches(const json& globs, std::string_view rel) {
  if (globs.is_string()) return diagnostics::glob_matches(globs.get<std::string>(), rel);
  if (!globs.is_array()) return false;
  return std::any_of(globs.begin(), globs.end(), [rel](const json& g) {
    return g.is_string() && diagnostics::glob_matches(g.get<std::string>(), rel);
  });
}

}  // namespace

bool runs_prettier(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  if (is_prettier_name(argv[0])) return true;
  const std::string program = file_name(argv[0]);
  return (program == "node" || program.rfind("node", 0) == 0) && argv.size() > 1 &&
         is_prettier_name(argv[1]);
}

bool chooses_config(const std::vector<std::string>& argv) {
  return std::any_of(argv.begin(), argv.end(), [](const std::string& w) {
    return w == "--config" || w.rfind("--config=", 0) == 0 || w == "--no-config";
  });
}

const std::vector<std::string_view>& config_names() {
  // prettier 3's search order (its documentation, "Configuration File").
  static const std::vector<std::string_view> names = {
      "package.json",        "package.yaml",       ".prettierrc",        ".prettierrc.json",
      ".prettierrc.yaml",    ".prettierrc.yml",    ".prettierrc.json5",  ".prettierrc.js",
      "prettier.config.js",  ".prettierrc.ts",     "prettier.config.ts", ".prettierrc.mjs",
      "prettier.config.mjs", ".prettierrc.mts",    "prettier.config.mts", ".prettierrc.cjs",
      "prettier.config.cjs", ".prettierrc.cts",    "prettier.config.cts", ".prettierrc.toml"};
  return names;
}

Flags flags_for(std::string_view name, std::string_view text, std::string_view rel) {
  Flags out;
  const bool json_name = name == "package.json" || name == ".prettierrc" || name == ".prettierrc.json";
  std::optional<json> parsed;
  if (json_name) {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    if (!j.is_discarded()) parsed = std::move(j);
  }
  if (name == "package.json") {
    if (!parsed || !parsed->is_object() || !parsed->contains("prettier")) {
      out.is_config = false;
      return out;
    }
    parsed = json((*parsed)["prettier"]);
  } else if (name == "package.yaml") {
    // Its "prettier" member is YAML, which editd does not read; a package.yaml
    // without one is no configuration, and editd cannot tell: it is passed over.
    out.is_config = false;
    return out;
  }
  if (!parsed) {
    out.left_out.push_back(std::string("the configuration ") + std::string(name) +
                           " (editd passes on JSON configurations only)");
    return out;
  }
  if (parsed->is_string()) {
    out.left_out.push_back("a shared configuration (a module: " + parsed->get<std::string>() + ")");
    return out;
  }
  if (!parsed->is_object()) {
    out.left_out.push_back(std::string("the configuration ") + std::string(name) +
                           " (not an object)");
    return out;
  }
  std::map<std::string_view, json> chosen;
  take(*parsed, chosen, out.left_out);
  if (auto ov = parsed->find("overrides"); ov != parsed->end() && ov->is_array()) {
    for (const json& o : *ov) {
      if (!o.is_object() || !o.contains("files") || !matches(o["files"], rel)) continue;
      if (o.contains("excludeFiles") && matches(o["excludeFiles"], rel)) continue;
      if (auto opts = o.find("options"); opts != o.end() && opts->is_object())
        take(*opts, chosen, out.left_out);
    }
  }
  // In options()' order, so that the command line is the same for the same
  // configuration.
  for (const Option& o : options()) {
    auto it = chosen.find(o.name);
    if (it == chosen.end()) continue;
    const json& v = it->second;
    switch (o.type) {
      case Type::kInt:
        out.flags.push_back(std::string(o.flag));
        out.flags.push_back(std::to_string(v.get<std::int64_t>()));
        break;
      case Type::kTrueFlag:
        if (v.get<bool>()) out.flags.push_back(std::string(o.flag));
        break;
      case Type::kFalseFlag:
        if (!v.get<bool>()) out.flags.push_back(std::string(o.flag));
        break;
      case Type::kEnum:
        out.flags.push_back(std::string(o.flag));
        out.flags.push_back(v.get<std::string>());
        break;
    }
  }
  return out;
}

}  // namespace editd::prettier
