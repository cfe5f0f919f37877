// Platform description: logical devices (what a placer assigns ops to), the execution
// resources they occupy, memories and the links between them. Pure C++: the SystemC
// modules that simulate a platform are built from this by the DesEvaluator.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.hpp"
#include "sim/device_role.hpp"
#include "sim/graph.hpp"

namespace hetsim::sim {

// Whether a device can run an op, and if not, why (shown to users in errors).
struct Support {
    bool ok = false;
    std::string reason;
    static Support yes() { return {true, {}}; }
    static Support no(std::string why) { return {false, std::move(why)}; }
};

// The cost model of one logical device. No SystemC: both evaluators and every placer
// query the same numbers through this interface. What a placer may rely on ("capabilities")
// is exactly: role() (what the device is), supports() (which ops it runs), op_time_s() and
// compute_dtype() (the dtype its copies of tensors take, hence whether a copy converts);
// where its memory is and what reaches it is the platform's (Device::component, the links).
class DeviceModel {
public:
    virtual ~DeviceModel() = default;
    virtual std::string type() const = 0;  // YAML type that built it: "cpu", "silent_pim"
    // What the device is; placers choose devices by role, never by type() or device name. A
    // platform file may override it per component (`role:`, Device::role_override).
    virtual DeviceRole role() const = 0;
    virtual Support supports(const Graph& graph, const Op& op) const = 0;
    // Duration of one execution of `op` on this device, inputs already in its memory.
    virtual double op_time_s(const Graph& graph, const Op& op) const = 0;
    // The part of op_time_s spent on the device itself, without the host's per-op dispatch:
    // what a device-side timer (CUDA events) measures of one kernel issued ahead of time
    // (`hetsim calibrate`'s `kernel` scope). By default the whole op.
    virtual double kernel_time_s(const Graph& graph, const Op& op) const {
        return op_time_s(graph, op);
    }
    // The same duration split for the DES's shared memory bandwidth: `fixed_s` that no
    // other stream slows (dispatch, fork/join), then `memory_bytes` streamed from the
    // component's memory at up to `memory_rate_Bps`, so that
    // op_time_s = fixed_s + memory_bytes / memory_rate_Bps. The default has no streaming
    // part: the whole op is fixed.
    struct Timing {
        double fixed_s = 0.0;
        double memory_bytes = 0.0;
        double memory_rate_Bps = 0.0;
    };
    virtual Timing op_timing(const Graph& graph, const Op& op) const {
        return Timing{op_time_s(graph, op), 0.0, 0.0};
    }
    // Floating-point element type the device computes and stores activations in.
    virtual DType compute_dtype() const { return DType::f32; }
};

// Time a conversion of `elements` floats between two dtypes takes on a device.
class ConversionModel {
public:
    virtual ~ConversionModel() = default;
    virtual double conversion_time_s(std::int64_t elements, DType from, DType to) const = 0;
};

// The cost model of one link (both directions). Direction `forward` = from the link's
// first endpoint to its second, as written in the platform file. A link is two numbers per
// direction, as in ASTRA-sim's analytical network: a per-transfer latency (descriptor
// set-up, doorbell, completion; never shared) and a streaming bandwidth (shared by the
// transfers on the direction at the same time, docs/DESIGN.md "Contention").
class LinkModel {
public:
    virtual ~LinkModel() = default;
    virtual std::string type() const = 0;  // "dma", "pcie"
    virtual double latency_s(bool forward) const = 0;
    virtual double bandwidth_Bps(bool forward) const = 0;
    // Time a transfer of `bytes` takes when it has the direction to itself:
    // latency + bytes / bandwidth (0 bytes still pay the latency).
    double transfer_time_s(std::int64_t bytes, bool forward) const {
        return latency_s(forward) + static_cast<double>(bytes) / bandwidth_Bps(forward);
    }
    // The rate of a copy whose host buffer is page-locked (pinned). It differs from
    // bandwidth_Bps only on a link whose host buffers are pageable by default (a PCIe link
    // with host_staging_bandwidth: the driver stages those through a pinned buffer first).
    virtual double page_locked_bandwidth_Bps(bool forward) const { return bandwidth_Bps(forward); }
    // Component that performs fp32<->bf16 conversions for transfers over this link
    // (lee2022 §2.3: the CPU converts in both directions); empty = no conversion support.
    virtual std::string converting_component() const { return {}; }
    // The trace process the link's directions are threads of: empty = a process of its own,
    // named after the link; links that form one network (a ring) share one, so a timeline
    // shows the network as one process with a thread per link.
    virtual std::string trace_process() const { return {}; }
};

// An execution resource: what ops queue for. CPU_S and CPU_P of one CPU share one.
struct ExecResource {
    std::string name;  // "cpu", "pim"
    int capacity = 1;  // units (cores); a task takes Device::units of them
};

// What compiles the ops a device runs (issue 25): `tvm` fuses them by TVM's FuseOps rules
// (sim/passes/fuse.hpp), one launch or dispatch per fused group; `none` is a framework
// runtime, one per op.
enum class Compiler { none, tvm };

struct Device {
    std::string name;       // "CPU_S" - what placements name
    std::string component;  // component (memory domain) it belongs to: "cpu"
    int resource = -1;      // index into Platform::resources()
    int units = 1;          // resource units one op occupies
    std::shared_ptr<const DeviceModel> model;
    std::optional<DeviceRole> role_override = std::nullopt;  // the platform file's `role:`
    Compiler compiler = Compiler::none;                      // the platform file's `compiler:`

    DeviceRole role() const { return role_override ? *role_override : model->role(); }
};

// A component is a memory domain: the devices on it read and write its memory, and links
// move data between components.
struct Component {
    std::string name;                                  // YAML key: "cpu", "pim"
    std::string type;                                  // YAML type
    std::int64_t memory_bytes = 0;                     // capacity; 0 = unlimited
    std::shared_ptr<const ConversionModel> converter;  // null if it cannot convert
    // Bandwidth of the memory, shared in the DES by the memory-bound part of the ops of its
    // devices and by the DMA streams reading or writing it; 0 = not a shared resource.
    double memory_bandwidth_Bps = 0.0;
    // Access latency of the memory, paid once by every transfer written into it (applied
    // by the DES's TLM-2.0 target, and added to the transfer's duration by lowering).
    double memory_latency_s = 0.0;
};

// How the transfers on one link direction share it in the DES. `shared`: processor
// sharing, each of n concurrent transfers streams at bandwidth/n, recomputed whenever one
// starts or ends. `fifo`: one transfer at a time, in dispatch order (one DMA queue). `none`:
// contention-free, every transfer at the full bandwidth however many run at once (the
// scheduling literature's ideal network: a classic task-graph instance's edges).
enum class Arbitration { shared, fifo, none };
std::string_view to_string(Arbitration arbitration);

struct Link {
    std::string name;
    std::string endpoint_a, endpoint_b;  // component names; forward = a -> b
    std::shared_ptr<const LinkModel> model;
    bool one_way = false;  // only a -> b exists
    Arbitration arbitration = Arbitration::shared;
};

// One link crossed in one direction.
struct Hop {
    int link = -1;  // index into Platform::links()
    bool forward = true;
};

// How ops are dispatched: `sequential` is ONNX Runtime's sequential executor (one node at
// a time in topological order across all devices, lee2022 §2.1); `dataflow` dispatches an
// op as soon as its inputs have arrived, devices and links running concurrently.
enum class DispatchMode { sequential, dataflow };

class Platform {
public:
    std::string name;
    std::string source_file;
    DispatchMode dispatch = DispatchMode::dataflow;
    std::string host_component;  // where graph inputs start and outputs end

    const std::vector<Device>& devices() const { return devices_; }
    // The execution resources: what ops queue for, and what a list scheduler must treat as
    // its processors (docs/DESIGN.md "Schedules"). Devices on one resource are modes of one
    // processor (CPU_S and CPU_P of a CPU): an op on either occupies it.
    const std::vector<ExecResource>& resources() const { return resources_; }
    // Indices of the devices that run on `resource`, in platform order.
    std::vector<int> devices_on_resource(int resource) const;
    const std::vector<Component>& components() const { return components_; }
    const std::vector<Link>& links() const { return links_; }

    const Device& device(int index) const { return devices_.at(static_cast<std::size_t>(index)); }
    int device_count() const { return static_cast<int>(devices_.size()); }
    std::optional<int> find_device(const std::string& name) const;
    const Component* find_component(const std::string& name) const;
    std::vector<std::string> device_names() const;

    // Components a transfer may pass through on its way (store and forward through their
    // memory): the host of a PCIe tree that stages accelerator-to-accelerator copies
    // (tarnawski2020 §3), the chiplets of a ring. A platform declares them (`relays:`);
    // no component relays by default.
    std::vector<std::string> relays;
    bool relays_all = false;  // `relays: all`
    bool is_relay(const std::string& component) const;

    // The route with the fewest hops from one component's memory to another's: links form a
    // directed graph (a one-way link has only its forward edge), intermediate components
    // must be relays. Ties go to the route whose sequence of (link index, direction) is
    // lexicographically smallest, so routes never depend on hash order. nullptr: no route.
    // An empty route means from == to.
    const std::vector<Hop>* route(const std::string& from_component,
                                  const std::string& to_component) const;
    int component_index(const std::string& name) const;  // -1 when unknown

    // Builders, used by component factories while the platform file is parsed.
    int add_resource(ExecResource resource);
    int add_device(Device device);
    void add_component(Component component);
    void add_link(Link link);
    // Names a placement rule (sim/placement_rules.hpp) the platform's placements must keep;
    // a component that imposes one calls it from its factory. Added once, in order.
    void add_placement_rule(const std::string& rule);
    const std::vector<std::string>& placement_rules() const { return placement_rules_; }

private:
    void compute_routes() const;

    std::vector<Device> devices_;
    std::vector<std::string> placement_rules_;
    std::vector<ExecResource> resources_;
    std::vector<Component> components_;
    std::vector<Link> links_;
    // routes_[from * n + to]; computed on first use after the last change.
    mutable std::vector<std::optional<std::vector<Hop>>> routes_;
    mutable bool routes_valid_ = false;
};

// --- component registry -----------------------------------------------------------------

// Builds the devices/resources/links of one YAML component into the platform.
// `node` is the component's mapping (including `type:`); `name` its key.
using ComponentFactory =
    std::function<void(const ConfigNode& node, const std::string& name, Platform& platform)>;

// A parameter of a component type that `hetsim calibrate --fit` may fit to measurements:
// its YAML key, the quantity its value is written in (nullopt: a plain number) and the bounds
// the fit keeps it in, in SI units (both > 0: the fit works on its logarithm).
struct FreeParameter {
    std::string key;
    std::optional<Quantity> quantity;
    double lower = 0.0;
    double upper = 0.0;
    std::string description;
};

struct ComponentType {
    std::string type;  // YAML `type:`
    std::string kind;  // "device" or "link"
    std::string description;
    ComponentFactory factory;
    std::vector<FreeParameter> free_parameters = {};
    // Descents a fit of these parameters wants (`hetsim calibrate --fit --starts`): more than
    // one where the model's discrete choices (a GPU's tiles, split-K and waves) make the error
    // surface a staircase with local minima that one descent from rough values stops in.
    int suggested_starts = 1;
};

class ComponentRegistry {
public:
    static ComponentRegistry& instance();
    void add(ComponentType type);
    const ComponentType* find(const std::string& type) const;
    std::vector<const ComponentType*> all() const;  // sorted by type

private:
    std::map<std::string, ComponentType> types_;
};

// Parses a platform mapping (file contents or an inline `platform:` mapping):
//   name: zynq_silentpim
//   dispatch: sequential | dataflow
//   host: cpu
//   components: { <name>: { type: <registered type>, ... }, ... }   (links are components too)
// Throws InputError naming the file and YAML path of whatever is wrong.
// Every pair of components must have a route both ways (any op may be placed on any
// device, and graph inputs and outputs live in the host): an InputError names the first
// pair without one. Two links joining the same two components in the same direction are
// an error too (routes would silently use only one of them).
Platform parse_platform(const ConfigNode& node);
Platform load_platform(const std::string& file);

}  // namespace hetsim::sim
