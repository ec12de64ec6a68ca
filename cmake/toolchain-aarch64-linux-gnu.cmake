# SPDX-License-Identifier: MIT
# Cross-compiling for 64-bit Arm Linux (Grace: GH200, GB200) with Debian's toolchain:
#
#   apt-get install gcc-aarch64-linux-gnu qemu-user
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install libjson-c-dev:arm64 zlib1g-dev:arm64 libcmocka-dev:arm64 libpci-dev:arm64
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
#
# Libraries and .pc files come from Debian's multiarch folders (/usr/lib/aarch64-linux-gnu);
# scripts/release.sh adds its own static libpci (CMAKE_PREFIX_PATH). The tests and the
# build steps that run a tool (the bash completion) run it under qemu-user, which needs
# no binfmt registration: CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config reads the arm64 .pc files only (there is no aarch64-linux-gnu-pkg-config in
# Debian 12's pkg-config); PKG_CONFIG_PATH and CMAKE_PREFIX_PATH still come first.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")

# qemu-user: the arm64 loader and C library are Debian's multiarch libc6:arm64 when
# installed (/lib/ld-linux-aarch64.so.1), else the cross toolchain's (-L).
find_program(P2PS_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(P2PS_QEMU_AARCH64)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${P2PS_QEMU_AARCH64})
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${P2PS_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
  endif()
endif()
