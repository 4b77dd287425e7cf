#pragma once
// Cheap deterministic hashing and byte streams for the verification kernels: fast
// enough to read and write every byte of every tensor of large models, strong enough
// that a clobbered byte changes everything downstream.
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace memplan::runtime {

// splitmix64's finalizer: a good 64-bit mixer.
inline std::uint64_t Mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// FNV-1a of a string (deterministic across runs, unlike std::hash).
inline std::uint64_t HashText(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Folds `bytes` into `h`: four independent lanes over 32-byte blocks, then the rest.
inline std::uint64_t Absorb(std::uint64_t h, std::span<const std::byte> bytes) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  std::uint64_t lane[4] = {h ^ 1, h ^ 2, h ^ 3, h ^ 4};
  const std::byte* p = bytes.data();
  std::size_t n = bytes.size();
  while (n >= 32) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * kMul;
      lane[k] ^= lane[k] >> 29;
    }
    p += 32;
    n -= 32;
  }
  std::uint64_t tail = bytes.size();
  for (std::size_t i = 0; i < n; ++i) tail = (tail ^ static_cast<std::uint64_t>(p[i])) * kMul;
  return Mix64(lane[0] ^ Mix64(lane[1] ^ Mix64(lane[2] ^ Mix64(lane[3] ^ Mix64(tail)))));
}

// Writes a pseudo-random stream determined by `seed` over `out`.
inline void FillStream(std::span<std::byte> out, std::uint64_t seed) {
  std::uint64_t state = seed;
  std::byte* p = out.data();
  std::size_t n = out.size();
  while (n >= 8) {
    state += 0x9e3779b97f4a7c15ULL;
    const std::uint64_t w = Mix64(state);
    std::memcpy(p, &w, 8);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    const std::uint64_t w = Mix64(state + 0x9e3779b97f4a7c15ULL);
    std::memcpy(p, &w, n);
  }
}

}  // namespace memplan::runtime
