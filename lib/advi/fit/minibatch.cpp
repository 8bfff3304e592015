#include <advi/fit/minibatch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/approximation.hpp>

namespace advi {

MinibatchTarget::MinibatchTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                                 std::uint64_t seed, int threads, MinibatchDraw scheme,
                                 int elbo_samples)
    : rows_(model, sources, "minibatch"),
      rng_(seed ^ 0x6D696E6962617463ull),  // a stream apart from the estimator's
      scheme_(scheme) {
    full_rows_ = rows_.full_rows();
    batch_rows_ = rows_.batch_rows();
    // The factor N / B is data of the program, so that a full-data pass can set it to 0 and 1
    // (rows_pass).
    scale_ = static_cast<double>(full_rows_) / static_cast<double>(batch_rows_);
    spec_ = rows_.weighted(model, &scale_, "minibatch_scale");
    permutation_.resize(static_cast<std::size_t>(full_rows_));
    std::iota(permutation_.begin(), permutation_.end(), 0);
    draw(evaluation_);
    load(evaluation_);  // the program binds data values at compile time
    evaluation_loaded_ = true;
    program_ = compile(spec_);
    program_.set_threads(threads);
    epoch_next_ = permutation_.size();  // the first epoch starts with a shuffle
    check_sum_over_rows(rows_, program_, evaluation_, seed, "minibatch");
    // The ELBO's rows: the evaluation batch and more rows drawn after it, as many as
    // kEvaluationValues allows for `elbo_samples` draws (all N where it allows them).
    const double values_per_row = rows_.values_per_row();
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
    batch_at_anchor_ = false;
    rows_.load(rows);
}

void MinibatchTarget::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    if (full_data_) {
        rows_pass(all_rows_, zetas, out);
        return;
    }
    if (evaluation_set_.size() > evaluation_.size()) {
        rows_pass(evaluation_set_, zetas, out);
    } else {
        use_evaluation_batch();
        Target::log_densities(zetas, out);
    }
}

void MinibatchTarget::rows_pass(const std::vector<int>& set, const Eigen::MatrixXd& zetas,
                                Eigen::VectorXd& out, Eigen::MatrixXd* grads) {
    // lp(rows, s) = c + s * (sum over rows of f): c at s = 0, then each batch's sum at s = 1,
    // the total scaled by N / |set|. The set in batches of B in order; the last, of r < B rows,
    // padded with B - r copies of the set's first row, whose share (B - r) / B of a batch of B
    // such copies is taken off again. The gradients (the program computes them anyway) add up
    // the same way.
    const Eigen::Index n = zetas.cols();
    Eigen::VectorXd grad(dim()), c(n), sums = Eigen::VectorXd::Zero(n), lp(n);
    Eigen::MatrixXd gc, gsums, g;
    if (grads != nullptr) {
        gc.resize(dim(), n);
        g.resize(dim(), n);
        gsums = Eigen::MatrixXd::Zero(dim(), n);
    }
    const auto B = static_cast<std::size_t>(batch_rows_);
    const auto evaluate = [&](const std::vector<int>& rows, Eigen::VectorXd& into,
                              Eigen::MatrixXd& into_grads) {
        load(rows);
        program_.reload_data();
        for (Eigen::Index j = 0; j < n; ++j) {
            into[j] = program_.run(zetas.col(j), grad);
            if (grads != nullptr)
                into_grads.col(j) = grad;
        }
    };
    std::vector<int> rows(B, set.front());
    scale_ = 0.0;
    evaluate(rows, c, gc);
    scale_ = 1.0;
    std::size_t r = B;
    for (std::size_t first = 0; first < set.size(); first += B) {
        r = std::min(B, set.size() - first);
        for (std::size_t b = 0; b < B; ++b) rows[b] = b < r ? set[first + b] : set.front();
        evaluate(rows, lp, g);
        sums += lp - c;
        if (grads != nullptr)
            gsums += g - gc;
    }
    if (r < B) {
        std::fill(rows.begin(), rows.end(), set.front());
        evaluate(rows, lp, g);
        const double share = static_cast<double>(B - r) / static_cast<double>(B);
        sums -= share * (lp - c);
        if (grads != nullptr)
            gsums -= share * (g - gc);
    }
    const double to_full = static_cast<double>(full_rows_) / static_cast<double>(set.size());
    out.resize(n);
    for (Eigen::Index j = 0; j < n; ++j)
        out[j] = std::isfinite(c[j]) ? c[j] + to_full * sums[j] : c[j];
    if (grads != nullptr)
        *grads = gc + to_full * gsums;
    scale_ = static_cast<double>(full_rows_) / static_cast<double>(batch_rows_);
    load(evaluation_);
    program_.reload_data();
    evaluation_loaded_ = true;
}

double MinibatchTarget::log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
    const double lp = program_.run(zeta, grad);
    if (!anchored_ || evaluation_loaded_)
        return lp;
    if (!batch_at_anchor_) {
        // Once per batch (the draws of a gradient that share the batch share it): d = g(a) -
        // G(a), whose mean over the batches is 0.
        batch_anchor_grad_.resize(dim());
        program_.run(anchor_, batch_anchor_grad_);
        batch_anchor_grad_ -= anchor_grad_;
        batch_at_anchor_ = true;
    }
    grad -= batch_anchor_grad_;
    return lp;
}

void MinibatchTarget::offer_anchor(const Approximation& q) {
    const long epoch = (full_rows_ + batch_rows_ - 1) / batch_rows_;
    if (!control_variates_ || (anchor_passes_ > 0 && batches_since_anchor_ < epoch))
        return;
    batches_since_anchor_ = 0;
    ++anchor_passes_;
    Eigen::VectorXd lp;
    Eigen::MatrixXd grads;
    const Eigen::MatrixXd at = q.mu();
    const double ok = evaluate_or_nan([&] {
        rows_pass(all_rows_, at, lp, &grads);
        return lp[0];
    });
    if (!std::isfinite(ok) || !grads.allFinite())
        return;  // the full data's density fails at q's mean: the anchor stays (or none yet)
    // A mean far below the anchor in log density is an iterate's excursion (a step size too
    // large for a while: the Auto rule's first phase at a large eta), not where q is going: an
    // anchor there made every gradient's noise that of the excursion's batches, the step
    // sizes' squared-gradient averages grew by orders of magnitude and q stood still for
    // thousands of iterations. Such a move waits, unless q has stayed there for kAnchorWaits
    // epochs (q has moved on for good).
    if (anchored_ && ok < anchor_lp_ - std::max(10.0, static_cast<double>(dim())) &&
        ++anchor_waits_ <= kAnchorWaits) {
        return;
    }
    anchor_waits_ = 0;
    anchored_ = true;
    batch_at_anchor_ = false;
    anchor_ = q.mu();
    anchor_grad_ = grads.col(0);
    anchor_lp_ = ok;
}

void MinibatchTarget::next_minibatch() {
    ++batches_since_anchor_;
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
