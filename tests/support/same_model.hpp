// Test support for models written twice (examples/NAME.cpp and examples/NAME.stan): the
// Stan program, lowered, is the same model as the C++ one, by the text of its log density
// expression or by its compiled log density and gradient at a few points; and where the shared
// data folder is.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::test {

// ../shared/data/sim/MODEL, or empty (with a WARN) where the shared folder is absent (a clone
// outside the workplace layout): the caller skips.
inline std::filesystem::path shared_sim_dir(const std::string& model) {
    const std::filesystem::path dir = std::filesystem::path(ADVI_SHARED_DATA) / "sim" / model;
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": checks on it skipped");
        return {};
    }
    return dir;
}

// A text file's contents (a Stan program).
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream f(path);
    REQUIRE(f.good());
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Log density and gradient of two models agree at four points of zeta drawn from N(0, 0.25)
// (relative `tol`: sums taken in another order round differently).
inline void check_same_density(const ModelSpec& a, const ModelSpec& b, double tol = 1e-12) {
    Program pa = compile(a), pb = compile(b);
    REQUIRE(pa.dim() == pb.dim());
    std::mt19937 rng(7);
    std::normal_distribution<double> z;
    for (int rep = 0; rep < 4; ++rep) {
        Eigen::VectorXd zeta(pa.dim()), ga(pa.dim()), gb(pb.dim());
        for (auto& x : zeta) x = 0.5 * z(rng);
        const double la = pa.run(zeta, ga), lb = pb.run(zeta, gb);
        CHECK(la == Approx(lb).epsilon(tol));
        CHECK((ga - gb).norm() <= tol * (1 + gb.norm()));
    }
}

// The lowered examples/NAME.stan on `data`.
inline std::unique_ptr<stan::LoweredProgram> lower_example(const std::string& name,
                                                           const DataTable& data) {
    const std::string path = std::string(ADVI_SOURCE_DIR) + "/examples/" + name + ".stan";
    std::ifstream f(path);
    REQUIRE(f.good());
    std::stringstream s;
    s << f.rdbuf();
    return stan::lower(stan::parse_program(s.str(), name + ".stan"), data);
}

// A node as the expression it computes, inputs spelled out: equal for equal graphs whatever
// the order in which their nodes were created (as tests/dsl/stan/examples_test.cpp).
inline std::string expression(const Graph& g, NodeId id, std::map<NodeId, std::string>& memo) {
    if (auto it = memo.find(id); it != memo.end())
        return it->second;
    const Node& n = g[id];
    std::string s = fmt::format("{}{}", op_name(n.op), n.shape.str());
    if (n.op == Op::Const)
        s += fmt::format(" {}", n.value);
    if (!g.label(id).empty())
        s += " " + g.label(id);
    if (n.arity() > 0) {
        s += "(";
        for (int k = 0; k < n.arity(); ++k) s += (k ? ", " : "") + expression(g, n.in[k], memo);
        s += ")";
    }
    if (n.arity() > 0 && (n.index != 0 || n.aux != 0))
        s += fmt::format("[{},{}]", n.index, n.aux);
    return memo[id] = s;
}

inline std::string log_density_expression(const Graph& g) {
    std::map<NodeId, std::string> memo;
    for (const auto& o : g.outputs()) {
        if (o.name == "lp")
            return expression(g, o.id, memo);
    }
    return "";
}

// `count` points of R^dim for check_same_log_density, each coordinate scale * N(0, 1) from
// std::mt19937(seed): spread enough to reach every branch of a transform, reproducible.
inline std::vector<Eigen::VectorXd> random_points(Eigen::Index dim, double scale,
                                                  std::uint32_t seed, int count = 4) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> z;
    std::vector<Eigen::VectorXd> points;
    for (int rep = 0; rep < count; ++rep) {
        Eigen::VectorXd zeta(dim);
        for (auto& v : zeta) v = scale * z(rng);
        points.push_back(zeta);
    }
    return points;
}

// The two compiled log densities and their gradients agree (1e-12 relative) at each zeta.
inline void check_same_log_density(const ModelSpec& a, const ModelSpec& b,
                                   const std::vector<Eigen::VectorXd>& points) {
    Program pa = compile(a), pb = compile(b);
    REQUIRE(pa.dim() == pb.dim());
    for (const Eigen::VectorXd& zeta : points) {
        REQUIRE(zeta.size() == pa.dim());
        Eigen::VectorXd ga(pa.dim()), gb(pb.dim());
        const double la = pa.run(zeta, ga), lb = pb.run(zeta, gb);
        INFO("zeta = " << zeta.transpose());
        CHECK(la == Approx(lb).epsilon(1e-12));
        for (int i = 0; i < pa.dim(); ++i) {
            INFO("coordinate " << i << ": " << ga[i] << " vs " << gb[i]);
            CHECK(std::abs(ga[i] - gb[i]) <= 1e-10 * std::max(1.0, std::abs(gb[i])));
        }
    }
}

}  // namespace advi::test
