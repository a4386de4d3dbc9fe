#include "protocol/error.h"

#include <array>

namespace editd {
namespace {

struct KindInfo {
  ErrorKind kind;
  std::string_view name;
  int code;
};

constexpr std::array kKinds = {
    KindInfo{ErrorKind::kParseError, "parse_error", -32700},
    KindInfo{ErrorKind::kInvalidRequest, "invalid_request", -32600},
    KindInfo{ErrorKind::kMethodNotFound, "method_not_found", -32601},
    KindInfo{ErrorKind::kInvalidParams, "invalid_params", -32602},
    KindInfo{ErrorKind::kInternal, "internal", -32603},
    KindInfo{ErrorKind::kUnauthenticated, "unauthenticated", -32000},
    KindInfo{ErrorKind::kNotFound, "not_found", -32002},
    KindInfo{ErrorKind::kCancelled, "cancelled", -32800},
    KindInfo{ErrorKind::kConflict, "conflict", -32010},
    KindInfo{ErrorKind::kStale, "stale", -32011},
    KindInfo{ErrorKind::kNoMatch, "no_match", -32020},
    KindInfo{ErrorKind::kAmbiguous, "ambiguous", -32021},
    KindInfo{ErrorKind::kNoChange, "no_change", -32022},
    KindInfo{ErrorKind::kExists, "exists", -32030},
    KindInfo{ErrorKind::kOutsideRoot, "outside_root", -32031},
    KindInfo{ErrorKind::kDenied, "denied", -32032},
    KindInfo{ErrorKind::kNotText, "not_text", -32033},
    KindInfo{ErrorKind::kTooLarge, "too_large", -32034},
    KindInfo{ErrorKind::kIsDirectory, "is_directory", -32035},
    KindInfo{ErrorKind::kLineOutOfRange, "line_out_of_range", -32036},
    KindInfo{ErrorKind::kPatchParse, "patch_parse", -32040},
    KindInfo{ErrorKind::kPatchApply, "patch_apply", -32041},
    KindInfo{ErrorKind::kIo, "io", -32050},
    KindInfo{ErrorKind::kTimeout, "timeout", -32051},
    KindInfo{ErrorKind::kDelegateFailed, "delegate_failed", -32052},
    KindInfo{ErrorKind::kUnsupported, "unsupported", -32060},
};

const KindInfo& info(ErrorKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[4];  // internal
}

}  // namespace

std::string_view kind_name(ErrorKind kind) { return info(kind).name; }
int kind_code(ErrorKind kind) { return info(kind).code; }

std::optional<ErrorKind> kind_from_name(std::string_view name) {
  for (const auto& k : kKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

std::optional<ErrorKind> kind_from_code(int code) {
  for (const auto& k : kKinds)
    if (k.code == code) return k.kind;
  return std::nullopt;
}

namespace {

// The Input a mention's letter stands for; nullopt for a letter no Input has.
std::optional<Input> mentioned(char letter) {
  const int i = letter - 'a';
  if (i < 0 || i > static_cast<int>(Input::kSymbol)) return std::nullopt;
  return static_cast<Input>(i);
}

void name_in(nlohmann::json& j, const InputNames& names) {
  if (j.is_string()) {
    name_inputs(j.get_ref<std::string&>(), names);
  } else if (j.is_structured()) {
    for (nlohmann::json& v : j) name_in(v, names);
  }
}

}  // namespace

std::string_view InputNames::operator()(Input input) const {
  switch (input) {
    case Input::kNone:
      return "";
    case Input::kOldText:
      return old_text;
    case Input::kNewText:
      return new_text;
    case Input::kEdits:
      return edits;
    case Input::kLineEndings:
      return line_endings;
    case Input::kBom:
      return bom;
    case Input::kFinalNewline:
      return final_newline;
    case Input::kSymbol:
      return symbol;
  }
  return "";
}

const InputNames& InputNames::mentions() {
  static const InputNames kMentions{mention(Input::kOldText), mention(Input::kNewText),
                                    mention(Input::kEdits),   mention(Input::kLineEndings),
                                    mention(Input::kBom),     mention(Input::kFinalNewline),
                                    mention(Input::kSymbol)};
  return kMentions;
}

void name_inputs(std::string& s, const InputNames& names) {
  std::size_t at = s.find(kMentionMark);
  if (at == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  std::size_t from = 0;
  while (at != std::string::npos) {
    out.append(s, from, at - from);
    const std::size_t letter = at + kMentionMark.size();
    const std::optional<Input> input = letter < s.size() ? mentioned(s[letter]) : std::nullopt;
    if (input) {
      out += names(*input);
      from = letter + 1;
    } else {  // a U+FDD0 that is no mention: kept
      out += kMentionMark;
      from = letter;
    }
    at = s.find(kMentionMark, from);
  }
  out.append(s, from);
  s = std::move(out);
}

void name_inputs(Error& e, const InputNames& names) {
  name_inputs(e.message, names);
  name_in(e.data, names);
}

nlohmann::json Error::wire_data() const {
  nlohmann::json out = nlohmann::json::object();
  out["kind"] = kind_name(kind);
  if (data.is_object())
    for (auto it = data.begin(); it != data.end(); ++it)
      if (it.key() != "kind") out[it.key()] = it.value();
  name_in(out, InputNames{});
  return out;
}

namespace {

// "invalid param 'NAME': " before the problem, and data.param.
void name_param(Error& e, std::string_view param) {
  e.message = "invalid param '" + std::string(param) + "': " + e.message;
  e.data["param"] = param;
}

}  // namespace

Error invalid_param(std::string_view param, std::string_view problem) {
  Error e(ErrorKind::kInvalidParams, std::string(problem));
  name_param(e, param);
  return e;
}

std::string_view param_name(Input input, const InputNames& names) { return names(input); }

Error name_input(Error e, const InputNames& names) {
  if (e.kind == ErrorKind::kInvalidParams && e.input != Input::kNone)
    name_param(e, param_name(e.input, names));
  return e;
}

}  // namespace editd
