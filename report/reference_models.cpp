#include "reference_models.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/parser.hpp>

namespace advi::references {

const std::vector<ReferenceModel>& reference_models() {
    static const std::vector<ReferenceModel> models = {
        {"gauss2d",             "examples/gauss2d.stan",                      "shared:sim/gauss2d/small.data.json",  true },
        {"logistic",            "examples/logistic.stan",                     "shared:sim/logistic/small.data.json", true },
        {"linreg_raw",          "report/references/linreg_raw.stan",
         "report/references/linreg_raw.data.json",                                                                   true },
        {"linreg_std",          "report/references/linreg_std.stan",
         "report/references/linreg_std.data.json",                                                                   true },
        {"logistic_glm",        "report/references/logistic_glm.stan",
         "report/references/logistic_glm.data.json",                                                                 true },
        {"poisson_glm",         "report/references/poisson_glm.stan",
         "report/references/poisson_glm.data.json",                                                                  true },
        {"eight_schools_nc",    "report/references/eight_schools_nc.stan",
         "report/references/eight_schools_nc.data.json",                                                             false},
        {"eight_schools_c",     "report/references/eight_schools_c.stan",
         "report/references/eight_schools_c.data.json",                                                              false},
        {"hier_logistic_small", "report/references/hier_logistic_small.stan",
         "report/references/hier_logistic_small.data.json",                                                          false},
    };
    return models;
}

const ReferenceModel& reference_model(const std::string& name) {
    for (const ReferenceModel& m : reference_models())
        if (m.name == name)
            return m;
    throw Error(fmt::format("no reference model named `{}`", name));
}

std::unique_ptr<LoadedModel> load(const ReferenceModel& m, const std::filesystem::path& source_dir,
                                  const std::filesystem::path& shared_dir) {
    auto loaded = std::make_unique<LoadedModel>();
    const std::filesystem::path stan_file = source_dir / m.stan;
    std::ifstream in(stan_file);
    if (!in)
        throw Error(fmt::format("cannot read model file `{}`", stan_file.string()));
    std::stringstream text;
    text << in.rdbuf();
    loaded->program = stan::parse_program(text.str(), stan_file.string());
    const std::string shared = "shared:";
    const std::filesystem::path data_file = m.data.rfind(shared, 0) == 0
                                                ? shared_dir / m.data.substr(shared.size())
                                                : source_dir / m.data;
    loaded->data = read_data(data_file);
    loaded->lowered = stan::lower(loaded->program, loaded->data);
    loaded->spec = loaded->lowered->model().spec();
    return loaded;
}

std::vector<std::string> theta_labels(const ModelSpec& spec) {
    std::vector<std::string> labels;
    const std::vector<int> offsets = spec.theta_offsets();
    for (std::size_t i = 0; i < spec.latents.size(); ++i) {
        const int end = i + 1 < offsets.size() ? offsets[i + 1] : spec.theta_dim();
        const int n = end - offsets[i];
        const bool scalar = spec.latents[i].shape.is_scalar() && n == 1;
        for (int k = 0; k < n; ++k)
            labels.push_back(scalar ? spec.latents[i].name
                                    : fmt::format("{}[{}]", spec.latents[i].name, k + 1));
    }
    return labels;
}

namespace {

std::string patient_line(const char* family, const PatientElbo& e) {
    return fmt::format("elbo {} {:.17g} {:.17g} {:.17g}\n", family, e.elbo, e.se, e.spread);
}

}  // namespace

void write_reference(const std::filesystem::path& file, const Reference& r) {
    std::ofstream out(file);
    if (!out)
        throw Error(fmt::format("cannot write `{}`", file.string()));
    out << "# Written by report/make_references; do not edit by hand.\n";
    out << "command " << r.command << "\n";
    out << "method " << r.method << "\n";
    out << "settings " << r.settings << "\n";
    out << patient_line("mean_field", r.mean_field);
    out << patient_line("full_rank", r.full_rank);
    if (std::isfinite(r.log_evidence))
        out << fmt::format("evidence {:.17g}\n", r.log_evidence);
    for (std::size_t i = 0; i < r.labels.size(); ++i)
        out << fmt::format("param {} {:.17g} {:.17g}\n", r.labels[i], r.mean[static_cast<int>(i)],
                           r.sd[static_cast<int>(i)]);
}

Reference read_reference(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in)
        throw Error(fmt::format("cannot read reference file `{}`", file.string()));
    Reference r;
    std::vector<double> means, sds;
    std::string line;
    int number = 0;
    bool have_mf = false, have_fr = false;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        std::string key;
        words >> key;
        auto rest = [&] {
            std::string s;
            std::getline(words >> std::ws, s);
            return s;
        };
        auto bad = [&] {
            return Error(fmt::format("{}:{}: cannot read `{}`", file.string(), number, line));
        };
        if (key == "command") {
            r.command = rest();
        } else if (key == "method") {
            r.method = rest();
        } else if (key == "settings") {
            r.settings = rest();
        } else if (key == "elbo") {
            std::string family;
            PatientElbo e;
            if (!(words >> family >> e.elbo >> e.se >> e.spread))
                throw bad();
            if (family == "mean_field") {
                r.mean_field = e;
                have_mf = true;
            } else if (family == "full_rank") {
                r.full_rank = e;
                have_fr = true;
            } else {
                throw bad();
            }
        } else if (key == "evidence") {
            if (!(words >> r.log_evidence))
                throw bad();
        } else if (key == "param") {
            std::string label;
            double m = 0, s = 0;
            if (!(words >> label >> m >> s))
                throw bad();
            r.labels.push_back(label);
            means.push_back(m);
            sds.push_back(s);
        } else {
            throw bad();
        }
    }
    if (!have_mf || !have_fr || means.empty())
        throw Error(fmt::format("reference file `{}` lacks an ELBO per family or parameters",
                                file.string()));
    r.mean = Eigen::Map<Eigen::VectorXd>(means.data(), static_cast<Eigen::Index>(means.size()));
    r.sd = Eigen::Map<Eigen::VectorXd>(sds.data(), static_cast<Eigen::Index>(sds.size()));
    return r;
}

void write_reference_draws(const std::filesystem::path& file, const ReferenceDraws& d) {
    std::ofstream out(file);
    if (!out)
        throw Error(fmt::format("cannot write `{}`", file.string()));
    out << "# " << d.theta.rows() << " draws, " << d.method << "\n";
    for (std::size_t j = 0; j < d.labels.size(); ++j) out << (j ? "\t" : "") << d.labels[j];
    out << "\n";
    for (Eigen::Index i = 0; i < d.theta.rows(); ++i) {
        for (Eigen::Index j = 0; j < d.theta.cols(); ++j)
            out << (j ? "\t" : "") << fmt::format("{:.6g}", d.theta(i, j));
        out << "\n";
    }
}

ReferenceDraws read_reference_draws(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in)
        throw Error(
            fmt::format("cannot read reference draws `{}` (written by make_references "
                        "--draws-only)",
                        file.string()));
    ReferenceDraws d;
    std::string line;
    if (!std::getline(in, line) || line.rfind("# ", 0) != 0)
        throw Error(fmt::format("{}:1: expected `# N draws, <method>`", file.string()));
    d.method = line.substr(2);
    if (!std::getline(in, line) || line.empty())
        throw Error(fmt::format("{}:2: expected the column names", file.string()));
    std::istringstream names(line);
    for (std::string label; std::getline(names, label, '\t');) d.labels.push_back(label);
    std::vector<double> values;
    int number = 2;
    while (std::getline(in, line)) {
        ++number;
        std::istringstream words(line);
        std::size_t k = 0;
        for (double x; words >> x; ++k) values.push_back(x);
        if (k != d.labels.size() || !words.eof())
            throw Error(
                fmt::format("{}:{}: expected {} numbers", file.string(), number, d.labels.size()));
    }
    const auto cols = static_cast<Eigen::Index>(d.labels.size());
    const auto rows = static_cast<Eigen::Index>(values.size()) / cols;
    if (rows == 0)
        throw Error(fmt::format("`{}` has no draws", file.string()));
    d.theta = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        values.data(), rows, cols);
    return d;
}

ElboWithSe precise_elbo(Target& target, const Approximation& q, int draws, std::uint64_t seed) {
    Rng rng(seed);
    Eigen::VectorXd eta(q.noise_dim()), zeta(q.dim()), grad(q.dim());
    // Welford's running mean and variance of the log density over the draws.
    double mean = 0.0, m2 = 0.0;
    for (int i = 0; i < draws; ++i) {
        for (int d = 0; d < q.noise_dim(); ++d) eta[d] = rng.normal();
        q.transform(eta, zeta);
        const double lp = target.log_density(zeta);
        if (!std::isfinite(lp))
            return {-std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::quiet_NaN()};
        const double delta = lp - mean;
        mean += delta / (i + 1);
        m2 += delta * (lp - mean);
    }
    const double var = draws > 1 ? m2 / (draws - 1) : 0.0;
    return {mean + q.entropy(), std::sqrt(var / draws)};
}

}  // namespace advi::references
