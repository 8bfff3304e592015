// A graph header that reaches up into the fit layer.
#include <advi/base/error.hpp>
#include <advi/fit/fit.hpp>
