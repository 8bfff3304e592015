// The lowering's working state (private to dsl/advi/stan): scopes of variables, the vectorised-loop
// levels, and the deferred effects of a loop being vectorised. lower.cpp lowers blocks and
// statements, lower_expression.cpp expressions and indexing, lower_call.cpp function calls and
// densities.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <advi/compile/pipeline.hpp>
#include <advi/cpp/distributions.hpp>
#include <advi/cpp/expr.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>
#include <advi/cpp/model.hpp>
#include <advi/engine/rng.hpp>
#include <advi/io/data_table.hpp>
#include <advi/stan/algebra_solvers.hpp>
#include <advi/stan/ast.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/integrators.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/ode_solvers.hpp>
#include <advi/stan/value.hpp>

namespace advi::stan {

// Names assigned anywhere in a statement, indices or not (the recurrence check of vectorised
// loops, the state of a loop op).
void assigned_names(const Statement& s, std::set<std::string>& out);

// A loop body that cannot run once for all iterations (a recurrence, a condition on the
// iteration, a break): the loop is unrolled if short, else this becomes the error.
struct NotVectorisable : std::runtime_error {
    NotVectorisable(Loc at, const std::string& why) : std::runtime_error(why), loc(at) {}
    Loc loc;
};

// One vectorised loop: iterations of all enclosing vectorised loops times this one's. The
// combined index is t = t_outer + outer * j (the outer loops' index varies fastest).
struct Level {
    int outer = 1;  // iterations of the enclosing levels
    int trip = 1;   // this loop's iterations
    // For messages: the loop variable and its first value (a foreach counts iterations from 1).
    std::string variable;
    int lower = 1;
    bool foreach = false;
    [[nodiscard]] int total() const { return outer * trip; }
};

// A variable. An assignable tuple is an alias: `elements` name the variables that hold its
// elements (`x:1`, `x:2`; ':' cannot occur in a Stan name), each an ordinary variable (or alias),
// so that assignments to elements go through the one machinery for variables. A read-only tuple
// (data, parameters, function arguments, loop variables) holds its Tuple value directly.
struct Var {
    Value value;
    std::vector<std::string> elements;
    BlockKind block = BlockKind::Model;
    int level = 0;             // the vectorised level it was declared at
    bool initialised = false;  // locals declared without a value are not
    bool readonly = false;     // data, parameters, loop variables
};

// The outermost loop being vectorised: its effects wait until the whole body has lowered,
// so that a body that turns out not to be vectorisable leaves nothing behind.
struct Region {
    std::vector<std::function<void()>> effects;
    std::map<std::string, Value> written;                // variables of outer scopes, new values
    std::map<std::string, std::vector<int>> written_at;  // element written at each iteration
    std::set<std::string> assigned;                      // names assigned anywhere in the body
};

class Lowerer {
public:
    Lowerer(const Program& program, const DataTable& data, LoweredProgram& out, std::uint64_t seed);
    void run();

    // --- errors
    [[noreturn]] void fail(Loc at, const std::string& message) const;

    // --- expressions (lower_expression.cpp)
    Value expr(const Expression& e);
    Value expr_here(const Expression& e);  // expr without placing the library's errors
    // `{a, b, c}` of these values (ints, reals, vectors, one-dimensional arrays, tuples of them).
    Value array_of(const std::vector<Value>& parts, const std::vector<Loc>& locs, Loc at);
    // `[a, b]` of these values (scalars: a row vector; row vectors: a matrix; complex forms).
    Value row_vector_of(const std::vector<Value>& parts, const std::vector<Loc>& locs, Loc at);
    // values[i0 + d0 * (i1 + ...)] as the array of `dims` (first index fastest).
    Value stacked(const std::vector<Value>& values, const std::vector<int>& dims, Loc at);
    // A known int scalar (sizes, bounds, single indices outside vectorised loops).
    int known_int(const Expression& e, const char* what);
    // The value as a real graph node in its layout (ints become constants or data).
    Expr real(const Value& v, Loc at);
    // An int value as integer data of the model (for count distributions and gathers).
    Expr int_data(const Value& v, Loc at);
    Value constant(double v);
    Value int_scalar(int v);
    // Reals known while lowering (computed from data), as a data node of the model.
    Expr known_reals(Eigen::VectorXd x);
    // v brought to vectorised level `level` (repeated over the inner iterations).
    Value at_level(const Value& v, int level, Loc at);
    [[nodiscard]] int level_of(const Value& v) const;
    [[nodiscard]] int batch_size(int level) const;
    // Indexing by one int known only per draw (a loop op's iteration, an _rng draw, a
    // condition's int): the flat positions read at index 1, shifted by stride * (i - 1).
    struct RuntimeIndex {
        bool active = false;
        Expr i;  // the index, an integral real
        int stride = 1;
        int extent = 0;  // i's range is 1..extent
        std::vector<int> positions;
    };
    // `runtime`, if given, receives the selection when an index is known only per draw.
    Value index(const Value& base, const std::vector<Index>& indices, Loc at,
                const Expression* whole = nullptr, RuntimeIndex* runtime = nullptr);
    // Which iteration of the vectorised loops batch position t of `level` is, in Stan's
    // terms: "n = 3", "i = 2, j = 5" ("" outside vectorised loops).
    [[nodiscard]] std::string iteration(int level, std::int64_t t) const;
    // `whole` is the expression (for messages), if there is one.
    Value binary(BinaryOp op, const Value& a, const Value& b, Loc at,
                 const Expression* whole = nullptr);
    // v's graph node in the layout of `like` at vectorised `level` (scalars stay scalars:
    // the graph broadcasts them).
    Expr spread(const Value& v, const Value& like, int level, Loc at);
    // A draw of `dist`_rng(args) (generated quantities only).
    Value random_draw(const std::string& dist, const std::vector<Value>& args, Loc at);

    // --- complex numbers (lower_complex.cpp)
    // A complex value from its real and imaginary parts, real values of one shape. Complex
    // values stay out of loops run at once (NotVectorisable: the loop is unrolled).
    Value complex_of(Value re, Value im, Loc at);
    // The real and imaginary parts of any numeric value (of a real one: itself as reals, and
    // zeros of its shape).
    Value real_part(const Value& v, Loc at);
    Value imag_part(const Value& v, Loc at);
    Value as_complex(const Value& v, Loc at);
    // Zeros in v's shape and layout (a real value).
    Value zeros_like(const Value& v);
    // An operator with a complex operand: the real operators on the parts.
    Value complex_binary(BinaryOp op, const Value& a, const Value& b, Loc at);
    // v' (a vector's row vector, a matrix's transpose; complex: each part's).
    Value transposed(Value v, Loc at);

    // --- calls and densities (lower_call.cpp; the rows in functions.cpp)
    Value call(const Call& c, Loc at);
    // c ? a : b for c known only per draw: a Value of a's layout (ints become per-draw ints).
    Value merge_branches(const Expr& c, const Value& a, const Value& b, Loc at);
    // An ODE solver's call (lower_ode.cpp): the function lowered once more, in a model of its
    // own, as the right-hand side.
    Value ode_call(const Call& c, const OdeSolverRow& row, Loc at);
    // What the solvers above share (lower_ode.cpp): a number known before the fit (a time, a
    // tolerance), or an error naming `what`; the arguments args[first, last) a solver passes on
    // to its function f, those read as reals going through the solve as its inputs (`reals`;
    // the ones that depend on parameters are differentiated), known ints passed as they are;
    // and f called in its own model with its own arguments `own`, then those (the reals
    // replaced by f's model's inputs `inner`), the model pointer restored afterwards.
    std::vector<double> known_numbers(const Call& c, const Value& v, Loc at, const char* what);
    // The ints of an int value known before the fit: its ints, or the values of an expression
    // of data only (one per iteration of `level`, t fastest); nothing if it depends on the
    // parameters.
    std::optional<std::vector<int>> known_ints(const Value& v, int level, Loc at);
    struct PassedOn {
        std::vector<Expr> reals;
        std::vector<int> real_at;  // per argument: its place in `reals`, or -1
        std::size_t first = 0, last = 0;
    };
    PassedOn passed_on(const Call& c, const std::vector<Value>& args, std::size_t first,
                       std::size_t last);
    Value call_in_model(Model& own_model, const Call& c, std::vector<Value> own,
                        const std::vector<Value>& args, const PassedOn& p,
                        const std::vector<Expr>& inner, Loc at);
    // algebra_solver, solve_newton, solve_powell and their forms (lower_algebra.cpp).
    Value algebra_call(const Call& c, const AlgebraSolverRow& row, Loc at);
    // integrate_1d and its double-exponential and Gauss-Kronrod forms (lower_integrate.cpp).
    Value integrate_call(const Call& c, const IntegratorRow& row, Loc at);
    // reduce_sum and map_rect as the sum and the stack they compute (lower_call.cpp).
    Value parallel_call(const Call& c, Loc at);
    Value call_log(const Value& v, Loc at);
    Value call_log1m(const Value& v, Loc at);
    static int rank_of_value(const Value& v);
    // log p(y | args) for `y ~ d(args)` (summed) or inside an expression (per iteration).
    // `variate` is y's expression (for messages), if there is one.
    Expr density(const std::string& dist, const Value& y, const std::vector<Value>& args, Loc at,
                 bool per_iteration, const Expression* variate = nullptr);
    // A scalar variate repeated to the size of vector arguments (Stan's vectorised densities).
    Value variate_like_arguments(const std::string& dist, const Value& y,
                                 const std::vector<Value>& args, Loc at);
    // The same for a distribution of the library's table under its own name.
    Expr library_density(const std::string& dist, const Value& y, const std::vector<Value>& args,
                         Loc at, bool per_iteration, const Expression* variate = nullptr);
    // Integer outcomes meet their density: every known outcome y (Stan's values, in the layout
    // of vectorised `level`) lies in the distribution's outcomes (Stan's ranges: categories
    // 1..K, counts 0.., binomial's 0..N), else an error naming the variate and element.
    void check_outcomes(const DistInfo& info, const Value& y, const std::vector<Value>& args,
                        int level, Loc at, const Expression* variate);
    // Storage for the numbers behind an _rng call (refilled per draw).
    // In transformed data, drawn now from the lowering's seed (Stan draws them once per run);
    // in generated quantities, refilled per draw by the report.
    Eigen::VectorXd& random_input(std::int64_t n, bool normal);

    // --- statements (lower.cpp)
    void statement(const Statement& s);

    Model& m() { return *model_; }
    [[nodiscard]] BlockKind block_kind() const { return block_; }
    const Program& program() const { return program_; }
    std::string fresh_name(const std::string& hint);
    Var* find(const std::string& name);

    // A user-defined function called here, inlined: its body lowered with the arguments
    // bound to its parameters (nothing else in scope), until `return`.
    std::optional<Value> call_user_function(const std::string& name, const std::vector<Value>& args,
                                            Loc at);
    // The overload of user function `name` that these arguments call.
    const FunctionDef& overload(const std::string& name, const std::vector<Value>& args,
                                Loc at) const;
    [[nodiscard]] bool has_user_function(const std::string& name) const {
        return functions_.count(name) > 0;
    }
    // Whether a call of `name` with these arguments calls the user's function rather than the
    // library's of the same name (the checker's rule: stan_library.hpp, user_function_wins).
    [[nodiscard]] bool calls_user(const std::string& name, const std::vector<Value>& args) const;
    [[nodiscard]] std::vector<Signature> user_signatures(const std::string& name) const;
    // Stan's `target()`: the log density accumulated so far (refused where that is not one
    // value of the program's model).
    Value target_so_far(Loc at);

    // A loop being lowered as a linear recurrence: reads of `name` at the previous
    // iteration's element are the placeholder, reads at this iteration's element the old values.
    struct Scan {
        std::string name;
        Expr placeholder;  // vec[trip]
    };
    std::optional<Scan> scan_;
    // Loops longer than this that the vectoriser cannot lift run as a loop op (lower.hpp).
    int unroll_limit_ = kDefaultUnrollLimit;
    // Data missing from the data are made up (lower_with_placeholder_data).
    bool placeholder_data_ = false;
    // The program over a batch of rows (lower.hpp: RowBatch), and how deep the evaluation is
    // inside a size (known_int, size arguments), where the size variable means the batch.
    std::optional<RowBatch> rows_;
    int size_context_ = 0;
    struct InSize {  // a scope inside a size
        explicit InSize(int& depth) : depth_(depth) { ++depth_; }
        ~InSize() { --depth_; }
        InSize(const InSize&) = delete;
        InSize& operator=(const InSize&) = delete;
        int& depth_;
    };
    // The size variable read where it sizes something (the batch's rows), or a row variable
    // read: refused outside the blocks where a value per row can live (lower.hpp: RowBatch).
    Value batch_rows_read(Loc at);
    void check_row_variable_read(const std::string& name, Loc at) const;
    // A row variable indexed by a position written into the program or the data (`y[1]`,
    // `y[N]`, `y[N - 1]`, `y[i]` with i data: literals, the size variable and data only)
    // reads a row of whichever batch was drawn, not that row: refused.
    void check_row_position(const std::string& name, const std::vector<Index>& indices);
    // `target += e` with e's scalar addends as terms of their own (RowBatch).
    void target_plus_addends(const Expression& e, Loc at);
    // The sides of conditions known only per draw being lowered (if_per_draw): 1 where the side
    // is taken, else 0. An index known only per draw that is out of range on a side not taken
    // must not make the gradient NaN (0 times a NaN derivative): inside such sides a read or
    // write out of range is NaN only where the side is taken (runtime_index_guard).
    std::vector<Expr> taken_;
    // 1 where the enclosing sides are all taken and `rt` is out of range, else 0; empty outside
    // conditions known only per draw.
    Expr runtime_index_guard(const Expr& positions, const RuntimeIndex& rt, int size);

    // Current vectorised levels (empty outside vectorised loops).
    std::vector<Level> levels_;
    Region* region_ = nullptr;

private:
    void data_block();
    void transformed_data_block();
    void parameters_block();
    // Runs a block's statements and returns the variables it declares, each checked to be
    // assigned (`what` names one in the message: "generated quantity `x` is never assigned").
    // (A tuple's elements are reported each under CmdStan's name: `reported`.)
    std::vector<std::pair<std::string, Value>> declaring_block(const ProgramBlock& b,
                                                               std::string_view what);
    // The values to report for variable `name` holding v, under CmdStan's names: a tuple's
    // elements (`x:1`, `x:2:1`), an array of tuples tuple by tuple (`x.1:1, x.1:2, x.2:1`).
    void reported(const std::string& name, const Value& v, Loc at,
                  std::vector<std::pair<std::string, Value>>& out);
    void transformed_parameters_block();
    // The declared constraints of a block's variables (lower_constraints.cpp), checked by the
    // model: in the log density (transformed parameters) or on each output draw (generated
    // quantities); `what` names a variable's kind in messages.
    void declared_constraints(const ProgramBlock& b, std::string_view what, bool in_log_density);
    // One variable's (a tuple: each element's, by its variable `x:1`).
    void declared_constraint_of(const SizedType& type, const std::string& name, Loc name_loc,
                                std::string_view what, bool in_log_density);
    void model_block();
    void generated_quantities_block();
    void declare(Loc at, const std::string& name, Var v);
    // Declares `name` with v's value; a tuple value becomes an alias of element variables.
    void declare_value(Loc at, const std::string& name, Var v);
    Value declared_shape(const SizedType& t,
                         const std::string& name);  // base, dims, sizes; no value
    // The declared type of a tuple's k-th element variable: its part, with the tuple array's
    // dims in front.
    static SizedType element_type(const SizedType& tuple, std::size_t k);
    // Values known while lowering (data, transformed data) against their declared bounds and
    // structured constraints: a DataError naming `what` (`data variable`), the variable and the
    // element. `finite`: NaN and infinities are errors too (data).
    void check_known_values(const SizedType& type, const std::string& name, const Value& shape,
                            const std::vector<double>& x, const std::string& where,
                            std::string_view what, bool finite);
    // Transformed data's declared constraints, checked at the end of the block as Stan does.
    void transformed_data_constraints(const SizedType& type, const std::string& name, Loc name_loc);
    // A value for a data variable missing from the data, when placeholder_data_: 2 for ints
    // (a size runs its loops more than once), 0.5 for reals, moved inside scalar bounds; the
    // structured types' simplest member (uniform simplex, identity matrices, 1..K).
    DataValue placeholder_value(const SizedType& type, const std::string& name, const Value& shape);
    // The data or parameters block: each declaration a read-only variable whose value
    // `value_of` makes (data_variable, parameter_variable).
    void read_only_block(const ProgramBlock& b, BlockKind kind,
                         Value (Lowerer::*value_of)(const SizedType&, const std::string&, Loc));
    // One data variable's value, read and checked (a tuple: each element, named `x:1` and read
    // from the data's `x.1`, CmdStan JSON's path).
    Value data_variable(const SizedType& t, const std::string& name, Loc name_loc);
    // A complex data variable (its parts' type `part`), read as CmdStan JSON writes it.
    Value complex_data(const SizedType& t, BaseType part, const std::string& name, Loc name_loc);
    // Reals of v's dims and sizes as a data slot `name` in v's layout.
    Expr real_data(const Value& v, const std::string& name, const std::vector<double>& values);
    // One parameter, a latent of the model (a tuple: each element, named `x:1`).
    Value parameter_variable(const SizedType& t, const std::string& name, Loc name_loc);
    // A transformed parameter's or generated quantity's output (complex: both parts).
    ReportedValue report_of(const std::string& name, const Value& v, Loc at);
    // `(a, b.1) = e;`
    void unpack(const Expression& lhs, const Value& rhs, Loc at);
    // name[indices] = rhs, the right side evaluated (a tuple alias: element by element).
    void store_at(const std::string& name, const std::vector<Index>& indices, Value rhs, Loc at,
                  Loc rhs_loc, const Expression* lhs = nullptr);
    void store_whole(const std::string& name, const Value& rhs, Loc at, Loc rhs_loc) {
        store_at(name, {}, rhs, at, rhs_loc);
    }
    // The (element or alias) variable an lvalue writes and the indices on it: `x[i].2[j]` is
    // variable `x:2` at [i, j] (a tuple array's elements carry its dims first).
    struct Place {
        std::string root;                              // the variable written: `x`
        std::string name;                              // the variable holding the place: `x:2`
        std::vector<const std::vector<Index>*> chain;  // the brackets, the last first
        bool element = false;                          // went through `.k`
        Loc loc;                                       // the variable
        // x[i][j] = ... is x[i, j] = ...: the checker allows a multi-index only in the last
        // brackets, where it means the same in one group.
        [[nodiscard]] std::vector<Index> indices() const;
    };
    Place place_of(const Expression& lhs) const;
    // The value of variable `name` (an alias: its elements, gathered).
    Value read_variable(const std::string& name, Loc at);
    // The element variables of every tuple variable `name` names, with their outputs' names.
    void element_leaves(const std::string& name, std::vector<std::string>& out);
    void local_declaration(const VarDecl& d, Loc at);
    void assign(const Assign& a, Loc at);
    void assign_indexed(const std::string& name, Var& var, const std::vector<Index>& indices,
                        const Value& value, Loc at, const Expression* lhs = nullptr);
    void assign_at_runtime_index(const std::string& name, Var& var, const RuntimeIndex& rt,
                                 const Value& value, Loc at);
    void tilde(const Tilde& t, Loc at);
    // `T[L, U]` of `y ~ D(args)`: the normalising term (truncation.hpp), one per element, and
    // y checked to lie in [L, U].
    void truncate(const Tilde& t, const Value& y, const std::vector<Value>& args, Loc at);
    void truncation_terms(const Tilde& t, const Value& y, const std::vector<Value>& args, bool ints,
                          Loc at);
    void target_plus(const Expression& e, Loc at);
    // `jacobian += e`: a log-Jacobian term of the model (Model::jacobian_add)
    void jacobian_plus(const Expression& e, Loc at);

public:
    // A log-Jacobian term (`jacobian +=`, the library's `_jacobian` functions): transformed
    // parameters only, not inside a condition on the parameters; `term` a scalar of vectorised
    // `level`, counted once per inner iteration as add_target does.
    void add_jacobian(Expr term, int level, Loc at);

private:
    // print, reject, fatal_error with values known before the fit.
    void print(const Print& p, Loc at);
    // target += term, where term sums the iterations of vectorised `level` (of fewer levels than
    // the loops around it: then it counts once per inner iteration).
    void add_target(Expr term, int level);
    void for_loop(const For& f, Loc at);
    void for_each(const ForEach& f, Loc at);
    void if_statement(const If& s, Loc at);
    // The branches of `s` from `from` on (the rest of an else-if chain).
    void if_chain(const If& s, std::size_t from);
    // `if` on a value known only per draw (a parameter's): both sides lowered in turn, each
    // from the same variables, and every variable either assigns merged by select (lower.cpp).
    void if_per_draw(const If& s, std::size_t branch, const Expr& condition, Loc at);
    void while_loop(const While& w, Loc at);
    // A loop: `for (variable in lower:upper)`, or a foreach over a container's elements.
    struct LoopSpec {
        std::string variable;
        Loc variable_loc;
        const Statement* body;
        const Value* container;  // foreach only
    };
    void run_loop(const LoopSpec& loop, int lower, int upper, Loc at);
    void bind_loop_variable(const LoopSpec& loop, const Value& index_value, Loc at);
    void vectorised(const LoopSpec& loop, int lower, int upper, Loc at);
    void unrolled(const LoopSpec& loop, int lower, int upper, Loc at);
    // `x[t] = f(x[t-1], t)` (or `op=`) with f affine in x[t-1]: one linear_scan op.
    bool try_scan(const LoopSpec& loop, int lower, int upper, Loc at);
    // A loop the vectoriser cannot lift, as one loop op (lower_loop.cpp): the body lowered once
    // in a model of its own, the loop variable an int known only per draw, the variables the
    // body assigns (and a running total of its target terms) the op's state.
    void loop_op(const LoopSpec& loop, int lower, int upper, Loc at, const NotVectorisable& why);
    void effect(std::function<void()> f);
    void push_scope() { scopes_.emplace_back(); }
    void pop_scope() { scopes_.pop_back(); }

    const Program& program_;
    const DataTable& data_;
    LoweredProgram& out_;
    // The model being built: the program's, or an ODE right-hand side's while its function is
    // lowered (lower_ode.cpp).
    Model* model_;
    std::vector<std::map<std::string, Var>> scopes_;
    BlockKind block_ = BlockKind::Data;
    int names_ = 0;
    int loop_depth_ = 0;  // unrolled loops around the statement being lowered (break, continue)
    std::map<std::string, std::vector<const FunctionDef*>> functions_;  // overloads by name
    std::vector<std::string> call_stack_;
    // The next user call is reduce_sum's on a slice smaller than any enclosing reduce_sum's
    // of the same function: recursion that ends (parallel_call).
    bool shrinking_call_ = false;
    std::vector<std::pair<std::string, int>> reduce_slices_;  // (function, slice size)
    Rng transformed_data_rng_;
    int function_level_ = -1;  // the vectorised level at which the current function was entered
};

// A call of a built-in function being lowered: what a row's lowering (functions.cpp) reads.
struct CallSite {
    Lowerer& lowerer;
    const Call& call;
    std::vector<Value> args;
    Loc at;
    int level = 0;  // the highest vectorised level of the arguments

    [[nodiscard]] const std::string& name() const { return call.name; }
    Model& m() { return lowerer.m(); }
    // "f takes n arguments, got k" unless there are n.
    void arity(std::size_t n) const;
    // Argument k as a real graph node.
    Expr real_of(std::size_t k);
    // Argument k, a known int scalar ("f: expected an int" at the argument).
    int int_arg(std::size_t k) const;
    // Argument k is a vector that differs between iterations (a matrix with a row each).
    [[nodiscard]] bool batched_vector(std::size_t k) const;
    [[noreturn]] void fail(const std::string& message) const { lowerer.fail(at, message); }
    // No lowering for these arguments: a batched call is not vectorisable (the loop is
    // unrolled), else the function is unknown.
    [[noreturn]] void no_match() const;

    // Results: v's type and layout with real elements; a real; a vector of n; a matrix.
    static Value result_like(const Value& v, Expr e);
    static Value real_scalar(Expr e, int level = 0);
    static Value vec(Expr e, int n, Base b = Base::Vector);
    static Value mat(Expr e);
};

// An `_rng` call being lowered: the result's layout is the broadcast of the arguments, and a
// row builds the draws from uniform (or standard normal) numbers, one per element and
// iteration, that the report refills per draw.
struct RandomDraw {
    Lowerer& lowerer;
    const std::vector<Value>& args;
    Loc at;
    Value like;  // the result's layout
    int level;
    std::int64_t n;  // numbers per draw

    Model& m() { return lowerer.m(); }
    // Argument k in the result's layout.
    Expr arg(std::size_t k) { return lowerer.spread(args[k], like, level, at); }
    Expr uniform() { return input(false); }
    Expr normal() { return input(true); }
    // `count` fresh standard normal (or uniform) numbers per draw, as a vector: for the rows
    // that draw whole values.
    Expr inputs(std::int64_t count, bool normal);
    // A quantile op (Op::GammaQuantile, ...) of a uniform and the distribution's arguments.
    Expr quantile(Op op, std::vector<Expr> in);

private:
    Expr input(bool normal);
};

// A density being lowered: `y ~ d(args)` (summed) or `d_lpdf(y | args)` in an expression (per
// iteration).
struct DensitySite {
    Lowerer& lowerer;
    std::string name;
    Value y;
    std::vector<Value> args;
    Loc at;
    bool per_iteration;
    const Expression* variate = nullptr;  // y's expression, for messages
};
// The lowering of a density in the library's table (lib/advi/dist/distribution_table.cpp)
// under its Stan name.
Expr library_density(DensitySite& s);

}  // namespace advi::stan
