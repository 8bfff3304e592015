// The forward-only character source of the data readers (JSON, R dump, CSV): a file read in
// chunks, or text in memory, with the line and column of every position kept so that an error
// names file:line:col and shows its line (re-read from the file) without holding the text. A
// UTF-8 byte order mark at the start is skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <advi/base/error.hpp>
#include <advi/io/source_text.hpp>

namespace advi {

// A position in the text: enough to rebuild file:line:col and find the line again.
struct TextMark {
    std::uint64_t offset = 0;      // byte offset from the start of the text
    std::uint64_t line_start = 0;  // byte offset of the first byte of its line
    int line = 1;
    [[nodiscard]] SourcePosition position() const;
};

class TextStream {
public:
    static constexpr int kEnd = -1;
    static constexpr std::size_t kDefaultChunk = std::size_t{1} << 20;

    // Reads the file in chunks of `chunk_size` bytes; throws DataError when it cannot be opened.
    explicit TextStream(const std::filesystem::path& path, std::size_t chunk_size = kDefaultChunk);
    // Reads `text` in place (keep it alive); `file_name` is what messages call it.
    TextStream(std::string_view text, std::string file_name);
    TextStream(const TextStream&) = delete;
    TextStream& operator=(const TextStream&) = delete;

    // The byte `ahead` places on (0: the current one) as unsigned char, or kEnd.
    int peek(std::size_t ahead = 0) {
        if (pos_ + ahead < end_ || fill(ahead + 1))
            return static_cast<unsigned char>(pos_[ahead]);
        return kEnd;
    }
    [[nodiscard]] bool at_end() { return peek() == kEnd; }
    // Moves past the current byte (there must be one).
    void advance() {
        if (*pos_++ == '\n') {
            ++line_;
            line_start_ = offset();
        }
    }
    // Moves past the current byte if it is `c`.
    bool accept(char c) {
        if (peek() != static_cast<unsigned char>(c))
            return false;
        advance();
        return true;
    }
    // The run of bytes from here for which `pred` holds, consumed; the view lives until the
    // next call on this stream. A run that crosses a chunk boundary is made contiguous.
    template <class Pred>
    std::string_view take_while(Pred pred) {
        std::size_t n = 0;
        for (;;) {
            while (pos_ + n < end_ && pred(pos_[n])) ++n;
            if (pos_ + n < end_ || !fill(n + 1))
                break;
        }
        const std::string_view run(pos_, n);
        consume(n);
        return run;
    }
    template <class Pred>
    void skip_while(Pred pred) {
        for (int c = peek(); c != kEnd && pred(static_cast<char>(c)); c = peek()) advance();
    }

    [[nodiscard]] TextMark mark() const { return {offset(), line_start_, line_}; }
    [[nodiscard]] const std::string& file_name() const { return file_name_; }
    // "file:line:col: message", the line and a caret (format_source_error), as a ParseError.
    [[nodiscard]] ParseError error_at(const TextMark& at, std::string_view message) const;
    [[nodiscard]] ParseError error_here(std::string_view message) const {
        return error_at(mark(), message);
    }
    // The current byte for "expected X, got Y" messages: "`x`", "end of file", "a line break".
    [[nodiscard]] std::string describe_next();

private:
    [[nodiscard]] std::uint64_t offset() const {
        return buffer_offset_ + static_cast<std::uint64_t>(pos_ - begin_);
    }
    void consume(std::size_t n);
    void skip_byte_order_mark();
    // Makes at least `need` bytes from pos_ available if the file has them; false otherwise.
    bool fill(std::size_t need);
    // Up to `n` bytes of the text from `offset`, for the line shown in an error.
    [[nodiscard]] std::string read_back(std::uint64_t from, std::size_t n) const;

    std::string file_name_;
    std::filesystem::path path_;  // empty for text in memory
    std::string_view text_;       // the text in memory
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};  // null for text
    std::size_t chunk_size_ = kDefaultChunk;
    std::vector<char> buffer_;
    const char* begin_ = nullptr;  // start of the buffered bytes (file offset buffer_offset_)
    const char* pos_ = nullptr;
    const char* end_ = nullptr;
    std::uint64_t buffer_offset_ = 0;
    std::uint64_t line_start_ = 0;
    int line_ = 1;
};

// A decimal literal as the data formats write it: digits with an optional sign are an int; a
// point or an exponent makes it real (`1.0` is real).
struct NumberLiteral {
    bool is_int = false;
    bool int_out_of_range = false;  // an int literal beyond Stan's 32-bit int
    int int_value = 0;
    double real_value = 0;  // also set for ints
};
// nullopt unless the whole token is a decimal number (no nan/inf: see parse_special_real).
[[nodiscard]] std::optional<NumberLiteral> parse_number_literal(std::string_view token);
// NaN, Inf, Infinity with an optional sign, any case ("nan", "-inf", "+Infinity").
[[nodiscard]] std::optional<double> parse_special_real(std::string_view token);

}  // namespace advi
