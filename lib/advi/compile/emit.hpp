// Emission, the compiler's last pass: the slotted schedule as a Program, the data-only units
// as its prologue and the rest as its body (loops as groups of steps), long matrix products
// split over threads (the op table's `split` column), its arena laid out and bound.
#pragma once

#include <vector>

#include <advi/compile/program.hpp>
#include <advi/compile/slots.hpp>

namespace advi {

[[nodiscard]] Program emit(const Slots& slots, std::vector<DataSlot> data, int input_dim,
                           int output_dim, int threads);

}  // namespace advi
