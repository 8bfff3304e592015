// Boost.Random behind advi::Rng.
#include <advi/engine/rng.hpp>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

namespace advi {

struct Rng::Impl {
    boost::random::mt19937_64 engine;
    // Boost's normal_distribution (ziggurat) keeps no state between calls, so copying an
    // Rng copies its whole future.
    boost::random::normal_distribution<double> normal;
};

Rng::Rng(std::uint64_t seed) : impl_(std::make_unique<Impl>()) {
    impl_->engine.seed(seed);
}
Rng::Rng(const Rng& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Rng& Rng::operator=(const Rng& other) {
    if (this != &other) {
        impl_ = std::make_unique<Impl>(*other.impl_);
    }
    return *this;
}
Rng::Rng(Rng&&) noexcept = default;
Rng& Rng::operator=(Rng&&) noexcept = default;
Rng::~Rng() = default;

std::uint64_t Rng::next_u64() {
    return impl_->engine();
}

Rng Rng::split() {
    return Rng(next_u64());
}

double Rng::normal() {
    return impl_->normal(impl_->engine);
}

void Rng::fill_normal(Eigen::VectorXd& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) {
        v[i] = normal();
    }
}

Eigen::MatrixXd Rng::normal_matrix(int rows, int cols) {
    Eigen::MatrixXd m(rows, cols);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            m(r, c) = normal();
        }
    }
    return m;
}

}  // namespace advi
