#pragma once
// The end-to-end proof that a plan is safe: kernels for every op of every model that
// read every byte of their inputs and write every byte of their outputs and scratch
// buffers as a deterministic function of what they read. Run a model in the planned
// arena and in a naive layout (every tensor its own space): bit-identical outputs mean
// no tensor was overwritten while it was still needed.

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/kernel.h"
#include "memplan/runtime.h"

namespace memplan {

// The verification kernel set: a generic kernel for any op type, plus kernels that make
// the scratch requests of TFLM's reference kernels (SVDF: batch*num_filters*4 and, for
// quantized inputs, batch*num_units*4; UNIDIRECTIONAL_SEQUENCE_LSTM: four buffers the
// size of the cell state; MEAN/SUM on int8/int16: output elements*4; REDUCE_MAX/MIN:
// 4*input rank and 4*axis elements) and that run the subgraphs of IF, WHILE and
// CALL_ONCE. Every op also rewrites the variable tensors it reads (state: read, modify,
// write), so state carries over from one invocation to the next. The op types of the
// built-in in-place rule sets compute as kernels on shared memory do, in every layout:
// reshape-like ops copy input 0 unchanged, element-wise ops write each 8-byte word of
// output 0 from that word of every input right after reading it; so an Interpreter
// with InterpreterOptions::inplace gives the naive layout's outputs, and a share no real
// kernel could honour (an op outside the rules, an input still read later) does not.
const KernelRegistry& VerificationKernels();

// The same requests, but eval touches no tensor byte: times the runtime alone.
const KernelRegistry& NullKernels();

// Fills the tensors the application provides (Interpreter::ExternalTensors) with bytes
// that depend on the tensor and on `invocation`.
void FillExternalTensors(Interpreter& interpreter, std::uint64_t invocation);

// What one invocation left: subgraph 0's outputs, then every variable's state.
struct InvocationResult {
  std::vector<std::vector<std::byte>> outputs;    // in subgraph 0's output order
  std::vector<std::vector<std::byte>> variables;  // in Interpreter::VariableTensors order
};

// Fills the external tensors and invokes, `invokes` times; the results in order.
std::vector<InvocationResult> RunInvocations(Interpreter& interpreter, std::size_t invokes);

// The first difference between two runs in words ("invocation 2, output 0 'y': byte 17
// differs"), or an empty string when they are identical.
std::string FirstDifference(const Graph& graph, const std::vector<InvocationResult>& expected,
                            const std::vector<InvocationResult>& actual);

// The runs of `graph` in a naive layout (strategy naive, no offline plan, no
// preallocation, on the host heap) with `kernels`.
std::vector<InvocationResult> RunNaive(const Graph& graph, const KernelRegistry& kernels,
                                       std::size_t invokes);

}  // namespace memplan
