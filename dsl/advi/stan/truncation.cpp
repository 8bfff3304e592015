#include <advi/stan/truncation.hpp>

#include <utility>

namespace advi::stan {

namespace {

Expression at(Loc loc, Expression::Node node) {
    Expression e;
    e.loc = loc;
    e.node = std::move(node);
    return e;
}

}  // namespace

std::optional<Expression> truncation_normaliser(const Tilde& t, bool integer_variate,
                                                const std::vector<bool>& indexed,
                                                const std::optional<Expression>& element) {
    const Truncation& tr = *t.truncation;
    if (!tr.lower && !tr.upper)
        return std::nullopt;
    const Loc loc = tr.loc;
    // D_suffix(bound | args), the arguments indexed by `element` where marked
    auto cdf = [&](const char* suffix, Expression bound) {
        Call c;
        c.name = t.distribution + suffix;
        c.conditional = true;
        c.args.push_back(std::move(bound));
        for (std::size_t k = 0; k < t.args.size(); ++k) {
            if (element && k < indexed.size() && indexed[k]) {
                Index i;
                i.loc = t.args[k].loc;
                i.lower = Box<Expression>(*element);
                Indexed ix;
                ix.base = Box<Expression>(t.args[k]);
                ix.indices.push_back(std::move(i));
                c.args.push_back(at(t.args[k].loc, std::move(ix)));
            } else {
                c.args.push_back(t.args[k]);
            }
        }
        return at(loc, std::move(c));
    };
    // L, or L - 1 for integers
    auto lower = [&] {
        if (!integer_variate)
            return *tr.lower;
        Binary b;
        b.op = BinaryOp::Subtract;
        b.lhs = Box<Expression>(*tr.lower);
        b.rhs = Box<Expression>(at(tr.lower->loc, IntLiteral{1}));
        b.op_loc = tr.lower->loc;
        return at(tr.lower->loc, std::move(b));
    };
    if (tr.lower && tr.upper) {
        Call c;
        c.name = "log_diff_exp";
        c.args.push_back(cdf("_lcdf", *tr.upper));
        c.args.push_back(cdf("_lcdf", lower()));
        return at(loc, std::move(c));
    }
    if (tr.lower)
        return cdf("_lccdf", lower());
    return cdf("_lcdf", *tr.upper);
}

}  // namespace advi::stan
