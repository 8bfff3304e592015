// The declared constraints of transformed parameters and generated quantities, which Stan
// checks rather than imposes: `real<lower=0> tp`, `simplex[K] theta`, `cov_matrix[K] S`. A
// transformed parameter outside its constraint makes the log density -inf there (Stan rejects
// the draw: the engine drops it, the output skips it); a generated quantity outside its
// constraint stops the output with an error naming it (Stan stops).
#include <fmt/format.h>

#include <advi/stan/data_constraints.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

void Lowerer::declared_constraints(const ProgramBlock& b, std::string_view what,
                                   bool in_log_density) {
    for (const Statement& s : b.statements) {
        if (const auto* d = s.as<VarDecl>())
            declared_constraint_of(d->type, d->name, d->name_loc, what, in_log_density);
    }
}

void Lowerer::declared_constraint_of(const SizedType& type, const std::string& name, Loc name_loc,
                                     std::string_view what, bool in_log_density) {
    if (type.base == BaseType::Tuple) {
        // each element, a variable of its own (`x:1`) with the tuple array's dims first
        for (std::size_t k = 0; k < type.parts.size(); ++k) {
            declared_constraint_of(element_type(type, k), fmt::format("{}:{}", name, k + 1),
                                   name_loc, what, in_log_density);
        }
        return;
    }
    const SizedType* t = &type;
    {
        const std::optional<Constraint> structured = declared_constraint(t->base);
        if (!structured && !t->lower && !t->upper)
            return;
        const Value& v = find(name)->value;
        // Bounds as in the parameters block: a known int as a number, else a real expression
        // (of data, parameters or earlier quantities), real or of the variable's shape.
        const auto bound = [&](const std::optional<Expression>& e) -> std::optional<Arg> {
            if (!e)
                return std::nullopt;
            const Value x = expr(*e);
            if (x.is_known_int() && x.is_scalar())
                return Arg(static_cast<double>(x.ints[0]));
            return Arg(real(x, e->loc));
        };
        // array[N] simplex[K] is mat[N, K] with one vector per row, as for parameters.
        const bool rowwise = structured && is_vector_constraint(*structured) && !v.dims.empty();
        if (structured && !v.dims.empty() && !(rowwise && v.dims.size() == 1)) {
            fail(t->loc, fmt::format("{} `{}`: arrays of {} {}are not supported yet", what, name,
                                     constraint_name(*structured),
                                     rowwise ? "of more than one dimension " : ""));
        }
        const std::string label = fmt::format("{} `{}`", what, name);
        const Expr value = real(v, name_loc);
        try {
            if (t->lower || t->upper) {
                m().check_constraint(label, value, Constraint::Bounds, bound(t->lower),
                                     bound(t->upper), false, in_log_density);
            }
            if (structured) {
                m().check_constraint(label, value, *structured, std::nullopt, std::nullopt, rowwise,
                                     in_log_density);
            }
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(t->loc, e.what());
        }
    }
}

}  // namespace advi::stan
