#include "protocol/error.h"

#include <doctest/doctest.h>

using namespace editd;

TEST_CASE("invalid_param names the param in the message and in data.param") {
  Error e = invalid_param("cwd", "must be an absolute path");
  CHECK(e.kind == ErrorKind::kInvalidParams);
  CHECK(e.message == "invalid param 'cwd': must be an absolute path");
  CHECK(e.data == nlohmann::json({{"param", "cwd"}}));
}

TEST_CASE("an edit/ input is named as the request param that carries it") {
  CHECK(param_name(Input::kOldText) == "oldText");
  CHECK(param_name(Input::kNewText) == "newText");
  CHECK(param_name(Input::kEdits) == "edits");
  CHECK(param_name(Input::kLineEndings) == "lineEndings");
  CHECK(param_name(Input::kBom) == "bom");
  CHECK(param_name(Input::kFinalNewline) == "finalNewline");
  CHECK(param_name(Input::kNone) == "");
}

TEST_CASE("name_input gives an invalid input the shape invalid_param gives a param") {
  Error e = name_input(invalid_input(Input::kEdits, "edit 2: empty", {{"edit", 2}}));
  CHECK(e.message == "invalid param 'edits': edit 2: empty");
  CHECK(e.data == nlohmann::json({{"param", "edits"}, {"edit", 2}}));
  Error direct = invalid_param("oldText", "must not be empty");
  Error named = name_input(invalid_input(Input::kOldText, "must not be empty"));
  CHECK(named.message == direct.message);
  CHECK(named.data == direct.data);
  CHECK(named.wire_data() == direct.wire_data());
}

TEST_CASE("name_input leaves an error about no input as it is") {
  Error e = name_input(Error(ErrorKind::kNoMatch, "not found", {{"hint", "h"}}));
  CHECK(e.message == "not found");
  CHECK(e.data == nlohmann::json({{"hint", "h"}}));
  Error other = Error(ErrorKind::kInvalidParams, "as it is");
  CHECK(name_input(other).message == "as it is");
}

TEST_CASE("name_inputs names every mention in the message and in data's strings, at any depth") {
  const std::string old_text = mention(Input::kOldText), new_text = mention(Input::kNewText);
  Error e(ErrorKind::kNoMatch, old_text + " was not found; copy " + old_text + " exactly",
          {{"hint", new_text + " is already in the file"},
           {"candidates", {{{"text", "line 1"}, {"why", {"see " + old_text}}}}},
           {"lines", {1, 2}},
           {"exact", true}});
  name_inputs(e);
  CHECK(e.message == "oldText was not found; copy oldText exactly");
  CHECK(e.data == nlohmann::json({{"hint", "newText is already in the file"},
                                  {"candidates", {{{"text", "line 1"}, {"why", {"see oldText"}}}}},
                                  {"lines", {1, 2}},
                                  {"exact", true}}));
}

TEST_CASE("a door's names stand: name_inputs is idempotent, and the defaults find nothing left") {
  Error e(ErrorKind::kAmbiguous, mention(Input::kOldText) + " matches 2 regions",
          {{"hint", "add lines to " + mention(Input::kOldText)}});
  name_inputs(e, InputNames{.old_text = "old_str", .new_text = "new_str"});
  CHECK(e.message == "old_str matches 2 regions");
  const Error once = e;
  name_inputs(e);  // as every wire encoding does after the door
  name_inputs(e, InputNames{.old_text = "old_str", .new_text = "new_str"});
  CHECK(e.message == once.message);
  CHECK(e.data == once.data);
  CHECK(e.data["hint"] == "add lines to old_str");
}

TEST_CASE("a string without a mention, or with a U+FDD0 that is none, is left as it is") {
  std::string plain = "oldText \xef\xb7\x91 caf\xc3\xa9";
  name_inputs(plain);
  CHECK(plain == "oldText \xef\xb7\x91 caf\xc3\xa9");
  std::string lone = std::string(kMentionMark) + "!" + "x" + std::string(kMentionMark);
  const std::string kept = lone;
  name_inputs(lone);
  CHECK(lone == kept);
  Error e(ErrorKind::kNoMatch, "not found", {{"hint", "h"}, {"n", 3}});
  name_inputs(e);
  CHECK(e.message == "not found");
  CHECK(e.data == nlohmann::json({{"hint", "h"}, {"n", 3}}));
}

TEST_CASE("every mention is valid UTF-8, named by param_name's names, and wire_data names them") {
  for (Input input : {Input::kOldText, Input::kNewText, Input::kEdits, Input::kLineEndings,
                      Input::kBom, Input::kFinalNewline}) {
    CAPTURE(static_cast<int>(input));
    std::string m = mention(input);
    CHECK(nlohmann::json(m).dump() == "\"" + m + "\"");  // serialises, no throw
    CHECK(m.find("Text") == std::string::npos);
    name_inputs(m);
    CHECK(m == param_name(input));
    CHECK(param_name(input, InputNames::mentions()) == mention(input));
  }
  Error e = name_input(invalid_input(Input::kNewText, "must be text"), InputNames::mentions());
  CHECK(e.wire_data() ==
        nlohmann::json({{"kind", "invalid_params"}, {"param", "newText"}}));
  name_inputs(e, InputNames{.new_text = "new_str"});
  CHECK(e.message == "invalid param 'new_str': must be text");
  CHECK(e.data["param"] == "new_str");
}
