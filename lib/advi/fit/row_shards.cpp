#include <advi/fit/row_shards.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>

namespace advi {

int shard_rows(std::int64_t full_rows) {
    if (full_rows <= kShardRows)
        return static_cast<int>(std::max<std::int64_t>(full_rows, 1));
    const std::int64_t fewest = (full_rows + kMaxShards - 1) / kMaxShards;
    return static_cast<int>(std::max<std::int64_t>(kShardRows, fewest));
}

RowShardTarget::RowShardTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                               std::uint64_t seed, int threads, Ranks* ranks, bool curvature)
    : rows_(model, sources, "row shards"), ranks_(ranks != nullptr ? ranks : &one_) {
    const std::int64_t N = rows_.full_rows();
    const int C = rows_.batch_rows();
    if (C != shard_rows(N)) {
        throw ShapeError(fmt::format(
            "row shards: the model is written over {} rows, but the shards of {} rows have {} "
            "(shard_rows)",
            C, N, shard_rows(N)));
    }
    shards_ = static_cast<int>((N + C - 1) / C);
    const int P = ranks_->size();
    const int p = ranks_->rank();
    // Contiguous ranges, the first shards to the first ranks: rank p has [p K / P, (p+1) K / P).
    const auto bound = [&](int q) {
        return static_cast<int>(static_cast<std::int64_t>(q) * shards_ / P);
    };
    first_ = bound(p);
    last_ = bound(p + 1);
    spec_ =
        rows_.weighted(model, &row_weight_, "shard_row_weight", &rest_weight_, "shard_rest_weight");
    load_shard(0, false, [] {});
    gradient_ = compile(spec_);
    gradient_.set_threads(threads);
    value_ = compile_value(spec_);
    value_.set_threads(threads);
    check_sum_over_rows(rows_, gradient_, batch_, seed, "row shards");
    if (curvature) {
        try {
            curvature_.emplace(compile_hessian_vector(spec_));
            curvature_->set_threads(threads);
        } catch (const ModelError& e) {
            curvature_error_ = e.what();
        }
    }
    counts_.resize(static_cast<std::size_t>(P));
}

void RowShardTarget::load_shard(int k, bool padding, const std::function<void()>& reload) {
    const int C = rows_.batch_rows();
    const std::int64_t first = static_cast<std::int64_t>(k) * C;
    const std::int64_t r = std::min<std::int64_t>(C, rows_.full_rows() - first);
    batch_.resize(static_cast<std::size_t>(C));
    for (int b = 0; b < C; ++b)
        batch_[static_cast<std::size_t>(b)] =
            static_cast<int>(!padding && b < r ? first + b : first);
    rows_.load(batch_);
    rest_weight_ = k == 0 && !padding ? 1.0 : 0.0;
    row_weight_ = 1.0;
    reload();
}

void RowShardTarget::reduce(int width, const std::function<void()>& reload,
                            const std::function<void(double*)>& evaluate, Eigen::VectorXd& total) {
    const int C = rows_.batch_rows();
    const auto w = static_cast<std::size_t>(width);
    mine_.assign(static_cast<std::size_t>(last_ - first_) * w, 0.0);
    std::vector<double> padded(w);
    // A library's exception in one shard is a failed evaluation (NaN), as evaluate_or_nan
    // makes it; the ranks go on to the exchange, where the others wait for this one.
    const auto run = [&](double* into) {
        try {
            evaluate(into);
        } catch (const Error&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception&) {
            std::fill(into, into + width, std::numeric_limits<double>::quiet_NaN());
        }
    };
    for (int k = first_; k < last_; ++k) {
        double* into = mine_.data() + static_cast<std::size_t>(k - first_) * w;
        load_shard(k, false, reload);
        run(into);
        const std::int64_t r =
            std::min<std::int64_t>(C, rows_.full_rows() - static_cast<std::int64_t>(k) * C);
        if (r < C) {
            // The short last shard was filled up with C - r copies of its first row: take off
            // their share, (C - r) / C of a shard of C such copies.
            load_shard(k, true, reload);
            run(padded.data());
            const double share = static_cast<double>(C - r) / static_cast<double>(C);
            for (std::size_t j = 0; j < w; ++j) into[j] -= share * padded[j];
        }
    }
    for (int q = 0; q < ranks_->size(); ++q) {
        const auto shards = static_cast<std::int64_t>(shards_);
        const auto lo = static_cast<int>(static_cast<std::int64_t>(q) * shards / ranks_->size());
        const auto hi =
            static_cast<int>(static_cast<std::int64_t>(q + 1) * shards / ranks_->size());
        counts_[static_cast<std::size_t>(q)] = (hi - lo) * width;
    }
    all_.resize(static_cast<std::size_t>(shards_) * w);
    ranks_->all_gather(mine_, counts_, all_);
    total = Eigen::Map<const Eigen::VectorXd>(all_.data(), width);
    for (int k = 1; k < shards_; ++k)
        total +=
            Eigen::Map<const Eigen::VectorXd>(all_.data() + static_cast<std::size_t>(k) * w, width);
}

double RowShardTarget::log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
    const int D = dim();
    Eigen::VectorXd g(D), total;
    reduce(
        1 + D, [this] { gradient_.reload_data(); },
        [&](double* into) {
            into[0] = gradient_.run(zeta, g);
            std::copy(g.data(), g.data() + D, into + 1);
        },
        total);
    grad = total.tail(D);
    return total[0];
}

double RowShardTarget::log_density(const Eigen::VectorXd& zeta) {
    Eigen::MatrixXd one = zeta;
    Eigen::VectorXd out;
    log_densities(one, out);
    return out[0];
}

void RowShardTarget::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    const auto n = static_cast<int>(zetas.cols());
    Eigen::VectorXd none(0), zeta(zetas.rows());
    reduce(
        n, [this] { value_.reload_data(); },
        [&](double* into) {
            for (int j = 0; j < n; ++j) {
                zeta = zetas.col(j);
                try {
                    into[j] = value_.run(zeta, none);
                } catch (const Error&) {
                    throw;
                } catch (const std::bad_alloc&) {
                    throw;
                } catch (const std::exception&) {
                    into[j] = std::numeric_limits<double>::quiet_NaN();
                }
            }
        },
        out);
}

double RowShardTarget::hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                                      Eigen::VectorXd& grad, Eigen::VectorXd& hv) {
    if (!curvature_)
        throw FitError("row shards: the target was made without its curvature program");
    const int D = dim();
    Eigen::VectorXd g(D), h(D), total;
    reduce(
        1 + 2 * D, [this] { curvature_->reload_data(); },
        [&](double* into) {
            into[0] = curvature_->hessian_vector(zeta, v, g, h);
            std::copy(g.data(), g.data() + D, into + 1);
            std::copy(h.data(), h.data() + D, into + 1 + D);
        },
        total);
    grad = total.segment(1, D);
    hv = total.tail(D);
    return total[0];
}

}  // namespace advi
