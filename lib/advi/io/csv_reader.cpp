#include <advi/io/csv_reader.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/text_stream.hpp>

namespace advi {

namespace {

bool is_inline_space(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

// One field of a row: a view of the stream's buffer (or of the unquoted copy) that lives until
// the next read.
struct Field {
    std::string_view text;
    TextMark at;
};

// Lines of fields. Comment lines (`#` first) are collected, blank lines skipped.
class CsvParser {
public:
    CsvParser(TextStream& in, std::vector<std::string>* comments) : in_(in), comments_(comments) {}

    // The header's names and where each starts; throws on a file without one.
    std::vector<std::string> read_header(std::vector<TextMark>& marks) {
        skip_comments_and_blank_lines();
        if (in_.at_end())
            throw in_.error_here("empty file: expected a header line of column names");
        std::vector<std::string> names;
        std::unordered_set<std::string> seen;
        for (;;) {
            const Field f = read_field();
            const std::string name(trim(f.text));
            if (name.empty())
                throw in_.error_at(f.at, fmt::format("column {} has no name (R's row names? "
                                                     "write the file with row.names = FALSE)",
                                                     names.size() + 1));
            if (!seen.insert(name).second)
                throw in_.error_at(f.at, fmt::format("duplicate column `{}`", name));
            names.push_back(name);
            marks.push_back(f.at);
            if (!in_.accept(','))
                break;
        }
        end_line();
        columns_ = names.size();
        return names;
    }

    // Calls on_field(k, field) for the fields of the next row; false at the end of the file.
    template <class OnField>
    bool read_row(OnField on_field) {
        skip_comments_and_blank_lines();
        if (in_.at_end())
            return false;
        ++rows_;
        std::size_t k = 0;
        TextMark extra;
        for (;;) {
            const Field f = read_field();
            if (k < columns_)
                on_field(k, f);
            else if (k == columns_)
                extra = f.at;
            ++k;
            if (!in_.accept(','))
                break;
        }
        if (k != columns_) {
            const TextMark at = k > columns_ ? extra : in_.mark();
            throw in_.error_at(at, fmt::format("row {} has {} field{}, the header has {}", rows_, k,
                                               k == 1 ? "" : "s", columns_));
        }
        end_line();
        return true;
    }

    [[nodiscard]] std::int64_t rows() const { return rows_; }

private:
    void skip_comments_and_blank_lines() {
        for (;;) {
            const int c = in_.peek();
            if (c == '#') {
                std::string_view line = in_.take_while([](char ch) { return ch != '\n'; });
                if (!line.empty() && line.back() == '\r')
                    line.remove_suffix(1);
                if (comments_)
                    comments_->emplace_back(line);
                in_.accept('\n');
            } else if (c == '\n' || (c == '\r' && in_.peek(1) == '\n')) {
                in_.accept('\r');
                in_.advance();
            } else {
                return;
            }
        }
    }

    Field read_field() {
        in_.skip_while(is_inline_space);
        Field f{.text = {}, .at = in_.mark()};
        if (in_.peek() != '"') {
            f.text = trim(in_.take_while([](char c) { return c != ',' && c != '\n'; }));
            return f;
        }
        // RFC 4180: a quote inside a quoted field is doubled.
        in_.advance();
        unquoted_.clear();
        for (;;) {
            unquoted_ += in_.take_while([](char c) { return c != '"'; });
            if (in_.at_end())
                throw in_.error_at(f.at, "unterminated quoted field");
            in_.advance();
            if (!in_.accept('"'))
                break;
            unquoted_ += '"';
        }
        in_.skip_while([](char c) { return is_inline_space(c) || c == '\r'; });
        const int c = in_.peek();
        if (c != ',' && c != '\n' && c != TextStream::kEnd)
            throw in_.error_here(fmt::format(
                "expected `,` or a line break after a quoted field, got {}", in_.describe_next()));
        f.text = unquoted_;
        return f;
    }

    void end_line() {
        // read_field stopped at the line break (a trailing \r was trimmed from the field).
        in_.accept('\n');
    }

    TextStream& in_;
    std::vector<std::string>* comments_;
    std::string unquoted_;
    std::size_t columns_ = 0;
    std::int64_t rows_ = 0;
};

std::optional<double> parse_real(std::string_view text) {
    if (const auto n = parse_number_literal(text))
        return n->real_value;
    return parse_special_real(text);
}

[[noreturn]] void bad_field(TextStream& in, const Field& f, std::string_view column) {
    if (f.text.empty())
        throw in.error_at(f.at, fmt::format("column `{}`: an empty field (a missing value); Stan "
                                            "data cannot be missing",
                                            column));
    throw in.error_at(f.at,
                      fmt::format("column `{}`: expected a number, got `{}`", column, f.text));
}

// Stan's flattened name of an array element: "X.2.3" is X with indices {2, 3}. A name
// without numeric suffixes is a column by itself.
struct FlatName {
    std::string base;
    std::vector<std::int64_t> indices;  // 1-based as written
};

std::optional<FlatName> split_flat_name(std::string_view name) {
    FlatName out;
    std::string_view rest = name;
    for (;;) {
        const std::size_t dot = rest.rfind('.');
        if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size())
            break;
        const std::string_view digits = rest.substr(dot + 1);
        if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            break;
        const auto n = parse_number_literal(digits);
        out.indices.insert(out.indices.begin(), n && !n->int_out_of_range ? n->int_value : -1);
        rest = rest.substr(0, dot);
    }
    if (out.indices.empty())
        return std::nullopt;
    out.base = std::string(rest);
    return out;
}

// A variable of the table: one plain column, or the columns of X.i.j gathered.
struct Variable {
    std::string name;
    std::vector<std::size_t> columns;        // header positions, column-major order
    std::vector<std::int64_t> element_dims;  // {} for a plain column
};

// Groups the header into variables, checking that every gathered array is complete.
std::vector<Variable> plan_variables(TextStream& in, const std::vector<std::string>& names,
                                     const std::vector<TextMark>& marks) {
    struct Group {
        std::string name;
        std::optional<std::size_t> plain;  // a column named exactly `name`
        std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> elements;
    };
    std::vector<Group> groups;
    std::map<std::string, std::size_t, std::less<>> by_name;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const std::optional<FlatName> flat = split_flat_name(names[k]);
        const std::string base = flat ? flat->base : names[k];
        auto [it, inserted] = by_name.emplace(base, groups.size());
        if (inserted)
            groups.push_back({.name = base, .plain = {}, .elements = {}});
        Group& g = groups[it->second];
        if (flat) {
            for (std::int64_t i : flat->indices)
                if (i < 1)
                    throw in.error_at(marks[k],
                                      fmt::format("column `{}`: indices start at 1", names[k]));
            if (!g.elements.empty() && g.elements[0].second.size() != flat->indices.size())
                throw in.error_at(marks[k], fmt::format("column `{}`: `{}` also has columns with "
                                                        "{} indices (`{}`)",
                                                        names[k], base, g.elements[0].second.size(),
                                                        names[g.elements[0].first]));
            g.elements.emplace_back(k, flat->indices);
        } else {
            g.plain = k;
        }
        if (g.plain && !g.elements.empty()) {
            const std::size_t later = std::max(*g.plain, g.elements[0].first);
            throw in.error_at(marks[later],
                              fmt::format("column `{}`: `{}` is both a column and "
                                          "the array of columns `{}`",
                                          names[later], base, names[g.elements[0].first]));
        }
    }

    std::vector<Variable> out;
    for (Group& g : groups) {
        if (g.plain) {
            out.push_back({.name = g.name, .columns = {*g.plain}, .element_dims = {}});
            continue;
        }
        // The sizes are the largest indices; the columns go in column-major order of their
        // indices, which is the order of their blocks in the gathered array.
        const std::size_t rank = g.elements[0].second.size();
        std::vector<std::int64_t> dims(rank, 0);
        for (const auto& e : g.elements)
            for (std::size_t r = 0; r < rank; ++r) dims[r] = std::max(dims[r], e.second[r]);
        // The product of the sizes must be the number of columns; when it does not fit in
        // int64 it cannot be, and the linear positions below (each less than it) would overflow.
        const auto columns = static_cast<std::int64_t>(g.elements.size());
        std::int64_t total = 1;
        for (std::int64_t d : dims)
            if (__builtin_mul_overflow(total, d, &total))
                throw in.error_at(marks[g.elements[0].first],
                                  fmt::format("columns of `{}`: the largest indices make it {}, "
                                              "more elements than its {} columns",
                                              g.name, fmt::join(dims, " x "), columns));
        auto linear = [&](const std::vector<std::int64_t>& idx) {
            std::int64_t lin = 0;
            for (std::size_t r = rank; r-- > 0;) lin = lin * dims[r] + (idx[r] - 1);
            return lin;
        };
        std::stable_sort(g.elements.begin(), g.elements.end(), [&](const auto& a, const auto& b) {
            return linear(a.second) < linear(b.second);
        });
        std::int64_t expected = 0;
        for (std::size_t e = 0; e < g.elements.size(); ++e, ++expected) {
            const std::int64_t lin = linear(g.elements[e].second);
            if (lin < expected)
                throw in.error_at(
                    marks[g.elements[e].first],
                    fmt::format("column `{}`: the same element as `{}`", names[g.elements[e].first],
                                names[g.elements[e - 1].first]));
            if (lin > expected)
                break;
        }
        if (expected != total || static_cast<std::int64_t>(g.elements.size()) != total) {
            // Name the first missing element, counting in column-major order.
            std::vector<std::int64_t> idx(rank);
            std::int64_t rem = expected;
            for (std::size_t r = 0; r < rank; ++r) {
                idx[r] = rem % dims[r] + 1;
                rem /= dims[r];
            }
            throw in.error_at(
                marks[g.elements[0].first],
                fmt::format("columns of `{}`: `{}.{}` is missing (the largest "
                            "indices make it {})",
                            g.name, g.name, fmt::join(idx, "."), fmt::join(dims, " x ")));
        }
        Variable v{.name = g.name, .columns = {}, .element_dims = dims};
        for (const auto& e : g.elements) v.columns.push_back(e.first);
        out.push_back(std::move(v));
    }
    return out;
}

DataTable read_data_csv(TextStream& in) {
    CsvParser csv(in, nullptr);
    std::vector<TextMark> marks;
    const std::vector<std::string> names = csv.read_header(marks);
    const std::vector<Variable> plan = plan_variables(in, names, marks);

    // Rows are appended straight into a buffer per column (int until a real turns up).
    std::vector<DataValue> columns(names.size());
    for (std::size_t k = 0; k < names.size(); ++k) columns[k].name = names[k];
    auto append = [&](std::size_t k, const Field& f) {
        DataValue& col = columns[k];
        const auto n = parse_number_literal(f.text);
        if (n && n->is_int) {
            if (n->int_out_of_range)
                throw in.error_at(f.at, fmt::format("column `{}`: the integer {} is out of range "
                                                    "for a Stan int (32-bit); write {}.0 if it is "
                                                    "real",
                                                    col.name, f.text, f.text));
            col.push_int(n->int_value);
        } else if (n) {
            col.push_real(n->real_value);
        } else if (const auto x = parse_special_real(f.text)) {
            col.push_real(*x);
        } else {
            bad_field(in, f, col.name);
        }
    };
    while (csv.read_row(append)) continue;
    const std::int64_t rows = csv.rows();

    DataTable table;
    for (const Variable& var : plan) {
        const SourcePosition p = marks[var.columns[0]].position();
        const std::string source = fmt::format("{}:{}:{}", in.file_name(), p.line, p.column);
        if (var.element_dims.empty()) {
            DataValue v = std::move(columns[var.columns[0]]);
            v.dims = {rows};
            v.type_unknown = rows == 0;
            v.source = source;
            table.add(std::move(v));
            continue;
        }
        DataValue v;
        v.name = var.name;
        v.source = source;
        v.dims = {rows};
        v.dims.insert(v.dims.end(), var.element_dims.begin(), var.element_dims.end());
        v.type_unknown = rows == 0;
        const bool all_int = std::all_of(var.columns.begin(), var.columns.end(),
                                         [&](std::size_t k) { return columns[k].is_int(); });
        if (!all_int)
            v.promote_to_real();
        // Column-major with the row first: each column is one contiguous block, in the order
        // the plan sorted them. Each column is released once copied, and reserve() leaves the
        // pages untouched until written, so the peak stays near one copy of the data.
        const std::size_t total = static_cast<std::size_t>(rows) * var.columns.size();
        if (all_int)
            v.ints.reserve(total);
        else
            v.reals.reserve(total);
        for (std::size_t k : var.columns) {
            DataValue& col = columns[k];
            if (all_int)
                v.ints.insert(v.ints.end(), col.ints.begin(), col.ints.end());
            else if (col.is_int())
                v.reals.insert(v.reals.end(), col.ints.begin(), col.ints.end());
            else
                v.reals.insert(v.reals.end(), col.reals.begin(), col.reals.end());
            col = DataValue{};
        }
        table.add(std::move(v));
    }
    return table;
}

StanCsv read_output_csv(TextStream& in) {
    StanCsv out;
    CsvParser csv(in, &out.comments);
    std::vector<TextMark> marks;
    out.columns = csv.read_header(marks);
    out.header_comments = out.comments.size();
    std::vector<double> values;  // row-major as read
    auto append = [&](std::size_t k, const Field& f) {
        const auto x = parse_real(f.text);
        if (!x)
            bad_field(in, f, out.columns[k]);
        values.push_back(*x);
    };
    while (csv.read_row(append)) continue;
    const auto rows = static_cast<Eigen::Index>(csv.rows());
    const auto cols = static_cast<Eigen::Index>(out.columns.size());
    out.values =
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            values.data(), rows, cols);
    return out;
}

}  // namespace

DataTable read_csv_data(const std::filesystem::path& file) {
    TextStream in(file);
    return read_data_csv(in);
}

DataTable read_csv_data(std::string_view text, std::string file_name) {
    TextStream in(text, std::move(file_name));
    return read_data_csv(in);
}

StanCsv read_stan_csv(const std::filesystem::path& file) {
    TextStream in(file);
    return read_output_csv(in);
}

StanCsv read_stan_csv(std::string_view text, std::string file_name) {
    TextStream in(text, std::move(file_name));
    return read_output_csv(in);
}

Eigen::Index StanCsv::column_index(std::string_view name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : static_cast<Eigen::Index>(it - columns.begin());
}

namespace {

std::string_view trimmed(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

StanCsv::KeyValues key_values(const std::vector<std::string>& lines, std::size_t begin,
                              std::size_t end) {
    StanCsv::KeyValues out;
    for (std::size_t i = begin; i < end; ++i) {
        std::string_view text = lines[i];
        if (!text.empty() && text.front() == '#')
            text.remove_prefix(1);
        text = trimmed(text);
        if (text.empty())
            continue;
        const std::size_t equals = text.find(" = "), colon = text.find(": ");
        const std::size_t at = std::min(equals, colon);
        if (at == std::string_view::npos) {
            out.emplace_back(std::string(text), "");
            continue;
        }
        const std::size_t skip = at == equals ? 3 : 2;
        out.emplace_back(std::string(trimmed(text.substr(0, at))),
                         std::string(trimmed(text.substr(at + skip))));
    }
    return out;
}

}  // namespace

StanCsv::KeyValues StanCsv::settings() const {
    return key_values(comments, 0, std::min(header_comments, comments.size()));
}

StanCsv::KeyValues StanCsv::trailer() const {
    return key_values(comments, std::min(header_comments, comments.size()), comments.size());
}

std::string StanCsv::setting(std::string_view key) const {
    for (auto& [k, v] : settings()) {
        if (k == key) {
            constexpr std::string_view kDefault = " (Default)";
            return v.ends_with(kDefault) ? v.substr(0, v.size() - kDefault.size()) : v;
        }
    }
    return "";
}

Eigen::VectorXd StanCsv::column(std::string_view name) const {
    const Eigen::Index k = column_index(name);
    if (k < 0)
        throw DataError(fmt::format("column `{}` is not in the CSV file", name));
    return values.col(k);
}

}  // namespace advi
