// Shards on threads: a thread's lane holds its own row buffers, weights and programs, so the
// shards of this rank run in parallel without sharing any mutable state; each shard writes its
// own slot of the results, and the slots are added in shard order after the exchange.
#include <advi/fit/row_shards.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/compile/thread_pool.hpp>

namespace advi {

int shard_rows(std::int64_t full_rows) {
    if (full_rows <= kShardRows)
        return static_cast<int>(std::max<std::int64_t>(full_rows, 1));
    const std::int64_t fewest = (full_rows + kMaxShards - 1) / kMaxShards;
    return static_cast<int>(std::max<std::int64_t>(kShardRows, fewest));
}

struct RowShardTarget::Lane {
    RowBuffers rows;
    double row_weight = 1.0;
    double rest_weight = 1.0;
    ModelSpec spec;
    Program gradient;
    Program value;
    std::optional<HessianVectorProgram> curvature;
    std::vector<int> batch;  // the rows loaded
    Eigen::VectorXd zeta, g, h, none;

    Lane(const ModelSpec& model, const std::vector<MinibatchData>& sources)
        : rows(model, sources, "row shards") {
        spec = rows.weighted(model, &row_weight, "shard_row_weight", &rest_weight,
                             "shard_rest_weight");
    }
    // Shard k's rows and weights (the terms without rows only in shard 0; `padding`: the
    // shard's first row in every place, for the correction of a short last shard).
    void load(int k, bool padding, std::int64_t full_rows) {
        const int C = rows.batch_rows();
        const std::int64_t first = static_cast<std::int64_t>(k) * C;
        const std::int64_t r = std::min<std::int64_t>(C, full_rows - first);
        batch.resize(static_cast<std::size_t>(C));
        for (int b = 0; b < C; ++b)
            batch[static_cast<std::size_t>(b)] =
                static_cast<int>(!padding && b < r ? first + b : first);
        rows.load(batch);
        rest_weight = k == 0 && !padding ? 1.0 : 0.0;
        row_weight = 1.0;
    }
    void compile_programs(bool with_curvature, int threads) {
        gradient = compile(spec);
        gradient.set_threads(threads);
        value = compile_value(spec);
        value.set_threads(threads);
        if (with_curvature) {
            curvature.emplace(compile_hessian_vector(spec));
            curvature->set_threads(threads);
        }
        zeta.resize(gradient.dim());
        g.resize(gradient.dim());
        h.resize(gradient.dim());
    }
};

struct RowShardTarget::Request {
    Kind kind = Kind::Gradient;
    int width = 0;
    const Eigen::VectorXd* zeta = nullptr;
    const Eigen::VectorXd* v = nullptr;
    const Eigen::MatrixXd* zetas = nullptr;
    RowShardTarget* self = nullptr;
};

RowShardTarget::RowShardTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                               std::uint64_t seed, int threads, Ranks* ranks, bool curvature)
    : model_(model),
      sources_(sources),
      threads_(threads > 0 ? threads : ThreadPool::hardware_threads()),
      ranks_(ranks != nullptr ? ranks : &one_) {
    auto first = std::make_unique<Lane>(model, sources);
    full_rows_ = first->rows.full_rows();
    shard_size_ = first->rows.batch_rows();
    if (shard_size_ != shard_rows(full_rows_)) {
        throw ShapeError(fmt::format(
            "row shards: the model is written over {} rows, but the shards of {} rows have {} "
            "(shard_rows)",
            shard_size_, full_rows_, shard_rows(full_rows_)));
    }
    shards_ = static_cast<int>((full_rows_ + shard_size_ - 1) / shard_size_);
    const int P = ranks_->size();
    const int p = ranks_->rank();
    // Contiguous ranges, the first shards to the first ranks: rank p has [p K / P, (p+1) K / P).
    first_ = static_cast<int>(static_cast<std::int64_t>(p) * shards_ / P);
    last_ = static_cast<int>(static_cast<std::int64_t>(p + 1) * shards_ / P);
    counts_.resize(static_cast<std::size_t>(P));
    // Threads for the shards where this rank has several, else for the programs' long loops.
    const int program_threads = std::min(threads_, last_ - first_) > 1 ? 1 : threads_;
    first->load(0, false, full_rows_);
    first->compile_programs(false, program_threads);
    check_sum_over_rows(first->rows, first->gradient, first->batch, seed, "row shards");
    if (curvature) {
        try {
            first->curvature.emplace(compile_hessian_vector(first->spec));
            first->curvature->set_threads(program_threads);
            curvature_wanted_ = true;
        } catch (const ModelError& e) {
            curvature_error_ = e.what();
        }
    }
    lanes_.push_back(std::move(first));
}

RowShardTarget::~RowShardTarget() = default;

int RowShardTarget::dim() const {
    return lanes_.front()->gradient.dim();
}

bool RowShardTarget::has_curvature() const {
    return lanes_.front()->curvature.has_value();
}

const ModelSpec& RowShardTarget::spec() const {
    return lanes_.front()->spec;
}

RowShardTarget::Lane& RowShardTarget::lane(int thread) {
    return *lanes_[static_cast<std::size_t>(thread)];
}

void RowShardTarget::evaluate_shard(Lane& lane, const Request& request, int k, double* into) const {
    const auto run = [&](double* out) {
        // A library's exception in one shard is a failed evaluation (NaN), as evaluate_or_nan
        // makes it; the ranks go on to the exchange, where the others wait for this one. Our
        // own errors and a failed allocation pass on.
        try {
            switch (request.kind) {
                case Kind::Gradient: {
                    lane.gradient.reload_data();
                    out[0] = lane.gradient.run(*request.zeta, lane.g);
                    std::copy(lane.g.data(), lane.g.data() + lane.g.size(), out + 1);
                    break;
                }
                case Kind::Curvature: {
                    lane.curvature->reload_data();
                    out[0] =
                        lane.curvature->hessian_vector(*request.zeta, *request.v, lane.g, lane.h);
                    std::copy(lane.g.data(), lane.g.data() + lane.g.size(), out + 1);
                    std::copy(lane.h.data(), lane.h.data() + lane.h.size(),
                              out + 1 + lane.g.size());
                    break;
                }
                case Kind::Value: {
                    lane.value.reload_data();
                    for (Eigen::Index j = 0; j < request.zetas->cols(); ++j) {
                        lane.zeta = request.zetas->col(j);
                        out[j] =
                            evaluate_or_nan([&] { return lane.value.run(lane.zeta, lane.none); });
                    }
                    break;
                }
            }
        } catch (const Error&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception&) {
            std::fill(out, out + request.width, std::numeric_limits<double>::quiet_NaN());
        }
    };
    lane.load(k, false, full_rows_);
    run(into);
    const std::int64_t r = std::min<std::int64_t>(
        shard_size_, full_rows_ - static_cast<std::int64_t>(k) * shard_size_);
    if (r < shard_size_) {
        // The short last shard was filled up with C - r copies of its first row: take off
        // their share, (C - r) / C of a shard of C such copies.
        std::vector<double> padded(static_cast<std::size_t>(request.width));
        lane.load(k, true, full_rows_);
        run(padded.data());
        const double share = static_cast<double>(shard_size_ - r) / shard_size_;
        for (int j = 0; j < request.width; ++j)
            into[j] -= share * padded[static_cast<std::size_t>(j)];
    }
}

void RowShardTarget::shard_task(void* context, int part, int thread) {
    auto& request = *static_cast<Request*>(context);
    RowShardTarget& self = *request.self;
    const int k = self.first_ + part;
    self.evaluate_shard(self.lane(thread), request, k,
                        self.mine_.data() + static_cast<std::size_t>(part) * request.width);
}

void RowShardTarget::reduce(Request& request, Eigen::VectorXd& total) {
    const int width = request.width;
    const auto w = static_cast<std::size_t>(width);
    const int mine = last_ - first_;
    mine_.assign(static_cast<std::size_t>(mine) * w, 0.0);
    request.self = this;
    const int parallel = std::min(threads_, mine);
    if (parallel > 1) {
        ThreadPool& pool = ThreadPool::shared(threads_);
        while (lanes_.size() < static_cast<std::size_t>(pool.size())) {
            auto extra = std::make_unique<Lane>(model_, sources_);
            extra->compile_programs(curvature_wanted_, 1);
            lanes_.push_back(std::move(extra));
        }
        pool.run(mine, &RowShardTarget::shard_task, &request);
    } else {
        for (int part = 0; part < mine; ++part) shard_task(&request, part, 0);
    }
    for (int q = 0; q < ranks_->size(); ++q) {
        const auto lo = static_cast<std::int64_t>(q) * shards_ / ranks_->size();
        const auto hi = static_cast<std::int64_t>(q + 1) * shards_ / ranks_->size();
        counts_[static_cast<std::size_t>(q)] = static_cast<int>(hi - lo) * width;
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
    Request request{Kind::Gradient, 1 + D, &zeta, nullptr, nullptr, nullptr};
    Eigen::VectorXd total;
    reduce(request, total);
    grad = total.tail(D);
    return total[0];
}

double RowShardTarget::log_density(const Eigen::VectorXd& zeta) {
    const Eigen::MatrixXd one = zeta;
    Eigen::VectorXd out;
    log_densities(one, out);
    return out[0];
}

void RowShardTarget::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    Request request{Kind::Value, static_cast<int>(zetas.cols()), nullptr, nullptr, &zetas, nullptr};
    reduce(request, out);
}

double RowShardTarget::hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                                      Eigen::VectorXd& grad, Eigen::VectorXd& hv) {
    if (!has_curvature())
        throw FitError("row shards: the target was made without its curvature program");
    const int D = dim();
    Request request{Kind::Curvature, 1 + 2 * D, &zeta, &v, nullptr, nullptr};
    Eigen::VectorXd total;
    reduce(request, total);
    grad = total.segment(1, D);
    hv = total.tail(D);
    return total[0];
}

}  // namespace advi
