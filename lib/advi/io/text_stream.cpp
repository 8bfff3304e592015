#include <advi/io/text_stream.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace advi {

SourcePosition TextMark::position() const {
    const std::uint64_t col = offset - line_start + 1;
    return {line, static_cast<int>(std::min<std::uint64_t>(col, std::numeric_limits<int>::max()))};
}

TextStream::TextStream(const std::filesystem::path& path, std::size_t chunk_size)
    : file_name_(path.string()), path_(path), chunk_size_(std::max<std::size_t>(chunk_size, 16)) {
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_)
        throw DataError(
            fmt::format("cannot open data file `{}`: {}", file_name_, std::strerror(errno)));
    buffer_.resize(chunk_size_);
    begin_ = pos_ = end_ = buffer_.data();
    skip_byte_order_mark();
}

TextStream::TextStream(std::string_view text, std::string file_name)
    : file_name_(std::move(file_name)), text_(text) {
    begin_ = pos_ = text.data();
    end_ = text.data() + text.size();
    skip_byte_order_mark();
}

void TextStream::skip_byte_order_mark() {
    // Windows tools (Excel's "CSV UTF-8", PowerShell) start UTF-8 files with EF BB BF; it is
    // not text. Columns of the first line count from after it.
    if (peek(0) == 0xEF && peek(1) == 0xBB && peek(2) == 0xBF) {
        pos_ += 3;
        line_start_ = 3;
    }
}

void TextStream::consume(std::size_t n) {
    const char* stop = pos_ + n;
    // Runs rarely hold line breaks (numbers and names never do), but keep the count right.
    while (const void* nl = std::memchr(pos_, '\n', static_cast<std::size_t>(stop - pos_))) {
        pos_ = static_cast<const char*>(nl) + 1;
        ++line_;
        line_start_ = offset();
    }
    pos_ = stop;
}

bool TextStream::fill(std::size_t need) {
    std::size_t have = static_cast<std::size_t>(end_ - pos_);
    if (have >= need)
        return true;
    if (!file_)
        return false;
    // Move the unread bytes to the front and read a chunk after them. A run longer than the
    // buffer (never a number; maybe a long string) grows it rather than reading byte by byte.
    buffer_offset_ += static_cast<std::uint64_t>(pos_ - begin_);
    if (buffer_.size() - have < chunk_size_ / 2 || buffer_.size() < need) {
        std::vector<char> bigger(std::max(need, have) + chunk_size_);
        std::copy(pos_, end_, bigger.data());
        buffer_.swap(bigger);
    } else {
        std::memmove(buffer_.data(), pos_, have);
    }
    begin_ = pos_ = buffer_.data();
    // C stdio: a failed read (an I/O error, a file that opens but cannot be read) is told
    // apart from the end of the file, with its reason.
    while (have < need) {
        const std::size_t n =
            std::fread(buffer_.data() + have, 1, buffer_.size() - have, file_.get());
        have += n;
        if (n == 0) {
            if (std::ferror(file_.get()))
                throw DataError(fmt::format("cannot read data file `{}`: {}", file_name_,
                                            std::strerror(errno)));
            break;
        }
    }
    end_ = begin_ + have;
    return have >= need;
}

std::string TextStream::read_back(std::uint64_t from, std::size_t n) const {
    if (path_.empty()) {
        if (from >= text_.size())
            return {};
        return std::string(text_.substr(static_cast<std::size_t>(from), n));
    }
    std::ifstream in(path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(from));
    std::string out(n, '\0');
    in.read(out.data(), static_cast<std::streamsize>(n));
    out.resize(in ? n : static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return out;
}

ParseError TextStream::error_at(const TextMark& at, std::string_view message) const {
    // format_source_error wants the whole line and cuts a window of 60 bytes either side of
    // the column. A line may be a whole 1 GB file, so read back only that window (plus a few
    // bytes so that the cuts show as "..." as they would on the whole line) and correct the
    // column in the first line of the message.
    constexpr std::uint64_t kBefore = 64;
    constexpr std::size_t kAfter = 64;
    const std::uint64_t from =
        std::max(at.line_start, at.offset > kBefore ? at.offset - kBefore : 0);
    std::string window = read_back(from, static_cast<std::size_t>(at.offset - from) + kAfter);
    window.resize(std::min(window.find('\n'), window.size()));
    if (!window.empty() && window.back() == '\r')
        window.pop_back();
    const SourcePosition pos = at.position();
    const SourcePosition shown{pos.line, static_cast<int>(at.offset - from) + 1};
    std::string text = format_source_error(file_name_, shown, window, message);
    if (shown.column != pos.column) {
        const std::string wrong = fmt::format("{}:{}:{}:", file_name_, pos.line, shown.column);
        text.replace(0, wrong.size(), fmt::format("{}:{}:{}:", file_name_, pos.line, pos.column));
    }
    return ParseError(std::move(text), file_name_, pos.line, pos.column);
}

std::string TextStream::describe_next() {
    const int c = peek();
    if (c == kEnd)
        return "end of file";
    if (c == '\n' || c == '\r')
        return "a line break";
    if (c >= 0x20 && c < 0x7f)
        return fmt::format("`{}`", static_cast<char>(c));
    std::string next;  // enough bytes for one UTF-8 character
    for (std::size_t k = 0; k < 4 && peek(k) != kEnd; ++k) next += static_cast<char>(peek(k));
    return describe_character(next, 0);
}

std::optional<NumberLiteral> parse_number_literal(std::string_view token) {
    std::size_t first = 0;
    if (!token.empty() && token[0] == '+')
        token.remove_prefix(1);  // from_chars takes no '+'
    else if (!token.empty() && token[0] == '-')
        first = 1;
    // Only digits may start the number: from_chars would also read "inf" and "nan".
    if (first >= token.size() ||
        !(std::isdigit(static_cast<unsigned char>(token[first])) || token[first] == '.'))
        return std::nullopt;
    const char* b = token.data();
    const char* e = token.data() + token.size();
    NumberLiteral out;
    if (token.find_first_of(".eE") == std::string_view::npos) {
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(b, e, v);
        if (p != e)
            return std::nullopt;
        out.is_int = true;
        if (ec == std::errc::result_out_of_range || v < std::numeric_limits<int>::min() ||
            v > std::numeric_limits<int>::max()) {
            out.int_out_of_range = true;
            out.real_value = std::strtod(std::string(token).c_str(), nullptr);
            return out;
        }
        out.int_value = static_cast<int>(v);
        out.real_value = static_cast<double>(v);
        return out;
    }
    double v = 0;
    const auto [p, ec] = std::from_chars(b, e, v);
    if (p != e)
        return std::nullopt;
    // from_chars reports overflow and underflow without a value; strtod gives inf or the
    // nearest denormal (or 0), which is what the number means.
    if (ec == std::errc::result_out_of_range)
        v = std::strtod(std::string(token).c_str(), nullptr);
    out.real_value = v;
    return out;
}

std::optional<double> parse_special_real(std::string_view token) {
    double sign = 1;
    if (!token.empty() && (token[0] == '+' || token[0] == '-')) {
        sign = token[0] == '-' ? -1 : 1;
        token.remove_prefix(1);
    }
    auto is = [&](std::string_view word) {
        return token.size() == word.size() &&
               std::equal(token.begin(), token.end(), word.begin(), [](char a, char b) {
                   return std::tolower(static_cast<unsigned char>(a)) == b;
               });
    };
    if (is("nan"))
        return std::numeric_limits<double>::quiet_NaN();
    if (is("inf") || is("infinity"))
        return sign * std::numeric_limits<double>::infinity();
    return std::nullopt;
}

}  // namespace advi
