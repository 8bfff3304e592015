// Data subsampling (paper section 4.3; Hoffman et al. 2013): the model is written over one
// minibatch of B rows, and each gradient step fills its data slots with B rows drawn
// without replacement from the full data of N rows. Every term of log p that reads those
// slots is scaled by N / B, so each gradient is an unbiased estimate of the full-data one.
// That is right when such a term is a sum over the minibatch's rows, as a likelihood of
// independent rows is; a term that couples rows (a sum inside a log, say) is not
// subsampling's to fix.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/model/model_spec.hpp>

#include <advi/engine/options.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// The model whose log density has every term (ModelSpec::terms: the priors and likelihood
// terms as the model added them) that reads one of the data slots `slots` multiplied by
// `factor`. A ModelError when the model does not list its terms or none reads the slots.
[[nodiscard]] ModelSpec scale_terms_reading(const ModelSpec& m, const std::vector<int>& slots,
                                            double factor);

class MinibatchTarget final : public Target {
public:
    // Checks each source against its slot (it exists; reals or ints as the slot; the slot
    // holds B rows of the source's columns; every source has the same N >= B rows) and
    // names the first that does not fit.
    MinibatchTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                    std::uint64_t seed, int threads);
    MinibatchTarget(const MinibatchTarget&) = delete;  // the program reads the buffers
    MinibatchTarget& operator=(const MinibatchTarget&) = delete;

    int dim() const override { return program_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return program_.run(zeta, grad);
    }
    void next_minibatch() override;
    void use_evaluation_batch() override;

    [[nodiscard]] int batch_rows() const { return batch_rows_; }
    [[nodiscard]] Eigen::Index full_rows() const { return full_rows_; }
    // The scaled model over the minibatch buffers, and its gradient program.
    [[nodiscard]] const ModelSpec& spec() const { return spec_; }
    [[nodiscard]] Program& program() { return program_; }

private:
    struct Source {
        MinibatchData data;
        int slot = 0;
        std::vector<double> real;  // the minibatch, column-major B x cols
        std::vector<int> ints;
    };
    void draw(std::vector<int>& rows);
    void load(const std::vector<int>& rows);

    std::vector<Source> sources_;
    int batch_rows_ = 0;
    Eigen::Index full_rows_ = 0;
    ModelSpec spec_;
    Program program_;
    Rng rng_;
    std::vector<int> permutation_;  // of 0..N-1; its first B entries are the last draw
    std::vector<int> batch_;
    std::vector<int> evaluation_;  // the fixed batch of the ELBO estimates
    bool evaluation_loaded_ = false;
};

}  // namespace advi
