// An ONNX model (importers/onnx_import.hpp), with symbolic dimensions bound as a study would.
// study.cpp turns every OnnxImportError into bad input (exit 2), so the harness accepts it too.
#include "importers/onnx_import.hpp"
#include "tests/fuzz/fuzz_target.hpp"

HETSIM_FUZZ_TARGET(onnx) {
    namespace imp = hetsim::importers;
    const auto path = hetsim::fuzz::write_input(data, size, ".onnx");
    hetsim::fuzz::expect_clean("onnx", [&] {
        imp::OnnxImportOptions options;
        options.dims = {{"batch", 1}, {"N", 1}, {"seq", 8}, {"sequence", 8}};
        try {
            (void)imp::import_onnx(path.string(), options);
        } catch (const imp::OnnxImportError&) {
        }
    });
}
