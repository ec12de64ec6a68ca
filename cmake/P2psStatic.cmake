# SPDX-License-Identifier: MIT
# P2PS_STATIC: the tools carry their libraries in the binary — the static archives of
# libpci, json-c and zlib instead of the shared ones — so that one binary runs on any
# Linux with glibc 2.34 or later (the portable release tarballs, scripts/release.sh).
#
# glibc itself stays shared, on purpose: the tools open the NVIDIA driver's NVML
# (libnvidia-ml.so.1) with dlopen, and a library loaded that way needs the host's own
# dynamic loader and C library in the process. A fully static glibc binary can dlopen only
# where the host's glibc is the exact version it was linked with; musl cannot load a glibc
# library at all. So the binaries need libc.so.6 and the loader, nothing else
# (scripts/test.d/72-release.sh checks it).
#
# Debian ships libjson-c.a and libz.a but no libpci.a (its libpci is built with udev and
# kmod): scripts/release.sh builds libpci from Debian's pciutils source without them and
# points PKG_CONFIG_PATH at it.

# Names of the C library's parts: linked shared, as -l, whatever a .pc file says.
set(P2PS_LIBC_PARTS c m dl pthread rt resolv util)
set(P2PS_STATIC_ARCHIVES "" CACHE INTERNAL "archives linked into the tools")

# p2ps_static_pkg(PREFIX): the imported target PkgConfig::PREFIX of
# pkg_check_modules(PREFIX ... IMPORTED_TARGET) links the static archives its module's
# `pkg-config --static --libs` line names (the module's own library and its private
# ones), found in the module's library folders and then the compiler's.
function(p2ps_static_pkg prefix)
  set(libs "")
  foreach(lib ${${prefix}_STATIC_LIBRARIES})
    if(lib IN_LIST P2PS_LIBC_PARTS)
      list(APPEND libs ${lib})
      continue()
    endif()
    find_library(P2PS_STATIC_LIB_${lib} NAMES lib${lib}.a HINTS ${${prefix}_STATIC_LIBRARY_DIRS})
    if(NOT P2PS_STATIC_LIB_${lib})
      message(FATAL_ERROR "P2PS_STATIC: no lib${lib}.a for ${prefix} (pkg-config --static "
        "names it); libpci's comes from scripts/release.sh, the others from the -dev "
        "packages (scripts/deps.d/release-static.txt)")
    endif()
    list(APPEND libs ${P2PS_STATIC_LIB_${lib}})
    get_filename_component(name ${P2PS_STATIC_LIB_${lib}} NAME)
    set(archives ${P2PS_STATIC_ARCHIVES})
    list(APPEND archives ${name})
    list(REMOVE_DUPLICATES archives)
    set(P2PS_STATIC_ARCHIVES "${archives}" CACHE INTERNAL "archives linked into the tools")
  endforeach()
  set_property(TARGET PkgConfig::${prefix} PROPERTY INTERFACE_LINK_LIBRARIES "${libs}")
endfunction()

# The linkage --version names (src/common/version.h).
function(p2ps_static_linkage out)
  string(REPLACE ";" ", " names "${P2PS_STATIC_ARCHIVES}")
  set(${out} "static (${names} linked in; glibc shared)" PARENT_SCOPE)
endfunction()
