// Uniform initial values in unconstrained space.
#include <advi/engine/initial_point.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

Eigen::VectorXd uniform_init(std::uint64_t stream, int dim, double radius) {
    if (!(radius >= 0.0) || !std::isfinite(radius))
        throw FitError(fmt::format("option `init` = {} must be a finite radius >= 0", radius));
    Eigen::VectorXd z(dim);
    Rng rng(stream);
    for (Eigen::Index k = 0; k < z.size(); ++k) {
        const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;  // [0, 1)
        z[k] = radius * (2.0 * u - 1.0);
    }
    return z;
}

std::optional<FiniteInit> finite_uniform_init(Target& target, std::uint64_t first_stream,
                                              double radius, int tries) {
    Eigen::VectorXd grad(target.dim());
    for (int k = 1; k <= tries; ++k) {
        Eigen::VectorXd z =
            uniform_init(first_stream + kInitTryStride * static_cast<std::uint64_t>(k - 1),
                         target.dim(), radius);
        const double lp = target.log_density_gradient(z, grad);
        if (std::isfinite(lp) && grad.allFinite())
            return FiniteInit{std::move(z), k};
    }
    return std::nullopt;
}

}  // namespace advi
