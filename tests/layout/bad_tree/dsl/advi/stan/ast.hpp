// The Stan front end may include the C++ DSL.
#include <advi/cpp/model.hpp>
