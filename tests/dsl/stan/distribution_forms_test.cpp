// Every distribution of the Stan density table (dsl/advi/stan/functions.cpp, densities()) written
// three ways on the same data and parameters: one statement per element (`y[1] ~ d(...);
// y[2] ~ d(...); ...`), a `for` loop (vectorised by the lowering) and the vectorised statement
// `y ~ d(...)`. The three must have the same log density and gradient to 1e-12: a vectorised
// categorical once read Stan's outcomes 0-based. The cases are driven by the table: a row
// without a case here fails, so a new distribution gets one. The univariate rows are also
// checked against an independent reference (Boost.Math or a closed form), and integer outcomes
// outside Stan's range are refused naming the element.
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include <boost/math/distributions.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

// How the variate of a distribution is written in data and in the arguments. `{i}` in an
// argument is the element's index: `[{i}]` becomes `[1]`, `[n]` or nothing (vectorised).
struct Case {
    std::string variate;  // the data declaration of y, N elements
    std::string values;   // y as JSON
    std::vector<std::string> args;
    int n = 3;               // elements of y (the outer array or vector)
    bool vectorised = true;  // Stan has a vectorised form
};

// Parameters and data that every case shares (each program declares all of them, so that the
// same unconstrained point is the same parameter values in every form).
constexpr const char* kParameters = R"(parameters {
  vector[3] a;
  vector<lower=0>[3] p;
  real<lower=0> s;
  real<lower=0, upper=1> u;
  vector<lower=0, upper=1>[3] v;
  vector[2] mu2;
  simplex[3] th;
  ordered[2] c;
}
)";
constexpr const char* kSharedData =
    "array[3] int M; cov_matrix[2] Sigma; cholesky_factor_cov[2] L; cov_matrix[2] S;";
constexpr const char* kSharedJson =
    R"("M": [5, 5, 6], "Sigma": [[2, 0.3], [0.3, 1]], "L": [[1.2, 0], [0.4, 0.8]],)"
    R"( "S": [[1.5, 0.2], [0.2, 0.7]])";

const std::string kReals = "[0.3, -1.2, 2.1]";
const std::string kPositive = "[0.4, 1.7, 3.2]";
const std::string kUnit = "[0.15, 0.5, 0.85]";
const std::string kSpd = "[[2, 0.5], [0.5, 1]]";
const std::string kCholCov = "[[1.3, 0], [0.5, 0.9]]";
const std::string kCorr = "[[1, 0.3], [0.3, 1]]";
const std::string kCholCorr = "[[1, 0], [0.6, 0.8]]";

const std::map<std::string, Case>& cases() {
    // clang-format off
    static const std::map<std::string, Case> c = {
        {"std_normal",            {"vector[3] y", kReals, {}}                                       },
        {"flat",                  {"vector[3] y", kReals, {}}                                       },
        {"normal",                {"vector[3] y", kReals, {"a[{i}]", "s"}}                          },
        {"lognormal",             {"vector[3] y", kPositive, {"a[{i}]", "s"}}                       },
        {"cauchy",                {"vector[3] y", kReals, {"a[{i}]", "s"}}                          },
        {"student_t",             {"vector[3] y", kReals, {"p[{i}]", "a[{i}]", "s"}}                },
        {"gamma",                 {"vector[3] y", kPositive, {"p[{i}]", "s"}}                       },
        {"inv_gamma",             {"vector[3] y", kPositive, {"p[{i}]", "s"}}                       },
        {"weibull",               {"vector[3] y", kPositive, {"p[{i}]", "s"}}                       },
        {"exponential",           {"vector[3] y", kPositive, {"p[{i}]"}}                            },
        {"beta",                  {"vector[3] y", kUnit, {"p[{i}]", "s"}}                           },
        {"uniform",               {"vector[3] y", kReals, {"a[{i}] - 10", "s + 10"}}                },
        {"poisson",               {"array[3] int y", "[0, 3, 7]", {"p[{i}]"}}                       },
        {"poisson_log",           {"array[3] int y", "[0, 3, 7]", {"a[{i}]"}}                       },
        {"bernoulli",             {"array[3] int y", "[0, 1, 1]", {"v[{i}]"}}                       },
        {"bernoulli_logit",       {"array[3] int y", "[0, 1, 1]", {"a[{i}]"}}                       },
        {"binomial",              {"array[3] int y", "[0, 3, 6]", {"M[{i}]", "v[{i}]"}}             },
        {"binomial_logit",        {"array[3] int y", "[0, 3, 6]", {"M[{i}]", "a[{i}]"}}             },
        {"beta_binomial",         {"array[3] int y", "[0, 3, 6]", {"M[{i}]", "p[{i}]", "s"}}        },
        {"neg_binomial_2",        {"array[3] int y", "[0, 3, 7]", {"p[{i}]", "s"}}                  },
        {"neg_binomial_2_log",    {"array[3] int y", "[0, 3, 7]", {"a[{i}]", "s"}}                  },
        {"neg_binomial",          {"array[3] int y", "[0, 3, 7]", {"p[{i}]", "s"}}                  },
        {"beta_neg_binomial",     {"array[3] int y", "[0, 3, 7]", {"p[{i}] + 1", "s", "u + 1"}}     },
        {"yule_simon",            {"array[3] int y", "[1, 3, 7]", {"p[{i}]"}}                       },
        {"discrete_range",        {"array[3] int y", "[-2, 0, 3]", {"-2", "M[{i}]"}}                },
        {"hypergeometric",        {"int y", "2", {"5", "6", "7"}, 1, false}                         },
        {"beta_proportion",       {"vector[3] y", kUnit, {"v[{i}]", "s + 1"}}                       },
        {"double_exponential",    {"vector[3] y", kReals, {"a[{i}]", "s"}}                          },
        {"logistic",              {"vector[3] y", kReals, {"a[{i}]", "s"}}                          },
        {"gumbel",                {"vector[3] y", kReals, {"a[{i}]", "s"}}                          },
        {"skew_normal",           {"vector[3] y", kReals, {"a[{i}]", "s", "u"}}                     },
        {"skew_double_exponential", {"vector[3] y", kReals, {"a[{i}]", "s", "u"}}                   },
        {"exp_mod_normal",        {"vector[3] y", kReals, {"a[{i}]", "s", "p[{i}]"}}                },
        {"chi_square",            {"vector[3] y", kPositive, {"p[{i}]"}}                            },
        {"inv_chi_square",        {"vector[3] y", kPositive, {"p[{i}]"}}                            },
        {"scaled_inv_chi_square", {"vector[3] y", kPositive, {"p[{i}]", "s"}}                       },
        {"frechet",               {"vector[3] y", kPositive, {"p[{i}]", "s"}}                       },
        {"pareto",                {"vector[3] y", "[1.2, 2.5, 4]", {"u", "p[{i}]"}}                 },
        {"pareto_type_2",         {"vector[3] y", kPositive, {"u - 1", "s", "p[{i}]"}}              },
        {"von_mises",             {"vector[3] y", "[0.3, -1.2, 2.1]", {"a[{i}]", "s"}}              },
        // response times above the non-decision time 0.1 u < 0.1
        {"rayleigh",              {"vector[3] y", kPositive, {"p[{i}]"}}},
        {"loglogistic",           {"vector[3] y", kPositive, {"p[{i}]", "s"}}},
        {"wiener",                {"vector[3] y", kPositive, {"p[{i}] + 0.5", "0.1 * u", "v[{i}]", "a[{i}]"}}},
        {"multi_normal",
         {"array[3] vector[2] y", "[[0.3, -1.2], [2.1, 0.4], [-0.7, 0.9]]", {"mu2", "Sigma"}}       },
        {"multi_normal_cholesky",
         {"array[3] vector[2] y", "[[0.3, -1.2], [2.1, 0.4], [-0.7, 0.9]]", {"mu2", "L"}}           },
        {"dirichlet",
         {"array[3] simplex[3] y", "[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.25, 0.25, 0.5]]", {"p"}}  },
 // every category, the top one (3) included
        {"categorical",           {"array[3] int y", "[3, 1, 2]", {"th"}}                           },
        {"categorical_logit",     {"array[3] int y", "[3, 1, 2]", {"a"}}                            },
        {"ordered_logistic",      {"array[3] int y", "[3, 1, 2]", {"a[{i}]", "c"}}                  },
        {"ordered_probit",        {"array[3] int y", "[3, 1, 2]", {"a[{i}]", "c"}}                  },
        // the densities built as expressions (lower_densities.cpp)
        {"multi_normal_prec",
         {"array[3] vector[2] y", "[[0.3, -1.2], [2.1, 0.4], [-0.7, 0.9]]", {"mu2", "Sigma"}}       },
        {"multi_student_t",
         {"array[3] vector[2] y", "[[0.3, -1.2], [2.1, 0.4], [-0.7, 0.9]]", {"s + 2", "mu2", "Sigma"}}},
        {"multi_student_t_cholesky",
         {"array[3] vector[2] y", "[[0.3, -1.2], [2.1, 0.4], [-0.7, 0.9]]", {"s + 2", "mu2", "L"}}  },
        {"multi_gp",              {"matrix[2, 2] y", "[[0.3, -1.2], [2.1, 0.4]]", {"Sigma", "p[1:2]"}, 1, false}},
        {"multi_gp_cholesky",     {"matrix[2, 2] y", "[[0.3, -1.2], [2.1, 0.4]]", {"L", "p[1:2]"}, 1, false}},
        {"multinomial",           {"array[3] int y", "[2, 0, 5]", {"th"}, 1, false}                 },
        {"multinomial_logit",     {"array[3] int y", "[2, 0, 5]", {"a"}, 1, false}                  },
        {"dirichlet_multinomial", {"array[3] int y", "[2, 0, 5]", {"p"}, 1, false}                  },
        // matrix variates (one matrix; arrays of matrices are not data here): the statement, the
        // density function and a loop around it
        {"lkj_corr_cholesky",     {"cholesky_factor_corr[2] y", kCholCorr, {"s"}, 1, false}},
        {"lkj_corr",              {"corr_matrix[2] y", kCorr, {"s"}, 1, false}},
        {"wishart",               {"cov_matrix[2] y", kSpd, {"s + 2", "S"}, 1, false}},
        {"inv_wishart",           {"cov_matrix[2] y", kSpd, {"s + 2", "S"}, 1, false}},
        {"wishart_cholesky",      {"cholesky_factor_cov[2] y", kCholCov, {"s + 2", "L"}, 1, false}},
        {"inv_wishart_cholesky",  {"cholesky_factor_cov[2] y", kCholCov, {"s + 2", "L"}, 1, false}},
        {"lkj_cov",               {"cov_matrix[2] y", kSpd, {"a[1:2]", "p[1:2]", "s"}, 1, false}},
        // a Kalman filter: observations 2 x 3 of two states (F, G, V, W, m0, C0)
        {"gaussian_dlm_obs",      {"matrix[2, 3] y", "[[0.3, -1.2, 0.5], [2.1, 0.4, -0.6]]", {"L", "Sigma", "S", "Sigma", "mu2", "S"}, 1, false}},
        // clang-format on
    };
    return c;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// The arguments for element `index` ("1", "n") or, empty, for the whole variate.
std::string arguments(const Case& c, const std::string& index) {
    std::string out;
    for (const std::string& a : c.args) {
        out += (out.empty() ? "" : ", ") +
               replace_all(a, "[{i}]", index.empty() ? "" : "[" + index + "]");
    }
    return out;
}

std::string program(const Case& c, const std::string& model) {
    return fmt::format("data {{ {}; {} }}\n{}model {{\n{}}}\n", c.variate, kSharedData, kParameters,
                       model);
}

std::unique_ptr<LoweredProgram> lower_case(const std::string& text, const Case& c) {
    const std::string json = fmt::format(R"({{"y": {}, {}}})", c.values, kSharedJson);
    return lower(parse_program(text, "forms.stan"), read_json_data(json, "forms.json"));
}

}  // namespace

TEST_CASE(
    "every distribution has the same log density written per element, looped and "
    "vectorised",
    "[stan][distributions]") {
    int covered = 0;
    for (const DensityRow& row : densities()) {
        const std::string d(row.name);
        INFO("distribution " << d);
        if (d.ends_with("_glm")) {  // compositions of the densities here: glm_test.cpp
            ++covered;
            continue;
        }
        const auto it = cases().find(d);
        if (it == cases().end()) {
            FAIL("no case for " << d << " in tests/dsl/stan/distribution_forms_test.cpp: add one");
        }
        const Case& c = it->second;
        const bool ints = c.variate.find("int") != std::string::npos;
        const std::string args = arguments(c, "");
        // the density function of the whole variate, as a term
        const std::string function =
            fmt::format("  target += {}_{}(y{}{});\n", d, ints ? "lpmf" : "lpdf",
                        args.empty() ? "" : " | ", args);
        std::string scalar, loop, whole;
        if (c.vectorised) {
            for (int i = 1; i <= c.n; ++i)
                scalar += fmt::format("  y[{}] ~ {}({});\n", i, d, arguments(c, std::to_string(i)));
            loop = fmt::format("  for (n in 1:{}) y[n] ~ {}({});\n", c.n, d, arguments(c, "n"));
            whole = fmt::format("  y ~ {}({});\n", d, args);
        } else {
            scalar = fmt::format("  y ~ {}({});\n", d, args);
            loop = fmt::format("  for (n in 1:2) target += 0.5 * {}_{}(y | {});\n", d,
                               ints ? "lpmf" : "lpdf", args);
            whole = function;
        }
        auto by_scalar = lower_case(program(c, scalar), c);
        const ModelSpec reference = by_scalar->model().spec();
        for (const std::string& form : {loop, whole, function}) {
            INFO(form);
            auto other = lower_case(program(c, form), c);
            advi::test::check_same_density(reference, other->model().spec());
        }
        ++covered;
    }
    CHECK(covered == static_cast<int>(densities().size()));
}

namespace {

// Independent references: log p(y | args) of the univariate rows, from Boost.Math or a closed
// form, at constant arguments.
using Ref = std::function<double(double y, const std::vector<double>& a)>;
namespace bm = boost::math;
template <class D>
double logpdf(const D& d, double y) {
    return std::log(bm::pdf(d, y));
}

const std::map<std::string, std::pair<std::vector<double>, Ref>>& references() {
    static const std::map<std::string, std::pair<std::vector<double>, Ref>> r = {
        {"std_normal",              {{}, [](double y, auto&) { return logpdf(bm::normal(0, 1), y); }}          },
        {"normal",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::normal(a[0], a[1]), y); }}                     },
        {"lognormal",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::lognormal(a[0], a[1]), y); }}                  },
        {"cauchy",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::cauchy(a[0], a[1]), y); }}                     },
        {"student_t",
         {{3.5, 0.4, 1.3},
          [](double y, auto& a) {
              return logpdf(bm::students_t(a[0]), (y - a[1]) / a[2]) - std::log(a[2]);
          }}                                                                                                   },
        {"gamma",
         {{2.5, 1.3},
          [](double y, auto& a) { return logpdf(bm::gamma_distribution(a[0], 1 / a[1]), y); }}                 },
        {"inv_gamma",
         {{2.5, 1.3},
          [](double y, auto& a) { return logpdf(bm::inverse_gamma_distribution(a[0], a[1]), y); }}             },
        {"weibull",
         {{2.5, 1.3}, [](double y, auto& a) { return logpdf(bm::weibull(a[0], a[1]), y); }}                    },
        {"exponential",
         {{1.3}, [](double y, auto& a) { return logpdf(bm::exponential(a[0]), y); }}                           },
        {"beta",
         {{2.5, 1.3},
          [](double y, auto& a) { return logpdf(bm::beta_distribution(a[0], a[1]), y); }}                      },
        {"uniform",
         {{-4, 5}, [](double y, auto& a) { return logpdf(bm::uniform(a[0], a[1]), y); }}                       },
        {"poisson",                 {{2.5}, [](double y, auto& a) { return logpdf(bm::poisson(a[0]), y); }}    },
        {"poisson_log",
         {{0.7}, [](double y, auto& a) { return logpdf(bm::poisson(std::exp(a[0])), y); }}                     },
        {"bernoulli",               {{0.3}, [](double y, auto& a) { return logpdf(bm::bernoulli(a[0]), y); }}  },
        {"bernoulli_logit",
         {{0.7},
          [](double y, auto& a) { return logpdf(bm::bernoulli(1 / (1 + std::exp(-a[0]))), y); }}               },
        {"binomial",
         {{8, 0.3}, [](double y, auto& a) { return logpdf(bm::binomial(a[0], a[1]), y); }}                     },
        {"binomial_logit",
         {{8, 0.7},
          [](double y, auto& a) {
              return logpdf(bm::binomial(a[0], 1 / (1 + std::exp(-a[1]))), y);
          }}                                                                                                   },
        {"beta_binomial",
         {{8, 2.5, 1.3},
          [](double y, auto& a) {
              const double n = a[0], al = a[1], be = a[2];
              auto lb = [](double x, double z) {
                  return std::lgamma(x) + std::lgamma(z) - std::lgamma(x + z);
              };
              return std::lgamma(n + 1) - std::lgamma(y + 1) - std::lgamma(n - y + 1) +
                     lb(y + al, n - y + be) - lb(al, be);
          }}                                                                                                   },
        {"neg_binomial_2",
         {{2.5, 1.3},
          [](double y, auto& a) {
              return logpdf(bm::negative_binomial(a[1], a[1] / (a[0] + a[1])), y);
          }}                                                                                                   },
        {"neg_binomial_2_log",
         {{0.7, 1.3},
          [](double y, auto& a) {
              const double mu = std::exp(a[0]);
              return logpdf(bm::negative_binomial(a[1], a[1] / (mu + a[1])), y);
          }}                                                                                                   },
        {"double_exponential",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::laplace(a[0], a[1]), y); }}                    },
        {"logistic",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::logistic(a[0], a[1]), y); }}                   },
        {"gumbel",
         {{0.4, 1.3}, [](double y, auto& a) { return logpdf(bm::extreme_value(a[0], a[1]), y); }}              },
        {"skew_normal",
         {{0.4, 1.3, 0.8},
          [](double y, auto& a) { return logpdf(bm::skew_normal(a[0], a[1], a[2]), y); }}                      },
        {"skew_double_exponential",
         {{0.4, 1.3, 0.3},
          [](double y, auto& a) {
              const double spread = y < a[0] ? (1 - a[2]) * (a[0] - y) : a[2] * (y - a[0]);
              return std::log(2 * a[2] * (1 - a[2]) / a[1]) - 2 * spread / a[1];
          }}                                                                                                   },
        {"exp_mod_normal",
         {{0.4, 1.3, 0.8},
          [](double y, auto& a) {
              const double mu = a[0], s = a[1], l = a[2];
              return std::log(l / 2) + l / 2 * (2 * mu + l * s * s - 2 * y) +
                     std::log(std::erfc((mu + l * s * s - y) / (std::sqrt(2.0) * s)));
          }}                                                                                                   },
        {"chi_square",              {{3.5}, [](double y, auto& a) { return logpdf(bm::chi_squared(a[0]), y); }}},
        {"inv_chi_square",
         {{3.5}, [](double y, auto& a) { return logpdf(bm::inverse_chi_squared(a[0]), y); }}                   },
        {"scaled_inv_chi_square",
         {{3.5, 1.3},
          [](double y, auto& a) { return logpdf(bm::inverse_chi_squared(a[0], a[1] * a[1]), y); }}             },
        {"frechet",
         {{2.5, 1.3},
          [](double y, auto& a) {
              const double al = a[0], s = a[1];
              return std::log(al / s) - (1 + al) * std::log(y / s) - std::pow(y / s, -al);
          }}                                                                                                   },
        {"pareto",
         {{0.9, 2.5}, [](double y, auto& a) { return logpdf(bm::pareto(a[0], a[1]), y); }}                     },
        {"pareto_type_2",
         {{-0.5, 1.3, 2.5},
          [](double y, auto& a) {
              return std::log(a[2] / a[1]) - (a[2] + 1) * std::log1p((y - a[0]) / a[1]);
          }}                                                                                                   },
        {"rayleigh",                {{1.3}, [](double y, auto& a) { return logpdf(bm::rayleigh(a[0]), y); }}   },
        {"neg_binomial",
         {{2.5, 0.7},
          [](double y, auto& a) {
              return logpdf(bm::negative_binomial(a[0], a[1] / (1 + a[1])), y);
          }}                                                                                                   },
        {"yule_simon",
         {{1.7}, [](double y, auto& a) { return std::log(a[0] * bm::beta(y, a[0] + 1)); }}                     },
        {"beta_proportion",
         {{0.3, 4.5},
          [](double y, auto& a) {
              return logpdf(bm::beta_distribution(a[0] * a[1], (1 - a[0]) * a[1]), y);
          }}                                                                                                   },
        {"loglogistic",
         {{1.3, 2.5},
          [](double y, auto& a) {
              const double u = y / a[0];
              return std::log(a[1] / a[0]) + (a[1] - 1) * std::log(u) -
                     2 * std::log1p(std::pow(u, a[1]));
          }}                                                                                                   },
        {"von_mises",
         {{0.4, 1.3},
          [](double y, auto& a) {
              return a[1] * std::cos(y - a[0]) -
                     std::log(2 * std::numbers::pi * std::cyl_bessel_i(0.0, a[1]));
          }}                                                                                                   },
    };
    return r;
}

}  // namespace

TEST_CASE("the univariate distributions agree with Boost.Math or a closed form",
          "[stan][distributions]") {
    for (const auto& [d, ref] : references()) {
        INFO("distribution " << d);
        const Case& c = cases().at(d);
        std::string args;
        for (double a : ref.first) args += fmt::format("{}{}", args.empty() ? "" : ", ", a);
        // z at zeta = 0 is 0: its term is normal(0 | 0, 1), the rest the constant density of y
        const std::string text = fmt::format(
            "data {{ {}; }}\nparameters {{ real z; }}\nmodel {{ z ~ normal(0, 1); y ~ {}({}); }}",
            c.variate, d, args);
        const std::string json = fmt::format(R"({{"y": {}}})", c.values);
        auto lowered = lower(parse_program(text, "ref.stan"), read_json_data(json, "ref.json"));
        advi::Program p = compile(lowered->model().spec());
        Eigen::VectorXd zeta = Eigen::VectorXd::Zero(1), g(1);
        const double lp = p.run(zeta, g);
        // the same y values, read back from the case's JSON
        const DataTable table = read_json_data(json, "ref.json");
        const Eigen::VectorXd y = table.at("y").as_vector();
        double expected = -0.5 * std::log(2 * std::numbers::pi);
        for (double yk : y) expected += ref.second(yk, ref.first);
        CHECK(lp == Approx(expected).epsilon(1e-11));
    }
}

TEST_CASE("integer outcomes outside Stan's range are refused naming the element",
          "[stan][distributions]") {
    auto refuse = [](const std::string& model, const std::string& y) {
        const std::string text = fmt::format("data {{ array[3] int y; {} }}\n{}model {{ {} }}",
                                             kSharedData, kParameters, model);
        const std::string json = fmt::format(R"({{"y": {}, {}}})", y, kSharedJson);
        (void)lower(parse_program(text, "m.stan"), read_json_data(json, "m.json"));
    };
    // categories are 1..K: 0 was accepted vectorised (as category 1) and K refused
    CHECK_THROWS_WITH(
        refuse("y ~ categorical(th);", "[1, 0, 2]"),
        Catch::StartsWith("m.stan:12:9: `y`[2] = 0 is outside categorical's outcomes 1..3\n"));
    CHECK_THROWS_WITH(refuse("for (n in 1:3) y[n] ~ categorical_logit(a);", "[1, 4, 2]"),
                      Catch::StartsWith("m.stan:12:24: `y[n]` = 4 (at n = 2) is outside "
                                        "categorical_logit's outcomes 1..3"));
    CHECK_THROWS_WITH(refuse("y ~ ordered_logistic(a, c);", "[1, 2, 4]"),
                      Catch::StartsWith("m.stan:12:9: `y`[3] = 4 is outside ordered_logistic's "
                                        "outcomes 1..3"));
    CHECK_THROWS_WITH(refuse("target += categorical_lpmf(y | th);", "[1, 0, 2]"),
                      Catch::Contains("`y`[2] = 0 is outside categorical's outcomes 1..3"));
    CHECK_THROWS_WITH(refuse("y ~ bernoulli(u);", "[1, 2, 0]"),
                      Catch::Contains("`y`[2] = 2 is outside bernoulli's outcomes 0..1"));
    CHECK_THROWS_WITH(refuse("y ~ poisson(p);", "[1, -1, 0]"),
                      Catch::Contains("`y`[2] = -1 is outside poisson's outcomes 0, 1, ..."));
    CHECK_THROWS_WITH(refuse("y ~ neg_binomial_2(p, s);", "[-3, 1, 0]"),
                      Catch::Contains("`y`[1] = -3 is outside neg_binomial_2's outcomes"));
    CHECK_THROWS_WITH(refuse("y ~ binomial(M, v);", "[1, 2, 7]"),
                      Catch::Contains("`y`[3] = 7 is outside binomial's outcomes 0..6 (`N` = 6)"));
    CHECK_THROWS_WITH(refuse("y[2] ~ beta_binomial(4, s, s);", "[1, 5, 0]"),
                      Catch::Contains("`y[2]` = 5 is outside beta_binomial's outcomes 0..4"));
    // the top category is accepted in every form
    CHECK_NOTHROW(refuse("y ~ categorical(th); y ~ ordered_logistic(a, c);", "[3, 3, 3]"));
}

}  // namespace advi::stan
