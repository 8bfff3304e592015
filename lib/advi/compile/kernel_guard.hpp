// How the program runs a kernel: an exception from a library inside it (Boost.Math, the
// standard library) is a failed evaluation, not a failed fit. The op's value becomes NaN, so
// that the engine sees a non-finite log density and drops the draw (a trial step size fails),
// and the diagnosis of a persistent failure (fit/diagnose) finds this op as the first whose
// value is not finite. Our own errors (an index out of range) name the fault and pass on, and
// so does a failed allocation.
#pragma once

#include <algorithm>
#include <exception>
#include <limits>
#include <new>

#include <advi/base/error.hpp>
#include <advi/graph/op.hpp>

namespace advi {

// Runs f(), which writes `size` values at `out`; on a library exception fills them with NaN.
template <class F>
void guarded(double* out, int size, F&& f) {
    try {
        f();
    } catch (const Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        std::fill(out, out + size, std::numeric_limits<double>::quiet_NaN());
    }
}

inline void run_kernel(Kernel kernel, const KernelArgs& a) {
    guarded(a.out, a.out_size(), [&] { kernel(a); });
}

}  // namespace advi
