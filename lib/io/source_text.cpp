#include "source_text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace advi {

SourcePosition position_of(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    SourcePosition p;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++p.line;
            line_start = i + 1;
        }
    }
    p.column = static_cast<int>(offset - line_start) + 1;
    return p;
}

std::string_view line_of(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t begin = offset;
    while (begin > 0 && text[begin - 1] != '\n') --begin;
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

std::string format_source_error(std::string_view file, SourcePosition at,
                                std::string_view line_text, std::string_view message) {
    // A very long line (a minified JSON file is one line) is cut to a window around the
    // column so that the message stays readable.
    constexpr std::size_t kWindow = 60;
    std::size_t col = static_cast<std::size_t>(std::max(at.column, 1)) - 1;
    std::size_t begin = col > kWindow ? col - kWindow : 0;
    std::string_view shown = line_text.substr(std::min(begin, line_text.size()), 2 * kWindow);
    std::string prefix = begin > 0 ? "..." : "";
    std::string suffix = begin + shown.size() < line_text.size() ? "..." : "";
    std::string caret(prefix.size() + (col - begin), ' ');
    // Keep tabs under tabs so that the caret lines up in a terminal.
    for (std::size_t i = 0; i < col - begin && i < shown.size(); ++i)
        if (shown[i] == '\t') caret[prefix.size() + i] = '\t';
    return fmt::format("{}:{}:{}: {}\n  {}{}{}\n  {}^", file, at.line, at.column, message, prefix,
                       shown, suffix, caret);
}

ParseError parse_error_at(std::string_view file, std::string_view text, std::size_t offset,
                          std::string_view message) {
    SourcePosition at = position_of(text, offset);
    return ParseError(format_source_error(file, at, line_of(text, offset), message),
                      std::string(file), at.line, at.column);
}

}  // namespace advi
