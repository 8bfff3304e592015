// Fusion: trees of per-run nodes that a loop can compute block by block (elementwise ops and
// the op table's other loop forms) become one loop each, so that their intermediates live in
// cache-sized block temporaries instead of full buffers. A tree's root may accumulate (a sum).
#pragma once

#include <string>
#include <vector>

#include <advi/compile/aliases.hpp>

namespace advi {

struct Loops {
    const Aliases* aliases = nullptr;
    // A member is computed block by block inside its one reader's loop; `root` is its tree's
    // root, `members` a root's members in id order.
    std::vector<bool> member;
    std::vector<NodeId> root;
    std::vector<std::vector<NodeId>> members;
    std::vector<bool> loop_root;  // a node that is not a member and runs as a loop

    // The node whose values an input `in` reads: `in` itself, or the node a whole-size reshape
    // (an alias of all of another node's values, in the same order) reads. A loop reads the
    // two alike, so a reshape stands between a member and its reader without a buffer.
    [[nodiscard]] NodeId values_of(NodeId in) const;
    // How many values the loop of root `r` runs over.
    [[nodiscard]] int length(NodeId r) const;
    // Whether step m (a member or root) reads input k by row blocks (a matrix in place), or
    // at the block's offset in a loop over `len` values.
    [[nodiscard]] bool reads_rows(NodeId m, int k) const;
    [[nodiscard]] bool reads_sliced(NodeId m, int k, int len) const;

    // One line per loop root: `%9 vec[100] = sum <- %6 %7 %8` (its members), or "(none)".
    [[nodiscard]] std::string str() const;
};

[[nodiscard]] Loops fuse_loops(const Aliases& aliases);

}  // namespace advi
