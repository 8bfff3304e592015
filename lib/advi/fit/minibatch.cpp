#include <advi/fit/minibatch.hpp>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>

namespace advi {

ModelSpec scale_terms_reading(const ModelSpec& m, const std::vector<int>& slots, double factor) {
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
    const NodeId scale = g.constant(factor);
    NodeId total = kNoNode;
    out.terms.clear();
    for (NodeId a : m.terms) {
        NodeId term = a;
        if (reads[static_cast<std::size_t>(a)]) {
            term = g.apply(Op::Mul, scale, a);
            any = true;
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

MinibatchTarget::MinibatchTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                                 std::uint64_t seed, int threads)
    : rng_(seed ^ 0x6D696E6962617463ull) {  // a stream apart from the estimator's
    spec_ = model;
    std::vector<int> slots;
    for (const MinibatchData& d : sources) {
        auto it = std::find_if(model.data.begin(), model.data.end(),
                               [&](const DataSlot& s) { return s.name == d.slot; });
        if (it == model.data.end()) {
            std::string names;
            for (const auto& s : model.data) names += (names.empty() ? "" : ", ") + s.name;
            throw ModelError(fmt::format("minibatch: the model has no data slot `{}` (it has: {})",
                                         d.slot, names));
        }
        const DataSlot& slot = *it;
        const bool ints = d.ints != nullptr;
        if (ints != (slot.dtype == DType::Int) || (d.real == nullptr && d.ints == nullptr)) {
            throw ModelError(fmt::format("minibatch `{}`: the slot holds {}, the full data {}",
                                         d.slot, slot.dtype == DType::Int ? "ints" : "reals",
                                         ints ? "ints" : "reals"));
        }
        const int rows = slot.shape.is_scalar() ? 1 : slot.shape.rows;
        const int cols = slot.shape.is_matrix() ? slot.shape.cols : 1;
        if (slot.shape.is_scalar() || cols != d.cols) {
            throw ShapeError(fmt::format(
                "minibatch `{}`: the slot is {}, which is not a minibatch of rows of the full "
                "data ({} x {})",
                d.slot, slot.shape.str(), d.rows, d.cols));
        }
        if (sources_.empty()) {
            batch_rows_ = rows;
            full_rows_ = d.rows;
        }
        if (rows != batch_rows_ || d.rows != full_rows_) {
            throw ShapeError(fmt::format(
                "minibatch `{}`: {} rows per batch of {} full rows, but `{}` has {} of {}", d.slot,
                rows, d.rows, sources_.front().data.slot, batch_rows_, full_rows_));
        }
        if (full_rows_ < batch_rows_) {
            throw ShapeError(
                fmt::format("minibatch `{}`: a batch of {} rows from full data of only {} rows",
                            d.slot, batch_rows_, full_rows_));
        }
        Source s{d, static_cast<int>(it - model.data.begin()), {}, {}};
        if (ints) {
            s.ints.assign(static_cast<std::size_t>(rows) * cols, 0);
        } else {
            s.real.assign(static_cast<std::size_t>(rows) * cols, 0.0);
        }
        slots.push_back(s.slot);
        sources_.push_back(std::move(s));
    }
    if (sources_.empty())
        throw ModelError("minibatch: no data slot to subsample");
    for (Source& s : sources_) {
        DataSlot& slot = spec_.data[static_cast<std::size_t>(s.slot)];
        slot.real = s.real.empty() ? nullptr : s.real.data();
        slot.ints = s.ints.empty() ? nullptr : s.ints.data();
    }
    spec_ = scale_terms_reading(spec_, slots,
                                static_cast<double>(full_rows_) / static_cast<double>(batch_rows_));
    permutation_.resize(static_cast<std::size_t>(full_rows_));
    std::iota(permutation_.begin(), permutation_.end(), 0);
    draw(evaluation_);
    load(evaluation_);  // the program binds data values at compile time
    evaluation_loaded_ = true;
    program_ = compile(spec_);
    program_.set_threads(threads);
}

void MinibatchTarget::draw(std::vector<int>& rows) {
    // A partial Fisher-Yates shuffle: B uniform draws without replacement in O(B).
    rows.resize(static_cast<std::size_t>(batch_rows_));
    const auto n = static_cast<std::uint64_t>(full_rows_);
    for (int b = 0; b < batch_rows_; ++b) {
        const auto j =
            static_cast<std::size_t>(b + rng_.next_u64() % (n - static_cast<std::uint64_t>(b)));
        std::swap(permutation_[static_cast<std::size_t>(b)], permutation_[j]);
        rows[static_cast<std::size_t>(b)] = permutation_[static_cast<std::size_t>(b)];
    }
}

void MinibatchTarget::load(const std::vector<int>& rows) {
    const std::size_t B = rows.size();
    for (Source& s : sources_) {
        const auto N = static_cast<std::size_t>(s.data.rows);
        for (std::size_t c = 0; c < static_cast<std::size_t>(s.data.cols); ++c) {
            for (std::size_t b = 0; b < B; ++b) {
                const std::size_t from = c * N + static_cast<std::size_t>(rows[b]);
                if (s.data.ints != nullptr) {
                    s.ints[c * B + b] = s.data.ints[from];
                } else {
                    s.real[c * B + b] = s.data.real[from];
                }
            }
        }
    }
}

void MinibatchTarget::next_minibatch() {
    draw(batch_);
    load(batch_);
    program_.reload_data();
    evaluation_loaded_ = false;
}

void MinibatchTarget::use_evaluation_batch() {
    if (evaluation_loaded_)
        return;
    load(evaluation_);
    program_.reload_data();
    evaluation_loaded_ = true;
}

}  // namespace advi
