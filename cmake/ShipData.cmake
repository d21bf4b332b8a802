# advisor_ship_data(NAME GLOB OWNER): copies the files GLOB matches into ${CMAKE_BINARY_DIR}/NAME,
# beside build/advisor where FindDataDir(NAME) looks, so the binary works from any working
# directory; installs them to share/advisor/NAME. The copy is redone whenever one of the files
# changes, and files deleted from the source disappear from the copy. OWNER is the library that
# needs them at run time.
function(advisor_ship_data name glob owner)
  file(GLOB files CONFIGURE_DEPENDS ${glob})
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${name}.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_BINARY_DIR}/${name}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/${name}
    COMMAND ${CMAKE_COMMAND} -E copy ${files} ${CMAKE_BINARY_DIR}/${name}/
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${files}
    COMMENT "Copying ${name} to ${CMAKE_BINARY_DIR}/${name}"
    VERBATIM)
  add_custom_target(advisor_${name}_data DEPENDS ${stamp})
  add_dependencies(${owner} advisor_${name}_data)
  install(FILES ${files} DESTINATION share/advisor/${name})
endfunction()
