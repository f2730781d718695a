#include "search/unicode_classes.h"

#include <optional>
#include <vector>

namespace msb {
namespace {

// The members of each class, as they go inside a bracketed set.
constexpr std::string_view kWord =
    "\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}";
constexpr std::string_view kSpace = "\\t\\n\\x0B\\f\\r\\x{85}\\p{Z}";

// A word boundary (or, `complement`, its absence) as look-around on the `\w` class: a word
// character on exactly one side (or on both or neither). Built by appends, not `+` chains.
std::string boundary_assertion(bool complement) {
  std::string word;
  word.append("[").append(kWord).append("]");
  std::string out;
  out.append("(?:(?<=").append(word).append(complement ? ")(?=" : ")(?!").append(word);
  out.append(")|(?<!").append(word).append(complement ? ")(?!" : ")(?=").append(word).append("))");
  return out;
}
const std::string kBoundary = boundary_assertion(false);
const std::string kNotBoundary = boundary_assertion(true);

// The three forms written at once: the same text, but for Unicode boundaries.
class Forms {
 public:
  Forms& append(std::string_view text) {
    out_.re2.append(text);
    out_.loose.append(text);
    out_.pcre2.append(text);
    return *this;
  }
  Forms& push_back(char c) { return append(std::string_view(&c, 1)); }

  // `quantified`: a repetition follows, which needs something to repeat. Otherwise the loose
  // form leaves nothing, so that RE2 still sees a literal prefix ("\\bfoo" as "foo").
  void boundary(char letter, bool quantified) {
    out_.re2.push_back('\\');
    out_.re2.push_back(letter);
    if (quantified) out_.loose.append("(?:)");
    out_.pcre2.append(letter == 'b' ? kBoundary : kNotBoundary);
    has_boundary_ = true;
  }

  UnicodePattern take() {
    if (!has_boundary_) {
      out_.loose.clear();
      out_.pcre2.clear();
    }
    return std::move(out_);
  }

 private:
  UnicodePattern out_;
  bool has_boundary_ = false;
};

Error negated_in_set(std::size_t at) {
  Error e{Errc::invalid_pattern};
  e.pattern_problem = "negated-class-in-set";
  e.offset = at;
  return e;
}

// One pass over the pattern, copying it with the classes replaced. Groups are followed only to
// know where a scoped `(?-u:...)` ends; everything else is RE2's to judge.
class Rewrite {
 public:
  explicit Rewrite(std::string_view pattern) : in_(pattern) {}

  Result<UnicodePattern> run() {
    while (i_ < in_.size()) {
      const char c = in_[i_];
      if (c == '\\') {
        if (auto st = escape(); !st) return st.error();
      } else if (c == '[' && set_depth_ == 0) {
        open_set();
      } else if (c == '[' && set_depth_ > 0 && in_.substr(i_, 2) == "[:") {
        posix_class();
      } else if (c == ']' && set_depth_ > 0) {
        close_set();
      } else if (c == '(' && set_depth_ == 0) {
        open_group();
      } else if (c == ')' && set_depth_ == 0) {
        close_group();
      } else {
        out_.push_back(c);
        ++i_;
      }
    }
    return out_.take();
  }

 private:
  bool unicode() const { return unicode_.back(); }

  Status escape() {
    if (i_ + 1 >= in_.size()) {  // a trailing backslash: RE2 says so
      out_.append(in_.substr(i_));
      i_ = in_.size();
      return ok_status();
    }
    const char letter = in_[i_ + 1];
    if (letter == 'Q') return quoted();
    if ((letter == 'b' || letter == 'B') && unicode() && set_depth_ == 0) {
      const char next = i_ + 2 < in_.size() ? in_[i_ + 2] : '\0';
      out_.boundary(letter, next == '*' || next == '+' || next == '?' || next == '{');
      i_ += 2;
      return ok_status();
    }
    if (!unicode() || std::string_view("dDsSwW").find(letter) == std::string_view::npos) {
      out_.append(in_.substr(i_, 2));
      i_ += 2;
      return ok_status();
    }
    const bool negated = letter == 'D' || letter == 'S' || letter == 'W';
    const std::string_view members = letter == 'd' || letter == 'D'
                                         ? "\\p{Nd}"
                                         : (letter == 's' || letter == 'S' ? kSpace : kWord);
    if (set_depth_ > 0) {
      if (letter == 'D') {
        out_.append("\\P{Nd}");
      } else if (negated) {
        return negated_in_set(i_);
      } else {
        out_.append(members);
      }
    } else if (letter == 'd' || letter == 'D') {
      out_.append(negated ? "\\P{Nd}" : "\\p{Nd}");
    } else {
      out_.append(negated ? "[^" : "[").append(members).push_back(']');
    }
    i_ += 2;
    return ok_status();
  }

  // \Q...\E: copied as written, nothing in it is an escape.
  Status quoted() {
    const auto end = in_.find("\\E", i_ + 2);
    const std::size_t stop = end == std::string_view::npos ? in_.size() : end + 2;
    out_.append(in_.substr(i_, stop - i_));
    i_ = stop;
    return ok_status();
  }

  // A "]" first in a set (after an optional "^") is a member; "[:alpha:]" inside is one token.
  void open_set() {
    set_depth_ = 1;
    out_.push_back('[');
    ++i_;
    if (i_ < in_.size() && in_[i_] == '^') out_.push_back(in_[i_++]);
    if (i_ < in_.size() && in_[i_] == ']') out_.push_back(in_[i_++]);
  }

  // "[:alpha:]" inside a set: one token, its "]" closes nothing.
  void posix_class() {
    const auto end = in_.find(":]", i_ + 2);
    const std::size_t stop = end == std::string_view::npos ? i_ + 1 : end + 2;
    out_.append(in_.substr(i_, stop - i_));
    i_ = stop;
  }

  void close_set() {
    set_depth_ = 0;
    out_.push_back(']');
    ++i_;
  }

  // "(?flags)" and "(?flags:": a "u" among the flags is ripgrep's, not RE2's: it sets the mode
  // (for the rest of the group, or inside this one) and is left out of what RE2 reads.
  void open_group() {
    const bool outer = unicode();
    std::size_t j = i_ + 1;
    if (j >= in_.size() || in_[j] != '?') {
      unicode_.push_back(outer);
      out_.push_back('(');
      ++i_;
      return;
    }
    ++j;
    std::string flags;
    bool off = false;
    std::optional<bool> mode;
    while (j < in_.size() && std::string_view("imsuU-").find(in_[j]) != std::string_view::npos) {
      if (in_[j] == '-') off = true;
      if (in_[j] == 'u') {
        mode = !off;
      } else {
        flags.push_back(in_[j]);
      }
      ++j;
    }
    const bool closes = j < in_.size() && in_[j] == ')';
    const bool scopes = j < in_.size() && in_[j] == ':';
    if (!mode || (!closes && !scopes)) {  // no "u", or not a flag group: RE2's to read
      unicode_.push_back(outer);
      out_.push_back('(');
      ++i_;
      return;
    }
    while (!flags.empty() && flags.back() == '-') flags.pop_back();
    if (closes) {
      unicode_.back() = *mode;  // for the rest of the group it is in
      if (!flags.empty()) out_.append("(?").append(flags).push_back(')');
      i_ = j + 1;
      return;
    }
    unicode_.push_back(*mode);
    out_.append("(?").append(flags).push_back(':');
    i_ = j + 1;
  }

  void close_group() {
    if (unicode_.size() > 1) unicode_.pop_back();  // never the top level's
    out_.push_back(')');
    ++i_;
  }

  std::string_view in_;
  std::size_t i_ = 0;
  Forms out_;
  int set_depth_ = 0;
  std::vector<bool> unicode_{true};  // per open group, innermost last; the top level's first
};

}  // namespace

Result<UnicodePattern> with_unicode_classes(std::string_view pattern) {
  return Rewrite(pattern).run();
}

}  // namespace msb
