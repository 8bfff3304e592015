// The automatic choice of transform (the paper's section 3.3, issue 20 item 5): for each latent
// with a lower or an upper bound, T1 (log, Stan's) or T2 (softplus inverse, log(exp(x) - 1)),
// whichever gives the higher ELBO. The ELBO is comparable across transforms: it is E_q[log p(x,
// theta)] + H[q(theta)] with the change of variables exact, a property of q's image in theta
// space, not of the coordinates. Greedy, a variable at a time in declaration order, starting
// from the model's own choices: one fit for the start and one more per such variable.
#pragma once

#include <string>
#include <vector>

#include <advi/engine/options.hpp>
#include <advi/fit/fit.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

struct TransformChoice {
    std::string variable;
    PositiveTransform chosen = PositiveTransform::Log;
    // The ELBO and its Monte Carlo standard error with each transform (the others as chosen
    // before it), from the fit's output draws (mean of log p - log q); NaN where that fit
    // failed (`error` says why).
    double elbo_log = 0.0, elbo_log_se = 0.0;
    double elbo_softplus = 0.0, elbo_softplus_se = 0.0;
    std::string error;
};

struct AutoTransformFit {
    ModelSpec spec;                        // the model with the chosen transforms
    Fit fit;                               // its fit
    std::vector<TransformChoice> choices;  // one per latent with a lower or an upper bound
    // "sigma: softplus (ELBO -12.31 +- 0.02 against log's -12.87 +- 0.03)", a line each.
    [[nodiscard]] std::string summary(int index_base = 0) const;
};

// Fits `m` with `options` for every candidate choice as above. Throws what advi::fit throws
// for the start, and FitError for output_samples < 2 (the ELBOs come from the output draws); a
// candidate whose fit fails keeps the transform it had.
[[nodiscard]] AutoTransformFit fit_auto_transform(const ModelSpec& m, const Options& options);

// "log", "softplus".
[[nodiscard]] const char* positive_transform_name(PositiveTransform t);

}  // namespace advi
