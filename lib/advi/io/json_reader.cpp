#include <advi/io/json_reader.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
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

// Where the numbers of one JSON value go, fixed by its first occurrence: a variable, a slot of
// a tuple, or one slot across the elements of an array of tuples (each element must match the
// first). A tuple gives no variable of its own: its slots become variables named by their path
// ("x.1", "x.2.1"), so that everything after the reader sees only int and real arrays.
struct ValueNode {
    enum class Elements { Unknown, Numbers, Tuples };

    std::string path;  // "x", "x.2", "x.2.1"
    int slot = 0;      // its key in the enclosing tuple
    // The arrays around the elements, outermost first; -1 until the first array at that depth
    // closes. None for a lone number or tuple.
    std::vector<std::int64_t> dims;
    // How many arrays are around each element: set by the first element, or by the first empty
    // innermost array (`[[], []]`).
    std::optional<std::size_t> depth;
    Elements elements = Elements::Unknown;  // stays Unknown for an array without elements
    bool seen = false;  // an earlier occurrence fixed dims, depth and elements: this one must match
    // Numbers: row-major over the dims of the arrays of tuples around the node, then `dims`.
    DataValue leaf;
    std::vector<ValueNode> slots;  // Tuples: by key, "1" first, once the first tuple is read
};

ValueNode value_node(std::string path, int slot = 0) {
    ValueNode node;
    node.leaf.name = path;  // read_scalar names the variable in its messages
    node.path = std::move(path);
    node.slot = slot;
    return node;
}

std::string_view element_name(ValueNode::Elements e) {
    return e == ValueNode::Elements::Tuples ? "a tuple" : "a number";
}

// A tuple's key as its slot number: "1", "2", ... (no sign, no leading zero, no exponent).
std::optional<int> parse_slot_number(std::string_view key) {
    if (key.empty() || key.size() > 9 || key[0] == '0')
        return std::nullopt;
    int n = 0;
    for (const char c : key) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// A recursive-descent reader without a document: each number goes straight into the typed
// buffer of its variable (a tuple's slot for numbers inside tuples), nested arrays are checked
// rectangular as they arrive, and every element of an array of tuples is checked against the
// first.
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
    // Each tuple level is a level of recursion (arrays are read in a loop): a bound keeps a
    // hostile file from overflowing the stack. Stan programs nest tuples a few levels at most.
    static constexpr int kMaxTupleNesting = 100;

    void skip_space() { in_.skip_while(is_space); }

    [[noreturn]] void expected(std::string_view what) {
        throw in_.error_here(fmt::format("expected {}, got {}", what, in_.describe_next()));
    }

    void read_variable(DataTable& table) {
        if (in_.peek() != '"')
            expected("a variable name in double quotes");
        const TextMark at = in_.mark();
        ValueNode root = value_node(read_string());
        if (root.path.empty())
            throw in_.error_at(at, "empty variable name");
        // The names read so far, not the table: a tuple variable has no entry of its own there.
        if (const auto first = first_given_.find(root.path); first != first_given_.end())
            throw in_.error_at(at, fmt::format("duplicate variable `{}` (first given at {})",
                                               root.path, first->second));
        const SourcePosition p = at.position();
        const std::string source = fmt::format("{}:{}:{}", in_.file_name(), p.line, p.column);
        first_given_.emplace(root.path, source);
        skip_space();
        if (!in_.accept(':'))
            expected(fmt::format("`:` after the name `{}`", root.path));
        skip_space();
        read_value(root, "");
        add_variables(table, root, {}, source, at);
    }

    // The variables of a value read: a node of numbers is one variable, a tuple's slots are one
    // each. Arrays of tuples put their dims before those of each slot, as if every slot had
    // been written as an array of its own.
    void add_variables(DataTable& table, ValueNode& node, std::vector<std::int64_t> dims,
                       const std::string& source, const TextMark& name_at) {
        dims.insert(dims.end(), node.dims.begin(), node.dims.end());
        if (node.elements == ValueNode::Elements::Tuples) {
            for (ValueNode& slot : node.slots) add_variables(table, slot, dims, source, name_at);
            return;
        }
        DataValue& v = node.leaf;
        // A slot's path may also be the name of another variable ("x.1" beside tuple `x`).
        if (const DataValue* first = table.find(v.name))
            throw in_.error_at(name_at, fmt::format("duplicate variable `{}` (first given at {})",
                                                    v.name, first->source));
        v.dims = std::move(dims);
        v.source = source;
        // Nested arrays are rows: the last index varies fastest. Stored column-major.
        if (v.is_int())
            row_major_to_column_major(v.ints, v.dims);
        else
            row_major_to_column_major(v.reals, v.dims);
        v.type_unknown = v.size() == 0;
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

    // One value into `node`: a number, a tuple, or nested arrays of either. `array` names the
    // innermost array of tuples around the value, for messages when an element differs from
    // the first.
    void read_value(ValueNode& node, std::string_view array) {
        if (in_.peek() == '[') {
            read_arrays(node, array);
        } else {
            if (node.depth && *node.depth != 0)
                throw shape_error(
                    node, array,
                    fmt::format("expected `[`, not {} ({})", next_element(), nesting(node)));
            node.depth = 0;
            read_element(node, array);
        }
        node.seen = true;
    }

    // Nested arrays, at the first `[`. The first path down to an element (or to an empty
    // innermost array) fixes the depth; the first array to close at each depth fixes its size;
    // every later array must agree, or the array is ragged. A node seen before (the same slot
    // in an earlier element of an array of tuples) arrives with all of these fixed.
    void read_arrays(ValueNode& node, std::string_view array) {
        std::vector<std::int64_t>& dims = node.dims;
        std::vector<std::int64_t> count;  // elements so far of each open array
        const std::string first_array = node.seen ? fmt::format("the first element of `{}`", array)
                                                  : std::string("the first array at this depth");
        auto start_element = [&] {
            const std::int64_t size = dims[count.size() - 1];
            if (size >= 0 && count.back() == size)
                throw shape_error(
                    node, array,
                    fmt::format("expected `]` after {} elements, as in {}", size, first_array));
            ++count.back();
        };
        auto open = [&] {
            if (node.depth && count.size() + 1 > *node.depth)
                throw shape_error(node, array,
                                  fmt::format("expected {}, not `[` ({})",
                                              element_name(node.elements), nesting(node)));
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
                if (!node.depth)
                    node.depth = depth;  // an empty innermost array
                std::int64_t& size = dims[depth - 1];
                if (size < 0)
                    size = count.back();
                else if (size != count.back())
                    throw shape_error(node, array,
                                      fmt::format("this array has {} elements, {} has {}",
                                                  count.back(), first_array, size));
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
            if (!node.depth)
                node.depth = count.size();
            else if (count.size() != *node.depth)
                throw shape_error(
                    node, array,
                    fmt::format("expected `[`, not {} ({})", next_element(), nesting(node)));
            start_element();
            read_element(node, array);
            after_value = true;
        }
    }

    // One element, inside all the arrays of its value: a number into the node's values, or a
    // tuple into its slots. One array holds numbers or tuples, not both.
    void read_element(ValueNode& node, std::string_view array) {
        const auto kind =
            in_.peek() == '{' ? ValueNode::Elements::Tuples : ValueNode::Elements::Numbers;
        // After tuples, what cannot start a number is a syntax error (`[{"1": 1},]`), not a
        // mix of numbers and tuples.
        if (node.elements == ValueNode::Elements::Tuples && kind == ValueNode::Elements::Numbers &&
            !is_atom_char(static_cast<char>(in_.peek())) && in_.peek() != '"')
            expected(fmt::format("a tuple (an object) for `{}`", node.path));
        if (node.elements == ValueNode::Elements::Unknown) {
            node.elements = kind;
        } else if (node.elements != kind) {
            if (!node.seen)
                throw in_.error_here(
                    fmt::format("array `{}` mixes numbers and tuples (objects)", node.path));
            throw shape_error(node, array,
                              fmt::format("expected {}, not {}", element_name(node.elements),
                                          element_name(kind)));
        }
        if (kind == ValueNode::Elements::Numbers)
            return read_scalar(node.leaf);
        // The tuples of an array are its elements, compared with its first; a lone tuple is
        // compared with the same slot of the first element of the array around it.
        read_tuple(node, node.dims.empty() ? array : std::string_view(node.path));
    }

    // A tuple at `{`: keys "1" to "k" in any order, each slot a value of its own. The first
    // tuple read into `node` fixes its slots; every later one (the next element of an array of
    // tuples) must have the same.
    void read_tuple(ValueNode& node, std::string_view array) {
        const TextMark open = in_.mark();
        if (++tuple_nesting_ > kMaxTupleNesting)
            throw in_.error_at(open, fmt::format("variable `{}`: tuples nested more than {} deep",
                                                 node.path, kMaxTupleNesting));
        in_.advance();
        const bool first = node.slots.empty();
        std::set<int> keys_of_first;  // the first tuple's keys so far, for duplicates
        std::vector<bool> given(node.slots.size(), false);  // later tuples: by slot - 1
        skip_space();
        if (!in_.accept('}')) {
            for (;;) {
                skip_space();
                const TextMark key_at = in_.mark();
                if (in_.peek() != '"')
                    expected(
                        fmt::format("a slot number in double quotes (\"1\", \"2\", ...) "
                                    "for tuple `{}`",
                                    node.path));
                const std::string key = read_string();
                const std::optional<int> slot = parse_slot_number(key);
                if (!slot)
                    throw in_.error_at(key_at,
                                       fmt::format("tuple `{}`: the key \"{}\" is not a slot "
                                                   "number (CmdStan writes the slots of a tuple "
                                                   "as \"1\", \"2\", ...)",
                                                   node.path, key));
                auto twice = [&] {
                    return in_.error_at(key_at, fmt::format("tuple `{}`: slot \"{}\" is given "
                                                            "twice",
                                                            node.path, *slot));
                };
                ValueNode* target = nullptr;
                if (first) {
                    if (!keys_of_first.insert(*slot).second)
                        throw twice();
                    node.slots.push_back(value_node(fmt::format("{}.{}", node.path, *slot), *slot));
                    target = &node.slots.back();
                } else {
                    if (static_cast<std::size_t>(*slot) > node.slots.size()) {
                        const std::string first_slots =
                            node.slots.size() == 1
                                ? std::string("only slot \"1\"")
                                : fmt::format("slots \"1\" to \"{}\"", node.slots.size());
                        throw in_.error_at(key_at,
                                           fmt::format("{}: slot \"{}\" is not in the "
                                                       "first element, which has {}",
                                                       differs(node, array), *slot, first_slots));
                    }
                    if (given[*slot - 1])
                        throw twice();
                    given[*slot - 1] = true;
                    target = &node.slots[*slot - 1];
                }
                skip_space();
                if (!in_.accept(':'))
                    expected(fmt::format("`:` after the key \"{}\" of tuple `{}`", key, node.path));
                skip_space();
                read_value(*target, array);
                skip_space();
                if (in_.accept(','))
                    continue;
                if (in_.accept('}'))
                    break;
                expected("`,` or `}`");
            }
        }
        if (first) {
            if (node.slots.empty())
                throw in_.error_at(open, fmt::format("tuple `{}` has no slots", node.path));
            std::sort(node.slots.begin(), node.slots.end(),
                      [](const ValueNode& a, const ValueNode& b) { return a.slot < b.slot; });
            for (std::size_t i = 0; i < node.slots.size(); ++i)
                if (node.slots[i].slot != static_cast<int>(i) + 1)
                    throw in_.error_at(
                        open, fmt::format("tuple `{}` has slot \"{}\" but no slot \"{}\" (the "
                                          "keys of a tuple are \"1\" to \"k\")",
                                          node.path, node.slots.back().slot, i + 1));
        } else {
            for (std::size_t i = 0; i < given.size(); ++i)
                if (!given[i])
                    throw in_.error_at(
                        open, fmt::format("{}: no slot \"{}\"", differs(node, array), i + 1));
        }
        --tuple_nesting_;
    }

    // How messages introduce a value that disagrees with the same value in the first element
    // of the array of tuples around it.
    static std::string differs(const ValueNode& node, std::string_view array) {
        if (node.path == array)
            return fmt::format("this element of `{}` differs from the first", array);
        return fmt::format("`{}` differs from the first element of `{}`", node.path, array);
    }

    // A value whose shape disagrees: within its own arrays (ragged), or with the same slot in
    // the first element of the array of tuples around it.
    ParseError shape_error(const ValueNode& node, std::string_view array, std::string_view why) {
        if (!node.seen)
            return in_.error_here(fmt::format("ragged array `{}`: {}", node.path, why));
        return in_.error_here(fmt::format("{}: {}", differs(node, array), why));
    }

    // Where the elements of `node` sit, for "expected `[`, not ..." messages.
    static std::string nesting(const ValueNode& node) {
        if (!node.seen)
            return fmt::format("the first element is nested {} deep", *node.depth);
        if (*node.depth == 0)
            return "not an array in the first element";
        return fmt::format("nested {} deep in the first element", *node.depth);
    }

    // What the next value is, for "expected `[`, not ..." messages.
    std::string_view next_element() { return in_.peek() == '{' ? "a tuple" : "a number"; }

    TextStream& in_;
    std::map<std::string, std::string, std::less<>> first_given_;  // variable name -> its source
    int tuple_nesting_ = 0;
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
