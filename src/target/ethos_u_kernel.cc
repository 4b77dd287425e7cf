// TFLM's ethos_u kernel (kernels/ethos_u/ethosu.cc), the one firmware for a Cortex-M with an
// Arm Ethos-U NPU registers for Vela's `ethos-u` custom op (built with CO_PROCESSOR=ethos_u,
// MicroMutableOpResolver::AddEthosU): docs/tflm-facts.md, "Ethos-U".
#include "memplan/vela.h"
#include "src/target/kernel_view.h"
#include "src/target/tflm_structs.h"

namespace memplan::target {

namespace {

// Init: OpData (the command stream's size and two scratch buffer indices). Prepare: two
// scratch buffers for the NPU's base addresses (uint64_t) and their sizes (size_t), one per
// input and output, and a view of the command stream (input 0) for its size. It refuses an
// op without custom options (Vela writes a flexbuffer there).
void EthosU(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 3).Done().size);
  const Bytes addresses = v.Inputs() + v.Outputs();
  m.scratch.push_back(addresses * 8);
  m.scratch.push_back(addresses * abi.pointer);
  AddTemps(m, {v.In(0)});
  if (v.Inputs() == 0)
    m.unsupported = "ethos-u op without inputs (TFLM's kernel needs its command stream)";
  else if (v.Param(0).value_or(0) == 0)
    m.unsupported = "ethos-u op without custom options (TFLM's kernel needs Vela's)";
}

}  // namespace

DescribeFn EthosUKernel(const TargetAbi& abi, std::string_view type) {
  if (type != kEthosUOp || !abi.name.starts_with("cortex-m")) return nullptr;
  return &EthosU;
}

}  // namespace memplan::target
