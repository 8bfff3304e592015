// Runs a recursive-descent stage (the parser) on a thread of its own with a large stack, so
// that the nesting the grammar allows (kMaxNesting) fits whatever stack the caller has: a
// worker thread's 512 KiB, or the main thread's 8 MiB under AddressSanitizer, whose frames
// are several times larger. The stack is reserved address space; only the pages the parse
// touches are ever committed.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>

namespace advi::stan {

inline constexpr std::size_t kParserStackBytes = std::size_t{256} << 20;

// Calls `work` on a new thread with a `stack_bytes` stack and waits for it; an exception
// `work` throws is rethrown here. If no such thread can be made, `work` runs here instead.
void run_with_stack(std::size_t stack_bytes, const std::function<void()>& work);

}  // namespace advi::stan
