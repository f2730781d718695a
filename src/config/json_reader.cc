#include "config/json_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/json_refusal.h"
#include "config/reader_checks.h"

namespace msb {
namespace {

namespace od = simdjson::ondemand;

// simdjson's on-demand parser reads the text; this walks what it reads in document order into the
// located tree. Every token simdjson hands over points into the text, so a node's line and column
// follow from its offset, counting newlines once as the walk moves on. simdjson stops at the first
// token it refuses, which is the first syntax error: json_refusal.h words and places it. Content
// (duplicate keys, depth, NUL, numbers out of range) is judged as the walk goes, and the first
// such problem is reported once the whole text has proven to be JSON.
//
// The text is read as the one item of an array, "[" text "\n]": every document, a bare scalar
// too, is then walked alike, and a text that ends early runs into that closing bracket, which
// is where the error is placed (the end of the text).

// Maps with fewer keys find duplicates by a scan, which beats hashing at config sizes.
constexpr std::size_t kIndexedKeys = 8;
// The walk recurses once per level. Past 64 levels only syntax is checked; past this many, only
// simdjson's verdict is had, without a place.
constexpr std::size_t kMaxWalkDepth = 2048;

enum class Context { root, map, list };

const char* after_value(Context context) {
  if (context == Context::root) return "the end of the document";
  return context == Context::map ? "',' or '}'" : "',' or ']'";
}

// Line and column of offsets met in document order: each newline is looked for once, as the
// offsets pass it (an offset behind the last one starts over, for errors only).
class Locator {
 public:
  explicit Locator(std::string_view text) : text_(text) { restart(); }

  void place(std::size_t offset, std::uint32_t& line, std::uint32_t& column) {
    if (offset < line_start_) restart();
    while (next_newline_ < offset) {
      line_start_ = next_newline_ + 1;
      ++line_;
      next_newline_ = newline_from(line_start_);
    }
    line = line_;
    column = to_u32(offset - line_start_ + 1);
  }

 private:
  std::size_t newline_from(std::size_t from) const {
    const void* nl = std::memchr(text_.data() + from, '\n', text_.size() - from);
    return nl == nullptr ? SIZE_MAX
                         : static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data());
  }
  void restart() {
    line_start_ = 0;
    line_ = 1;
    next_newline_ = newline_from(0);
  }

  std::string_view text_;
  std::size_t line_start_ = 0;
  std::size_t next_newline_ = 0;
  std::uint32_t line_ = 1;
};

// A key path, built only when an error needs it.
struct PathLink {
  const PathLink* parent;
  std::string_view key;  // a map's key, or empty for a list's item
  std::size_t index;

  std::string str() const {
    std::string parent_path = parent == nullptr ? std::string() : parent->str();
    if (parent == nullptr) return parent_path;
    return key.data() != nullptr ? key_path_child(parent_path, key)
                                 : key_path_item(parent_path, index);
  }
};

class JsonWalker {
 public:
  JsonWalker(std::string_view text, bool build) : text_(text), locator_(text), build_(build) {}

  // The first syntax error (nullopt if the text is JSON); content() then has the first problem of
  // content. `deep` is set when the walk stopped at kMaxWalkDepth without an error before it.
  std::optional<ConfigError> walk(ConfigNode& root);
  std::optional<ConfigError>& content() { return content_; }
  bool deep() const { return deep_; }
  // simdjson's first pass refused the text as a whole: whole_text_error places why.
  bool whole_text() const { return whole_text_; }

 private:
  using Node = ConfigNode*;
  // A map's keys from kIndexedKeys on, with their index in entries.
  using Keys = std::unordered_map<std::string, std::size_t>;

  bool value(od::value v, Node node, const PathLink& path, std::size_t depth, Context context);
  bool map(od::value v, Node node, const PathLink& path, std::size_t depth, std::size_t at);
  bool entry(od::field& field, Node node, const PathLink& path, std::size_t depth, Keys& keys);
  bool check_key(Node node, const ConfigEntry& entry, const PathLink& path, Keys& keys);
  bool list(od::value v, Node node, const PathLink& path, std::size_t depth, std::size_t at);
  bool string(od::value v, Node node, const PathLink& path, std::size_t at);
  bool literal(od::value v, Node node, std::size_t at, Context context);
  bool number(od::value v, Node node, std::size_t at, Context context);
  bool structure(Context context, std::size_t from = 0);

  std::size_t offset_of(const char* p) const {
    const auto wrapped = static_cast<std::size_t>(p - base_);
    return std::min(wrapped == 0 ? 0 : wrapped - 1, text_.size());
  }
  // Where the parser stands, as an offset in the text; the end of the text once past it.
  std::size_t next_offset() {
    const std::size_t wrapped = wrapped_next();
    if (wrapped == SIZE_MAX) return text_.size();
    return std::min(wrapped == 0 ? 0 : wrapped - 1, text_.size());
  }
  // The same in the wrapped text, past its end once the parser is.
  std::size_t wrapped_next() {
    const char* p = nullptr;
    if (document_.current_location().get(p)) return SIZE_MAX;
    const auto wrapped = static_cast<std::size_t>(p - base_);
    // simdjson stays on a number it refused (one out of a double's range): what follows it.
    if (unread_number_ == SIZE_MAX || wrapped != unread_number_ + 1) return wrapped;
    const std::size_t next = text_.find_first_not_of(" \t\r\n", unread_number_end_);
    return next == std::string_view::npos ? closing_bracket() : next + 1;
  }
  std::size_t closing_bracket() const { return text_.size() + 2; }
  // After an item: the token that follows it, unless it is the wrapper's closing bracket.
  bool after_item(const char* expected) {
    const std::size_t next = wrapped_next();
    if (next >= closing_bracket()) return fail(text_.size(), expected);
    last_value_end_ = next - 1;
    return true;
  }
  // A container just opened whose closing bracket was the wrapper's.
  bool closed_by_wrapper() { return wrapped_next() > closing_bracket(); }
  bool too_deep(std::size_t offset) {
    deep_ = true;
    return fail(offset, "valid JSON (nested at most 2048 levels to be placed)");
  }
  bool fail(std::size_t offset, const char* expected) {
    syntax_ = error_at(offset, "", expected);
    return false;
  }
  ConfigError error_at(std::size_t offset, std::string path, std::string expected) {
    ConfigError e{0, 0, std::move(path), std::move(expected)};
    locator_.place(offset, e.line, e.column);
    return e;
  }
  // A content problem: the first is kept, and the tree is no longer built.
  void refuse(ConfigError error) {
    if (!content_) content_ = std::move(error);
  }
  Node building(Node node) const { return content_ ? nullptr : node; }

  std::string_view text_;
  Locator locator_;
  bool build_;
  const char* base_ = nullptr;
  od::document document_;
  std::size_t last_value_end_ = 0;  // the token after the last item read
  bool deep_ = false;
  bool whole_text_ = false;
  std::size_t unread_number_ = SIZE_MAX;
  std::size_t unread_number_end_ = 0;
  std::optional<ConfigError> syntax_;
  std::optional<ConfigError> content_;
};

std::optional<ConfigError> JsonWalker::walk(ConfigNode& root) {
  // The wrapped text with simdjson's padding, and a parser sized for it, made anew for each
  // text: kept per thread, their megabytes would stay with every thread that ever read a large
  // config, and in a same-run A/B (bench/config_json.cc) keeping them was slower, the tree's
  // memory being then given back to the system and faulted in again at every read.
  od::parser parser;
  std::string buffer;
  const std::size_t length = text_.size() + 3;
  buffer.resize(length + simdjson::SIMDJSON_PADDING);
  buffer[0] = '[';
  std::memcpy(buffer.data() + 1, text_.data(), text_.size());
  std::memcpy(buffer.data() + 1 + text_.size(), "\n]", 2);
  base_ = buffer.data();
  const simdjson::padded_string_view padded(buffer.data(), length, buffer.size());
  if (parser.allocate(length, kMaxWalkDepth + 2)) throw std::bad_alloc();
  od::array top;
  if (parser.iterate(padded).get(document_) || document_.get_array().get(top)) {
    whole_text_ = true;
    return std::nullopt;
  }
  const PathLink path{nullptr, {}, 0};
  const std::size_t first = std::min(text_.find_first_not_of(" \t\r\n"), text_.size());
  for (auto item : top) {
    od::value v;
    if (std::move(item).get(v)) return error_at(first, "", "a value");
    if (!value(v, build_ ? &root : nullptr, path, 0, Context::root)) {
      return syntax_;
    }
    if (next_offset() < text_.size()) return error_at(next_offset(), "", "the end of the document");
    return std::nullopt;
  }
  return error_at(std::min(first, text_.size()), "", "a value");
}

bool JsonWalker::value(od::value v, Node node, const PathLink& path, std::size_t depth,
                       Context context) {
  const std::size_t at = offset_of(v.raw_json_token().data());
  if (at >= text_.size()) return fail(text_.size(), "a value");
  if (node != nullptr) locator_.place(at, node->line, node->column);
  bool ok = true;
  switch (text_[at]) {
    case '{': ok = map(v, node, path, depth, at); break;
    case '[': ok = list(v, node, path, depth, at); break;
    case '"': ok = string(v, node, path, at); break;
    case 't':
    case 'f':
    case 'n': ok = literal(v, node, at, context); break;
    default: ok = number(v, node, at, context); break;
  }
  return ok;
}

// After a token simdjson refused between a container's items: what was missing, by what the
// last token before it was.
bool JsonWalker::structure(Context context, std::size_t from) {
  const std::size_t at = next_offset();
  const std::size_t before = text_.find_last_not_of(" \t\r\n", at == 0 ? 0 : at - 1);
  const char last = before == std::string_view::npos || at == 0 ? '[' : text_[before];
  if (context == Context::list)
    return fail(at, last == '[' || last == ',' ? "a value" : "',' or ']'");
  if (last == '{' || last == ',') return fail(at, "a string key");
  if (last == ':') return fail(at, "a value");
  if (last == '"' && at != last_value_end_) {
    // A key simdjson has not unescaped yet: a bad escape in it comes first.
    if (auto refusal = escape_refusal(text_, from, before)) {
      return fail(refusal->offset, refusal->expected);
    }
    return fail(at, "':' after the key");
  }
  return fail(at, "',' or '}'");
}

bool JsonWalker::map(od::value v, Node node, const PathLink& path, std::size_t depth,
                     std::size_t at) {
  if (depth >= kMaxWalkDepth) return too_deep(at);
  if (depth >= kMaxConfigDepth && build_) refuse(error_at(at, path.str(), depth_message()));
  od::object object;
  if (v.get_object().get(object)) return structure(Context::map, at);
  if (closed_by_wrapper()) return fail(text_.size(), "a string key");
  if ((node = building(node)) != nullptr) node->kind = NodeKind::map;
  Keys keys;
  std::size_t from = at;  // where the next key's token starts, or the comma before it
  for (auto field : object) {
    od::field f;
    if (std::move(field).get(f)) return structure(Context::map, from);
    if (!entry(f, building(node), path, depth, keys)) return false;
    if (!after_item("',' or '}'")) return false;
    from = last_value_end_;
  }
  return true;
}

bool JsonWalker::entry(od::field& field, Node node, const PathLink& path, std::size_t depth,
                       Keys& keys) {
  const std::string_view raw = field.key_raw_json_token();
  const std::size_t key_at = offset_of(raw.data());
  std::string_view key;
  if (field.unescaped_key(false).get(key)) {
    const auto refusal = escape_refusal(text_, key_at, key_at + raw.size());
    return fail(refusal ? refusal->offset : key_at, refusal ? refusal->expected : "a string key");
  }
  ConfigEntry* stored = nullptr;
  if (node != nullptr) {
    ConfigEntry entry;
    entry.key = key;
    locator_.place(key_at, entry.line, entry.column);
    if (check_key(node, entry, path, keys)) stored = &node->entries.emplace_back(std::move(entry));
  }
  const PathLink child{&path, stored != nullptr ? std::string_view(stored->key) : key, 0};
  return value(field.value(), building(stored != nullptr ? &stored->value : nullptr), child,
               depth + 1, Context::map);
}

// Errors about a key point at the key.
bool JsonWalker::check_key(Node node, const ConfigEntry& entry, const PathLink& path, Keys& keys) {
  if (const char* problem = text_problem(entry.key)) {
    refuse(ConfigError{entry.line, entry.column, path.str(), problem});
    return false;
  }
  const std::vector<ConfigEntry>& entries = node->entries;
  if (entries.size() == kIndexedKeys) {
    for (std::size_t i = 0; i < entries.size(); ++i) keys.emplace(entries[i].key, i);
  }
  const ConfigEntry* first = nullptr;
  if (entries.size() >= kIndexedKeys) {
    const auto [it, added] = keys.emplace(entry.key, entries.size());
    if (!added) first = &entries[it->second];
  } else {
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const ConfigEntry& e) { return e.key == entry.key; });
    if (it != entries.end()) first = &*it;
  }
  if (first == nullptr) return true;
  refuse(ConfigError{entry.line, entry.column, key_path_child(path.str(), entry.key),
                     duplicate_key_message(*first)});
  return false;
}

bool JsonWalker::list(od::value v, Node node, const PathLink& path, std::size_t depth,
                      std::size_t at) {
  if (depth >= kMaxWalkDepth) return too_deep(at);
  if (depth >= kMaxConfigDepth && build_) refuse(error_at(at, path.str(), depth_message()));
  od::array array;
  if (v.get_array().get(array)) return structure(Context::list);
  if (closed_by_wrapper()) return fail(text_.size(), "a value");
  if ((node = building(node)) != nullptr) node->kind = NodeKind::sequence;
  std::size_t index = 0;
  for (auto item : array) {
    od::value element;
    if (std::move(item).get(element)) return structure(Context::list);
    const PathLink child{&path, {}, index++};
    Node target = building(node) != nullptr ? &node->items.emplace_back() : nullptr;
    if (!value(element, target, child, depth + 1, Context::list)) return false;
    if (!after_item("',' or ']'")) return false;
  }
  return true;
}

bool JsonWalker::string(od::value v, Node node, const PathLink& path, std::size_t at) {
  std::string_view s;
  if (v.get_string().get(s)) {
    const std::string_view raw = v.raw_json_token();
    const auto refusal = escape_refusal(text_, at, at + raw.size());
    return fail(refusal ? refusal->offset : at, refusal ? refusal->expected : "a value");
  }
  if (!build_) return true;
  // simdjson has checked UTF-8 (escapes included) already; an escape can still spell NUL.
  if (s.find('\0') != std::string_view::npos) refuse(error_at(at, path.str(), text_problem(s)));
  if ((node = building(node)) == nullptr) return true;
  node->kind = NodeKind::string;
  node->text = s;
  return true;
}

bool JsonWalker::literal(od::value v, Node node, std::size_t at, Context context) {
  const char c = text_[at];
  const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
  bool flag = false;
  const bool ok = c == 'n' ? !v.is_null().get(flag) && flag : !v.get_bool().get(flag);
  if (!ok) {
    // simdjson reads "false/" as one refused token, where it is "false" and then junk.
    if (text_.substr(at, word.size()) == word) return fail(at + word.size(), after_value(context));
    return fail(at, "a value");
  }
  if (node != nullptr && c != 'n') {
    node->kind = NodeKind::boolean;
    node->boolean = flag;
    node->text = word;
  }
  return true;
}

bool JsonWalker::number(od::value v, Node node, std::size_t at, Context context) {
  const char c = text_[at];
  if (c != '-' && !is_dec(c)) return fail(at, "a value");
  double unused = 0;
  std::string_view written = v.raw_json_token();
  written = written.substr(0, written.find_last_not_of(" \t\r\n") + 1);
  if (v.get_double().get(unused)) {
    const JsonRefusal end = number_end(text_, at);
    written = text_.substr(at, end.offset - at);
    if (*end.expected != '\0') return fail(end.offset, end.expected);
    const std::size_t token_end = text_.find_first_of(" \t\r\n,]}", at);
    if (end.offset < std::min(token_end, text_.size())) {
      return fail(end.offset, after_value(context));
    }
    unread_number_ = at;
    unread_number_end_ = end.offset;
    if (number_overflows(written)) {
      if (build_) refuse(error_at(at, "", "valid JSON (a number in range)"));
      return true;
    }
  }
  if ((node = building(node)) == nullptr) return true;
  node->kind = NodeKind::number;
  node->text = written;
  return true;
}

// What simdjson's first pass refuses as a whole, placed: unless the text before it is already
// not JSON, the first bad byte, or where the string holding it starts when no string may start
// there.
std::optional<ConfigError> whole_text_error(std::string_view text) {
  const auto found = whole_text_refusal(text);
  if (!found) return std::nullopt;
  const JsonRefusal problem = found->refusal;
  const bool in_string = found->string_start != std::string_view::npos;
  const std::size_t stop = in_string ? found->string_start : problem.offset;
  const std::string_view before = text.substr(0, stop);
  ConfigNode unused;
  JsonWalker walker(before, false);
  std::optional<ConfigError> earlier = walker.walk(unused);
  const ConfigError at_problem = error_at_offset(text, problem.offset, problem.expected);
  if (!earlier) return error_at_offset(text, stop, "the end of the document");
  const ConfigError at_stop = error_at_offset(text, stop, "");
  if (earlier->line != at_stop.line || earlier->column != at_stop.column) return earlier;
  if (!in_string) return earlier;
  if (earlier->expected != "a value" && earlier->expected != "a string key") return earlier;
  const bool open_string = problem.offset == found->string_start;
  if (auto escape = escape_refusal(text, stop, open_string ? text.size() : problem.offset)) {
    return error_at_offset(text, escape->offset, escape->expected);
  }
  return at_problem;
}

std::optional<ConfigError> syntax_error(std::string_view text, ConfigNode& root, bool build,
                                        std::optional<ConfigError>* content) {
  JsonWalker walker(text, build);
  auto error = walker.walk(root);
  if (walker.whole_text()) {
    error = whole_text_error(text);
    if (!error) error = error_at_offset(text, 0, "a value");  // simdjson refused, unplaced
  }
  if (walker.deep()) {
    // Nested past what the walk follows: simdjson's own verdict, placed at the level the walk
    // stopped at when it is not JSON. A config is refused for its depth all the same.
    simdjson::dom::parser dom;
    const simdjson::padded_string padded(text);
    simdjson::dom::element unused;
    const bool json = !dom.allocate(text.size(), text.size()) && !dom.parse(padded).get(unused);
    if (json || walker.content()) error.reset();
  }
  if (content != nullptr) *content = std::move(walker.content());
  return error;
}

}  // namespace

Result<ConfigNode, ConfigError> parse_json(std::string_view text) {
  text = strip_bom(text);
  if (auto e = check_size(text)) return *e;
  try {
    ConfigNode root;
    std::optional<ConfigError> content;
    if (auto e = syntax_error(text, root, true, &content)) return *e;
    if (content) return *content;
    return root;
  } catch (const std::exception&) {  // allocation failure
    return ConfigError{0, 0, "", "a config small enough to parse"};
  }
}

std::optional<ConfigError> json_syntax_error(std::string_view text) {
  ConfigNode unused;
  return syntax_error(strip_bom(text), unused, false, nullptr);
}

}  // namespace msb
