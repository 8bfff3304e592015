// ADVI_DUMP, read once.
#include <advi/compile/dump.hpp>

#include <cstdlib>
#include <string>

namespace advi {

bool dump_wanted(std::string_view stage) {
    static const std::string wanted = [] {
        const char* e = std::getenv("ADVI_DUMP");
        return std::string(e ? e : "");
    }();
    if (wanted.empty())
        return false;
    return wanted == "all" ||
           (',' + wanted + ',').find(',' + std::string(stage) + ',') != std::string::npos;
}

}  // namespace advi
