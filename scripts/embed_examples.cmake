# Writes a C++ source holding every examples/*.json and examples/boards/*.json as text, so the
# browser app and the Wasm tests have the built-in examples and the board library without a file
# system. Run with -DSRC_DIR=... -DOUT=...
set(body "// Generated from examples/*.json and examples/boards/*.json by scripts/embed_examples.cmake. Do not edit.\n#include \"core/graph/examples.h\"\nnamespace arenaplan {\n")
# One function per folder: NAME returns the files of GLOB_DIR as {stem, text}, sorted by stem.
function(embed_folder name glob_dir)
  file(GLOB files "${glob_dir}/*.json")
  list(SORT files)
  set(out "const std::vector<Example>& ${name}() {\n  static const std::vector<Example> examples = {\n")
  foreach(f ${files})
    get_filename_component(stem "${f}" NAME_WE)
    file(READ "${f}" text)
    string(APPEND out "    {\"${stem}\", R\"APJSON(${text})APJSON\"},\n")
  endforeach()
  string(APPEND out "  };\n  return examples;\n}\n")
  set(body "${body}${out}" PARENT_SCOPE)
endfunction()
embed_folder(builtin_examples "${SRC_DIR}")
embed_folder(builtin_board_files "${SRC_DIR}/boards")
string(APPEND body "}  // namespace arenaplan\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
