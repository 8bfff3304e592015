#include <advi/ranks/ranks.hpp>

#include <cstdlib>

namespace advi {

void OneRank::abort(int code) {
    std::exit(code);
}

}  // namespace advi
