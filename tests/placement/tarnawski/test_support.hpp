// Helpers shared by the tarnawski2020 tests (tests/placement/tarnawski/): the shared workload set
// and its Table 1 values, and exhaustive enumeration of small splits.
#pragma once

#include <cctype>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

// The paper's published workloads, checked out next to the repository (../shared); the tests
// that read them are skipped when they are absent.
inline const std::filesystem::path kSharedWorkloads =
    std::filesystem::path(HETSIM_SOURCE_DIR) / ".." / "shared" / "workloads" / "tarnawski2020";

// The workload at kSharedWorkloads / relative, or nullopt after marking the running test
// skipped when the file is absent. GTEST_SKIP only returns from the function it is written in,
// so the test must return on nullopt.
inline std::optional<Workload> shared_workload_or_skip(const std::filesystem::path& relative) {
    const std::filesystem::path path = kSharedWorkloads / relative;
    if (!std::filesystem::exists(path)) {
        [&] { GTEST_SKIP() << "shared workload not found: " << path; }();
        return std::nullopt;
    }
    return read_workload(path);
}

// A test parameterised over shared workload files (rows with a `file` member, under `folder`
// of kSharedWorkloads). SetUp reads the row's workload, or skips the test when it is absent:
// a skip in SetUp also skips the body, so the body can use workload() unconditionally.
template <typename Row>
class SharedWorkloadTest : public ::testing::TestWithParam<Row> {
protected:
    explicit SharedWorkloadTest(const char* folder) : folder_(folder) {}
    void SetUp() override {
        loaded_ = shared_workload_or_skip(std::filesystem::path(folder_) / this->GetParam().file);
    }
    const Workload& workload() const { return *loaded_; }

private:
    const char* folder_;
    std::optional<Workload> loaded_;
};

// One throughput workload of Table 1 and the paper's values for it (time per sample).
struct Table1Row {
    const char* file;    // under kSharedWorkloads / "throughput"
    double dp;           // DP (contiguous)
    std::size_t ideals;  // ideals of the forward part
    double pipedream;    // PipeDream (layer graphs only; < 0: not run in the paper)
    double scotch;       // Scotch
};

inline const std::vector<Table1Row> kTable1 = {
    {"op_bert_l-3_inference.json", 27.92, 1428, -1, 35.94},
    {"op_bert_l-6_inference.json", 29.58, 1923, -1, 49.80},
    {"op_resnet50_inference.json", 124.35, 241, -1, 197.84},
    {"op_bert_l-3_training.json", 65.30, 2774, -1, 416.97},
    {"layer_bert24_inference.json", 17.79, 30, 17.79, 18.03},
    {"layer_bert24_training.json", 41.75, 30, 41.75, 42.01},
    {"layer_resnet50_inference.json", 33.77, 242, 39.38, 34.50},
    {"layer_resnet50_training.json", 78.63, 242, 83.67, 80.10},
};

// gtest prints a test's parameter into its name (and ctest's): the file, not the struct's bytes.
inline void PrintTo(const Table1Row& row, std::ostream* os) {
    *os << '"' << row.file << '"';
}

// A parameterised test's name for a workload file: its stem with every character that is not
// a letter or digit as '_' ("op_bert_l-3_inference.json" -> "op_bert_l_3_inference").
inline std::string workload_test_name(const std::string& file) {
    std::string name = file.substr(0, file.find('.'));
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

// Name generator for INSTANTIATE_TEST_SUITE_P over rows with a `file` member.
struct FileTestName {
    template <typename Info>
    std::string operator()(const Info& info) const {
        return workload_test_name(info.param.file);
    }
};

// The DP's search space (§5.1.1): the device sets can be ordered so that every prefix union is
// an ideal, i.e. the graph of devices (an edge d(u) -> d(v) for every cut edge) is acyclic.
// This implies Definition 3.1 for every device; it is stronger than Definition 3.1 for each
// device alone (two contiguous sets can feed each other), and it is what pipelining needs.
// For training graphs only the forward part is ordered (§5.3: forward and backward parts are
// contiguous separately; the DP orders the forward part and carries the backward nodes along).
inline bool devices_acyclic(const Workload& w, const std::vector<int>& dev, int devices) {
    std::vector<unsigned> succ(devices, 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        if (w.is_backward[w.edge_source[e]] || w.is_backward[w.edge_dest[e]])
            continue;
        const int a = dev[w.edge_source[e]], b = dev[w.edge_dest[e]];
        if (a != b)
            succ[a] |= 1u << b;
    }
    unsigned left = (1u << devices) - 1;
    for (bool progress = true; progress && left;) {
        progress = false;
        for (int d = 0; d < devices; ++d)
            if ((left >> d & 1) && !(succ[d] & left)) {  // a sink among the remaining
                left &= ~(1u << d);
                progress = true;
            }
    }
    return left == 0;
}

// Calls f(device_of_node) for every assignment of n nodes to `devices` devices (devices^n of
// them, node 0 changing fastest).
template <typename F>
void for_each_assignment(int n, int devices, F&& f) {
    std::vector<int> dev(n, 0);
    for (;;) {
        f(dev);
        int i = 0;
        while (i < n && ++dev[i] == devices)
            dev[i++] = 0;
        if (i == n)
            return;
    }
}

}  // namespace hetsim::placement::tarnawski
