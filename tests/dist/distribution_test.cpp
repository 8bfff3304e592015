// Every distribution of the table: log density against Boost.Math at several points
// (vectorised, with scalar broadcasting), gradients against finite differences with respect
// to every real argument and the variate, and argument checks that name the argument.
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include <boost/math/distributions.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/dist/distribution.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

namespace bm = boost::math;
using Ref = std::function<double(double x, const std::vector<double>& a)>;

double inv_logit(double a) {
    return 1 / (1 + std::exp(-a));
}

// Boost has no Wiener first-passage density: the reference sums the textbook series as they
// stand (no logs, no factoring, long double, a fixed generous number of terms), the lower
// boundary's density with drift -delta from 1 - beta, and integrates the drift over
// normal(delta, sv) by Gauss-Kronrod quadrature where sv > 0 (instead of its closed form).
long double wiener_lower(long double t, long double a, long double v, long double w) {
    const long double u = t / (a * a), pi = M_PI;
    long double f = 0;
    if (u < 1) {
        for (int k = -30; k <= 30; ++k)
            f += (w + 2 * k) * std::exp(-(w + 2 * k) * (w + 2 * k) / (2 * u));
        f /= std::sqrt(2 * pi * u * u * u);
    } else {
        for (int k = 1; k <= 300; ++k)
            f += pi * k * std::exp(-k * k * pi * pi * u / 2) * std::sin(k * pi * w);
    }
    return f * std::exp(-v * a * w - v * v * t / 2) / (a * a);
}
// With sw or st0 > 0, averaged over the start point and the non-decision time by nested
// Gauss-Kronrod quadrature too.
double wiener_reference(double y, const std::vector<double>& a) {
    const double alpha = a[0], tau = a[1], beta = a[2], delta = a[3], sv = a[4];
    const double sw = a[5], st0 = a[6];
    auto density = [&](double b, double t0) {  // the five-parameter density at (b, t0)
        auto at_drift = [&](double drift) {
            return y <= t0 ? 0.0 : static_cast<double>(wiener_lower(y - t0, alpha, -drift, 1 - b));
        };
        if (sv == 0)
            return at_drift(delta);
        auto integrand = [&](double z) {  // z standard normal
            return at_drift(delta + sv * z) * std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
        };
        return bm::quadrature::gauss_kronrod<double, 61>::integrate(integrand, -12.0, 12.0, 12,
                                                                    1e-13);
    };
    auto over_time = [&](double b) {
        if (st0 == 0)
            return density(b, tau);
        return bm::quadrature::gauss_kronrod<double, 31>::integrate(
                   [&](double s) { return density(b, tau + s); }, 0.0, st0, 8, 1e-12) /
               st0;
    };
    if (sw == 0)
        return std::log(over_time(beta));
    return std::log(bm::quadrature::gauss_kronrod<double, 31>::integrate(over_time, beta - sw / 2,
                                                                         beta + sw / 2, 8, 1e-12) /
                    sw);
}

// Reference log densities, from Boost.Math's pdf.
const std::map<std::string_view, Ref>& references() {
    static const std::map<std::string_view, Ref> r = {
        {"normal",                  [](double x,                                                   auto& a) { return std::log(bm::pdf(bm::normal(a[0], a[1]), x)); }           },
        {"lognormal",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::lognormal(a[0], a[1]), x)); }        },
        {"cauchy",                  [](double x,                                                   auto& a) { return std::log(bm::pdf(bm::cauchy(a[0], a[1]), x)); }           },
        {"student_t",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::students_t(a[0]), (x - a[1]) / a[2]) / a[2]);
         }                                                                                                                                                },
        {"gamma",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::gamma_distribution<>(a[0], 1 / a[1]), x));
         }                                                                                                                                                },
        {"inv_gamma",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::inverse_gamma(a[0], a[1]), x)); }    },
        {"weibull",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::weibull(a[0], a[1]), x)); }          },
        {"exponential",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::exponential(a[0]), x)); }            },
        {"beta",                    [](double x,
         auto& a) { return std::log(bm::pdf(bm::beta_distribution<>(a[0], a[1]), x)); }                                                                                        },
        {"uniform",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::uniform(a[0], a[1]), x)); }          },
 // the improper flat density: log 1 everywhere
        {"flat",                    [](double,                                                     auto&) { return 0.0; }                                                      },
        {"poisson",                 [](double x,                                                   auto& a) { return std::log(bm::pdf(bm::poisson(a[0]), x)); }                },
        {"poisson_log",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::poisson(std::exp(a[0])), x)); }      },
        {"bernoulli",               [](double x,                                                   auto& a) { return std::log(bm::pdf(bm::bernoulli(a[0]), x)); }              },
        {"bernoulli_logit",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::bernoulli(inv_logit(a[0])), x)); }   },
 // Boost where it has the distribution, else a formula written here
        {"binomial",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::binomial(a[0], a[1]), x)); }         },
        {"binomial_logit",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::binomial(a[0], inv_logit(a[1])), x));
         }                                                                                                                                                },
        {"beta_binomial",
         [](double x,                                                                              auto& a) {
             // C(N, n) B(n + alpha, N - n + beta) / B(alpha, beta), by Boost's special functions
             return std::log(bm::binomial_coefficient<double>(static_cast<unsigned>(a[0]),
                                                              static_cast<unsigned>(x))) +
                    std::log(bm::beta(x + a[1], a[0] - x + a[2])) - std::log(bm::beta(a[1], a[2]));
         }                                                                                                                                                },
 // Stan's (mu, phi) is Boost's (r, p) = (phi, phi / (mu + phi)): failures before the r-th
  // success
        {"neg_binomial_2",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::negative_binomial(a[1], a[1] / (a[0] + a[1])), x));
         }                                                                                                                                                },
 // neg_binomial(alpha, beta): Boost's (r, p) = (alpha, beta / (1 + beta))
        {"neg_binomial",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::negative_binomial(a[0], a[1] / (1 + a[1])), x));
         }                                                                                                                                                },
 // beta_neg_binomial(r, alpha, beta): C(n + r - 1, n) B(alpha + r, beta + n) / B(alpha,
  // beta)
        {"beta_neg_binomial",
         [](double x,                                                                              auto& a) {
             const double r = a[0], al = a[1], be = a[2];
             return std::lgamma(x + r) - std::lgamma(x + 1) - std::lgamma(r) +
                    std::log(bm::beta(al + r, be + x)) - std::log(bm::beta(al, be));
         }                                                                                                                                                },
        {"yule_simon",              [](double x,                                                   auto& a) { return std::log(a[0] * bm::beta(x, a[0] + 1)); }                 },
        {"discrete_range",
         [](double x,                                                                              auto& a) {
             return x >= a[0] && x <= a[1] ? -std::log(a[1] - a[0] + 1) : -INFINITY;
         }                                                                                                                                                },
 // n successes in N draws from a successes and b failures: Boost's (r, n, N) =
  // (a, N, a + b)
        {"hypergeometric",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(
                 bm::hypergeometric(static_cast<unsigned>(a[1]), static_cast<unsigned>(a[0]),
                                    static_cast<unsigned>(a[1] + a[2])),
                 static_cast<unsigned>(x)));
         }                                                                                                                                                },
        {"beta_proportion",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::beta_distribution(a[0] * a[1], (1 - a[0]) * a[1]), x));
         }                                                                                                                                                },
        {"neg_binomial_2_log",
         [](double x,                                                                              auto& a) {
             return std::log(
                 bm::pdf(bm::negative_binomial(a[1], a[1] / (std::exp(a[0]) + a[1])), x));
         }                                                                                                                                                },
        {"double_exponential",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::laplace(a[0], a[1]), x)); }          },
        {"logistic",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::logistic(a[0], a[1]), x)); }         },
        {"gumbel",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::extreme_value(a[0], a[1]), x)); }    },
        {"skew_normal",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::skew_normal(a[0], a[1], a[2]), x)); }},
 // no Boost distribution: the reference's own forms (erfc, not log Phi; the branch on y)
        {"skew_double_exponential",
         [](double x,                                                                              auto& a) {
             const double mu = a[0], sigma = a[1], tau = a[2];
             const double spread = x < mu ? (1 - tau) * (mu - x) : tau * (x - mu);
             return std::log(2 * tau * (1 - tau) / sigma) - 2 * spread / sigma;
         }                                                                                                                                                },
        {"exp_mod_normal",
         [](double x,                                                                              auto& a) {
             const double mu = a[0], sigma = a[1], lambda = a[2];
             return std::log(lambda / 2) + lambda / 2 * (2 * mu + lambda * sigma * sigma - 2 * x) +
                    std::log(
                        std::erfc((mu + lambda * sigma * sigma - x) / (std::sqrt(2.0) * sigma)));
         }                                                                                                                                                },
        {"chi_square",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::chi_squared(a[0]), x)); }            },
 // Boost's inverse_chi_squared(nu) has scale 1/nu: the unscaled form, Stan's inv_chi_square
        {"inv_chi_square",
         [](double x,                                                                              auto& a) { return std::log(bm::pdf(bm::inverse_chi_squared(a[0]), x)); }    },
 // Boost's scale is Stan's sigma^2
        {"scaled_inv_chi_square",
         [](double x,                                                                              auto& a) {
             return std::log(bm::pdf(bm::inverse_chi_squared(a[0], a[1] * a[1]), x));
         }                                                                                                                                                },
 // Frechet: alpha/sigma (y/sigma)^-(1+alpha) exp(-(y/sigma)^-alpha), in logs
        {"frechet",
         [](double x,                                                                              auto& a) {
             const double u = x / a[1];
             return std::log(a[0] / a[1]) - (1 + a[0]) * std::log(u) - std::pow(u, -a[0]);
         }                                                                                                                                                },
        {"pareto",                  [](double x,                                                   auto& a) { return std::log(bm::pdf(bm::pareto(a[0], a[1]), x)); }           },
 // Lomax shifted by mu: alpha/lambda (1 + (y - mu)/lambda)^-(alpha+1)
        {"pareto_type_2",
         [](double x,                                                                              auto& a) {
             return std::log(a[2] / a[1] * std::pow(1 + (x - a[0]) / a[1], -(a[2] + 1)));
         }                                                                                                                                                },
 // exp(kappa cos(y - mu)) / (2 pi I0(kappa)), I0 in long double (finite beyond kappa = 713)
        {"von_mises",
         [](double x,                                                                              auto& a) {
             const long double i0 = bm::cyl_bessel_i(0.0L, static_cast<long double>(a[1]));
             return static_cast<double>(a[1] * std::cos(x - a[0]) - std::log(2 * M_PI) -
                                        std::log(i0));
         }                                                                                                                                                },
        {"wiener",                  wiener_reference                                             },
        {"rayleigh",              [](double x, auto& a) { return std::log(bm::pdf(bm::rayleigh(a[0]), x)); }                                                                            },
 // no Boost log-logistic: (beta / alpha) (x / alpha)^(beta - 1) / (1 + (x / alpha)^beta)^2
        {"loglogistic",
         [](double x,                                                                   auto& a) {
             const double u = x / a[0];
             return std::log(a[1] / a[0] * std::pow(u, a[1] - 1) /
                             std::pow(1 + std::pow(u, a[1]), 2));
         }},
    };
    return r;
}

// Points (variate values, argument sets) inside each distribution's domain, including
// near the edges of its support.
struct Points {
    std::vector<double> x;
    std::vector<std::vector<double>> args;
};
const std::map<std::string_view, Points>& points() {
    static const std::map<std::string_view, Points> p = {
  // clang-format off
        {"normal", {{-3.1, 0.0, 0.7, 12.0}, {{0.0, 1.0}, {1.5, 0.2}, {-4.0, 7.0}}}},
        {"lognormal", {{1e-3, 0.4, 1.0, 25.0}, {{0.0, 1.0}, {1.5, 0.2}, {-2.0, 3.0}}}},
        {"cauchy", {{-30.0, 0.0, 0.9, 4.0}, {{0.0, 1.0}, {2.0, 0.3}}}},
        {"student_t", {{-8.0, 0.1, 2.5}, {{3.0, 0.0, 1.0}, {0.7, -1.0, 2.0}, {40.0, 0.5, 0.1}}}},
        {"gamma", {{1e-3, 0.5, 2.0, 30.0}, {{1.0, 2.0}, {2.5, 4.2}, {10.0, 10.0}, {0.5, 0.1}}}},
        {"inv_gamma", {{0.01, 0.5, 2.0, 30.0}, {{1.0, 2.0}, {3.0, 0.5}}}},
        {"weibull", {{1e-3, 0.5, 2.0, 6.0}, {{1.5, 2.0}, {0.6, 0.8}, {5.0, 3.0}}}},
        {"exponential", {{1e-4, 0.5, 10.0}, {{1.0}, {0.2}, {7.0}}}},
        {"beta", {{1e-3, 0.3, 0.5, 0.999}, {{1.0, 1.0}, {0.5, 0.5}, {2.0, 7.0}}}},
        {"uniform", {{-0.9, 0.0, 2.9}, {{-1.0, 3.0}, {-2.0, 5.0}}}},
        {"flat", {{-1e6, -0.3, 0.0, 42.0}, {{}}}},
        {"poisson", {{0.0, 1.0, 4.0, 17.0}, {{0.3}, {4.0}, {25.0}}}},
        {"poisson_log", {{0.0, 1.0, 4.0, 17.0}, {{-1.2}, {1.4}, {3.0}}}},
        {"bernoulli", {{0.0, 1.0}, {{0.01}, {0.5}, {0.93}}}},
        {"bernoulli_logit", {{0.0, 1.0}, {{-4.0}, {0.0}, {2.5}}}},
        // Integer distributions with N: N is at least every x. Real ones: x lies in
        // the support for every argument set (pareto: x >= y_min, pareto_type_2: x >= mu).
        {"binomial", {{0.0, 1.0, 5.0, 10.0}, {{10.0, 0.3}, {10.0, 0.999}, {12.0, 1e-3}}}},
        {"binomial_logit", {{0.0, 1.0, 5.0, 10.0}, {{10.0, -2.0}, {10.0, 0.0}, {15.0, 4.5}}}},
        {"beta_binomial", {{0.0, 1.0, 5.0, 10.0}, {{10.0, 1.0, 1.0}, {10.0, 0.5, 3.0}, {20.0, 30.0, 0.2}}}},
        {"neg_binomial_2", {{0.0, 1.0, 4.0, 30.0}, {{2.0, 1.0}, {0.05, 0.3}, {20.0, 1e4}}}},
        {"neg_binomial_2_log", {{0.0, 1.0, 4.0, 30.0}, {{0.5, 1.0}, {-3.0, 0.3}, {3.0, 1e4}}}},
        {"neg_binomial", {{0.0, 1.0, 4.0, 30.0}, {{2.0, 1.0}, {0.3, 0.05}, {1e3, 40.0}}}},
        {"beta_neg_binomial", {{0.0, 1.0, 4.0, 30.0}, {{2.0, 3.0, 1.5}, {0.5, 1.2, 7.0}, {20.0, 40.0, 0.3}}}},
        {"yule_simon", {{1.0, 2.0, 5.0, 40.0}, {{1.0}, {0.3}, {6.5}}}},
        {"discrete_range", {{-2.0, 0.0, 3.0}, {{-2.0, 4.0}, {-3.0, 3.0}}}},
        {"hypergeometric", {{0.0, 2.0, 4.0}, {{5.0, 6.0, 7.0}, {4.0, 4.0, 9.0}}}},
        {"beta_proportion", {{1e-3, 0.3, 0.5, 0.999}, {{0.5, 2.0}, {0.2, 10.0}, {0.9, 0.8}}}},
        {"double_exponential", {{-3.1, 0.2, 0.7, 12.0}, {{0.0, 1.0}, {1.5, 0.2}, {-4.0, 7.0}}}},
        {"logistic", {{-30.0, 0.0, 0.9, 40.0}, {{0.0, 1.0}, {2.0, 0.3}, {-1.0, 5.0}}}},
        {"gumbel", {{-2.0, 0.0, 1.5, 20.0}, {{0.0, 1.0}, {1.0, 0.5}, {-1.0, 3.0}}}},
        {"skew_normal", {{-3.0, 0.0, 0.7, 5.0}, {{0.0, 1.0, 0.0}, {0.5, 2.0, 4.0}, {-1.0, 0.7, -3.0}}}},
        {"skew_double_exponential", {{-3.1, 0.2, 0.7, 12.0}, {{0.0, 1.0, 0.5}, {1.5, 0.2, 0.2}, {-4.0, 7.0, 0.9}}}},
        {"exp_mod_normal", {{-3.0, 0.2, 1.5, 9.0}, {{0.0, 1.0, 1.0}, {0.5, 2.0, 0.3}, {-1.0, 0.7, 4.0}}}},
        {"chi_square", {{1e-3, 0.5, 3.0, 30.0}, {{1.0}, {3.0}, {12.5}}}},
        {"inv_chi_square", {{0.02, 0.5, 2.0, 30.0}, {{1.0}, {3.0}, {9.0}}}},
        {"scaled_inv_chi_square", {{0.02, 0.5, 2.0, 30.0}, {{1.0, 0.5}, {3.0, 2.0}, {9.0, 1.0}}}},
        {"frechet", {{0.05, 0.5, 2.0, 30.0}, {{1.0, 1.0}, {3.0, 2.0}, {0.7, 0.4}}}},
        {"pareto", {{1.000001, 1.5, 3.0, 100.0}, {{1.0, 1.0}, {0.5, 3.0}, {0.9, 0.2}}}},
        {"pareto_type_2", {{-0.999, 0.0, 2.0, 50.0}, {{-1.0, 1.0, 1.0}, {-1.0, 0.5, 3.0}, {-2.0, 3.0, 0.4}}}},
        // x > tau in every set; u = (x - tau) / alpha^2 from 0.003 (small-time series) to 9
        {"wiener", {{0.33, 0.6, 1.1, 3.0}, {{2.1, 0.3, 0.55, 0.4, 0.0, 0.0, 0.0}, {1.0, 0.2, 0.3, -1.5, 0.0, 0.0, 0.0}, {0.6, 0.1, 0.8, 2.0, 0.0, 0.0, 0.0}, {1.5, 0.25, 0.7, 0.8, 0.5, 0.0, 0.0}, {1.2, 0.05, 0.4, -0.6, 1.3, 0.0, 0.0}, {1.4, 0.2, 0.5, 0.7, 0.0, 0.3, 0.1}, {1.1, 0.1, 0.45, -0.4, 0.8, 0.2, 0.2}}}},
        {"rayleigh", {{1e-3, 0.4, 1.0, 6.0}, {{1.0}, {0.3}, {2.5}}}},
        {"loglogistic", {{1e-3, 0.4, 1.0, 25.0}, {{1.0, 1.0}, {2.0, 3.5}, {0.5, 0.8}}}},
        {"von_mises", {{-3.1, -1.0, 0.5, 3.1}, {{0.0, 1.0}, {1.0, 0.01}, {-2.0, 30.0}, {0.5, 800.0}}}},
  // clang-format on
    };
    return p;
}

// log p(x | args) through the graph: x a data vector (broadcast over scalar args), args
// as zeta scalars; returns lp at those values. Integer distributions read int data.
struct Built {
    Graph g;
    std::vector<DataSlot> data;
    Eigen::VectorXd xr;
    Eigen::VectorXi xi;
    Eigen::VectorXd zeta;
    std::array<int, 5> counts{};  // integer (ArgDomain::Count) arguments: int data
};

void build(Built& b, const DistInfo& d, const std::vector<double>& xs,
           const std::vector<double>& args, bool x_is_latent) {
    const int n = static_cast<int>(xs.size());
    NodeId x;
    int dim = 0;
    std::vector<double> z;
    if (d.variate == DType::Int) {
        b.xi.resize(n);
        for (int i = 0; i < n; ++i) b.xi[i] = static_cast<int>(xs[i]);
        b.data.push_back({"y", Shape::vector(n), DType::Int, nullptr, b.xi.data()});
        x = b.g.leaf(Op::Data, Shape::vector(n), DType::Int, 0, "y");
    } else if (x_is_latent) {
        x = b.g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "x");
        z.insert(z.end(), xs.begin(), xs.end());
        dim = n;
    } else {
        b.xr = Eigen::Map<const Eigen::VectorXd>(xs.data(), n);
        b.data.push_back({"y", Shape::vector(n), DType::Real, b.xr.data(), nullptr});
        x = b.g.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "y");
    }
    std::vector<NodeId> a;
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (d.arg_domains[k] == ArgDomain::Count) {  // binomial's N: an integer data argument
            b.counts[k] = static_cast<int>(args[k]);
            const auto slot = static_cast<std::int64_t>(b.data.size());
            b.data.push_back({"N", Shape::scalar(), DType::Int, nullptr, &b.counts[k]});
            a.push_back(b.g.leaf(Op::Data, Shape::scalar(), DType::Int, slot, "N"));
            continue;
        }
        if (args[k] == 0 && d.arg_domains[k] != ArgDomain::Real) {
            // at the edge of its domain (wiener's variabilities): a constant, since central
            // differences would step outside
            a.push_back(b.g.constant(0));
            continue;
        }
        a.push_back(b.g.leaf(Op::Zeta, Shape::scalar(), DType::Real, dim++, ""));
        z.push_back(args[k]);
    }
    b.g.set_output("lp", log_density(b.g, d, x, a));
    b.zeta = Eigen::Map<const Eigen::VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
}

}  // namespace

TEST_CASE("every distribution has a reference and test points", "[dist]") {
    for (const DistInfo& d : distributions()) {
        if (d.multivariate)
            continue;  // tests/dist/multivariate_test.cpp
        INFO(d.name);
        CHECK(references().count(d.name) == 1);
        CHECK(points().count(d.name) == 1);
    }
}

TEST_CASE("log densities match Boost.Math, summed over a vector variate", "[dist]") {
    for (const DistInfo& d : distributions()) {
        if (d.multivariate)
            continue;  // tests/dist/multivariate_test.cpp
        const Points& pt = points().at(d.name);
        for (const auto& args : pt.args) {
            Built b;
            build(b, d, pt.x, args, false);
            Program p = test::value_program(b.g, b.data, static_cast<int>(b.zeta.size()));
            double expected = 0;
            for (double x : pt.x) expected += references().at(d.name)(x, args);
            // Boost's pdf underflows to 0 far in a tail, where our log density is finite:
            // compare such sets pointwise only where Boost is finite.
            if (!std::isfinite(expected)) {
                for (double x : pt.x) {
                    const double r = references().at(d.name)(x, args);
                    if (!std::isfinite(r))
                        continue;
                    Built one;
                    build(one, d, {x}, args, false);
                    Program q =
                        test::value_program(one.g, one.data, static_cast<int>(one.zeta.size()));
                    CHECK(test::value_at(q, one.zeta) == Approx(r).epsilon(1e-10).margin(1e-10));
                }
                continue;
            }
            INFO(d.name << " args " << Catch::Detail::stringify(args));
            CHECK(test::value_at(p, b.zeta) == Approx(expected).epsilon(1e-10).margin(1e-10));
        }
    }
}

TEST_CASE("distribution gradients match finite differences in every real argument", "[dist]") {
    for (const DistInfo& d : distributions()) {
        if (d.multivariate)
            continue;  // tests/dist/multivariate_test.cpp
        const Points& pt = points().at(d.name);
        for (const auto& args : pt.args) {
            Built b;
            // the variate is a latent too where it is real
            build(b, d, pt.x, args, d.variate == DType::Real);
            if (b.zeta.size() == 0)
                continue;  // hypergeometric: counts only, nothing to differentiate
            INFO(d.name << " args " << Catch::Detail::stringify(args));
            test::check_gradient(b.g, b.data, b.zeta, 1e-5);
        }
    }
}

TEST_CASE("vector arguments broadcast elementwise against the variate", "[dist]") {
    Graph g;
    Eigen::VectorXd y(3), mu(3);
    y << 0.5, -1.0, 2.0;
    mu << 0.0, 1.0, -1.0;
    std::vector<DataSlot> data{
        {"y",  Shape::vector(3), DType::Real, y.data(),  nullptr},
        {"mu", Shape::vector(3), DType::Real, mu.data(), nullptr}
    };
    const NodeId yd = g.leaf(Op::Data, Shape::vector(3), DType::Real, 0, "y");
    const NodeId md = g.leaf(Op::Data, Shape::vector(3), DType::Real, 1, "mu");
    const NodeId sigma = g.constant(2.0);
    const std::array<NodeId, 2> args{md, sigma};
    g.set_output("lp", log_density(g, distribution("normal"), yd, args));
    Program p = test::value_program(g, data, 0);
    double expected = 0;
    for (int i = 0; i < 3; ++i) expected += std::log(bm::pdf(bm::normal(mu[i], 2.0), y[i]));
    CHECK(test::value_at(p, Eigen::VectorXd()) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("propto drops the terms that do not depend on a latent", "[dist]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 0, "x");
    const std::array<NodeId, 2> args{g.constant(1.0), g.constant(3.0)};
    g.set_output("lp", log_density(g, distribution("normal"), x, args, /*propto=*/true));
    Program p = test::value_program(g, {}, 2);
    Eigen::VectorXd z(2);
    z << 1.0, 4.0;
    CHECK(test::value_at(p, z) == Approx(-0.5 * (0.0 + 1.0)));
}

TEST_CASE("bad distribution arguments are named", "[dist]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    const NodeId v4 = g.leaf(Op::Zeta, Shape::vector(4), DType::Real, 3, "v");
    const std::array<NodeId, 2> neg_sigma{g.constant(0.0), g.constant(-1.0)};
    CHECK_THROWS_WITH(
        log_density(g, distribution("normal"), x, neg_sigma),
        Catch::Contains("normal") && Catch::Contains("`sigma` must be positive, got -1"));
    const std::array<NodeId, 2> bad_shape{v4, g.constant(1.0)};
    CHECK_THROWS_AS(log_density(g, distribution("normal"), x, bad_shape), ShapeError);
    CHECK_THROWS_WITH(log_density(g, distribution("normal"), x, bad_shape),
                      Catch::Contains("`mu` is vec[4] but the variate is vec[3]"));
    const std::array<NodeId, 1> one{g.constant(1.0)};
    CHECK_THROWS_WITH(log_density(g, distribution("normal"), x, one),
                      Catch::Contains("normal: expects 2 arguments, got 1"));
    CHECK_THROWS_WITH(log_density(g, distribution("poisson"), x, one),
                      Catch::Contains("poisson: the variate must be integer data"));
    CHECK_THROWS_WITH(distribution("nromal"), Catch::Contains("unknown distribution `nromal`") &&
                                                  Catch::Contains("normal"));
    const std::array<NodeId, 1> p15{g.constant(1.5)};
    Eigen::VectorXi y(1);
    const NodeId yd = g.leaf(Op::Data, Shape::vector(1), DType::Int, 0, "y");
    CHECK_THROWS_WITH(log_density(g, distribution("bernoulli"), yd, p15),
                      Catch::Contains("`theta` must be in [0, 1], got 1.5"));
}

TEST_CASE("scalar rows take vector arguments of the variate's shape, element by element",
          "[dist]") {
    // Element j of the variate goes with argument set j (mod the number of sets), every
    // argument a vector: real ones latent, integer ones (binomial's N) int data.
    for (std::string_view name : {"binomial",
                                  "binomial_logit",
                                  "beta_binomial",
                                  "neg_binomial_2",
                                  "neg_binomial_2_log",
                                  "double_exponential",
                                  "logistic",
                                  "gumbel",
                                  "skew_normal",
                                  "chi_square",
                                  "inv_chi_square",
                                  "scaled_inv_chi_square",
                                  "frechet",
                                  "pareto",
                                  "pareto_type_2",
                                  "von_mises",
                                  "normal",
                                  "gamma",
                                  "poisson",
                                  "bernoulli_logit"}) {
        const DistInfo& d = distribution(name);
        const Points& pt = points().at(name);
        const int n = static_cast<int>(pt.x.size());
        const int sets = static_cast<int>(pt.args.size());
        Graph g;
        std::vector<DataSlot> data;
        Eigen::VectorXd xr = Eigen::Map<const Eigen::VectorXd>(pt.x.data(), n);
        Eigen::VectorXi xi = xr.cast<int>();
        std::vector<Eigen::VectorXi> counts;
        counts.reserve(3);
        std::vector<double> z;
        NodeId x;
        if (d.variate == DType::Int) {
            data.push_back({"y", Shape::vector(n), DType::Int, nullptr, xi.data()});
            x = g.leaf(Op::Data, Shape::vector(n), DType::Int, 0, "y");
        } else {
            data.push_back({"y", Shape::vector(n), DType::Real, xr.data(), nullptr});
            x = g.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "y");
        }
        std::vector<NodeId> a;
        for (int k = 0; k < d.arity; ++k) {
            if (d.arg_domains[k] == ArgDomain::Count) {
                counts.emplace_back(n);
                for (int j = 0; j < n; ++j)
                    counts.back()[j] = static_cast<int>(pt.args[j % sets][k]);
                const auto slot = static_cast<std::int64_t>(data.size());
                data.push_back({"N", Shape::vector(n), DType::Int, nullptr, counts.back().data()});
                a.push_back(g.leaf(Op::Data, Shape::vector(n), DType::Int, slot, "N"));
                continue;
            }
            a.push_back(
                g.leaf(Op::Zeta, Shape::vector(n), DType::Real, static_cast<int>(z.size()), ""));
            for (int j = 0; j < n; ++j) z.push_back(pt.args[j % sets][k]);
        }
        g.set_output("lp", log_density(g, d, x, a));
        const Eigen::VectorXd zeta =
            Eigen::Map<const Eigen::VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
        double expected = 0;
        for (int j = 0; j < n; ++j) expected += references().at(name)(pt.x[j], pt.args[j % sets]);
        INFO(name);
        REQUIRE(std::isfinite(expected));
        Program p = test::value_program(g, data, static_cast<int>(zeta.size()));
        CHECK(test::value_at(p, zeta) == Approx(expected).epsilon(1e-10));
        test::check_gradient(g, data, zeta, 1e-5);
    }
}

TEST_CASE("integer arguments and argument-bounded supports", "[dist]") {
    Graph g;
    Eigen::VectorXi y(3);
    const NodeId yd = g.leaf(Op::Data, Shape::vector(3), DType::Int, 0, "y");
    const NodeId theta = g.constant(0.4);
    for (double bad : {2.5, -1.0}) {
        const std::array<NodeId, 2> args{g.constant(bad), theta};
        CHECK_THROWS_WITH(
            log_density(g, distribution("binomial"), yd, args),
            Catch::Contains("binomial: argument `N` must be a non-negative integer, got " +
                            fmt::format("{}", bad)));
    }
    const NodeId n4 = g.leaf(Op::Data, Shape::vector(4), DType::Int, 1, "N");
    const std::array<NodeId, 3> wrong{n4, g.constant(1.0), g.constant(2.0)};
    CHECK_THROWS_AS(log_density(g, distribution("beta_binomial"), yd, wrong), ShapeError);
    CHECK_THROWS_WITH(
        log_density(g, distribution("beta_binomial"), yd, wrong),
        Catch::Contains("beta_binomial: argument `N` is vec[4] but the variate is vec[3]"));
    const std::array<NodeId, 2> neg_phi{g.constant(1.0), g.constant(-2.0)};
    CHECK_THROWS_WITH(log_density(g, distribution("neg_binomial_2"), yd, neg_phi),
                      Catch::Contains("neg_binomial_2: argument `phi` must be positive, got -2"));
    CHECK(distribution("binomial").upper_arg == 0);
    CHECK(distribution("beta_binomial").upper_arg == 0);
    CHECK(distribution("neg_binomial_2").upper_arg == -1);

    // pareto: lower(y_min), pareto_type_2: lower(mu), when constant; von_mises: (-pi, pi).
    const std::array<NodeId, 2> p23{g.constant(2.0), g.constant(3.0)};
    CHECK(natural_support(g, distribution("pareto"), p23) == Support::lower_bound(2.0));
    const std::array<NodeId, 3> p2{g.constant(-1.0), g.constant(3.0), g.constant(0.5)};
    CHECK(natural_support(g, distribution("pareto_type_2"), p2) == Support::lower_bound(-1.0));
    const std::array<NodeId, 2> vm{g.constant(0.3), g.constant(2.0)};
    CHECK(natural_support(g, distribution("von_mises"), vm) == Support::interval(-M_PI, M_PI));
    const NodeId free = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "m");
    const std::array<NodeId, 2> p_free{free, g.constant(3.0)};
    CHECK_THROWS_WITH(natural_support(g, distribution("pareto"), p_free),
                      Catch::Contains("pareto") && Catch::Contains("`y_min`"));
    const std::array<NodeId, 3> p2_free{free, g.constant(3.0), g.constant(0.5)};
    CHECK_THROWS_WITH(natural_support(g, distribution("pareto_type_2"), p2_free),
                      Catch::Contains("pareto_type_2") && Catch::Contains("`mu`"));
    const std::array<NodeId, 2> neg_kappa{g.constant(0.0), g.constant(-1.0)};
    CHECK_THROWS_WITH(natural_support(g, distribution("von_mises"), neg_kappa),
                      Catch::Contains("von_mises: argument `kappa` must be non-negative, got -1"));
}

}  // namespace advi

namespace advi {

TEST_CASE("probabilities of 0 and 1 reached through parameters: the other outcome's term is 0",
          "[dist]") {
    // bernoulli(y | theta) with theta = exp(z) at z = 0 (theta = 1) and y = 1: log 1 = 0 and
    // d/dz = 1, as Stan's branch on y; binomial likewise at n = N.
    for (const char* name : {"bernoulli", "binomial"}) {
        INFO(name);
        const DistInfo& d = distribution(name);
        Graph g;
        int y = name == std::string("bernoulli") ? 1 : 4;
        int N = 4;
        std::vector<DataSlot> data{
            {"y", Shape::scalar(), DType::Int, nullptr, &y},
            {"N", Shape::scalar(), DType::Int, nullptr, &N}
        };
        const NodeId x = g.leaf(Op::Data, Shape::scalar(), DType::Int, 0, "y");
        const NodeId z = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "z");
        const NodeId theta = g.apply(Op::Exp, z);
        std::vector<NodeId> args;
        if (d.arity == 2)
            args.push_back(g.leaf(Op::Data, Shape::scalar(), DType::Int, 1, "N"));
        args.push_back(theta);
        g.set_output("lp", log_density(g, d, x, args));
        Program p = test::gradient_program(g, data, 1);
        Eigen::VectorXd grad(1);
        const double lp = p.run(Eigen::VectorXd::Zero(1), grad);
        CHECK(lp == 0.0);
        CHECK(grad[0] == Approx(name == std::string("bernoulli") ? 1.0 : 4.0));
    }
}

}  // namespace advi
