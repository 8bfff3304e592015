// Batches of log densities over threads: the draws are independent, so parallelism over draws
// needs no partial sums, and a draw's value is computed by the same instructions whichever
// thread takes it.
#include <advi/fit/compiled_target.hpp>

#include <algorithm>

#include <advi/compile/pipeline.hpp>
#include <advi/compile/thread_pool.hpp>

namespace advi {

namespace {

// A batch shorter than this runs on the calling thread: waking the pool costs more than a
// few evaluations of a small model. (It changes which thread computes a draw, never its value.)
constexpr Eigen::Index kMinParallelDraws = 4;
// The pool's region holds at most 2^16 - 1 parts; larger batches take several draws per part.
constexpr Eigen::Index kMaxParts = 4096;

struct Batch {
    CompiledTarget* self;
    std::vector<Program>* copies;
    std::vector<Eigen::VectorXd>* inputs;
    const Eigen::MatrixXd* zetas;
    Eigen::VectorXd* out;
    Eigen::Index per_part;
};

}  // namespace

CompiledTarget::CompiledTarget(const ModelSpec& m, Program& gradient, int threads)
    : gradient_(gradient), value_(compile_value(m)), threads_(threads) {
    value_.set_threads(threads);
}

void CompiledTarget::part_task(void* context, int part, int thread) {
    auto& b = *static_cast<Batch*>(context);
    Program& program = (*b.copies)[static_cast<std::size_t>(thread)];
    Eigen::VectorXd& zeta = (*b.inputs)[static_cast<std::size_t>(thread)];
    Eigen::VectorXd none;
    const Eigen::Index begin = part * b.per_part;
    const Eigen::Index end = std::min(begin + b.per_part, b.zetas->cols());
    for (Eigen::Index i = begin; i < end; ++i) {
        zeta = b.zetas->col(i);
        // The policy of evaluate_value(): a library's exception is a failed evaluation (NaN);
        // our own errors and a failed allocation pass on (the pool rethrows the first).
        (*b.out)[i] = evaluate_or_nan([&] { return program.run(zeta, none); });
    }
}

void CompiledTarget::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    const int threads = threads_ > 0 ? threads_ : ThreadPool::hardware_threads();
    if (threads <= 1 || zetas.cols() < kMinParallelDraws) {
        Target::log_densities(zetas, out);
        return;
    }
    out.resize(zetas.cols());
    ThreadPool& pool = ThreadPool::shared(threads);
    const auto size = static_cast<std::size_t>(pool.size());
    while (copies_.size() < size) {
        copies_.push_back(value_);
        copies_.back().set_threads(1);
        inputs_.emplace_back(value_.dim());
    }
    const Eigen::Index per_part = (zetas.cols() + kMaxParts - 1) / kMaxParts;
    const auto parts = static_cast<int>((zetas.cols() + per_part - 1) / per_part);
    Batch b{this, &copies_, &inputs_, &zetas, &out, per_part};
    pool.run(parts, &CompiledTarget::part_task, &b);
}

}  // namespace advi
