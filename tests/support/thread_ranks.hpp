// P ranks as P threads of one process (tests): the same exchange as MPI's all-gather, so that a
// fit over row shards can be run on 1, 2, 3 ranks without MPI and compared bit for bit.
#pragma once

#include <barrier>
#include <functional>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

#include <advi/ranks/ranks.hpp>

namespace advi::test {

class ThreadRanksGroup {
public:
    explicit ThreadRanksGroup(int size) : size_(size), barrier_(size) {}
    [[nodiscard]] int size() const { return size_; }

    class Rank final : public Ranks {
    public:
        Rank(ThreadRanksGroup& group, int rank) : group_(group), rank_(rank) {}
        [[nodiscard]] int rank() const override { return rank_; }
        [[nodiscard]] int size() const override { return group_.size_; }
        void all_gather(std::span<const double> mine, std::span<const int> counts,
                        std::span<double> all) override {
            if (rank_ == 0)
                group_.shared_.assign(
                    static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0)),
                    0.0);
            group_.barrier_.arrive_and_wait();
            const int at = std::accumulate(counts.begin(), counts.begin() + rank_, 0);
            std::copy(mine.begin(), mine.end(), group_.shared_.begin() + at);
            group_.barrier_.arrive_and_wait();
            std::copy(group_.shared_.begin(), group_.shared_.end(), all.begin());
            group_.barrier_.arrive_and_wait();
        }
        [[noreturn]] void abort(int code) override { std::terminate(); }

    private:
        ThreadRanksGroup& group_;
        int rank_;
    };

    // Runs body(rank) on `size` threads, rank 0 on the caller's.
    void run(const std::function<void(Ranks&)>& body) {
        std::vector<Rank> ranks;
        for (int r = 0; r < size_; ++r) ranks.emplace_back(*this, r);
        std::vector<std::thread> threads;
        for (int r = 1; r < size_; ++r)
            threads.emplace_back([&, r] { body(ranks[static_cast<std::size_t>(r)]); });
        body(ranks[0]);
        for (std::thread& t : threads) t.join();
    }

private:
    int size_;
    std::barrier<> barrier_;
    std::vector<double> shared_;
};

}  // namespace advi::test
