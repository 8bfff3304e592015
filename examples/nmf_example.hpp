// The part of examples/nmf_gap.cpp and nmf_direxp.cpp after the model is built: the compiled
// program's size, the fit, and the fitted rates against the truth and a rank-one fit.
#pragma once

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/data_table.hpp>

#include "nmf_rates.hpp"

namespace advi::examples {

// eta = 0.3 is given to both factorisations: the search tries powers of ten, and on the small
// sets 1 diverges within its 50 iterations while 0.1 creeps (nmf_gap: stops at tol 0.001 after
// 2300 iterations no better than a rank-one fit, relative error 0.105; nmf_direxp: 3300
// iterations to tol 0.01); 0.3 reaches relative error 0.067 in 1900 (nmf_gap) and tol 0.001 in
// 1300 (nmf_direxp).
inline void fit_and_report_rates(const Model& m, const Eigen::MatrixXi& y, int K,
                                 const DataTable& truth) {
    const auto U = y.rows(), I = y.cols();
    // One graph whatever U: the U rows of theta are transformed together, the U x I rates are
    // one matrix product (U = 200 and 2000 compile to as many instructions).
    const Program program = compile(m.spec());
    fmt::print("log density and gradient: {} instructions (+{} run once), arena {:.1f} MB\n",
               program.instruction_count(), program.prologue_count(),
               static_cast<double>(program.arena_bytes()) / 1e6);
    const Fit fit = advi::fit(m, {.family = Family::MeanField,
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
    const Eigen::MatrixXd true_rates =
        truth.at("theta").as_matrix() * truth.at("beta").as_matrix().transpose();
    const auto r = compare_rates(theta * beta.transpose(), true_rates, y);
    fmt::print(
        "rates theta beta' ({} x {}) against the truth: correlation {:.4f}, relative "
        "error {:.4f}\n",
        U, I, r.correlation, r.relative_error);
    fmt::print(
        "mean Poisson log likelihood per entry: {:.4f} at the fitted rates, {:.4f} at the "
        "true rates\n",
        r.loglik_fit, r.loglik_true);
    const auto r1 = compare_rates(rank_one_rates(y), true_rates, y);
    fmt::print(
        "(a rank-one fit, row totals x column totals: correlation {:.4f}, relative error "
        "{:.4f}, log likelihood {:.4f})\n",
        r1.correlation, r1.relative_error, r1.loglik_fit);
    fmt::print("mean rate: fitted {:.3f}, true {:.3f}, data {:.3f}\n",
               (theta * beta.transpose()).mean(), true_rates.mean(), y.cast<double>().mean());
}

}  // namespace advi::examples
