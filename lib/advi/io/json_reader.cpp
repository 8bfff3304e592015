#include <advi/io/json_reader.hpp>

#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include <advi/io/text_stream.hpp>

namespace advi {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The bytes of a number or a bare word (true, NaN, -Infinity): read as one token so that the
// error shows all of it.
bool is_atom_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '+' || c == '-';
}

int hex_value(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// A recursive-descent reader without a document: each number goes straight into the typed
// buffer of its variable, nested arrays are checked rectangular as they arrive.
class JsonReader {
public:
    explicit JsonReader(TextStream& in) : in_(in) {}

    DataTable read() {
        DataTable table;
        skip_space();
        if (!in_.accept('{'))
            expected("`{` (CmdStan JSON data is one object of variables)");
        skip_space();
        if (!in_.accept('}')) {
            for (;;) {
                skip_space();
                read_variable(table);
                skip_space();
                if (in_.accept(','))
                    continue;
                if (in_.accept('}'))
                    break;
                expected("`,` or `}`");
            }
        }
        skip_space();
        if (!in_.at_end())
            expected("the end of the file after the top-level object");
        return table;
    }

private:
    void skip_space() { in_.skip_while(is_space); }

    [[noreturn]] void expected(std::string_view what) {
        throw in_.error_here(fmt::format("expected {}, got {}", what, in_.describe_next()));
    }

    void read_variable(DataTable& table) {
        if (in_.peek() != '"')
            expected("a variable name in double quotes");
        const TextMark at = in_.mark();
        DataValue v;
        v.name = read_string();
        if (v.name.empty())
            throw in_.error_at(at, "empty variable name");
        if (const DataValue* first = table.find(v.name))
            throw in_.error_at(at, fmt::format("duplicate variable `{}` (first given at {})",
                                               v.name, first->source));
        const SourcePosition p = at.position();
        v.source = fmt::format("{}:{}:{}", in_.file_name(), p.line, p.column);
        skip_space();
        if (!in_.accept(':'))
            expected(fmt::format("`:` after the name `{}`", v.name));
        skip_space();
        if (in_.peek() == '[')
            read_array(v);
        else
            read_scalar(v);
        table.add(std::move(v));
    }

    // At the opening quote; returns the decoded text.
    std::string read_string() {
        const TextMark open = in_.mark();
        in_.advance();
        std::string out;
        for (;;) {
            const TextMark run_at = in_.mark();
            const std::string_view run =
                in_.take_while([](char c) { return c != '"' && c != '\\' && c != '\n'; });
            // JSON text is UTF-8 (RFC 8259): a stray byte is an error where it stands.
            for (std::size_t i = 0; i < run.size();) {
                const std::size_t n = utf8_length_at(run, i);
                if (n == 0)
                    throw in_.error_at({run_at.offset + i, run_at.line_start, run_at.line},
                                       describe_character(run, i) + "; JSON text is UTF-8");
                i += n;
            }
            out += run;
            const int c = in_.peek();
            if (c == '"') {
                in_.advance();
                return out;
            }
            if (c == TextStream::kEnd || c == '\n')
                throw in_.error_at(open, "unterminated string");
            in_.advance();  // the backslash
            const TextMark esc = in_.mark();
            const int e = in_.peek();
            if (e != TextStream::kEnd)
                in_.advance();
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': append_utf8(out, read_code_point(esc)); break;
                default: throw in_.error_at(esc, "invalid escape in a string");
            }
        }
    }

    std::uint32_t read_hex4(const TextMark& esc) {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hex_value(in_.peek());
            if (h < 0)
                throw in_.error_at(esc, "expected four hex digits after `\\u`");
            v = v * 16 + static_cast<std::uint32_t>(h);
            in_.advance();
        }
        return v;
    }

    // After `\u`: one code point, joining a UTF-16 surrogate pair.
    std::uint32_t read_code_point(const TextMark& esc) {
        const std::uint32_t hi = read_hex4(esc);
        if (hi < 0xD800 || hi > 0xDBFF)
            return hi;
        if (in_.peek() != '\\' || in_.peek(1) != 'u')
            return 0xFFFD;
        in_.advance();
        in_.advance();
        const std::uint32_t lo = read_hex4(esc);
        if (lo < 0xDC00 || lo > 0xDFFF)
            return 0xFFFD;
        return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    }

    // One number (or "NaN", "Inf", ... as a string or a bare word) appended to `v`.
    void read_scalar(DataValue& v) {
        const TextMark at = in_.mark();
        const int c = in_.peek();
        if (c == '"') {
            const std::string s = read_string();
            if (const auto x = parse_special_real(s))
                return v.push_real(*x);
            throw in_.error_at(
                at, fmt::format("variable `{}`: the string \"{}\" is not a number (strings may "
                                "only be \"NaN\", \"Inf\", \"-Inf\", \"Infinity\", \"-Infinity\")",
                                v.name, s));
        }
        if (c == '{')
            throw in_.error_at(at, fmt::format("variable `{}`: an object is a tuple, and tuples "
                                               "are not supported",
                                               v.name));
        const std::string_view token = in_.take_while(is_atom_char);
        if (token.empty())
            expected(fmt::format("a number for `{}`", v.name));
        if (const auto n = parse_number_literal(token)) {
            if (!n->is_int)
                return v.push_real(n->real_value);
            if (n->int_out_of_range)
                throw in_.error_at(at, fmt::format("variable `{}`: the integer {} is out of range "
                                                   "for a Stan int (32-bit); write {}.0 if it is "
                                                   "real",
                                                   v.name, token, token));
            return v.push_int(n->int_value);
        }
        if (const auto x = parse_special_real(token))
            return v.push_real(*x);
        if (token == "true" || token == "false" || token == "null")
            throw in_.error_at(at,
                               fmt::format("variable `{}`: `{}` is not a number", v.name, token));
        throw in_.error_at(at, fmt::format("expected a number for `{}`, got `{}`", v.name, token));
    }

    // Nested arrays, at the first `[`. The first path down to a number (or to an empty
    // innermost array) fixes the depth; the first array to close at each depth fixes its size;
    // every later array must agree, or the array is ragged.
    void read_array(DataValue& v) {
        std::vector<std::int64_t> dims;   // per depth; -1 until the first array there closes
        std::vector<std::int64_t> count;  // elements so far of each open array
        std::size_t leaf_depth = 0;       // brackets around a number; 0 until known
        auto ragged = [&](std::string_view why) {
            return in_.error_here(fmt::format("ragged array `{}`: {}", v.name, why));
        };
        auto start_element = [&] {
            const std::int64_t size = dims[count.size() - 1];
            if (size >= 0 && count.back() == size)
                throw ragged(fmt::format(
                    "expected `]` after {} elements, as in the first array at this depth", size));
            ++count.back();
        };
        auto open = [&] {
            if (leaf_depth > 0 && count.size() + 1 > leaf_depth)
                throw ragged(
                    fmt::format("expected a number, not `[` (the first element is "
                                "nested {} deep)",
                                leaf_depth));
            if (!count.empty())
                start_element();
            count.push_back(0);
            if (dims.size() < count.size())
                dims.push_back(-1);
            in_.advance();
        };

        open();
        bool after_value = false;  // a value or `]` was read: expect `,` or `]`
        bool after_comma = false;  // a value must follow
        for (;;) {
            skip_space();
            const int c = in_.peek();
            if (c == ']' && !after_comma) {
                const std::size_t depth = count.size();
                if (leaf_depth == 0)
                    leaf_depth = depth;  // an empty innermost array
                std::int64_t& size = dims[depth - 1];
                if (size < 0)
                    size = count.back();
                else if (size != count.back())
                    throw ragged(fmt::format(
                        "this array has {} elements, the first array at this depth has {}",
                        count.back(), size));
                count.pop_back();
                in_.advance();
                if (count.empty())
                    break;
                after_value = true;
                continue;
            }
            if (after_value) {
                if (!in_.accept(','))
                    expected("`,` or `]`");
                after_value = false;
                after_comma = true;
                continue;
            }
            after_comma = false;
            if (c == '[') {
                open();
                continue;
            }
            if (leaf_depth == 0) {
                leaf_depth = count.size();
            } else if (count.size() != leaf_depth) {
                throw ragged(
                    fmt::format("expected `[`, not a number (the first element is nested {} deep)",
                                leaf_depth));
            }
            start_element();
            read_scalar(v);
            after_value = true;
        }

        v.dims = std::move(dims);
        // Nested arrays are rows: the last index varies fastest. Stored column-major.
        if (v.is_int())
            row_major_to_column_major(v.ints, v.dims);
        else
            row_major_to_column_major(v.reals, v.dims);
        v.type_unknown = v.size() == 0;
    }

    TextStream& in_;
};

}  // namespace

DataTable read_json_data(const std::filesystem::path& file) {
    TextStream in(file);
    return JsonReader(in).read();
}

DataTable read_json_data(std::string_view text, std::string file_name) {
    TextStream in(text, std::move(file_name));
    return JsonReader(in).read();
}

}  // namespace advi
