#include <advi/io/source_text.hpp>

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
    if (end == std::string_view::npos)
        end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
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
    // The line as a terminal can show it: a byte that is not UTF-8, or a control character,
    // becomes `?`. The caret goes under the column counting characters, not bytes, and tabs
    // stay under tabs.
    std::string printable, caret(prefix.size(), ' ');
    for (std::size_t i = 0; i < shown.size();) {
        const std::size_t n = utf8_length_at(shown, i);
        const auto c = static_cast<unsigned char>(shown[i]);
        const bool bad = n == 0 || (c < 0x20 && c != '\t') || c == 0x7f;
        printable += bad ? std::string_view("?") : shown.substr(i, n);
        if (i < col - begin)
            caret += c == '\t' ? '\t' : ' ';
        i += std::max<std::size_t>(n, 1);
    }
    if (col - begin > shown.size())
        caret.append(col - begin - shown.size(), ' ');
    return fmt::format("{}:{}:{}: {}\n  {}{}{}\n  {}^", file, at.line, at.column, message, prefix,
                       printable, suffix, caret);
}

std::size_t utf8_length_at(std::string_view text, std::size_t offset) {
    if (offset >= text.size())
        return 0;
    const auto byte = [&](std::size_t k) {
        return offset + k < text.size() ? static_cast<unsigned char>(text[offset + k]) : 0u;
    };
    const unsigned lead = byte(0);
    if (lead < 0x80)
        return 1;
    // Lead bytes and the range of the second byte (RFC 3629: no overlong forms, no
    // surrogates, nothing beyond U+10FFFF); later bytes are 0x80..0xBF.
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF)
        n = 2;
    else if (lead == 0xE0)
        n = 3, lo = 0xA0;
    else if (lead >= 0xE1 && lead <= 0xEC)
        n = 3;
    else if (lead == 0xED)
        n = 3, hi = 0x9F;
    else if (lead >= 0xEE && lead <= 0xEF)
        n = 3;
    else if (lead == 0xF0)
        n = 4, lo = 0x90;
    else if (lead >= 0xF1 && lead <= 0xF3)
        n = 4;
    else if (lead == 0xF4)
        n = 4, hi = 0x8F;
    else
        return 0;
    if (byte(1) < lo || byte(1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(k) < 0x80 || byte(k) > 0xBF)
            return 0;
    return n;
}

std::string describe_character(std::string_view text, std::size_t offset) {
    const std::size_t n = utf8_length_at(text, offset);
    if (n == 0)
        return fmt::format("a byte that is not UTF-8 (0x{:02x})",
                           static_cast<unsigned char>(text[offset]));
    const auto c = static_cast<unsigned char>(text[offset]);
    if (n == 1 && (c < 0x20 || c == 0x7f))
        return fmt::format("control character 0x{:02x}", c);
    return fmt::format("character `{}`", text.substr(offset, n));
}

ParseError parse_error_at(std::string_view file, std::string_view text, std::size_t offset,
                          std::string_view message) {
    SourcePosition at = position_of(text, offset);
    return ParseError(format_source_error(file, at, line_of(text, offset), message),
                      std::string(file), at.line, at.column);
}

}  // namespace advi
