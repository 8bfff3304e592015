// A Stan program fitted on minibatches of its rows (`advi fit --minibatch B --rows N`; paper
// section 4.3). The data block's int N counts the rows; every data variable declared with N as
// its first size (`vector[N] y`, `matrix[N, D] X`, `array[N] int g`) is a row variable. The
// program is lowered once over B rows (lower.hpp: RowBatch: N means B where it sizes
// something and keeps its full value elsewhere), and the fit refills the row variables' data
// slots with B rows for each gradient, scaling every term that reads them by N / B
// (lib/advi/fit/minibatch.hpp).
//
// That is honest only where rows enter the model as data: a row variable whose values the
// lowering reads while it builds the graph (an int used as an index, a loop bound, a
// condition, int arithmetic; a real folded into a constant) would leave the graph of one batch
// in place for all. The program is therefore lowered three times, over three batches (one,
// the same rows rotated by one, and another), and the graphs must be the same node for node
// and the data the same outside the row variables' slots; otherwise the variable at fault is
// found (each alone rotated) and named. Before that, every row is checked as a full-data
// lowering checks it (declared constraints, discrete outcomes), kCheckRows rows at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <advi/engine/options.hpp>
#include <advi/io/data_table.hpp>
#include <advi/stan/ast.hpp>
#include <advi/stan/lower.hpp>

namespace advi::stan {

// The rows lowered at a time by the check of every row before the fit (lower_minibatch).
inline constexpr int kCheckRows = 65536;

struct MinibatchRequest {
    std::string size_variable;  // --rows: the data block's int that counts the rows
    // --minibatch: B; 0: the full data in shards of shard_rows(N) rows (fit/row_shards.hpp),
    // `advi fit --rows N` without --minibatch (over MPI ranks where the build has them)
    int batch_rows = 0;
};

// The program over one batch and the full data of its row variables' slots. Points into the
// data table given (and into `converted`): both must outlive the fit.
struct LoweredMinibatch {
    std::unique_ptr<LoweredProgram> lowered;
    std::vector<MinibatchData> sources;      // Options::minibatch
    std::vector<std::string> row_variables;  // in declaration order
    int full_rows = 0;
    int batch_rows = 0;
    std::deque<std::vector<double>> converted;  // int data of real row variables, as reals
};

// Errors name the option, the variable and the reason (ParseErrors at file:line:col for what
// the lowering refuses; ModelErrors for the rest).
[[nodiscard]] LoweredMinibatch lower_minibatch(const Program& program, const DataTable& data,
                                               const MinibatchRequest& request, std::uint64_t seed,
                                               int unroll_limit = kDefaultUnrollLimit);

}  // namespace advi::stan
