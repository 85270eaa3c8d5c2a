# Writes a header with every shaders/*.glsl as a string constant named after the file
# (rect.vert.glsl -> ap_shader_rect_vert), so the app carries its shaders without a file system.
# Run with -DSRC_DIR=... -DOUT=...
file(GLOB files "${SRC_DIR}/*.glsl")
list(SORT files)
set(body "// Generated from shaders/*.glsl by web/embed_shaders.cmake. Do not edit.\n#pragma once\n")
foreach(f ${files})
  get_filename_component(name "${f}" NAME)
  string(REGEX REPLACE "\\.glsl$" "" stem "${name}")
  string(MAKE_C_IDENTIFIER "${stem}" id)
  file(READ "${f}" text)
  string(APPEND body "inline constexpr const char* ap_shader_${id} = R\"APGLSL(${text})APGLSL\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
