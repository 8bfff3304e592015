#include <advi/io/rdump_reader.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/memory_budget.hpp>
#include <advi/io/text_stream.hpp>

namespace advi {

namespace {

bool is_inline_space(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}
bool is_letter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(int c) {
    return c >= '0' && c <= '9';
}
// R names and the words of the format (c, structure, .Dim, Inf): letters, digits, `.`, `_`.
bool is_word_char(char c) {
    return is_letter(c) || is_digit(c) || c == '.' || c == '_';
}
bool is_number_char(char c) {
    return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

// One number of the file, before it joins a variable.
struct Scalar {
    TextMark at;
    bool is_int = false;
    int int_value = 0;
    double real_value = 0;
};

class RDumpReader {
public:
    explicit RDumpReader(TextStream& in) : in_(in) {}

    DataTable read() {
        DataTable table;
        for (;;) {
            skip_blank();
            while (in_.accept(';')) skip_blank();
            if (in_.at_end())
                break;
            DataValue v = read_assignment(table);
            const std::string name = v.name;
            table.add(std::move(v));
            skip_inline();
            const int c = in_.peek();
            if (c != '\n' && c != ';' && c != TextStream::kEnd)
                expected(fmt::format("a line break or `;` after the value of `{}`", name));
        }
        return table;
    }

private:
    // Spaces and tabs, and a `#` comment to the end of the line.
    void skip_inline() {
        in_.skip_while(is_inline_space);
        if (in_.peek() == '#')
            in_.skip_while([](char c) { return c != '\n'; });
    }
    // Also line breaks (between statements and inside parentheses).
    void skip_blank() {
        for (;;) {
            skip_inline();
            if (!in_.accept('\n'))
                return;
        }
    }

    [[noreturn]] void expected(std::string_view what) {
        throw in_.error_here(fmt::format("expected {}, got {}", what, in_.describe_next()));
    }
    void expect(char c, std::string_view context) {
        skip_blank();
        if (!in_.accept(c))
            expected(fmt::format("`{}` {}", c, context));
    }

    DataValue read_assignment(const DataTable& table) {
        const TextMark at = in_.mark();
        DataValue v;
        const int c = in_.peek();
        if (c == '"' || c == '\'' || c == '`') {
            v.name = read_quoted();
        } else if (is_letter(c) || c == '.') {
            v.name = std::string(in_.take_while(is_word_char));
        } else {
            expected("a variable name");
        }
        if (v.name.empty())
            throw in_.error_at(at, "empty variable name");
        if (const DataValue* first = table.find(v.name))
            throw in_.error_at(at, fmt::format("duplicate variable `{}` (first given at {})",
                                               v.name, first->source));
        const SourcePosition p = at.position();
        v.source = fmt::format("{}:{}:{}", in_.file_name(), p.line, p.column);
        skip_inline();
        if (in_.accept('<')) {
            if (!in_.accept('-'))
                expected(fmt::format("`<-` after the name `{}`", v.name));
        } else if (!in_.accept('=')) {
            expected(fmt::format("`<-` after the name `{}`", v.name));
        }
        skip_blank();
        read_value(v, /*allow_structure=*/true);
        return v;
    }

    // At the opening quote of a name: "y", 'y' or `y`.
    std::string read_quoted() {
        const TextMark open = in_.mark();
        const char quote = static_cast<char>(in_.peek());
        in_.advance();
        std::string out;
        for (;;) {
            out += in_.take_while([quote](char c) { return c != quote && c != '\\' && c != '\n'; });
            const int c = in_.peek();
            if (c == quote) {
                in_.advance();
                return out;
            }
            if (c == TextStream::kEnd || c == '\n')
                throw in_.error_at(open, "unterminated string");
            in_.advance();  // a backslash: the next byte as it is
            if (in_.peek() == TextStream::kEnd)
                throw in_.error_at(open, "unterminated string");
            out += static_cast<char>(in_.peek());
            in_.advance();
        }
    }

    // A value into `v`: a number or a:b (scalar or sequence), c(...), integer(n), double(n),
    // numeric(n), or structure(value, .Dim = dims).
    void read_value(DataValue& v, bool allow_structure) {
        const TextMark at = in_.mark();
        const int c = in_.peek();
        if (is_letter(c) || (c == '.' && !is_digit(in_.peek(1)))) {
            const std::string word(in_.take_while(is_word_char));
            if (word == "c")
                return read_c(v);
            if (word == "structure" && allow_structure)
                return read_structure(v, at);
            if (word == "integer" || word == "double" || word == "numeric")
                return read_zeros(v, word, at);
            if (word == "list" || word == "structure" || word == "array" || word == "matrix")
                throw in_.error_at(at, fmt::format("variable `{}`: `{}(...)` is not supported "
                                                   "here",
                                                   v.name, word));
            // A word that is a number (Inf, NaN), or an error naming it.
            const Scalar s = word_scalar(v, word, at, 1.0);
            return append_scalar_or_sequence(v, s, /*top=*/true);
        }
        if (c == '"' || c == '\'')
            throw in_.error_at(at, fmt::format("variable `{}`: strings are not supported", v.name));
        const Scalar s = read_scalar(v);
        append_scalar_or_sequence(v, s, /*top=*/true);
    }

    // c(a, b, ...): a one-dimensional array (even of one element).
    void read_c(DataValue& v) {
        expect('(', "after `c`");
        skip_blank();
        if (!in_.accept(')')) {
            for (;;) {
                skip_blank();
                append_scalar_or_sequence(v, read_scalar(v), /*top=*/false);
                skip_blank();
                if (in_.accept(','))
                    continue;
                if (in_.accept(')'))
                    break;
                expected("`,` or `)`");
            }
        }
        v.dims = {static_cast<std::int64_t>(v.size())};
        v.type_unknown = v.size() == 0;  // c() says nothing of its type
    }

    // integer(n), double(n), numeric(n): n zeros of that type (R dump writes integer(0)).
    void read_zeros(DataValue& v, const std::string& word, const TextMark& at) {
        expect('(', fmt::format("after `{}`", word));
        skip_blank();
        const Scalar n = read_scalar(v);
        if (!n.is_int || n.int_value < 0)
            throw in_.error_at(n.at, fmt::format("variable `{}`: the length of {}() must be an "
                                                 "integer >= 0",
                                                 v.name, word));
        expect(')', fmt::format("after the length of {}()", word));
        if (word != "integer")
            v.promote_to_real();
        reserve(v, n.int_value, n.at);
        for (int i = 0; i < n.int_value; ++i) v.push_int(0);
        v.dims = {n.int_value};
    }

    // structure(value, .Dim = c(d1, d2, ...)): the values are column-major already.
    void read_structure(DataValue& v, const TextMark& at) {
        expect('(', "after `structure`");
        skip_blank();
        read_value(v, /*allow_structure=*/false);
        expect(',', "after the values of structure()");
        skip_blank();
        const TextMark key_at = in_.mark();
        const std::string key(in_.take_while(is_word_char));
        if (key != ".Dim") {
            if (key.empty())
                expected("`.Dim`");
            throw in_.error_at(key_at, fmt::format("variable `{}`: expected `.Dim`, got `{}` "
                                                   "(only .Dim is supported in structure())",
                                                   v.name, key));
        }
        expect('=', "after `.Dim`");
        skip_blank();
        DataValue dim_value;
        dim_value.name = v.name + " .Dim";
        read_value(dim_value, /*allow_structure=*/false);
        if (!dim_value.is_int() && dim_value.size() > 0)
            throw in_.error_at(key_at, fmt::format("variable `{}`: .Dim must be integers", v.name));
        std::vector<std::int64_t> dims(dim_value.ints.begin(), dim_value.ints.end());
        for (std::int64_t d : dims)
            if (d < 0)
                throw in_.error_at(key_at,
                                   fmt::format("variable `{}`: .Dim has a negative size", v.name));
        // The product of the sizes, or -1 when it does not fit in int64 (.Dim = 2:32 is 32!):
        // it is compared with the values read, so an overflow is a mismatch, not a wrap.
        std::int64_t n = 1;
        if (std::find(dims.begin(), dims.end(), 0) != dims.end())
            n = 0;
        else
            for (std::int64_t d : dims)
                if (__builtin_mul_overflow(n, d, &n)) {
                    n = -1;
                    break;
                }
        if (dims.empty() || n != static_cast<std::int64_t>(v.size())) {
            // At most the first 8 sizes in the message: `.Dim = 1:21212220` has millions (the
            // fuzzer's input that spent seconds formatting them all).
            constexpr std::size_t kShown = 8;
            const std::size_t shown = std::min(dims.size(), kShown);
            const std::string sizes =
                fmt::format("{}", fmt::join(dims.begin(), dims.begin() + shown, ", ")) +
                (dims.size() > shown ? fmt::format(", ... ({} sizes)", dims.size()) : "");
            throw in_.error_at(
                at,
                fmt::format("variable `{}`: .Dim = c({}) needs {} values, "
                            "got {}",
                            v.name, sizes,
                            n < 0 ? std::string("more than 2^63") : std::to_string(n), v.size()));
        }
        skip_blank();
        if (in_.accept(',')) {
            skip_blank();
            const TextMark extra_at = in_.mark();
            const std::string extra(in_.take_while(is_word_char));
            throw in_.error_at(extra_at, fmt::format("variable `{}`: `{}` is not supported (only "
                                                     ".Dim is supported in structure())",
                                                     v.name, extra));
        }
        expect(')', "after the .Dim of structure()");
        // A typed empty value (integer(0)) keeps its type; c() has none.
        v.type_unknown = v.type_unknown && n == 0;
        v.dims = std::move(dims);
    }

    // A number with its sign: 1, -2.5, 1e-3, 5L, Inf, -Inf, NaN.
    Scalar read_scalar(const DataValue& v) {
        const TextMark at = in_.mark();
        if ((in_.peek() == '-' || in_.peek() == '+') && is_letter(in_.peek(1))) {
            const double sign = in_.peek() == '-' ? -1 : 1;
            in_.advance();
            const std::string word(in_.take_while(is_word_char));
            return word_scalar(v, word, at, sign);
        }
        if (is_letter(in_.peek())) {
            const std::string word(in_.take_while(is_word_char));
            return word_scalar(v, word, at, 1.0);
        }
        const std::string token(in_.take_while(is_number_char));
        if (token.empty())
            expected(fmt::format("a number for `{}`", v.name));
        const auto n = parse_number_literal(token);
        if (!n)
            throw in_.error_at(at,
                               fmt::format("expected a number for `{}`, got `{}`", v.name, token));
        Scalar s{at, n->is_int, n->int_value, n->real_value};
        // R's integer suffix: 5L. A literal written real (1e3L) must still be a whole number.
        if (in_.accept('L')) {
            if (!n->is_int && (n->real_value != std::floor(n->real_value)))
                throw in_.error_at(
                    at, fmt::format("variable `{}`: `{}L` is not an integer", v.name, token));
            s.is_int = true;
            if (n->int_out_of_range || std::abs(n->real_value) > std::numeric_limits<int>::max())
                throw out_of_range(v, token, at);
            s.int_value = static_cast<int>(n->real_value);
        } else if (n->is_int && n->int_out_of_range) {
            throw out_of_range(v, token, at);
        }
        return s;
    }

    ParseError out_of_range(const DataValue& v, std::string_view token, const TextMark& at) {
        return in_.error_at(at, fmt::format("variable `{}`: the integer {} is out of range for a "
                                            "Stan int (32-bit)",
                                            v.name, token));
    }

    Scalar word_scalar(const DataValue& v, const std::string& word, const TextMark& at,
                       double sign) {
        if (const auto x = parse_special_real(word))
            return Scalar{at, false, 0, sign * *x};
        if (word == "NA")
            throw in_.error_at(at, fmt::format("variable `{}`: NA (a missing value) is not "
                                               "supported: Stan data cannot be missing",
                                               v.name));
        if (word == "TRUE" || word == "FALSE" || word == "T" || word == "F")
            throw in_.error_at(at, fmt::format("variable `{}`: logical values ({}) are not "
                                               "supported",
                                               v.name, word));
        throw in_.error_at(at, fmt::format("expected a number for `{}`, got `{}`", v.name, word));
    }

    // `s`, or the integer sequence s:t when a colon follows.
    void append_scalar_or_sequence(DataValue& v, const Scalar& s, bool top) {
        skip_inline();
        if (!in_.accept(':')) {
            if (s.is_int)
                v.push_int(s.int_value);
            else
                v.push_real(s.real_value);
            return;
        }
        skip_inline();
        const Scalar t = read_scalar(v);
        for (const Scalar* bound : {&s, &t})
            if (!bound->is_int)
                throw in_.error_at(bound->at, fmt::format("variable `{}`: the bounds of a "
                                                          "sequence a:b must be integers",
                                                          v.name));
        const std::int64_t step = t.int_value >= s.int_value ? 1 : -1;
        reserve(v, std::abs(t.int_value - s.int_value) + 1, s.at);
        for (std::int64_t i = s.int_value;; i += step) {
            v.push_int(static_cast<int>(i));
            if (i == t.int_value)
                break;
        }
        if (top)
            v.dims = {static_cast<std::int64_t>(v.size())};
    }

    // Room for `more` values in `v`, refused before allocating when they would not fit in
    // memory (the text `1:2000000000` is short; its values are not).
    void reserve(DataValue& v, std::int64_t more, const TextMark& at) {
        const std::int64_t total = static_cast<std::int64_t>(v.size()) + more;
        try {
            require_memory(fmt::format("variable `{}`", v.name), total, 8);
        } catch (const SizeError& e) {
            throw in_.error_at(at, e.what());
        }
        // Geometric growth, so that c(1:2, 3:4, ...) stays linear.
        const auto grow = [total](auto& values) {
            if (static_cast<std::size_t>(total) > values.capacity())
                values.reserve(std::max(static_cast<std::size_t>(total), 2 * values.capacity()));
        };
        if (v.is_int())
            grow(v.ints);
        else
            grow(v.reals);
    }

    TextStream& in_;
};

}  // namespace

DataTable read_rdump_data(const std::filesystem::path& file) {
    TextStream in(file);
    return RDumpReader(in).read();
}

DataTable read_rdump_data(std::string_view text, std::string file_name) {
    TextStream in(text, std::move(file_name));
    return RDumpReader(in).read();
}

}  // namespace advi
