# Locate flexmb's third-party libraries. Debian ships SuiteSparse headers under
# /usr/include/suitesparse without CMake config files, so we search by hand.
include(FindPackageHandleStandardArgs)

find_path(SUITESPARSE_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
foreach(lib umfpack klu btf cholmod amd camd colamd suitesparseconfig cxsparse)
  string(TOUPPER ${lib} LIBU)
  find_library(${LIBU}_LIBRARY ${lib})
endforeach()
find_package_handle_standard_args(SuiteSparse DEFAULT_MSG SUITESPARSE_INCLUDE_DIR
  UMFPACK_LIBRARY CHOLMOD_LIBRARY AMD_LIBRARY SUITESPARSECONFIG_LIBRARY CXSPARSE_LIBRARY
  KLU_LIBRARY BTF_LIBRARY CAMD_LIBRARY)

find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY metis)
find_package_handle_standard_args(METIS DEFAULT_MSG METIS_INCLUDE_DIR METIS_LIBRARY)

find_path(YAML_INCLUDE_DIR yaml.h)
find_library(YAML_LIBRARY yaml)
find_package_handle_standard_args(LibYAML DEFAULT_MSG YAML_INCLUDE_DIR YAML_LIBRARY)

# libcrypto (OpenSSL): SHA-256 checksums of the table files an expression reads
find_path(CRYPTO_INCLUDE_DIR openssl/evp.h)
find_library(CRYPTO_LIBRARY crypto)
find_package_handle_standard_args(LibCrypto DEFAULT_MSG CRYPTO_INCLUDE_DIR CRYPTO_LIBRARY)

find_path(SICONOS_NUMERICS_INCLUDE_DIR LCP_Solvers.h PATH_SUFFIXES siconos/numerics)
find_library(SICONOS_NUMERICS_LIBRARY siconos_numerics)
find_path(SICONOS_CONFIG_INCLUDE_DIR SiconosConfig.h PATH_SUFFIXES siconos)
find_package_handle_standard_args(SiconosNumerics DEFAULT_MSG SICONOS_NUMERICS_INCLUDE_DIR
  SICONOS_CONFIG_INCLUDE_DIR SICONOS_NUMERICS_LIBRARY)

set(HDF5_PREFER_PARALLEL FALSE)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(LAPACK REQUIRED)
