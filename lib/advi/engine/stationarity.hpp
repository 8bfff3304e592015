// Statistics of an iterate trace (issue 19, after Dhaka et al. 2020): split-R-hat to tell a
// stationary trace from a drifting one, the effective sample size and the Monte Carlo
// standard error of its mean, and a constant-memory window of iterates in batches.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

namespace advi {

// Split-R-hat (BDA3 11.4) of one trace cut into `splits` consecutive segments of equal length
// (the first N mod splits values are left out): sqrt(var+ / W), with W the mean segment
// variance, B/n the variance of the segment means and var+ = (n-1)/n W + B/n. Near 1 when the
// trace is stationary and each segment is many autocorrelation times long; above 1 when the
// trace drifts. 1 for a constant trace; NaN with fewer than 2 values per segment.
[[nodiscard]] double split_rhat(std::span<const double> trace, int splits = 2);

// The effective sample size of a single trace's mean, by Geyer's initial positive sequence
// (sums of adjacent autocorrelation pairs while positive), as Stan's single-chain ESS. N for
// a constant trace; NaN with fewer than 4 values.
[[nodiscard]] double effective_sample_size(std::span<const double> trace);

// sd(trace) / sqrt(ESS): the Monte Carlo standard error of the trace's mean.
[[nodiscard]] double mcse_mean(std::span<const double> trace);

// The last iterates of a vector-valued trace (the variational parameters), kept as `batches`
// batches of means and centred sums of squares (Welford, exact for large means), so memory is
// O(batches x size) whatever the window's length. The window's split-R-hat per coordinate is
// split_rhat over the iterates with splits = batches. When the window must grow (the trace is
// not yet stationary at this length), merge() halves the batch count by joining neighbours
// and doubles the batch length: the window keeps its most recent iterates and grows
// geometrically until it spans enough autocorrelation times.
class IterateWindow {
public:
    IterateWindow(int batches, int batch_length);

    void add(const Eigen::VectorXd& x);
    // Forgets every iterate (a new phase: a new step size), keeping the batch length.
    void clear();
    // Joins neighbouring batches (oldest first; an odd one out is dropped) and doubles the
    // length of the batches to come.
    void merge();

    // Whether `batches` full batches are held.
    [[nodiscard]] bool full() const { return static_cast<int>(done_.size()) == batches_; }
    // Whether the last add() completed a batch.
    [[nodiscard]] bool just_completed() const { return current_.n == 0 && !done_.empty(); }
    // The number of iterates in the full batches.
    [[nodiscard]] long length() const;
    [[nodiscard]] int batch_length() const { return batch_length_; }
    // Per coordinate, split-R-hat over the full batches; a coordinate whose batch means differ
    // by less than `floor` (absolute, per coordinate) counts as constant (R-hat 1): a trace
    // that has converged to a point has no noise to compare its drift with.
    [[nodiscard]] Eigen::VectorXd rhat(const Eigen::VectorXd& floor) const;
    // The mean of the iterates in the full batches.
    [[nodiscard]] Eigen::VectorXd average() const;

private:
    struct Batch {
        long n = 0;
        Eigen::VectorXd mean;
        Eigen::VectorXd m2;  // sum of squared deviations from the mean
        void add(const Eigen::VectorXd& x);
        void join(const Batch& other);  // Chan et al.'s pairwise update
    };
    int batches_;
    int batch_length_;
    std::vector<Batch> done_;  // oldest first
    Batch current_;
};

}  // namespace advi
