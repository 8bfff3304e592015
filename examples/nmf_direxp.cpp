// Dirichlet Exponential Poisson factorisation (paper appendix A.4) on the shared simulated
// counts: U users x I = 560 items (28 x 20 pixel images), K = 10 factors, theta_u ~
// Dirichlet(alpha0 = 1000 each), beta_ik ~ Exponential(0.1) (small: U = 200, medium: U = 2000).
// Prints the fit's facts and compares the fitted rates E[theta] E[beta]' with the true theta
// beta' (correlation, relative error, and the mean Poisson log likelihood of an entry at the
// fitted rates against that at the true ones).
//   ./build/examples/nmf_direxp [small|medium]
#include <filesystem>
#include <iostream>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "nmf_direxp_model.hpp"
#include "nmf_example.hpp"

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "small";
    const auto dir = advi::examples::sim_dir("nmf_direxp");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXi y = data.at("y").as_int_matrix();
    const int U = data.at("U").as_int(), I = data.at("I").as_int(), K = data.at("K").as_int();
    const Eigen::VectorXd alpha0 = data.at("alpha0").as_vector();
    const double lambda0 = data.at("lambda0").as_real();
    const Eigen::VectorXi y_flat = y.reshaped();  // column-major, as the model reads it

    advi::Model m;
    advi::examples::build_nmf_direxp(m, y_flat, U, I, alpha0, lambda0);
    fmt::print(
        "Dirichlet Exponential Poisson factorisation, theta_u a simplex: U = {}, I = {}, "
        "K = {}, {} counts ({})\n",
        U, I, K, y.sum(), size);
    // alpha0 = 1000 holds every theta_u near (1/K, ..., 1/K): the true rates are nearly rank
    // one, sum_k beta_ik / K, and the rank-one fit it prints is about as close as K factors get.
    advi::examples::fit_and_report_rates(m, y, K, truth);
    return 0;
}
