// 128-bit integers for exact intermediate arithmetic (products of two int64 quantities).
// `__extension__` keeps -Wpedantic quiet about the GCC/Clang builtin type.
#pragma once

namespace quotient {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

}  // namespace quotient
