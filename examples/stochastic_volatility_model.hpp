// Stochastic volatility (paper section 3.1; Kim, Shephard and Chib 1998), centred as in the
// paper: y_t ~ N(0, exp(h_t / 2)), h_t ~ N(mu + phi (h_{t-1} - mu), sigma),
// h_1 ~ N(mu, sigma / sqrt(1 - phi^2)); mu ~ Cauchy(0, 10), phi ~ U(-1, 1),
// sigma ~ LogNormal(0, 10). Shared by examples/stochastic_volatility.cpp and its test.
#pragma once

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

// `y` is bound by reference: keep it alive while the model is used.
inline void build_stochastic_volatility(Model& m, const Eigen::VectorXd& y_data) {
    const int T = static_cast<int>(y_data.size());
    auto y = m.data("y", y_data);
    auto mu = m.param("mu", cauchy(0, 10));
    auto phi = m.param("phi", uniform(-1, 1));
    auto sigma = m.param("sigma", lognormal(0, 10));
    // h's density is the AR(1) process itself: a flat latent observed through its terms.
    auto h = m.param("h", flat(), T);
    m.observe(head(h, 1), normal(mu, sigma / sqrt(1.0 - square(phi))));
    m.observe(tail(h, T - 1), normal(mu + phi * (head(h, T - 1) - mu), sigma));
    m.observe(y, normal(0, exp(h / 2)));
}

}  // namespace advi::examples
