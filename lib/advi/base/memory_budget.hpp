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

#include <advi/base/error.hpp>

namespace advi {

// A size that cannot be: its element count overflows, or its bytes exceed the machine's memory.
class SizeError : public Error {
public:
    using Error::Error;
};

// The memory of this machine in bytes: physical memory, or the control group's limit when a
// container sets a lower one.
[[nodiscard]] std::int64_t machine_memory_bytes();

// What require_memory checks against: machine_memory_bytes(), unless a budget was set (fuzz
// targets set one to match libFuzzer's memory limit; a service may want less than the machine).
[[nodiscard]] std::int64_t memory_budget_bytes();
// Sets the budget for the whole process; `bytes` <= 0 goes back to the machine's memory.
void set_memory_budget_bytes(std::int64_t bytes);

// The product of `factors` (all >= 0), or nothing if it overflows int64.
[[nodiscard]] std::optional<std::int64_t> checked_product(std::span<const std::int64_t> factors);
[[nodiscard]] std::optional<std::int64_t> checked_product(
    std::initializer_list<std::int64_t> factors);

// "80 GB", "512 MB", "3.2 kB".
[[nodiscard]] std::string format_bytes(double bytes);

// Throws SizeError "`what` needs 80 GB (10000000000 elements of 8 bytes), more than this
// machine's 25.3 GB of memory" when `elements` of `bytes_per_element` exceed the budget. `elements`
// is nothing when its product overflowed ("`what`: 100000 x 100000 x ... elements overflow").
void require_memory(std::string_view what, std::optional<std::int64_t> elements,
                    std::int64_t bytes_per_element = 8);

}  // namespace advi
