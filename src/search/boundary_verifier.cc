#include "search/boundary_verifier.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace msb {
namespace {

// Steps PCRE2 may take on one line before it gives up: far past what any sane pattern needs on
// a line, and a few milliseconds of CPU at worst.
constexpr std::uint32_t kMatchLimit = 1'000'000;
constexpr std::uint32_t kDepthLimit = 10'000;

struct MatchData {
  explicit MatchData(const pcre2_code* code)
      : data(pcre2_match_data_create_from_pattern(code, nullptr)) {}
  ~MatchData() { pcre2_match_data_free(data); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* data;
};

}  // namespace

struct BoundaryVerifier::Compiled {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  ~Compiled() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }

  int match(std::string_view line, std::size_t from, MatchData& data) const {
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(line.data()), line.size(), from, 0,
                       data.data, context);
  }
};

BoundaryVerifier::BoundaryVerifier(BoundaryVerifier&&) noexcept = default;
BoundaryVerifier& BoundaryVerifier::operator=(BoundaryVerifier&&) noexcept = default;
BoundaryVerifier::~BoundaryVerifier() = default;

Result<BoundaryVerifier> BoundaryVerifier::compile(const std::string& pattern, bool ignore_case) {
  // UTF mode, so that a character is a code point; text that is not UTF-8 matches no class
  // there rather than failing. No UCP: the classes are spelled out already, as RE2 reads them.
  std::uint32_t flags = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  if (ignore_case) flags |= PCRE2_CASELESS;
  int code = 0;
  PCRE2_SIZE offset = 0;
  auto compiled = std::make_unique<Compiled>();
  compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 flags, &code, &offset, nullptr);
  compiled->context = pcre2_match_context_create(nullptr);
  if (compiled->code == nullptr || compiled->context == nullptr) {
    Error e{Errc::invalid_pattern};
    e.pattern_problem = "syntax";
    return e;
  }
  pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);  // the interpreter where JIT is not
  pcre2_set_match_limit(compiled->context, kMatchLimit);
  pcre2_set_depth_limit(compiled->context, kDepthLimit);
  BoundaryVerifier out;
  out.compiled_ = std::move(compiled);
  return out;
}

Verdict BoundaryVerifier::matches(std::string_view line) const {
  MatchData data(compiled_->code);
  const int rc = compiled_->match(line, 0, data);
  if (rc >= 0) return Verdict::match;
  return rc == PCRE2_ERROR_NOMATCH ? Verdict::no_match : Verdict::gave_up;
}

std::vector<MatchSpan> BoundaryVerifier::spans(std::string_view line, int group) const {
  MatchData data(compiled_->code);
  std::vector<MatchSpan> out;
  for (std::size_t from = 0; from <= line.size();) {
    const int rc = compiled_->match(line, from, data);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) return {};
    const PCRE2_SIZE* at = pcre2_get_ovector_pointer(data.data);
    const MatchSpan span{at[2 * group], at[2 * group + 1]};
    if (span.start != PCRE2_UNSET && span.end > span.start) out.push_back(span);
    // On from the group's end (a word match's trailing non-word character may begin the next),
    // a character on past an empty match.
    std::size_t next = span.start == PCRE2_UNSET ? at[1] : span.end;
    if (next <= from) {
      next = from + 1;
      while (next < line.size() && (static_cast<unsigned char>(line[next]) & 0xC0) == 0x80) ++next;
    }
    from = next;
  }
  return out;
}

}  // namespace msb
