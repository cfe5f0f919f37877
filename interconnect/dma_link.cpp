#include "interconnect/dma_link.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/yaml_params.hpp"

namespace hetsim::interconnect {

DmaLinkModel::DmaLinkModel(DmaLinkParams params) : params_(std::move(params)) {
    for (const LinkDirection* d : {&params_.forward, &params_.backward}) {
        if (!(d->bandwidth_Bps > 0.0) || d->latency_s < 0.0) {
            throw std::invalid_argument(
                fmt::format("{} link: bandwidth must be > 0 and latency >= 0", params_.type));
        }
    }
}

// Two distinct component names; whether they exist is checked by sim::parse_platform once
// every component is known.
std::pair<std::string, std::string> parse_endpoints(const sim::ConfigNode& node) {
    const sim::ConfigNode ends = node.at("endpoints");
    if (!ends.is_sequence() || ends.size() != 2) {
        ends.fail("expected a list of two component names, e.g. [cpu, pim]");
    }
    std::string a = ends.at(std::size_t{0}).as_string();
    std::string b = ends.at(std::size_t{1}).as_string();
    if (a == b)
        ends.fail(fmt::format("a link needs two different endpoints, got '{}' twice", a));
    return {std::move(a), std::move(b)};
}

sim::Arbitration parse_arbitration(const sim::ConfigNode& node) {
    const std::string value = node.get_string("arbitration", "shared");
    if (value == "shared")
        return sim::Arbitration::shared;
    if (value == "fifo")
        return sim::Arbitration::fifo;
    if (value == "none")
        return sim::Arbitration::none;
    node["arbitration"].fail(fmt::format(
        "expected 'shared' (processor sharing of the bandwidth), 'fifo' (one transfer at "
        "a time) or 'none' (no contention: each transfer at the full bandwidth), got '{}'",
        value));
}

namespace {

// `{bandwidth: .., latency: ..}` (a pcie link's also `host_staging_bandwidth`); with
// `fallback`, every key is an optional override.
LinkDirection parse_direction(const sim::ConfigNode& node, const LinkDirection* fallback,
                              bool pcie = false) {
    node.expect_map();
    if (pcie)
        node.expect_keys({"bandwidth", "latency", "host_staging_bandwidth"});
    else
        node.expect_keys({"bandwidth", "latency"});
    LinkDirection d;
    if (node.has("host_staging_bandwidth")) {
        d.host_staging_bandwidth_Bps =
            node.require_positive_quantity("host_staging_bandwidth", sim::Quantity::bandwidth);
    } else if (fallback != nullptr) {
        d.host_staging_bandwidth_Bps = fallback->host_staging_bandwidth_Bps;
    }
    if (fallback == nullptr || node.has("bandwidth")) {
        d.bandwidth_Bps = node.require_positive_quantity("bandwidth", sim::Quantity::bandwidth);
    } else {
        d.bandwidth_Bps = fallback->bandwidth_Bps;
    }
    d.latency_s = sim::non_negative_time(node, "latency", fallback ? fallback->latency_s : 0.0);
    return d;
}

std::string parse_convert_on(const sim::ConfigNode& node, const std::string& a,
                             const std::string& b) {
    if (!node.has("convert_on"))
        return {};
    std::string c = node.at("convert_on").as_string();
    if (c != a && c != b) {
        node["convert_on"].fail(
            fmt::format("must be one of the link's endpoints ('{}' or '{}'), got '{}'", a, b, c));
    }
    return c;
}

bool parse_one_way(const sim::ConfigNode& node) {
    return node.has("one_way") && node.at("one_way").as_bool();
}

// One DMA descriptor per transfer: fixed setup/completion latency, then the payload at the
// direction's streaming bandwidth (lee2022 §2.3: "proportional to the data size").
void add_link(const sim::ConfigNode& node, sim::Platform& platform, const std::string& name,
              std::string a, std::string b, DmaLinkParams params, bool one_way) {
    sim::Link link;
    link.name = name;
    link.endpoint_a = std::move(a);
    link.endpoint_b = std::move(b);
    link.model = std::make_shared<DmaLinkModel>(std::move(params));
    link.one_way = one_way;
    link.arbitration = parse_arbitration(node);
    platform.add_link(std::move(link));
}

}  // namespace

void build_dma_link(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(
        {"type", "endpoints", "forward", "backward", "convert_on", "one_way", "arbitration"});
    auto [a, b] = parse_endpoints(node);
    const bool one_way = parse_one_way(node);
    DmaLinkParams params;
    params.type = "dma";
    // Each direction is its own DMA channel with its own rate: lee2022 Fig. 2(b) measures
    // CPU->PIM faster than PIM->CPU because the PIM side is uncacheable.
    params.forward = parse_direction(node.at("forward"), nullptr);
    if (one_way) {
        if (node.has("backward"))
            node["backward"].fail("a one-way link has no backward direction");
        params.backward = params.forward;  // never used: routes do not cross it backwards
    } else {
        params.backward = parse_direction(node.at("backward"), nullptr);
    }
    params.convert_on = parse_convert_on(node, a, b);
    add_link(node, platform, name, std::move(a), std::move(b), std::move(params), one_way);
}

void build_pcie_link(const sim::ConfigNode& node, const std::string& name,
                     sim::Platform& platform) {
    node.expect_map();
    node.expect_keys({"type", "endpoints", "bandwidth", "latency", "forward", "backward",
                      "convert_on", "one_way", "arbitration", "host_staging_bandwidth"});
    auto [a, b] = parse_endpoints(node);
    const bool one_way = parse_one_way(node);
    if (one_way && node.has("backward"))
        node["backward"].fail("a one-way link has no backward direction");
    DmaLinkParams params;
    params.type = "pcie";
    // Full duplex and symmetric by default (PCIe 3.0 x16: 15.75 GB/s theoretical, about
    // 12 GB/s measured with pinned memory, 5-10 us small-transfer latency); a direction
    // may override either value.
    LinkDirection both;
    both.bandwidth_Bps = node.require_positive_quantity("bandwidth", sim::Quantity::bandwidth);
    both.latency_s = sim::non_negative_time(node, "latency", 0.0);
    if (node.has("host_staging_bandwidth"))
        both.host_staging_bandwidth_Bps =
            node.require_positive_quantity("host_staging_bandwidth", sim::Quantity::bandwidth);
    params.forward = node.has("forward") ? parse_direction(node.at("forward"), &both, true) : both;
    params.backward =
        node.has("backward") ? parse_direction(node.at("backward"), &both, true) : both;
    params.convert_on = parse_convert_on(node, a, b);
    add_link(node, platform, name, std::move(a), std::move(b), std::move(params), one_way);
}

}  // namespace hetsim::interconnect
