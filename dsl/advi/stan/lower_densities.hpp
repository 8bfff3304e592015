// Stan's densities that the library's table does not have, built as graph expressions of their
// definitions (lower_densities.cpp): rows of the density table (functions.hpp) like the
// library's own.
#pragma once

#include <vector>

#include <advi/stan/functions.hpp>

namespace advi::stan {

[[nodiscard]] std::vector<DensityRow> composite_densities();

}  // namespace advi::stan
