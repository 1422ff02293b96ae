// Rocker O2B of the quick-return linkage (seed 001, cases/quick_return.yaml):
// a straight bar of length L = 0.6 m along x, from O2 (node at x = 0) to B, meshed
// with N uniform 2-node line elements (flexmb reads them with src/io/mesh.c).
//
// Regenerate the committed meshes (the build never runs gmsh):
//   gmsh rocker.geo -1 -format msh22 -o rocker_10.msh
//   gmsh rocker.geo -1 -setnumber N 20 -format msh41 -o rocker_20.msh
If (!Exists(L))
  L = 0.6;    // length, m
EndIf
If (!Exists(N))
  N = 10;     // number of elements
EndIf

Point(1) = {0, 0, 0};
Point(2) = {L, 0, 0};
Line(1) = {1, 2};
Transfinite Curve{1} = N + 1;   // N + 1 nodes, uniform

Physical Point("O2") = {1};
Physical Point("B") = {2};
Physical Curve("rocker") = {1};
