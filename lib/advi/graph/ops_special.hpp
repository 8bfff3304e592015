// Special functions as component ops (component_ops.hpp): value, gradient and Hessian in every
// input, computed on second-order dual numbers (dual2.hpp).
//
//   log_bessel_i(v, z)       log I_v(z), the modified Bessel function of the first kind, v >= 0,
//                            z >= 0: the power series sum_k (z/2)^(2k+v) / (k! Gamma(v+k+1))
//                            scaled by its largest term, or for z > max(30, v^2) Hankel's
//                            asymptotic expansion e^z / sqrt(2 pi z) sum_k (-1)^k a_k(v) / z^k;
//                            differentiable in the order too.
//   inv_inc_beta(a, b, p)    x with I_x(a, b) = p (Boost's ibeta_inv); the derivatives by the
//                            implicit function theorem from log_inc_beta's (ops_incomplete.hpp),
//                            through the lower tail for p <= 1/2 and the upper above; NaN for
//                            shapes above 1e12 (Boost's root finder takes minutes there).
//   von_mises_log_cdf(x, mu, kappa)
//                            Stan's von_mises_cdf in log (tail 0) or log(1 - cdf) (tail 1): the
//                            mass of the von Mises density about mu over [-pi, x], x in
//                            [-pi, pi]; the centred CDF by scipy's series for kappa < 49, a normal
//                            approximation in b sin(x / 2) above 50 and the blend between, as
//                            Stan's; each tail as a difference of the centred CDF's values near 0
//                            (its symmetry C(-t) = 1 - C(t)), so that small tails keep their
//                            digits.
//
//   hypergeometric_pfq(a, b, z)
//                            the generalised hypergeometric function pFq(a; b; z) of the vectors
//                            a (p) and b (q) and the scalar z by its power series (p <= q: every
//                            z; p = q + 1: |z| < 1; a non-positive integer in a ends it as a
//                            polynomial). Differentiable in z through
//                            d/dz pFq(a; b; z) = prod(a) / prod(b) pFq(a + 1; b + 1; z), in a and
//                            b through the derivative series (the terms times
//                            sum_{m<k} 1 / (a_i + m), ...): the op pfq_grad gives the gradient in
//                            a or b, the op pfq_hvp the Hessian's products with the adjoint of
//                            that gradient (the end of the chain). At an a_i that is a
//                            non-positive integer (a polynomial) the derivatives in a and b are
//                            NaN.
//
// Outside the domain every component is NaN. Scalars broadcast.
#pragma once

#include <array>
#include <span>
#include <vector>

#include <advi/graph/op.hpp>
#include <advi/graph/shape.hpp>

namespace advi {

class Graph;

namespace special {

// {value, d/dv, d/dz, d2/dv2, d2/dv dz, d2/dz2}
[[nodiscard]] std::array<double, 6> log_bessel_i(double v, double z);
// {value, d/da, d/db, d/dp, then the Hessian's upper triangle (aa ab ap bb bp pp)}
[[nodiscard]] std::array<double, 10> inv_inc_beta(double a, double b, double p);
// {value, d/dx, d/dmu, d/dkappa, Hessian (xx xm xk mm mk kk)}; upper: log(1 - F)
[[nodiscard]] std::array<double, 10> von_mises_log_cdf(double x, double mu, double kappa,
                                                       bool upper);
// The cdf itself as a number, or (upper) its complement (the CDF table's numbers).
[[nodiscard]] double von_mises_cdf(double x, double mu, double kappa, bool upper = false);
// The draw of von_mises_rng(mu, kappa) from a uniform u: the centred CDF inverted by bisection,
// about fmod(mu, 2 pi); kappa = 0 the uniform circle.
[[nodiscard]] double von_mises_quantile(double u, double mu, double kappa);
// The op VonMisesQuantile(u, mu, kappa) (random_ops::quantile_shape; no derivative: a draw).
void von_mises_quantile_kernel(const KernelArgs& a);

// pFq(a; b; z) as a number: NaN where the series diverges or does not converge in 10^6 terms.
[[nodiscard]] double hypergeometric_pfq(std::span<const double> a, std::span<const double> b,
                                        double z);

// pFq with its derivatives in a and b: the gradient and the Hessian's blocks (row-major), and
// the mixed derivatives in z.
struct PfqDerivatives {
    double value = 0;
    std::vector<double> da, db;         // p, q
    std::vector<double> haa, hab, hbb;  // p x p, p x q, q x q
    std::vector<double> haz, hbz;       // p, q
};
[[nodiscard]] PfqDerivatives hypergeometric_pfq_derivatives(std::span<const double> a,
                                                            std::span<const double> b, double z);

[[nodiscard]] NodeId log_bessel_i(Graph& g, NodeId v, NodeId z);
// a and b vectors (or scalars), z a scalar.
[[nodiscard]] NodeId hypergeometric_pfq(Graph& g, NodeId a, NodeId b, NodeId z);
Shape pfq_shape(const Graph& g, const Node& n);
void pfq_kernel(const KernelArgs& a);
void adj_pfq(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
// pfq_grad(a, b, z), aux 0: the gradient in a (a's shape), aux 1: in b (b's shape).
[[nodiscard]] NodeId pfq_grad(Graph& g, NodeId a, NodeId b, NodeId z, int block);
Shape pfq_grad_shape(const Graph& g, const Node& n);
void pfq_grad_kernel(const KernelArgs& a);
void adj_pfq_grad(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
// pfq_hvp(a, b, [z; w]), aux 3 * block + out: the derivative in input `out` (0 a, 1 b, 2 z) of
// w . (the gradient block `block`).
Shape pfq_hvp_shape(const Graph& g, const Node& n);
void pfq_hvp_kernel(const KernelArgs& a);
[[nodiscard]] NodeId inv_inc_beta(Graph& g, NodeId a, NodeId b, NodeId p);
[[nodiscard]] NodeId von_mises_log_cdf(Graph& g, NodeId x, NodeId mu, NodeId kappa, bool upper);

void bessel_kernel(const KernelArgs& a);
void bessel_hessian_kernel(const KernelArgs& a);
void inv_inc_beta_kernel(const KernelArgs& a);
void inv_inc_beta_hessian_kernel(const KernelArgs& a);
void von_mises_kernel(const KernelArgs& a);
void von_mises_hessian_kernel(const KernelArgs& a);
void adj_bessel(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_inv_inc_beta(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_von_mises(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace special
}  // namespace advi
