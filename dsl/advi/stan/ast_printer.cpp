#include <advi/stan/ast_printer.hpp>

#include <fmt/format.h>

namespace advi::stan {
namespace {

// ---- Expressions

// How loosely an expression binds (ast.hpp's table; 0 for primaries and postfix forms).
int precedence(const Expression& e) {
    if (const auto* b = e.as<Binary>())
        return binary_op_info(b->op).precedence;
    if (e.is<Unary>())
        return kUnaryPrecedence;
    if (e.is<Conditional>())
        return kConditionalPrecedence;
    return 0;
}

std::string real_text(double v) {
    std::string s = fmt::format("{}", v);
    // Keep a real a real: 100000 would read back as an int.
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

void print_expression(std::string& out, const Expression& e);

void print_list(std::string& out, const std::vector<Expression>& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += ", ";
        print_expression(out, items[i]);
    }
}

void print_operand(std::string& out, const Expression& e, bool parenthesise) {
    if (parenthesise)
        out += '(';
    print_expression(out, e);
    if (parenthesise)
        out += ')';
}

void print_index(std::string& out, const Index& i) {
    if (!i.is_range) {
        print_expression(out, **i.lower);
        return;
    }
    if (i.lower)
        print_expression(out, **i.lower);
    out += ':';
    if (i.upper)
        print_expression(out, **i.upper);
}

struct ExpressionPrinter {
    std::string& out;

    void operator()(const IntLiteral& x) { out += std::to_string(x.value); }
    void operator()(const RealLiteral& x) { out += real_text(x.value); }
    void operator()(const ImagLiteral& x) { out += real_text(x.value) + "i"; }
    void operator()(const StringLiteral& x) {
        out += '"';
        out += x.value;
        out += '"';
    }
    void operator()(const Variable& x) { out += x.name; }
    void operator()(const Call& x) {
        out += x.name;
        out += '(';
        for (std::size_t i = 0; i < x.args.size(); ++i) {
            if (i > 0)
                out += x.conditional && i == 1 ? " | " : ", ";
            print_expression(out, x.args[i]);
        }
        if (x.conditional && x.args.size() == 1)
            out += " |";
        out += ')';
    }
    void operator()(const Unary& x) {
        out += symbol(x.op);
        // The operand of a prefix operator is a power or another prefix expression.
        print_operand(out, *x.operand, precedence(*x.operand) > kUnaryPrecedence);
    }
    void operator()(const Binary& x) {
        const BinaryOpInfo& info = binary_op_info(x.op);
        const int pl = precedence(*x.lhs), pr = precedence(*x.rhs);
        print_operand(out, *x.lhs,
                      pl > info.precedence || (pl == info.precedence && info.right_associative));
        out += ' ';
        out += info.symbol;
        out += ' ';
        print_operand(out, *x.rhs,
                      pr > info.precedence || (pr == info.precedence && !info.right_associative));
    }
    void operator()(const Conditional& x) {
        print_operand(out, *x.condition, precedence(*x.condition) >= kConditionalPrecedence);
        out += " ? ";
        print_expression(out, *x.if_true);
        out += " : ";
        print_expression(out, *x.if_false);
    }
    void operator()(const Indexed& x) {
        print_operand(out, *x.base, precedence(*x.base) > 0);
        out += '[';
        for (std::size_t i = 0; i < x.indices.size(); ++i) {
            if (i > 0)
                out += ", ";
            print_index(out, x.indices[i]);
        }
        out += ']';
    }
    void operator()(const Transpose& x) {
        print_operand(out, *x.operand, precedence(*x.operand) > 0);
        out += '\'';
    }
    void operator()(const ArrayExpr& x) {
        out += '{';
        print_list(out, x.elements);
        out += '}';
    }
    void operator()(const RowVectorExpr& x) {
        out += '[';
        print_list(out, x.elements);
        out += ']';
    }
    void operator()(const TupleExpr& x) {
        out += '(';
        print_list(out, x.elements);
        if (x.elements.size() == 1)
            out += ',';
        out += ')';
    }
    void operator()(const TupleIndex& x) {
        print_operand(out, *x.base, precedence(*x.base) > 0);
        out += '.';
        out += std::to_string(x.index);
    }
};

void print_expression(std::string& out, const Expression& e) {
    std::visit(ExpressionPrinter{out}, e.node);
}

// ---- Types

void print_type(std::string& out, const SizedType& t);
void print_type(std::string& out, const UnsizedType& t);

// `(real, vector)`, and `(real,)` for one element: a tuple type's elements, sized or not.
template <class Type>
void print_tuple_parts(std::string& out, const std::vector<Type>& parts) {
    out += '(';
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0)
            out += ", ";
        print_type(out, parts[i]);
    }
    out += parts.size() == 1 ? ",)" : ")";
}

void print_type(std::string& out, const SizedType& t) {
    if (!t.dims.empty()) {
        out += "array[";
        print_list(out, t.dims);
        out += "] ";
    }
    out += name(t.base);
    if (t.base == BaseType::Tuple) {
        print_tuple_parts(out, t.parts);
        return;
    }
    std::vector<std::pair<std::string_view, const Expression*>> constraints;
    if (t.lower)
        constraints.emplace_back("lower", &*t.lower);
    if (t.upper)
        constraints.emplace_back("upper", &*t.upper);
    if (t.offset)
        constraints.emplace_back("offset", &*t.offset);
    if (t.multiplier)
        constraints.emplace_back("multiplier", &*t.multiplier);
    if (!constraints.empty()) {
        out += '<';
        for (std::size_t i = 0; i < constraints.size(); ++i) {
            if (i > 0)
                out += ", ";
            out += constraints[i].first;
            out += '=';
            // A bound is an additive expression: anything looser needs parentheses.
            print_operand(
                out, *constraints[i].second,
                precedence(*constraints[i].second) > binary_op_info(BinaryOp::Add).precedence);
        }
        out += '>';
    }
    if (!t.sizes.empty()) {
        out += '[';
        print_list(out, t.sizes);
        out += ']';
    }
}

void print_type(std::string& out, const UnsizedType& t) {
    if (t.array_dims > 0)
        out += "array[" + std::string(t.array_dims - 1, ',') + "] ";
    out += name(t.base);
    if (t.base == BaseType::Tuple) {
        print_tuple_parts(out, t.parts);
    }
}

// ---- Statements

// Whether a statement ends in an `if` without `else`, which would take an `else` printed
// after it: such a branch body is printed in braces.
bool ends_in_open_if(const Statement& s) {
    if (const auto* x = s.as<If>())
        return !x->otherwise || ends_in_open_if(**x->otherwise);
    if (const auto* x = s.as<For>())
        return ends_in_open_if(*x->body);
    if (const auto* x = s.as<ForEach>())
        return ends_in_open_if(*x->body);
    if (const auto* x = s.as<While>())
        return ends_in_open_if(*x->body);
    return false;
}

struct StatementPrinter {
    std::string& out;
    int indent;

    void pad(int level) const { out.append(2 * static_cast<std::size_t>(level), ' '); }
    void expr(const Expression& e) const { print_expression(out, e); }

    void statements(const std::vector<Statement>& body, int level) const {
        for (const Statement& s : body) std::visit(StatementPrinter{out, level}, s.node);
    }

    // The body of a control statement: `{` on the same line, or the statement on the next
    // line one level in. Ends after its last line's newline unless `open` (then after `}`).
    void body(const Statement& s, bool braced, bool& open) const {
        if (const auto* b = s.as<Block>(); b || braced) {
            out += " {\n";
            if (b)
                statements(b->statements, indent + 1);
            else
                std::visit(StatementPrinter{out, indent + 1}, s.node);
            pad(indent);
            out += '}';
            open = true;
        } else {
            out += '\n';
            std::visit(StatementPrinter{out, indent + 1}, s.node);
            open = false;
        }
    }
    void close(bool open) const {
        if (open)
            out += '\n';
    }

    void operator()(const VarDecl& x) const {
        pad(indent);
        print_type(out, x.type);
        out += ' ';
        out += x.name;
        if (x.initial_value) {
            out += " = ";
            expr(*x.initial_value);
        }
        out += ";\n";
    }
    void operator()(const Assign& x) const {
        pad(indent);
        expr(x.lhs);
        out += fmt::format(" {} ", symbol(x.op));
        expr(x.rhs);
        out += ";\n";
    }
    void operator()(const Tilde& x) const {
        pad(indent);
        expr(x.lhs);
        out += " ~ " + x.distribution + "(";
        print_list(out, x.args);
        out += ')';
        if (x.truncation) {
            out += " T[";
            if (x.truncation->lower)
                expr(*x.truncation->lower);
            out += ", ";
            if (x.truncation->upper)
                expr(*x.truncation->upper);
            out += ']';
        }
        out += ";\n";
    }
    void operator()(const TargetPlus& x) const {
        pad(indent);
        out += x.jacobian ? "jacobian += " : "target += ";
        expr(x.value);
        out += ";\n";
    }
    void operator()(const For& x) const {
        pad(indent);
        out += "for (" + x.variable + " in ";
        expr(x.lower);
        out += ':';
        expr(x.upper);
        out += ')';
        bool open = false;
        body(*x.body, false, open);
        close(open);
    }
    void operator()(const ForEach& x) const {
        pad(indent);
        out += "for (" + x.variable + " in ";
        expr(x.container);
        out += ')';
        bool open = false;
        body(*x.body, false, open);
        close(open);
    }
    void operator()(const While& x) const {
        pad(indent);
        out += "while (";
        expr(x.condition);
        out += ')';
        bool open = false;
        body(*x.body, false, open);
        close(open);
    }
    void operator()(const If& x) const {
        pad(indent);
        bool open = false;
        for (std::size_t i = 0; i < x.branches.size(); ++i) {
            const bool more = i + 1 < x.branches.size() || x.otherwise;
            if (i > 0) {
                if (open)
                    out += ' ';
                else
                    pad(indent);
                out += "else ";
            }
            out += "if (";
            expr(x.branches[i].condition);
            out += ')';
            body(*x.branches[i].body, more && ends_in_open_if(*x.branches[i].body), open);
        }
        if (x.otherwise) {
            if (open)
                out += ' ';
            else
                pad(indent);
            out += "else";
            body(**x.otherwise, false, open);
        }
        close(open);
    }
    void operator()(const Block& x) const {
        pad(indent);
        out += "{\n";
        statements(x.statements, indent + 1);
        pad(indent);
        out += "}\n";
    }
    void operator()(const Profile& x) const {
        pad(indent);
        out += "profile(\"" + x.name + "\") {\n";
        statements(x.statements, indent + 1);
        pad(indent);
        out += "}\n";
    }
    void operator()(const Break&) const {
        pad(indent);
        out += "break;\n";
    }
    void operator()(const Continue&) const {
        pad(indent);
        out += "continue;\n";
    }
    void operator()(const Return& x) const {
        pad(indent);
        out += "return";
        if (x.value) {
            out += ' ';
            expr(*x.value);
        }
        out += ";\n";
    }
    void operator()(const Print& x) const {
        pad(indent);
        out += name(x.kind);
        out += '(';
        print_list(out, x.args);
        out += ");\n";
    }
    void operator()(const CallStatement& x) const {
        pad(indent);
        ExpressionPrinter{out}(x.call);
        out += ";\n";
    }
    void operator()(const Empty&) const {
        pad(indent);
        out += ";\n";
    }
};

void print_function(std::string& out, const FunctionDef& f, int indent) {
    out.append(2 * static_cast<std::size_t>(indent), ' ');
    if (f.return_type)
        print_type(out, *f.return_type);
    else
        out += "void";
    out += ' ' + f.name + '(';
    for (std::size_t i = 0; i < f.args.size(); ++i) {
        if (i > 0)
            out += ", ";
        if (f.args[i].data_only)
            out += "data ";
        print_type(out, f.args[i].type);
        out += ' ' + f.args[i].name;
    }
    out += ')';
    if (!f.body) {
        out += ";\n";
        return;
    }
    bool open = false;
    StatementPrinter{out, indent}.body(*f.body, false, open);
    if (open)
        out += '\n';
}

}  // namespace

std::string to_stan(const Expression& expression) {
    std::string out;
    print_expression(out, expression);
    return out;
}

std::string to_stan(const SizedType& type) {
    std::string out;
    print_type(out, type);
    return out;
}

std::string to_stan(const UnsizedType& type) {
    std::string out;
    print_type(out, type);
    return out;
}

std::string to_stan(const Statement& statement, int indent) {
    std::string out;
    std::visit(StatementPrinter{out, indent}, statement.node);
    return out;
}

std::string to_stan(const FunctionDef& function, int indent) {
    std::string out;
    print_function(out, function, indent);
    return out;
}

std::string to_stan(const Program& program) {
    std::string out;
    if (!program.functions.empty()) {
        out += "functions {\n";
        for (const FunctionDef& f : program.functions) print_function(out, f, 1);
        out += "}\n";
    }
    for (int k = 0; k < kBlockKinds; ++k) {
        const auto kind = static_cast<BlockKind>(k);
        const auto& block = program.block(kind);
        if (!block)
            continue;
        out += fmt::format("{} {{\n", name(kind));
        for (const Statement& s : block->statements) out += to_stan(s, 1);
        out += "}\n";
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const Program& program) {
    return os << to_stan(program);
}
std::ostream& operator<<(std::ostream& os, const Statement& statement) {
    return os << to_stan(statement);
}
std::ostream& operator<<(std::ostream& os, const Expression& expression) {
    return os << to_stan(expression);
}
std::ostream& operator<<(std::ostream& os, const SizedType& type) {
    return os << to_stan(type);
}

}  // namespace advi::stan
