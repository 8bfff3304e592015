// Split-R-hat, ESS and MCSE of iterate traces; the batched iterate window.
#include <advi/engine/stationarity.hpp>

#include <cmath>
#include <limits>
#include <numeric>

namespace advi {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// R-hat from segment means and within-segment variances (n values each).
double rhat_from_segments(const std::vector<double>& means, const std::vector<double>& vars,
                          double n) {
    const double m = static_cast<double>(means.size());
    const double grand = std::accumulate(means.begin(), means.end(), 0.0) / m;
    double between = 0.0;  // B / n: the variance of the segment means
    for (const double x : means) between += (x - grand) * (x - grand);
    between /= m - 1.0;
    const double within = std::accumulate(vars.begin(), vars.end(), 0.0) / m;
    if (within <= 0.0) {
        return between <= 0.0 ? 1.0 : std::numeric_limits<double>::infinity();
    }
    return std::sqrt(((n - 1.0) / n * within + between) / within);
}

}  // namespace

double split_rhat(std::span<const double> trace, int splits) {
    const long n = static_cast<long>(trace.size()) / splits;
    if (splits < 2 || n < 2)
        return kNaN;
    const auto skip = static_cast<long>(trace.size()) - n * splits;
    std::vector<double> means, vars;
    for (int s = 0; s < splits; ++s) {
        const auto seg = trace.subspan(static_cast<size_t>(skip + s * n), static_cast<size_t>(n));
        const double mean = std::accumulate(seg.begin(), seg.end(), 0.0) / n;
        double ss = 0.0;
        for (const double x : seg) ss += (x - mean) * (x - mean);
        means.push_back(mean);
        vars.push_back(ss / (n - 1.0));
    }
    return rhat_from_segments(means, vars, static_cast<double>(n));
}

double effective_sample_size(std::span<const double> trace) {
    const auto n = static_cast<long>(trace.size());
    if (n < 4)
        return kNaN;
    const double mean = std::accumulate(trace.begin(), trace.end(), 0.0) / n;
    auto autocov = [&](long lag) {
        double s = 0.0;
        for (long t = 0; t + lag < n; ++t) s += (trace[t] - mean) * (trace[t + lag] - mean);
        return s / n;  // the biased estimator, as Geyer's (positive definite)
    };
    const double c0 = autocov(0);
    if (c0 <= 0.0)
        return static_cast<double>(n);
    // tau = -1 + 2 sum_{k>=0} (rho_2k + rho_2k+1), summing pairs while the pair is positive.
    double tau = -1.0;
    for (long k = 0; k + 1 < n; k += 2) {
        const double pair = (autocov(k) + autocov(k + 1)) / c0;
        if (pair <= 0.0)
            break;
        tau += 2.0 * pair;
    }
    return n / std::max(tau, 1.0 / std::log10(static_cast<double>(n)));
}

double mcse_mean(std::span<const double> trace) {
    const auto n = static_cast<double>(trace.size());
    const double mean = std::accumulate(trace.begin(), trace.end(), 0.0) / n;
    double ss = 0.0;
    for (const double x : trace) ss += (x - mean) * (x - mean);
    return std::sqrt(ss / (n - 1.0) / effective_sample_size(trace));
}

void IterateWindow::Batch::add(const Eigen::VectorXd& x) {
    if (n == 0) {
        mean = x;
        m2 = Eigen::VectorXd::Zero(x.size());
        n = 1;
        return;
    }
    ++n;
    const Eigen::VectorXd delta = x - mean;
    mean += delta / static_cast<double>(n);
    m2.array() += delta.array() * (x - mean).array();
}

void IterateWindow::Batch::join(const Batch& o) {
    const double na = static_cast<double>(n), nb = static_cast<double>(o.n);
    const Eigen::VectorXd delta = o.mean - mean;
    mean += delta * (nb / (na + nb));
    m2 += o.m2 + (delta.array().square() * (na * nb / (na + nb))).matrix();
    n += o.n;
}

IterateWindow::IterateWindow(int batches, int batch_length)
    : batches_(batches), batch_length_(batch_length) {}

void IterateWindow::add(const Eigen::VectorXd& x) {
    current_.add(x);
    if (current_.n < batch_length_)
        return;
    if (full())
        done_.erase(done_.begin());
    done_.push_back(std::move(current_));
    current_ = Batch{};
}

void IterateWindow::clear() {
    done_.clear();
    current_ = Batch{};
}

void IterateWindow::merge() {
    std::vector<Batch> joined;
    const size_t odd = done_.size() % 2;  // the oldest batch has no partner: dropped
    for (size_t i = odd; i + 1 < done_.size(); i += 2) {
        Batch b = done_[i];
        b.join(done_[i + 1]);
        joined.push_back(std::move(b));
    }
    done_ = std::move(joined);
    batch_length_ *= 2;
    // The partial batch continues towards the new length.
}

long IterateWindow::length() const {
    long n = 0;
    for (const Batch& b : done_) n += b.n;
    return n;
}

Eigen::VectorXd IterateWindow::rhat(const Eigen::VectorXd& floor) const {
    const Eigen::Index dim = done_.empty() ? 0 : done_.front().mean.size();
    Eigen::VectorXd r(dim);
    std::vector<double> means(done_.size()), vars(done_.size());
    for (Eigen::Index k = 0; k < dim; ++k) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (size_t b = 0; b < done_.size(); ++b) {
            means[b] = done_[b].mean[k];
            vars[b] = done_[b].m2[k] / static_cast<double>(done_[b].n - 1);
            lo = std::min(lo, means[b]);
            hi = std::max(hi, means[b]);
        }
        r[k] = hi - lo < floor[k]
                   ? 1.0
                   : rhat_from_segments(means, vars, static_cast<double>(done_.front().n));
    }
    return r;
}

Eigen::VectorXd IterateWindow::average() const {
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(done_.empty() ? 0 : done_.front().mean.size());
    double n = 0.0;
    for (const Batch& b : done_) {
        sum += b.mean * static_cast<double>(b.n);
        n += static_cast<double>(b.n);
    }
    return sum / n;
}

}  // namespace advi
