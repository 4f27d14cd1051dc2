# Build LAMMPS from a staged view of its tree instead of editing it in place: every entry of the
# original tree is a symbolic link, and the GPUMC files are linked in exactly where
# `make yes-user-gpumc` (USER-GPUMC/Install.sh) copies them: the style files and the shared
# physics (src/gpumc_*) into src/, the /kk styles into src/KOKKOS/. LAMMPS's own CMake then
# compiles and registers them like any of its own.

# The KOKKOS package's optional style files (pair_*, fix_*, compute_*, ... *_kokkos.cpp/.h) its
# core needs; with a list of style stems (GPUMC_KOKKOS_STYLES) only these and those are staged, a
# shorter build for development on a GPU machine.
set(GPUMC_KOKKOS_CORE_STYLES fix_nh fix_property_atom fix_minimize min_linesearch npair_halffull)

# Link every entry of `from` into `to` that is not there yet; with a third argument (a list of
# KOKKOS style stems), optional KOKKOS style files only of those stems.
function(gpumc_link_entries from to)
  set(keep ${ARGN})
  file(GLOB entries LIST_DIRECTORIES true RELATIVE ${from} ${from}/*)
  foreach(e ${entries})
    if(keep AND e MATCHES "^((pair|fix|compute|bond|angle|dihedral|improper|region|atom_vec|npair|min)_.+)_kokkos\\.(cpp|h)$")
      list(FIND keep ${CMAKE_MATCH_1} found)
      if(found LESS 0)
        continue()
      endif()
    endif()
    if(NOT EXISTS ${to}/${e})
      file(CREATE_LINK ${from}/${e} ${to}/${e} SYMBOLIC)
    endif()
  endforeach()
endfunction()

function(gpumc_stage_lammps tree gpumc_root with_kokkos out)
  set(stage ${CMAKE_BINARY_DIR}/lammps-staged)
  file(REMOVE_RECURSE ${stage})
  file(MAKE_DIRECTORY ${stage}/src)
  if(with_kokkos)
    file(MAKE_DIRECTORY ${stage}/src/KOKKOS)
  endif()
  file(GLOB package_files ${gpumc_root}/USER-GPUMC/*.cpp ${gpumc_root}/USER-GPUMC/*.h
                          ${gpumc_root}/src/gpumc_*.cpp ${gpumc_root}/src/gpumc_*.h)
  foreach(f ${package_files})
    get_filename_component(name ${f} NAME)
    if(name MATCHES "_kokkos\\.(cpp|h)$")
      if(with_kokkos)
        file(CREATE_LINK ${f} ${stage}/src/KOKKOS/${name} SYMBOLIC)
      endif()
    else()
      file(CREATE_LINK ${f} ${stage}/src/${name} SYMBOLIC)
    endif()
  endforeach()
  if(with_kokkos)
    set(keep "")
    if(GPUMC_KOKKOS_STYLES)
      foreach(stem ${GPUMC_KOKKOS_STYLES})
        if(NOT EXISTS ${tree}/src/KOKKOS/${stem}_kokkos.cpp)
          message(FATAL_ERROR "GPUMC_KOKKOS_STYLES: the KOKKOS package has no style ${stem} (no ${stem}_kokkos.cpp)")
        endif()
      endforeach()
      set(keep ${GPUMC_KOKKOS_STYLES} ${GPUMC_KOKKOS_CORE_STYLES})
    endif()
    gpumc_link_entries(${tree}/src/KOKKOS ${stage}/src/KOKKOS ${keep})
  endif()
  gpumc_link_entries(${tree}/src ${stage}/src)
  gpumc_link_entries(${tree} ${stage})
  set(${out} ${stage} PARENT_SCOPE)
endfunction()
