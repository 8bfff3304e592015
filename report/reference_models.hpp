// The reference models of issue 19's "Measured and reported": the paper's small models and
// regressions, GLMs and hierarchical models built for the purpose (report/references/), each
// with a stored reference (report/references/<name>.reference.txt, written by
// make_references): the posterior's mean and sd per constrained element and the ELBO a long
// patient plain-Adam run reaches per family. Shared by make_references, compare_fits and
// tests/report/reference_elbo_test.
#pragma once

#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/target.hpp>
#include <advi/io/data_table.hpp>
#include <advi/model/model_spec.hpp>
#include <advi/stan/ast.hpp>
#include <advi/stan/lower.hpp>

namespace advi::references {

struct ReferenceModel {
    std::string name;
    std::string stan;  // relative to the source tree
    // Relative to the source tree, or "shared:<path>" below the shared data folder.
    std::string data;
    // Regressions and small GLMs: full-rank's means must be within 0.3 reference sds.
    bool near_gaussian = false;
};

// Every model with a stored reference, in table order.
[[nodiscard]] const std::vector<ReferenceModel>& reference_models();
[[nodiscard]] const ReferenceModel& reference_model(const std::string& name);

// A model and what it points into (program, data), kept alive together.
struct LoadedModel {
    stan::Program program;
    DataTable data;
    std::unique_ptr<stan::LoweredProgram> lowered;
    ModelSpec spec;
};

[[nodiscard]] std::unique_ptr<LoadedModel> load(const ReferenceModel& m,
                                                const std::filesystem::path& source_dir,
                                                const std::filesystem::path& shared_dir);

// Stan-style labels of the constrained elements in theta order ("beta[2]", "sigma"),
// 1-based, column-major for matrices (as the elements are laid out).
[[nodiscard]] std::vector<std::string> theta_labels(const ModelSpec& spec);

// The patient ELBO of one family: the best over seeds, its Monte Carlo standard error, and
// the spread over seeds (max - min) as a check that the runs agree.
struct PatientElbo {
    double elbo = 0.0;
    double se = 0.0;
    double spread = 0.0;
};

struct Reference {
    std::string method;    // how the posterior moments were computed, one line
    std::string command;   // what wrote the file
    std::string settings;  // the patient runs' settings, one line
    std::vector<std::string> labels;
    Eigen::VectorXd mean, sd;  // per constrained element
    PatientElbo mean_field, full_rank;
    // log p(x) by importance sampling from the Laplace approximation where that is trusted (an
    // upper bound of every ELBO); NaN where the reference is a chain.
    double log_evidence = std::numeric_limits<double>::quiet_NaN();
};

void write_reference(const std::filesystem::path& file, const Reference& r);
// Throws advi::Error naming the file and line it cannot read.
[[nodiscard]] Reference read_reference(const std::filesystem::path& file);

// Draws from the reference posterior (constrained, theta order; one row per draw), for the
// 1-Wasserstein column of compare_fits: report/references/<name>.draws.txt, written by
// `make_references --draws-only`. The first line says how they were made, the second names the
// columns, then one draw per line (6 significant digits).
struct ReferenceDraws {
    std::string method;
    std::vector<std::string> labels;
    Eigen::MatrixXd theta;
};
void write_reference_draws(const std::filesystem::path& file, const ReferenceDraws& d);
// Throws advi::Error naming the file and line it cannot read.
[[nodiscard]] ReferenceDraws read_reference_draws(const std::filesystem::path& file);

// ELBO of q on `target` over `draws` fresh standard-normal draws (seeded), with the Monte Carlo
// standard error of the mean log density; draws whose log density is not finite make the
// ELBO -inf (q puts mass where p has none).
struct ElboWithSe {
    double elbo = 0.0;
    double se = 0.0;
};
[[nodiscard]] ElboWithSe precise_elbo(Target& target, const Approximation& q, int draws,
                                      std::uint64_t seed);

}  // namespace advi::references
