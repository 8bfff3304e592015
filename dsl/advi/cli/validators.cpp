// Option values checked as text, before CLI11 converts them: its own range checks print the
// largest double in full and its unsigned conversion takes "-1" as 2^64 - 1.
#include <advi/cli/validators.hpp>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

// The whole of `s` as an integer of type T, or nothing.
template <class T>
std::optional<T> parse_integer(const std::string& s) {
    T value{};
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

CLI::Validator int_at_least(int lowest, const char* what, const char* name) {
    return CLI::Validator(
        [lowest, what](std::string& s) -> std::string {
            const auto v = parse_integer<long long>(s);
            if (!v || *v < lowest || *v > INT_MAX) {
                return fmt::format("expected {} integer, got `{}`", what, s);
            }
            return {};
        },
        name);
}

}  // namespace

CLI::Validator positive_int() {
    return int_at_least(1, "a positive", "POSITIVE");
}

CLI::Validator non_negative_int() {
    return int_at_least(0, "a non-negative", "NONNEGATIVE");
}

namespace {

CLI::Validator real_above(bool zero_allowed, const char* what, const char* name) {
    return CLI::Validator(
        [zero_allowed, what](std::string& s) -> std::string {
            std::size_t used = 0;
            double v = 0.0;
            try {
                v = std::stod(s, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != s.size() || !std::isfinite(v) || v < 0.0 ||
                (v == 0.0 && !zero_allowed)) {
                return fmt::format("expected {} number, got `{}`", what, s);
            }
            return {};
        },
        name);
}

}  // namespace

CLI::Validator positive_real() {
    return real_above(false, "a positive", "POSITIVE");
}

CLI::Validator non_negative_real() {
    return real_above(true, "a non-negative", "NONNEGATIVE");
}

CLI::Validator seed_value() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            if (s.empty() || s[0] == '-' || s[0] == '+' || !parse_integer<std::uint64_t>(s)) {
                return fmt::format("expected an integer from 0 to {}, got `{}`", UINT64_MAX, s);
            }
            return {};
        },
        "0..2^64-1");
}

}  // namespace advi::cli
