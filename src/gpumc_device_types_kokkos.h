// The device types of LAMMPS's KOKKOS package that the Kokkos engine is compiled for, as its
// styles are: LMPDeviceType, and LMPHostType too where the device is a GPU.
// GPUMC_KOKKOS_DEVICE_TYPES(M) expands M(type) for each.
#pragma once

#include "kokkos_type.h"

#ifdef LMP_KOKKOS_GPU
#define GPUMC_KOKKOS_DEVICE_TYPES(M) M(LMPDeviceType) M(LMPHostType)
#else
#define GPUMC_KOKKOS_DEVICE_TYPES(M) M(LMPDeviceType)
#endif
