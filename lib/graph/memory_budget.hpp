// Sizes that user input asks for (declared sizes, data dimensions, R's 1:n, a full-rank
// covariance, the draws to keep) are checked before anything is allocated: a product that
// overflows, or a buffer larger than the machine's memory, is a SizeError naming the thing
// at fault, instead of a crash, an out-of-memory kill or an hour of swapping.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <advi/graph/error.hpp>

namespace advi {

// A size that cannot be: its element count overflows, or its bytes exceed the machine's memory.
class SizeError : public Error {
public:
    using Error::Error;
};

// The memory of this machine in bytes: physical memory, or the control group's limit when a
// container sets a lower one.
[[nodiscard]] std::int64_t machine_memory_bytes();

// The product of `factors` (all >= 0), or nothing if it overflows int64.
[[nodiscard]] std::optional<std::int64_t> checked_product(std::span<const std::int64_t> factors);
[[nodiscard]] std::optional<std::int64_t> checked_product(std::initializer_list<std::int64_t> factors);

// "80 GB", "512 MB", "3.2 kB".
[[nodiscard]] std::string format_bytes(double bytes);

// Throws SizeError "`what` needs 80 GB (1e+10 doubles), more than this machine's 24 GB of memory"
// when `elements` of `bytes_per_element` exceed machine_memory_bytes(). `elements` is nothing
// when its product overflowed ("`what`: 100000 x 100000 x ... elements overflow").
void require_memory(std::string_view what, std::optional<std::int64_t> elements,
                    std::int64_t bytes_per_element = 8);

}  // namespace advi
