#include <advi/fit/row_buffers.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

namespace {

// `m` with every term that reads a slot of `slots` multiplied by the node `row_factor_of`
// makes in the graph, and every other term by the one `rest_factor_of` makes (kNoNode: left).
template <class RowFactor, class RestFactor>
ModelSpec scale_terms(const ModelSpec& m, const std::vector<int>& slots, RowFactor row_factor_of,
                      RestFactor rest_factor_of) {
    ModelSpec out = m;
    Graph& g = out.graph;
    const std::optional<NodeId> lp = g.output("lp");
    if (!lp)
        throw ModelError("data subsampling: the model graph has no output \"lp\"");
    // reads[id]: the node depends on a subsampled slot (ids are a topological order).
    std::vector<bool> reads(static_cast<std::size_t>(g.size()), false);
    for (NodeId id = 0; id < g.size(); ++id) {
        const Node& n = g[id];
        bool r = n.op == Op::Data &&
                 std::find(slots.begin(), slots.end(), static_cast<int>(n.index)) != slots.end();
        for (int k = 0; k < n.arity() && !r; ++k) r = reads[static_cast<std::size_t>(n.in[k])];
        reads[static_cast<std::size_t>(id)] = r;
    }
    if (m.terms.empty()) {
        throw ModelError(
            "data subsampling: the model does not list the terms of its log density, so the "
            "likelihood cannot be told from the priors (build it with advi::Model)");
    }
    // Whole terms, not the addends inside one: observe(y, normal(mu, sigma)) over B rows
    // holds -B log sigma, which reads no data but scales with the batch all the same.
    bool any = false;
    const NodeId scale = row_factor_of(out);
    const NodeId rest = rest_factor_of(out);
    NodeId total = kNoNode;
    out.terms.clear();
    for (NodeId a : m.terms) {
        NodeId term = a;
        if (reads[static_cast<std::size_t>(a)]) {
            term = g.apply(Op::Mul, scale, a);
            any = true;
        } else if (rest != kNoNode) {
            term = g.apply(Op::Mul, rest, a);
        }
        out.terms.push_back(term);
        total = total == kNoNode ? term : g.apply(Op::Add, total, term);
    }
    if (!any) {
        throw ModelError("data subsampling: no term of the log density reads the subsampled data");
    }
    g.set_output("lp", total);
    return out;
}

// A scalar data slot of `out` reading *value, and its leaf.
NodeId factor_slot(ModelSpec& out, const double* value, const std::string& name) {
    const auto index = static_cast<std::int64_t>(out.data.size());
    out.data.push_back({name, Shape::scalar(), DType::Real, value, nullptr});
    return out.graph.leaf(Op::Data, Shape::scalar(), DType::Real, index, name);
}

}  // namespace

ModelSpec scale_terms_reading(const ModelSpec& m, const std::vector<int>& slots, double factor) {
    return scale_terms(
        m, slots, [factor](ModelSpec& out) { return out.graph.constant(factor); },
        [](ModelSpec&) { return kNoNode; });
}

RowBuffers::RowBuffers(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                       const std::string& what) {
    for (const MinibatchData& d : sources) {
        auto it = std::find_if(model.data.begin(), model.data.end(),
                               [&](const DataSlot& s) { return s.name == d.slot; });
        if (it == model.data.end()) {
            std::string names;
            for (const auto& s : model.data) names += (names.empty() ? "" : ", ") + s.name;
            throw ModelError(fmt::format("{}: the model has no data slot `{}` (it has: {})", what,
                                         d.slot, names));
        }
        const DataSlot& slot = *it;
        const bool ints = d.ints != nullptr;
        if (ints != (slot.dtype == DType::Int) || (d.real == nullptr && d.ints == nullptr)) {
            throw ModelError(fmt::format("{} `{}`: the slot holds {}, the full data {}", what,
                                         d.slot, slot.dtype == DType::Int ? "ints" : "reals",
                                         ints ? "ints" : "reals"));
        }
        const int rows = slot.shape.is_scalar() ? 1 : slot.shape.rows;
        const int cols = slot.shape.is_matrix() ? slot.shape.cols : 1;
        if (slot.shape.is_scalar() || cols != d.cols) {
            throw ShapeError(fmt::format(
                "{} `{}`: the slot is {}, which is not a block of rows of the full data ({} x {})",
                what, d.slot, slot.shape.str(), d.rows, d.cols));
        }
        if (sources_.empty()) {
            batch_rows_ = rows;
            full_rows_ = d.rows;
        }
        if (rows != batch_rows_ || d.rows != full_rows_) {
            throw ShapeError(fmt::format(
                "{} `{}`: {} rows per batch of {} full rows, but `{}` has {} of {}", what, d.slot,
                rows, d.rows, sources_.front().data.slot, batch_rows_, full_rows_));
        }
        if (full_rows_ < batch_rows_) {
            throw ShapeError(
                fmt::format("{} `{}`: a batch of {} rows from full data of only {} rows", what,
                            d.slot, batch_rows_, full_rows_));
        }
        Source s{d, static_cast<int>(it - model.data.begin()), {}, {}};
        if (ints) {
            s.ints.assign(static_cast<std::size_t>(rows) * cols, 0);
        } else {
            s.real.assign(static_cast<std::size_t>(rows) * cols, 0.0);
        }
        slots_.push_back(s.slot);
        sources_.push_back(std::move(s));
    }
    if (sources_.empty())
        throw ModelError(fmt::format("{}: no data slot to subsample", what));
}

ModelSpec RowBuffers::weighted(const ModelSpec& model, const double* row_factor,
                               const std::string& row_name, const double* rest_factor,
                               const std::string& rest_name) const {
    ModelSpec spec = model;
    for (const Source& s : sources_) {
        DataSlot& slot = spec.data[static_cast<std::size_t>(s.slot)];
        slot.real = s.real.empty() ? nullptr : s.real.data();
        slot.ints = s.ints.empty() ? nullptr : s.ints.data();
    }
    NodeId rest = kNoNode;
    ModelSpec out = scale_terms(
        spec, slots_, [&](ModelSpec& o) { return factor_slot(o, row_factor, row_name); },
        [&](ModelSpec& o) {
            return rest = rest_factor == nullptr ? kNoNode : factor_slot(o, rest_factor, rest_name);
        });
    // The log-Jacobians (the transforms' and the model's own), which compile() adds to lp,
    // are terms without rows too.
    if (rest != kNoNode)
        out.graph.set_output("jacobian_weight", rest);
    return out;
}

double RowBuffers::values_per_row() const {
    double values = 0.0;
    for (const Source& s : sources_) values += static_cast<double>(s.data.cols);
    return values;
}

std::string RowBuffers::slot_names() const {
    std::string names;
    for (const Source& s : sources_)
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ", s.data.slot);
    return names;
}

void RowBuffers::load(const std::vector<int>& rows) {
    const std::size_t B = rows.size();
    for (Source& s : sources_) {
        const auto N = static_cast<std::size_t>(s.data.rows);
        const auto cols = static_cast<std::size_t>(s.data.cols);
        const auto copy = [&](std::size_t b, std::size_t c) {
            const auto r = static_cast<std::size_t>(rows[b]);
            const std::size_t from = s.data.row_major ? r * cols + c : c * N + r;
            if (s.data.ints != nullptr)
                s.ints[c * B + b] = s.data.ints[from];
            else
                s.real[c * B + b] = s.data.real[from];
        };
        // along the source's storage: a row's values together when it is row-major (a mapped
        // file's pages read once per row)
        if (s.data.row_major) {
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t c = 0; c < cols; ++c) copy(b, c);
        } else {
            for (std::size_t c = 0; c < cols; ++c)
                for (std::size_t b = 0; b < B; ++b) copy(b, c);
        }
    }
}

void check_sum_over_rows(RowBuffers& buffers, Program& program, const std::vector<int>& base,
                         std::uint64_t seed, const std::string& what) {
    Rng rng(seed ^ 0x726F7773756D0000ull);  // its own stream: the batches drawn stay as they were
    const int B = buffers.batch_rows();
    const int h = B / 2;
    if (h == 0 || buffers.full_rows() < 2)
        return;  // one row per batch: nothing to couple
    const auto n = static_cast<std::uint64_t>(buffers.full_rows());
    std::vector<int> c(static_cast<std::size_t>(h)), d(static_cast<std::size_t>(B - h));
    for (int& r : c) r = static_cast<int>(rng.next_u64() % n);
    for (int& r : d) r = static_cast<int>(rng.next_u64() % n);
    // [first half of x; second half of y]
    const auto join = [&](const std::vector<int>* x, const std::vector<int>* y) {
        std::vector<int> rows;
        for (int b = 0; b < h; ++b)
            rows.push_back(x == nullptr ? base[static_cast<std::size_t>(b)]
                                        : (*x)[static_cast<std::size_t>(b)]);
        for (int b = h; b < B; ++b)
            rows.push_back(y == nullptr ? base[static_cast<std::size_t>(b)]
                                        : (*y)[static_cast<std::size_t>(b - h)]);
        return rows;
    };
    const std::vector<std::vector<int>> batches = {join(nullptr, nullptr), join(&c, nullptr),
                                                   join(nullptr, &d), join(&c, &d)};
    Eigen::VectorXd zeta = Eigen::VectorXd::Zero(program.dim()), grad(program.dim());
    for (int point = 0; point < 2; ++point) {
        if (point == 1) {
            for (Eigen::Index k = 0; k < zeta.size(); ++k)
                zeta[k] = 2.0 * static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53 - 1.0;
        }
        std::array<double, 4> lp{};
        for (std::size_t k = 0; k < 4; ++k) {
            buffers.load(batches[k]);
            program.reload_data();
            lp[k] = program.run(zeta, grad);
        }
        const double interaction = lp[0] - lp[1] - lp[2] + lp[3];
        const double scale = std::abs(lp[0]) + std::abs(lp[1]) + std::abs(lp[2]) + std::abs(lp[3]);
        if (!std::isfinite(interaction))
            continue;  // no verdict at a point where the density is not finite
        if (std::abs(interaction) > 1e-8 * scale + 1e-12) {
            throw ModelError(fmt::format(
                "{}: the log density is not a sum of terms of one row each of {} (with the "
                "batch's halves swapped for other rows, lp(a,b) - lp(c,b) - lp(a,d) + lp(c,d) "
                "= {:.6g}, where a sum over rows gives 0): a term couples rows (a sum or mean of "
                "the rows inside a nonlinear function), and {}",
                what, buffers.slot_names(), interaction,
                what == "minibatch"
                    ? "scaling it by N / B would not estimate the full-data density"
                    : "a sum over blocks of rows would not be the full-data density"));
        }
    }
    buffers.load(base);
    program.reload_data();
}

}  // namespace advi
