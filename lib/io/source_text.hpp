// Text with positions: the file:line:col of a byte offset, and the ParseError that shows the
// offending line with a caret under the column. Shared by every reader of text we are handed
// (Stan programs, JSON and R dump data, CSV).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <advi/graph/error.hpp>

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
                                              std::string_view line_text,
                                              std::string_view message);

// The ParseError for `message` at byte `offset` of `text`, read from `file`.
[[nodiscard]] ParseError parse_error_at(std::string_view file, std::string_view text,
                                        std::size_t offset, std::string_view message);

}  // namespace advi
