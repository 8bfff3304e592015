#include <advi/stan/minibatch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <regex>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>
#include <advi/fit/row_shards.hpp>
#include <advi/io/npy_reader.hpp>
#include <advi/stan/ast_printer.hpp>

namespace advi::stan {
namespace {

bool mentions(const Expression& e, const std::string& name) {
    const std::regex word("(^|[^A-Za-z0-9_])" + name + "([^A-Za-z0-9_]|$)");
    return std::regex_search(to_stan(e), word);
}

bool is_variable(const Expression& e, const std::string& name) {
    const auto* v = e.as<Variable>();
    return v != nullptr && v->name == name;
}

// The data variables declared with `n` as their first size; an error for a declaration that
// has it anywhere else (a matrix[D, N] is N columns, not rows).
std::vector<const VarDecl*> row_declarations(const Program& program, const std::string& n) {
    std::vector<const VarDecl*> rows;
    for (const Statement& s : program.data->statements) {
        const auto* d = s.as<VarDecl>();
        if (d == nullptr)
            continue;
        std::vector<const Expression*> sizes;
        for (const Expression& e : d->type.dims) sizes.push_back(&e);
        for (const Expression& e : d->type.sizes) sizes.push_back(&e);
        for (const SizedType& part : d->type.parts) {
            for (const Expression& e : part.dims) sizes.push_back(&e);
            for (const Expression& e : part.sizes) sizes.push_back(&e);
        }
        if (sizes.empty() || d->name == n)
            continue;
        const bool first = is_variable(*sizes[0], n);
        const auto mentioned = [&](std::size_t from) {
            for (std::size_t k = from; k < sizes.size(); ++k)
                if (mentions(*sizes[k], n))
                    return sizes[k];
            return static_cast<const Expression*>(nullptr);
        };
        if (const Expression* other = mentioned(first ? 1 : 0)) {
            throw program.error_at(
                other->loc,
                fmt::format("--rows {0}: `{1}` ({2}) has `{0}` in a size other than its first, "
                            "and --rows reads a variable's rows by its first index only (give it "
                            "with the rows first, e.g. transposed)",
                            n, d->name, to_stan(d->type)));
        }
        if (!first)
            continue;
        if (d->type.base == BaseType::Tuple || !d->type.parts.empty() ||
            d->type.base == BaseType::Complex || d->type.base == BaseType::ComplexVector ||
            d->type.base == BaseType::ComplexRowVector || d->type.base == BaseType::ComplexMatrix) {
            throw program.error_at(
                d->name_loc, fmt::format("--rows {}: `{}` ({}) has a row per {}, and tuple and "
                                         "complex rows are not subsampled yet",
                                         n, d->name, to_stan(d->type), n));
        }
        rows.push_back(d);
    }
    return rows;
}

// `data` with each row variable cut to `rows` (indices into its first dimension).
DataTable batch_table(const DataTable& data, const std::vector<std::string>& row_variables,
                      const std::vector<int>& rows) {
    DataTable out;
    for (const DataValue& v : data) {
        if (std::find(row_variables.begin(), row_variables.end(), v.name) == row_variables.end()) {
            out.add(v);
            continue;
        }
        DataValue b;
        b.name = v.name;
        b.type = v.type;
        b.source = v.source;
        b.dims = v.dims;
        const auto n = static_cast<std::size_t>(v.dims[0]);
        const std::size_t cols = n == 0 ? 0 : v.size() / n;
        b.dims[0] = static_cast<std::int64_t>(rows.size());
        for (std::size_t c = 0; c < cols; ++c) {
            for (const int r : rows) {
                if (v.mapped) {
                    const std::int64_t at =
                        v.mapped->storage_index(r, static_cast<std::int64_t>(c));
                    if (v.is_int())
                        b.ints.push_back(static_cast<int>(v.mapped->int_at(at)));
                    else
                        b.reals.push_back(v.mapped->real_at(at));
                    continue;
                }
                const std::size_t from = c * n + static_cast<std::size_t>(r);
                if (v.is_int())
                    b.ints.push_back(v.ints[from]);
                else
                    b.reals.push_back(v.reals[from]);
            }
        }
        out.add(std::move(b));
    }
    return out;
}

const DataSlot* find_slot(const ModelSpec& m, const std::string& name) {
    for (const DataSlot& s : m.data)
        if (s.name == name)
            return &s;
    return nullptr;
}

bool same_values(const DataSlot& a, const DataSlot& b) {
    const std::int64_t n = a.shape.size();
    for (std::int64_t k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        if (a.dtype == DType::Int
                ? a.ints[i] != b.ints[i]
                : !(a.real[i] == b.real[i] || (std::isnan(a.real[i]) && std::isnan(b.real[i]))))
            return false;
    }
    return true;
}

// Empty if the two lowerings are the same model apart from the row variables' slots; else what
// differs first.
std::string difference(const ModelSpec& a, const ModelSpec& b,
                       const std::vector<std::string>& row_variables) {
    if (a.graph.size() != b.graph.size())
        return fmt::format("the graph has {} nodes for one batch and {} for another",
                           a.graph.size(), b.graph.size());
    for (NodeId id = 0; id < a.graph.size(); ++id) {
        if (!(a.graph[id] == b.graph[id]))
            return fmt::format("node %{} of the graph differs between batches", id);
    }
    const auto& oa = a.graph.outputs();
    const auto& ob = b.graph.outputs();
    if (oa.size() != ob.size())
        return "the graph's outputs differ between batches";
    for (std::size_t k = 0; k < oa.size(); ++k) {
        if (oa[k].name != ob[k].name || oa[k].id != ob[k].id || oa[k].offset != ob[k].offset)
            return "the graph's outputs differ between batches";
    }
    if (a.terms != b.terms)
        return "the terms of the log density differ between batches";
    if (a.data.size() != b.data.size())
        return "the model's data differ between batches";
    for (std::size_t k = 0; k < a.data.size(); ++k) {
        const DataSlot& x = a.data[k];
        const DataSlot& y = b.data[k];
        if (x.name != y.name || !(x.shape == y.shape) || x.dtype != y.dtype)
            return fmt::format("data slot `{}` differs between batches", x.name);
        if (std::find(row_variables.begin(), row_variables.end(), x.name) != row_variables.end())
            continue;
        if (!same_values(x, y))
            return fmt::format("data slot `{}`, computed from the rows, differs between batches",
                               x.name);
    }
    return {};
}

}  // namespace

LoweredMinibatch lower_minibatch(const Program& program, const DataTable& data,
                                 const MinibatchRequest& request, std::uint64_t seed,
                                 int unroll_limit) {
    const std::string& n = request.size_variable;
    // The size variable: an int of the data block, given in the data.
    const VarDecl* size_decl = nullptr;
    if (program.data) {
        for (const Statement& s : program.data->statements) {
            if (const auto* d = s.as<VarDecl>(); d != nullptr && d->name == n)
                size_decl = d;
        }
    }
    if (size_decl == nullptr || size_decl->type.base != BaseType::Int ||
        !size_decl->type.dims.empty()) {
        std::string ints;
        if (program.data) {
            for (const Statement& s : program.data->statements) {
                const auto* d = s.as<VarDecl>();
                if (d != nullptr && d->type.base == BaseType::Int && d->type.dims.empty())
                    ints += fmt::format("{}`{}`", ints.empty() ? "" : ", ", d->name);
            }
        }
        throw ModelError(fmt::format(
            "--rows {}: the data block declares no int `{}` to count the rows (its ints: {})", n, n,
            ints.empty() ? "none" : ints));
    }
    const DataValue* given = data.find(n);
    if (given == nullptr || !given->is_int() || !given->is_scalar())
        throw DataError(fmt::format("--rows {0}: the data give no int `{0}`", n));
    const int full = given->ints[0];
    // batch_rows 0: the full data in shards (fit/row_shards.hpp), a shard as the batch
    const bool shards = request.batch_rows == 0;
    const std::string option = shards ? fmt::format("--rows {}", n) : "--minibatch";
    if (shards && full < 1)
        throw ModelError(fmt::format("--rows {0}: {0} = {1}: no rows to shard", n, full));
    if (!shards && (request.batch_rows < 1 || request.batch_rows > full)) {
        throw ModelError(fmt::format("--minibatch {}: a batch holds 1 to {} = {} rows",
                                     request.batch_rows, n, full));
    }
    LoweredMinibatch out;
    out.full_rows = full;
    out.batch_rows = shards ? shard_rows(full) : request.batch_rows;
    const std::vector<const VarDecl*> decls = row_declarations(program, n);
    if (decls.empty()) {
        throw ModelError(
            fmt::format("--rows {0}: no data variable is declared with `{0}` as its first size "
                        "(`vector[{0}] y`, `matrix[{0}, D] X`, `array[{0}] int g`): there are "
                        "no rows to subsample",
                        n));
    }
    for (const VarDecl* d : decls) {
        const DataValue* v = data.find(d->name);
        if (v == nullptr)
            throw DataError(fmt::format("data variable `{}` is missing from the data", d->name));
        if (v->dims.empty() || v->dims[0] != full) {
            throw DataError(
                fmt::format("--rows {}: `{}` is {} in the data, where its first size "
                            "should be {} = {}",
                            n, d->name, v->shape_str(), n, full));
        }
        out.row_variables.push_back(d->name);
    }

    // Three batches: random rows, the same rotated by one, other random rows.
    const auto B = static_cast<std::size_t>(out.batch_rows);
    Rng rng(seed ^ 0x726F776261746368ull);
    std::vector<int> order(static_cast<std::size_t>(full));
    std::iota(order.begin(), order.end(), 0);
    const auto random_rows = [&] {
        for (std::size_t b = 0; b < B; ++b) {
            const auto j = b + static_cast<std::size_t>(rng.next_u64() % (order.size() - b));
            std::swap(order[b], order[j]);
        }
        return std::vector<int>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(B));
    };
    const std::vector<int> first = random_rows();
    std::vector<int> rotated = first;
    std::rotate(rotated.begin(), rotated.begin() + 1, rotated.end());
    const std::vector<int> other = random_rows();

    const RowBatch rows{n, out.batch_rows, out.row_variables, option};
    const DataTable first_table = batch_table(data, out.row_variables, first);
    out.lowered = lower(program, first_table, seed, unroll_limit, &rows);
    const ModelSpec spec = out.lowered->model().spec();
    // Every row checked as the full-data lowering checks it (the declared constraints of the
    // data, the outcomes of discrete densities), in chunks of at most kCheckRows rows so that
    // the memory stays bounded; an error names the chunk's rows.
    {
        const RowBatch all_rows{n, 0, out.row_variables, option};
        for (int start = 0; start < full; start += kCheckRows) {
            const int count = std::min(kCheckRows, full - start);
            std::vector<int> chunk(static_cast<std::size_t>(count));
            std::iota(chunk.begin(), chunk.end(), start);
            RowBatch chunk_rows = all_rows;
            chunk_rows.batch_rows = count;
            try {
                (void)lower(program, batch_table(data, out.row_variables, chunk), seed,
                            unroll_limit, &chunk_rows);
            } catch (const Error& e) {
                if (count == full)
                    throw;
                throw DataError(
                    fmt::format("{}: in rows {} to {} of {} (indices of "
                                "that chunk, from 1): {}",
                                option, start + 1, start + count, n, e.what()));
            }
        }
    }

    for (const std::vector<int>* probe : std::array<const std::vector<int>*, 2>{&rotated, &other}) {
        const auto again =
            lower(program, batch_table(data, out.row_variables, *probe), seed, unroll_limit, &rows);
        const std::string why = difference(spec, again->model().spec(), out.row_variables);
        if (why.empty())
            continue;
        // The variable at fault: each alone rotated.
        std::string culprit;
        for (const std::string& name : out.row_variables) {
            DataTable one;
            for (const DataValue& v : first_table) {
                if (v.name != name) {
                    one.add(v);
                    continue;
                }
                DataValue r = v;
                const auto rows_n = static_cast<std::size_t>(r.dims[0]);
                const std::size_t cols = rows_n == 0 ? 0 : r.size() / rows_n;
                for (std::size_t c = 0; c < cols; ++c) {
                    const auto at = static_cast<std::ptrdiff_t>(c * rows_n);
                    if (r.is_int())
                        std::rotate(r.ints.begin() + at, r.ints.begin() + at + 1,
                                    r.ints.begin() + at + static_cast<std::ptrdiff_t>(rows_n));
                    else
                        std::rotate(r.reals.begin() + at, r.reals.begin() + at + 1,
                                    r.reals.begin() + at + static_cast<std::ptrdiff_t>(rows_n));
                }
                one.add(std::move(r));
            }
            const auto alone = lower(program, one, seed, unroll_limit, &rows);
            if (!difference(spec, alone->model().spec(), out.row_variables).empty()) {
                culprit = name;
                break;
            }
        }
        throw ModelError(fmt::format(
            "{}: {} while the program is built ({}), so the program would change "
            "with the rows drawn; subsampling needs rows that enter the model as data (reals, "
            "and ints as a density's outcome), not as indices, loop bounds, conditions or int "
            "arithmetic",
            option,
            culprit.empty() ? std::string("the rows' values are read")
                            : fmt::format("the values of `{}` are read", culprit),
            why));
    }

    // Each row variable the model reads, as its slot with the full data.
    for (const std::string& name : out.row_variables) {
        const DataSlot* slot = find_slot(spec, name);
        if (slot == nullptr)
            continue;  // not read by the model (or only its size)
        const DataValue& v = data.at(name);
        const Eigen::Index cols = full == 0 ? 0 : static_cast<Eigen::Index>(v.size()) / full;
        if (v.mapped) {
            // in the file as it is (float64 or int32: npy_reader.hpp), row-major unless the
            // file is in Fortran order
            const MappedArray& a = *v.mapped;
            if (slot->dtype == DType::Int) {
                out.sources.emplace_back(name, static_cast<const int*>(a.data()), full, cols);
            } else if (a.is_int()) {
                auto& reals = out.converted.emplace_back(static_cast<std::size_t>(v.size()));
                for (Eigen::Index c = 0; c < cols; ++c)
                    for (Eigen::Index r = 0; r < full; ++r)
                        reals[static_cast<std::size_t>(c * full + r)] =
                            a.real_at(a.storage_index(r, c));
                out.sources.emplace_back(name, reals.data(), full, cols);
                continue;
            } else {
                out.sources.emplace_back(name, static_cast<const double*>(a.data()), full, cols);
            }
            out.sources.back().row_major = a.shape().size() == 2 && !a.fortran_order();
            continue;
        }
        if (slot->dtype == DType::Int) {
            out.sources.emplace_back(name, v.ints.data(), full, cols);
        } else if (v.is_int()) {
            const auto& reals = out.converted.emplace_back(v.ints.begin(), v.ints.end());
            out.sources.emplace_back(name, reals.data(), full, cols);
        } else {
            out.sources.emplace_back(name, v.reals.data(), full, cols);
        }
    }
    if (out.sources.empty()) {
        throw ModelError(
            fmt::format("{}: the model reads none of the row variables ({}) as data: nothing to "
                        "subsample",
                        option, fmt::format("`{}`", fmt::join(out.row_variables, "`, `"))));
    }
    return out;
}

}  // namespace advi::stan
