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

}  // namespace advi
