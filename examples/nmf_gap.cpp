// Constrained Gamma Poisson factorisation (paper appendix A.3) on the shared simulated counts:
// U users x I = 560 items (28 x 20 pixel images), K = 10 factors, all Gamma hyper-parameters 1
// (small: U = 200, medium: U = 2000). Prints the fit's facts and compares the fitted rates
// E[theta] E[beta]' with the true theta beta' (correlation, relative error, and the mean Poisson
// log likelihood of an entry at the fitted rates against that at the true ones).
//   ./build/examples/nmf_gap [small|medium]
#include <filesystem>
#include <iostream>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "nmf_gap_model.hpp"
#include "nmf_rates.hpp"

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "small";
    const auto dir = advi::examples::sim_dir("nmf_gap");
    if (!advi::examples::have_sim_data(dir, size)) return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXi y = data.at("y").as_int_matrix();
    const int U = data.at("U").as_int(), I = data.at("I").as_int(), K = data.at("K").as_int();
    const Eigen::VectorXi y_flat = y.reshaped();  // column-major, as the model reads it
    const advi::examples::NmfGapPriors priors{data.at("a0").as_real(), data.at("b0").as_real(),
                                              data.at("c0").as_real(), data.at("d0").as_real()};

    advi::Model m;
    advi::examples::build_nmf_gap(m, y_flat, U, I, K, priors);
    fmt::print(
        "Gamma Poisson factorisation, theta_u positive_ordered: U = {}, I = {}, K = {}, "
        "{} counts ({})\n",
        U, I, K, y.sum(), size);
    // One graph whatever U: the U rows of theta are transformed together, the U x I rates are
    // one matrix product (U = 200 and 2000 compile to as many instructions).
    const advi::Program program = advi::compile(m.spec());
    fmt::print("log density and gradient: {} instructions (+{} run once), arena {:.1f} MB\n",
               program.instruction_count(), program.prologue_count(),
               static_cast<double>(program.arena_bytes()) / 1e6);
    // eta = 0.3 given: the search tries powers of ten, and 1 diverges within its 50 iterations
    // while 0.1 creeps (on small it stops at tol 0.001 after 2300 iterations no better than a
    // rank-one fit, relative error 0.105); 0.3 reaches relative error 0.067 in 1900.
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
