// Cumulative distribution functions of the distribution table's univariate rows, one row per
// distribution (cdf_table.cpp): log P(X <= x) and log P(X > x) as graph terms where they have
// a closed form in the ops (normal through log Phi, cauchy through atan2, weibull through
// log1m_exp, ...), so that gradients flow through every argument; and the probabilities as
// numbers from Boost.Math for every row Stan gives a CDF, for arguments known before the fit
// (a truncation bound of data, a normalising constant like brms's student_t_lccdf(0 | 3, 0,
// 2.5)) and as the tests' reference for the graph terms.
#pragma once

#include <span>
#include <string_view>

#include <advi/dist/distribution.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

// Which tail: P(X <= x) (Stan's _cdf and _lcdf) or P(X > x) (_lccdf).
enum class Tail { Lower, Upper };

struct CdfInfo {
    std::string_view name;  // the distribution table's row
    // Adds the elementwise log P(X <= x), and log P(X > x), of x given args; nullptr where no
    // closed form in the ops is known (then only known arguments can be evaluated).
    void (*log_cdf)(Terms& t, NodeId x, std::span<const NodeId> args);
    void (*log_ccdf)(Terms& t, NodeId x, std::span<const NodeId> args);
    // P(X <= x) or P(X > x) of numbers (Boost.Math); ModelError outside the arguments'
    // domains.
    double (*probability)(double x, std::span<const double> args, Tail tail);
};

[[nodiscard]] std::span<const CdfInfo> cdfs();
// The row of distribution `name`, or nullptr.
[[nodiscard]] const CdfInfo* find_cdf(std::string_view name);

// log P(X <= x) (Lower) or log P(X > x) (Upper) summed over the broadcast of x and the
// arguments, added to g; `elementwise`: one value per element. A ModelError if the row has no
// graph form for this tail.
[[nodiscard]] NodeId log_cdf(Graph& g, const DistInfo& d, NodeId x, std::span<const NodeId> args,
                             Tail tail, bool elementwise = false);
// Whether the row's graph terms are a finite sum of the mass function up to the variate (and
// counts): those must be constants of the graph (ints known before the fit).
[[nodiscard]] bool cdf_sums_mass(std::string_view name);
// Whether the row has graph terms for `tail`.
[[nodiscard]] bool has_graph_cdf(std::string_view name, Tail tail);

}  // namespace advi
