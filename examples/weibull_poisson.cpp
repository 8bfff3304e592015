// The paper's running example (section 2): counts with a Poisson likelihood whose rate has a
// Weibull(1.5, 1) prior: a nonconjugate model. ADVI against the exact posterior by quadrature.
#include <cmath>
#include <iostream>

#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/poisson_distribution.hpp>

#include <advi/advi.hpp>

int main() {
    const int N = 50;
    const double theta_true = 2.4;
    boost::random::mt19937_64 rng(7);
    boost::random::poisson_distribution<int> poisson(theta_true);
    Eigen::VectorXi x(N);
    for (int n = 0; n < N; ++n) x[n] = poisson(rng);

    advi::Model m;
    auto xd = m.data("x", x);
    auto theta = m.param("theta", advi::weibull(1.5, 1.0));  // support: positive
    m.observe(xd, advi::poisson(theta));
    std::cout << m.graph() << "\n";

    // The exact posterior mean and sd by quadrature of the unnormalised density.
    const double S = x.sum();
    auto log_joint = [&](double t) {
        return std::log(1.5) + 0.5 * std::log(t) - std::pow(t, 1.5) + S * std::log(t) - N * t;
    };
    const double peak = log_joint(S / N);
    boost::math::quadrature::tanh_sinh<double> q;
    auto moment = [&](int k) {
        return q.integrate([&](double t) { return std::pow(t, k) * std::exp(log_joint(t) - peak); },
                           0.0, std::numeric_limits<double>::infinity());
    };
    const double z = moment(0), mean = moment(1) / z, sd = std::sqrt(moment(2) / z - mean * mean);

    for (auto family : {advi::Family::MeanField, advi::Family::FullRank}) {
        auto fit = advi::fit(m, {.family = family, .seed = 3});
        std::cout << fit.summary();
    }
    std::cout << "exact posterior: mean " << mean << ", sd " << sd << " (truth " << theta_true
              << ")\n";
    return 0;
}
