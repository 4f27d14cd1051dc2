# Build LAMMPS from a staged view of its tree instead of editing it in place: every entry of the
# original tree is a symbolic link, and the GPUMC files are linked in exactly where
# `make yes-user-gpumc` (USER-GPUMC/Install.sh) copies them: the style files and the shared
# physics (src/gpumc_*) into src/, the /kk styles into src/KOKKOS/. LAMMPS's own CMake then
# compiles and registers them like any of its own.

function(gpumc_link_entries from to)
  file(GLOB entries LIST_DIRECTORIES true RELATIVE ${from} ${from}/*)
  foreach(e ${entries})
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
    gpumc_link_entries(${tree}/src/KOKKOS ${stage}/src/KOKKOS)
  endif()
  gpumc_link_entries(${tree}/src ${stage}/src)
  gpumc_link_entries(${tree} ${stage})
  set(${out} ${stage} PARENT_SCOPE)
endfunction()
