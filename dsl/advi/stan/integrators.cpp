#include <advi/stan/integrators.hpp>

namespace advi::stan {
namespace {

constexpr IntegratorRow kIntegrators[] = {
    {"integrate_1d",                        IntegratorInterface::Legacy,             QuadratureMethod::DoubleExponential},
    {"integrate_1d_double_exponential",     IntegratorInterface::Variadic,
     QuadratureMethod::DoubleExponential                                                                                },
    {"integrate_1d_double_exponential_tol", IntegratorInterface::VariadicTolerances,
     QuadratureMethod::DoubleExponential                                                                                },
    {"integrate_1d_gauss_kronrod",          IntegratorInterface::Variadic,           QuadratureMethod::GaussKronrod     },
    {"integrate_1d_gauss_kronrod_tol",      IntegratorInterface::VariadicTolerances,
     QuadratureMethod::GaussKronrod                                                                                     },
};

}  // namespace

const IntegratorRow* find_integrator(std::string_view name) {
    for (const IntegratorRow& row : kIntegrators) {
        if (row.name == name)
            return &row;
    }
    return nullptr;
}

}  // namespace advi::stan
