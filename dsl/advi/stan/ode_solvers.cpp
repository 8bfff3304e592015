#include <advi/stan/ode_solvers.hpp>

namespace advi::stan {
namespace {

// Stan's adams and bdf (CVODES) run with Dormand-Prince here: the same solution to the same
// tolerances; a stiff system that needs an implicit method exhausts max_num_steps, and the
// density is then not finite (ops_ode.hpp).
constexpr OdeSolverRow kOdeSolvers[] = {
    {"ode_rk45",            OdeInterface::Variadic,           OdeMethod::Rk45    },
    {"ode_rk45_tol",        OdeInterface::VariadicTolerances, OdeMethod::Rk45    },
    {"ode_ckrk",            OdeInterface::Variadic,           OdeMethod::CashKarp},
    {"ode_ckrk_tol",        OdeInterface::VariadicTolerances, OdeMethod::CashKarp},
    {"ode_adams",           OdeInterface::Variadic,           OdeMethod::Rk45    },
    {"ode_adams_tol",       OdeInterface::VariadicTolerances, OdeMethod::Rk45    },
    {"ode_bdf",             OdeInterface::Variadic,           OdeMethod::Rk45    },
    {"ode_bdf_tol",         OdeInterface::VariadicTolerances, OdeMethod::Rk45    },
    {"ode_adjoint_tol_ctl", OdeInterface::AdjointControl,     OdeMethod::Rk45    },
    {"integrate_ode",       OdeInterface::Arrays,             OdeMethod::Rk45    },
    {"integrate_ode_rk45",  OdeInterface::Arrays,             OdeMethod::Rk45    },
    {"integrate_ode_adams", OdeInterface::Arrays,             OdeMethod::Rk45    },
    {"integrate_ode_bdf",   OdeInterface::Arrays,             OdeMethod::Rk45    },
};

}  // namespace

const OdeSolverRow* find_ode_solver(std::string_view name) {
    for (const OdeSolverRow& row : kOdeSolvers) {
        if (row.name == name)
            return &row;
    }
    return nullptr;
}

}  // namespace advi::stan
