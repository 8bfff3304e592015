// The row variables of a model written over a block of B rows (a minibatch, a shard of the
// full data): their data slots pointed at buffers of B rows, filled from the full data of N
// rows by row number, and the terms of log p that read them scaled by factors that are data
// slots of the program themselves (so one compiled program serves every weighting). Shared by
// MinibatchTarget (minibatch.hpp) and RowShardTarget (row_shards.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <advi/compile/program.hpp>
#include <advi/engine/options.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// The model whose log density has every term (ModelSpec::terms: the priors and likelihood
// terms as the model added them) that reads one of the data slots `slots` multiplied by
// `factor`. A ModelError when the model does not list its terms or none reads the slots.
[[nodiscard]] ModelSpec scale_terms_reading(const ModelSpec& m, const std::vector<int>& slots,
                                            double factor);

class RowBuffers {
public:
    // Checks each source against its slot of `model` (it exists; reals or ints as the slot;
    // the slot holds B rows of the source's columns; every source has the same N >= B rows)
    // and names the first that does not fit, after `what` ("minibatch", "row shards").
    RowBuffers(const ModelSpec& model, const std::vector<MinibatchData>& sources,
               const std::string& what);
    RowBuffers(const RowBuffers&) = delete;  // the model's slots point into the buffers
    RowBuffers& operator=(const RowBuffers&) = delete;

    // `model` with the row variables' slots pointed at the buffers, every term of log p
    // that reads them multiplied by the data slot `row_factor` (added, named `row_name`) and,
    // where `rest_factor` is given, every other term by that one (named `rest_name`), the
    // log-Jacobians that compile() adds too (output "jacobian_weight" of ModelSpec). Both
    // factors are read at every run of a program compiled from it. A ModelError when the model
    // does not list its terms or none reads the rows.
    [[nodiscard]] ModelSpec weighted(const ModelSpec& model, const double* row_factor,
                                     const std::string& row_name,
                                     const double* rest_factor = nullptr,
                                     const std::string& rest_name = "") const;
    // Copies rows (numbers into the full data, B of them) into the buffers; a program bound
    // to them reads them after its reload_data().
    void load(const std::vector<int>& rows);

    [[nodiscard]] int batch_rows() const { return batch_rows_; }
    [[nodiscard]] std::int64_t full_rows() const { return full_rows_; }
    // Values per row over every row variable (their columns summed).
    [[nodiscard]] double values_per_row() const;
    // "`y`, `X`"
    [[nodiscard]] std::string slot_names() const;

private:
    struct Source {
        MinibatchData data;
        int slot = 0;
        std::vector<double> real;  // B rows, column-major B x cols
        std::vector<int> ints;
    };
    std::vector<Source> sources_;
    std::vector<int> slots_;
    int batch_rows_ = 0;
    std::int64_t full_rows_ = 0;
};

// The ModelError that refuses data subsampling or sharding where the terms that read the rows
// are not a sum of terms of one row each: with `program` (compiled from a model weighted by
// `buffers`, its factors as the caller set them) run on batches [a; b], [c; b], [a; d], [c; d]
// (`base` = a and b, its halves; c and d drawn from `seed`), lp(ab) - lp(cb) - lp(ad) + lp(cd)
// is 0 for every sum of per-row terms (the terms that read no rows cancel) and not where rows
// interact. Tested at zeta = 0 and at a random point. Leaves `base` loaded.
void check_sum_over_rows(RowBuffers& buffers, Program& program, const std::vector<int>& base,
                         std::uint64_t seed, const std::string& what);

}  // namespace advi
