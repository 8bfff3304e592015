// A pass before the compiler's first: every reader of a long repeat (rep_rows, rep_cols, under
// whole-size reshapes) gets its own copy of it, so that each copy has one reader and is read
// there in runs of the repeated values (emit's read_repeats_in_place) or copied block by
// block, instead of being written once into a full buffer and read back from memory by every
// reader (a mixture's 1 / sigma, repeated over its 5,000 points, read by the forward pass and
// again by the gradient's).
#pragma once

#include <advi/graph/graph.hpp>

namespace advi {

// A repeat of at least this many rows is read in runs (emit.cpp); below it the runs are too
// short for a kernel call each, and the repeat is copied into its reader's block instead.
inline constexpr int kMinRepeatRun = 256;

// `g` with one copy of each long repeat per reader (the copies differ in `aux`: 1, 2, ...);
// `g` itself where no long repeat has two readers.
[[nodiscard]] Graph repeats_per_reader(const Graph& g);

}  // namespace advi
