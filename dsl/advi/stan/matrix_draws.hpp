// The `_rng` functions whose draw is a matrix: wishart, inv_wishart and their Cholesky forms,
// lkj_corr and lkj_corr_cholesky. Each is a transform of standard normal and uniform numbers,
// as every draw here is (functions.hpp, RandomRow::whole).
#pragma once

#include <advi/stan/value.hpp>

namespace advi::stan {

struct RandomDraw;

// wishart_rng(nu, Sigma) and wishart_cholesky_rng(nu, L_S) (cholesky: the factor of the draw
// from the factor of the scale); inv_wishart_rng and inv_wishart_cholesky_rng (inverse).
[[nodiscard]] Value wishart_draw(RandomDraw& d, bool inverse, bool cholesky);
// lkj_corr_rng(K, eta) and lkj_corr_cholesky_rng(K, eta).
[[nodiscard]] Value lkj_corr_draw(RandomDraw& d, bool cholesky);

}  // namespace advi::stan
