// prettier's configuration as editd passes it on: formatting options only, as
// flags; plugins, shared configurations, code and unknown options left out.
#include "server/checks/prettier.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace editd;

using Words = std::vector<std::string>;

TEST_CASE("prettier: which commands run it, and which choose their configuration") {
  CHECK(prettier::runs_prettier({"/opt/fmt/node_modules/.bin/prettier", "--stdin-filepath", "x"}));
  CHECK(prettier::runs_prettier({"/usr/bin/node", "/opt/p/node_modules/prettier/bin/prettier.cjs"}));
  CHECK_FALSE(prettier::runs_prettier({"/usr/bin/black", "-q", "-"}));
  CHECK_FALSE(prettier::runs_prettier({"/usr/bin/node", "/opt/other.js", "prettier"}));
  CHECK(prettier::chooses_config({"prettier", "--no-config"}));
  CHECK(prettier::chooses_config({"prettier", "--config", "/etc/prettier.json"}));
  CHECK(prettier::chooses_config({"prettier", "--config=/etc/prettier.json"}));
  CHECK_FALSE(prettier::chooses_config({"prettier", "--stdin-filepath", "./a.ts"}));
}

TEST_CASE("prettier: a JSON configuration's options become flags, in a fixed order") {
  auto f = prettier::flags_for(".prettierrc",
                               R"({"semi": false, "singleQuote": true, "printWidth": 100,
                                   "trailingComma": "es5", "useTabs": false, "$schema": "x"})",
                               "src/a.ts");
  CHECK(f.is_config);
  CHECK(f.flags == Words{"--print-width", "100", "--single-quote", "--no-semi",
                         "--trailing-comma", "es5"});
  CHECK(f.left_out.empty());
}

TEST_CASE("prettier: plugins, unknown options, bad values and foreign parsers are left out") {
  auto f = prettier::flags_for(".prettierrc.json",
                               R"({"plugins": ["./plugin.mjs"], "tabWidth": 4,
                                   "parser": "./my-parser.js", "printWidth": "80; rm -rf /",
                                   "pluginSearchDirs": ["."], "arrowParens": "avoid"})",
                               "a.ts");
  CHECK(f.flags == Words{"--tab-width", "4", "--arrow-parens", "avoid"});
  CHECK(f.left_out.size() == 4);
  CHECK(std::find(f.left_out.begin(), f.left_out.end(), "plugins") != f.left_out.end());
}

TEST_CASE("prettier: overrides that match the file apply, in order; others do not") {
  const char* config = R"({"tabWidth": 2,
      "overrides": [
        {"files": "*.ts", "options": {"tabWidth": 8, "plugins": ["x"]}},
        {"files": ["legacy/**/*.ts"], "excludeFiles": "legacy/keep/*.ts",
         "options": {"semi": false}},
        {"files": "*.md", "options": {"proseWrap": "always"}}]})";
  auto a = prettier::flags_for(".prettierrc", config, "src/a.ts");
  CHECK(a.flags == Words{"--tab-width", "8"});
  auto b = prettier::flags_for(".prettierrc", config, "legacy/old/b.ts");
  CHECK(b.flags == Words{"--tab-width", "8", "--no-semi"});
  auto c = prettier::flags_for(".prettierrc", config, "legacy/keep/c.ts");
  CHECK(c.flags == Words{"--tab-width", "8"});
  auto d = prettier::flags_for(".prettierrc", config, "README.md");
  CHECK(d.flags == Words{"--tab-width", "2", "--prose-wrap", "always"});
}

TEST_CASE("prettier: package.json, YAML, code and shared configurations") {
  // package.json without "prettier" is no configuration: the search goes on.
  auto none = prettier::flags_for("package.json", R"({"name": "x"})", "a.ts");
  CHECK_FALSE(none.is_config);
  auto pkg = prettier::flags_for("package.json", R"({"prettier": {"semi": false}})", "a.ts");
  CHECK(pkg.is_config);
  CHECK(pkg.flags == Words{"--no-semi"});
  // A shared configuration is a module: code.
  auto shared = prettier::flags_for("package.json", R"({"prettier": "@company/prettier"})", "a.ts");
  CHECK(shared.is_config);
  CHECK(shared.flags.empty());
  CHECK(shared.left_out.size() == 1);
  // YAML in .prettierrc, and code: nothing passed on, the search ends there.
  auto yaml = prettier::flags_for(".prettierrc", "semi: false\n", "a.ts");
  CHECK(yaml.is_config);
  CHECK(yaml.flags.empty());
  CHECK(yaml.left_out.size() == 1);
  auto code = prettier::flags_for("prettier.config.mjs", "export default {semi: false}", "a.ts");
  CHECK(code.is_config);
  CHECK(code.flags.empty());
  // Comments in a JSON configuration are allowed, as prettier allows them.
  auto commented = prettier::flags_for(".prettierrc.json", "// mine\n{\"semi\": false}", "a.ts");
  CHECK(commented.flags == Words{"--no-semi"});
}
