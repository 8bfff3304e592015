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
#include "nmf_rates.hpp"

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "small";
    const auto dir = advi::examples::sim_dir("nmf_direxp");
    if (!advi::examples::have_sim_data(dir, size)) return 0;  // a clone without it
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
    // One graph whatever U: the U rows of theta are transformed together, the U x I rates are
    // one matrix product (U = 200 and 2000 compile to as many instructions).
    const advi::Program program = advi::compile(m.spec());
    fmt::print("log density and gradient: {} instructions (+{} run once), arena {:.1f} MB\n",
               program.instruction_count(), program.prologue_count(),
               static_cast<double>(program.arena_bytes()) / 1e6);
    // eta = 0.3 given: the search picks 0.1, which creeps (on small 3300 iterations to tol
    // 0.01); 0.3 converges to tol 0.001 in 1300 iterations, 1 ends no better.
    const advi::Fit fit = advi::fit(m, {.family = advi::Family::MeanField,
                                        .seed = 1,
                                        .tol_rel_obj = 0.001,
                                        .adapt_engaged = false,
                                        .eta = 0.3,
                                        .max_iterations = 10000});
    fmt::print("{} iterations, {:.2f} s, eta {}, {} ({} parameters)\n", fit.result().iterations,
               fit.result().seconds, fit.result().eta, fit.result().stop_reason,
               fit.result().q.dim());

    const Eigen::MatrixXd theta = fit.mean("theta").reshaped(U, K);
    const Eigen::MatrixXd beta = fit.mean("beta").reshaped(I, K);
    const Eigen::MatrixXd theta_true = truth.at("theta").as_matrix();
    const Eigen::MatrixXd beta_true = truth.at("beta").as_matrix();
    const auto r = advi::examples::compare_rates(theta * beta.transpose(),
                                                 theta_true * beta_true.transpose(), y);
    fmt::print(
        "rates theta beta' ({} x {}) against the truth: correlation {:.4f}, relative "
        "error {:.4f}\n",
        U, I, r.correlation, r.relative_error);
    fmt::print(
        "mean Poisson log likelihood per entry: {:.4f} at the fitted rates, {:.4f} at the "
        "true rates\n",
        r.loglik_fit, r.loglik_true);
    // alpha0 = 1000 holds every theta_u near (1/K, ..., 1/K): the true rates are nearly rank
    // one, sum_k beta_ik / K, and the rank-one fit below is about as close as K factors get.
    const auto r1 = advi::examples::compare_rates(advi::examples::rank_one_rates(y),
                                                  theta_true * beta_true.transpose(), y);
    fmt::print(
        "(a rank-one fit, row totals x column totals: correlation {:.4f}, relative error "
        "{:.4f}, log likelihood {:.4f})\n",
        r1.correlation, r1.relative_error, r1.loglik_fit);
    fmt::print("mean rate: fitted {:.3f}, true {:.3f}, data {:.3f}\n",
               (theta * beta.transpose()).mean(), (theta_true * beta_true.transpose()).mean(),
               y.cast<double>().mean());
    return 0;
}
