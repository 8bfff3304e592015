// ADVI_VERSION is defined for this file alone (CMakeLists.txt), so that a new version
// recompiles one file.
#include <advi/base/version.hpp>

namespace advi {

std::string_view version() {
    return ADVI_VERSION;
}

}  // namespace advi
