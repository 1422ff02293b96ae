# Output (src/io/writer*.c, viz*.c, xdmf.c) and command-line (src/cli/) tests.
# Included by tests/CMakeLists.txt. Python tests need h5py: FMB_TEST_PY (/usr/bin/python3).

# HDF5 layout, record counts, time step, pose = (A(theta) rbar, theta), points, sidecar.
foreach(c pendulum slider_crank four_bar)
  add_test(NAME io_output_${c}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output.py
            $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/${c}.yaml)
endforeach()

# Beam bodies (/beams) and slider outputs (/sliders): the quick-return linkage, 1/2 turn.
add_test(NAME io_output_quick_return
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/quick_return.yaml --set revolutions=0.5)

# flexmb compare: interpolation error against a hand estimate, identical files -> 0,
# every CSV row against numpy, plot and CSV-only fallback; flexmb modes against
# Euler-Bernoulli frequencies, exit status for rigid / unknown bodies.
add_test(NAME io_compare
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.py
          $<TARGET_FILE:flexmb_cli> compare)
add_test(NAME io_modes
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.py
          $<TARGET_FILE:flexmb_cli> modes ${FMB_SRC}/cases/quick_return.yaml)

# SIGINT / SIGTERM after ~1 s: exit 130 / 143, the file holds the completed steps;
# SIGKILL: the staged file keeps the contract of tests/kill_check.py (committed records
# complete in every dataset). bench/kill_stress.py repeats the SIGKILL many times.
add_test(NAME io_interrupt
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_sigint.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/pendulum.yaml)
set_tests_properties(io_interrupt PROPERTIES TIMEOUT 180)

# Readers take the committed records (committed_records, else the fewest rows):
# scripts/flexmb_results.py and flexmb compare on files shaped like a killed run's.
add_test(NAME io_committed
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_committed.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/pendulum.yaml)

# Command line: help, version, usage errors, every exit status, default output names.
add_test(NAME io_cli
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases ${FMB_TEST_PY})

# ParaView opens the XDMF sidecar (skipped, exit 77, without pvbatch).
foreach(c slider_crank four_bar)
  add_test(NAME io_paraview_${c}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paraview.sh $<TARGET_FILE:flexmb_cli>
            ${FMB_SRC}/cases/${c}.yaml ${CMAKE_CURRENT_SOURCE_DIR}/pv_check.py)
  set_tests_properties(io_paraview_${c} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                      RESOURCE_LOCK xvfb)
endforeach()
# A beam drawn from /beams with its deflection as point data.
add_test(NAME io_paraview_quick_return
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paraview.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/quick_return.yaml ${CMAKE_CURRENT_SOURCE_DIR}/pv_check.py
          --set revolutions=0.5)
set_tests_properties(io_paraview_quick_return PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                      RESOURCE_LOCK xvfb)
# Frictional sliders: blocks, ground guide, corner contact forces.
add_test(NAME io_paraview_slider_lugre_2
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paraview.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/slider_lugre_2.yaml ${CMAKE_CURRENT_SOURCE_DIR}/pv_check.py
          --set t_end=0.3)
set_tests_properties(io_paraview_slider_lugre_2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                      RESOURCE_LOCK xvfb)
# Clearance joint: the journal centre as a vertex with its contact outputs (/viz/forces).
add_test(NAME io_paraview_slider_crank_clearance
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paraview.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/slider_crank_clearance.yaml ${CMAKE_CURRENT_SOURCE_DIR}/pv_check.py
          --set revs=0.3)
set_tests_properties(io_paraview_slider_crank_clearance PROPERTIES SKIP_RETURN_CODE 77
                      TIMEOUT 300 RESOURCE_LOCK xvfb)
# 25,000 records: a bounded number of frames (<= 1000), loaded and stepped through in pvbatch
# in under a minute (pv_check --all-frames --max-seconds 60).
add_test(NAME io_paraview_quick_return_25k
  COMMAND env "PV_CHECK_ARGS=--all-frames --max-seconds=60"
          sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paraview.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/quick_return.yaml ${CMAKE_CURRENT_SOURCE_DIR}/pv_check.py
          --set revolutions=8 --set out_every=1)
set_tests_properties(io_paraview_quick_return_25k PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
                      RESOURCE_LOCK xvfb)
# scripts/paraview_animate.py: frames, movie, deflection series.
add_test(NAME io_paraview_animate
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_animate.py $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases ${FMB_SRC}/scripts)
set_tests_properties(io_paraview_animate PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                      RESOURCE_LOCK xvfb)
# Visualization output without ParaView: sidecar size against records, viz_every, --no-viz,
# block sizes.
add_test(NAME io_viz
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_viz.py $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases)

# Frictional sliding joints (/contacts): seed 000's blocks through the first slip (case
# 1: lower face only, resultant = m g; case 2: single face and diagonal contact) and the
# slider-pendulum.
add_test(NAME io_output_slider_lugre_1
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/slider_lugre_1.yaml --set t_end=3)
add_test(NAME io_output_slider_lugre_2
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/slider_lugre_2.yaml --set t_end=3)
add_test(NAME io_output_slider_pendulum
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/slider_pendulum.yaml --set t_end=3)

# A run that fails mid-way (a slider driven off its elastic guide) keeps its results.
add_test(NAME run_slider_off_guide
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_run_errors.py
          $<TARGET_FILE:flexmb_cli> ${CMAKE_CURRENT_SOURCE_DIR}/run_cases/slider_off_guide.yaml
          ${CMAKE_CURRENT_BINARY_DIR}/run_errors)
# Chunks of at most 1 MiB: a 3,000-element rocker's file holds only the chunks it uses.
add_test(NAME io_chunk_size
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_chunks.py $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/quick_return.yaml ${CMAKE_CURRENT_BINARY_DIR}/chunks)
# An element's step control below h_min names itself (the reason is formatted only then).
add_test(NAME run_error_step_control
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stepctl_message.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/slider_crank_clearance.yaml ${CMAKE_CURRENT_BINARY_DIR}/stepctl_msg)

# Joint reactions in joint and body axes, force magnitude, drive torque: Newton's laws
# for a pendulum and a bar spun up at constant angular acceleration.
foreach(t pendulum driven)
  add_test(NAME io_reaction_axes_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_reaction_axes.py
            $<TARGET_FILE:flexmb_cli> ${FMB_SRC} ${t})
endforeach()

# Provenance: parameters, overrides and run statistics in the result file; legends from
# the parameters that differ.
add_test(NAME io_provenance
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_provenance.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# flexmb compare for engineers: against the crank angle (rigid quick-return at two
# speeds: zero pose differences), beam deflection at fixed stations across meshes, and
# the default set ranked against the mechanism's scales (rigid against flexible rocker).
foreach(t compare_angle compare_mesh compare_engineer)
  add_test(NAME io_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.py
            $<TARGET_FILE:flexmb_cli> ${t})
endforeach()

# Every fenced shell block of README.md runs and exits 0 (RUN_SERIAL: it builds in build/
# and writes out/).
add_test(NAME readme_commands
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_readme.py ${FMB_SRC})
set_tests_properties(readme_commands PROPERTIES RUN_SERIAL TRUE TIMEOUT 1800)

# Runs end exactly at t_end; an absurd step count is refused (fuzz findings).
add_test(NAME run_end_time
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_end_time.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# Output safety: inputs and foreign files are never replaced (fuzz findings).
add_test(NAME io_output_safety
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_output_safety.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# A second SIGINT during the close of an interrupted run waits for the close.
add_test(NAME io_double_sigint
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_double_sigint.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# compare -o PREFIX: the user's PREFIX.csv / .png and the inputs are never replaced.
add_test(NAME io_compare_outputs
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_outputs.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# FIFO inputs and outputs are refused at once, never waited on.
add_test(NAME io_fifo_inputs
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_fifo_inputs.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# Install rules; compare finds its script from the install prefix, never from the cwd.
add_test(NAME io_install_scripts
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${CMAKE_BINARY_DIR} ${FMB_SRC})
