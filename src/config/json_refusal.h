// Where in a token simdjson refused the JSON text stops being JSON, so that the config reader can
// word and place the refusal as it always has: simdjson says that a token (a number, a string, a
// literal) or the whole text is wrong, these say at which byte and what was expected there. They
// look only at what simdjson already refused. Internal to src/config.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace msb {

// A place in the text and what was expected there.
struct JsonRefusal {
  std::size_t offset = 0;
  const char* expected = "";
};

// After a number starting at `at`: where the digits RFC 8259 asks for are missing (`expected` "a
// digit"), or else the end of the longest number written there (`expected` "").
JsonRefusal number_end(std::string_view text, std::size_t at) noexcept;

// Whether the number `text` is above a double's range: too small a number is 0, as everywhere.
bool number_overflows(std::string_view number) noexcept;

// The first escape of the string token starting at `at` (its opening quote) that names no
// character: "a valid escape sequence" or "a valid \\u escape" at its backslash, up to `end`.
std::optional<JsonRefusal> escape_refusal(std::string_view text, std::size_t at,
                                          std::size_t end) noexcept;

// What simdjson's first pass refuses as a whole (ill-formed UTF-8, a control character in a string,
// a string left open, a backslash outside strings): the first such byte and what was expected
// there. `string_start` is the
// opening quote of the string it is in, or npos outside strings.
struct WholeTextRefusal {
  JsonRefusal refusal;
  std::size_t string_start = std::string_view::npos;
};
std::optional<WholeTextRefusal> whole_text_refusal(std::string_view text) noexcept;

}  // namespace msb
