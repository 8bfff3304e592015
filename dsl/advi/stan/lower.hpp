// Lowering a parsed Stan program with its data onto the Model builder: the same graph the C++
// DSL builds. Data declarations are checked against the data (missing variable, int or real,
// shape, declared constraint), parameters become latents with their constraints as supports,
// `~` and `target +=` become terms, and loops whose body is elementwise in the loop index
// become vectorised operations (the graph does not grow with the trip count).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/cpp/model.hpp>
#include <advi/io/data_table.hpp>
#include <advi/stan/ast.hpp>

namespace advi::stan {

// A value the fit reports besides the parameters: a transformed parameter, as an expression
// of the latents, with its Stan dimensions (for CmdStan's column names).
struct ReportedValue {
    std::string name;
    std::vector<std::int64_t> dims;
    Expr value;  // laid out column-major over dims
    // A complex value: dims[0] = 2 is the part, fastest (stan_column_names).
    bool complex = false;
};

// The model of a Stan program and the data it reads. Not copyable: the model binds data by
// reference into storage owned here.
class LoweredProgram {
public:
    LoweredProgram() : model_(std::make_unique<Model>()) {}
    LoweredProgram(const LoweredProgram&) = delete;
    LoweredProgram& operator=(const LoweredProgram&) = delete;

    [[nodiscard]] Model& model() { return *model_; }
    [[nodiscard]] const Model& model() const { return *model_; }
    // Transformed parameters and generated quantities in declaration order.
    [[nodiscard]] const std::vector<ReportedValue>& transformed_parameters() const {
        return transformed_parameters_;
    }
    [[nodiscard]] const std::vector<ReportedValue>& generated_quantities() const {
        return generated_quantities_;
    }
    // The uniform (or standard normal) numbers behind the _rng calls of generated
    // quantities: data slots of the model, refilled before each draw's evaluation.
    struct RandomInput {
        Eigen::VectorXd* values;
        bool normal;  // standard normal, else uniform on (0, 1)
    };
    [[nodiscard]] const std::vector<RandomInput>& random_inputs() const { return random_inputs_; }
    // Loops the lowering vectorised and unrolled, one line each ("file:line: for (n in 1:N)
    // vectorised over 1000000 iterations"), for `advi graph` and the tests.
    [[nodiscard]] const std::vector<std::string>& loop_report() const { return loop_report_; }
    // What the program's print statements printed, one line each, in the order they ran (values
    // known before the fit: data, transformed data, constants).
    [[nodiscard]] const std::vector<std::string>& printed() const { return printed_; }
    std::vector<std::string>& printed() { return printed_; }

    // Storage with stable addresses for data the model binds.
    const Eigen::VectorXd& keep(Eigen::VectorXd v) { return reals_.emplace_back(std::move(v)); }
    const Eigen::MatrixXd& keep(Eigen::MatrixXd m) { return matrices_.emplace_back(std::move(m)); }
    const Eigen::VectorXi& keep(Eigen::VectorXi v) { return ints_.emplace_back(std::move(v)); }
    std::vector<ReportedValue>& transformed_parameters() { return transformed_parameters_; }
    std::vector<ReportedValue>& generated_quantities() { return generated_quantities_; }
    Eigen::VectorXd& random_input(Eigen::Index n, bool normal) {
        Eigen::VectorXd& v = reals_.emplace_back(Eigen::VectorXd::Constant(n, 0.5));
        random_inputs_.push_back({&v, normal});
        return v;
    }
    std::vector<std::string>& loop_report() { return loop_report_; }
    // Numbers drawn once (transformed data's _rng calls): stored, never refilled.
    Eigen::VectorXd& fixed_input(Eigen::VectorXd values) {
        return reals_.emplace_back(std::move(values));
    }

private:
    std::deque<Eigen::VectorXd> reals_;
    std::deque<Eigen::MatrixXd> matrices_;
    std::deque<Eigen::VectorXi> ints_;
    std::unique_ptr<Model> model_;
    std::vector<ReportedValue> transformed_parameters_;
    std::vector<ReportedValue> generated_quantities_;
    std::vector<RandomInput> random_inputs_;
    std::vector<std::string> loop_report_;
    std::vector<std::string> printed_;
};

// Lowers `program` with `data` (CmdStan JSON, R dump or CSV, read by lib/io). Errors are
// ParseErrors at the construct's file:line:col, or DataErrors naming the data variable.
// `seed` seeds the `_rng` calls of transformed data, drawn once here, as Stan draws them once
// per run (the same seed, the same transformed data).
// Loops the vectoriser cannot lift run as a loop op when longer than `unroll_limit`
// iterations, and are unrolled into the graph when shorter (the unrolled graph has second
// derivatives, the loop op not yet).
inline constexpr int kDefaultUnrollLimit = 1000;

// The program over a batch of its rows (minibatch.hpp): the int `size_variable` of the data
// block (N) counts the rows, and `row_variables` (data declared with N as their first size)
// hold B rows in the data given. N means B where it sizes something (a declaration, a loop
// bound, the size argument of rep_vector and its kind) and keeps its value everywhere else
// (`-N * log(sigma)`). Refused by file:line:col: N sizing a parameter, transformed parameter,
// generated quantity or transformed data variable (a value per row), and a row variable read
// outside the model block. `target += a + b - c` of scalars adds a, b and -c as terms of their
// own, so that only those that read rows are scaled by N / B.
struct RowBatch {
    std::string size_variable;
    int batch_rows = 0;
    std::vector<std::string> row_variables;
    // The option named in refusals: "--minibatch", or "--rows N" for the full data in shards.
    std::string option = "--minibatch";
};

[[nodiscard]] std::unique_ptr<LoweredProgram> lower(const Program& program, const DataTable& data,
                                                    std::uint64_t seed = 0,
                                                    int unroll_limit = kDefaultUnrollLimit,
                                                    const RowBatch* rows = nullptr);
// The program lowered with made-up data (each data variable a value of its declared type and
// constraints: `advi check --lower`), to find what the lowering refuses without the data: the
// graph is not meant for a fit.
[[nodiscard]] std::unique_ptr<LoweredProgram> lower_with_placeholder_data(const Program& program);

}  // namespace advi::stan
