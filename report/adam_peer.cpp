// The patient peer of issue 19: plain stochastic gradient ascent on the ELBO of a Stan program,
// as a user of a general-purpose library runs it (Pyro's Adam at 0.01 for 10,000 steps, one
// draw per gradient, q from the init point with unit scales, no averaging, no stopping rule),
// on advi's own compiled gradient program. Prints the ELBO of the current q (over fresh draws,
// value-only program) every --every steps with the seconds so far, so that a fit's ELBO can be
// set against it and against the time the peer takes to reach it.
//   adam_peer MODEL.stan DATA.json [--steps 10000] [--rate 0.01] [--seed 1]
//             [--family meanfield|fullrank] [--every 500] [--elbo-draws 1000] [--threads 1]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/compile/pipeline.hpp>
#include <advi/engine/approximation.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/rng.hpp>
#include <advi/fit/compiled_target.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace {

struct Args {
    std::filesystem::path model, data;
    int steps = 10000;
    double rate = 0.01;
    std::uint64_t seed = 1;
    advi::Family family = advi::Family::MeanField;
    int every = 500;
    int elbo_draws = 1000;
    int threads = 1;
};

Args parse(int argc, char** argv) {
    Args a;
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::runtime_error("option " + s + " needs a value");
            return argv[++i];
        };
        if (s == "--steps") {
            a.steps = std::stoi(value());
        } else if (s == "--rate") {
            a.rate = std::stod(value());
        } else if (s == "--seed") {
            a.seed = std::stoull(value());
        } else if (s == "--every") {
            a.every = std::stoi(value());
        } else if (s == "--elbo-draws") {
            a.elbo_draws = std::stoi(value());
        } else if (s == "--threads") {
            a.threads = std::stoi(value());
        } else if (s == "--family") {
            const std::string f = value();
            if (f != "meanfield" && f != "fullrank")
                throw std::runtime_error("--family: meanfield or fullrank, not " + f);
            a.family = f == "fullrank" ? advi::Family::FullRank : advi::Family::MeanField;
        } else if (!s.empty() && s[0] == '-') {
            throw std::runtime_error("unknown option " + s);
        } else if (positional == 0) {
            a.model = s;
            ++positional;
        } else if (positional == 1) {
            a.data = s;
            ++positional;
        } else {
            throw std::runtime_error("unexpected argument " + s);
        }
    }
    if (positional != 2 || a.steps < 1 || a.every < 1 || a.elbo_draws < 2)
        throw std::runtime_error(
            "usage: adam_peer MODEL.stan DATA.json [--steps N] [--rate R] [--seed S] "
            "[--family meanfield|fullrank] [--every N] [--elbo-draws N] [--threads T]");
    return a;
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    if (!in)
        throw std::runtime_error("cannot read " + p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

int main(int argc, char** argv) try {
    const Args a = parse(argc, argv);
    const auto program = advi::stan::parse_program(read_text(a.model), a.model.string());
    const advi::DataTable data = advi::read_data(a.data);
    const auto lowered = advi::stan::lower(program, data);
    const advi::ModelSpec spec = lowered->model().spec();
    advi::Program gradient = advi::compile(spec);
    gradient.set_threads(a.threads);
    advi::CompiledTarget target(spec, gradient, a.threads);

    advi::Approximation q =
        advi::Approximation::initial(a.family, Eigen::VectorXd::Zero(target.dim()));
    Eigen::VectorXd p = q.params();
    Eigen::VectorXd m1 = Eigen::VectorXd::Zero(p.size()), m2 = m1;
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    advi::Rng rng(a.seed);
    advi::Rng elbo_rng(a.seed + 1000);
    double seconds = 0.0;  // of the steps alone, without the ELBO reports
    fmt::print("# adam_peer {} {}: {} coordinates, Adam ({}, {}) at {} for {} steps, seed {}\n",
               a.model.string(), a.data.string(), target.dim(), b1, b2, a.rate, a.steps, a.seed);
    fmt::print("{:>8} {:>10} {:>16}\n", "step", "seconds", "ELBO");
    int skipped = 0;
    for (int t = 1; t <= a.steps; ++t) {
        const auto start = std::chrono::steady_clock::now();
        const advi::ElboGradient g = advi::elbo_gradient(target, q, rng, 1, 10);
        if (g.ok()) {
            m1 = b1 * m1 + (1 - b1) * g.grad;
            m2 = b2 * m2 + (1 - b2) * g.grad.cwiseAbs2();
            const Eigen::ArrayXd mhat = m1.array() / (1 - std::pow(b1, t));
            const Eigen::ArrayXd vhat = m2.array() / (1 - std::pow(b2, t));
            p.array() += a.rate * mhat / (vhat.sqrt() + eps);
            q.set_params(p);
        } else {
            ++skipped;
        }
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (t % a.every == 0 || t == a.steps) {
            const advi::ElboEstimate e = advi::elbo_estimate(target, q, elbo_rng, a.elbo_draws);
            fmt::print("{:>8} {:>10.2f} {:>16.3f}\n", t, seconds, e.value);
            std::fflush(stdout);
        }
    }
    if (skipped > 0)
        fmt::print("# {} steps skipped: no finite draw among 10\n", skipped);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "adam_peer: " << e.what() << '\n';
    return 1;
}
