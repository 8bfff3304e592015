// Stan CSV text: column names, the rows written to round-trip exactly, the file written whole.
#include <advi/io/cmdstan_csv.hpp>

#include <cmath>
#include <iterator>
#include <ostream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/io/output_file.hpp>

namespace advi {

namespace {

namespace fs = std::filesystem;

// By default the shortest text that reads back as the same double (fmt's `{}`), so a file read
// back gives the fit's values bit for bit; CmdStan rounds to 6 significant digits unless
// sig_figs asks for more, and we prefer exact round trip by default. With sig_figs, CmdStan's
// rounding (`%.{sig_figs}g`). NaN is written without a sign: CmdStan's values are "nan",
// "inf", "-inf".
void append_number(fmt::memory_buffer& buf, double x, int sig_figs) {
    if (std::isnan(x)) {
        buf.append(std::string_view("nan"));
        return;
    }
    if (sig_figs < 0)
        fmt::format_to(std::back_inserter(buf), "{}", x);
    else
        fmt::format_to(std::back_inserter(buf), "{:.{}g}", x, sig_figs);
}

void append_row(fmt::memory_buffer& buf, const auto& row, int sig_figs) {
    for (Eigen::Index j = 0; j < row.size(); ++j) {
        if (j > 0)
            buf.push_back(',');
        append_number(buf, row[j], sig_figs);
    }
    buf.push_back('\n');
}

// A comment line per line of `text` ("# text"; an empty line is a bare "#").
void append_comment(fmt::memory_buffer& buf, std::string_view text) {
    for (;;) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        buf.push_back('#');
        if (!line.empty()) {
            buf.push_back(' ');
            buf.append(line);
        }
        buf.push_back('\n');
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
}

// The element count of `dims`, refused when its column names would not fit in memory.
std::int64_t element_count(std::string_view name, std::span<const std::int64_t> dims) {
    const auto n = checked_product(dims);
    require_memory(fmt::format("the CSV columns of `{}`", name), n, 32);
    return *n;
}

}  // namespace

std::string describe_dims(std::span<const std::int64_t> dims) {
    return dims.empty() ? "a scalar" : fmt::format("dims {}", fmt::join(dims, "x"));
}

std::vector<std::string> stan_column_names(std::string_view name,
                                           std::span<const std::int64_t> dims, bool complex) {
    if (complex && !dims.empty()) {
        std::vector<std::string> out;
        for (const std::string& element : stan_column_names(name, dims.subspan(1))) {
            out.push_back(element + ".real");
            out.push_back(element + ".imag");
        }
        return out;
    }
    for (std::int64_t d : dims) {
        if (d < 0)
            throw ShapeError(fmt::format("column names of `{}`: {} has a negative size", name,
                                         describe_dims(dims)));
    }
    std::vector<std::string> out;
    if (dims.empty()) {
        out.emplace_back(name);
        return out;
    }
    const std::int64_t n = element_count(name, dims);
    out.reserve(static_cast<std::size_t>(n));
    // Column-major over all indices, array dims included (the first index fastest), as Stan
    // writes every container: stanc's name loops run from the last dim outward to the first,
    // and CmdStan's readers reshape with Fortran order.
    std::vector<std::int64_t> index(dims.size(), 1);
    std::string s;
    for (std::int64_t k = 0; k < n; ++k) {
        s.assign(name);
        for (std::int64_t i : index) fmt::format_to(std::back_inserter(s), ".{}", i);
        out.push_back(s);
        for (std::size_t d = 0; d < index.size(); ++d) {
            if (++index[d] <= dims[d])
                break;
            index[d] = 1;
        }
    }
    return out;
}

namespace {

// The file's text in pieces of about 64 kB, checked before the first piece is handed on.
void write_cmdstan_text(const CsvOutput& output, const WriteText& write) {
    const auto cols = static_cast<Eigen::Index>(output.columns.size());
    if (output.mean_row.size() != cols)
        throw ShapeError(fmt::format("CSV output: the mean row has {} values for {} columns",
                                     output.mean_row.size(), cols));
    if (output.draws.rows() > 0 && output.draws.cols() != cols)
        throw ShapeError(fmt::format("CSV output: the draws have {} values per row for {} columns",
                                     output.draws.cols(), cols));
    if (output.sig_figs != -1 && (output.sig_figs < 1 || output.sig_figs > 18))
        throw Error(
            fmt::format("CSV output: sig_figs must be -1 or 1 to 18, got {}", output.sig_figs));
    for (const std::string& c : output.columns) {
        if (c.empty() || c.find_first_of(",\"\n\r") != std::string::npos)
            throw ModelError(fmt::format("CSV output: `{}` cannot be a column name", c));
    }

    fmt::memory_buffer buf;
    const auto flush = [&] {
        write(std::string_view(buf.data(), buf.size()));
        buf.clear();
    };
    for (const std::string& line : output.header) append_comment(buf, line);
    fmt::format_to(std::back_inserter(buf), "{}\n", fmt::join(output.columns, ","));
    for (const std::string& line : output.adaptation) append_comment(buf, line);
    append_row(buf, output.mean_row, output.sig_figs);
    flush();
    for (Eigen::Index i = 0; i < output.draws.rows(); ++i) {
        append_row(buf, output.draws.row(i), output.sig_figs);
        if (buf.size() >= (1 << 16))
            flush();
    }
    for (const std::string& line : output.trailer) append_comment(buf, line);
    flush();
}

}  // namespace

void write_cmdstan_csv(std::ostream& os, const CsvOutput& output) {
    write_cmdstan_text(output, [&](std::string_view text) {
        os.write(text.data(), static_cast<std::streamsize>(text.size()));
    });
    if (!os)
        throw Error("CSV output: the stream failed while writing");
}

void write_cmdstan_csv_file(const fs::path& path, const CsvOutput& output) {
    write_output_file(path, [&](const WriteText& write) { write_cmdstan_text(output, write); });
}

}  // namespace advi
