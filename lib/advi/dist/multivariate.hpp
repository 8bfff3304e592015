// The multivariate distributions (Stan's names and parameterisations, full normalising
// constants): log density builders and natural supports. Their rows are in distribution_table.cpp.
#pragma once

#include <span>

#include <advi/dist/distribution.hpp>

namespace advi::multivariate {

// Variates (each row checks the shapes of its variate and arguments, and its errors name
// the distribution, the argument and both shapes):
//   multi_normal(mu, Sigma), multi_normal_cholesky(mu, L): y is vec[K] (one draw) or
//     mat[N,K] (one draw per row); mu is vec[K] (every draw) or y's shape (one mean per draw);
//     Sigma is mat[K,K], read from its lower triangle; L lower-triangular mat[K,K].
//   dirichlet(alpha): theta is vec[K] or mat[N,K] (one simplex per row); alpha vec[K].
//   categorical(theta), categorical_logit(beta): y is an integer data vector of 0-based
//     categories 0..K-1 (Stan's 1..K minus one, as every index of the C++ DSL); theta and
//     beta are vec[K]. A category above K-1 is a DataError when the program runs.
//   ordered_logistic(eta, c): y integer data, 0-based categories 0..K-1; eta a scalar or
//     one per y; c vec[K-1], the ordered cut points.
//   lkj_corr_cholesky(eta): L mat[K,K], a Cholesky factor of a correlation matrix;
//     lkj_corr(eta): Omega mat[K,K], a correlation matrix.
//   wishart(nu, S), inv_wishart(nu, S): W mat[K,K] symmetric positive definite; S mat[K,K];
//     nu > K - 1.
//   wishart_cholesky(nu, L_S), inv_wishart_cholesky(nu, L_S): L_W mat[K,K], a Cholesky factor
//     of a covariance matrix (lower-triangular, positive diagonal); L_S lower-triangular
//     mat[K,K]; nu > K - 1. Both read only the lower triangles of L_W and L_S.
using Args = std::span<const NodeId>;

Support real_support(const Graph& g, Args a);
Support simplex_support(const Graph& g, Args a);
Support cholesky_factor_corr_support(const Graph& g, Args a);
Support corr_matrix_support(const Graph& g, Args a);
Support cov_matrix_support(const Graph& g, Args a);
Support cholesky_factor_cov_support(const Graph& g, Args a);
Support no_support(const Graph& g, Args a);  // integer variates

void multi_normal(Terms& t, NodeId y, Args a);
void multi_normal_cholesky(Terms& t, NodeId y, Args a);
void dirichlet(Terms& t, NodeId theta, Args a);
void categorical(Terms& t, NodeId y, Args a);
void categorical_logit(Terms& t, NodeId y, Args a);
void ordered_logistic(Terms& t, NodeId y, Args a);
void lkj_corr_cholesky(Terms& t, NodeId L, Args a);
void lkj_corr(Terms& t, NodeId Omega, Args a);
void wishart(Terms& t, NodeId W, Args a);
void inv_wishart(Terms& t, NodeId W, Args a);
void wishart_cholesky(Terms& t, NodeId L_W, Args a);
void inv_wishart_cholesky(Terms& t, NodeId L_W, Args a);

// Integer variates: a 0-based category.
bool category(int y);

}  // namespace advi::multivariate
