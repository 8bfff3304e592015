// libFuzzer target: fuzz/targets.hpp's stan_model on each input (fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    advi::fuzz::stan_model(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
