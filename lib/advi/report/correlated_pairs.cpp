// The correlation matrix of the finite rows, and its largest off-diagonal magnitudes.
#include <advi/report/correlated_pairs.hpp>

#include <algorithm>
#include <cmath>

namespace advi::report {

std::vector<CorrelatedPair> most_correlated_pairs(const Eigen::MatrixXd& draws, int count) {
    std::vector<Eigen::Index> rows;
    for (Eigen::Index i = 0; i < draws.rows(); ++i) {
        if (draws.row(i).allFinite())
            rows.push_back(i);
    }
    std::vector<CorrelatedPair> pairs;
    if (rows.size() < 2 || count <= 0)
        return pairs;
    Eigen::MatrixXd centred(static_cast<Eigen::Index>(rows.size()), draws.cols());
    for (std::size_t k = 0; k < rows.size(); ++k)
        centred.row(static_cast<Eigen::Index>(k)) = draws.row(rows[k]);
    centred.rowwise() -= centred.colwise().mean();
    // Scaled by each column's largest magnitude first, so that the products cannot overflow.
    const Eigen::RowVectorXd scale = centred.cwiseAbs().colwise().maxCoeff();
    for (Eigen::Index j = 0; j < centred.cols(); ++j) {
        if (scale(j) > 0)
            centred.col(j) /= scale(j);
    }
    const Eigen::MatrixXd cross = centred.transpose() * centred;
    for (Eigen::Index a = 0; a < cross.cols(); ++a) {
        for (Eigen::Index b = a + 1; b < cross.cols(); ++b) {
            const double denominator = std::sqrt(cross(a, a) * cross(b, b));
            if (!(denominator > 0))
                continue;  // a constant column
            pairs.push_back({a, b, std::clamp(cross(a, b) / denominator, -1.0, 1.0)});
        }
    }
    const auto stronger = [](const CorrelatedPair& x, const CorrelatedPair& y) {
        const double ax = std::abs(x.correlation), ay = std::abs(y.correlation);
        if (ax != ay)
            return ax > ay;
        return x.first != y.first ? x.first < y.first : x.second < y.second;
    };
    const auto kept = std::min<std::size_t>(pairs.size(), static_cast<std::size_t>(count));
    std::partial_sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(kept), pairs.end(),
                      stronger);
    pairs.resize(kept);
    return pairs;
}

}  // namespace advi::report
