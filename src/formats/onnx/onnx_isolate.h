#pragma once
// Whether the ONNX reader runs libonnx in a child process (onnx_internal.h: RunIsolated).
// On by default; the fuzzer turns it off so that a crash inside libonnx stops the fuzzer
// and is found, rather than becoming an InputError. No ONNX headers here.

namespace memplan::formats {

void SetIsolation(bool isolate);

}  // namespace memplan::formats
