// The schedule: the computed nodes in order as units, each a plain node or a loop of one or
// more trees over the same n values (a tree joins an earlier loop when everything it reads is
// ready there), with each loop's block size.
#pragma once

#include <string>
#include <vector>

#include <advi/compile/loops.hpp>

namespace advi {

// Values per block of a loop: its temporaries stay in cache.
inline constexpr int kLoopBlock = 512;

struct Unit {
    std::vector<NodeId> roots;  // a plain node: its one id
    bool loop = false;
    int n = 0;                  // a loop's values
    int block = 0;              // values per block
    int work = 1;               // operations per value (1 + the columns of matrices read by rows)
    std::vector<NodeId> steps;  // a loop's nodes in order: each root after its members
};

struct Schedule {
    const Loops* loops = nullptr;
    std::vector<Unit> units;
    std::vector<int> unit_of;  // a plain node's or loop root's unit, else -1
    // Values that live in block temporaries of their loop, never in a full buffer: members,
    // and roots read only by later steps of their own loop at the block's offset (one block
    // temporary feeds several trees of the loop).
    std::vector<bool> temp;
    std::vector<int> reads;  // how many nodes read a value (a temporary is freed after the last)

    // The unit in which a node's value is computed (a member: its root's).
    [[nodiscard]] int position(NodeId id) const;
    // One line per unit: `3: %7 vec[4] = exp` or `4: loop over 100 values in blocks of 100: %9 %12`
    // (its roots).
    [[nodiscard]] std::string str() const;
};

[[nodiscard]] Schedule schedule(const Loops& loops);

}  // namespace advi
