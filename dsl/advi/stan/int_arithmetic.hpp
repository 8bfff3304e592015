// Stan's int arithmetic: 32-bit, and every case that C++ leaves undefined or traps on reported
// instead of computed: overflow of +, -, *, unary minus, sums, x / 0, x % 0, and INT_MIN / -1
// and INT_MIN % -1 (SIGFPE on x86). Every int that the lowering computes goes through here; the
// caller puts the expression and its file:line:col around the message.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace advi::stan {

// What went wrong, e.g. "2147483647 + 1 overflows Stan's int (-2147483648..2147483647)".
struct IntArithmeticError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace int_arithmetic {

[[noreturn]] inline void overflow(std::string_view what) {
    throw IntArithmeticError(
        fmt::format("{} overflows Stan's int ({}..{})", what, INT_MIN, INT_MAX));
}

inline int add(int a, int b) {
    int r = 0;
    if (__builtin_add_overflow(a, b, &r))
        overflow(fmt::format("{} + {}", a, b));
    return r;
}
inline int subtract(int a, int b) {
    int r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        overflow(fmt::format("{} - {}", a, b));
    return r;
}
inline int multiply(int a, int b) {
    int r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        overflow(fmt::format("{} * {}", a, b));
    return r;
}
// Stan's int division truncates toward zero, as C++'s.
inline int divide(int a, int b) {
    if (b == 0)
        throw IntArithmeticError(fmt::format("integer division by zero ({} / 0)", a));
    if (a == INT_MIN && b == -1)
        overflow(fmt::format("{} / -1", a));
    return a / b;
}
inline int modulo(int a, int b) {
    if (b == 0)
        throw IntArithmeticError(fmt::format("modulus by zero ({} % 0)", a));
    if (a == INT_MIN && b == -1)
        overflow(fmt::format("{} % -1", a));  // its quotient does; x86 traps on both
    return a % b;
}
inline int negate(int a) {
    if (a == INT_MIN)
        overflow(fmt::format("-({})", a));
    return -a;
}
// A sum of ints, checked as it goes.
template <class Range>
int sum(const Range& values) {
    std::int64_t s = 0;
    for (const int v : values) {
        s += v;
        if (s > INT_MAX || s < INT_MIN)
            overflow("the sum");
    }
    return static_cast<int>(s);
}

}  // namespace int_arithmetic
}  // namespace advi::stan
