#include "server/checks/lsp_wire.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "server/checks/lsp_client.h"

namespace editd {

using json = nlohmann::json;

std::string file_uri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> path_of_uri(std::string_view uri) {
  if (!uri.starts_with("file://")) return std::nullopt;
  uri.remove_prefix(7);
  if (uri.starts_with("localhost/")) uri.remove_prefix(9);
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && value(uri[i + 1]) >= 0 && value(uri[i + 2]) >= 0) {
      out += static_cast<char>(value(uri[i + 1]) * 16 + value(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string language_id(const std::string& path) {
  auto dot = path.rfind('.');
  auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "plaintext";
  std::string ext = path.substr(dot + 1);
  static const std::map<std::string, std::string> kIds = {{"c", "c"},
                                                          {"h", "cpp"},
                                                          {"cc", "cpp"},
                                                          {"cpp", "cpp"},
                                                          {"cxx", "cpp"},
                                                          {"hh", "cpp"},
                                                          {"hpp", "cpp"},
                                                          {"hxx", "cpp"},
                                                          {"m", "objective-c"},
                                                          {"mm", "objective-cpp"},
                                                          {"py", "python"},
                                                          {"pyi", "python"},
                                                          {"js", "javascript"},
                                                          {"mjs", "javascript"},
                                                          {"cjs", "javascript"},
                                                          {"jsx", "javascriptreact"},
                                                          {"ts", "typescript"},
                                                          {"mts", "typescript"},
                                                          {"tsx", "typescriptreact"},
                                                          {"go", "go"},
                                                          {"rs", "rust"},
                                                          {"java", "java"},
                                                          {"rb", "ruby"},
                                                          {"sh", "shellscript"},
                                                          {"json", "json"},
                                                          {"md", "markdown"},
                                                          {"cs", "csharp"},
                                                          {"swift", "swift"},
                                                          {"kt", "kotlin"},
                                                          {"lua", "lua"},
                                                          {"php", "php"},
                                                          {"zig", "zig"}};
  auto it = kIds.find(ext);
  return it == kIds.end() ? ext : it->second;
}


namespace lsp {

namespace {

constexpr std::size_t kMaxNameBytes = 1024;  // nobody names a symbol with more

// A SAX reader (nlohmann::json::sax_parse) that builds the message's JSON,
// except a response's array `result`, which it reads as symbols: no tree of
// JSON values is ever built for an answer of thousands of symbols, and nothing
// is searched or copied per value (the callback parser of nlohmann::json scans
// an array for discarded values after each of its elements: the square of an
// answer's length).
class Reader {
 public:
  Reader(Message& out, int max_depth, std::size_t max_symbols, std::size_t max_bytes,
         const std::vector<std::int64_t>& json_results)
      : out_(out),
        max_depth_(max_depth),
        max_symbols_(max_symbols),
        max_bytes_(max_bytes),
        json_results_(json_results) {}

  bool null() { return value(json(nullptr)); }
  bool boolean(bool b) { return value(json(b)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return value(json(v)); }
  bool string(std::string& v) { return value(json(std::move(v))); }
  bool binary(json::binary_t&) { return value(json()); }
  bool key(std::string& k) {
    if (skip_ > 0) return true;
    if (!frames_.empty()) frames_.back().key = std::move(k);
    else key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  // What a value inside the symbols is, by where it stands.
  enum class Kind { kList, kSymbol, kLocation, kSpan, kPosition };
  struct Frame {
    explicit Frame(Kind k) : kind(k) {}
    Kind kind;
    std::string key;  // an object's last key
    symbols::Reported symbol;  // kSymbol
    bool named = false, ranged = false;
    std::size_t count_before = 0, bytes_before = 0;  // kSymbol: to drop it with its children
    bool truncated_before = false;
    bool selection = false;  // kSpan: the selectionRange (else the range)
    bool end = false;        // kPosition: the end (else the start)
    std::optional<symbols::Position> start_at, end_at;    // kSpan
    std::optional<std::uint64_t> line, character;         // kPosition
  };

  // Where the values of the DOM part go: the innermost open container.
  bool value(json v) {
    if (skip_ > 0) return true;
    if (!frames_.empty()) return symbol_value(v);
    if (static_cast<int>(dom_.size()) > max_depth_) return true;
    if (dom_.size() == 1 && key_ == "id" && v.is_number_integer()) id_ = v.get<std::int64_t>();
    place(std::move(v));
    return true;
  }
  json* place(json v) {
    if (dom_.empty()) {
      out_.json = std::move(v);
      return &out_.json;
    }
    json& parent = *dom_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }

  bool open(bool object) {
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    if (!frames_.empty()) return symbol_open(object);
    if (static_cast<int>(dom_.size()) >= max_depth_) {
      ++skip_;
      return true;
    }
    // The top-level object's "result", an array: symbols, unless its id says
    // it answers a request of another list.
    if (!object && dom_.size() == 1 && dom_.back()->is_object() && key_ == "result" &&
        !(id_ &&
          std::find(json_results_.begin(), json_results_.end(), *id_) != json_results_.end())) {
      out_.symbols.emplace();
      frames_.push_back(Frame(Kind::kList));
      return true;
    }
    dom_.push_back(place(object ? json::object() : json::array()));
    return true;
  }

  bool close() {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    if (!frames_.empty()) return symbol_close();
    if (!dom_.empty()) dom_.pop_back();
    return true;
  }

  Frame* symbol_frame() {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->kind == Kind::kSymbol) return &*it;
    return nullptr;
  }

  bool symbol_value(const json& v) {
    Frame& f = frames_.back();
    if (f.kind == Kind::kSymbol) {
      if (f.key == "name" && v.is_string()) {
        f.symbol.name = v.get_ref<const std::string&>().substr(0, kMaxNameBytes);
        f.named = true;
      } else if (f.key == "kind") {
        f.symbol.kind = v.is_number_unsigned() && v.get<std::uint64_t>() <= 64
                            ? static_cast<std::uint32_t>(v.get<std::uint64_t>())
                            : 0;
      }
    } else if (f.kind == Kind::kPosition && v.is_number_unsigned()) {
      if (f.key == "line") f.line = v.get<std::uint64_t>();
      if (f.key == "character") f.character = v.get<std::uint64_t>();
    }
    return true;
  }

  bool symbol_open(bool object) {
    Frame& f = frames_.back();
    const std::string& k = f.key;
    std::optional<Frame> next;
    if (f.kind == Kind::kList && object) {
      SymbolList& list = *out_.symbols;
      if (list.count >= max_symbols_ || list.bytes >= max_bytes_) {
        list.truncated = true;
      } else {
        next = Frame(Kind::kSymbol);
        next->count_before = list.count++;
        next->bytes_before = list.bytes;
        next->truncated_before = list.truncated;
      }
    } else if (f.kind == Kind::kSymbol && object && (k == "range" || k == "selectionRange")) {
      next = Frame(Kind::kSpan);
      next->selection = k == "selectionRange";
    } else if (f.kind == Kind::kSymbol && object && k == "location") {
      next = Frame(Kind::kLocation);
      flat_ = true;
    } else if (f.kind == Kind::kSymbol && !object && k == "children" &&
               depth_ < symbols::kMaxDepth) {
      next = Frame(Kind::kList);
    } else if (f.kind == Kind::kLocation && object && k == "range") {
      next = Frame(Kind::kSpan);
    } else if (f.kind == Kind::kSpan && object && (k == "start" || k == "end")) {
      next = Frame(Kind::kPosition);
      next->end = k == "end";
    }
    if (!next) {
      ++skip_;
      return true;
    }
    if (next->kind == Kind::kList && f.kind == Kind::kSymbol) ++depth_;
    frames_.push_back(std::move(*next));
    return true;
  }

  bool symbol_close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    SymbolList& list = *out_.symbols;
    switch (f.kind) {
      case Kind::kList:
        if (frames_.empty()) {  // the result's own list
          if (flat_) list.roots = symbols::nest(std::move(list.roots));
        } else {
          --depth_;
        }
        break;
      case Kind::kPosition:
        if (f.line && f.character)
          (f.end ? frames_.back().end_at : frames_.back().start_at) =
              symbols::Position{*f.line, *f.character};
        break;
      case Kind::kSpan:
        if (f.start_at && f.end_at) {
          Frame* s = symbol_frame();
          const symbols::Span span{*f.start_at, *f.end_at};
          if (f.selection) {
            s->symbol.selection = span;
          } else {
            s->symbol.range = span;
            s->ranged = true;
          }
        }
        break;
      case Kind::kLocation:
        break;
      case Kind::kSymbol: {
        if (!f.named || !f.ranged) {  // not a symbol: dropped, with what it held
          list.count = f.count_before;
          list.bytes = f.bytes_before;
          list.truncated = f.truncated_before;
          break;
        }
        list.bytes += sizeof(symbols::Reported) + f.symbol.name.size();
        Frame* parent = frames_.size() >= 2 ? &frames_[frames_.size() - 2] : nullptr;
        (parent ? parent->symbol.children : list.roots).push_back(std::move(f.symbol));
        break;
      }
    }
    return true;
  }

  Message& out_;
  const int max_depth_;
  const std::size_t max_symbols_, max_bytes_;
  const std::vector<std::int64_t>& json_results_;
  std::optional<std::int64_t> id_;  // the message's "id", once read
  std::vector<json*> dom_;   // the open containers of the DOM part
  std::string key_;          // the DOM's last key
  std::vector<Frame> frames_;  // the open values of the symbols, innermost last
  std::size_t skip_ = 0;     // open containers being skipped
  std::size_t depth_ = 0;    // of the symbols being read
  bool flat_ = false;        // SymbolInformation: nested after
};

}  // namespace

Message parse_message(std::string_view bytes, int max_depth, std::size_t max_symbols,
                      std::size_t max_symbol_bytes, const std::vector<std::int64_t>& json_results) {
  Message out;
  Reader reader(out, max_depth, max_symbols, max_symbol_bytes, json_results);
  if (!json::sax_parse(bytes.begin(), bytes.end(), &reader)) {
    out.json = json(json::value_t::discarded);
    out.symbols.reset();
  }
  return out;
}

std::size_t symbol_bytes(const std::vector<symbols::Reported>& list) {
  std::size_t n = 0;
  for (const symbols::Reported& r : list)
    n += sizeof(symbols::Reported) + r.name.size() + symbol_bytes(r.children);
  return n;
}

namespace {

std::optional<symbols::Position> position_of(const json& p) {
  if (!p.is_object()) return std::nullopt;
  auto line = p.find("line");
  auto character = p.find("character");
  if (line == p.end() || character == p.end() || !line->is_number_unsigned() ||
      !character->is_number_unsigned())
    return std::nullopt;
  return symbols::Position{line->get<std::uint64_t>(), character->get<std::uint64_t>()};
}

}  // namespace

std::optional<std::vector<TextEdit>> text_edits(const json& result) {
  std::vector<TextEdit> edits;
  if (result.is_null()) return edits;
  if (!result.is_array()) return std::nullopt;
  for (const json& item : result) {
    if (!item.is_object()) return std::nullopt;
    auto range = item.find("range");
    auto text = item.find("newText");
    if (range == item.end() || !range->is_object() || text == item.end() || !text->is_string())
      return std::nullopt;
    auto start = position_of(range->value("start", json()));
    auto end = position_of(range->value("end", json()));
    if (!start || !end) return std::nullopt;
    edits.push_back(TextEdit{{*start, *end}, text->get<std::string>()});
  }
  return edits;
}

Result<std::string> apply_text_edits(std::string_view text, std::vector<TextEdit> edits,
                                     symbols::Encoding encoding, symbols::LineBreaks breaks,
                                     std::size_t max_bytes) {
  struct Placed {
    std::size_t begin, end;
    std::string* text;
  };
  const symbols::LineIndex index(text, breaks);
  std::vector<Placed> placed;
  placed.reserve(edits.size());
  for (TextEdit& e : edits) {
    const std::size_t b = index.offset(e.range.start, encoding);
    const std::size_t x = index.offset(e.range.end, encoding);
    if (x < b)
      return Error(ErrorKind::kDelegateFailed,
                   "an edit's range ends (line " + std::to_string(e.range.end.line) +
                       ") before it starts (line " + std::to_string(e.range.start.line) + ")");
    placed.push_back({b, x, &e.new_text});
  }
  // Stable: insertions at one point stay in the order they came.
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::string out;
  std::size_t at = 0;  // of `text`, copied up to here
  const Placed* last = nullptr;
  for (const Placed& p : placed) {
    if (last && last->begin == p.begin && last->end == p.end && *last->text == *p.text &&
        p.begin < p.end)
      continue;  // the same edit in the answers of two ranges
    if (p.begin < at)
      return Error(ErrorKind::kDelegateFailed, "its edits overlap (around line " +
                                                   std::to_string(index.editd_line(p.begin)) + ")");
    out.append(text.substr(at, p.begin - at));
    out.append(*p.text);
    at = p.end;
    last = &p;
    if (out.size() > max_bytes) break;
  }
  out.append(text.substr(at));
  if (out.size() > max_bytes)
    return Error(ErrorKind::kDelegateFailed,
                 "the formatted text would be over " + std::to_string(max_bytes) + " bytes");
  return out;
}

symbols::Position lsp_position(std::string_view text, std::size_t offset,
                               symbols::LineBreaks breaks, symbols::Encoding encoding) {
  offset = std::min(offset, text.size());
  symbols::Position p;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    const char c = text[i];
    std::size_t width = 0;  // of a line break at i
    if (c == '\n') {
      width = 1;
    } else if (c == '\r' && breaks != symbols::LineBreaks::kLf) {
      width = i + 1 < offset && text[i + 1] == '\n' ? 2 : 1;
    } else if (breaks == symbols::LineBreaks::kLspAndUnicode && c == '\xE2' && i + 2 < offset &&
               text[i + 1] == '\x80' && (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      width = 3;
    }
    if (width == 0) continue;
    ++p.line;
    i += width - 1;
    line_start = i + 1;
  }
  for (std::size_t i = line_start; i < offset; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (encoding == symbols::Encoding::kUtf8)
      ++p.character;
    else if ((c & 0xC0) != 0x80)
      p.character += encoding == symbols::Encoding::kUtf16 && c >= 0xF0 ? 2 : 1;
  }
  return p;
}

}  // namespace lsp

}  // namespace editd
