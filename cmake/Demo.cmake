# The bundled demo model, exported at build time beside the binary (build/demo/demo.pt), so
# `advisor bisect` with no model runs it. Exporting needs a Python with torch.
if(ADVISOR_PYTHON)
  set(_demo ${CMAKE_BINARY_DIR}/demo/demo.pt)
  add_custom_command(
    OUTPUT ${_demo}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/demo
    COMMAND ${ADVISOR_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/demo/make_demo.py ${_demo}
    DEPENDS ${CMAKE_SOURCE_DIR}/scripts/demo/make_demo.py
            ${CMAKE_SOURCE_DIR}/scripts/advisor_export.py
    COMMENT "Exporting the demo model"
    VERBATIM)
  add_custom_target(demo_model ALL DEPENDS ${_demo})
else()
  message(WARNING "No Python with torch found: the bundled demo is not built "
                  "(set ADVISOR_PYTHON)")
endif()
