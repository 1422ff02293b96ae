# Gmsh bar meshes (src/io/mesh.c). Included by tests/CMakeLists.txt.

# The shipped rocker meshes (MSH 2.2 and 4.1): node count and uniform positions.
fmb_c_test(test_mesh)
add_test(NAME mesh_read COMMAND test_mesh ${FMB_SRC}/meshes)

# Bad meshes: the reader fails with "FILE:LINE: message" containing the phrase.
# fmb_mesh_error(NAME LINE PHRASE) registers mesh_error_NAME on tests/bad_meshes/NAME.msh.
set(FMB_MESH_BAD ${CMAKE_CURRENT_SOURCE_DIR}/bad_meshes)
function(fmb_mesh_error name line phrase)
  add_test(NAME mesh_error_${name}
    COMMAND test_mesh ${FMB_MESH_BAD}/${name}.msh ${line} "${phrase}")
endfunction()

fmb_mesh_error(duplicate_node 11 "duplicate node 6 (same position as node 3)")
fmb_mesh_error(disconnected 14 "disconnected bar: element 2")
fmb_mesh_error(unordered 14 "elements not ordered end-to-start: element 2 starts at node 4")
fmb_mesh_error(non_collinear 13 "node 3 is not collinear")
fmb_mesh_error(unsupported_version 2 "unsupported mesh format version 3")
fmb_mesh_error(branch 15 "branch at node 3")
fmb_mesh_error(no_line_elements 9 "no line elements (type 1)")
add_test(NAME mesh_error_not_found
  COMMAND test_mesh ${FMB_MESH_BAD}/no_such_mesh.msh - "cannot open: No such file or directory")
