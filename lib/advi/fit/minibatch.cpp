#include <advi/fit/minibatch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>

namespace advi {

namespace {

// scale_terms_reading with the factor a node that `factor_of` makes in the graph.
template <class Factor>
ModelSpec scale_terms(const ModelSpec& m, const std::vector<int>& slots, Factor factor_of) {
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
    const NodeId scale = factor_of(out);
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

}  // namespace

ModelSpec scale_terms_reading(const ModelSpec& m, const std::vector<int>& slots, double factor) {
    return scale_terms(m, slots, [factor](ModelSpec& out) { return out.graph.constant(factor); });
}

MinibatchTarget::MinibatchTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                                 std::uint64_t seed, int threads, MinibatchDraw scheme,
                                 int elbo_samples)
    : rng_(seed ^ 0x6D696E6962617463ull),  // a stream apart from the estimator's
      scheme_(scheme) {
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
    // The factor N / B is data of the program, so that a full-data pass can set it to 0 and 1
    // (rows_pass).
    scale_ = static_cast<double>(full_rows_) / static_cast<double>(batch_rows_);
    spec_ = scale_terms(spec_, slots, [this](ModelSpec& out) {
        const auto index = static_cast<std::int64_t>(out.data.size());
        out.data.push_back({"minibatch_scale", Shape::scalar(), DType::Real, &scale_, nullptr});
        return out.graph.leaf(Op::Data, Shape::scalar(), DType::Real, index, "minibatch_scale");
    });
    permutation_.resize(static_cast<std::size_t>(full_rows_));
    std::iota(permutation_.begin(), permutation_.end(), 0);
    draw(evaluation_);
    load(evaluation_);  // the program binds data values at compile time
    evaluation_loaded_ = true;
    program_ = compile(spec_);
    program_.set_threads(threads);
    epoch_next_ = permutation_.size();  // the first epoch starts with a shuffle
    check_sum_over_rows(seed);
    // The ELBO's rows: the evaluation batch and more rows drawn after it, as many as
    // kEvaluationValues allows for `elbo_samples` draws (all N where it allows them).
    double values_per_row = 0.0;
    for (const Source& src : sources_) values_per_row += static_cast<double>(src.data.cols);
    const double affordable =
        kEvaluationValues / (std::max(1, elbo_samples) * std::max(1.0, values_per_row));
    const auto E = static_cast<std::size_t>(
        std::clamp<double>(affordable, batch_rows_, static_cast<double>(full_rows_)));
    all_rows_.resize(static_cast<std::size_t>(full_rows_));
    std::iota(all_rows_.begin(), all_rows_.end(), 0);
    if (E >= all_rows_.size()) {
        evaluation_set_ = all_rows_;
    } else {
        // permutation_'s first B entries are the evaluation batch: extend the partial shuffle
        for (std::size_t b = evaluation_.size(); b < E; ++b) {
            const auto j =
                b + static_cast<std::size_t>(rng_.next_u64() % (permutation_.size() - b));
            std::swap(permutation_[b], permutation_[j]);
        }
        evaluation_set_.assign(permutation_.begin(),
                               permutation_.begin() + static_cast<std::ptrdiff_t>(E));
    }
}

std::string MinibatchTarget::slot_names() const {
    std::string names;
    for (const Source& s : sources_)
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ", s.data.slot);
    return names;
}

void MinibatchTarget::check_sum_over_rows(std::uint64_t seed) {
    Rng rng(seed ^ 0x726F7773756D0000ull);  // its own stream: the batches drawn stay as they were
    const int h = batch_rows_ / 2;
    if (h == 0 || full_rows_ < 2)
        return;  // one row per batch: nothing to couple
    const auto n = static_cast<std::uint64_t>(full_rows_);
    std::vector<int> c(static_cast<std::size_t>(h)), d(static_cast<std::size_t>(batch_rows_ - h));
    for (int& r : c) r = static_cast<int>(rng.next_u64() % n);
    for (int& r : d) r = static_cast<int>(rng.next_u64() % n);
    // [first half of x; second half of y]
    const auto join = [&](const std::vector<int>* x, const std::vector<int>* y) {
        std::vector<int> rows;
        for (int b = 0; b < h; ++b)
            rows.push_back(x == nullptr ? evaluation_[static_cast<std::size_t>(b)]
                                        : (*x)[static_cast<std::size_t>(b)]);
        for (int b = h; b < batch_rows_; ++b)
            rows.push_back(y == nullptr ? evaluation_[static_cast<std::size_t>(b)]
                                        : (*y)[static_cast<std::size_t>(b - h)]);
        return rows;
    };
    const std::vector<std::vector<int>> batches = {join(nullptr, nullptr), join(&c, nullptr),
                                                   join(nullptr, &d), join(&c, &d)};
    Eigen::VectorXd zeta = Eigen::VectorXd::Zero(dim()), grad(dim());
    for (int point = 0; point < 2; ++point) {
        if (point == 1) {
            for (Eigen::Index k = 0; k < zeta.size(); ++k)
                zeta[k] = 2.0 * static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53 - 1.0;
        }
        std::array<double, 4> lp{};
        for (std::size_t k = 0; k < 4; ++k) {
            load(batches[k]);
            program_.reload_data();
            lp[k] = program_.run(zeta, grad);
        }
        const double interaction = lp[0] - lp[1] - lp[2] + lp[3];
        const double scale = std::abs(lp[0]) + std::abs(lp[1]) + std::abs(lp[2]) + std::abs(lp[3]);
        if (!std::isfinite(interaction))
            continue;  // no verdict at a point where the density is not finite
        if (std::abs(interaction) > 1e-8 * scale + 1e-12) {
            throw ModelError(fmt::format(
                "minibatch: the log density is not a sum of terms of one row each of {} (with "
                "the batch's halves swapped for other rows, lp(a,b) - lp(c,b) - lp(a,d) + "
                "lp(c,d) = {:.6g}, where a sum over rows gives 0): a term couples rows (a sum "
                "or mean of the rows inside a nonlinear function), and scaling it by N / B "
                "would not estimate the full-data density",
                slot_names(), interaction));
        }
    }
    load(evaluation_);
    program_.reload_data();
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

void MinibatchTarget::draw_next(std::vector<int>& rows) {
    if (scheme_ == MinibatchDraw::Independent) {
        draw(rows);
        return;
    }
    const auto B = static_cast<std::size_t>(batch_rows_);
    if (epoch_next_ + B > permutation_.size()) {  // a new epoch: a full Fisher-Yates shuffle
        for (std::size_t i = permutation_.size() - 1; i > 0; --i) {
            const auto j = static_cast<std::size_t>(rng_.next_u64() % (i + 1));
            std::swap(permutation_[i], permutation_[j]);
        }
        epoch_next_ = 0;
    }
    rows.assign(permutation_.begin() + static_cast<std::ptrdiff_t>(epoch_next_),
                permutation_.begin() + static_cast<std::ptrdiff_t>(epoch_next_ + B));
    epoch_next_ += B;
}

void MinibatchTarget::load(const std::vector<int>& rows) {
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

void MinibatchTarget::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    if (full_data_) {
        rows_pass(all_rows_, zetas, out);
    } else if (evaluation_set_.size() > evaluation_.size()) {
        rows_pass(evaluation_set_, zetas, out);
    } else {
        use_evaluation_batch();
        Target::log_densities(zetas, out);
    }
}

void MinibatchTarget::rows_pass(const std::vector<int>& set, const Eigen::MatrixXd& zetas,
                                Eigen::VectorXd& out) {
    // lp(rows, s) = c + s * (sum over rows of f): c at s = 0, then each batch's sum at s = 1,
    // the total scaled by N / |set|. The set in batches of B in order; the last, of r < B rows,
    // padded with B - r copies of the set's first row, whose share (B - r) / B of a batch of B
    // such copies is taken off again.
    const Eigen::Index n = zetas.cols();
    Eigen::VectorXd grad(dim()), c(n), sums = Eigen::VectorXd::Zero(n), lp(n);
    const auto B = static_cast<std::size_t>(batch_rows_);
    const auto evaluate = [&](const std::vector<int>& rows, Eigen::VectorXd& into) {
        load(rows);
        program_.reload_data();
        for (Eigen::Index j = 0; j < n; ++j) into[j] = program_.run(zetas.col(j), grad);
    };
    std::vector<int> rows(B, set.front());
    scale_ = 0.0;
    evaluate(rows, c);
    scale_ = 1.0;
    std::size_t r = B;
    for (std::size_t first = 0; first < set.size(); first += B) {
        r = std::min(B, set.size() - first);
        for (std::size_t b = 0; b < B; ++b) rows[b] = b < r ? set[first + b] : set.front();
        evaluate(rows, lp);
        sums += lp - c;
    }
    if (r < B) {
        std::fill(rows.begin(), rows.end(), set.front());
        evaluate(rows, lp);
        sums -= static_cast<double>(B - r) / static_cast<double>(B) * (lp - c);
    }
    const double to_full = static_cast<double>(full_rows_) / static_cast<double>(set.size());
    out.resize(n);
    for (Eigen::Index j = 0; j < n; ++j)
        out[j] = std::isfinite(c[j]) ? c[j] + to_full * sums[j] : c[j];
    scale_ = static_cast<double>(full_rows_) / static_cast<double>(batch_rows_);
    load(evaluation_);
    program_.reload_data();
    evaluation_loaded_ = true;
}

void MinibatchTarget::next_minibatch() {
    draw_next(batch_);
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
