# tessera_add_kernel: compile one Triton-language kernel ahead of time into a
# C++ launcher with the cubins embedded (tessera compile --emit cpp), at build
# time, and add it to a target. The target then needs no Tessera at run time:
# only the CUDA driver (CUDA::cuda_driver, linked here).
#
#   tessera_add_kernel(<target>
#     FILE <kernel.py> KERNEL <name> SIGNATURE "<Triton AOT signature>"
#     [DEFINES NAME=VALUE ...] [ARCH sm_80,sm_90a] [NUM_WARPS n] [NUM_STAGES n]
#     [NAME <launcher name, default: the kernel's name>])
#
# Writes <build dir>/tessera_kernels/<NAME>.h and .cpp; #include "<NAME>.h"
# and call tessera_aot::<NAME>(stream, grid_x, grid_y, grid_z, args...).
# TESSERA_EXECUTABLE is the tessera command-line tool (set by
# find_package(Tessera), or by the Tessera build itself).
function(tessera_add_kernel target)
  cmake_parse_arguments(K "" "FILE;KERNEL;SIGNATURE;ARCH;NUM_WARPS;NUM_STAGES;NAME" "DEFINES" ${ARGN})
  foreach(required FILE KERNEL SIGNATURE)
    if(NOT K_${required})
      message(FATAL_ERROR "tessera_add_kernel(${target}): ${required} is required")
    endif()
  endforeach()
  if(NOT TESSERA_EXECUTABLE)
    message(FATAL_ERROR "tessera_add_kernel: TESSERA_EXECUTABLE is not set (find_package(Tessera) sets it)")
  endif()
  if(NOT K_NAME)
    set(K_NAME ${K_KERNEL})
  endif()
  if(NOT K_ARCH)
    set(K_ARCH sm_90a)
  endif()
  get_filename_component(file ${K_FILE} ABSOLUTE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/tessera_kernels)
  set(args compile ${file} --kernel ${K_KERNEL} --signature ${K_SIGNATURE} --arch ${K_ARCH} --emit cpp
      -o ${dir}/${K_NAME})
  foreach(define ${K_DEFINES})
    list(APPEND args -D ${define})
  endforeach()
  if(K_NUM_WARPS)
    list(APPEND args --num-warps ${K_NUM_WARPS})
  endif()
  if(K_NUM_STAGES)
    list(APPEND args --num-stages ${K_NUM_STAGES})
  endif()
  add_custom_command(
    OUTPUT ${dir}/${K_NAME}.h ${dir}/${K_NAME}.cpp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${TESSERA_EXECUTABLE} ${args}
    DEPENDS ${file} ${TESSERA_EXECUTABLE}
    COMMENT "Tessera: ${K_KERNEL} (${K_ARCH}) -> ${K_NAME}.h/.cpp"
    VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${K_NAME}.cpp ${dir}/${K_NAME}.h)
  target_include_directories(${target} PRIVATE ${dir})
  if(NOT TARGET CUDA::cuda_driver)
    find_package(CUDAToolkit REQUIRED)
  endif()
  target_link_libraries(${target} PRIVATE CUDA::cuda_driver)
endfunction()
