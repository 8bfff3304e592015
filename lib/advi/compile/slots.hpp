// Arena slots: where every value lives. Leaves bind to the input and the caller's data;
// data-only values read by runs get persistent slots; per-run values get transient slots,
// reused once their last reader has run; loop members get block temporaries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <advi/compile/liveness.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// Where an instruction's operand lives.
struct BufferRef {
    // Arena: the persistent region (constants, data-only values); Transient: the per-run
    // region, slots reused by liveness; Block: a fused group's block temporaries (per
    // thread); Input: zeta, copied into the arena at the start of a run; Extern: the caller's
    // data, read in place.
    enum class Src : std::uint8_t { None, Arena, Transient, Block, Input, Extern };
    Src src = Src::None;
    std::int64_t offset = 0;
    const double* real = nullptr;
    const int* ints = nullptr;
    int rows = 1;
    int cols = 1;

    // `@12` (transient slots after the `persistent` doubles), `block+512`, `zeta[3]`, `data`.
    [[nodiscard]] std::string str(std::size_t persistent) const;
};

struct Slots {
    const Liveness* liveness = nullptr;
    std::vector<BufferRef> refs;      // per live node
    std::vector<int> order;           // units in program order: the data-only ones (prologue) first
    std::size_t persistent = 0;       // doubles of the persistent region
    std::size_t transient = 0;        // doubles of the per-run region
    std::size_t block_doubles = 0;    // one thread's block temporaries
    std::size_t scratch_doubles = 0;  // the largest kernel scratch (op table `scratch`)
    std::size_t node_bytes = 0;       // what the arena would need without reuse

    // The region sizes, then one line per computed node in program order: `%7 vec[3] @12`.
    [[nodiscard]] std::string str() const;
};

// `data`: the program's data slots; `input_dim`: zeta's size.
[[nodiscard]] Slots assign_slots(const Liveness& liveness, const std::vector<DataSlot>& data,
                                 int input_dim);

}  // namespace advi
