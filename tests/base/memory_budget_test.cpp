// Sizes refused before allocating (lib/advi/base/memory_budget.hpp): overflow-checked products, the
// budget and its messages.
#include <cstdint>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/memory_budget.hpp>

using Catch::Matchers::Contains;

namespace advi {

TEST_CASE("checked_product: exact products, nothing on overflow or a negative factor", "[memory]") {
    CHECK(checked_product({}) == 1);
    CHECK(checked_product({3, 4, 5}) == 60);
    CHECK(checked_product({0, std::numeric_limits<std::int64_t>::max(), 7}) == 0);
    CHECK(checked_product({std::int64_t{1} << 31, std::int64_t{1} << 31}) == std::int64_t{1} << 62);
    // 2^31 * 2^31 * 2 = 2^63: one past int64.
    CHECK_FALSE(checked_product({std::int64_t{1} << 31, std::int64_t{1} << 31, 2}).has_value());
    CHECK_FALSE(checked_product({2000000000, 2000000000, 2000000000}).has_value());
    CHECK_FALSE(checked_product({3, -1}).has_value());
}

TEST_CASE("format_bytes: three significant digits and a decimal unit", "[memory]") {
    CHECK(format_bytes(0) == "0 bytes");
    CHECK(format_bytes(999) == "999 bytes");
    CHECK(format_bytes(1000) == "1 kB");
    CHECK(format_bytes(999999) == "1 MB");  // not "1e+03 kB"
    CHECK(format_bytes(999.4e3) == "999 kB");
    CHECK(format_bytes(25.3e9) == "25.3 GB");
    CHECK(format_bytes(3.2e13) == "32 TB");
    CHECK(format_bytes(1.28e18) == "1.28 EB");
    CHECK(format_bytes(3.2e19) == "32 EB");
}

TEST_CASE("the machine's memory is known and the default budget", "[memory]") {
    const std::int64_t memory = machine_memory_bytes();
    CHECK(memory >= std::int64_t{64} << 20);  // no machine that builds this has less
    CHECK(memory_budget_bytes() == memory);
}

TEST_CASE("require_memory: within the budget passes, beyond it names the thing and the sizes",
          "[memory]") {
    set_memory_budget_bytes(1000000);  // 1 MB
    CHECK(memory_budget_bytes() == 1000000);
    CHECK_NOTHROW(require_memory("`x`", 125000));     // exactly 1 MB of doubles
    CHECK_NOTHROW(require_memory("`x`", 250000, 4));  // of ints
    CHECK_THROWS_AS(require_memory("`x`", 125001), SizeError);
    CHECK_THROWS_WITH(require_memory("`x` (500 x 500)", 250000),
                      "`x` (500 x 500) needs 2 MB (250000 elements of 8 bytes), more than the "
                      "budget of 1 MB of memory");
    CHECK_THROWS_WITH(require_memory("`y`", std::nullopt),
                      "`y`: the number of elements overflows a 64-bit integer");
    // Elements that fit int64 but whose bytes do not.
    CHECK_THROWS_WITH(require_memory("`z`", std::numeric_limits<std::int64_t>::max() / 2),
                      Contains("`z` needs 3.69e+19 bytes") || Contains("`z` needs 36.9 EB"));
    set_memory_budget_bytes(0);  // back to the machine's
    CHECK(memory_budget_bytes() == machine_memory_bytes());
    CHECK_THROWS_WITH(require_memory("`w`", std::int64_t{1} << 60),
                      Contains("more than this machine's") && Contains("of memory"));
}

}  // namespace advi
