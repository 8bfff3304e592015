#include <advi/stan/check.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/stan/functions.hpp>

namespace advi::stan {

namespace {

class Checker {
public:
    explicit Checker(const Program& p) : p_(p) {}

    void run() {
        for (const FunctionDef& f : p_.functions) functions_[f.name] = &f;
        for (const FunctionDef& f : p_.functions) {
            if (!f.body)
                continue;
            scopes_.push_back({});
            for (const auto& a : f.args) declare(a.name, f.loc, false);
            const bool lp = ends_with(f.name, "_lp");
            in_model_ = lp;
            in_function_ = true;
            statement(*f.body);
            in_function_ = false;
            in_model_ = false;
            scopes_.pop_back();
        }
        scopes_.push_back({});
        for (int k = 0; k < kBlockKinds; ++k) {
            const auto kind = static_cast<BlockKind>(k);
            const auto& b = p_.block(kind);
            if (!b)
                continue;
            block_ = kind;
            in_model_ = kind == BlockKind::Model;
            if (kind == BlockKind::Model)
                scopes_.push_back({});
            for (const Statement& s : b->statements) statement(s);
            if (kind == BlockKind::Model)
                scopes_.pop_back();
        }
    }

private:
    static bool ends_with(const std::string& s, std::string_view suffix) {
        return s.size() > suffix.size() &&
               s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
    }
    [[noreturn]] void fail(Loc at, const std::string& m) const { throw p_.error_at(at, m); }

    struct Name {
        BlockKind block;
        bool assignable;
    };
    void declare(const std::string& name, Loc at, bool assignable) {
        for (const auto& s : scopes_) {
            if (s.count(name))
                fail(at, fmt::format("`{}` is already declared", name));
        }
        scopes_.back()[name] = {block_, assignable};
    }
    const Name* find(const std::string& name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            if (auto n = it->find(name); n != it->end())
                return &n->second;
        }
        return nullptr;
    }

    void type(const SizedType& t) {
        for (const auto& e : t.dims) expr(e);
        for (const auto& e : t.sizes) expr(e);
        for (const auto* e : {&t.lower, &t.upper, &t.offset, &t.multiplier}) {
            if (*e)
                expr(**e);
        }
    }

    void expr(const Expression& e) {
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, Variable>) {
                    if (find(n.name) == nullptr)
                        fail(e.loc, fmt::format("unknown identifier `{}`", n.name));
                } else if constexpr (std::is_same_v<T, Call>) {
                    call(n, e.loc);
                } else if constexpr (std::is_same_v<T, Unary>) {
                    expr(*n.operand);
                } else if constexpr (std::is_same_v<T, Binary>) {
                    expr(*n.lhs);
                    expr(*n.rhs);
                } else if constexpr (std::is_same_v<T, Conditional>) {
                    expr(*n.condition);
                    expr(*n.if_true);
                    expr(*n.if_false);
                } else if constexpr (std::is_same_v<T, Indexed>) {
                    expr(*n.base);
                    for (const auto& ix : n.indices) {
                        if (ix.lower)
                            expr(**ix.lower);
                        if (ix.upper)
                            expr(**ix.upper);
                    }
                } else if constexpr (std::is_same_v<T, Transpose>) {
                    expr(*n.operand);
                } else if constexpr (std::is_same_v<T, ArrayExpr> ||
                                     std::is_same_v<T, RowVectorExpr>) {
                    for (const auto& x : n.elements) expr(x);
                }
            },
            e.node);
    }

    void call(const Call& c, Loc at) {
        for (const auto& a : c.args) expr(a);
        if (functions_.count(c.name))
            return;
        if (!is_known_function(c.name))
            fail(at, fmt::format("unknown function `{}`", c.name));
        if (find_random_function(c.name) != nullptr && !in_function_ &&
            block_ != BlockKind::GeneratedQuantities && block_ != BlockKind::TransformedData) {
            fail(at, fmt::format("`{}` is for generated quantities only", c.name));
        }
    }

    void statement(const Statement& s) {
        const Loc at = s.loc;
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, VarDecl>) {
                    type(n.type);
                    if (n.initial_value)
                        expr(*n.initial_value);
                    declare(n.name, n.name_loc,
                            block_ != BlockKind::Data && block_ != BlockKind::Parameters);
                } else if constexpr (std::is_same_v<T, Assign>) {
                    const Expression* x = &n.lhs;
                    while (const auto* ix = x->as<Indexed>()) x = &*ix->base;
                    const auto* v = x->as<Variable>();
                    const Name* name = find(v->name);
                    if (name == nullptr)
                        fail(x->loc, fmt::format("unknown identifier `{}`", v->name));
                    if (!name->assignable || (!in_function_ && name->block != block_)) {
                        fail(x->loc, fmt::format("`{}` cannot be assigned here ({} variable)",
                                                 v->name, stan::name(name->block)));
                    }
                    expr(n.lhs);
                    expr(n.rhs);
                } else if constexpr (std::is_same_v<T, Tilde>) {
                    if (!in_model_)
                        fail(at, "`~` statements belong in the model block");
                    expr(n.lhs);
                    for (const auto& a : n.args) expr(a);
                    const bool user = functions_.count(n.distribution + "_lpdf") ||
                                      functions_.count(n.distribution + "_lpmf");
                    if (!user && !is_known_distribution(n.distribution)) {
                        fail(n.distribution_loc,
                             fmt::format("unknown distribution `{}`", n.distribution));
                    }
                } else if constexpr (std::is_same_v<T, TargetPlus>) {
                    if (!in_model_)
                        fail(at, "`target +=` belongs in the model block");
                    expr(n.value);
                } else if constexpr (std::is_same_v<T, For>) {
                    expr(n.lower);
                    expr(n.upper);
                    scopes_.push_back({});
                    declare(n.variable, n.variable_loc, false);
                    statement(*n.body);
                    scopes_.pop_back();
                } else if constexpr (std::is_same_v<T, ForEach>) {
                    expr(n.container);
                    scopes_.push_back({});
                    declare(n.variable, n.variable_loc, false);
                    statement(*n.body);
                    scopes_.pop_back();
                } else if constexpr (std::is_same_v<T, While>) {
                    expr(n.condition);
                    scope(*n.body);
                } else if constexpr (std::is_same_v<T, If>) {
                    for (const auto& b : n.branches) {
                        expr(b.condition);
                        scope(*b.body);
                    }
                    if (n.otherwise)
                        scope(**n.otherwise);
                } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                    scopes_.push_back({});
                    for (const auto& st : n.statements) statement(st);
                    scopes_.pop_back();
                } else if constexpr (std::is_same_v<T, Return>) {
                    if (!in_function_)
                        fail(at, "return outside a function");
                    if (n.value)
                        expr(*n.value);
                } else if constexpr (std::is_same_v<T, Print>) {
                    for (const auto& a : n.args) {
                        if (!a.template is<StringLiteral>())
                            expr(a);
                    }
                } else if constexpr (std::is_same_v<T, CallStatement>) {
                    call(n.call, at);
                }
            },
            s.node);
    }
    void scope(const Statement& s) {
        scopes_.push_back({});
        statement(s);
        scopes_.pop_back();
    }

    const Program& p_;
    std::map<std::string, const FunctionDef*> functions_;
    std::vector<std::map<std::string, Name>> scopes_;
    BlockKind block_ = BlockKind::Data;
    bool in_model_ = false;
    bool in_function_ = false;
};

}  // namespace

void check(const Program& program) {
    Checker(program).run();
}

}  // namespace advi::stan
