// The L-BFGS options that `optimize` and `pathfinder` share, by CmdStan's names (tol_obj,
// tol_rel_obj, tol_grad, tol_rel_grad, tol_param, history_size, init_alpha), on any options
// struct with those fields (OptimizeOptions, PathfinderOptions).
#pragma once

#include <advi/cli/validators.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {

template <class LbfgsOptions>
void add_lbfgs_options(CLI::App* app, LbfgsOptions& o) {
    app->add_option("--tol-obj", o.tol_obj, "Absolute change of lp that ends the search")
        ->check(non_negative_real())
        ->capture_default_str();
    app->add_option("--tol-rel-obj", o.tol_rel_obj,
                    "Relative change of lp that ends the search, in units of epsilon")
        ->check(non_negative_real())
        ->capture_default_str();
    app->add_option("--tol-grad", o.tol_grad, "Gradient norm that ends the search")
        ->check(non_negative_real())
        ->capture_default_str();
    app->add_option("--tol-rel-grad", o.tol_rel_grad,
                    "g' H^-1 g / max(|lp|, 1) that ends the search, in units of epsilon")
        ->check(non_negative_real())
        ->capture_default_str();
    app->add_option("--tol-param", o.tol_param, "Parameter change that ends the search")
        ->check(non_negative_real())
        ->capture_default_str();
    app->add_option("--history-size", o.history_size, "L-BFGS: curvature pairs kept")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--init-alpha", o.init_alpha, "L-BFGS: first line search step length")
        ->check(positive_real())
        ->capture_default_str();
}

}  // namespace advi::cli
