#include <advi/base/memory_budget.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <unistd.h>

namespace advi {

namespace {

// cgroup v2's memory.max ("max" or bytes), else v1's limit_in_bytes; nothing if neither.
std::optional<std::int64_t> cgroup_limit() {
    for (const char* file :
         {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
        std::ifstream in(file);
        long long bytes = 0;
        if (in >> bytes && bytes > 0)
            return bytes;
    }
    return std::nullopt;
}

std::int64_t physical_memory() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0)
        return std::numeric_limits<std::int64_t>::max();
    return checked_product({pages, page}).value_or(std::numeric_limits<std::int64_t>::max());
}

}  // namespace

std::int64_t machine_memory_bytes() {
    static const std::int64_t bytes = [] {
        const std::int64_t physical = physical_memory();
        const auto limit = cgroup_limit();
        return limit ? std::min(physical, *limit) : physical;
    }();
    return bytes;
}

namespace {
std::atomic<std::int64_t> budget_set{0};
}  // namespace

std::int64_t memory_budget_bytes() {
    const std::int64_t set = budget_set.load(std::memory_order_relaxed);
    return set > 0 ? set : machine_memory_bytes();
}

void set_memory_budget_bytes(std::int64_t bytes) {
    budget_set.store(std::max<std::int64_t>(bytes, 0), std::memory_order_relaxed);
}

std::optional<std::int64_t> checked_product(std::span<const std::int64_t> factors) {
    std::int64_t n = 1;
    for (const std::int64_t f : factors) {
        if (f < 0 || __builtin_mul_overflow(n, f, &n))
            return std::nullopt;
    }
    return n;
}

std::optional<std::int64_t> checked_product(std::initializer_list<std::int64_t> factors) {
    return checked_product(std::span<const std::int64_t>(factors.begin(), factors.size()));
}

std::string format_bytes(double bytes) {
    static constexpr const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (bytes >= 999.5 && u < 6) {  // 999.7 kB rounds to "1 MB", not "1e+03 kB"
        bytes /= 1000;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.3g} {}", bytes, units[u]);
}

void require_memory(std::string_view what, std::optional<std::int64_t> elements,
                    std::int64_t bytes_per_element) {
    const std::int64_t memory = memory_budget_bytes();
    const bool set = budget_set.load(std::memory_order_relaxed) > 0;
    const auto bytes = elements ? checked_product({*elements, bytes_per_element}) : std::nullopt;
    if (!elements) {
        throw SizeError(fmt::format("{}: the number of elements overflows a 64-bit integer", what));
    }
    if (!bytes || *bytes > memory) {
        throw SizeError(fmt::format(
            "{} needs {} ({} elements of {} bytes), more than {} {} of memory", what,
            format_bytes(static_cast<double>(*elements) * static_cast<double>(bytes_per_element)),
            *elements, bytes_per_element, set ? "the budget of" : "this machine's",
            format_bytes(static_cast<double>(memory))));
    }
}

}  // namespace advi
