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
