// The first-passage time distribution of a Wiener process through the lower of two absorbing
// boundaries, 0 and 1, for a process of unit variance and drift c (towards the upper boundary)
// started at w: the defective distribution function
//
//   log F(u | w, c) = log P(T <= u, the lower boundary first)                 (tail Lower)
//   log G(u | w, c) = log P(u < T < inf, the lower boundary first)            (tail Upper)
//
// with F(inf) = G(0) = P(w, c) = (e^{-2cw} - e^{-2c}) / (1 - e^{-2c}), the probability of
// ending at the lower boundary. Stan's wiener_lcdf_unnorm and wiener_lccdf_unnorm of boundary
// separation a, non-decision time tau, bias beta and drift delta are these functions of
// u = (y - tau) / a^2, w = 1 - beta and c = -delta a (the upper boundary is the lower one of
// the mirrored process; scaling space by a and time by a^2 leaves unit boundaries).
//
// Two series represent F (Blurton, Kesselmeier & Gondan 2012): the small-time one, the density's
// method of images integrated term by term,
//   F = e^{-cw - c^2 u / 2} sum_{k >= 0} [ phi(r1 / sqrt u) (M((r1 + cu) / sqrt u) + M((r1 - cu) /
//   sqrt u))
//                                         - phi(r2 / sqrt u) (M((r2 - cu) / sqrt u) + M((r2 + cu) /
//                                         sqrt u)) ],
//   r1 = 2k + w, r2 = 2k + 2 - w, M(x) = Phi(-x) / phi(x) (Mills' ratio),
// and the large-time one, the density's Fourier series integrated from u to infinity,
//   G = 2 pi e^{-cw - c^2 u / 2} sum_{k >= 1} k sin(k pi w) e^{-k^2 pi^2 u / 2} / (c^2 + k^2 pi^2).
// Each is summed in log space from its leading term until the terms left out are below e^-40
// of the sum; the one with fewer terms is used unless the other tail would then come from a
// difference that cancels (F = P - G with G close to P, or the reverse), where the other one is.
// log P is -cw + log(1 - w) + lsc(c (1 - w)) - lsc(c), lsc(z) = log(sinh z / z), which is exact
// at c = 0 and has no cancellation near it.
//
// The derivatives come from the same sums carried out on second-order dual numbers
// (dual2.hpp); the ops hand out the components (component_ops.hpp): the value and gradient in
// (u, w, c) (op wiener_log_cdf) and the Hessian (op wiener_log_cdf_hessian, the end of the chain).
// u <= 0 gives F = 0 (log -inf) and G = P; w outside (0, 1) or a NaN input gives NaN.
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace wiener {

enum class CdfTail { Lower = 0, Upper = 1 };

// {value, d/du, d/dw, d/dc, then the Hessian's upper triangle (uu uw uc ww wc cc)}
[[nodiscard]] std::array<double, 10> log_first_passage_cdf(double u, double w, double c,
                                                           CdfTail tail);

// The series each representation sums, forced (for tests: both must agree where both converge).
enum class CdfSeries { Small, Large };
[[nodiscard]] double log_first_passage_cdf_by(CdfSeries s, double u, double w, double c,
                                              CdfTail tail);
// log P(w, c), the probability of ending at the lower boundary.
[[nodiscard]] double log_lower_probability(double w, double c);

// The graph node of log F or log G of (u, w, c); scalars broadcast.
[[nodiscard]] NodeId log_first_passage_cdf(Graph& g, NodeId u, NodeId w, NodeId c, CdfTail tail);

// With drift variability, the drift c normal(m, s) in these units (m = -delta a, s = sv a):
// F and G averaged over it. F by its own series, the small-time one averaged over the drift
// term by term (each term's mean is closed: a normal's exponential tilt of Phi); G as P - F,
// P the averaged F at a time late enough, except far in the upper tail (G below 1e-3 of P),
// where G(u | c) is averaged over the drift by a 64-point Gauss-Hermite rule about the
// integrand's peak. {value, d/du, d/dw, d/dm, d/ds, then the Hessian's upper triangle}
[[nodiscard]] std::array<double, 15> log_first_passage_cdf_sv(double u, double w, double m,
                                                              double s, CdfTail tail);
// The graph node of the averaged log F or log G; scalars broadcast.
[[nodiscard]] NodeId log_first_passage_cdf_sv(Graph& g, NodeId u, NodeId w, NodeId m, NodeId s,
                                              CdfTail tail);
[[nodiscard]] Shape cdf_sv_shape(const Graph& g, const Node& n);
void cdf_sv_kernel(const KernelArgs& a);
void cdf_sv_hessian_kernel(const KernelArgs& a);
void adj_cdf_sv(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

void cdf_kernel(const KernelArgs& a);
void cdf_hessian_kernel(const KernelArgs& a);
void adj_cdf(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace wiener
}  // namespace advi
