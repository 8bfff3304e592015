// Uses the installed headers and library: a normal mean with known variance.
#include <cmath>
#include <iostream>

#include <advi/advi.hpp>

int main() {
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(20, 0.0, 2.0);
    advi::Model m;
    auto yd = m.data("y", y);
    auto mu = m.param("mu", advi::normal(0, 10));
    m.observe(yd, advi::normal(mu, 1.0));
    auto fit = advi::fit(m, {.seed = 1});
    const double mean = fit.mean("mu")[0];
    std::cout << "mu " << mean << "\n";
    if (std::abs(mean - 1.0) > 0.2)
        return 1;
    std::cout << "downstream fit ok\n";
    return 0;
}
