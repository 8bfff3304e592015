// When a fit cannot go on because the log density is not finite, the error names the op, its
// input values, the variables it reads and the term of the log density (explain_nonfinite).
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/fit/diagnose.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("explain_nonfinite: the first op that turns finite inputs into a non-finite value",
          "[advi][diagnose]") {
    const Eigen::VectorXd y = (Eigen::VectorXd(3) << 0.5, 1.5, 1.0).finished();
    Model m;
    auto yy = m.data("y", y);
    auto mu = m.param("mu", normal(0, 10));
    m.observe(yy, normal(mu, 1.0));
    m.target_add(log(mu));  // not finite for mu <= 0
    const ModelSpec spec = m.spec();
    Eigen::VectorXd zeta(1);
    zeta[0] = 0.7;
    CHECK(explain_nonfinite(spec, zeta).empty());
    zeta[0] = -0.5;
    const std::string why = explain_nonfinite(spec, zeta);
    CHECK_THAT(why, Contains("op `log` gives nan") && Contains("(log of -0.5)") &&
                        Contains("latent `mu`") && Contains("term 3 of 3"));
    zeta[0] = 0;
    CHECK_THAT(explain_nonfinite(spec, zeta), Contains("op `log` gives -inf"));
}

TEST_CASE("explain_nonfinite: a vector op names the element and the data it reads",
          "[advi][diagnose]") {
    const Eigen::VectorXd x = (Eigen::VectorXd(4) << 1.0, 2.0, -3.0, 4.0).finished();
    Model m;
    auto xx = m.data("x", x);
    auto s = m.param("s", lognormal(0, 1));
    m.target_add(sum(log(s * xx)));  // x[2] < 0
    const std::string why = explain_nonfinite(m.spec(), Eigen::VectorXd::Zero(1));
    CHECK_THAT(why, Contains("op `log` gives nan at element 2 of vec[4]") &&
                        Contains("(log of -3)") && Contains("latent `s` and data `x`") &&
                        Contains("term 2 of 2"));
}

TEST_CASE("explain_nonfinite: a transform that overflows names the latent", "[advi][diagnose]") {
    Model m;
    auto sigma = m.param("sigma", lognormal(0, 1));
    (void)sigma;
    Eigen::VectorXd zeta(1);
    zeta[0] = 800;  // exp(800) = inf
    CHECK_THAT(explain_nonfinite(m.spec(), zeta),
               Contains("latent `sigma` is inf at element 0 after its transform"));
}

TEST_CASE("fit: a model that cannot be fitted says which op and variable broke it",
          "[advi][diagnose]") {
    Model m;
    auto mu = m.param("mu", normal(0, 1));
    m.target_add(log(mu - 10));  // nan wherever q0 puts mu (around 0)
    CHECK_THROWS_WITH(fit(m.spec(), {.seed = 1}),
                      Contains("cannot compute the ELBO of the initial approximation") &&
                          Contains("where the log density was last not finite, op `log` gives "
                                   "nan") &&
                          Contains("latent `mu`"));
}

}  // namespace
}  // namespace advi
