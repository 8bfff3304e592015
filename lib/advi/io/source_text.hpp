// Text with positions: the file:line:col of a byte offset, and the ParseError that shows the
// offending line with a caret under the column. Shared by every reader of text we are handed
// (Stan programs, JSON and R dump data, CSV).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <advi/base/error.hpp>

namespace advi {

struct SourcePosition {
    int line = 1;    // 1-based
    int column = 1;  // 1-based, in bytes
};

// The line and column of `offset` in `text` (an offset past the end is the end).
[[nodiscard]] SourcePosition position_of(std::string_view text, std::size_t offset);

// The text of the line that holds `offset`, without its line break.
[[nodiscard]] std::string_view line_of(std::string_view text, std::size_t offset);

// "file:line:col: message", then the line (tabs kept, long lines cut around the column) and
// a caret under the column.
[[nodiscard]] std::string format_source_error(std::string_view file, SourcePosition at,
                                              std::string_view line_text, std::string_view message);

// The length in bytes of the UTF-8 character at `offset` (1 for ASCII), or 0 when the bytes
// there are not valid UTF-8 (a stray continuation byte, an overlong form, a cut sequence).
[[nodiscard]] std::size_t utf8_length_at(std::string_view text, std::size_t offset);

// The character at `offset` for a message: "character `é`", "control character 0x07", or
// "a byte that is not UTF-8 (0xff)".
[[nodiscard]] std::string describe_character(std::string_view text, std::size_t offset);

// The ParseError for `message` at byte `offset` of `text`, read from `file`.
[[nodiscard]] ParseError parse_error_at(std::string_view file, std::string_view text,
                                        std::size_t offset, std::string_view message);

}  // namespace advi
