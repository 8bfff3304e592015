// The elapsed column of the progress table. The engine (lib/advi/engine/engine.cpp) writes the
// table without times, as Stan's; the tool adds them here, line by line, rather than teaching the
// engine about clocks on a stream it does not own.
#include <advi/cli/progress_stream.hpp>

#include <array>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

namespace advi::cli {
namespace {

struct Token {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// The first four whitespace-separated tokens of `line`; fewer when the line is shorter.
int first_tokens(std::string_view line, std::array<Token, 4>& tokens) {
    int count = 0;
    std::size_t i = 0;
    while (count < 4) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i == line.size())
            break;
        const std::size_t begin = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        tokens[count++] = {begin, i};
    }
    return count;
}

bool is_integer(std::string_view s) {
    if (s.empty())
        return false;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    }
    return true;
}

bool is_number(std::string_view s) {
    const std::string text(s);  // strtod wants a terminated string
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size();
}

}  // namespace

std::string with_elapsed(std::string_view line, double seconds) {
    std::array<Token, 4> t;
    if (first_tokens(line, t) < 4)
        return std::string(line);
    auto token = [&](int k) { return line.substr(t[k].begin, t[k].end - t[k].begin); };
    std::string column;
    // Stan's table (iter, ELBO, two relative changes) and the Auto rule's (iter, eta, ELBO of
    // the average, gain, which is "-" at a phase's first block).
    if (token(0) == "iter" && (token(1) == "ELBO" || token(1) == "eta")) {
        column = fmt::format("  {:>10}", "elapsed");
    } else if (is_integer(token(0)) && is_number(token(1)) && is_number(token(2)) &&
               (is_number(token(3)) || token(3) == "-")) {
        column = fmt::format("  {:>9.3f}s", seconds);
    } else {
        return std::string(line);
    }
    std::string out(line.substr(0, t[3].end));
    out += column;
    out += line.substr(t[3].end);
    return out;
}

ProgressStream::LineBuf::LineBuf(std::ostream& out)
    : out_(out), start_(std::chrono::steady_clock::now()) {}

void ProgressStream::LineBuf::emit_line() {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    out_ << with_elapsed(line_, seconds) << '\n';
    out_.flush();
    line_.clear();
}

ProgressStream::LineBuf::int_type ProgressStream::LineBuf::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof()))
        return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    if (ch == '\n') {
        emit_line();
    } else {
        line_ += ch;
    }
    return c;
}

std::streamsize ProgressStream::LineBuf::xsputn(const char* s, std::streamsize n) {
    for (std::streamsize i = 0; i < n; ++i) {
        overflow(traits_type::to_int_type(s[i]));
    }
    return n;
}

void ProgressStream::LineBuf::finish() {
    if (!line_.empty()) {
        out_ << line_;
        out_.flush();
        line_.clear();
    }
}

ProgressStream::ProgressStream(std::ostream& out) : std::ostream(nullptr), buf_(out) {
    rdbuf(&buf_);
}

ProgressStream::~ProgressStream() {
    buf_.finish();
}

}  // namespace advi::cli
